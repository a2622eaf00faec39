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

/* Agent i's ORCA step: the permitted velocity closest to its preferred
 * one within the disc of model.max_speed; returns x* = x + dt v_new. */
THR_HD thr_vec2 thr_agent_orca(const thr_ctx *c, const thr_agents *a, int i) {
  const thr_params *prm = &c->prm;
  thr_plan pl = thr_agent_plan(c, a, i);
  int nb[THR_ORCA_MAX_NEIGHBORS];
  thr_orca_line lines[THR_ORCA_MAX_NEIGHBORS], scratch[THR_ORCA_MAX_NEIGHBORS];
  int m = thr_orca_neighbors(c, i, nb);
  thr_vec2 xi = c->x[i], vi = c->v[i];
  float ri = c->radius[i];
  for (int k = 0; k < m; ++k) {
    int j = nb[k];
    lines[k] = thr_orca_agent_line(xi, vi, ri, c->x[j], c->v[j], c->radius[j], prm->orca_horizon, prm->dt,
                                   prm->orca_share);
  }
  thr_vec2 v;
  thr_orca_solve(lines, m, 0, prm->max_speed, pl.vp, scratch, &v);
  return v2_add(xi, v2_scale(v, prm->dt));
}

#endif
