#define _POSIX_C_SOURCE 200809L
#include "populate.h"

#include "base/floors.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/context.h"
#include "kernels/rng.h"
#include "routes.h"

#define THR_PI 3.14159265358979323846

/* RNG streams of the per-agent draws at creation (step 0). */
enum {
  STREAM_RADIUS = 1,
  STREAM_MASS,
  STREAM_SPEED,
  STREAM_JITTER_X,
  STREAM_JITTER_Y,
  STREAM_GOAL_X,
  STREAM_GOAL_Y,
  STREAM_ALTITUDE, /* 3D */
  STREAM_RANDOM_X = 16, /* random layout: attempt a uses step a */
  STREAM_RANDOM_Y,
  STREAM_PREMOVE = 24,   /* distributions: attempt a of a truncated normal uses step a */
  STREAM_NORMAL_U = 25,  /* + 8 * (which value) */
};

static void block_error(const thr_scenario *sc, int b, char *err, size_t errlen, const char *what) {
  snprintf(err, errlen, "%s:%d: agents[%d] ('%s'): %s", sc->path, sc->blocks[b].line, b, sc->blocks[b].name,
           what);
}

/* ---- lattice layouts ------------------------------------------------------ */

typedef struct lattice {
  size_t n;
  double *x, *y;
  double *key; /* sort key (normalised radius) for count selection */
} lattice;

static void lattice_free(lattice *l) {
  free(l->x);
  free(l->y);
  free(l->key);
  memset(l, 0, sizeof *l);
}

static int lattice_alloc(lattice *l, size_t n) {
  l->n = 0;
  l->x = malloc((n ? n : 1) * sizeof(double));
  l->y = malloc((n ? n : 1) * sizeof(double));
  l->key = malloc((n ? n : 1) * sizeof(double));
  return (l->x && l->y && l->key) ? 0 : -1;
}

static void lattice_add(lattice *l, double x, double y, double key) {
  l->x[l->n] = x;
  l->y[l->n] = y;
  l->key[l->n] = key;
  l->n++;
}

/* ---- sizes, before anything is enumerated or allocated ------------------- */

/* A block's lattice: how many columns and rows (grid) or half-widths
 * (disk, ellipse) at which spacing, from doubles checked against the limit
 * before any becomes an integer. */
typedef struct lattice_dims {
  long cols, rows; /* grid: the lattice; disk, ellipse: 2 ni + 1, 2 nj + 1 */
  double sx, sy, x0, y0;
} lattice_dims;

static int refuse(const thr_scenario *sc, int b, char *err, size_t errlen, const char *fmt, double a, double c) {
  char msg[512];
  snprintf(msg, sizeof msg, fmt, a, c);
  block_error(sc, b, err, errlen, msg);
  return -1;
}

/* Rows and columns of a grid block. */
static int grid_dims(const thr_scenario *sc, int b, lattice_dims *d, char *err, size_t errlen) {
  const thr_block *bk = &sc->blocks[b];
  d->x0 = bk->min.x;
  d->y0 = bk->min.y;
  if (bk->rows > 0 && bk->cols > 0) {
    if ((double)bk->rows * (double)bk->cols > THR_MAX_AGENTS)
      return refuse(sc, b, err, errlen,
                    "rows x cols = %.0f positions, more than the %.0f agents throng can hold (ids are 32-bit); "
                    "lower rows or cols",
                    (double)bk->rows * (double)bk->cols, (double)THR_MAX_AGENTS);
    d->rows = bk->rows;
    d->cols = bk->cols;
    d->sx = d->cols > 1 ? ((double)bk->max.x - bk->min.x) / (double)(d->cols - 1) : 0.0;
    d->sy = d->rows > 1 ? ((double)bk->max.y - bk->min.y) / (double)(d->rows - 1) : 0.0;
    if (d->cols == 1) d->x0 = 0.5 * ((double)bk->min.x + bk->max.x);
    if (d->rows == 1) d->y0 = 0.5 * ((double)bk->min.y + bk->max.y);
    return 0;
  }
  d->sx = bk->spacing_x;
  d->sy = bk->spacing_y;
  double cols = floor(((double)bk->max.x - bk->min.x) / d->sx + 1e-6) + 1.0;
  double rows = floor(((double)bk->max.y - bk->min.y) / d->sy + 1e-6) + 1.0;
  if (!(cols * rows <= THR_MAX_AGENTS))
    return refuse(sc, b, err, errlen,
                  "the spacing gives %.3g lattice positions in the rectangle, more than the %.0f agents throng "
                  "can hold (ids are 32-bit); check spacing, min and max",
                  cols * rows, (double)THR_MAX_AGENTS);
  d->cols = (long)cols;
  d->rows = (long)rows;
  return 0;
}

/* Is lattice point (i, j) of spacing (sx, sy) inside the ellipse? The one
 * predicate of counting and placing. Returns the sort key (normalised
 * radius squared), or -1 outside. */
static double ellipse_key(const thr_block *bk, double sx, double sy, long i, long j) {
  double u = (double)i * sx / bk->rx, w = (double)j * sy / bk->ry;
  double k = u * u + w * w;
  return k > 1.0 + 1e-9 ? -1.0 : k;
}

/* The largest |i| of row j inside the ellipse, or -1: from the circle
 * equation, corrected by the predicate itself (rounding). */
static long ellipse_row_extent(const thr_block *bk, double sx, double sy, long ni, long j) {
  double w = (double)j * sy / bk->ry;
  double r = 1.0 + 1e-9 - w * w;
  if (r < 0.0) return -1;
  double est = floor(sqrt(r) * bk->rx / sx);
  long i = est < (double)ni ? (long)est : ni;
  while (i < ni && ellipse_key(bk, sx, sy, i + 1, j) >= 0.0) i++;
  while (i >= 0 && ellipse_key(bk, sx, sy, i, j) < 0.0) i--;
  return i;
}

/* Half-extents of a disk or ellipse lattice of spacing (sx, sy): -1 when
 * they exceed the limit. */
static int ellipse_dims(const thr_block *bk, double sx, double sy, lattice_dims *d) {
  double ni = floor(bk->rx / sx), nj = floor(bk->ry / sy);
  /* counting walks the rows: bound them too, not only the area */
  if (!((2.0 * ni + 1.0) * (2.0 * nj + 1.0) <= 4.0 * THR_MAX_AGENTS) || !(nj <= 5e7)) return -1;
  d->cols = 2 * (long)ni + 1;
  d->rows = 2 * (long)nj + 1;
  d->sx = sx;
  d->sy = sy;
  return 0;
}

/* Positions of a disk or ellipse lattice, counted row by row (O(rows)). */
static double ellipse_count(const thr_block *bk, const lattice_dims *d) {
  long ni = d->cols / 2, nj = d->rows / 2;
  double n = 0.0;
  for (long j = -nj; j <= nj; ++j) {
    long e = ellipse_row_extent(bk, d->sx, d->sy, ni, j);
    if (e >= 0) n += (double)(2 * e + 1);
  }
  return n;
}

/* Spacing and extents of a disk or ellipse block; without spacing, the
 * largest spacing giving at least `count` positions. */
static int disk_dims(const thr_scenario *sc, int b, lattice_dims *d, char *err, size_t errlen) {
  const thr_block *bk = &sc->blocks[b];
  double sx = bk->spacing_x, sy = bk->spacing_y;
  if (!(sx > 0.0)) {
    sx = sqrt(THR_PI * bk->rx * bk->ry / (double)bk->count);
    for (int it = 0; it < 2000; ++it) {
      if (ellipse_dims(bk, sx, sx, d)) break;
      if (ellipse_count(bk, d) >= (double)bk->count) break;
      sx *= 0.995;
    }
    sy = sx;
  }
  if (ellipse_dims(bk, sx, sy, d) || !(ellipse_count(bk, d) <= THR_MAX_AGENTS))
    return refuse(sc, b, err, errlen,
                  "the spacing %.3g m gives more than %.0f lattice positions in the shape, the most agents throng "
                  "can hold (ids are 32-bit); check spacing, count and the shape's size",
                  sx, (double)THR_MAX_AGENTS);
  return 0;
}

/* The lattice of a grid, disk or ellipse block. */
static int lattice_dims_of(const thr_scenario *sc, int b, lattice_dims *d, char *err, size_t errlen) {
  memset(d, 0, sizeof *d);
  return sc->blocks[b].layout == THR_LAYOUT_GRID ? grid_dims(sc, b, d, err, errlen) : disk_dims(sc, b, d, err, errlen);
}

/* ---- spawn regions filled with a lattice (layout polygon with spacing) ---- */

/* Bounding box of the outer ring of polygon `poly` of ps. */
static void region_box(const thr_polyset *ps, int poly, thr_vec2 *lo, thr_vec2 *hi) {
  int r = ps->poly_first[poly];
  *lo = *hi = ps->verts[ps->ring_first[r]];
  for (int v = ps->ring_first[r]; v < ps->ring_first[r + 1]; ++v) {
    *lo = v2(fminf(lo->x, ps->verts[v].x), fminf(lo->y, ps->verts[v].y));
    *hi = v2(fmaxf(hi->x, ps->verts[v].x), fmaxf(hi->y, ps->verts[v].y));
  }
}

/* The lattice (x0 + i sx, y0 + j sy) of a region, anchored half a spacing
 * inside its bounding box: cols x rows points cover the box. Rows are
 * searched edge by edge, so that counting costs O(rows x edges), never the
 * number of points. */
typedef struct region_grid {
  const thr_polyset *ps;
  int poly, n_edges;
  double x0, y0, sx, sy;
  long cols, rows;
  double *buf; /* scratch of one row: 4 n_edges */
} region_grid;

#define REGION_MAX_WORK 2.0e8 /* rows x edges one count may search */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int region_grid_init(const thr_scenario *sc, int b, region_grid *g, char *err, size_t errlen) {
  const thr_block *bk = &sc->blocks[b];
  const thr_polyset *ps = &sc->regions;
  thr_vec2 lo, hi;
  region_box(ps, bk->region, &lo, &hi);
  memset(g, 0, sizeof *g);
  g->ps = ps, g->poly = bk->region;
  g->sx = bk->spacing_x, g->sy = bk->spacing_y;
  g->x0 = lo.x + 0.5 * g->sx, g->y0 = lo.y + 0.5 * g->sy;
  g->n_edges = ps->ring_first[ps->poly_first[g->poly + 1]] - ps->ring_first[ps->poly_first[g->poly]];
  double cols = fmax(0.0, floor((hi.x - g->x0) / g->sx) + 1.0), rows = fmax(0.0, floor((hi.y - g->y0) / g->sy) + 1.0);
  if (!(cols * rows <= 4.0 * THR_MAX_AGENTS) || !(rows * g->n_edges <= REGION_MAX_WORK))
    return refuse(sc, b, err, errlen,
                  "the spacing gives %.3g lattice positions over the region's bounding box in %.3g rows, more than "
                  "throng searches (1.7e10 positions, 2e8 rows x polygon edges); raise spacing",
                  cols * rows, rows);
  g->cols = (long)cols, g->rows = (long)rows;
  g->buf = malloc(4 * (size_t)g->n_edges * sizeof *g->buf);
  if (!g->buf) return refuse(sc, b, err, errlen, "out of memory searching %.0f rows of %.0f edges", rows, g->n_edges);
  return 0;
}

/* x of lattice column i: the one formula of counting and placing. */
static double region_col_x(const region_grid *g, long i) {
  return g->x0 + (double)i * g->sx;
}

/* Crossings of the region's edges with the line just above height y
 * (above = 1: a vertex at y counts as below it) or just below it, sorted;
 * pairs of them bound the inside. */
static int row_crossings(const region_grid *g, double y, int above, double *out) {
  const thr_polyset *ps = g->ps;
  int n = 0;
  for (int r = ps->poly_first[g->poly]; r < ps->poly_first[g->poly + 1]; ++r) {
    int v0 = ps->ring_first[r], v1 = ps->ring_first[r + 1];
    for (int v = v0; v < v1; ++v) {
      thr_vec2 a = ps->verts[v], b = ps->verts[v + 1 < v1 ? v + 1 : v0];
      int sa = above ? a.y > y : a.y >= y, sb = above ? b.y > y : b.y >= y;
      if (sa != sb) out[n++] = a.x + ((double)b.x - a.x) * ((y - a.y) / ((double)b.y - a.y));
    }
  }
  qsort(out, (size_t)n, sizeof *out, cmp_double);
  return n;
}

/* The open intervals (pairs) common to the unions of open intervals a and b. */
static int intersect_intervals(const double *a, int na, const double *b, int nb, double *out) {
  int i = 0, k = 0, n = 0;
  while (i + 1 < na && k + 1 < nb) {
    double lo = fmax(a[i], b[k]), hi = fmin(a[i + 1], b[k + 1]);
    if (lo < hi) out[n++] = lo, out[n++] = hi;
    if (a[i + 1] < b[k + 1])
      i += 2;
    else
      k += 2;
  }
  return n;
}

/* Lattice points of row j strictly inside the region (a point on its
 * boundary is left out: the row must be inside both just above and just
 * below it, strictly between two crossings), counted and, with l, added
 * left to right. */
static long region_row(const region_grid *g, long j, lattice *l) {
  double y = g->y0 + (double)j * g->sy;
  double *up = g->buf, *down = up + g->n_edges, *in = down + g->n_edges;
  int n = intersect_intervals(up, row_crossings(g, y, 1, up), down, row_crossings(g, y, 0, down), in);
  long count = 0;
  for (int k = 0; k < n; k += 2) {
    double e = ceil((in[k] - g->x0) / g->sx), f = floor((in[k + 1] - g->x0) / g->sx);
    long first = e < 0.0 ? 0 : e > (double)g->cols ? g->cols : (long)e;
    long last = f < -1.0 ? -1 : f > (double)(g->cols - 1) ? g->cols - 1 : (long)f;
    /* the estimates, corrected by the comparison itself (rounding) */
    while (first > 0 && region_col_x(g, first - 1) > in[k]) first--;
    while (first < g->cols && region_col_x(g, first) <= in[k]) first++;
    while (last + 1 < g->cols && region_col_x(g, last + 1) < in[k + 1]) last++;
    while (last >= 0 && region_col_x(g, last) >= in[k + 1]) last--;
    if (last < first) continue;
    count += last - first + 1;
    for (long i = first; l && i <= last; ++i) lattice_add(l, region_col_x(g, i), y, 0.0);
  }
  return count;
}

/* Lattice points inside a polygon block's region (-1: refused, message in err). */
static double region_count(const thr_scenario *sc, int b, char *err, size_t errlen) {
  region_grid g;
  if (region_grid_init(sc, b, &g, err, errlen)) return -1.0;
  double n = 0.0;
  for (long j = 0; j < g.rows; ++j) n += (double)region_row(&g, j, NULL);
  free(g.buf);
  return n;
}

/* Those points, rows bottom to top, each left to right. */
static int region_points(const thr_scenario *sc, int b, lattice *l, char *err, size_t errlen) {
  double n = region_count(sc, b, err, errlen);
  region_grid g;
  if (n < 0.0 || region_grid_init(sc, b, &g, err, errlen)) return -1;
  int rc = lattice_alloc(l, (size_t)n);
  for (long j = 0; j < g.rows && !rc; ++j) region_row(&g, j, l);
  free(g.buf);
  if (rc) {
    lattice_free(l);
    block_error(sc, b, err, errlen, "out of memory laying out the region's lattice");
  }
  return rc;
}

/* Whether a polygon block is a lattice (spacing given) rather than random points. */
static int is_region_lattice(const thr_block *bk) {
  return bk->layout == THR_LAYOUT_POLYGON && bk->spacing_x > 0.0f;
}

/* ---- layout points --------------------------------------------------------- */

/* The block's points as given, each offset + scale p. */
static int given_points(const thr_scenario *sc, int b, lattice *l, char *err, size_t errlen) {
  const thr_block *bk = &sc->blocks[b];
  if (lattice_alloc(l, (size_t)bk->n_points)) {
    lattice_free(l);
    block_error(sc, b, err, errlen, "out of memory laying out the points");
    return -1;
  }
  const thr_vec2 *p = sc->layout_points + bk->points_first;
  for (int k = 0; k < bk->n_points; ++k)
    lattice_add(l, (double)bk->points_offset.x + (double)bk->points_scale * p[k].x,
                (double)bk->points_offset.y + (double)bk->points_scale * p[k].y, 0.0);
  return 0;
}

/* ---- placing ---------------------------------------------------------------- */

static int out_of_memory(const thr_scenario *sc, int b, size_t n, char *err, size_t errlen) {
  char msg[200];
  snprintf(msg, sizeof msg, "out of memory laying out %zu positions (%.3g GB)", n,
           (double)n * 3.0 * sizeof(double) / 1e9);
  block_error(sc, b, err, errlen, msg);
  return -1;
}

/* Points of a rectangular lattice (grid layout), row by row. */
static int grid_points(const thr_scenario *sc, int b, const lattice_dims *d, lattice *l, char *err, size_t errlen) {
  size_t n = (size_t)d->rows * (size_t)d->cols;
  if (lattice_alloc(l, n)) return out_of_memory(sc, b, n, err, errlen);
  for (long r = 0; r < d->rows; ++r)
    for (long c = 0; c < d->cols; ++c) lattice_add(l, d->x0 + (double)c * d->sx, d->y0 + (double)r * d->sy, 0.0);
  return 0;
}

/* Lattice points inside the ellipse, row by row. */
static int ellipse_points(const thr_scenario *sc, int b, const lattice_dims *d, lattice *l, char *err,
                          size_t errlen) {
  const thr_block *bk = &sc->blocks[b];
  size_t n = (size_t)ellipse_count(bk, d);
  if (lattice_alloc(l, n)) return out_of_memory(sc, b, n, err, errlen);
  long ni = d->cols / 2, nj = d->rows / 2;
  for (long j = -nj; j <= nj; ++j) {
    long e = ellipse_row_extent(bk, d->sx, d->sy, ni, j);
    for (long i = -e; i <= e; ++i)
      lattice_add(l, bk->center.x + (double)i * d->sx, bk->center.y + (double)j * d->sy,
                  ellipse_key(bk, d->sx, d->sy, i, j));
  }
  return 0;
}

/* Indices sorted by (key, index): qsort is not stable, so compare indices. */
static const double *sort_keys;
static int cmp_key_index(const void *a, const void *b) {
  size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
  if (sort_keys[ia] < sort_keys[ib]) return -1;
  if (sort_keys[ia] > sort_keys[ib]) return 1;
  return ia < ib ? -1 : (ia > ib);
}
static int cmp_index(const void *a, const void *b) {
  size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
  return ia < ib ? -1 : (ia > ib);
}

/* Keep the `count` points with the smallest key, in their original order. */
static int keep_closest(lattice *l, long count) {
  size_t *idx = malloc(l->n * sizeof(size_t));
  if (!idx) return -1;
  for (size_t k = 0; k < l->n; ++k) idx[k] = k;
  sort_keys = l->key;
  qsort(idx, l->n, sizeof(size_t), cmp_key_index);
  qsort(idx, (size_t)count, sizeof(size_t), cmp_index);
  for (long k = 0; k < count; ++k) {
    l->x[k] = l->x[idx[k]];
    l->y[k] = l->y[idx[k]];
  }
  l->n = (size_t)count;
  free(idx);
  return 0;
}

/* Lattice positions of a block (all layouts but random). */
static int block_points(const thr_scenario *sc, int b, lattice *l, char *err, size_t errlen) {
  const thr_block *bk = &sc->blocks[b];
  char msg[256];
  memset(l, 0, sizeof *l);
  if (bk->layout == THR_LAYOUT_CIRCLE) {
    if (lattice_alloc(l, (size_t)bk->count)) return out_of_memory(sc, b, (size_t)bk->count, err, errlen);
    for (long k = 0; k < bk->count; ++k) {
      double a = 2.0 * THR_PI * (double)k / (double)bk->count;
      lattice_add(l, bk->center.x + bk->rx * cos(a), bk->center.y + bk->rx * sin(a), 0.0);
    }
  } else if (bk->layout == THR_LAYOUT_POINTS) {
    if (given_points(sc, b, l, err, errlen)) return -1;
  } else if (is_region_lattice(bk)) {
    if (region_points(sc, b, l, err, errlen)) return -1;
  } else {
    lattice_dims d;
    if (lattice_dims_of(sc, b, &d, err, errlen)) return -1;
    int rc = bk->layout == THR_LAYOUT_GRID ? grid_points(sc, b, &d, l, err, errlen)
                                           : ellipse_points(sc, b, &d, l, err, errlen);
    if (rc) {
      lattice_free(l);
      return -1;
    }
  }
  if (bk->count > 0 && (long)l->n < bk->count) {
    snprintf(msg, sizeof msg, "count %ld exceeds the %zu positions of the layout", bk->count, l->n);
    block_error(sc, b, err, errlen, msg);
    lattice_free(l);
    return -1;
  }
  if (bk->count > 0 && (long)l->n > bk->count && keep_closest(l, bk->count)) {
    out_of_memory(sc, b, l->n, err, errlen);
    lattice_free(l);
    return -1;
  }
  if (l->n == 0) {
    block_error(sc, b, err, errlen, "the layout holds no agent");
    return -1;
  }
  return 0;
}

/* Area of polygon p of ps: its outer ring minus its holes (shoelace). */
static double region_area(const thr_polyset *ps, int p) {
  double area = 0.0;
  for (int r = ps->poly_first[p]; r < ps->poly_first[p + 1]; ++r) {
    int v0 = ps->ring_first[r], v1 = ps->ring_first[r + 1];
    double a = 0.0;
    for (int v = v0; v < v1; ++v) {
      thr_vec2 u = ps->verts[v], w = ps->verts[v + 1 < v1 ? v + 1 : v0];
      a += (double)u.x * w.y - (double)w.x * u.y;
    }
    area += (r == ps->poly_first[p] ? 1.0 : -1.0) * fabs(a) * 0.5;
  }
  return area;
}

/* Agents of one block, without placing them (O(rows) for lattices);
 * *positions: what laying it out enumerates. */
static long block_count(const thr_scenario *sc, int b, double *positions, char *err, size_t errlen) {
  const thr_block *bk = &sc->blocks[b];
  if (bk->count > THR_MAX_AGENTS) {
    refuse(sc, b, err, errlen, "count %.0f exceeds the %.0f agents throng can hold (ids are 32-bit)",
           (double)bk->count, (double)THR_MAX_AGENTS);
    return -1;
  }
  *positions = (double)bk->count;
  if (bk->source) return *positions = 0.0, 0; /* a source's properties: no agents at the start */
  if (bk->layout == THR_LAYOUT_RANDOM || bk->layout == THR_LAYOUT_CIRCLE) return bk->count;
  if (bk->layout == THR_LAYOUT_POINTS) return (long)(*positions = (double)bk->n_points); /* count: the same */
  if (is_region_lattice(bk)) {
    double n = region_count(sc, b, err, errlen);
    if (n < 0.0) return -1;
    *positions = n;
    if (n < 1.0) {
      refuse(sc, b, err, errlen,
             "no point of the lattice of spacing [%g, %g] lies inside the region; lower spacing",
             (double)bk->spacing_x, (double)bk->spacing_y);
      return -1;
    }
    if (!(n <= THR_MAX_AGENTS)) {
      refuse(sc, b, err, errlen, "the region holds %.3g lattice points, more than the %.0f agents throng can hold",
             n, (double)THR_MAX_AGENTS);
      return -1;
    }
    if (bk->count > 0 && n < (double)bk->count) {
      refuse(sc, b, err, errlen, "count %.0f exceeds the %.0f lattice points inside the region", (double)bk->count, n);
      return -1;
    }
    return bk->count > 0 ? bk->count : (long)n;
  }
  if (bk->layout == THR_LAYOUT_POLYGON) {
    double n = bk->count > 0 ? (double)bk->count : floor(bk->density * region_area(&sc->regions, bk->region) + 0.5);
    if (!(n <= THR_MAX_AGENTS)) {
      refuse(sc, b, err, errlen, "density x area = %.3g agents, more than the %.0f throng can hold", n,
             (double)THR_MAX_AGENTS);
      return -1;
    }
    if (n < 1.0) {
      block_error(sc, b, err, errlen, "the region holds no agent at this density");
      return -1;
    }
    return (long)(*positions = n);
  }
  lattice_dims d;
  if (lattice_dims_of(sc, b, &d, err, errlen)) return -1;
  double n = bk->layout == THR_LAYOUT_GRID ? (double)d.rows * (double)d.cols : ellipse_count(bk, &d);
  *positions = n;
  char msg[160];
  if (bk->count > 0 && n < (double)bk->count) {
    snprintf(msg, sizeof msg, "count %ld exceeds the %.0f positions of the layout", bk->count, n);
    block_error(sc, b, err, errlen, msg);
    return -1;
  }
  if (n < 1.0) {
    block_error(sc, b, err, errlen, "the layout holds no agent");
    return -1;
  }
  return bk->count > 0 ? bk->count : (long)n;
}

long thr_block_agents(const thr_scenario *sc, int b, char *err, size_t errlen) {
  double positions;
  return block_count(sc, b, &positions, err, errlen);
}

long thr_scenario_count(const thr_scenario *sc, char *err, size_t errlen) {
  long total = 0;
  for (int b = 0; b < sc->n_blocks; ++b) {
    double positions;
    long n = block_count(sc, b, &positions, err, errlen);
    if (n < 0) return -1;
    total += n;
    if (total > THR_MAX_AGENTS) {
      snprintf(err, errlen, "%s: the agent blocks hold %ld agents or more, more than the %.0f throng can hold (ids "
               "are 32-bit); lower the counts (agents[%d] reaches it)", sc->path, total, (double)THR_MAX_AGENTS, b);
      return -1;
    }
  }
  return total;
}

/* Bytes of host memory a rank needs per owned agent (the CPU backend's
 * store, scratch and growth; the CUDA backend needs less on the host), and
 * per position while laying out a block (every rank lays out every block
 * and keeps its own agents). */
enum { HOST_BYTES_PER_AGENT = 256, BYTES_PER_POSITION = 3 * sizeof(double) };

int thr_scenario_fits(const thr_scenario *sc, long total, int ranks, int ranks_per_node, char *err, size_t errlen) {
  double largest = 0.0;
  int big = 0;
  for (int b = 0; b < sc->n_blocks; ++b) {
    double positions;
    if (block_count(sc, b, &positions, err, errlen) < 0) return -1;
    if (positions > largest) largest = positions, big = b;
  }
  double per_rank = (double)total / (ranks > 0 ? ranks : 1) * HOST_BYTES_PER_AGENT + largest * BYTES_PER_POSITION;
  double need = per_rank * (ranks_per_node > 0 ? ranks_per_node : 1);
  double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  if (have > 0.0 && need > have) {
    char msg[400];
    snprintf(msg, sizeof msg,
             "the scenario needs about %.3g GB of memory on this node (%ld agents over %d rank(s), %d on this node, "
             "and %.3g positions to lay out this block), more than its %.3g GB; lower count or spacing here, or "
             "run on more nodes",
             need / 1e9, total, ranks, ranks_per_node, largest, have / 1e9);
    block_error(sc, big, err, errlen, msg);
    return -1;
  }
  return 0;
}

/* ---- random layouts ----------------------------------------------------------- */

/* Where a random layout throws darts: the block's rectangle, or the
 * bounding box of a spawn region, keeping the darts inside the region. */
typedef struct dart_board {
  thr_vec2 min, max;
  const thr_polyset *region; /* NULL: the whole rectangle */
  int poly;
} dart_board;

/* Is x inside polygon p of ps (inside its outer ring, outside its holes)? */
static int inside_polygon(const thr_polyset *ps, int p, thr_vec2 x) {
  for (int r = ps->poly_first[p]; r < ps->poly_first[p + 1]; ++r) {
    int v0 = ps->ring_first[r], n = ps->ring_first[r + 1] - v0;
    int in = thr_polygon_contains(ps->verts + v0, n, x);
    if (r == ps->poly_first[p] ? !in : in) return 0;
  }
  return 1;
}

/* Is x in the walkable area (anywhere when none is given)? */
static int walkable_at(const thr_scenario *sc, thr_vec2 x) {
  if (!sc->walkable.n_polys) return 1;
  for (int p = 0; p < sc->walkable.n_polys; ++p)
    if (inside_polygon(&sc->walkable, p, x)) return 1;
  return 0;
}

static dart_board board_of(const thr_scenario *sc, const thr_block *bk) {
  dart_board d = {bk->min, bk->max, NULL, 0};
  if (bk->layout != THR_LAYOUT_POLYGON) return d;
  region_box(&sc->regions, bk->region, &d.min, &d.max);
  d.region = &sc->regions;
  d.poly = bk->region;
  return d;
}

/* Uniform non-overlapping positions by dart throwing; attempt a of agent id
 * draws with step a, so the result depends only on the seed and ids. */
static int random_points(const thr_scenario *sc, int b, long n, uint32_t first_id, const float *radius,
                         lattice *l, char *err, size_t errlen) {
  const thr_block *bk = &sc->blocks[b];
  dart_board d = board_of(sc, bk);
  double w = (double)d.max.x - d.min.x, h = (double)d.max.y - d.min.y;
  double cs = 2.0 * bk->radius_max * sc->prm.radius_scale;
  if (cs <= 0.0) cs = 1.0;
  double cells_x = ceil(w / cs) < 1.0 ? 1.0 : ceil(w / cs), cells_y = ceil(h / cs) < 1.0 ? 1.0 : ceil(h / cs);
  if (!(cells_x * cells_y <= 1.0e8))
    return refuse(sc, b, err, errlen,
                  "the rectangle holds %.3g cells of the agents' size (%.3g m), more than the 1e8 the random "
                  "layout can search; shrink min/max or use layout 'grid'",
                  cells_x * cells_y, cs);
  long ncx = (long)cells_x, ncy = (long)cells_y;
  long *head = malloc((size_t)(ncx * ncy) * sizeof(long));
  long *next = malloc((size_t)(n ? n : 1) * sizeof(long));
  if (!head || !next || lattice_alloc(l, (size_t)n)) {
    free(head);
    free(next);
    lattice_free(l);
    return out_of_memory(sc, b, (size_t)n, err, errlen);
  }
  for (long c = 0; c < ncx * ncy; ++c) head[c] = -1;
  for (long k = 0; k < n; ++k) {
    uint32_t id = first_id + (uint32_t)k;
    int placed = 0;
    for (int a = 0; a < 1000 && !placed; ++a) {
      double x = d.min.x + w * thr_rng_uniform(sc->seed, id, (uint64_t)a, STREAM_RANDOM_X);
      double y = d.min.y + h * thr_rng_uniform(sc->seed, id, (uint64_t)a, STREAM_RANDOM_Y);
      if (d.region && !inside_polygon(d.region, d.poly, v2((float)x, (float)y))) continue;
      long cx = (long)((x - d.min.x) / cs), cy = (long)((y - d.min.y) / cs);
      if (cx >= ncx) cx = ncx - 1;
      if (cy >= ncy) cy = ncy - 1;
      int clear = 1;
      for (long yy = cy - 1; yy <= cy + 1 && clear; ++yy)
        for (long xx = cx - 1; xx <= cx + 1 && clear; ++xx) {
          if (xx < 0 || yy < 0 || xx >= ncx || yy >= ncy) continue;
          for (long o = head[yy * ncx + xx]; o >= 0 && clear; o = next[o]) {
            double dx = x - l->x[o], dy = y - l->y[o];
            double md = ((double)radius[k] + radius[o]) * sc->prm.radius_scale;
            if (dx * dx + dy * dy < md * md) clear = 0;
          }
        }
      if (!clear) continue;
      lattice_add(l, x, y, 0.0);
      next[k] = head[cy * ncx + cx];
      head[cy * ncx + cx] = k;
      placed = 1;
    }
    if (!placed) {
      char msg[200];
      snprintf(msg, sizeof msg,
               "cannot place agent %ld of %ld without overlap after 1000 attempts; enlarge the %s or lower %s", k,
               n, d.region ? "region" : "rectangle", d.region && bk->density > 0.0f ? "density" : "count");
      block_error(sc, b, err, errlen, msg);
      free(head);
      free(next);
      lattice_free(l);
      return -1;
    }
  }
  free(head);
  free(next);
  return 0;
}

/* ---- agents ------------------------------------------------------------------ */

static float draw_range(uint64_t seed, uint32_t id, uint32_t stream, float lo, float hi) {
  if (!(hi > lo)) return lo;
  return lo + (hi - lo) * thr_rng_uniform(seed, id, 0, stream);
}

static float draw_jitter(uint64_t seed, uint32_t id, uint32_t stream, float amp) {
  if (!(amp > 0.0f)) return 0.0f;
  return amp * (2.0f * thr_rng_uniform(seed, id, 0, stream) - 1.0f);
}

/* A draw from d (NONE: dflt). A truncated normal draws again (Box-Muller,
 * attempt a with step a) until inside [lo, hi], and clamps after 64. */
static float draw_dist(uint64_t seed, uint32_t id, uint32_t stream, const thr_dist *d, float dflt) {
  switch (d->kind) {
    case THR_DIST_CONST:
      return d->a;
    case THR_DIST_UNIFORM:
      return draw_range(seed, id, stream, d->a, d->b);
    case THR_DIST_NORMAL:
      for (int a = 0; a < 64; ++a) {
        double u1 = 1.0 - (double)thr_rng_uniform(seed, id, (uint64_t)a, stream);
        double u2 = (double)thr_rng_uniform(seed, id, (uint64_t)a, stream + 1);
        double z = sqrt(-2.0 * log(u1)) * cos(2.0 * THR_PI * u2);
        float v = (float)((double)d->a + (double)d->b * z);
        if (v >= d->lo && v <= d->hi) return v;
      }
      return d->a < d->lo ? d->lo : (d->a > d->hi ? d->hi : d->a);
    default:
      return dflt;
  }
}

static float draw_radius(const thr_scenario *sc, const thr_block *bk, uint32_t id) {
  if (bk->radius_dist.kind == THR_DIST_NORMAL)
    return draw_dist(sc->seed, id, STREAM_NORMAL_U, &bk->radius_dist, bk->radius_min);
  return draw_range(sc->seed, id, STREAM_RADIUS, bk->radius_min, bk->radius_max);
}

static float draw_speed(const thr_scenario *sc, const thr_block *bk, uint32_t id) {
  float v = bk->speed_dist.kind == THR_DIST_NORMAL
                ? draw_dist(sc->seed, id, STREAM_NORMAL_U + 8, &bk->speed_dist, bk->speed_mean)
                : bk->speed_mean + draw_jitter(sc->seed, id, STREAM_SPEED, bk->speed_spread);
  return v < 0.0f ? 0.0f : v;
}

/* Route, stage and journey of a block's agents (world: the fields). */
static void set_route(const thr_world *w, const thr_scenario *sc, const thr_block *bk, thr_agent_rec *r) {
  r->route = r->stage = r->slot = r->journey = -1;
  switch (bk->route_kind) {
    case THR_ROUTE_NEAREST_EXIT:
      r->route = w->nearest_field;
      break;
    case THR_ROUTE_EXIT:
      r->route = w->exit_field[bk->route];
      break;
    case THR_ROUTE_JOURNEY:
      r->journey = bk->route;
      r->stage = sc->journeys[bk->route].first_stage;
      r->route = w->stages[r->stage].field;
      break;
    default:
      break;
  }
}

/* ---- sources: where their agents may appear ------------------------------ */

int thr_source_point_ok(const thr_scenario *sc, const thr_world *w, int q, thr_vec2 x) {
  const thr_polyset *ps = &sc->regions;
  int poly = sc->sources[q].region, r0 = ps->poly_first[poly];
  for (int r = r0; r < ps->poly_first[poly + 1]; ++r) {
    int in = thr_polygon_contains(ps->verts + ps->ring_first[r], ps->ring_first[r + 1] - ps->ring_first[r], x);
    if (r == r0 ? !in : in) return 0;
  }
  if (!walkable_at(sc, x)) return 0;
  thr_agent_rec r;
  set_route(w, sc, &sc->blocks[sc->sources[q].block], &r);
  return r.route < 0 || thr_route_reachable(w, r.route, x);
}

/* Points of a 64 x 64 lattice over the region's bounding box. */
int thr_sources_check(const thr_scenario *sc, const thr_world *w, char *err, size_t errlen) {
  enum { N = 64 };
  for (int q = 0; q < sc->n_sources; ++q) {
    const thr_polyset *ps = &sc->regions;
    int r0 = ps->poly_first[sc->sources[q].region];
    thr_vec2 lo = ps->verts[ps->ring_first[r0]], hi = lo;
    for (int v = ps->ring_first[r0]; v < ps->ring_first[r0 + 1]; ++v) {
      lo = v2(fminf(lo.x, ps->verts[v].x), fminf(lo.y, ps->verts[v].y));
      hi = v2(fmaxf(hi.x, ps->verts[v].x), fmaxf(hi.y, ps->verts[v].y));
    }
    int found = 0;
    for (int j = 0; j < N && !found; ++j)
      for (int i = 0; i < N && !found; ++i)
        found = thr_source_point_ok(sc, w, q, v2(lo.x + (hi.x - lo.x) * ((float)i + 0.5f) / N,
                                                 lo.y + (hi.y - lo.y) * ((float)j + 0.5f) / N));
    if (!found) {
      thr_agent_rec r;
      set_route(w, sc, &sc->blocks[sc->sources[q].block], &r);
      char name[160];
      snprintf(err, errlen,
               "%s:%d: sources[%d] ('%s'): no walkable point of its region can reach %s (after widening the "
               "walls by routing.clearance); its agents would stand there for good",
               sc->path, sc->sources[q].line, q, sc->sources[q].name, thr_route_name(sc, w, r.route, name, sizeof name));
      return -1;
    }
  }
  return 0;
}

/* "(x, y)" of a point inside as the user drew it: in a building, in its
 * floor's own coordinates with the floor's name (base/floors.h). */
static const char *place(const thr_scenario *sc, thr_vec2 x, char *buf, size_t len) {
  if (!sc->n_floors) {
    snprintf(buf, len, "(%g, %g)", (double)x.x, (double)x.y);
    return buf;
  }
  float z;
  thr_vec2 p = thr_building_point(sc, x, &z);
  snprintf(buf, len, "(%g, %g) on floor '%s'", (double)p.x, (double)p.y, sc->floors[thr_floor_at(sc, x)].name);
  return buf;
}

/* Check one agent against the world and the obstacles of its cell. */
static int check_agent(const thr_scenario *sc, const thr_world *w, int b, const thr_agent_rec *r, char *err,
                       size_t errlen) {
  char msg[900], here[160], there[160];
  if (!(r->x.x >= w->min.x && r->x.x <= w->max.x && r->x.y >= w->min.y && r->x.y <= w->max.y)) {
    snprintf(msg, sizeof msg, "agent %u at (%g, %g) is outside the world [%g, %g] x [%g, %g]", r->id,
             (double)r->x.x, (double)r->x.y, (double)w->min.x, (double)w->max.x, (double)w->min.y,
             (double)w->max.y);
    block_error(sc, b, err, errlen, msg);
    return -1;
  }
  if (!walkable_at(sc, r->x)) {
    snprintf(msg, sizeof msg, "agent %u at (%g, %g) is outside the walkable area", r->id, (double)r->x.x,
             (double)r->x.y);
    block_error(sc, b, err, errlen, msg);
    return -1;
  }
  if (r->route >= 0 && !thr_route_reachable(w, r->route, r->x)) {
    char name[160], where[320] = "";
    thr_vec2 at;
    if (thr_route_nearest_reached(w, r->route, r->x, &at))
      snprintf(where, sizeof where, "; the nearest place from which it can is %s, %.3g m away: the way closes "
               "between (a gap narrower than a body, or a wall across it)", place(sc, at, there, sizeof there),
               (double)v2_len(v2_sub(at, r->x)));
    snprintf(msg, sizeof msg, "agent %u at %s cannot reach %s: no walkable path (after widening the walls "
             "by routing.clearance)%s", r->id, place(sc, r->x, here, sizeof here),
             thr_route_name(sc, w, r->route, name, sizeof name), where);
    block_error(sc, b, err, errlen, msg);
    return -1;
  }
  thr_obstacle_view ov = thr_world_obstacle_view(w);
  thr_grid_view g = thr_world_grid_geometry(w);
  int cell = thr_local_cell(&g, r->x);
  for (int t = ov.cell_offset[cell]; t < ov.cell_offset[cell + 1]; ++t) {
    int o = ov.cell_items[t];
    float d;
    thr_vec2 n;
    if (!thr_obstacle_distance(&ov, o, r->x, r->x, &d, &n)) d = 0.0f;
    if (d >= r->radius) continue;
    snprintf(msg, sizeof msg, "agent %u at %s %s obstacle %d (line %d)", r->id, place(sc, r->x, here, sizeof here),
             d < 0.0f ? "lies inside" : "overlaps", o, sc->obs_line[o]);
    block_error(sc, b, err, errlen, msg);
    return -1;
  }
  return 0;
}

static void set_goal(const thr_scenario *sc, const thr_block *bk, thr_agent_rec *r) {
  thr_vec2 g = v2(0.0f, 0.0f);
  r->goal_set = THR_GOALSET_PERSONAL;
  switch (bk->goal_kind) {
    case THR_BGOAL_SET:
      r->goal_set = bk->goal_set;
      break;
    case THR_BGOAL_POINT:
      g = bk->goal_point;
      break;
    case THR_BGOAL_OFFSET:
      g = v2_add(r->x, bk->goal_point);
      break;
    case THR_BGOAL_ANTIPODAL:
      g = v2(2.0f * bk->goal_point.x - r->x.x, 2.0f * bk->goal_point.y - r->x.y);
      break;
    default:
      r->goal_set = THR_GOALSET_NONE;
      break;
  }
  if (r->goal_set == THR_GOALSET_PERSONAL) {
    g.x += draw_jitter(sc->seed, r->id, STREAM_GOAL_X, bk->goal_jitter);
    g.y += draw_jitter(sc->seed, r->id, STREAM_GOAL_Y, bk->goal_jitter);
  }
  r->goal = g;
}

void thr_populate_agent(const thr_scenario *sc, const thr_world *w, int block, uint32_t id, thr_vec2 x,
                        float born, thr_agent_rec *r) {
  const thr_block *bk = &sc->blocks[block];
  thr_agent_rec_blank(r);
  r->id = id;
  r->radius = draw_radius(sc, bk, id);
  r->inv_mass = 1.0f / draw_range(sc->seed, id, STREAM_MASS, bk->mass_min, bk->mass_max);
  r->pref_speed = draw_speed(sc, bk, id);
  r->x = r->p = x;
  r->z = r->pz = draw_range(sc->seed, id, STREAM_ALTITUDE, bk->altitude_min, bk->altitude_max);
  r->goal_z = sc->prm.dim3 ? bk->goal_altitude : 0.0f; /* NaN: its own altitude */
  r->group = bk->group;
  r->bstate = bk->bstate;
  r->laps = bk->laps;
  r->agility = bk->agility; /* 1 (the blank) unless formations store it */
  /* -1 (the blank): the formations' setting; at most the grid's extent, as
   * the ghost width (thr_world_init), which also keeps the ring loops from
   * overflowing */
  int most = w->gnx > w->gny ? w->gnx : w->gny;
  r->frings = bk->fm_rings < most ? bk->fm_rings : most;
  r->fdelay = bk->fm_delay;
  r->born = born;
  r->release = born + draw_dist(sc->seed, id, STREAM_PREMOVE, &bk->premove, 0.0f);
  set_goal(sc, bk, r);
  set_route(w, sc, bk, r);
}

/* Overlapping agents k and o of a block: the message, with what to change. */
static int overlap_error(const thr_scenario *sc, int b, uint32_t first_id, const lattice *l, const float *radius,
                         long k, long o, char *err, size_t errlen) {
  const thr_block *bk = &sc->blocks[b];
  char msg[768], hint[192];
  double d = hypot(l->x[k] - l->x[o], l->y[k] - l->y[o]);
  if (bk->layout == THR_LAYOUT_POINTS)
    snprintf(hint, sizeof hint, "points %ld and %ld of the block (counting from 0) are too close; move them apart, "
             "raise scale or lower agent_radius", o, k);
  else
    snprintf(hint, sizeof hint, "raise spacing or lower agent_radius");
  snprintf(msg, sizeof msg,
           "agent %u at (%g, %g) overlaps agent %u at (%g, %g): %.4g m apart, closer than their contact distance "
           "%.4g m ((%g + %g) x model.radius_scale %g); %s",
           first_id + (uint32_t)k, l->x[k], l->y[k], first_id + (uint32_t)o, l->x[o], l->y[o], d,
           ((double)radius[k] + radius[o]) * sc->prm.radius_scale, (double)radius[k], (double)radius[o],
           (double)sc->prm.radius_scale, hint);
  block_error(sc, b, err, errlen, msg);
  return -1;
}

/* No two of a block's given positions (layout points, a region's lattice)
 * may overlap: closer than their contact distance (r_i + r_j) x
 * model.radius_scale, as the random layouts keep them (before jitter).
 * Cells at least one contact distance wide hold the points seen so far; a
 * point meets only those of its own and the 8 cells around. */
static int check_overlaps(const thr_scenario *sc, int b, uint32_t first_id, const lattice *l, char *err,
                          size_t errlen) {
  long n = (long)l->n;
  if (n < 2) return 0;
  float *radius = malloc((size_t)n * sizeof *radius);
  long *next = malloc((size_t)n * sizeof *next), *head = NULL;
  double rmax = 0.0, x0 = l->x[0], y0 = l->y[0], x1 = x0, y1 = y0;
  for (long k = 0; radius && k < n; ++k) {
    radius[k] = draw_radius(sc, &sc->blocks[b], first_id + (uint32_t)k);
    rmax = fmax(rmax, radius[k]);
    x0 = fmin(x0, l->x[k]), x1 = fmax(x1, l->x[k]), y0 = fmin(y0, l->y[k]), y1 = fmax(y1, l->y[k]);
  }
  double cs = fmax(2.0 * rmax * sc->prm.radius_scale, 1e-9);
  /* wider cells for a sparse set: a few cells per point, not per square metre */
  while ((floor((x1 - x0) / cs) + 1.0) * (floor((y1 - y0) / cs) + 1.0) > 2.0 * (double)n + 16.0) cs *= 2.0;
  long ncx = (long)floor((x1 - x0) / cs) + 1, ncy = (long)floor((y1 - y0) / cs) + 1;
  if (radius && next) head = malloc((size_t)(ncx * ncy) * sizeof *head);
  int rc = head ? 0 : out_of_memory(sc, b, (size_t)n, err, errlen);
  for (long c = 0; !rc && c < ncx * ncy; ++c) head[c] = -1;
  for (long k = 0; k < n && !rc; ++k) {
    long cx = (long)floor((l->x[k] - x0) / cs), cy = (long)floor((l->y[k] - y0) / cs);
    for (long yy = cy - 1; yy <= cy + 1 && !rc; ++yy)
      for (long xx = cx - 1; xx <= cx + 1 && !rc; ++xx) {
        if (xx < 0 || yy < 0 || xx >= ncx || yy >= ncy) continue;
        for (long o = head[yy * ncx + xx]; o >= 0 && !rc; o = next[o]) {
          double dx = l->x[k] - l->x[o], dy = l->y[k] - l->y[o];
          double md = ((double)radius[k] + radius[o]) * sc->prm.radius_scale;
          if (dx * dx + dy * dy < md * md) rc = overlap_error(sc, b, first_id, l, radius, k, o, err, errlen);
        }
      }
    next[k] = head[cy * ncx + cx];
    head[cy * ncx + cx] = k;
  }
  free(radius);
  free(next);
  free(head);
  return rc;
}

/* The positions of block b (first id next_id). */
static int block_positions(const thr_scenario *sc, int b, uint32_t next_id, lattice *l, char *err, size_t errlen) {
  const thr_block *bk = &sc->blocks[b];
  if (bk->layout == THR_LAYOUT_POINTS || is_region_lattice(bk)) {
    if (block_points(sc, b, l, err, errlen)) return -1;
    if (!check_overlaps(sc, b, next_id, l, err, errlen)) return 0;
    lattice_free(l);
    return -1;
  }
  if (bk->layout != THR_LAYOUT_RANDOM && bk->layout != THR_LAYOUT_POLYGON) return block_points(sc, b, l, err, errlen);
  double positions;
  long n = block_count(sc, b, &positions, err, errlen);
  if (n < 0) return -1;
  float *radius = malloc((size_t)(n ? n : 1) * sizeof(float));
  if (!radius) return out_of_memory(sc, b, (size_t)n, err, errlen);
  for (long k = 0; k < n; ++k) radius[k] = draw_radius(sc, bk, next_id + (uint32_t)k);
  int rc = random_points(sc, b, n, next_id, radius, l, err, errlen);
  free(radius);
  return rc;
}

int thr_populate(const thr_scenario *sc, const thr_world *w, const thr_params *prm,
                 int (*keep)(uint32_t id, thr_vec2 x, void *user), void *user, thr_agents *out, char *err,
                 size_t errlen) {
  (void)prm;
  uint32_t next_id = 0;
  for (int b = 0; b < sc->n_blocks; ++b) {
    const thr_block *bk = &sc->blocks[b];
    if (bk->source) continue; /* a source's agents come later (core/evac.c) */
    lattice l = {0};
    if (block_positions(sc, b, next_id, &l, err, errlen)) return -1;
    for (size_t k = 0; k < l.n; ++k) {
      thr_agent_rec r;
      uint32_t id = next_id++;
      thr_vec2 x = v2((float)l.x[k] + draw_jitter(sc->seed, id, STREAM_JITTER_X, bk->jitter),
                      (float)l.y[k] + draw_jitter(sc->seed, id, STREAM_JITTER_Y, bk->jitter));
      thr_populate_agent(sc, w, b, id, x, 0.0f, &r);
      if (check_agent(sc, w, b, &r, err, errlen)) {
        lattice_free(&l);
        return -1;
      }
      if (keep && !keep(r.id, r.x, user)) continue;
      if (thr_agents_push(out, &r)) {
        snprintf(err, errlen, "out of memory creating agent %u", r.id);
        lattice_free(&l);
        return -1;
      }
    }
    lattice_free(&l);
  }
  out->n_owned = out->n;
  return 0;
}
