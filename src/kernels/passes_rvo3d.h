/* The 3D ORCA model's per-agent work (model.kind rvo3d; spec
 * seed-003-3d-pbd.md §3.4; docs/3d.md): a PLAN pass that takes agent i's
 * 3D preferred velocity (PBD's, thr_agent_preferred3), the half-spaces of
 * its nearest neighbour spheres in (3D distance, id) order and of floor
 * and ceiling, and the linear program of rvo3d.h inside the sphere of
 * model.max_speed. x* = x + dt v_new, from which the velocity and final
 * passes of the step take v and x (the final pass keeps v as it is). No
 * forces, no obstacles, no behaviour states: RVO2-3D's model. */
#ifndef THRONG_PASSES_RVO3D_H
#define THRONG_PASSES_RVO3D_H

#include "passes3d.h"
#include "passes_orca.h" /* thr_nearest_neighbors: the (distance, id) order */
#include "rvo3d.h"

/* The nearest neighbours of agent i closer than rvo3d.neighbor_dist in 3D
 * (start of step), at most rvo3d.max_neighbors, ordered by (squared 3D
 * distance, id): ORCA's ring scan (thr_nearest_neighbors) in 3D. */
THR_HD int thr_rvo3d_neighbors(const thr_ctx *c, int i, int *nb) {
  float key_d[THR_RVO3D_MAX_NEIGHBORS];
  uint32_t key_id[THR_RVO3D_MAX_NEIGHBORS];
  int cap = c->prm.rvo3d.neighbors < THR_RVO3D_MAX_NEIGHBORS ? c->prm.rvo3d.neighbors : THR_RVO3D_MAX_NEIGHBORS;
  return thr_nearest_neighbors(c, i, c->k_model[0], c->prm.rvo3d.range, cap, 1, key_d, key_id, nb);
}

/* PLAN: agent i's 3D ORCA step: the permitted velocity closest to its
 * preferred one within the sphere of model.max_speed, floor and ceiling
 * hard (never given up for the neighbours). Flags the fallback (LP4);
 * returns x* = x + dt v_new. */
THR_HD thr_vec3 thr_agent_rvo3d(const thr_ctx *c, const thr_agents *a, int i) {
  const thr_params *prm = &c->prm;
  thr_rvo3d_plane planes[2 + THR_RVO3D_MAX_NEIGHBORS], scratch[2 + THR_RVO3D_MAX_NEIGHBORS];
  int nb[THR_RVO3D_MAX_NEIGHBORS];
  thr_vec3 xi = thr_agent_x3(c, i), vi = thr_agent_v3(c, i);
  float ri = c->radius[i];
  int hard = thr_rvo3d_floor_ceiling(xi.z, ri, prm->z_min, prm->z_max, prm->dt, planes), n = hard;
  int m = thr_rvo3d_neighbors(c, i, nb);
  for (int k = 0; k < m; ++k) {
    int j = nb[k];
    planes[n++] = thr_rvo3d_agent_plane(xi, vi, ri, thr_agent_x3(c, j), thr_agent_v3(c, j), c->radius[j],
                                        prm->rvo3d.horizon, prm->dt, prm->rvo3d.share);
  }
  thr_vec3 v;
  int ok = thr_rvo3d_solve(planes, n, hard, prm->max_speed, thr_agent_preferred3(c, a, i), scratch, &v);
  uint32_t fl = a->flags[i] & ~(uint32_t)THR_FLAG_LP_FALLBACK;
  a->flags[i] = fl | (ok ? 0u : (uint32_t)THR_FLAG_LP_FALLBACK);
  return v3_add(xi, v3_scale(v, prm->dt));
}

#endif
