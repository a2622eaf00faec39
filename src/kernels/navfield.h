/* Sampling a distance field (travel distance to a target, computed on the
 * host by behavior/navfield.c), shared by the CPU backend and the CUDA
 * kernels: the value at a position and the direction of steepest descent.
 * Plain float arithmetic only (+, -, *, /, sqrtf, floorf), so both backends
 * get the same bits for the same inputs. docs/routing.md has the model. */
#ifndef THRONG_KERNELS_NAVFIELD_H
#define THRONG_KERNELS_NAVFIELD_H

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
THR_HD int thr_navfield_direction(const thr_navfield_view *v, thr_vec2 x, thr_vec2 *dir) {
  thr_navfield_quad q;
  if (thr_navfield_quad_at(v, x, &q) && thr_navfield_quad_finite(&q) && thr_navfield_descent_bilinear(&q, dir))
    return 1;
  return thr_navfield_descent_cells(v, x, dir);
}

#endif
