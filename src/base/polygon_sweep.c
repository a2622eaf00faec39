/* Validation of polygon sets by a plane sweep (polygon_sweep.h).
 *
 * The pairwise check (geometry.c) defines what is valid. It reports the
 * first fault in this order: polygon by polygon, (A) each ring alone, (B)
 * each hole against the outer ring, then against the holes before it, (C)
 * the polygon against each polygon before it. A pair of rings is at fault
 * when two of their edges cross or share a stretch (thr_segments_meet), or
 * when a sample point of one (a vertex or an edge's middle) lies where it
 * must not relative to the other (thr_ring_locate, exact): a hole's point
 * outside its outer ring, inside another hole; an outer ring's point inside
 * another polygon (inside its outer ring, outside its holes).
 *
 * Here, for n vertices:
 *  1. Each ring alone, after one sort of the vertices: repeated vertices,
 *     edges of zero length, an edge running back over its neighbour (each
 *     makes two edges that are not neighbours meet), zero area.
 *  2. A sweep of a horizontal line upwards over all edges (Shamos and
 *     Hoey, with the degenerate cases handled as Bentley and Ottmann do;
 *     horizontal edges as if the plane were turned by an infinitesimal
 *     angle) finds two edges that must not meet whenever there are any.
 *     thr_segments_meet decides every pair it looks at.
 *  3. The same sweep tells, where rings touch (a common vertex, or a vertex
 *     on another ring's edge), whether their boundaries cross there, which
 *     no pair of edges shows. Rings that do ("crossing at a point") are
 *     located one by one (step 4 with a status of their own).
 *  4. It locates each sample point: the edge just left of the point moved
 *     right by an infinitesimal and up by a larger one (for a point on no
 *     edge of a ring, that is where the half-open crossing rule of
 *     thr_ring_locate places it); and for each ring, the edge just left of
 *     its lowest vertex. Rings whose edges neither cross nor meet crossing
 *     nest (each inside another or apart), so these edges give the tree of
 *     rings inside rings and, for each point, the rings around it.
 *  5. One walk of that tree evaluates what the pairwise check asks of each
 *     sample point, with the rings through the point (it is on their
 *     boundary) set apart: those never count as in or out.
 * With a fault, bisection on polygons (then on holes, then on the polygons
 * before) finds the one the pairwise order reports first: O(n log^2 n). */
#include "polygon_sweep.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { NONE = -1 };

/* What a sweep found. */
enum { V_NONE, V_EDGES, V_POINT, V_FAIL };

typedef struct verdict {
  int kind;       /* V_NONE, V_EDGES, V_POINT, or V_FAIL (out of memory, inconsistent) */
  int e, f;       /* V_EDGES: two edges (by first vertex) that meet where they must not */
  int ring;       /* V_POINT: a ring with a sample point that lies where it must not (its first: bad_k) ... */
  int other;      /* ... relative to this ring (an outer ring: relative to its polygon) */
  int ring_a, ring_b; /* the two rings involved (the same for a ring alone) */
} verdict;

/* Ring checks before any sweep. */
enum { PRE_OK, PRE_FAULT, PRE_ZERO_AREA };

/* How many vertices a ring must have for its own checks to run here (the
 * pairs of edges they name need 5); shorter rings are checked pairwise. */
#define SWEEP_RING_MIN 5

static long fallbacks;

long thr_polygon_sweep_fallbacks(void) {
  return fallbacks;
}

/* ---- points -------------------------------------------------------------- */

/* As geometry.c: twice the signed area of abc, > 0 when c lies left of ab. */
static double orient(thr_vec2 a, thr_vec2 b, thr_vec2 c) {
  return ((double)b.x - a.x) * ((double)c.y - a.y) - ((double)b.y - a.y) * ((double)c.x - a.x);
}

static int sign(double x) {
  return (x > 0.0) - (x < 0.0);
}

/* A float's bits as an unsigned integer of the same order (-0 as +0). */
static uint32_t float_key(float f) {
  uint32_t u;
  if (f == 0.0f) f = 0.0f;
  memcpy(&u, &f, sizeof u);
  return (u & 0x80000000u) ? ~u : u | 0x80000000u;
}

/* The sweep's order of points: by y, then by x. Equal keys: the same point. */
static uint64_t point_key(thr_vec2 p) {
  return (uint64_t)float_key(p.y) << 32 | float_key(p.x);
}

/* A point the sweep stops at: vertex v (id 2 v) or the middle of edge v
 * (id 2 v + 1), the sample points of the pairwise check; `ring` orders the
 * vertices at one point (middles last). */
typedef struct item {
  uint64_t key;
  int id, ring;
} item;

static int cmp_item_key(const void *pa, const void *pb) {
  const item *a = pa, *b = pb;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return (a->id > b->id) - (a->id < b->id);
}

/* Sort by key: short arrays by comparison, long ones by radix (16 bits a
 * pass; count: 2^16 counters), skipping digits all keys share. */
static void sort_items(item *a, item *tmp, size_t n, size_t *count) {
  if (n < 4096) {
    qsort(a, n, sizeof *a, cmp_item_key);
    return;
  }
  item *src = a, *dst = tmp;
  for (int shift = 0; shift < 64; shift += 16) {
    memset(count, 0, ((size_t)1 << 16) * sizeof *count);
    for (size_t i = 0; i < n; ++i) count[(src[i].key >> shift) & 0xffff]++;
    if (count[(src[0].key >> shift) & 0xffff] == n) continue;
    size_t sum = 0;
    for (size_t d = 0; d < ((size_t)1 << 16); ++d) {
      size_t c = count[d];
      count[d] = sum;
      sum += c;
    }
    for (size_t i = 0; i < n; ++i) dst[count[(src[i].key >> shift) & 0xffff]++] = src[i];
    item *t = src;
    src = dst;
    dst = t;
  }
  if (src != a) memcpy(a, src, n * sizeof *a);
}

/* ---- the sweep's state ---------------------------------------------------- */

/* A direction leaving a point along a ring's boundary. */
typedef struct passage {
  double dx, dy;
  int ring;
} passage;

typedef struct sweep {
  const thr_polyset *s;
  int *ring_of;        /* [n_verts] */
  int *next, *prev;    /* [n_verts] the ring's next and previous vertex */
  int *lo, *hi;        /* [n_verts] edge v's end first and last in sweep order */
  unsigned char *flat; /* [n_verts] edge v is horizontal */
  size_t *count;       /* [65536] radix sort */
  int *poly_of;        /* [n_rings] */
  uint64_t *vkey;      /* [n_verts] point_key of each vertex */
  unsigned char *ccw;  /* [n_rings] counter-clockwise */
  int *minv;           /* [n_rings] the ring's first vertex in sweep order */
  /* the status: a treap of edges (an edge is named by its first vertex) */
  int *tl, *tr, *tp;
  uint32_t *prio;
  uint32_t rand;
  /* per sample point (2 n_verts) */
  int *nl;      /* the edge just left of the point (NONE) */
  int *cedge;   /* an edge the point lies inside of, away from its ends (NONE) */
  int *grp;     /* the first item at the point's place; the vertices there follow, by ring */
  int *grp_len; /* how many items there */
  /* per ring */
  unsigned char *in_set, *in_x;
  int *nl_ring;           /* the edge just left of the ring's first vertex */
  int *parent;            /* the innermost ring around it (NONE) */
  int *order, n_order;    /* rings in the order their first vertices were swept */
  int *bad_k, *bad_other; /* the ring's first sample point at fault, and relative to what */
  int *mark, stamp;
  int *xroot;             /* a status of its own for each ring crossing another at a point */
  /* per polygon: the walk of the tree of rings */
  unsigned char *outer_on; /* its outer ring is on the path */
  int *hole_count;         /* its holes on the path */
  int *hole_top;           /* the innermost of them (NONE) */
  int *saved_top;          /* [n_rings] the hole_top a hole replaced */
  int *clean_prev, *clean_next, clean_head; /* polygons with their outer ring on the path and no hole */
  unsigned char *in_clean;
  unsigned char *has_x_hole;
  /* a sweep's items, and scratch for the points of one place */
  item *items, *tmp;
  int n_items;
  int *scratch; /* E, S, L, and a stack: 4 x cap */
  passage *pass;
  int cap;
  /* points inside rings that cross others at a point: (sample, ring) */
  int *inx_sample, *inx_ring, n_inx, cap_inx;
  int *inx_first; /* [2 n_verts + 1] */
  int inconsistent;
} sweep;

static thr_vec2 V(const sweep *w, int v) {
  return w->s->verts[v];
}

static int nxt(const sweep *w, int v) {
  return w->next[v];
}

static int prv(const sweep *w, int v) {
  return w->prev[v];
}

static int is_outer(const sweep *w, int ring) {
  return w->s->poly_first[w->poly_of[ring]] == ring;
}

/* Edge e's end that comes first (lo) and last (hi) in sweep order. */
static int lo_v(const sweep *w, int e) {
  return w->lo[e];
}

static int hi_v(const sweep *w, int e) {
  return w->hi[e];
}

static int horizontal(const sweep *w, int e) {
  return w->flat[e];
}

/* The ring's inside lies right of edge e (seen from below): an edge going
 * down of a counter-clockwise ring, up of a clockwise one. */
static int inside_right(const sweep *w, int e) {
  int down = w->vkey[nxt(w, e)] < w->vkey[e];
  return down == w->ccw[w->ring_of[e]];
}

static thr_vec2 middle(const sweep *w, int v) {
  thr_vec2 a = V(w, v), b = V(w, nxt(w, v));
  return v2((float)(0.5 * ((double)a.x + b.x)), (float)(0.5 * ((double)a.y + b.y)));
}

static thr_vec2 sample_point(const sweep *w, int id) {
  return id & 1 ? middle(w, id >> 1) : V(w, id >> 1);
}

/* Whether edges e and f meet where the pairwise check forbids it. */
static int must_not_meet(const sweep *w, int e, int f) {
  int meet = thr_segments_meet(V(w, e), V(w, nxt(w, e)), V(w, f), V(w, nxt(w, f)), NULL);
  if (w->ring_of[e] != w->ring_of[f]) return meet == THR_SEG_CROSS || meet == THR_SEG_OVERLAP;
  if (nxt(w, e) == f || nxt(w, f) == e) return meet == THR_SEG_OVERLAP;
  return meet != THR_SEG_APART;
}

/* ---- the status ------------------------------------------------------------
 * Edges the sweep line crosses just above the current point p, left to
 * right. An edge in it either passes left of p, through p, or right of p; a
 * horizontal edge in it always holds p. Edges through p are ordered by
 * their direction upwards (horizontal ones last). */

/* -1: edge e (in the status) passes left of p, 0: through p, +1: right. */
static int side(const sweep *w, int e, thr_vec2 p) {
  if (horizontal(w, e)) return 0;
  return sign(orient(V(w, lo_v(w, e)), V(w, hi_v(w, e)), p));
}

/* The order of edges e and f through a common point, just above it. */
static int cmp_dir(const sweep *w, int e, int f) {
  int he = horizontal(w, e), hf = horizontal(w, f);
  if (he || hf) return he - hf;
  thr_vec2 a = V(w, lo_v(w, e)), b = V(w, hi_v(w, e)), c = V(w, lo_v(w, f)), d = V(w, hi_v(w, f));
  double ex = (double)b.x - a.x, ey = (double)b.y - a.y, fx = (double)d.x - c.x, fy = (double)d.y - c.y;
  return sign(ex * fy - ey * fx);
}

/* Whether edge e (not horizontal) passes left of p moved right by an
 * infinitesimal, then up by a larger one. */
static int left_of_sample(const sweep *w, int e, thr_vec2 p) {
  int sd = side(w, e, p);
  if (sd) return sd < 0;
  return V(w, hi_v(w, e)).x <= V(w, lo_v(w, e)).x;
}

static uint32_t next_rand(sweep *w) {
  uint32_t x = w->rand; /* xorshift32: the same tree shapes on every run */
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return w->rand = x;
}

static void t_rotate_up(sweep *w, int *root, int x) {
  int p = w->tp[x], g = w->tp[p];
  if (w->tl[p] == x) {
    int b = w->tr[x];
    w->tl[p] = b;
    if (b != NONE) w->tp[b] = p;
    w->tr[x] = p;
  } else {
    int b = w->tl[x];
    w->tr[p] = b;
    if (b != NONE) w->tp[b] = p;
    w->tl[x] = p;
  }
  w->tp[p] = x;
  w->tp[x] = g;
  if (g == NONE)
    *root = x;
  else if (w->tl[g] == p)
    w->tl[g] = x;
  else
    w->tr[g] = x;
}

static int t_first(const sweep *w, int root) {
  if (root == NONE) return NONE;
  while (w->tl[root] != NONE) root = w->tl[root];
  return root;
}

static int t_succ(const sweep *w, int x) {
  if (w->tr[x] != NONE) return t_first(w, w->tr[x]);
  int p = w->tp[x];
  while (p != NONE && w->tr[p] == x) x = p, p = w->tp[p];
  return p;
}

static int t_pred(const sweep *w, int x) {
  if (w->tl[x] != NONE) {
    x = w->tl[x];
    while (w->tr[x] != NONE) x = w->tr[x];
    return x;
  }
  int p = w->tp[x];
  while (p != NONE && w->tl[p] == x) x = p, p = w->tp[p];
  return p;
}

/* Insert x right after a (NONE: first). */
static void t_insert_after(sweep *w, int *root, int a, int x) {
  w->tl[x] = w->tr[x] = NONE;
  w->prio[x] = next_rand(w);
  if (*root == NONE) {
    *root = x;
    w->tp[x] = NONE;
    return;
  }
  int at;
  if (a == NONE) {
    at = t_first(w, *root);
    w->tl[at] = x;
  } else if (w->tr[a] == NONE) {
    at = a;
    w->tr[a] = x;
  } else {
    at = t_first(w, w->tr[a]);
    w->tl[at] = x;
  }
  w->tp[x] = at;
  while (w->tp[x] != NONE && w->prio[w->tp[x]] < w->prio[x]) t_rotate_up(w, root, x);
}

static void t_remove(sweep *w, int *root, int x) {
  for (;;) {
    int l = w->tl[x], r = w->tr[x];
    if (l == NONE && r == NONE) break;
    t_rotate_up(w, root, (l == NONE || (r != NONE && w->prio[r] > w->prio[l])) ? r : l);
  }
  int p = w->tp[x];
  if (p == NONE)
    *root = NONE;
  else if (w->tl[p] == x)
    w->tl[p] = NONE;
  else
    w->tr[p] = NONE;
  w->tp[x] = NONE;
}

/* The last edge of the status that passes left of p (NONE). */
static int last_left_of(const sweep *w, int root, thr_vec2 p) {
  int best = NONE;
  for (int x = root; x != NONE;)
    if (side(w, x, p) < 0)
      best = x, x = w->tr[x];
    else
      x = w->tl[x];
  return best;
}

/* The last edge of a status without horizontal edges left of sample point p. */
static int last_left_of_sample(const sweep *w, int root, thr_vec2 p) {
  int best = NONE;
  for (int x = root; x != NONE;)
    if (left_of_sample(w, x, p))
      best = x, x = w->tr[x];
    else
      x = w->tl[x];
  return best;
}

/* ---- one place of the sweep -------------------------------------------------- */

static int grow_scratch(sweep *w, int need) {
  if (need <= w->cap) return 0;
  int cap = need < 64 ? 64 : need * 2;
  int *sc = realloc(w->scratch, (size_t)cap * 4 * sizeof *sc);
  if (!sc) return -1;
  w->scratch = sc;
  passage *ps = realloc(w->pass, (size_t)cap * 2 * sizeof *ps);
  if (!ps) return -1;
  w->pass = ps;
  w->cap = cap;
  return 0;
}

/* One place of the sweep, point p (its key): of one status's edges, E[nE]
 * end at p, S[nS] start there; after update_place, L[nL] are the edges
 * through p in their order (S and c0, the edge with p inside it, if any),
 * `before` and `after` the edges just left and right of them. */
typedef struct place {
  thr_vec2 p;
  uint64_t key;
  int *E, *S, *L;
  int nE, nS, nL;
  int c0, before, after;
} place;

static int found_pair(const sweep *w, int e, int f, int *fe, int *ff) {
  if (!must_not_meet(w, e, f)) return 0;
  *fe = e, *ff = f;
  return 1;
}

/* Removes E from the status, inserts S, and fills in the rest of *pl. With
 * `check`, looks at every pair of edges that becomes neighbours or meets at
 * p for edges that must not meet (*fe, *ff; returns 1). */
static int update_place(sweep *w, int *root, place *pl, int check, int *fe, int *ff) {
  thr_vec2 p = pl->p;
  int first = NONE, last = NONE, before, after;
  /* the edges through p: around an edge ending here, or found from the top */
  if (pl->nE) {
    first = last = pl->E[0];
    for (int y; (y = t_pred(w, first)) != NONE && side(w, y, p) == 0;) first = y;
    for (int y; (y = t_succ(w, last)) != NONE && side(w, y, p) == 0;) last = y;
    before = t_pred(w, first);
    after = t_succ(w, last);
  } else {
    before = last_left_of(w, *root, p);
    int y = before == NONE ? t_first(w, *root) : t_succ(w, before);
    for (; y != NONE && side(w, y, p) == 0; y = t_succ(w, y)) {
      if (first == NONE) first = y;
      last = y;
    }
    after = y;
  }
  /* those not ending here hold p inside them: two of them cross there */
  int c[2], nc = 0;
  for (int y = first; y != NONE; y = t_succ(w, y)) {
    if (w->vkey[hi_v(w, y)] != pl->key) {
      c[nc++] = y;
      if (nc == 2) break;
    }
    if (y == last) break;
  }
  if (nc == 2) {
    if (check && found_pair(w, c[0], c[1], fe, ff)) return 1;
    w->inconsistent = 1;
    return 0;
  }
  pl->c0 = nc ? c[0] : NONE;
  if (check && nc)
    for (int k = 0; k < pl->nE + pl->nS; ++k) {
      int x = k < pl->nE ? pl->E[k] : pl->S[k - pl->nE];
      if (found_pair(w, pl->c0, x, fe, ff)) return 1;
    }
  for (int k = 0; k < pl->nE; ++k) t_remove(w, root, pl->E[k]);
  /* S and c0 in their order above p */
  int nl = 0;
  for (int k = 0; k <= pl->nS; ++k) {
    int x = k < pl->nS ? pl->S[k] : pl->c0;
    if (x == NONE) break;
    int at = nl;
    while (at > 0 && cmp_dir(w, pl->L[at - 1], x) > 0) at--;
    if (at > 0 && cmp_dir(w, pl->L[at - 1], x) == 0) { /* the same direction: a common stretch */
      if (check && found_pair(w, pl->L[at - 1], x, fe, ff)) return 1;
      w->inconsistent = 1;
    }
    memmove(pl->L + at + 1, pl->L + at, (size_t)(nl - at) * sizeof *pl->L);
    pl->L[at] = x;
    nl++;
  }
  pl->nL = nl;
  int prev = before;
  for (int k = 0; k < nl; ++k) {
    if (pl->L[k] != pl->c0) t_insert_after(w, root, prev, pl->L[k]);
    prev = pl->L[k];
  }
  pl->before = before;
  pl->after = after;
  if (!check) return 0;
  /* the pairs that became neighbours (those through p meet at p only) */
  int a = nl ? pl->L[0] : after, b = nl ? pl->L[nl - 1] : NONE;
  if (before != NONE && a != NONE && found_pair(w, before, a, fe, ff)) return 1;
  if (b != NONE && after != NONE && found_pair(w, b, after, fe, ff)) return 1;
  return 0;
}

/* The edge just left of a sample point at p: the last edge through p that
 * leans left (or is vertical), else the edge before them. */
static int left_at_place(const sweep *w, const place *pl) {
  int best = pl->before;
  for (int k = 0; k < pl->nL; ++k) {
    int e = pl->L[k];
    if (horizontal(w, e) || !left_of_sample(w, e, pl->p)) break;
    best = e;
  }
  return best;
}

/* The rings whose first vertex is p (which start at least one edge there
 * that is not horizontal): the edge just left of each, the one before its
 * leftmost edge (the outside of the ring lies between them); in order left
 * to right, so that a ring comes after those whose edges lie left of it.
 * Rings crossing others at a point (in_x) are left out when `skip_x`. */
static void left_of_rings(sweep *w, const place *pl, int skip_x) {
  w->stamp++;
  for (int k = 0; k < pl->nL; ++k) {
    int e = pl->L[k], ring = w->ring_of[e];
    if (horizontal(w, e) || w->vkey[w->minv[ring]] != pl->key || w->mark[ring] == w->stamp) continue;
    if (skip_x && w->in_x[ring]) continue;
    w->mark[ring] = w->stamp;
    w->nl_ring[ring] = k ? pl->L[k - 1] : pl->before;
    w->order[w->n_order++] = ring;
  }
}

static int cmp_passage(const void *pa, const void *pb) {
  const passage *a = pa, *b = pb;
  int ha = a->dy > 0 || (a->dy == 0 && a->dx > 0), hb = b->dy > 0 || (b->dy == 0 && b->dx > 0);
  if (ha != hb) return hb - ha;
  double c = a->dx * b->dy - a->dy * b->dx;
  return c > 0 ? -1 : c < 0;
}

/* Rings through point p (items g0..g1: their vertices; c0: an edge with p
 * inside): mark in_x the rings whose boundaries cross there. Around p each
 * ring's boundary is a pair of directions; boundaries that do not cross
 * are pairs nested like brackets. */
static void touching_rings(sweep *w, int g0, int g1, thr_vec2 p, int c0) {
  int n = 0;
  for (int k = g0; k < g1; ++k) {
    if (w->items[k].id & 1) continue;
    int v = w->items[k].id >> 1;
    thr_vec2 a = V(w, prv(w, v)), b = V(w, nxt(w, v));
    w->pass[n++] = (passage){(double)a.x - p.x, (double)a.y - p.y, w->ring_of[v]};
    w->pass[n++] = (passage){(double)b.x - p.x, (double)b.y - p.y, w->ring_of[v]};
  }
  if (c0 != NONE) {
    thr_vec2 a = V(w, c0), b = V(w, nxt(w, c0));
    w->pass[n++] = (passage){(double)a.x - p.x, (double)a.y - p.y, w->ring_of[c0]};
    w->pass[n++] = (passage){(double)b.x - p.x, (double)b.y - p.y, w->ring_of[c0]};
  }
  if (n < 4) return;
  qsort(w->pass, (size_t)n, sizeof *w->pass, cmp_passage);
  int *stack = w->scratch + 3 * w->cap, top = 0, crossing = 0;
  w->stamp++;
  for (int k = 0; k < n && !crossing; ++k) {
    int r = w->pass[k].ring;
    if (k > 0 && !cmp_passage(&w->pass[k - 1], &w->pass[k])) crossing = 1; /* a common stretch: not here */
    if (w->mark[r] != w->stamp) {
      w->mark[r] = w->stamp;
      stack[top++] = r;
    } else if (top > 0 && stack[top - 1] == r) {
      top--;
    } else {
      crossing = 1;
    }
  }
  if (crossing)
    for (int k = 0; k < n; ++k) w->in_x[w->pass[k].ring] = 1;
}

static int cmp_item_ring(const void *a, const void *b) {
  int ra = ((const item *)a)->ring, rb = ((const item *)b)->ring;
  return (ra > rb) - (ra < rb);
}

/* Sort the items at one place by ring (the middles, ring INT_MAX, last). */
static void sort_place(item *it, int n) {
  if (n > 16) {
    qsort(it, (size_t)n, sizeof *it, cmp_item_ring);
    return;
  }
  for (int i = 1; i < n; ++i) {
    item x = it[i];
    int j = i;
    while (j > 0 && it[j - 1].ring > x.ring) it[j] = it[j - 1], j--;
    it[j] = x;
  }
}

/* The edges at the vertices among items g0..g1 into E (ending) and S (starting). */
static void gather(const sweep *w, int g0, int g1, place *pl, int (*take)(const sweep *, int)) {
  pl->nE = pl->nS = 0;
  for (int k = g0; k < g1; ++k) {
    if (w->items[k].id & 1) continue;
    int v = w->items[k].id >> 1, in = prv(w, v);
    if (take && !take(w, v)) continue;
    if (w->vkey[in] < pl->key)
      pl->E[pl->nE++] = in;
    else
      pl->S[pl->nS++] = in;
    if (w->vkey[nxt(w, v)] > pl->key)
      pl->S[pl->nS++] = v;
    else
      pl->E[pl->nE++] = v;
  }
}

/* ---- the sweeps -------------------------------------------------------------- */

/* The event point of items g0.. (those sharing its key): its place, with
 * the scratch lists ready. Returns the end of the group; -1 when out of
 * memory. */
static int open_place(sweep *w, int g0, place *pl) {
  uint64_t key = w->items[g0].key;
  int g1 = g0 + 1;
  while (g1 < w->n_items && w->items[g1].key == key) g1++;
  if (grow_scratch(w, 2 * (g1 - g0) + 2)) return -1;
  pl->E = w->scratch;
  pl->S = w->scratch + w->cap;
  pl->L = w->scratch + 2 * w->cap;
  pl->key = key;
  pl->p = sample_point(w, w->items[g0].id);
  return g1;
}

/* Sweep the items of the rings in the set: edges that must not meet
 * (V_EDGES); with `locate`, also for each sample point the edge just left
 * of it and an edge it lies inside of, for each ring the edge left of its
 * first vertex, and the rings that cross others at a point (in_x). */
static int first_sweep(sweep *w, int locate, verdict *v) {
  int root = NONE;
  place pl;
  for (int g0 = 0, g1; g0 < w->n_items; g0 = g1) {
    if ((g1 = open_place(w, g0, &pl)) < 0) return -1;
    gather(w, g0, g1, &pl, NULL);
    int e, f;
    if (update_place(w, &root, &pl, 1, &e, &f)) {
      v->kind = V_EDGES, v->e = e, v->f = f;
      v->ring_a = w->ring_of[e], v->ring_b = w->ring_of[f];
      return 0;
    }
    if (!locate) continue;
    if (g1 - g0 > 1 || pl.c0 != NONE) {
      sort_place(w->items + g0, g1 - g0);
      touching_rings(w, g0, g1, pl.p, pl.c0);
    }
    int left = left_at_place(w, &pl);
    for (int k = g0; k < g1; ++k) {
      int id = w->items[k].id;
      w->nl[id] = left;
      w->cedge[id] = pl.c0;
      w->grp[id] = g0;
      w->grp_len[id] = g1 - g0;
    }
    left_of_rings(w, &pl, 0);
  }
  v->kind = V_NONE;
  return 0;
}

static int not_crossing(const sweep *w, int v) {
  return !w->in_x[w->ring_of[v]];
}

static int crossing(const sweep *w, int v) {
  return w->in_x[w->ring_of[v]];
}

static int add_inside(sweep *w, int id, int ring) {
  if (w->n_inx == w->cap_inx) {
    int cap = w->cap_inx ? 2 * w->cap_inx : 256;
    int *a = realloc(w->inx_sample, (size_t)cap * sizeof *a);
    if (!a) return -1;
    w->inx_sample = a;
    int *b = realloc(w->inx_ring, (size_t)cap * sizeof *b);
    if (!b) return -1;
    w->inx_ring = b;
    w->cap_inx = cap;
  }
  w->inx_sample[w->n_inx] = id;
  w->inx_ring[w->n_inx++] = ring;
  return 0;
}

/* Where rings cross at a point: locate again, the other rings (they nest)
 * in one status, each crossing ring in its own. Records the sample points
 * inside each crossing ring (inx). */
static int second_sweep(sweep *w, const int *rings, int n_rings) {
  int root = NONE, n_x = 0;
  int *xs = malloc((size_t)n_rings * sizeof *xs);
  float *box = malloc((size_t)n_rings * 4 * sizeof *box);
  if (!xs || !box) {
    free(xs);
    free(box);
    return -1;
  }
  for (int i = 0; i < n_rings; ++i) {
    int r = rings[i];
    if (!w->in_x[r]) continue;
    const thr_vec2 *v = thr_ring_verts(w->s, r);
    float *b = box + 4 * n_x;
    b[0] = b[2] = v[0].x, b[1] = b[3] = v[0].y;
    for (int k = 1; k < thr_ring_len(w->s, r); ++k) {
      b[0] = v[k].x < b[0] ? v[k].x : b[0], b[1] = v[k].y < b[1] ? v[k].y : b[1];
      b[2] = v[k].x > b[2] ? v[k].x : b[2], b[3] = v[k].y > b[3] ? v[k].y : b[3];
    }
    xs[n_x++] = r;
    w->xroot[r] = NONE;
  }
  w->n_order = 0;
  w->n_inx = 0;
  int rc = 0;
  place pl;
  for (int g0 = 0, g1; g0 < w->n_items && !rc; g0 = g1) {
    if ((g1 = open_place(w, g0, &pl)) < 0) {
      rc = -1;
      break;
    }
    /* the crossing rings' edges, each ring's in its status (no edge of a
     * ring holds a vertex of the ring: nothing passes through p) */
    gather(w, g0, g1, &pl, crossing);
    for (int k = 0; k < pl.nE; ++k)
      if (!horizontal(w, pl.E[k])) t_remove(w, &w->xroot[w->ring_of[pl.E[k]]], pl.E[k]);
    for (int k = 0; k < pl.nS; ++k) {
      int e = pl.S[k];
      if (horizontal(w, e)) continue;
      int *xr = &w->xroot[w->ring_of[e]], at = last_left_of(w, *xr, pl.p);
      /* after the ring's other edge from p when that one comes first */
      int y = at == NONE ? t_first(w, *xr) : t_succ(w, at);
      if (y != NONE && side(w, y, pl.p) == 0 && cmp_dir(w, y, e) < 0) at = y;
      t_insert_after(w, xr, at, e);
    }
    /* the others in the common status, horizontal edges left out */
    gather(w, g0, g1, &pl, not_crossing);
    int ne = 0, ns = 0;
    for (int k = 0; k < pl.nE; ++k)
      if (!horizontal(w, pl.E[k])) pl.E[ne++] = pl.E[k];
    for (int k = 0; k < pl.nS; ++k)
      if (!horizontal(w, pl.S[k])) pl.S[ns++] = pl.S[k];
    pl.nE = ne, pl.nS = ns;
    int e, f;
    update_place(w, &root, &pl, 0, &e, &f);
    int left = left_at_place(w, &pl);
    left_of_rings(w, &pl, 1);
    for (int k = g0; k < g1 && !rc; ++k) {
      int id = w->items[k].id;
      w->nl[id] = left;
      for (int x = 0; x < n_x && !rc; ++x) {
        const float *b = box + 4 * x;
        if (pl.p.y < b[1] || pl.p.y >= b[3] || pl.p.x > b[2]) continue;
        int l = last_left_of_sample(w, w->xroot[xs[x]], pl.p);
        if (l != NONE && inside_right(w, l)) rc = add_inside(w, id, xs[x]);
      }
    }
  }
  /* empty the statuses (the tree arrays are shared) */
  for (int x = 0; x < n_x; ++x)
    while (w->xroot[xs[x]] != NONE) t_remove(w, &w->xroot[xs[x]], w->xroot[xs[x]]);
  while (root != NONE) t_remove(w, &root, root);
  free(xs);
  free(box);
  return rc;
}

/* ---- what the pairwise check asks of each sample point -------------------------- */

/* Whether a ring in [lo, hi) has a vertex at sample point id's place. */
static int vertex_ring_at(const sweep *w, int id, int lo, int hi) {
  const item *it = w->items + w->grp[id];
  int a = 0, b = w->grp_len[id];
  while (a < b) {
    int m = a + (b - a) / 2;
    if (it[m].ring < lo)
      a = m + 1;
    else
      b = m;
  }
  return a < w->grp_len[id] && it[a].ring < hi;
}

/* Whether the boundary of a ring in [lo, hi) passes through sample point id. */
static int through(const sweep *w, int id, int lo, int hi) {
  int c = w->cedge[id];
  if (c != NONE && w->ring_of[c] >= lo && w->ring_of[c] < hi) return 1;
  return vertex_ring_at(w, id, lo, hi);
}

/* Whether sample point id lies inside crossing ring r (not on it). */
static int inside_x(const sweep *w, int id, int r) {
  for (int k = w->inx_first[id]; k < w->inx_first[id + 1]; ++k)
    if (w->inx_ring[k] == r) return !through(w, id, r, r + 1);
  return 0;
}

/* A hole of polygon q among the crossing rings that holds sample point id, other than `not` (NONE). */
static int x_hole_around(const sweep *w, int id, int q, int not) {
  for (int k = w->inx_first[id]; k < w->inx_first[id + 1]; ++k) {
    int g = w->inx_ring[k];
    if (g != not && w->poly_of[g] == q && !is_outer(w, g) && !through(w, id, g, g + 1)) return g;
  }
  return NONE;
}

/* Whether sample point id (outside no hole of polygon p on the path) lies
 * inside polygon p: inside its outer ring, off every hole and not on it. */
static int inside_polygon(const sweep *w, int id, int p) {
  int outer = w->s->poly_first[p], end = w->s->poly_first[p + 1];
  if (through(w, id, outer, end)) return 0; /* on a ring of p */
  return !w->has_x_hole[p] || x_hole_around(w, id, p, NONE) == NONE;
}

/* What sample point id of ring `ring` is at fault with, in the walk's
 * present state (the rings around it: the path), or NONE. */
static int sample_fault(const sweep *w, int id, int ring) {
  int q = w->poly_of[ring], outer = w->s->poly_first[q];
  if (!is_outer(w, ring)) {
    if (w->in_set[outer]) { /* not outside the outer ring */
      int in = w->in_x[outer] ? inside_x(w, id, outer) : w->outer_on[q];
      if (!in && !through(w, id, outer, outer + 1)) return outer;
    }
    for (int g = w->hole_top[q]; g != NONE; g = w->saved_top[g]) /* not inside another hole */
      if (g != ring && !through(w, id, g, g + 1)) return g;
    return x_hole_around(w, id, q, ring);
  }
  /* not inside another polygon */
  for (int p = w->clean_head; p != NONE; p = w->clean_next[p])
    if (p != q && inside_polygon(w, id, p)) return w->s->poly_first[p];
  for (int k = w->inx_first[id]; k < w->inx_first[id + 1]; ++k) {
    int g = w->inx_ring[k], p = w->poly_of[g];
    if (p == q || !is_outer(w, g) || w->hole_count[p]) continue;
    if (inside_polygon(w, id, p)) return g;
  }
  return NONE;
}

static void clean_add(sweep *w, int p) {
  w->in_clean[p] = 1;
  w->clean_prev[p] = NONE;
  w->clean_next[p] = w->clean_head;
  if (w->clean_head != NONE) w->clean_prev[w->clean_head] = p;
  w->clean_head = p;
}

static void clean_remove(sweep *w, int p) {
  w->in_clean[p] = 0;
  if (w->clean_prev[p] != NONE)
    w->clean_next[w->clean_prev[p]] = w->clean_next[p];
  else
    w->clean_head = w->clean_next[p];
  if (w->clean_next[p] != NONE) w->clean_prev[w->clean_next[p]] = w->clean_prev[p];
}

/* The walk enters ring x (into the rings around the points below it) or leaves it. */
static void enter_ring(sweep *w, int x) {
  int p = w->poly_of[x];
  if (is_outer(w, x)) {
    w->outer_on[p] = 1;
    if (!w->hole_count[p]) clean_add(w, p);
    return;
  }
  w->saved_top[x] = w->hole_top[p];
  w->hole_top[p] = x;
  if (w->hole_count[p]++ == 0 && w->in_clean[p]) clean_remove(w, p);
}

static void leave_ring(sweep *w, int x) {
  int p = w->poly_of[x];
  if (is_outer(w, x)) {
    if (w->in_clean[p]) clean_remove(w, p);
    w->outer_on[p] = 0;
    return;
  }
  w->hole_top[p] = w->saved_top[x];
  if (--w->hole_count[p] == 0 && w->outer_on[p]) clean_add(w, p);
}

/* The innermost ring around a point whose left edge is e (nesting rings only). */
static int face(const sweep *w, int e) {
  if (e == NONE) return NONE;
  return inside_right(w, e) ? w->ring_of[e] : w->parent[w->ring_of[e]];
}

static void note_fault(sweep *w, int id, int other) {
  int ring = w->ring_of[id >> 1];
  int k = 2 * ((id >> 1) - w->s->ring_first[ring]) + (id & 1);
  if (w->bad_k[ring] == NONE || k < w->bad_k[ring]) w->bad_k[ring] = k, w->bad_other[ring] = other;
}

/* Walk the tree of nesting rings, evaluating each sample point of the set's
 * rings where it lies. */
static int walk(sweep *w, const int *rings, int n_rings) {
  const thr_polyset *s = w->s;
  for (int i = 0; i < w->n_order; ++i) {
    int a = w->order[i];
    w->parent[a] = face(w, w->nl_ring[a]);
  }
  /* children of each ring and the sample points in each (index n_rings: outside all) */
  int nodes = s->n_rings + 1, n_samples = 0;
  for (int i = 0; i < n_rings; ++i) n_samples += 2 * thr_ring_len(s, rings[i]);
  int *kid_first = calloc((size_t)nodes + 1, sizeof *kid_first);
  int *kids = malloc((size_t)(n_rings ? n_rings : 1) * sizeof *kids);
  int *pt_first = calloc((size_t)nodes + 1, sizeof *pt_first);
  int *pts = malloc((size_t)(n_samples ? n_samples : 1) * sizeof *pts);
  int *stack = malloc((size_t)(2 * n_rings + 2) * sizeof *stack);
  int rc = -1;
  if (!kid_first || !kids || !pt_first || !pts || !stack) goto done;
  for (int i = 0; i < n_rings; ++i) {
    int r = rings[i];
    if (!w->in_x[r]) kid_first[(w->parent[r] == NONE ? s->n_rings : w->parent[r]) + 1]++;
    for (int v = s->ring_first[r]; v < s->ring_first[r + 1]; ++v)
      for (int t = 0; t < 2; ++t) {
        int f = face(w, w->nl[2 * v + t]);
        pt_first[(f == NONE ? s->n_rings : f) + 1]++;
      }
  }
  for (int k = 0; k < nodes; ++k) kid_first[k + 1] += kid_first[k], pt_first[k + 1] += pt_first[k];
  for (int i = 0; i < n_rings; ++i) {
    int r = rings[i];
    if (!w->in_x[r]) kids[kid_first[w->parent[r] == NONE ? s->n_rings : w->parent[r]]++] = r;
    for (int v = s->ring_first[r]; v < s->ring_first[r + 1]; ++v)
      for (int t = 0; t < 2; ++t) {
        int f = face(w, w->nl[2 * v + t]);
        pts[pt_first[f == NONE ? s->n_rings : f]++] = 2 * v + t;
      }
  }
  /* the counts became ends: back to starts */
  for (int k = nodes; k > 0; --k) kid_first[k] = kid_first[k - 1], pt_first[k] = pt_first[k - 1];
  kid_first[0] = pt_first[0] = 0;
  /* depth first from the outside; a stack entry is a ring to enter (x >= 0) or leave (~x) */
  int top = 0;
  stack[top++] = s->n_rings;
  while (top > 0) {
    int x = stack[--top];
    if (x < 0) {
      leave_ring(w, ~x);
      continue;
    }
    if (x != s->n_rings) enter_ring(w, x), stack[top++] = ~x;
    for (int k = pt_first[x]; k < pt_first[x + 1]; ++k) {
      int id = pts[k], other = sample_fault(w, id, w->ring_of[id >> 1]);
      if (other != NONE) note_fault(w, id, other);
    }
    for (int k = kid_first[x]; k < kid_first[x + 1]; ++k) stack[top++] = kids[k];
  }
  rc = 0;
done:
  free(kid_first);
  free(kids);
  free(pt_first);
  free(pts);
  free(stack);
  return rc;
}

/* ---- checking a set of rings -------------------------------------------------- */

static void clear_ring_state(sweep *w, const int *rings, int n) {
  for (int i = 0; i < n; ++i) {
    int r = rings[i], p = w->poly_of[r];
    w->in_set[r] = w->in_x[r] = 0;
    w->bad_k[r] = w->bad_other[r] = w->parent[r] = NONE;
    w->outer_on[p] = 0, w->hole_count[p] = 0, w->hole_top[p] = NONE, w->in_clean[p] = 0, w->has_x_hole[p] = 0;
  }
  w->clean_head = NONE;
}

static verdict sweep_rings(sweep *w, const int *rings, int n, int full);

/* Whether rings[0..n) (each known to pass the checks of a ring alone but
 * for two edges that meet) hold a fault of the pairwise check: two edges
 * that must not meet, or (with `full`) a sample point at fault. */
static verdict check_rings(sweep *w, const int *rings, int n, int full) {
  verdict v = sweep_rings(w, rings, n, full);
  for (int i = 0; i < n; ++i) w->in_set[rings[i]] = w->in_x[rings[i]] = 0;
  return v;
}

static verdict sweep_rings(sweep *w, const int *rings, int n, int full) {
  const thr_polyset *s = w->s;
  verdict v = {V_FAIL, NONE, NONE, NONE, NONE, NONE, NONE};
  clear_ring_state(w, rings, n);
  w->n_items = 0;
  for (int i = 0; i < n; ++i) {
    int r = rings[i];
    w->in_set[r] = 1;
    for (int g = s->ring_first[r]; g < s->ring_first[r + 1]; ++g) {
      w->items[w->n_items++] = (item){w->vkey[g], 2 * g, r};
      if (full) w->items[w->n_items++] = (item){point_key(middle(w, g)), 2 * g + 1, INT_MAX};
    }
  }
  sort_items(w->items, w->tmp, (size_t)w->n_items, w->count);
  w->n_order = 0;
  w->inconsistent = 0;
  if (first_sweep(w, full, &v)) goto fail;
  if (w->inconsistent) goto fail;
  if (v.kind != V_NONE || !full) goto out;
  int any_x = 0;
  for (int i = 0; i < n; ++i) {
    int r = rings[i];
    any_x |= w->in_x[r];
    if (w->in_x[r] && !is_outer(w, r)) w->has_x_hole[w->poly_of[r]] = 1;
  }
  w->n_inx = 0;
  if (any_x && second_sweep(w, rings, n)) goto fail;
  /* the points inside crossing rings, by point */
  for (int i = 0; i < n; ++i)
    for (int g = s->ring_first[rings[i]]; g < s->ring_first[rings[i] + 1]; ++g)
      w->inx_first[2 * g] = w->inx_first[2 * g + 1] = w->inx_first[2 * g + 2] = 0;
  if (any_x) {
    /* a CSR over sample ids: counts, then starts (ids of the set only are read) */
    int *cnt = calloc((size_t)2 * s->n_verts + 1, sizeof *cnt);
    int *ring_of_pair = malloc((size_t)(w->n_inx ? w->n_inx : 1) * sizeof *ring_of_pair);
    if (!cnt || !ring_of_pair) {
      free(cnt);
      free(ring_of_pair);
      goto fail;
    }
    for (int k = 0; k < w->n_inx; ++k) cnt[w->inx_sample[k] + 1]++;
    for (int k = 0; k < 2 * s->n_verts; ++k) cnt[k + 1] += cnt[k];
    memcpy(w->inx_first, cnt, ((size_t)2 * s->n_verts + 1) * sizeof *cnt);
    for (int k = 0; k < w->n_inx; ++k) ring_of_pair[cnt[w->inx_sample[k]]++] = w->inx_ring[k];
    memcpy(w->inx_ring, ring_of_pair, (size_t)w->n_inx * sizeof *ring_of_pair);
    free(cnt);
    free(ring_of_pair);
  }
  if (walk(w, rings, n)) goto fail;
  /* the witness of the lowest rings (the bisections narrow down by it) */
  v.kind = V_NONE;
  for (int i = 0; i < n; ++i) {
    int r = rings[i], o = w->bad_other[r];
    if (w->bad_k[r] == NONE) continue;
    if (v.kind == V_NONE || (r > o ? r : o) < (v.ring > v.other ? v.ring : v.other))
      v.kind = V_POINT, v.ring = r, v.other = o, v.ring_a = r, v.ring_b = o;
  }
out:
  if (w->inconsistent) goto fail;
  return v;
fail:
  v.kind = V_FAIL;
  return v;
}

/* Rings [a, b) of s, and ring `extra` (NONE: none). */
static verdict check_ring_range(sweep *w, int a, int b, int full, int extra) {
  int n = b - a + (extra != NONE);
  int *rings = calloc((size_t)(n ? n : 1), sizeof *rings);
  verdict v = {V_FAIL, NONE, NONE, NONE, NONE, NONE, NONE};
  if (!rings) return v;
  int k = 0;
  for (int r = a; r < b; ++r) rings[k++] = r;
  if (extra != NONE) rings[k++] = extra;
  v = check_rings(w, rings, k, full);
  free(rings);
  return v;
}

/* ---- the first fault in the pairwise order -------------------------------------- */

static int report(thr_shape_report *r, int fault, int ring, int edge, int other, int other_edge, thr_vec2 at) {
  thr_shape_report x = {fault, ring, edge, other, other_edge, at};
  *r = x;
  return fault;
}

/* Two edges that meet, edge e's ring named first (for a ring alone: the lower edge first). */
static int report_edges(const sweep *w, int fault, int e, int f, thr_shape_report *r) {
  if (w->ring_of[e] == w->ring_of[f] && f < e) {
    int t = e;
    e = f, f = t;
  }
  thr_vec2 at;
  thr_segments_meet(V(w, e), V(w, nxt(w, e)), V(w, f), V(w, nxt(w, f)), &at);
  int re = w->ring_of[e], rf = w->ring_of[f];
  return report(r, fault, re, e - w->s->ring_first[re], rf, f - w->s->ring_first[rf], at);
}

static int report_pair(const sweep *w, int fault, const verdict *v, int ring, thr_shape_report *r) {
  int e = w->ring_of[v->e] == ring ? v->e : v->f;
  return report_edges(w, fault, e, e == v->e ? v->f : v->e, r);
}

static int report_point(const sweep *w, int fault, int ring, int other, thr_shape_report *r) {
  int k = w->bad_k[ring], v = w->s->ring_first[ring] + k / 2;
  return report(r, fault, ring, k / 2, other, -1, sample_point(w, 2 * v + (k & 1)));
}

/* The ring of v other than `ring`. */
static int other_ring(const verdict *v, int ring) {
  return v->ring_a == ring ? v->ring_b : v->ring_a;
}

static int max_int(int a, int b) {
  return a > b ? a : b;
}

/* The first ring of polygon q with a fault of its own (the short rings are
 * checked already, pairwise). */
static int ring_faults(sweep *w, int q, thr_shape_report *r) {
  for (int ring = w->s->poly_first[q]; ring < w->s->poly_first[q + 1]; ++ring) {
    if (thr_ring_len(w->s, ring) < SWEEP_RING_MIN) continue; /* checked already */
    verdict v = check_ring_range(w, ring, ring + 1, 0, NONE);
    if (v.kind == V_FAIL) return -1;
    if (v.kind == V_EDGES) return report_edges(w, THR_SHAPE_SELF_MEET, v.e, v.f, r);
  }
  return THR_SHAPE_OK;
}

/* Rings [a, b) and [c, d) (with `full`, also their sample points). */
static verdict check_two_ranges(sweep *w, int a, int b, int c, int d, int full) {
  int *rings = calloc((size_t)(b - a + d - c + 1), sizeof *rings), k = 0;
  verdict v = {V_FAIL, NONE, NONE, NONE, NONE, NONE, NONE};
  if (!rings) return v;
  for (int x = a; x < b; ++x) rings[k++] = x;
  for (int x = c; x < d; ++x) rings[k++] = x;
  v = check_rings(w, rings, k, full);
  free(rings);
  return v;
}

/* Polygons q and p < q, whose edges cross (and no two rings of one of
 * them): the first ring of q, then the first of p, whose edges cross, as
 * the pairwise order names them; *e, *f: two edges of theirs. */
static int first_crossing_rings(sweep *w, int q, int p, int *e, int *f) {
  const thr_polyset *s = w->s;
  int qa = s->poly_first[q], qb = s->poly_first[q + 1], pa = s->poly_first[p], pb = s->poly_first[p + 1];
  int lo = qa, hi = qb - 1;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    verdict u = check_two_ranges(w, qa, mid + 1, pa, pb, 0);
    if (u.kind == V_FAIL) return -1;
    if (u.kind == V_EDGES) {
      int g = w->poly_of[u.ring_a] == q ? u.ring_a : u.ring_b;
      hi = mid < g ? mid : g;
    } else {
      lo = mid + 1;
    }
  }
  int ra = lo;
  lo = pa, hi = pb - 1;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    verdict u = check_two_ranges(w, ra, ra + 1, pa, mid + 1, 0);
    if (u.kind == V_FAIL) return -1;
    if (u.kind == V_EDGES) {
      int g = u.ring_a == ra ? u.ring_b : u.ring_a;
      hi = mid < g ? mid : g;
    } else {
      lo = mid + 1;
    }
  }
  verdict u = check_two_ranges(w, ra, ra + 1, lo, lo + 1, 0);
  if (u.kind != V_EDGES) return -1;
  *e = w->ring_of[u.e] == ra ? u.e : u.f;
  *f = *e == u.e ? u.f : u.e;
  return 0;
}

/* The fault of holes h and g < h (the first among them in the pairwise
 * order): edges that meet, a point of h inside g, a point of g inside h. */
static int report_holes(sweep *w, int h, int g, thr_shape_report *r) {
  int pair[2] = {g, h};
  verdict u = check_rings(w, pair, 2, 1);
  if (u.kind == V_EDGES) return report_pair(w, THR_SHAPE_HOLES_OVERLAP, &u, h, r);
  if (u.kind == V_POINT && w->bad_k[h] != NONE) return report_point(w, THR_SHAPE_HOLES_OVERLAP, h, g, r);
  if (u.kind == V_POINT && w->bad_k[g] != NONE) return report_point(w, THR_SHAPE_HOLES_OVERLAP, g, h, r);
  return -1; /* no fault where bisection found one: must not happen */
}

/* Polygon q, whose rings pass alone and which holds a fault with itself or
 * with polygons [first, q) (among which there is none): the first fault in
 * the pairwise order (known: the verdict on q's rings alone, when known). Stage B: the first hole h with a fault among the
 * outer ring and holes up to h; its fault with the outer ring, else with
 * the first hole g before it. Stage C: the first polygon p before q. */
static int first_fault_of(sweep *w, int first, int q, const verdict *known, thr_shape_report *r) {
  const thr_polyset *s = w->s;
  int outer = s->poly_first[q], end = s->poly_first[q + 1];
  verdict v = {V_NONE, NONE, NONE, NONE, NONE, NONE, NONE};
  if (known)
    v = *known;
  else if (end - outer > 1)
    v = check_ring_range(w, outer, end, 1, NONE);
  if (v.kind == V_FAIL) return -1;
  if (v.kind != V_NONE) {
    int lo = outer + 1, hi = max_int(v.ring_a, v.ring_b);
    while (lo < hi) {
      int mid = lo + (hi - lo) / 2;
      verdict u = check_ring_range(w, outer, mid + 1, 1, NONE);
      if (u.kind == V_FAIL) return -1;
      if (u.kind != V_NONE)
        hi = mid < max_int(u.ring_a, u.ring_b) ? mid : max_int(u.ring_a, u.ring_b);
      else
        lo = mid + 1;
    }
    int h = lo, pair[2] = {outer, h};
    verdict u = check_rings(w, pair, 2, 1);
    if (u.kind == V_FAIL) return -1;
    if (u.kind == V_EDGES) return report_pair(w, THR_SHAPE_HOLE_CROSSES, &u, h, r);
    if (u.kind == V_POINT && w->bad_k[h] != NONE) return report_point(w, THR_SHAPE_HOLE_OUTSIDE, h, outer, r);
    if (u.kind != V_NONE) return -1;
    lo = outer + 1, hi = h - 1;
    while (lo < hi) {
      int mid = lo + (hi - lo) / 2;
      u = check_ring_range(w, outer + 1, mid + 1, 1, h);
      if (u.kind == V_FAIL) return -1;
      if (u.kind != V_NONE) {
        int g = other_ring(&u, h);
        hi = mid < g ? mid : g;
      } else {
        lo = mid + 1;
      }
    }
    return lo < h ? report_holes(w, h, lo, r) : -1;
  }
  int lo = first, hi = q - 1;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    verdict u = check_two_ranges(w, s->poly_first[first], s->poly_first[mid + 1], outer, end, 1);
    if (u.kind == V_FAIL) return -1;
    if (u.kind != V_NONE) {
      int pa = w->poly_of[u.ring_a], pb = w->poly_of[u.ring_b], p = pa == q ? pb : pa;
      hi = mid < p ? mid : p;
    } else {
      lo = mid + 1;
    }
  }
  if (lo >= q) return -1;
  int p = lo, op = s->poly_first[p];
  verdict u = check_two_ranges(w, op, s->poly_first[p + 1], outer, end, 1);
  if (u.kind == V_EDGES) {
    int e, f;
    if (first_crossing_rings(w, q, p, &e, &f)) return -1;
    return report_edges(w, THR_SHAPE_POLYS_OVERLAP, e, f, r);
  }
  if (u.kind == V_POINT && w->bad_k[outer] != NONE) return report_point(w, THR_SHAPE_POLYS_OVERLAP, outer, op, r);
  if (u.kind == V_POINT && w->bad_k[op] != NONE) return report_point(w, THR_SHAPE_POLYS_OVERLAP, op, outer, r);
  return -1;
}

/* ---- the rings alone -------------------------------------------------------- */

/* Edges i < j of a ring (local indices) that meet and are not neighbours:
 * keep the lowest pair seen. */
static void keep_pair(int n, int i, int j, int *bi, int *bj) {
  i = (i + n) % n, j = (j + n) % n;
  if (i > j) {
    int t = i;
    i = j, j = t;
  }
  if (j == i + 1 || (i == 0 && j == n - 1)) return;
  if (*bi < 0 || i < *bi || (i == *bi && j < *bj)) *bi = i, *bj = j;
}

/* Whether p lies in the box of ab (plain comparisons: fminf is a library call). */
static int in_box(thr_vec2 a, thr_vec2 b, thr_vec2 p) {
  return (a.x < b.x ? a.x : b.x) <= p.x && p.x <= (a.x < b.x ? b.x : a.x) && (a.y < b.y ? a.y : b.y) <= p.y &&
         p.y <= (a.y < b.y ? b.y : a.y);
}

/* The checks of ring `ring` that need no sweep: fewer than 3 vertices, and
 * (for rings long enough to sweep) pairs of edges that are not neighbours
 * but meet at a repeated vertex (dup_i, dup_j: one, or -1), at an edge of
 * zero length, or where an edge runs back over its neighbour (each of these
 * makes such a pair). PRE_ZERO_AREA: zero area, unless the sweep finds two
 * edges that meet. Also notes the ring's orientation. */
static int ring_precheck(sweep *w, int ring, int dup_i, int dup_j, thr_shape_report *r) {
  const thr_polyset *s = w->s;
  const thr_vec2 *v = thr_ring_verts(s, ring);
  int n = thr_ring_len(s, ring);
  double area = thr_ring_area(v, n);
  w->ccw[ring] = area > 0.0;
  if (n < SWEEP_RING_MIN) return thr_ring_check_pairwise(s, ring, r) ? PRE_FAULT : PRE_OK;
  int bi = -1, bj = -1;
  if (dup_i >= 0) keep_pair(n, dup_i, dup_j, &bi, &bj);
  for (int i = 0; i < n; ++i) {
    thr_vec2 a = v[i], b = v[(i + 1) % n], c = v[(i + 2) % n];
    if (a.x == b.x && a.y == b.y) { /* edges i - 1 and i + 1 both hold the point */
      keep_pair(n, i - 1, i + 1, &bi, &bj);
      continue;
    }
    if ((b.x == c.x && b.y == c.y) || thr_segments_meet(a, b, b, c, NULL) != THR_SEG_OVERLAP) continue;
    /* c on edge i: edge i + 2 starts on it; else a on edge i + 1, where edge i - 1 ends */
    if (in_box(a, b, c))
      keep_pair(n, i, i + 2, &bi, &bj);
    else
      keep_pair(n, i - 1, i + 1, &bi, &bj);
  }
  if (bi >= 0) {
    thr_vec2 at;
    if (thr_segments_meet(v[bi], v[(bi + 1) % n], v[bj], v[(bj + 1) % n], &at) == THR_SEG_APART) return -1;
    report(r, THR_SHAPE_SELF_MEET, ring, bi, ring, bj, at);
    return PRE_FAULT;
  }
  if (area == 0.0) {
    report(r, THR_SHAPE_ZERO_AREA, ring, -1, -1, -1, v[0]);
    return PRE_ZERO_AREA;
  }
  return PRE_OK;
}

/* ---- the check ---------------------------------------------------------------- */

static void sweep_free(sweep *w) {
  free(w->next), free(w->prev), free(w->lo), free(w->hi), free(w->flat), free(w->count);
  free(w->ring_of), free(w->poly_of), free(w->vkey), free(w->ccw), free(w->minv);
  free(w->tl), free(w->tr), free(w->tp), free(w->prio);
  free(w->nl), free(w->cedge), free(w->grp), free(w->grp_len);
  free(w->in_set), free(w->in_x), free(w->nl_ring), free(w->parent), free(w->order);
  free(w->bad_k), free(w->bad_other), free(w->mark), free(w->xroot);
  free(w->outer_on), free(w->hole_count), free(w->hole_top), free(w->saved_top);
  free(w->clean_prev), free(w->clean_next), free(w->in_clean), free(w->has_x_hole);
  free(w->items), free(w->tmp), free(w->scratch), free(w->pass);
  free(w->inx_sample), free(w->inx_ring), free(w->inx_first);
}

static int sweep_init(sweep *w, const thr_polyset *s) {
  memset(w, 0, sizeof *w);
  w->s = s;
  w->rand = 2463534242u;
  w->clean_head = NONE;
  size_t nv = (size_t)s->n_verts + 1, nr = (size_t)s->n_rings + 1, np = (size_t)s->n_polys + 1;
  w->ring_of = malloc(nv * sizeof(int)), w->vkey = malloc(nv * sizeof(uint64_t));
  w->next = malloc(nv * sizeof(int)), w->prev = malloc(nv * sizeof(int));
  w->lo = malloc(nv * sizeof(int)), w->hi = malloc(nv * sizeof(int)), w->flat = malloc(nv);
  w->count = malloc(((size_t)1 << 16) * sizeof(size_t));
  w->tl = malloc(nv * sizeof(int)), w->tr = malloc(nv * sizeof(int)), w->tp = malloc(nv * sizeof(int));
  w->prio = malloc(nv * sizeof(uint32_t));
  w->nl = malloc(2 * nv * sizeof(int)), w->cedge = malloc(2 * nv * sizeof(int));
  w->grp = malloc(2 * nv * sizeof(int)), w->grp_len = malloc(2 * nv * sizeof(int));
  w->inx_first = calloc(2 * nv + 1, sizeof(int));
  w->items = malloc(2 * nv * sizeof(item)), w->tmp = malloc(2 * nv * sizeof(item));
  w->poly_of = malloc(nr * sizeof(int)), w->ccw = calloc(nr, 1), w->minv = malloc(nr * sizeof(int));
  w->in_set = calloc(nr, 1), w->in_x = calloc(nr, 1), w->nl_ring = malloc(nr * sizeof(int));
  w->parent = malloc(nr * sizeof(int)), w->order = malloc(nr * sizeof(int));
  w->bad_k = malloc(nr * sizeof(int)), w->bad_other = malloc(nr * sizeof(int));
  w->mark = calloc(nr, sizeof(int)), w->xroot = malloc(nr * sizeof(int)), w->saved_top = malloc(nr * sizeof(int));
  w->outer_on = calloc(np, 1), w->hole_count = calloc(np, sizeof(int)), w->hole_top = malloc(np * sizeof(int));
  w->clean_prev = malloc(np * sizeof(int)), w->clean_next = malloc(np * sizeof(int));
  w->in_clean = calloc(np, 1), w->has_x_hole = calloc(np, 1);
  if (!w->ring_of || !w->vkey || !w->next || !w->prev || !w->lo || !w->hi || !w->flat || !w->count || !w->tl || !w->tr || !w->tp || !w->prio || !w->nl || !w->cedge || !w->grp ||
      !w->grp_len || !w->inx_first || !w->items || !w->tmp || !w->poly_of || !w->ccw || !w->minv || !w->in_set ||
      !w->in_x || !w->nl_ring || !w->parent || !w->order || !w->bad_k || !w->bad_other || !w->mark ||
      !w->xroot || !w->saved_top || !w->outer_on || !w->hole_count || !w->hole_top || !w->clean_prev ||
      !w->clean_next || !w->in_clean || !w->has_x_hole)
    return -1;
  for (int q = 0; q < s->n_polys; ++q)
    for (int r = s->poly_first[q]; r < s->poly_first[q + 1]; ++r) w->poly_of[r] = q;
  for (int r = 0; r < s->n_rings; ++r) {
    int a = s->ring_first[r], b = s->ring_first[r + 1];
    w->bad_k[r] = w->bad_other[r] = w->minv[r] = NONE;
    for (int v = a; v < b; ++v) {
      w->ring_of[v] = r;
      w->next[v] = v + 1 < b ? v + 1 : a;
      w->prev[v] = v > a ? v - 1 : b - 1;
      w->vkey[v] = point_key(s->verts[v]);
      if (w->minv[r] == NONE || w->vkey[v] < w->vkey[w->minv[r]]) w->minv[r] = v;
    }
  }
  for (int v = 0; v < s->n_verts; ++v) {
    int u = w->next[v];
    w->lo[v] = w->vkey[v] < w->vkey[u] ? v : u;
    w->hi[v] = w->vkey[v] < w->vkey[u] ? u : v;
    w->flat[v] = s->verts[v].y == s->verts[u].y;
  }
  for (int v = 0; v < s->n_verts; ++v) w->tp[v] = w->tl[v] = w->tr[v] = NONE;
  for (int q = 0; q < s->n_polys; ++q) w->hole_top[q] = NONE;
  return 0;
}

/* The first repeated vertex of each ring of rings [a, b): dup_i[r] < dup_j[r] (local), or -1. */
static void repeated_vertices(sweep *w, int a, int b, int *dup_i, int *dup_j) {
  const thr_polyset *s = w->s;
  int n = 0;
  for (int v = s->ring_first[a]; v < s->ring_first[b]; ++v) w->items[n++] = (item){w->vkey[v], 2 * v, w->ring_of[v]};
  sort_items(w->items, w->tmp, (size_t)n, w->count);
  for (int r = a; r < b; ++r) dup_i[r - a] = dup_j[r - a] = -1;
  for (int g0 = 0, g1; g0 < n; g0 = g1) {
    for (g1 = g0 + 1; g1 < n && w->items[g1].key == w->items[g0].key;) g1++;
    if (g1 - g0 < 2) continue;
    sort_place(w->items + g0, g1 - g0);
    for (int k = g0 + 1; k < g1; ++k) {
      int r = w->items[k].ring;
      if (w->items[k - 1].ring != r) continue;
      int i = (w->items[k - 1].id >> 1) - s->ring_first[r], j = (w->items[k].id >> 1) - s->ring_first[r];
      if (i > j) {
        int t = i;
        i = j, j = t;
      }
      int *bi = dup_i + r - a, *bj = dup_j + r - a;
      if (*bi < 0 || i < *bi || (i == *bi && j < *bj)) *bi = i, *bj = j;
    }
  }
}

static int sweep_check(sweep *w, int first, int end, thr_shape_report *r) {
  const thr_polyset *s = w->s;
  int ra = s->poly_first[first], rb = s->poly_first[end];
  int *dup_i = malloc((size_t)(rb - ra + 1) * sizeof *dup_i), *dup_j = malloc((size_t)(rb - ra + 1) * sizeof *dup_j);
  if (!dup_i || !dup_j) {
    free(dup_i);
    free(dup_j);
    return -1;
  }
  repeated_vertices(w, ra, rb, dup_i, dup_j);
  /* the rings alone, up to the first with a fault found so far */
  int bad = NONE, pre = PRE_OK;
  thr_shape_report pre_report;
  for (int ring = ra; ring < rb && bad == NONE; ++ring) {
    pre = ring_precheck(w, ring, dup_i[ring - ra], dup_j[ring - ra], &pre_report);
    if (pre < 0) break;
    if (pre != PRE_OK) bad = ring;
  }
  free(dup_i);
  free(dup_j);
  if (pre < 0) return -1;
  int q_bad = bad == NONE ? end : w->poly_of[bad];
  /* the polygons before: a fault among them comes first */
  if (q_bad > first) {
    verdict v = check_ring_range(w, ra, s->poly_first[q_bad], 1, NONE);
    if (v.kind == V_FAIL) return -1;
    if (v.kind != V_NONE) {
      /* a sweep of edges that ran to its end (no two edges met) shows the
       * rings of its polygons pass alone: simple_end, the first polygon after them */
      int simple_end = v.kind == V_POINT ? q_bad : first;
      int lo = first, hi = max_int(w->poly_of[v.ring_a], w->poly_of[v.ring_b]);
      while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        verdict u = check_ring_range(w, ra, s->poly_first[mid + 1], 1, NONE);
        if (u.kind == V_FAIL) return -1;
        if (u.kind != V_EDGES && mid + 1 > simple_end) simple_end = mid + 1;
        if (u.kind != V_NONE) {
          int top = max_int(w->poly_of[u.ring_a], w->poly_of[u.ring_b]);
          hi = mid < top ? mid : top;
        } else {
          lo = mid + 1;
        }
      }
      int fault = lo < simple_end ? THR_SHAPE_OK : ring_faults(w, lo, r);
      if (fault) return fault;
      return first_fault_of(w, first, lo, lo == first && q_bad == first + 1 ? &v : NULL, r);
    }
  }
  if (bad == NONE) return THR_SHAPE_OK;
  /* polygon q_bad: its rings before `bad` may cross themselves */
  for (int ring = s->poly_first[q_bad]; ring < bad; ++ring) {
    if (thr_ring_len(s, ring) < SWEEP_RING_MIN) continue;
    verdict v = check_ring_range(w, ring, ring + 1, 0, NONE);
    if (v.kind == V_FAIL) return -1;
    if (v.kind == V_EDGES) return report_edges(w, THR_SHAPE_SELF_MEET, v.e, v.f, r);
  }
  if (pre == PRE_ZERO_AREA) { /* two edges that meet come before zero area */
    verdict v = check_ring_range(w, bad, bad + 1, 0, NONE);
    if (v.kind == V_FAIL) return -1;
    if (v.kind == V_EDGES) return report_edges(w, THR_SHAPE_SELF_MEET, v.e, v.f, r);
  }
  *r = pre_report;
  return r->fault;
}

int thr_polyset_sweep_check(const thr_polyset *s, int first, int end, thr_shape_report *r) {
  sweep w;
  int fault = sweep_init(&w, s) ? -1 : sweep_check(&w, first, end, r);
  sweep_free(&w);
  if (fault < 0) {
    fallbacks++;
    fault = thr_polyset_check_pairwise(s, first, end, r);
  }
  return fault;
}

/* Up to this many vertices the pairwise check is quick (about 3 x 10^4
 * pairs of edges) and names the first faulty pair in its order. */
#define PAIRWISE_MAX_VERTS 256

static int check_range(const thr_polyset *s, int first, int end, thr_shape_report *r) {
  int verts = s->ring_first[s->poly_first[end]] - s->ring_first[s->poly_first[first]];
  if (verts <= PAIRWISE_MAX_VERTS) return thr_polyset_check_pairwise(s, first, end, r);
  return thr_polyset_sweep_check(s, first, end, r);
}

int thr_polygon_check(const thr_polyset *s, int poly, thr_shape_report *r) {
  return check_range(s, poly, poly + 1, r);
}

int thr_polyset_check(const thr_polyset *s, thr_shape_report *r) {
  return check_range(s, 0, s->n_polys, r);
}
