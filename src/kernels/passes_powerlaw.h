/* The power-law model's step (docs/powerlaw.md; powerlaw.h): each agent's
 * acceleration is its driving force plus the power-law forces of every
 * neighbour within powerlaw.range and of the walls near it, summed in
 * canonical neighbour order, capped at powerlaw.max_accel; explicit Euler
 * integration v' = v + dt a, x* = x + dt v'. It runs as a PLAN pass; the
 * velocity and final passes of the step take v and x from x* as for PBD. */
#ifndef THRONG_PASSES_POWERLAW_H
#define THRONG_PASSES_POWERLAW_H

#include "passes.h"
#include "powerlaw.h"

THR_HD thr_vec2 thr_agent_powerlaw(const thr_ctx *c, const thr_agents *a, int i) {
  const thr_params *prm = &c->prm;
  thr_vec2 xi = c->x[i], vi = c->v[i];
  float ri = c->radius[i], r2 = prm->powerlaw.range * prm->powerlaw.range;
  thr_vec2 acc = thr_powerlaw_driving(thr_agent_plan(c, a, i).vp, vi, prm->powerlaw.xi);
  thr_nbr_iter it;
  thr_nbr_begin(&it, &c->grid, c->grid.cell_of[i], c->k_model[0]);
  for (int j; (j = thr_nbr_next(&it, &c->grid)) >= 0;) {
    thr_vec2 w = v2_sub(xi, c->x[j]);
    if (j == i || !(v2_len2(w) < r2)) continue;
    acc = v2_add(acc, thr_powerlaw_force(w, v2_sub(vi, c->v[j]), ri + c->radius[j], prm->powerlaw.k, prm->powerlaw.tau0));
  }
  /* walls: the nearest point of each obstacle listed for the cell, at rest */
  if (prm->walls_on) {
    const thr_obstacle_view *ov = &c->obs;
    int cell = c->grid.cell_of[i];
    for (int t = ov->cell_offset[cell]; t < ov->cell_offset[cell + 1]; ++t) {
      float d;
      thr_vec2 n;
      if (!thr_obstacle_distance(ov, ov->cell_items[t], xi, xi, &d, &n)) continue;
      thr_vec2 w = v2_scale(n, d); /* from the wall's nearest point to the agent */
      acc = v2_add(acc, thr_powerlaw_force(w, vi, ri, prm->powerlaw.k, prm->powerlaw.tau0));
    }
  }
  thr_vec2 v = v2_add(vi, v2_scale(thr_powerlaw_cap(acc, prm->powerlaw.max_accel), prm->dt));
  return v2_add(xi, v2_scale(v, prm->dt));
}

#endif
