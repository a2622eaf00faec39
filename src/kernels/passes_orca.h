/* The ORCA model's per-agent work (seed paper 002 without its physical
 * forces yet; spec seed-002-orca-forces.md §3.1-3.3; docs/orca.md): the
 * agent's preferred velocity from the shared planner, its nearest
 * neighbours in (distance, id) order, their half-planes, and the linear
 * program (orca.h). It runs as a PLAN pass: x* = x + dt v_new, from which
 * the velocity and final passes of the step take v and x as for PBD. */
#ifndef THRONG_PASSES_ORCA_H
#define THRONG_PASSES_ORCA_H

#include "orca.h"
#include "passes.h"

/* The nearest neighbours of agent i closer than prm.orca_range (start of
 * step), at most prm.orca_neighbors, ordered by (squared distance, id):
 * the same set in the same order whatever the rank or the scan order.
 * Returns their number; their indices in nb. */
THR_HD int thr_orca_neighbors(const thr_ctx *c, int i, int *nb) {
  const thr_params *prm = &c->prm;
  float key_d[THR_ORCA_MAX_NEIGHBORS], r2 = prm->orca_range * prm->orca_range;
  uint32_t key_id[THR_ORCA_MAX_NEIGHBORS];
  int m = 0, cap = prm->orca_neighbors < THR_ORCA_MAX_NEIGHBORS ? prm->orca_neighbors : THR_ORCA_MAX_NEIGHBORS;
  thr_vec2 xi = c->x[i];
  thr_nbr_iter it;
  thr_nbr_begin(&it, &c->grid, c->grid.cell_of[i], c->k_orca);
  for (int j; (j = thr_nbr_next(&it, &c->grid)) >= 0;) {
    if (j == i) continue;
    float d2 = v2_len2(v2_sub(c->x[j], xi));
    if (!(d2 < r2)) continue;
    uint32_t id = c->id[j];
    int k = m < cap ? m : cap - 1;
    if (m == cap && !(d2 < key_d[k] || (d2 == key_d[k] && id < key_id[k]))) continue;
    /* insertion: shift the larger keys up by one (the last one drops out when full) */
    while (k > 0 && (d2 < key_d[k - 1] || (d2 == key_d[k - 1] && id < key_id[k - 1]))) {
      key_d[k] = key_d[k - 1], key_id[k] = key_id[k - 1], nb[k] = nb[k - 1];
      --k;
    }
    key_d[k] = d2, key_id[k] = id, nb[k] = j;
    if (m < cap) ++m;
  }
  return m;
}

/* Edges of obstacle o (obstacles_view.h): a polygon's sides, an open
 * polyline's segments once each way. */
THR_HD int thr_orca_edge_count(const thr_obstacle_view *ov, int o) {
  int m = ov->vfirst[o + 1] - ov->vfirst[o];
  return ov->closed[o] ? m : 2 * (m - 1);
}

THR_HD thr_vec2 thr_unit(thr_vec2 a) { return v2_scale(a, 1.0f / v2_len(a)); }

/* Is obstacle o a polygon given counter-clockwise (positive area)? */
THR_HD int thr_orca_polygon_ccw(const thr_obstacle_view *ov, int o) {
  const thr_vec2 *v = ov->verts + ov->vfirst[o];
  int m = ov->vfirst[o + 1] - ov->vfirst[o];
  float area2 = 0.0f;
  for (int j = 0; j < m; ++j) area2 += thr_det(v[j], v[j + 1 < m ? j + 1 : 0]);
  return area2 > 0.0f;
}

/* Edge k of obstacle o (spec §6.3): polygons walked counter-clockwise
 * whatever their orientation in the scenario (ccw: thr_orca_polygon_ccw,
 * once per obstacle; unused for open walls). */
THR_HD thr_orca_edge thr_orca_edge_of(const thr_obstacle_view *ov, int o, int k, int ccw) {
  const thr_vec2 *v = ov->verts + ov->vfirst[o];
  int m = ov->vfirst[o + 1] - ov->vfirst[o];
  thr_orca_edge e;
  if (!ov->closed[o]) {
    int a = k / 2 + (k & 1), b = k / 2 + !(k & 1);
    e.p1 = v[a], e.p2 = v[b];
    e.d1 = thr_unit(v2_sub(e.p2, e.p1));
    e.d2 = e.dprev = v2_scale(e.d1, -1.0f);
    e.convex1 = e.convex2 = 1;
    return e;
  }
  thr_vec2 w[4]; /* prev, p1, p2, next in counter-clockwise order */
  for (int j = 0; j < 4; ++j) {
    int idx = ((k - 1 + j) % m + m) % m;
    w[j] = v[ccw ? idx : m - 1 - idx];
  }
  e.p1 = w[1], e.p2 = w[2];
  e.d1 = thr_unit(v2_sub(w[2], w[1]));
  e.d2 = thr_unit(v2_sub(w[3], w[2]));
  e.dprev = thr_unit(v2_sub(w[1], w[0]));
  e.convex1 = thr_det(v2_sub(w[1], w[0]), v2_sub(w[2], w[1])) >= 0.0f;
  e.convex2 = thr_det(v2_sub(w[2], w[1]), v2_sub(w[3], w[2])) >= 0.0f;
  return e;
}

/* The obstacle half-planes of agent i (velocity v), from the nearest
 * edges facing it within tau_o * max_speed + r, at most
 * THR_ORCA_MAX_EDGES, in (squared distance, obstacle, edge) order.
 * Returns their number. */
THR_HD int thr_orca_obstacle_lines(const thr_ctx *c, int i, thr_vec2 v, thr_orca_line *lines) {
  const thr_params *prm = &c->prm;
  const thr_obstacle_view *ov = &c->obs;
  thr_vec2 xi = c->x[i];
  float ri = c->radius[i], reach = prm->orca_horizon_obst * prm->max_speed + ri, r2 = reach * reach;
  float key_d[THR_ORCA_MAX_EDGES];
  int key_o[THR_ORCA_MAX_EDGES], key_k[THR_ORCA_MAX_EDGES], key_ccw[THR_ORCA_MAX_EDGES], m = 0;
  int cell = c->grid.cell_of[i];
  for (int t = ov->cell_offset[cell]; t < ov->cell_offset[cell + 1]; ++t) {
    int o = ov->cell_items[t], ne = thr_orca_edge_count(ov, o);
    int ccw = ov->closed[o] && thr_orca_polygon_ccw(ov, o);
    for (int k = 0; k < ne; ++k) {
      thr_orca_edge e = thr_orca_edge_of(ov, o, k, ccw);
      /* only edges whose outer (right) side the agent is on: it cannot see
       * the back of a polygon's side or of a wall's other face (the spec's
       * neighbour rule leaves this out; without it the back face's
       * half-plane pulls the agent into the wall) */
      if (!(thr_det(v2_sub(e.p2, e.p1), v2_sub(xi, e.p1)) < 0.0f)) continue;
      float d2 = v2_len2(v2_sub(xi, thr_closest_on_segment(xi, e.p1, e.p2)));
      if (!(d2 < r2)) continue;
      int at = m < THR_ORCA_MAX_EDGES ? m : THR_ORCA_MAX_EDGES - 1;
      if (m == THR_ORCA_MAX_EDGES && !(d2 < key_d[at])) continue; /* (o, k) ascend: a tie keeps the earlier */
      while (at > 0 && d2 < key_d[at - 1]) {
        key_d[at] = key_d[at - 1], key_o[at] = key_o[at - 1];
        key_k[at] = key_k[at - 1], key_ccw[at] = key_ccw[at - 1];
        --at;
      }
      key_d[at] = d2, key_o[at] = o, key_k[at] = k, key_ccw[at] = ccw;
      if (m < THR_ORCA_MAX_EDGES) ++m;
    }
  }
  int n = 0;
  for (int j = 0; j < m; ++j) {
    thr_orca_edge e = thr_orca_edge_of(ov, key_o[j], key_k[j], key_ccw[j]);
    n += thr_orca_obstacle_line(lines, n, &e, xi, v, ri, prm->orca_horizon_obst, &lines[n]);
  }
  return n;
}

/* Agent i's ORCA step: the permitted velocity closest to its preferred
 * one within the disc of model.max_speed, the obstacle half-planes hard
 * (never given up for the others); returns x* = x + dt v_new. */
THR_HD thr_vec2 thr_agent_orca(const thr_ctx *c, const thr_agents *a, int i) {
  const thr_params *prm = &c->prm;
  thr_plan pl = thr_agent_plan(c, a, i);
  int nb[THR_ORCA_MAX_NEIGHBORS];
  thr_orca_line lines[THR_ORCA_MAX_EDGES + THR_ORCA_MAX_NEIGHBORS], scratch[THR_ORCA_MAX_EDGES + THR_ORCA_MAX_NEIGHBORS];
  thr_vec2 xi = c->x[i], vi = c->v[i];
  float ri = c->radius[i];
  int hard = prm->walls_on && c->obs.n > 0 ? thr_orca_obstacle_lines(c, i, vi, lines) : 0;
  int m = thr_orca_neighbors(c, i, nb);
  for (int k = 0; k < m; ++k) {
    int j = nb[k];
    lines[hard + k] = thr_orca_agent_line(xi, vi, ri, c->x[j], c->v[j], c->radius[j], prm->orca_horizon, prm->dt,
                                          prm->orca_share);
  }
  thr_vec2 v;
  thr_orca_solve(lines, hard + m, hard, prm->max_speed, pl.vp, scratch, &v);
  return v2_add(xi, v2_scale(v, prm->dt));
}

#endif
