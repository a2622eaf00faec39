/* The plane-sweep check of polygon sets (base/polygon_sweep.c) against the
 * pairwise check that defines the verdict (thr_polyset_check_pairwise): the
 * same fault on the same rings for thousands of small random sets full of
 * degenerate cases (repeated vertices, spikes, collinear edges sharing a
 * stretch, rings touching at vertices and at points of edges, rings
 * crossing at a common vertex without crossing edges, holes in holes,
 * islands in holes), and every fault it reports really there. Then large
 * rings: valid, and with one fault each, found in well under a second. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/geometry.h"
#include "base/polygon_sweep.h"
#include "check.h"

/* ---- random polygon sets -------------------------------------------------- */

static uint64_t rng_state;

static uint32_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 11);
}

static int below(int n) {
  return n <= 0 ? 0 : (int)(rnd() % (uint32_t)n);
}

enum { MAX_POLYS = 12, MAX_RINGS = 96, MAX_VERTS = 4096 };

typedef struct shape {
  thr_polyset s;
  int poly_first[MAX_POLYS + 1], ring_first[MAX_RINGS + 1];
  thr_vec2 v[MAX_VERTS];
} shape;

static void reverse(thr_vec2 *v, int n) {
  for (int i = 0; i < n / 2; ++i) {
    thr_vec2 t = v[i];
    v[i] = v[n - 1 - i];
    v[n - 1 - i] = t;
  }
}

/* n points around (cx, cy) at sorted random angles and random radii up to
 * r, snapped to multiples of `snap` (which makes them meet in every way) */
static int star_ring(thr_vec2 *v, int n, float cx, float cy, float r, float snap) {
  double a[32];
  for (int k = 0; k < n; ++k) a[k] = 6.283185307179586 * below(100000) / 100000.0;
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && a[j - 1] > a[j]; --j) {
      double t = a[j];
      a[j] = a[j - 1], a[j - 1] = t;
    }
  for (int k = 0; k < n; ++k) {
    double rr = r * (0.2 + 0.8 * below(1000) / 1000.0);
    v[k] = v2(snap * roundf((float)(cx + rr * cos(a[k])) / snap), snap * roundf((float)(cy + rr * sin(a[k])) / snap));
  }
  return n;
}

/* The convex hull of k random lattice points in a box of `size` at (x0, y0),
 * its edges now and then split at a lattice point (collinear vertices). */
static int hull_ring(thr_vec2 *v, int k, int x0, int y0, int size, float step) {
  int px[16], py[16], h[40], m = 0, n = 0;
  for (int i = 0; i < k; ++i) px[i] = x0 + below(size + 1), py[i] = y0 + below(size + 1);
  for (int i = 1; i < k; ++i)
    for (int j = i; j > 0 && (px[j - 1] > px[j] || (px[j - 1] == px[j] && py[j - 1] > py[j])); --j) {
      int t = px[j];
      px[j] = px[j - 1], px[j - 1] = t;
      t = py[j], py[j] = py[j - 1], py[j - 1] = t;
    }
  for (int pass = 0; pass < 2; ++pass, --m) /* Andrew's monotone chain */
    for (int ii = 0, start = m; ii < k; ++ii) {
      int i = pass ? k - 1 - ii : ii;
      while (m >= start + 2 && (long)(px[h[m - 1]] - px[h[m - 2]]) * (py[i] - py[h[m - 2]]) -
                                       (long)(py[h[m - 1]] - py[h[m - 2]]) * (px[i] - px[h[m - 2]]) <=
                                   0)
        m--;
      h[m++] = i;
    }
  if (m < 3) { /* all on a line: a triangle of the box */
    v[0] = v2(x0 * step, y0 * step), v[1] = v2((x0 + size) * step, y0 * step), v[2] = v2(x0 * step, (y0 + size) * step);
    return 3;
  }
  for (int i = 0; i < m; ++i) {
    int a = h[i], b = h[(i + 1) % m], dx = px[b] - px[a], dy = py[b] - py[a], g = 1;
    v[n++] = v2(px[a] * step, py[a] * step);
    for (int d = 2; d <= 8; ++d)
      if (dx % d == 0 && dy % d == 0) g = d;
    if (g > 1 && below(2)) {
      int t = 1 + below(g - 1);
      v[n++] = v2((px[a] + dx / g * t) * step, (py[a] + dy / g * t) * step);
    }
  }
  return n;
}

/* A box of side `size` at (x0, y0), each side split at a lattice point now and then. */
static int box_ring(thr_vec2 *v, int x0, int y0, int size, float step) {
  int cx[4] = {x0, x0 + size, x0 + size, x0}, cy[4] = {y0, y0, y0 + size, y0 + size}, n = 0;
  for (int c = 0; c < 4; ++c) {
    v[n++] = v2(cx[c] * step, cy[c] * step);
    if (size > 1 && below(2)) {
      int t = 1 + below(size - 1);
      v[n++] = v2((cx[c] + (cx[(c + 1) % 4] - cx[c]) / size * t) * step,
                  (cy[c] + (cy[(c + 1) % 4] - cy[c]) / size * t) * step);
    }
  }
  return n;
}

/* Now and then: a repeated vertex, a spike, two vertices swapped, a vertex
 * moved onto another. */
static void mutate(thr_vec2 *v, int *n) {
  int i = below(*n), j = below(*n);
  switch (below(12)) {
    case 0:
      memmove(v + i + 1, v + i, (size_t)(*n - i) * sizeof *v);
      (*n)++;
      break;
    case 1:
      memmove(v + i + 2, v + i + 1, (size_t)(*n - i - 1) * sizeof *v);
      v[i + 1] = v2(v[i].x + below(3) - 1, v[i].y + below(3) - 1);
      (*n)++;
      break;
    case 2: {
      thr_vec2 t = v[i];
      v[i] = v[j], v[j] = t;
      break;
    }
    case 3:
      v[i] = v[j];
      break;
    default:
      break;
  }
}

enum { STARS, HULLS, BOXES };

/* A random set: up to max_polys polygons of up to max_holes holes each. */
static void random_set(shape *sh, int kind, int grid, float step, int max_polys, int max_holes) {
  memset(sh, 0, sizeof *sh);
  int np = 1 + below(max_polys), nr = 0, nv = 0;
  int bx = 0, by = 0, bs = 4, island = 0, ix = 0, iy = 0, is = 1;
  for (int p = 0; p < np; ++p) {
    sh->poly_first[p] = nr;
    int holes = below(max_holes + 1), cx = below(grid), cy = below(grid);
    for (int h = 0; h <= holes; ++h) {
      thr_vec2 *v = sh->v + nv;
      int n;
      if (kind == STARS) {
        float r = 2.0f + (float)below(grid);
        n = star_ring(v, 3 + below(h ? 7 : 14), (float)(h ? cx + below(5) - 2 : cx),
                      (float)(h ? cy + below(5) - 2 : cy), h ? r * 0.4f : r, below(3) ? 1.0f : 0.5f);
      } else if (kind == HULLS) {
        n = hull_ring(v, 3 + below(8), h ? cx + below(4) : cx, h ? cy + below(4) : cy, h ? 1 + below(4) : 3 + below(5),
                      step);
      } else if (h == 0) { /* a box, or an island in the last polygon's first hole */
        bx = cx, by = cy, bs = 4 + below(6);
        if (p > 0 && island && below(2)) bx = ix, by = iy, bs = is;
        n = box_ring(v, bx, by, bs, step);
      } else {
        int hs = 1 + below(bs > 3 ? bs - 2 : 1), hx = bx + below(bs - hs + 1), hy = by + below(bs - hs + 1);
        n = hull_ring(v, 3 + below(6), hx, hy, hs, step);
        if (h == 1) island = hs >= 3, ix = hx + 1, iy = hy + 1, is = hs - 2;
      }
      int flip = below(4) != 0; /* mostly: outer rings anticlockwise, holes clockwise */
      if (h ? flip : !flip) reverse(v, n);
      if (below(kind == STARS ? 4 : 10) == 0) mutate(v, &n);
      sh->ring_first[nr++] = nv;
      nv += n;
    }
  }
  sh->ring_first[nr] = nv;
  sh->poly_first[np] = nr;
  sh->s = (thr_polyset){np, nr, nv, sh->poly_first, sh->ring_first, sh->v, NULL};
}

/* ---- is a reported fault there? ---------------------------------------------- */

static thr_vec2 sample_point(const thr_polyset *s, int ring, int k) {
  const thr_vec2 *v = thr_ring_verts(s, ring);
  int n = thr_ring_len(s, ring);
  thr_vec2 a = v[k / 2], b = v[(k / 2 + 1) % n];
  if (k % 2 == 0) return a;
  return v2((float)(0.5 * ((double)a.x + b.x)), (float)(0.5 * ((double)a.y + b.y)));
}

static int polygon_of_outer(const thr_polyset *s, int ring) {
  int q = 0;
  while (s->poly_first[q] != ring) q++;
  return q;
}

/* Whether report r names a fault that is there: two edges that meet as
 * they must not (at r->at), or a sample point of r->ring, on edge r->edge,
 * that lies where it must not. */
static int fault_is_real(const thr_polyset *s, const thr_shape_report *r) {
  if (r->fault == THR_SHAPE_FEW_VERTICES || r->fault == THR_SHAPE_ZERO_AREA) return 1;
  if (r->other_edge >= 0) {
    const thr_vec2 *a = thr_ring_verts(s, r->ring), *b = thr_ring_verts(s, r->other);
    int na = thr_ring_len(s, r->ring), nb = thr_ring_len(s, r->other);
    thr_vec2 at;
    int meet = thr_segments_meet(a[r->edge], a[(r->edge + 1) % na], b[r->other_edge], b[(r->other_edge + 1) % nb], &at);
    if (at.x != r->at.x || at.y != r->at.y) return 0;
    if (r->fault != THR_SHAPE_SELF_MEET) return meet == THR_SEG_CROSS || meet == THR_SEG_OVERLAP;
    int adjacent = r->other_edge == r->edge + 1 || (r->edge == 0 && r->other_edge == na - 1);
    return r->ring == r->other && r->edge < r->other_edge && (adjacent ? meet == THR_SEG_OVERLAP : meet != THR_SEG_APART);
  }
  int sample = 0;
  for (int k = 2 * r->edge; k < 2 * r->edge + 2; ++k) {
    thr_vec2 p = sample_point(s, r->ring, k);
    sample |= p.x == r->at.x && p.y == r->at.y;
  }
  if (!sample) return 0;
  const thr_vec2 *o = thr_ring_verts(s, r->other);
  int no = thr_ring_len(s, r->other);
  switch (r->fault) {
    case THR_SHAPE_HOLE_OUTSIDE:
      return thr_ring_locate(o, no, r->at, 0.0) == THR_OUTSIDE;
    case THR_SHAPE_HOLES_OVERLAP:
      return thr_ring_locate(o, no, r->at, 0.0) == THR_INSIDE;
    case THR_SHAPE_POLYS_OVERLAP:
      return thr_polygon_locate(s, polygon_of_outer(s, r->other), r->at, 0.0) == THR_INSIDE;
    default:
      return 0;
  }
}

/* The sweep against the pairwise check on `count` random sets: the same
 * fault kind, ring and other ring; the fault reported there; no hand-over
 * to the pairwise check. Returns how many sets had each verdict. */
static void compare_random(int count, int kind, int grid, float step, int max_polys, int max_holes, long *seen) {
  static shape sh;
  long fallbacks = thr_polygon_sweep_fallbacks();
  int differ = 0;
  for (int t = 0; t < count; ++t) {
    random_set(&sh, kind, grid, step, max_polys, max_holes);
    thr_shape_report a, b;
    int fa = thr_polyset_check_pairwise(&sh.s, 0, sh.s.n_polys, &a);
    int fb = thr_polyset_sweep_check(&sh.s, 0, sh.s.n_polys, &b);
    seen[fa]++;
    int same = fa == fb && (!fa || (a.ring == b.ring && a.other == b.other && fault_is_real(&sh.s, &b)));
    if (!same && differ++ < 3) {
      fprintf(stderr, "set %d (kind %d): pairwise fault %d ring %d other %d, sweep fault %d ring %d other %d:\n", t,
              kind, fa, a.ring, a.other, fb, b.ring, b.other);
      for (int r = 0; r < sh.s.n_rings; ++r) {
        fprintf(stderr, "  ring %d:", r);
        for (int k = sh.s.ring_first[r]; k < sh.s.ring_first[r + 1]; ++k)
          fprintf(stderr, " (%g %g)", (double)sh.v[k].x, (double)sh.v[k].y);
        fprintf(stderr, "\n");
      }
    }
  }
  CHECK(differ == 0);
  CHECK(thr_polygon_sweep_fallbacks() == fallbacks);
}

THR_TEST(random_stars_agree) {
  long seen[8] = {0};
  rng_state = 88172645463325252ull;
  compare_random(20000, STARS, 8, 1.0f, 3, 3, seen);
  compare_random(10000, STARS, 16, 1.0f, 6, 4, seen);
  /* the mix holds every kind of fault, and valid sets */
  for (int f = THR_SHAPE_OK; f <= THR_SHAPE_POLYS_OVERLAP; ++f) CHECK(f == THR_SHAPE_FEW_VERTICES || seen[f] > 10);
}

THR_TEST(random_lattice_hulls_agree) {
  long seen[8] = {0};
  rng_state = 1234567890123ull;
  compare_random(20000, HULLS, 6, 1.0f, 3, 3, seen);
  compare_random(10000, HULLS, 10, 1.0f / 3.0f, 8, 5, seen); /* edge middles rounded off their edges */
  CHECK(seen[THR_SHAPE_OK] > 100 && seen[THR_SHAPE_HOLE_OUTSIDE] > 100);
}

THR_TEST(random_boxes_with_holes_and_islands_agree) {
  long seen[8] = {0};
  rng_state = 42424242424242ull;
  compare_random(20000, BOXES, 6, 1.0f, 3, 4, seen);
  compare_random(10000, BOXES, 10, 0.5f, 6, 5, seen);
  CHECK(seen[THR_SHAPE_OK] > 300 && seen[THR_SHAPE_HOLES_OVERLAP] > 300 && seen[THR_SHAPE_POLYS_OVERLAP] > 300);
}

/* ---- cases by hand ------------------------------------------------------------ */

static void set_of(shape *sh, const float *xy, const int *counts, int n_rings, const int *rings_per_poly, int n_polys) {
  memset(sh, 0, sizeof *sh);
  int nv = 0;
  for (int r = 0; r < n_rings; ++r) {
    sh->ring_first[r] = nv;
    for (int k = 0; k < counts[r]; ++k, ++nv) sh->v[nv] = v2(xy[2 * nv], xy[2 * nv + 1]);
  }
  sh->ring_first[n_rings] = nv;
  for (int p = 0, r = 0; p < n_polys; r += rings_per_poly[p++]) sh->poly_first[p] = r;
  sh->poly_first[n_polys] = n_rings;
  sh->s = (thr_polyset){n_polys, n_rings, nv, sh->poly_first, sh->ring_first, sh->v, NULL};
}

static int both(const shape *sh, thr_shape_report *r) {
  thr_shape_report a;
  int fa = thr_polyset_check_pairwise(&sh->s, 0, sh->s.n_polys, &a);
  int fb = thr_polyset_sweep_check(&sh->s, 0, sh->s.n_polys, r);
  CHECK(fa == fb);
  if (fa && fa == fb) CHECK(a.ring == r->ring && a.other == r->other && fault_is_real(&sh->s, r));
  return fb;
}

THR_TEST(rings_crossing_at_a_common_vertex) {
  static shape sh;
  thr_shape_report r;
  /* a hole that leaves the outer ring through its vertex (10 5) and comes
   * back through its corner (10 10): no two edges cross, (12 7) is outside */
  static const float out[] = {0, 0, 10, 0, 10, 5, 10, 10, 0, 10, 10, 5, 12, 7, 10, 10, 8, 8};
  const int counts[] = {5, 4}, polys[] = {2};
  set_of(&sh, out, counts, 2, polys, 1);
  CHECK(both(&sh, &r) == THR_SHAPE_HOLE_OUTSIDE);
  /* the same with the outer ring's vertex inside the hole's edge instead */
  static const float t_out[] = {0, 0, 10, 0, 10, 5, 10, 10, 0, 10, 10, 4, 12, 7, 10, 10, 8, 8, 9, 6.5f};
  const int counts_t[] = {5, 5};
  set_of(&sh, t_out, counts_t, 2, polys, 1);
  CHECK(both(&sh, &r) == THR_SHAPE_HOLE_OUTSIDE);
  /* hole B leaves hole A through A's vertex (6 4) and corner (6 6): (5 5) lies inside A */
  static const float holes[] = {0, 0, 10, 0, 10, 10, 0, 10, 2, 2, 2, 6, 6, 6, 6, 4, 6, 2, 6, 4, 8, 5, 6, 6, 5, 5};
  const int counts3[] = {4, 5, 4}, polys3[] = {3};
  set_of(&sh, holes, counts3, 3, polys3, 1);
  CHECK(both(&sh, &r) == THR_SHAPE_HOLES_OVERLAP);
  /* holes touching at a corner from outside each other: valid */
  static const float touch[] = {0, 0, 10, 0, 10, 10, 0, 10, 2, 2, 2, 6, 6, 6, 6, 4, 6, 2, 6, 6, 8, 6, 8, 8};
  const int counts4[] = {4, 5, 3};
  set_of(&sh, touch, counts4, 3, polys3, 1);
  CHECK(both(&sh, &r) == THR_SHAPE_OK);
  /* two polygons whose outer rings cross at two common vertices */
  static const float polys_x[] = {0, 0, 4, 0, 4, 2, 4, 4, 0, 4, 4, 2, 6, 1, 6, 5, 4, 4, 3, 3};
  const int counts5[] = {5, 5}, polys5[] = {1, 1};
  set_of(&sh, polys_x, counts5, 2, polys5, 2);
  CHECK(both(&sh, &r) == THR_SHAPE_POLYS_OVERLAP);
}

THR_TEST(islands_in_holes_and_touching_polygons) {
  static shape sh;
  thr_shape_report r;
  /* a polygon with a hole, an island in the hole touching it at a vertex,
   * a second polygon touching the first at a corner, and one touching the
   * first's edge with its vertex */
  static const float xy[] = {0, 0, 10, 0, 10, 10, 0, 10, 2, 2, 2, 8, 8, 8, 8, 2, 3, 3, 5, 2, 7, 3, 5, 7,
                             10, 10, 12, 10, 12, 12, 10, 12, 11, 5, 14, 4, 14, 6};
  const int counts[] = {4, 4, 4, 4, 3}, polys[] = {2, 1, 1, 1};
  set_of(&sh, xy, counts, 5, polys, 4);
  CHECK(both(&sh, &r) == THR_SHAPE_OK);
  /* the island moved onto the polygon's area */
  static shape moved;
  set_of(&moved, xy, counts, 5, polys, 4);
  for (int k = 8; k < 12; ++k) moved.v[k].x += 6.5f;
  CHECK(both(&moved, &r) == THR_SHAPE_POLYS_OVERLAP);
}

/* ---- large rings ---------------------------------------------------------------- */

/* A circle of n vertices (radius 500 m, a zigzag of 5 cm) and three holes of h vertices. */
static thr_polyset *big_set(int n, int h, float hole_dx) {
  thr_polyset *s = calloc(1, sizeof *s);
  s->verts = malloc((size_t)(n + 3 * h) * sizeof *s->verts);
  s->ring_first = malloc(5 * sizeof *s->ring_first);
  s->poly_first = malloc(2 * sizeof *s->poly_first);
  for (int k = 0; k < n; ++k) {
    double a = 6.283185307179586 * k / n, rr = 500.0 + (k % 2 ? 0.05 : -0.05);
    s->verts[k] = v2((float)(rr * cos(a)), (float)(rr * sin(a)));
  }
  const double c[3][3] = {{-200, 150, 40}, {150, -200, 40}, {100, 250, 30}};
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < h; ++k) {
      double a = -6.283185307179586 * k / h;
      s->verts[n + j * h + k] = v2((float)(c[j][0] + (j == 0 ? hole_dx : 0) + c[j][2] * cos(a)), (float)(c[j][1] + c[j][2] * sin(a)));
    }
  for (int r = 0; r <= 4; ++r) s->ring_first[r] = r == 0 ? 0 : n + (r - 1) * h;
  s->poly_first[0] = 0, s->poly_first[1] = 4;
  s->n_polys = 1, s->n_rings = 4, s->n_verts = n + 3 * h;
  return s;
}

static void free_set(thr_polyset *s) {
  free(s->verts), free(s->ring_first), free(s->poly_first), free(s);
}

THR_TEST(large_rings) {
  thr_shape_report r;
  long fallbacks = thr_polygon_sweep_fallbacks();
  thr_polyset *s = big_set(200000, 2000, 0.0f);
  CHECK(thr_polyset_check(s, &r) == THR_SHAPE_OK);
  s->verts[25000] = v2(-520.0f, 20.0f); /* pulled across the circle */
  CHECK(thr_polyset_check(s, &r) == THR_SHAPE_SELF_MEET && r.ring == 0 && fault_is_real(s, &r));
  CHECK(r.other_edge - r.edge > 50000); /* edges far apart in the ring's order */
  free_set(s);
  s = big_set(200000, 2000, -300.0f); /* the first hole across the outer ring */
  CHECK(thr_polyset_check(s, &r) == THR_SHAPE_HOLE_CROSSES && r.ring == 1 && r.other == 0 && fault_is_real(s, &r));
  free_set(s);
  s = big_set(200000, 2000, -600.0f); /* the first hole beyond it */
  CHECK(thr_polyset_check(s, &r) == THR_SHAPE_HOLE_OUTSIDE && r.ring == 1 && r.edge == 0 && fault_is_real(s, &r));
  free_set(s);
  CHECK(thr_polygon_sweep_fallbacks() == fallbacks);
}
