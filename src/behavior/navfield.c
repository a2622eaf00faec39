#include "navfield.h"

#include "base/geometry.h"
#include "base/polygon.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int axis_cells(double o, double h, int n, double a, double b, int *k0, int *k1);

/* ---- cells and spans ----------------------------------------------------- */

size_t thr_navgrid_cells(const thr_navgrid *g) { return (size_t)g->nx * (size_t)g->ny; }

float thr_navgrid_speed(const thr_navgrid *g, size_t cell) {
  unsigned char k = g->kind[cell];
  float s = k == THR_NAV_FREE ? 1.0f : (k == THR_NAV_SLOW ? g->slow : 0.0f);
  return g->zone_speed ? s * g->zone_speed[cell] : s;
}

int thr_navgrid_zones(thr_navgrid *g, const thr_zone *zones, const thr_vec2 *verts, int n) {
  free(g->zone_speed);
  g->zone_speed = NULL;
  if (!n) return 0;
  size_t cells = thr_navgrid_cells(g);
  g->zone_speed = malloc(cells * sizeof *g->zone_speed);
  if (!g->zone_speed) return -1;
  for (size_t c = 0; c < cells; ++c) g->zone_speed[c] = 1.0f;
  for (int k = n - 1; k >= 0; --k) { /* the first zone that holds a cell's centre wins, as for agents */
    const thr_zone *z = &zones[k];
    int i0, i1, j0, j1;
    if (!axis_cells(g->lo.x, g->h, g->nx, z->lo.x, z->hi.x, &i0, &i1) ||
        !axis_cells(g->lo.y, g->h, g->ny, z->lo.y, z->hi.y, &j0, &j1))
      continue;
    for (int j = j0; j <= j1; ++j)
      for (int i = i0; i <= i1; ++i)
        if (thr_polygon_contains(verts + z->v0, z->nv, thr_navgrid_centre(g, i, j)))
          g->zone_speed[(size_t)j * g->nx + i] = 0.5f * (z->f_up + z->f_down);
  }
  return 0;
}

thr_vec2 thr_navgrid_centre(const thr_navgrid *g, int i, int j) {
  return v2((float)(g->lo.x + (i + 0.5) * (double)g->h), (float)(g->lo.y + (j + 0.5) * (double)g->h));
}

size_t thr_navgrid_bytes(const thr_navgrid *g, int n_fields) {
  size_t cells = thr_navgrid_cells(g);
  return sizeof *g + cells * sizeof *g->kind + (size_t)(n_fields > 0 ? n_fields : 0) * cells * sizeof(float);
}

thr_navfield_view thr_navgrid_view(const thr_navgrid *g, const float *dist) {
  thr_navfield_view v;
  v.ox = g->lo.x;
  v.oy = g->lo.y;
  v.h = g->h;
  v.nx = g->nx;
  v.ny = g->ny;
  v.dist = dist;
  return v;
}

/* Cells k in [0, n) along one axis whose extent [o + k h, o + (k+1) h)
 * holds a point of [a, b]: *k0 .. *k1. Returns 0 when there is none. */
static int axis_cells(double o, double h, int n, double a, double b, int *k0, int *k1) {
  if (!(a <= b)) return 0; /* also NaN */
  double lo = floor((a - o) / h), hi = floor((b - o) / h);
  if (lo < 0.0) lo = 0.0;
  if (hi > n - 1) hi = n - 1;
  if (!(lo <= hi)) return 0;
  *k0 = (int)lo;
  *k1 = (int)hi;
  return 1;
}

/* The x-extent [*xlo, *xhi] of segment [a, b] within ylo <= y <= yhi;
 * returns 0 when the segment misses that slab. */
static int segment_slab(thr_vec2 a, thr_vec2 b, double ylo, double yhi, double *xlo, double *xhi) {
  double t0 = 0.0, t1 = 1.0, dy = (double)b.y - a.y;
  if (dy == 0.0) {
    if (a.y < ylo || a.y > yhi) return 0;
  } else {
    double ta = (ylo - a.y) / dy, tb = (yhi - a.y) / dy;
    if (ta > tb) {
      double s = ta;
      ta = tb;
      tb = s;
    }
    t0 = ta > 0.0 ? ta : 0.0;
    t1 = tb < 1.0 ? tb : 1.0;
    if (!(t0 <= t1)) return 0;
  }
  double dx = (double)b.x - a.x;
  double x0 = a.x + t0 * dx, x1 = a.x + t1 * dx;
  *xlo = x0 < x1 ? x0 : x1;
  *xhi = x0 < x1 ? x1 : x0;
  return 1;
}

static double segment_distance(thr_vec2 p, thr_vec2 a, thr_vec2 b) {
  double abx = (double)b.x - a.x, aby = (double)b.y - a.y;
  double apx = (double)p.x - a.x, apy = (double)p.y - a.y;
  double len2 = abx * abx + aby * aby;
  double t = len2 > 0.0 ? (apx * abx + apy * aby) / len2 : 0.0;
  t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
  double dx = apx - t * abx, dy = apy - t * aby;
  return sqrt(dx * dx + dy * dy);
}

/* ---- cells near a segment ------------------------------------------------ */

/* What to do with the cells near one segment. */
typedef struct seg_visit {
  const thr_navgrid *g;
  thr_vec2 a, b;
  unsigned char *cells;
  unsigned char value; /* mark_cell: the value written */
  double reach;        /* mark_band: the clearance */
  long count;          /* cells marked */
} seg_visit;

typedef void (*cell_fn)(seg_visit *s, int i, int j);

/* Calls fn for every cell whose square, grown by m on each side, holds a
 * point of segment [s->a, s->b]: row by row, the columns that the part of
 * the segment inside the row's (grown) slab spans. With m = 0 these are
 * the cells the segment passes through; the squares are half-open
 * ([x0, x0 + h) x [y0, y0 + h)), so a wall along a cell edge takes one row
 * of cells, not two. */
static void segment_cells(seg_visit *s, double m, cell_fn fn) {
  const thr_navgrid *g = s->g;
  double h = g->h;
  int j0, j1, i0, i1;
  double ylo = fmin(s->a.y, s->b.y) - m, yhi = fmax(s->a.y, s->b.y) + m;
  if (!axis_cells(g->lo.y, h, g->ny, ylo, yhi, &j0, &j1)) return;
  for (int j = j0; j <= j1; ++j) {
    double xlo, xhi, y0 = g->lo.y + j * h;
    if (!segment_slab(s->a, s->b, y0 - m, y0 + h + m, &xlo, &xhi)) continue;
    if (!axis_cells(g->lo.x, h, g->nx, xlo - m, xhi + m, &i0, &i1)) continue;
    for (int i = i0; i <= i1; ++i) fn(s, i, j);
  }
}

/* With m = 0, marks the cells a segment passes through. Where a wall
 * crosses the link between two neighbouring centres, the crossing point
 * lies in one of the two cells, so no field leaks through a wall, and no
 * bilinear quad of four unblocked nodes straddles one. */
static void mark_cell(seg_visit *s, int i, int j) {
  s->cells[(size_t)j * s->g->nx + i] = s->value;
  s->count++;
}

/* A free cell whose centre lies closer than the clearance becomes slow. */
static void mark_band(seg_visit *s, int i, int j) {
  size_t c = (size_t)j * s->g->nx + i;
  if (s->cells[c] != THR_NAV_FREE) return;
  if (segment_distance(thr_navgrid_centre(s->g, i, j), s->a, s->b) < s->reach) {
    s->cells[c] = THR_NAV_SLOW;
    s->count++;
  }
}

/* ---- polygons ------------------------------------------------------------ */

/* Rings r0 .. r1-1 of a vertex chain set: ring r is verts[first[r] .. first[r+1]). */
typedef struct ring_set {
  const thr_vec2 *verts;
  const int *first;
  int r0, r1;
} ring_set;

/* Set cells[c] = value for every cell whose centre lies inside rs (even-odd
 * over all its rings: an outer ring with holes; for one ring exactly
 * thr_polygon_contains). Returns how many, or -1 when out of memory. */
static long fill_rings(const thr_navgrid *g, ring_set rs, unsigned char *cells, unsigned char value) {
  int v0 = rs.first[rs.r0], v1 = rs.first[rs.r1];
  if (v1 - v0 < 3) return 0;
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (int v = v0; v < v1; ++v) {
    xmin = fmin(xmin, rs.verts[v].x);
    xmax = fmax(xmax, rs.verts[v].x);
    ymin = fmin(ymin, rs.verts[v].y);
    ymax = fmax(ymax, rs.verts[v].y);
  }
  int i0, i1, j0, j1;
  if (!axis_cells(g->lo.x, g->h, g->nx, xmin, xmax, &i0, &i1) || !axis_cells(g->lo.y, g->h, g->ny, ymin, ymax, &j0, &j1))
    return 0;
  int *first;
  float *xs = thr_row_crossings(rs.verts, rs.first, rs.r0, rs.r1, g->lo.y, g->h, j0, j1, &first);
  if (!xs) return -1;
  long count = 0;
  for (int j = j0; j <= j1; ++j) {
    float *row = xs + first[j - j0];
    int n = first[j - j0 + 1] - first[j - j0];
    int below = 0; /* crossings at or left of the centre */
    for (int i = i0; i <= i1; ++i) {
      float px = thr_navgrid_centre(g, i, j).x;
      while (below < n && row[below] <= px) ++below;
      if ((n - below) & 1) {
        cells[(size_t)j * g->nx + i] = value;
        ++count;
      }
    }
  }
  free(xs);
  free(first);
  return count;
}

/* segment_cells for every edge of the closed rings of rs. */
static void ring_edges_cells(seg_visit *s, ring_set rs, double m, cell_fn fn) {
  for (int r = rs.r0; r < rs.r1; ++r) {
    const thr_vec2 *v = rs.verts + rs.first[r];
    int nv = rs.first[r + 1] - rs.first[r];
    for (int e = 0; e < nv; ++e) {
      s->a = v[e];
      s->b = v[e + 1 < nv ? e + 1 : 0];
      segment_cells(s, m, fn);
    }
  }
}

/* segment_cells for every wall of w: the segments of its open polylines
 * and the edges of its polygons. */
static void wall_cells(seg_visit *s, const thr_world *w, double m, cell_fn fn) {
  for (int o = 0; w && o < w->n_obstacles; ++o) {
    ring_set rs = {w->verts, w->obs_vfirst, o, o + 1};
    if (w->obs_closed[o]) {
      ring_edges_cells(s, rs, m, fn);
      continue;
    }
    for (int v = w->obs_vfirst[o]; v + 1 < w->obs_vfirst[o + 1]; ++v) {
      s->a = w->verts[v];
      s->b = w->verts[v + 1];
      segment_cells(s, m, fn);
    }
  }
}

/* ---- the grid ------------------------------------------------------------ */

static int check_spec(const thr_navgrid_spec *s, double *nx, double *ny, char *err, size_t errlen) {
  double wx = (double)s->hi.x - s->lo.x, wy = (double)s->hi.y - s->lo.y;
  if (!(s->cell > 0.0f) || !isfinite(s->cell)) {
    snprintf(err, errlen, "routing.cell: the distance-field cell must be a positive number of metres, not %g",
             (double)s->cell);
    return -1;
  }
  if (!(wx > 0.0) || !(wy > 0.0) || !isfinite(wx) || !isfinite(wy)) {
    snprintf(err, errlen, "routing: the distance-field rectangle (%g, %g) - (%g, %g) is empty", (double)s->lo.x,
             (double)s->lo.y, (double)s->hi.x, (double)s->hi.y);
    return -1;
  }
  if (!(s->clearance >= 0.0f) || !isfinite(s->clearance) || !(s->slow > 0.0f && s->slow <= 1.0f)) {
    snprintf(err, errlen, "routing: clearance %g must be >= 0 and the speed near walls %g in (0, 1]",
             (double)s->clearance, (double)s->slow);
    return -1;
  }
  *nx = ceil(wx / s->cell);
  *ny = ceil(wy / s->cell);
  if (*nx * *ny > THR_NAVGRID_MAX_CELLS) {
    snprintf(err, errlen,
             "routing.cell: a distance-field grid over %g x %g m with cells of %g m would have %.3g cells, more "
             "than %.3g; raise routing.cell",
             wx, wy, (double)s->cell, *nx * *ny, THR_NAVGRID_MAX_CELLS);
    return -1;
  }
  return 0;
}

/* Walkable cells: inside one of the polygons, or everywhere without any. */
static int mark_walkable(thr_navgrid *g, const thr_polyset *walkable) {
  size_t cells = thr_navgrid_cells(g);
  if (!walkable || walkable->n_polys <= 0) {
    memset(g->kind, THR_NAV_FREE, cells);
    return 0;
  }
  memset(g->kind, THR_NAV_BLOCKED, cells);
  for (int p = 0; p < walkable->n_polys; ++p) {
    ring_set rs = {walkable->verts, walkable->ring_first, walkable->poly_first[p], walkable->poly_first[p + 1]};
    if (fill_rings(g, rs, g->kind, THR_NAV_FREE) < 0) return -1;
  }
  return 0;
}

/* Solid obstacles (their inside) and every wall (the cells it passes
 * through) are blocked. */
static int mark_obstacles(thr_navgrid *g, const thr_world *w) {
  for (int o = 0; w && o < w->n_obstacles; ++o) {
    ring_set rs = {w->verts, w->obs_vfirst, o, o + 1};
    if (w->obs_closed[o] && fill_rings(g, rs, g->kind, THR_NAV_BLOCKED) < 0) return -1;
  }
  seg_visit s = {g, {0.0f, 0.0f}, {0.0f, 0.0f}, g->kind, THR_NAV_BLOCKED, 0.0, 0};
  wall_cells(&s, w, 0.0, mark_cell);
  return 0;
}

/* The clearance band along every wall and every edge of the walkable area. */
static void mark_clearance(thr_navgrid *g, const thr_world *w, const thr_polyset *walkable, double clearance,
                           int edge_band) {
  if (!(clearance > 0.0)) return;
  seg_visit s = {g, {0.0f, 0.0f}, {0.0f, 0.0f}, g->kind, 0, clearance, 0};
  wall_cells(&s, w, clearance, mark_band);
  if (edge_band && walkable && walkable->n_rings > 0) {
    ring_set all = {walkable->verts, walkable->ring_first, 0, walkable->n_rings};
    ring_edges_cells(&s, all, clearance, mark_band);
  }
}

int thr_navgrid_init(thr_navgrid *g, const thr_navgrid_spec *spec, const thr_world *w, const thr_polyset *walkable,
                     char *err, size_t errlen) {
  memset(g, 0, sizeof *g);
  double nx, ny;
  if (check_spec(spec, &nx, &ny, err, errlen)) return -1;
  g->lo = spec->lo;
  g->h = spec->cell;
  g->nx = (int)nx;
  g->ny = (int)ny;
  g->slow = spec->slow;
  g->kind = malloc(thr_navgrid_cells(g));
  if (!g->kind || mark_walkable(g, walkable) || mark_obstacles(g, w)) {
    snprintf(err, errlen, "out of memory building the distance-field grid (%d x %d cells)", g->nx, g->ny);
    thr_navgrid_free(g);
    return -1;
  }
  mark_clearance(g, w, walkable, spec->clearance, spec->edge_band);
  return 0;
}

long thr_navgrid_seams(thr_navgrid *g, const thr_seam *seams, int n) {
  free(g->ph_cell);
  free(g->ph_partner);
  g->ph_cell = g->ph_partner = NULL;
  g->n_phantom = 0;
  if (!n) return 0;
  size_t cells = thr_navgrid_cells(g);
  unsigned char *taken = calloc(cells ? cells : 1, 1);
  long cap = 64, count = 0;
  g->ph_cell = malloc((size_t)cap * sizeof *g->ph_cell);
  g->ph_partner = malloc((size_t)cap * sizeof *g->ph_partner);
  int rc = taken && g->ph_cell && g->ph_partner ? 0 : -1;
  double reach = 2.5 * g->h;
  for (int k = 0; k < n && !rc; ++k) {
    const thr_seam *sm = &seams[k];
    int shift = (int)lround((double)sm->shift / g->h);
    double ux = (double)sm->b.x - sm->a.x, uy = (double)sm->b.y - sm->a.y, len = sqrt(ux * ux + uy * uy);
    if (!(len > 0.0)) continue;
    ux /= len, uy /= len;
    int i0, i1, j0, j1;
    double xlo = fmin(sm->a.x, sm->b.x) - reach, xhi = fmax(sm->a.x, sm->b.x) + reach;
    double ylo = fmin(sm->a.y, sm->b.y) - reach, yhi = fmax(sm->a.y, sm->b.y) + reach;
    if (!axis_cells(g->lo.x, g->h, g->nx, xlo, xhi, &i0, &i1) || !axis_cells(g->lo.y, g->h, g->ny, ylo, yhi, &j0, &j1))
      continue;
    for (int j = j0; j <= j1 && !rc; ++j)
      for (int i = i0; i <= i1 && !rc; ++i) {
        size_t q = (size_t)j * g->nx + i;
        int pi = i + shift;
        if (g->kind[q] != THR_NAV_BLOCKED || taken[q] || pi < 0 || pi >= g->nx) continue;
        size_t p = (size_t)j * g->nx + pi;
        if (g->kind[p] == THR_NAV_BLOCKED) continue;
        thr_vec2 cq = thr_navgrid_centre(g, i, j);
        double dx = (double)cq.x - sm->a.x, dy = (double)cq.y - sm->a.y;
        double across = dx * sm->n.x + dy * sm->n.y, along = dx * ux + dy * uy;
        if (!(across >= 0.0 && across <= reach && along >= -0.5 * g->h && along <= len + 0.5 * g->h)) continue;
        if (count == cap) {
          cap *= 2;
          int32_t *a = realloc(g->ph_cell, (size_t)cap * sizeof *a);
          if (a) g->ph_cell = a;
          int32_t *b = realloc(g->ph_partner, (size_t)cap * sizeof *b);
          if (b) g->ph_partner = b;
          if (!a || !b) {
            rc = -1;
            break;
          }
        }
        taken[q] = 1;
        g->ph_cell[count] = (int32_t)q;
        g->ph_partner[count] = (int32_t)p;
        ++count;
      }
  }
  free(taken);
  if (rc) return -1;
  g->n_phantom = (int)count;
  return count;
}

void thr_navgrid_free(thr_navgrid *g) {
  free(g->zone_speed);
  free(g->ph_cell);
  free(g->ph_partner);
  free(g->kind);
  memset(g, 0, sizeof *g);
}

/* ---- targets ------------------------------------------------------------- */

long thr_navtarget_polygon(const thr_navgrid *g, const thr_polyset *ps, int poly, unsigned char *target) {
  ring_set rs = {ps->verts, ps->ring_first, ps->poly_first[poly], ps->poly_first[poly + 1]};
  long n = fill_rings(g, rs, target, 1);
  if (n != 0) return n;
  seg_visit s = {g, {0.0f, 0.0f}, {0.0f, 0.0f}, target, 1, 0.0, 0};
  ring_edges_cells(&s, rs, 0.0, mark_cell); /* thinner than a cell: the cells its edges pass through */
  return s.count;
}

/* The cell holding p, or -1 outside the grid. */
static long cell_at(const thr_navgrid *g, thr_vec2 p) {
  double u = floor(((double)p.x - g->lo.x) / g->h), v = floor(((double)p.y - g->lo.y) / g->h);
  if (!(u >= 0.0 && u < g->nx && v >= 0.0 && v < g->ny)) return -1;
  return (long)v * g->nx + (long)u;
}

long thr_navtarget_disk(const thr_navgrid *g, thr_vec2 p, float radius, unsigned char *target) {
  double r = radius > 0.0f ? radius : 0.0;
  long count = 0;
  int i0, i1, j0, j1;
  if (axis_cells(g->lo.x, g->h, g->nx, p.x - r, p.x + r, &i0, &i1) &&
      axis_cells(g->lo.y, g->h, g->ny, p.y - r, p.y + r, &j0, &j1)) {
    for (int j = j0; j <= j1; ++j) {
      for (int i = i0; i <= i1; ++i) {
        thr_vec2 c = thr_navgrid_centre(g, i, j);
        double dx = (double)c.x - p.x, dy = (double)c.y - p.y;
        if (dx * dx + dy * dy <= r * r) {
          target[(size_t)j * g->nx + i] = 1;
          ++count;
        }
      }
    }
  }
  long own = count ? -1 : cell_at(g, p);
  if (own >= 0) {
    target[own] = 1;
    count = 1;
  }
  return count;
}

long thr_navtarget_points(const thr_navgrid *g, const thr_vec2 *p, int n, float radius, unsigned char *target) {
  long count = 0;
  for (int k = 0; k < n; ++k) count += thr_navtarget_disk(g, p[k], radius, target);
  return count;
}

/* ---- fast marching ------------------------------------------------------- */

enum { CELL_FAR = -1, CELL_DONE = -2 };

/* The marching state: tentative values, and a binary min-heap of the cells
 * of the front ordered by (value, cell index), so that the order in which
 * cells are accepted, and hence every value, is the same on every run. */
typedef struct march {
  const thr_navgrid *g;
  const float *scale; /* speed factor per cell, NULL: 1 */
  double *t;          /* value per cell (final once CELL_DONE) */
  int *pos;           /* heap position per cell, CELL_FAR or CELL_DONE */
  int *heap;          /* front cells */
  int32_t *label;     /* source label per cell, NULL: not wanted */
  int n;              /* front size */
} march;

static int before(const march *m, int a, int b) { return m->t[a] < m->t[b] || (m->t[a] == m->t[b] && a < b); }

static void heap_put(march *m, int k, int c) {
  m->heap[k] = c;
  m->pos[c] = k;
}

static void sift_up(march *m, int k) {
  int c = m->heap[k];
  while (k > 0 && before(m, c, m->heap[(k - 1) / 2])) {
    heap_put(m, k, m->heap[(k - 1) / 2]);
    k = (k - 1) / 2;
  }
  heap_put(m, k, c);
}

static void sift_down(march *m, int k) {
  int c = m->heap[k];
  for (;;) {
    int l = 2 * k + 1, best = l;
    if (l >= m->n) break;
    if (l + 1 < m->n && before(m, m->heap[l + 1], m->heap[l])) best = l + 1;
    if (!before(m, m->heap[best], c)) break;
    heap_put(m, k, m->heap[best]);
    k = best;
  }
  heap_put(m, k, c);
}

/* Cell c's value went down: insert it into the front, or move it up. */
static void front_lowered(march *m, int c) {
  if (m->pos[c] == CELL_FAR) {
    m->heap[m->n] = c;
    m->pos[c] = m->n++;
  }
  sift_up(m, m->pos[c]);
}

/* Remove the front's first cell and mark it done. */
static int front_pop(march *m) {
  int c = m->heap[0];
  m->pos[c] = CELL_DONE;
  if (--m->n > 0) {
    m->heap[0] = m->heap[m->n];
    sift_down(m, 0);
  }
  return c;
}

static double done_value(const march *m, int c) { return m->pos[c] == CELL_DONE ? m->t[c] : INFINITY; }

/* The smaller done neighbour value of cell c along one axis (cells c - step
 * and c + step, where they exist), and which cell holds it (-1: none). */
static double axis_min(const march *m, int c, int step, int has_lo, int has_hi, int *from) {
  double lo = has_lo ? done_value(m, c - step) : INFINITY, hi = has_hi ? done_value(m, c + step) : INFINITY;
  *from = hi < lo ? c + step : (lo < INFINITY ? c - step : -1);
  return fmin(lo, hi);
}

/* First-order upwind update of cell (i, j) from its done neighbours: the
 * solution of sum over axes of max(T - a_axis, 0)^2 = (h / F)^2, a_axis the
 * smaller done neighbour value along that axis. *from: the neighbour whose
 * value is the smaller of the two axes' (its label passes on). */
static double upwind(const march *m, int i, int j, int *from) {
  const thr_navgrid *g = m->g;
  int c = j * g->nx + i, fa, fb;
  double a = axis_min(m, c, 1, i > 0, i < g->nx - 1, &fa);
  double b = axis_min(m, c, g->nx, j > 0, j < g->ny - 1, &fb);
  double speed = (double)thr_navgrid_speed(g, (size_t)c);
  if (m->scale) speed *= (double)m->scale[c];
  double f = g->h / speed;
  if (a > b) {
    double s = a;
    a = b;
    b = s;
    fa = fb;
  }
  *from = fa;
  if (!(b - a < f)) return a + f; /* one axis only (also b infinite) */
  return 0.5 * (a + b + sqrt(2.0 * f * f - (b - a) * (b - a)));
}

static void relax(march *m, int i, int j) {
  const thr_navgrid *g = m->g;
  if (i < 0 || j < 0 || i >= g->nx || j >= g->ny) return;
  int c = j * g->nx + i, from;
  if (m->pos[c] == CELL_DONE || g->kind[c] == THR_NAV_BLOCKED) return;
  double t = upwind(m, i, j, &from);
  if (t < m->t[c]) {
    m->t[c] = t;
    if (m->label && from >= 0) m->label[c] = m->label[from];
    front_lowered(m, c);
  }
}

/* Every cell far and +INFINITY, then the walkable sources at their start
 * values (the lower one where a cell is given twice). */
static long seed_sources(march *m, const thr_navsource *src, long n_src) {
  long n = 0;
  int cells = (int)thr_navgrid_cells(m->g);
  for (int c = 0; c < cells; ++c) {
    m->t[c] = INFINITY;
    m->pos[c] = CELL_FAR;
    if (m->label) m->label[c] = -1;
  }
  for (long k = 0; k < n_src; ++k) {
    int c = src[k].cell;
    if (c < 0 || c >= cells || m->g->kind[c] == THR_NAV_BLOCKED || !((double)src[k].value < m->t[c])) continue;
    if (m->pos[c] == CELL_FAR) ++n;
    m->t[c] = (double)src[k].value;
    if (m->label) m->label[c] = src[k].label;
    front_lowered(m, c);
  }
  return n;
}

static void march_all(march *m) {
  int nx = m->g->nx;
  while (m->n > 0) {
    int c = front_pop(m);
    int i = c % nx, j = c / nx;
    relax(m, i - 1, j);
    relax(m, i + 1, j);
    relax(m, i, j - 1);
    relax(m, i, j + 1);
  }
}

int thr_navmarch_init(thr_navmarch *ws, const thr_navgrid *g) {
  size_t cells = thr_navgrid_cells(g);
  ws->cells = cells;
  ws->t = malloc((cells ? cells : 1) * sizeof(double));
  ws->pos = malloc((cells ? cells : 1) * sizeof(int));
  ws->heap = malloc((cells ? cells : 1) * sizeof(int));
  if (ws->t && ws->pos && ws->heap) return 0;
  thr_navmarch_free(ws);
  return -1;
}

void thr_navmarch_free(thr_navmarch *ws) {
  free(ws->t);
  free(ws->pos);
  free(ws->heap);
  ws->t = NULL;
  ws->pos = ws->heap = NULL;
  ws->cells = 0;
}

/* The phantom cells at their values (those reached: below +INFINITY), as
 * front cells: they are never updated themselves (blocked), but pass
 * their values on when accepted. */
static void seed_phantoms(march *m, const double *value, const int32_t *lab) {
  const thr_navgrid *g = m->g;
  for (int k = 0; k < g->n_phantom; ++k) {
    int q = g->ph_cell[k];
    if (!(value[k] < m->t[q])) continue;
    m->t[q] = value[k];
    if (m->label) m->label[q] = lab[k];
    front_lowered(m, q);
  }
}

long thr_navfield_march(const thr_navgrid *g, const float *scale, const thr_navsource *src, long n_src, float *out,
                        int32_t *label, thr_navmarch *ws) {
  thr_navmarch own = {0};
  if (!ws) {
    if (thr_navmarch_init(&own, g)) return -1;
    ws = &own;
  }
  int np = g->n_phantom;
  double *value = malloc((size_t)(np ? np : 1) * sizeof *value);
  int32_t *lab = malloc((size_t)(np ? np : 1) * sizeof *lab);
  if (!value || !lab) {
    free(value), free(lab);
    thr_navmarch_free(&own);
    return -1;
  }
  for (int k = 0; k < np; ++k) value[k] = INFINITY, lab[k] = -1;
  march m = {g, scale, ws->t, ws->pos, ws->heap, label, 0};
  long sources;
  for (int round = 0;; ++round) {
    /* again until the phantoms hold their partners' values (decision 0019);
     * values only go down, and a way crosses each seam a few times at most */
    sources = seed_sources(&m, src, n_src);
    seed_phantoms(&m, value, lab);
    march_all(&m);
    int moved = 0;
    for (int k = 0; k < np; ++k) {
      int p = g->ph_partner[k];
      int32_t l = label ? label[p] : -1;
      if (m.t[p] == value[k] && l == lab[k]) continue;
      value[k] = m.t[p], lab[k] = l, moved = 1;
    }
    if (!moved || round == THR_SEAM_ROUNDS) break;
  }
  size_t cells = thr_navgrid_cells(g);
  for (size_t c = 0; c < cells; ++c) out[c] = (float)m.t[c];
  free(value);
  free(lab);
  thr_navmarch_free(&own);
  return sources;
}

long thr_navtarget_sources(const thr_navgrid *g, const unsigned char *target, float value, int label,
                           thr_navsource **src, long *n, long *cap) {
  long cells = (long)thr_navgrid_cells(g), added = 0;
  for (long c = 0; c < cells; ++c) {
    if (!target[c]) continue;
    if (*n == *cap) {
      long nc = *cap ? 2 * *cap : 64;
      thr_navsource *q = realloc(*src, (size_t)nc * sizeof *q);
      if (!q) return -1;
      *src = q;
      *cap = nc;
    }
    (*src)[(*n)++] = (thr_navsource){(int32_t)c, value, label};
    ++added;
  }
  return added;
}

long thr_navfield_solve(const thr_navgrid *g, const unsigned char *target, float *out) {
  thr_navsource *src = NULL;
  long n = 0, cap = 0;
  long rc = thr_navtarget_sources(g, target, 0.0f, 0, &src, &n, &cap);
  if (rc >= 0) rc = thr_navfield_march(g, NULL, src, n, out, NULL, NULL);
  free(src);
  return rc;
}
