/* Sampling a distance field (travel distance to a target, computed on the
 * host by behavior/navfield.c), shared by the CPU backend and the CUDA
 * kernels: the value at a position and the direction of steepest descent.
 * Plain float arithmetic only (+, -, *, /, sqrtf, floorf), so both backends
 * get the same bits for the same inputs. docs/routing.md has the model. */
#ifndef THRONG_KERNELS_FIELD_SAMPLE_H
#define THRONG_KERNELS_FIELD_SAMPLE_H

#include <math.h>
#include "base/grid.h"
#include "base/hostdevice.h"
#include "base/vec2.h"

/* One field: nx x ny square cells of side h, the lower-left corner of cell
 * (0, 0) at (ox, oy); the nodes are the cell centres, node (i, j) at
 * (ox + (i + 0.5) h, oy + (j + 0.5) h), its value dist[j * nx + i]
 * (+INFINITY where the target cannot be reached). */
typedef struct thr_navfield_view {
  float ox, oy, h;
  int nx, ny;
  const float *dist;
} thr_navfield_view;

THR_HD int thr_navfield_finite(float t) { return t < HUGE_VALF; }

THR_HD float thr_navfield_node(const thr_navfield_view *v, int i, int j) { return v->dist[j * v->nx + i]; }

/* Position p along one axis in node units (node k at k), split into the
 * lower node *k of the interval holding it and the fraction *f in [0, 1).
 * Outside [0, n - 1] (and for NaN) clamps to the nearest end and returns 0;
 * returns 1 when p lies inside. */
THR_HD int thr_navfield_axis(float p, float o, float h, int n, int *k, float *f) {
  float u = (p - o) / h - 0.5f;
  if (!(u >= 0.0f)) {
    *k = 0;
    *f = 0.0f;
    return 0;
  }
  if (!(u < (float)(n - 1))) {
    *k = n > 1 ? n - 2 : 0;
    *f = n > 1 ? 1.0f : 0.0f;
    return 0;
  }
  float fl = floorf(u);
  *k = (int)fl;
  *f = u - fl;
  return 1;
}

/* The four nodes around x (clamped to the grid) and x's fractions between
 * them. Returns 1 when x lies inside the node range (no clamping). */
typedef struct thr_navfield_quad {
  float t00, t10, t01, t11; /* values at (i, j), (i+1, j), (i, j+1), (i+1, j+1) */
  float fx, fy;
} thr_navfield_quad;

THR_HD int thr_navfield_quad_at(const thr_navfield_view *v, thr_vec2 x, thr_navfield_quad *q) {
  int i, j;
  int in_x = thr_navfield_axis(x.x, v->ox, v->h, v->nx, &i, &q->fx);
  int in_y = thr_navfield_axis(x.y, v->oy, v->h, v->ny, &j, &q->fy);
  int i1 = v->nx > 1 ? i + 1 : i, j1 = v->ny > 1 ? j + 1 : j;
  q->t00 = thr_navfield_node(v, i, j);
  q->t10 = thr_navfield_node(v, i1, j);
  q->t01 = thr_navfield_node(v, i, j1);
  q->t11 = thr_navfield_node(v, i1, j1);
  return in_x && in_y;
}

THR_HD int thr_navfield_quad_finite(const thr_navfield_quad *q) {
  return thr_navfield_finite(q->t00) && thr_navfield_finite(q->t10) && thr_navfield_finite(q->t01) &&
         thr_navfield_finite(q->t11);
}

/* The bilinear interpolant of the four nodes around x (positions outside
 * the node range take the nearest edge's values); +INFINITY when one of the
 * four is not finite. */
THR_HD float thr_navfield_value(const thr_navfield_view *v, thr_vec2 x) {
  thr_navfield_quad q;
  thr_navfield_quad_at(v, x, &q);
  if (!thr_navfield_quad_finite(&q)) return HUGE_VALF;
  float lo = (1.0f - q.fx) * q.t00 + q.fx * q.t10;
  float hi = (1.0f - q.fx) * q.t01 + q.fx * q.t11;
  return (1.0f - q.fy) * lo + q.fy * hi;
}

/* The bilinear interpolant over the finite nodes of the four around x
 * (their weights scaled to sum to 1): finite beside a wall, where
 * thr_navfield_value is +INFINITY; +INFINITY only where all four are. */
THR_HD float thr_navfield_value_near(const thr_navfield_view *v, thr_vec2 x) {
  thr_navfield_quad q;
  thr_navfield_quad_at(v, x, &q);
  float w00 = (1.0f - q.fx) * (1.0f - q.fy), w10 = q.fx * (1.0f - q.fy);
  float w01 = (1.0f - q.fx) * q.fy, w11 = q.fx * q.fy;
  float sw = 0.0f, sv = 0.0f;
  if (thr_navfield_finite(q.t00)) sw += w00, sv += w00 * q.t00;
  if (thr_navfield_finite(q.t10)) sw += w10, sv += w10 * q.t10;
  if (thr_navfield_finite(q.t01)) sw += w01, sv += w01 * q.t01;
  if (thr_navfield_finite(q.t11)) sw += w11, sv += w11 * q.t11;
  if (sw > 0.0f) return sv / sw;
  /* x sits on the far edge of a finite node: its weight is 0, the value is that node's */
  float m = q.t00 < q.t10 ? q.t00 : q.t10;
  m = m < q.t01 ? m : q.t01;
  return m < q.t11 ? m : q.t11;
}

/* (gx, gy) scaled to unit length into *dir; 0 when it is zero or not
 * finite (a position far out or not a number). Divided by its largest
 * component first, so that tiny gradients do not underflow. */
THR_HD int thr_navfield_unit(float gx, float gy, thr_vec2 *dir) {
  float ax = gx < 0.0f ? -gx : gx, ay = gy < 0.0f ? -gy : gy;
  float m = ax > ay ? ax : ay;
  if (!(m > 0.0f && m < HUGE_VALF) || ax != ax || ay != ay) return 0;
  gx /= m;
  gy /= m;
  float len = sqrtf(gx * gx + gy * gy);
  *dir = v2(gx / len, gy / len);
  return 1;
}

/* Descent inside a quad of four finite nodes: minus the gradient of the
 * bilinear interpolant (in node units: only the direction matters). */
THR_HD int thr_navfield_descent_bilinear(const thr_navfield_quad *q, thr_vec2 *dir) {
  float gx = (1.0f - q->fy) * (q->t10 - q->t00) + q->fy * (q->t11 - q->t01);
  float gy = (1.0f - q->fx) * (q->t01 - q->t00) + q->fx * (q->t11 - q->t10);
  return thr_navfield_unit(-gx, -gy, dir);
}

/* Descent where the interpolant is undefined (next to a wall, a hole, the
 * grid's edge): towards the centre of the cell of smallest finite value
 * among x's cell and its 8 neighbours (x's own cell first, then row by row:
 * the first of equal values wins). 0 when none is finite, or when x's own
 * cell holds the smallest value: the solver gives every reached cell but a
 * target a smaller neighbour, so that is a target cell. */
THR_HD int thr_navfield_descent_cells(const thr_navfield_view *v, thr_vec2 x, thr_vec2 *dir) {
  int ci = thr_cell_coord(x.x, v->ox, v->h, v->nx);
  int cj = thr_cell_coord(x.y, v->oy, v->h, v->ny);
  int bi = ci, bj = cj;
  float best = thr_navfield_node(v, ci, cj);
  for (int j = cj - 1; j <= cj + 1; ++j) {
    for (int i = ci - 1; i <= ci + 1; ++i) {
      if (i < 0 || j < 0 || i >= v->nx || j >= v->ny) continue;
      float t = thr_navfield_node(v, i, j);
      if (t < best) {
        best = t;
        bi = i;
        bj = j;
      }
    }
  }
  if (!thr_navfield_finite(best) || (bi == ci && bj == cj)) return 0;
  thr_vec2 c = v2(v->ox + ((float)bi + 0.5f) * v->h, v->oy + ((float)bj + 0.5f) * v->h);
  return thr_navfield_unit(c.x - x.x, c.y - x.y, dir);
}

/* The unit direction of steepest descent of the field at x into *dir:
 * minus the gradient of the bilinear interpolant where the four nodes
 * around x are finite (and the gradient is not zero), else the cell-wise
 * descent above. Returns 1, or 0 when there is no direction (an unreachable
 * place, or inside a target). */
/* The difference t(k+1) - t(k) along one axis next to a quad whose own
 * pair is cut by a wall: the pair just beyond the quad on the finite side
 * (nodes k-1, k or k+1, k+2 of the line through node `at`) when its descent
 * leads away from the wall, else 0 (along the wall: the field beyond a
 * wall's row pulls agents into the wall towards a corner's vertex). step: 1
 * along x, nx along y; lo/hi: whether k-1 / k+2 exist. */
THR_HD float thr_navfield_outer_diff(const float *t, int at, int step, int lo, int hi) {
  float a = t[at], b = t[at + step];
  /* the wall beyond node k+1 (b blocked): the pair below, kept only when it leads away from the wall */
  if (thr_navfield_finite(a) && lo && thr_navfield_finite(t[at - step])) {
    float d = a - t[at - step];
    return d > 0.0f ? d : 0.0f;
  }
  /* the wall at node k (a blocked): the pair above, likewise */
  if (thr_navfield_finite(b) && hi && thr_navfield_finite(t[at + 2 * step])) {
    float d = t[at + 2 * step] - b;
    return d < 0.0f ? d : 0.0f;
  }
  return 0.0f;
}

/* Walking along a wall (descent `way` along axis x (ax 1) or y (ay 1) of a
 * quad whose lower-left node is (i, j)), is the next node beyond the quad
 * on the wall's open line (`line`: its row for ax, its column for ay)
 * blocked, or off the grid? A second wall lies across the way: a corner. */
THR_HD int thr_navfield_wall_ahead(const thr_navfield_view *v, int i, int j, int ax, int ay, float way, int line) {
  if (way == 0.0f) return 0;
  if (ax) {
    int k = way > 0.0f ? i + 2 : i - 1;
    return k < 0 || k >= v->nx || !thr_navfield_finite(thr_navfield_node(v, k, line));
  }
  (void)ay;
  int k = way > 0.0f ? j + 2 : j - 1;
  return k < 0 || k >= v->ny || !thr_navfield_finite(thr_navfield_node(v, line, k));
}

/* Descent in a quad with blocked nodes (beside a wall): along each axis the
 * difference of the quad's finite pairs (weighted as in the bilinear
 * gradient, renormalised), 0 along an axis whose pairs a wall cuts: beside a
 * wall, along it (the field beyond the wall's row would pull agents into it
 * towards the next corner's vertex, and crowd a corridor's lanes into one).
 * In the corner of two walls (both axes cut, or the way along one wall runs
 * into the next), and in a slow band beside a wall (the field rises towards
 * it by more than a cell's free walk per cell), the pairs just beyond the
 * quad on the open sides: the way leads out of the corner or the band rather
 * than along the wall. */
THR_HD int thr_navfield_descent_partial(const thr_navfield_view *v, thr_vec2 x, const thr_navfield_quad *q,
                                        thr_vec2 *dir) {
  int f00 = thr_navfield_finite(q->t00), f10 = thr_navfield_finite(q->t10);
  int f01 = thr_navfield_finite(q->t01), f11 = thr_navfield_finite(q->t11);
  if (!f00 && !f10 && !f01 && !f11) return 0;
  float wx0 = (f00 && f10) ? 1.0f - q->fy : 0.0f, wx1 = (f01 && f11) ? q->fy : 0.0f;
  float wy0 = (f00 && f01) ? 1.0f - q->fx : 0.0f, wy1 = (f10 && f11) ? q->fx : 0.0f;
  int i, j;
  float fx, fy;
  thr_navfield_axis(x.x, v->ox, v->h, v->nx, &i, &fx);
  thr_navfield_axis(x.y, v->oy, v->h, v->ny, &j, &fy);
  float gx = 0.0f, gy = 0.0f;
  int hx = wx0 + wx1 > 0.0f, hy = wy0 + wy1 > 0.0f;
  if (hx)
    gx = ((wx0 > 0.0f ? wx0 * (q->t10 - q->t00) : 0.0f) + (wx1 > 0.0f ? wx1 * (q->t11 - q->t01) : 0.0f)) / (wx0 + wx1);
  if (hy)
    gy = ((wy0 > 0.0f ? wy0 * (q->t01 - q->t00) : 0.0f) + (wy1 > 0.0f ? wy1 * (q->t11 - q->t10) : 0.0f)) / (wy0 + wy1);
  /* the axis a wall cuts: taken from beyond the quad when a second wall lies
   * across the way ahead (a corner of two walls), or when the field there
   * rises towards the wall faster than walking explains (a slow band beside
   * the wall to leave); else 0 */
  if (!hx && v->nx > 1) {
    int row = (f00 || f10) ? j : j + 1;
    float d = thr_navfield_outer_diff(v->dist, row * v->nx + i, 1, i > 0, i + 2 < v->nx);
    if (!hy || (d < 0.0f ? -d : d) > v->h || thr_navfield_wall_ahead(v, i, j, 0, 1, -gy, f00 || f01 ? i : i + 1))
      gx = d;
  }
  if (!hy && v->ny > 1) {
    int col = (f00 || f01) ? i : i + 1;
    float d = thr_navfield_outer_diff(v->dist, j * v->nx + col, v->nx, j > 0, j + 2 < v->ny);
    if (!hx || (d < 0.0f ? -d : d) > v->h || thr_navfield_wall_ahead(v, i, j, 1, 0, -gx, f00 || f10 ? j : j + 1))
      gy = d;
  }
  return thr_navfield_unit(-gx, -gy, dir);
}

THR_HD int thr_navfield_direction(const thr_navfield_view *v, thr_vec2 x, thr_vec2 *dir) {
  thr_navfield_quad q;
  int inside = thr_navfield_quad_at(v, x, &q);
  if (inside && thr_navfield_quad_finite(&q) && thr_navfield_descent_bilinear(&q, dir))
    return 1;
  if (inside && thr_navfield_descent_partial(v, x, &q, dir)) return 1;
  return thr_navfield_descent_cells(v, x, dir);
}

#endif
