/* Geometric predicates for checking input shapes (geometry.h). */
#include "geometry.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "polygon.h"

/* ---- points and segments -------------------------------------------------- */

/* Twice the signed area of triangle abc: > 0 when c lies left of ab. */
static double orient(thr_vec2 a, thr_vec2 b, thr_vec2 c) {
  return ((double)b.x - a.x) * ((double)c.y - a.y) - ((double)b.y - a.y) * ((double)c.x - a.x);
}

static int sign(double x) {
  return (x > 0.0) - (x < 0.0);
}

static int same_point(thr_vec2 a, thr_vec2 b) {
  return a.x == b.x && a.y == b.y;
}

/* The smaller and the larger of two coordinates (plain comparisons: fminf
 * and fmaxf are library calls in hot loops). */
static float lesser(float a, float b) {
  return a < b ? a : b;
}

static float greater(float a, float b) {
  return a < b ? b : a;
}

/* Whether p lies in the bounding box of ab (for p on the line of ab: on ab). */
static int in_box(thr_vec2 a, thr_vec2 b, thr_vec2 p) {
  return lesser(a.x, b.x) <= p.x && p.x <= greater(a.x, b.x) && lesser(a.y, b.y) <= p.y && p.y <= greater(a.y, b.y);
}

static int on_segment(thr_vec2 a, thr_vec2 b, thr_vec2 p) {
  return orient(a, b, p) == 0.0 && in_box(a, b, p);
}

/* A segment of zero length against ab: a point on it or nothing. */
static int point_meets(thr_vec2 p, thr_vec2 a, thr_vec2 b, thr_vec2 *at) {
  if (!on_segment(a, b, p)) return THR_SEG_APART;
  *at = p;
  return THR_SEG_TOUCH;
}

/* Segments on one line: the common stretch along the line's main axis. */
static int collinear_meet(thr_vec2 a, thr_vec2 b, thr_vec2 c, thr_vec2 d, thr_vec2 *at) {
  int along_x = fabsf(b.x - a.x) + fabsf(d.x - c.x) >= fabsf(b.y - a.y) + fabsf(d.y - c.y);
  float ka = along_x ? a.x : a.y, kb = along_x ? b.x : b.y, kc = along_x ? c.x : c.y, kd = along_x ? d.x : d.y;
  float lo = fmaxf(fminf(ka, kb), fminf(kc, kd)), hi = fminf(fmaxf(ka, kb), fmaxf(kc, kd));
  if (lo > hi) return THR_SEG_APART;
  const thr_vec2 ends[4] = {a, b, c, d};
  for (int k = 0; k < 4; ++k)
    if (in_box(a, b, ends[k]) && in_box(c, d, ends[k])) {
      *at = ends[k];
      break;
    }
  return lo == hi ? THR_SEG_TOUCH : THR_SEG_OVERLAP;
}

int thr_segments_meet(thr_vec2 a, thr_vec2 b, thr_vec2 c, thr_vec2 d, thr_vec2 *at) {
  thr_vec2 scratch;
  if (!at) at = &scratch;
  if (same_point(a, b)) return point_meets(a, c, d, at);
  if (same_point(c, d)) return point_meets(c, a, b, at);
  double oa = orient(c, d, a), ob = orient(c, d, b), oc = orient(a, b, c), od = orient(a, b, d);
  int sa = sign(oa), sb = sign(ob), sc = sign(oc), sd = sign(od);
  if ((!sa && !sb) || (!sc && !sd)) return collinear_meet(a, b, c, d, at);
  if (sa * sb < 0 && sc * sd < 0) {
    double t = oa / (oa - ob);
    *at = v2((float)(a.x + t * ((double)b.x - a.x)), (float)(a.y + t * ((double)b.y - a.y)));
    return THR_SEG_CROSS;
  }
  const thr_vec2 ends[4] = {a, b, c, d};
  const int on[4] = {!sa && in_box(c, d, a), !sb && in_box(c, d, b), !sc && in_box(a, b, c), !sd && in_box(a, b, d)};
  for (int k = 0; k < 4; ++k)
    if (on[k]) {
      *at = ends[k];
      return THR_SEG_TOUCH;
    }
  return THR_SEG_APART;
}

double thr_point_segment_distance(thr_vec2 p, thr_vec2 a, thr_vec2 b) {
  double ux = (double)b.x - a.x, uy = (double)b.y - a.y, px = (double)p.x - a.x, py = (double)p.y - a.y;
  double len2 = ux * ux + uy * uy;
  double t = len2 > 0.0 ? (px * ux + py * uy) / len2 : 0.0;
  t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
  return hypot(px - t * ux, py - t * uy);
}

/* ---- rings and polygons --------------------------------------------------- */

double thr_ring_area(const thr_vec2 *v, int n) {
  double twice = 0.0;
  for (int a = n - 1, b = 0; b < n; a = b++) twice += (double)v[a].x * v[b].y - (double)v[b].x * v[a].y;
  return 0.5 * twice;
}

/* Whether p lies outside the box of ab grown by somewhat more than tol:
 * then farther than tol from ab, also as thr_point_segment_distance
 * computes it (its rounding is far below the added 10^-9 of the size).
 * A quick test first: an area's edges are many, most of them far. */
static double box_margin(thr_vec2 p, double tol) {
  return tol * (1.0 + 1e-9) + 1e-9 * (1.0 + fabs((double)p.x) + fabs((double)p.y));
}

static int far_from_box(thr_vec2 a, thr_vec2 b, thr_vec2 p, double margin) {
  return p.x < lesser(a.x, b.x) - margin || p.x > greater(a.x, b.x) + margin || p.y < lesser(a.y, b.y) - margin ||
         p.y > greater(a.y, b.y) + margin;
}

/* Whether p lies within tol of edge ab (margin: box_margin(p, tol)). */
static int within_tol(thr_vec2 a, thr_vec2 b, thr_vec2 p, double tol, double margin) {
  return !far_from_box(a, b, p, margin) && thr_point_segment_distance(p, a, b) <= tol;
}

/* Whether p lies on edge ab: exactly for tol 0, else within tol. */
static int on_edge(thr_vec2 a, thr_vec2 b, thr_vec2 p, double tol, double margin) {
  return tol > 0.0 ? within_tol(a, b, p, tol, margin) : in_box(a, b, p) && orient(a, b, p) == 0.0;
}

/* Whether the boxes of segments ab and cd are apart (then the segments are). */
static int boxes_apart(thr_vec2 a, thr_vec2 b, thr_vec2 c, thr_vec2 d) {
  return greater(a.x, b.x) < lesser(c.x, d.x) || greater(c.x, d.x) < lesser(a.x, b.x) ||
         greater(a.y, b.y) < lesser(c.y, d.y) || greater(c.y, d.y) < lesser(a.y, b.y);
}

int thr_ring_locate(const thr_vec2 *v, int n, thr_vec2 p, double tol) {
  int inside = 0;
  double margin = box_margin(p, tol);
  for (int i = n - 1, j = 0; j < n; i = j++) {
    thr_vec2 a = v[i], b = v[j];
    if (on_edge(a, b, p, tol, margin)) return THR_ON_BOUNDARY;
    /* crossing number with half-open edges; the sign of the orientation
     * tells the side exactly */
    if (a.y <= p.y && p.y < b.y && orient(a, b, p) > 0.0) inside = !inside;
    if (b.y <= p.y && p.y < a.y && orient(a, b, p) < 0.0) inside = !inside;
  }
  return inside ? THR_INSIDE : THR_OUTSIDE;
}

int thr_polygon_locate(const thr_polyset *s, int poly, thr_vec2 p, double tol) {
  int outer = s->poly_first[poly];
  int where = thr_ring_locate(thr_ring_verts(s, outer), thr_ring_len(s, outer), p, tol);
  for (int r = outer + 1; r < s->poly_first[poly + 1] && where == THR_INSIDE; ++r) {
    int in_hole = thr_ring_locate(thr_ring_verts(s, r), thr_ring_len(s, r), p, tol);
    if (in_hole != THR_OUTSIDE) where = in_hole == THR_INSIDE ? THR_OUTSIDE : THR_ON_BOUNDARY;
  }
  return where;
}

int thr_polyset_locate(const thr_polyset *s, thr_vec2 p, double tol) {
  int where = THR_OUTSIDE;
  for (int q = 0; q < s->n_polys && where != THR_INSIDE; ++q) {
    int w = thr_polygon_locate(s, q, p, tol);
    if (w != THR_OUTSIDE) where = w;
  }
  return where;
}

int thr_ring_is_outer(const thr_polyset *s, int r) {
  /* poly_first ascends: bisect (polygon sets of many polygons ask for every ring) */
  int lo = 0, hi = s->n_polys;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (s->poly_first[mid] < r)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < s->n_polys && s->poly_first[lo] == r;
}

double thr_polyset_area(const thr_polyset *s) {
  double area = 0.0;
  for (int r = 0; r < s->n_rings; ++r)
    area += (thr_ring_is_outer(s, r) ? 1.0 : -1.0) * fabs(thr_ring_area(thr_ring_verts(s, r), thr_ring_len(s, r)));
  return area;
}

/* Point k of a ring's sample: vertex k/2 for even k, the middle of edge
 * k/2 for odd k (2n points). Vertices and edge middles together tell on
 * which side of another ring a ring lies once their edges do not cross. */
static thr_vec2 ring_sample(const thr_vec2 *v, int n, int k) {
  thr_vec2 a = v[k / 2], b = v[(k / 2 + 1) % n];
  if (k % 2 == 0) return a;
  return v2((float)(0.5 * ((double)a.x + b.x)), (float)(0.5 * ((double)a.y + b.y)));
}

static int report(thr_shape_report *r, int fault, int ring, int edge, int other, int other_edge, thr_vec2 at) {
  thr_shape_report x = {fault, ring, edge, other, other_edge, at};
  *r = x;
  return fault;
}

/* Two edges of a ring that meet where they should not: among adjacent
 * edges (which share a vertex) one that runs back over the other; among
 * the others any common point (touching at a vertex is a self-intersection). */
static int edges_meet(const thr_polyset *s, int ring, int adjacent, thr_shape_report *r) {
  const thr_vec2 *v = thr_ring_verts(s, ring);
  int n = thr_ring_len(s, ring);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      if ((j == i + 1 || (i == 0 && j == n - 1)) != adjacent) continue;
      thr_vec2 at;
      int meet = thr_segments_meet(v[i], v[(i + 1) % n], v[j], v[(j + 1) % n], &at);
      if (adjacent ? meet == THR_SEG_OVERLAP : meet != THR_SEG_APART)
        return report(r, THR_SHAPE_SELF_MEET, ring, i, ring, j, at);
    }
  return THR_SHAPE_OK;
}

/* Enough vertices, no crossing (a bow tie reads as crossing rather than as
 * its zero area), an area, no spike. */
static int check_ring(const thr_polyset *s, int ring, thr_shape_report *r) {
  const thr_vec2 *v = thr_ring_verts(s, ring);
  int n = thr_ring_len(s, ring);
  if (n < 3) return report(r, THR_SHAPE_FEW_VERTICES, ring, -1, -1, -1, n ? v[0] : v2(0, 0));
  int fault = edges_meet(s, ring, 0, r);
  if (fault) return fault;
  if (thr_ring_area(v, n) == 0.0) return report(r, THR_SHAPE_ZERO_AREA, ring, -1, -1, -1, v[0]);
  return edges_meet(s, ring, 1, r);
}

int thr_ring_check_pairwise(const thr_polyset *s, int ring, thr_shape_report *r) {
  return check_ring(s, ring, r);
}

/* The first edges of two rings that cross or share a stretch (touching at
 * a point is allowed): `fault`, or OK. */
static int rings_cross(const thr_polyset *s, int ra, int rb, int fault, thr_shape_report *r) {
  const thr_vec2 *a = thr_ring_verts(s, ra), *b = thr_ring_verts(s, rb);
  int na = thr_ring_len(s, ra), nb = thr_ring_len(s, rb);
  for (int i = 0; i < na; ++i)
    for (int j = 0; j < nb; ++j) {
      thr_vec2 at;
      int meet = thr_segments_meet(a[i], a[(i + 1) % na], b[j], b[(j + 1) % nb], &at);
      if (meet == THR_SEG_CROSS || meet == THR_SEG_OVERLAP) return report(r, fault, ra, i, rb, j, at);
    }
  return THR_SHAPE_OK;
}

/* A sample point of ring ra that lies `where` relative to ring rb: `fault`, or OK. */
static int ring_point_in_ring(const thr_polyset *s, int ra, int rb, int where, int fault, thr_shape_report *r) {
  const thr_vec2 *a = thr_ring_verts(s, ra);
  int na = thr_ring_len(s, ra);
  for (int k = 0; k < 2 * na; ++k) {
    thr_vec2 p = ring_sample(a, na, k);
    if (thr_ring_locate(thr_ring_verts(s, rb), thr_ring_len(s, rb), p, 0.0) == where)
      return report(r, fault, ra, k / 2, rb, -1, p);
  }
  return THR_SHAPE_OK;
}

static int check_hole(const thr_polyset *s, int outer, int hole, thr_shape_report *r) {
  int fault = rings_cross(s, hole, outer, THR_SHAPE_HOLE_CROSSES, r);
  return fault ? fault : ring_point_in_ring(s, hole, outer, THR_OUTSIDE, THR_SHAPE_HOLE_OUTSIDE, r);
}

static int check_hole_pair(const thr_polyset *s, int ha, int hb, thr_shape_report *r) {
  int fault = rings_cross(s, ha, hb, THR_SHAPE_HOLES_OVERLAP, r);
  if (!fault) fault = ring_point_in_ring(s, ha, hb, THR_INSIDE, THR_SHAPE_HOLES_OVERLAP, r);
  if (!fault) fault = ring_point_in_ring(s, hb, ha, THR_INSIDE, THR_SHAPE_HOLES_OVERLAP, r);
  return fault;
}

/* Rings, then holes against their outer ring and each other, in the order
 * whose first fault is the one reported. */
static int polygon_check_pairwise(const thr_polyset *s, int poly, thr_shape_report *r) {
  int first = s->poly_first[poly], end = s->poly_first[poly + 1];
  for (int ring = first; ring < end; ++ring) {
    int fault = check_ring(s, ring, r);
    if (fault) return fault;
  }
  for (int h = first + 1; h < end; ++h) {
    int fault = check_hole(s, first, h, r);
    for (int g = first + 1; g < h && !fault; ++g) fault = check_hole_pair(s, h, g, r);
    if (fault) return fault;
  }
  return THR_SHAPE_OK;
}

/* A sample point of polygon pa's outer ring strictly inside polygon pb. */
static int polygon_point_in_polygon(const thr_polyset *s, int pa, int pb, thr_shape_report *r) {
  int ra = s->poly_first[pa];
  const thr_vec2 *a = thr_ring_verts(s, ra);
  int na = thr_ring_len(s, ra);
  for (int k = 0; k < 2 * na; ++k) {
    thr_vec2 p = ring_sample(a, na, k);
    if (thr_polygon_locate(s, pb, p, 0.0) == THR_INSIDE)
      return report(r, THR_SHAPE_POLYS_OVERLAP, ra, k / 2, s->poly_first[pb], -1, p);
  }
  return THR_SHAPE_OK;
}

static int check_polygon_pair(const thr_polyset *s, int pa, int pb, thr_shape_report *r) {
  for (int ra = s->poly_first[pa]; ra < s->poly_first[pa + 1]; ++ra)
    for (int rb = s->poly_first[pb]; rb < s->poly_first[pb + 1]; ++rb) {
      int fault = rings_cross(s, ra, rb, THR_SHAPE_POLYS_OVERLAP, r);
      if (fault) return fault;
    }
  int fault = polygon_point_in_polygon(s, pa, pb, r);
  return fault ? fault : polygon_point_in_polygon(s, pb, pa, r);
}

int thr_polyset_check_pairwise(const thr_polyset *s, int first, int end, thr_shape_report *r) {
  for (int q = first; q < end; ++q) {
    int fault = polygon_check_pairwise(s, q, r);
    for (int p = first; p < q && !fault; ++p) fault = check_polygon_pair(s, q, p, r);
    if (fault) return fault;
  }
  return THR_SHAPE_OK;
}

/* ---- shapes inside an area ------------------------------------------------ */

static double distance(thr_vec2 a, thr_vec2 b) {
  return hypot((double)a.x - b.x, (double)a.y - b.y);
}

/* An edge of the ring that crosses the area's boundary away from its own
 * ends (a ring whose vertex sits on the boundary may cross it there). */
static int crosses_boundary(const thr_vec2 *v, int n, const thr_polyset *area, double tol, thr_vec2 *at) {
  for (int i = 0; i < n; ++i) {
    thr_vec2 a = v[i], b = v[(i + 1) % n];
    for (int r = 0; r < area->n_rings; ++r) {
      const thr_vec2 *w = thr_ring_verts(area, r);
      int m = thr_ring_len(area, r);
      for (int j = 0; j < m; ++j) {
        thr_vec2 x, c = w[j], d = w[j + 1 < m ? j + 1 : 0];
        if (boxes_apart(a, b, c, d) || thr_segments_meet(a, b, c, d, &x) != THR_SEG_CROSS) continue;
        if (distance(x, a) > tol && distance(x, b) > tol) {
          *at = x;
          return 1;
        }
      }
    }
  }
  return 0;
}

int thr_ring_within(const thr_vec2 *v, int n, const thr_polyset *area, double tol, thr_vec2 *outside) {
  for (int k = 0; k < 2 * n; ++k) {
    thr_vec2 p = ring_sample(v, n, k);
    if (thr_polyset_locate(area, p, tol) == THR_OUTSIDE) return *outside = p, 0;
  }
  if (crosses_boundary(v, n, area, tol, outside)) return 0;
  /* a boundary vertex inside the ring: the ring holds a hole or more (none
   * outside the ring's box is inside it: no edge crosses its row, or all
   * do, an even number) */
  float x0 = v[0].x, x1 = v[0].x, y0 = v[0].y, y1 = v[0].y;
  for (int k = 1; k < n; ++k)
    x0 = lesser(x0, v[k].x), x1 = greater(x1, v[k].x), y0 = lesser(y0, v[k].y), y1 = greater(y1, v[k].y);
  for (int k = 0; k < area->n_verts; ++k) {
    thr_vec2 p = area->verts[k];
    if (p.x < x0 || p.x > x1 || p.y < y0 || p.y > y1) continue;
    if (thr_ring_locate(v, n, p, tol) == THR_INSIDE) return *outside = p, 0;
  }
  return 1;
}

int thr_boundary_edge_under(const thr_polyset *s, thr_vec2 a, thr_vec2 b, double tol, int *ring, int *edge) {
  double ma = box_margin(a, tol), mb = box_margin(b, tol);
  for (int r = 0; r < s->n_rings; ++r) {
    const thr_vec2 *w = thr_ring_verts(s, r);
    int m = thr_ring_len(s, r);
    for (int j = 0; j < m; ++j)
      if (within_tol(w[j], w[(j + 1) % m], a, tol, ma) && within_tol(w[j], w[(j + 1) % m], b, tol, mb)) {
        *ring = r, *edge = j;
        return 0;
      }
  }
  return -1;
}

/* p projected onto the line through o with unit direction (ux, uy). */
static thr_vec2 project(thr_vec2 p, thr_vec2 o, double ux, double uy) {
  double t = ((double)p.x - o.x) * ux + ((double)p.y - o.y) * uy;
  return v2((float)(o.x + t * ux), (float)(o.y + t * uy));
}

void thr_exit_strip(const thr_polyset *s, int ring, int edge, thr_vec2 a, thr_vec2 b, float depth, thr_vec2 quad[4]) {
  const thr_vec2 *w = thr_ring_verts(s, ring);
  int m = thr_ring_len(s, ring);
  thr_vec2 p = w[edge], q = w[(edge + 1) % m];
  double len = hypot((double)q.x - p.x, (double)q.y - p.y);
  double ux = ((double)q.x - p.x) / len, uy = ((double)q.y - p.y) / len;
  /* the area lies left of a counter-clockwise outer ring's edges and right
   * of a counter-clockwise hole's */
  int left = (thr_ring_area(w, m) > 0.0) == thr_ring_is_outer(s, ring);
  double nx = left ? -uy : uy, ny = left ? ux : -ux;
  quad[0] = project(a, p, ux, uy);
  quad[1] = project(b, p, ux, uy);
  quad[2] = v2((float)(quad[1].x + depth * nx), (float)(quad[1].y + depth * ny));
  quad[3] = v2((float)(quad[0].x + depth * nx), (float)(quad[0].y + depth * ny));
}

/* ---- row crossings ---------------------------------------------------------------- */

static int by_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

float *thr_row_crossings(const thr_vec2 *verts, const int *ring_first, int r0, int r1, double oy, double h, int k0,
                         int k1, int **first_out) {
  int rows = k1 - k0 + 1;
  int *first = calloc((size_t)rows + 1, sizeof *first), *at = malloc((size_t)rows * sizeof *at);
  float *xs = NULL;
  for (int pass = 0; first && at && pass < 2; ++pass) { /* count, then place */
    for (int r = r0; r < r1; ++r) {
      const thr_vec2 *v = verts + ring_first[r];
      int nv = ring_first[r + 1] - ring_first[r];
      for (int a = 0, b = nv - 1; a < nv; b = a++) {
        double lo = floor((fmin(v[a].y, v[b].y) - oy) / h) - 1.0, hi = floor((fmax(v[a].y, v[b].y) - oy) / h) + 1.0;
        int ka = lo > k0 ? (int)lo : k0, kb = hi < k1 ? (int)hi : k1;
        for (int k = ka; k <= kb; ++k) {
          float xc;
          if (!thr_edge_crosses_row(v[a], v[b], (float)(oy + (k + 0.5) * h), &xc)) continue;
          if (pass == 0)
            first[k - k0 + 1]++;
          else
            xs[at[k - k0]++] = xc;
        }
      }
    }
    if (pass == 0) {
      for (int k = 0; k < rows; ++k) first[k + 1] += first[k];
      xs = malloc(sizeof *xs * (size_t)(first[rows] ? first[rows] : 1));
      if (!xs) break;
      memcpy(at, first, (size_t)rows * sizeof *at);
    }
  }
  free(at);
  if (!xs) {
    free(first);
    return NULL;
  }
  for (int k = 0; k < rows; ++k) qsort(xs + first[k], (size_t)(first[k + 1] - first[k]), sizeof *xs, by_float);
  *first_out = first;
  return xs;
}
