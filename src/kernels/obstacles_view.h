/* Static obstacles as kernels see them: polylines (walls) and closed
 * polygons, as vertex chains, with a per-cell list of the obstacles that
 * can touch an agent in that cell (built once on the host, world/). */
#ifndef THRONG_OBSTACLES_VIEW_H
#define THRONG_OBSTACLES_VIEW_H

#include "base/hostdevice.h"
#include "base/polygon.h"
#include "base/vec2.h"
#include "physics.h"

typedef struct thr_obstacle_view {
  int n;                  /* number of obstacles */
  const int *vfirst;      /* [n+1] vertex range of each obstacle */
  const int *closed;      /* [n] 1 for a polygon, 0 for an open polyline */
  const thr_vec2 *verts;  /* vertices */
  const int *cell_offset; /* [cells+1] over the local grid window */
  const int *cell_items;  /* obstacle ids, ascending within a cell */
} thr_obstacle_view;

/* Is p inside closed polygon o? */
THR_HD int thr_point_in_polygon(const thr_obstacle_view *ov, int o, thr_vec2 p) {
  return thr_polygon_contains(ov->verts + ov->vfirst[o], ov->vfirst[o + 1] - ov->vfirst[o], p);
}

/* Signed distance from p to obstacle o and the unit normal pointing to the
 * free side. q is the agent's position at the start of the step: an open
 * wall that the path q -> p crosses, or a polygon containing p, counts as
 * penetrated (negative distance, normal flipped). Returns 0 when undefined
 * (p exactly on the obstacle and q too). */
THR_HD int thr_obstacle_distance(const thr_obstacle_view *ov, int o, thr_vec2 p, thr_vec2 q,
                                 float *dist, thr_vec2 *n) {
  int v0 = ov->vfirst[o], v1 = ov->vfirst[o + 1];
  int closed = ov->closed[o];
  float best = -1.0f;
  thr_vec2 bp = p;
  int crossed = 0;
  int nseg = closed ? v1 - v0 : v1 - v0 - 1;
  for (int s = 0; s < nseg; ++s) {
    thr_vec2 a = ov->verts[v0 + s];
    thr_vec2 b = ov->verts[s + 1 < v1 - v0 ? v0 + s + 1 : v0];
    thr_vec2 c = thr_closest_on_segment(p, a, b);
    float d2 = v2_len2(v2_sub(p, c));
    if (best < 0.0f || d2 < best) {
      best = d2;
      bp = c;
    }
    if (!closed && thr_path_crosses_wall(q, p, a, b, s == nseg - 1)) crossed = 1;
  }
  if (best < 0.0f) return 0;
  int inside = closed ? thr_point_in_polygon(ov, o, p) : crossed;
  float d = sqrtf(best);
  thr_vec2 dir;
  if (d > 0.0f) {
    dir = v2_scale(v2_sub(p, bp), 1.0f / d);
  } else {
    thr_vec2 w = v2_sub(q, bp);
    float lw = v2_len(w);
    if (!(lw > 0.0f)) return 0;
    dir = v2_scale(w, 1.0f / lw);
    inside = 0;
  }
  *n = inside ? v2_scale(dir, -1.0f) : dir;
  *dist = inside ? -d : d;
  return 1;
}

/* How far along a move from s to p an agent may go and stay on s's side of
 * every obstacle listed for the cell (s: where it was at the start of the
 * step, or of the stability pass): 1 when the path crosses no open wall and
 * no edge of a closed obstacle that s lies outside of; else the fraction
 * that stops THR_WALL_KEEP short of the first crossing. However hard an
 * agent is pushed in one pass, it never ends it beyond a thin wall, and so
 * never starts a step there (issue 21). */
#define THR_WALL_KEEP 1e-3f
THR_HD float thr_walls_keep_fraction(const thr_obstacle_view *ov, int cell, thr_vec2 s, thr_vec2 p) {
  thr_vec2 d = v2_sub(p, s);
  float first = 2.0f;
  for (int t = ov->cell_offset[cell]; t < ov->cell_offset[cell + 1]; ++t) {
    int o = ov->cell_items[t], v0 = ov->vfirst[o], v1 = ov->vfirst[o + 1], closed = ov->closed[o];
    if (closed && thr_point_in_polygon(ov, o, s)) continue; /* leaving a polygon it is in is the way out */
    int nseg = closed ? v1 - v0 : v1 - v0 - 1;
    for (int k = 0; k < nseg; ++k) {
      thr_vec2 a = ov->verts[v0 + k], b = ov->verts[k + 1 < v1 - v0 ? v0 + k + 1 : v0];
      if (!thr_path_crosses_wall(s, p, a, b, 1)) continue;
      thr_vec2 ab = v2_sub(b, a);
      float den = v2_cross(d, ab);
      float u = den != 0.0f ? v2_cross(v2_sub(a, s), ab) / den : 0.0f;
      if (u < first) first = u;
    }
  }
  if (!(first <= 1.0f)) return 1.0f;
  float back = first - THR_WALL_KEEP / v2_len(d);
  return back > 0.0f ? back : 0.0f;
}

/* Section 4.7 for one agent: contact with every obstacle listed for its
 * cell (each obstacle is one constraint with its closest point). Adds the
 * corrections to *sum and returns the number of active constraints. */
THR_HD int thr_walls_agent(const thr_obstacle_view *ov, int cell, thr_vec2 p, thr_vec2 q, float rr,
                           float stiffness, thr_vec2 *sum) {
  int active = 0;
  for (int t = ov->cell_offset[cell]; t < ov->cell_offset[cell + 1]; ++t) {
    float d;
    thr_vec2 n, dx;
    if (!thr_obstacle_distance(ov, ov->cell_items[t], p, q, &d, &n)) continue;
    if (thr_wall_contact(d, n, rr, stiffness, &dx)) {
      *sum = v2_add(*sum, dx);
      ++active;
    }
  }
  return active;
}

#endif
