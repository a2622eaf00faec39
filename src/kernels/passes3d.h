/* The per-agent work of a time step for 3D agents (seed paper 003;
 * docs/3d.md): the passes of passes.h with the altitude fields z, pz, vz
 * beside x, p, v. The equations are physics.h's 3D instances; the
 * neighbour grid is the 2D one (a column of cells holds every altitude:
 * 3D distance <= R implies horizontal distance <= R, so the 2D candidates
 * are filtered by 3D distance). Walls are vertical prisms over the 2D
 * obstacles (they act on x and y); floor and ceiling bound z. 3D scenarios
 * have no formations, evacuation or speed-density law (refused at load). */
#ifndef THRONG_PASSES3D_H
#define THRONG_PASSES3D_H

#include "passes.h"

/* Agent i's x^n, x* and velocity as 3D vectors (the velocity from c->v and
 * c->vz, which FINALIZE points at the un-smoothed new velocities). */
THR_HD thr_vec3 thr_agent_x3(const thr_ctx *c, int i) { return v3(c->x[i].x, c->x[i].y, c->z[i]); }
THR_HD thr_vec3 thr_agent_p3(const thr_ctx *c, int i) { return v3(c->p[i].x, c->p[i].y, c->pz[i]); }
THR_HD thr_vec3 thr_agent_v3(const thr_ctx *c, int i) { return v3(c->v[i].x, c->v[i].y, c->vz[i]); }
THR_HD thr_vec2 thr_xy(thr_vec3 a) { return v2(a.x, a.y); }

/* The walls of agent i's cell on the (x, y) part of a 3D constraint: the
 * corrections join sum's x and y in the order of the 2D pass. */
THR_HD int thr_walls_agent3(const thr_ctx *c, int i, thr_vec3 p, thr_vec3 q, float rr, thr_vec3 *sum) {
  thr_vec2 s2 = v2(sum->x, sum->y);
  int n = thr_walls_agent(&c->obs, c->grid.cell_of[i], thr_xy(p), thr_xy(q), rr, c->prm.wall_stiffness, &s2);
  sum->x = s2.x;
  sum->y = s2.y;
  return n;
}

/* Squared 3D start-of-step distance of agents i and j: what the step's
 * lists select by in 3D (thr_agent_step_lists), so that a grid scan finds
 * the lists' neighbours. */
THR_HD float thr_agent_dist2_3(const thr_ctx *c, int i, int j) {
  float d2 = v2_len2(v2_sub(c->x[i], c->x[j]));
  float dz = c->z[i] - c->z[j];
  return d2 + dz * dz;
}

/* Target of agent i at x (3D): the closest point of its goal in (x, y) at
 * its goal altitude (NaN: its own). *inside when it is within the goal in
 * (x, y) and within arrive_radius of that altitude. 0: no goal. */
THR_HD int thr_agent_target3(const thr_ctx *c, const thr_agents *a, int i, thr_vec3 x, thr_vec3 *t, int *inside) {
  thr_vec2 t2 = thr_xy(x);
  int in2 = 0;
  if (!thr_agent_target(&c->goals, a->goal_set[i], a->goal[i], thr_xy(x), c->prm.arrive_radius, &t2, &in2)) return 0;
  float gz = a->goal_z[i];
  if (gz != gz) gz = x.z;
  *t = v3(t2.x, t2.y, gz);
  *inside = in2 && fabsf(gz - x.z) <= c->prm.arrive_radius;
  return 1;
}

/* Agent i's 3D preferred velocity toward its goal (zero before its
 * release, at its goal, or without one): PBD's plan and the 3D ORCA
 * model's (passes_rvo3d.h) alike. */
THR_HD thr_vec3 thr_agent_preferred3(const thr_ctx *c, const thr_agents *a, int i) {
  thr_vec3 x = v3(a->x[i].x, a->x[i].y, a->z[i]), vp = v3_zero(), t;
  int inside = 0;
  if (!(c->ev.time < a->release[i]) && !(a->flags[i] & THR_FLAG_AT_GOAL) && thr_agent_target3(c, a, i, x, &t, &inside) &&
      !inside)
    vp = thr_preferred_velocity3(x, t, a->pref_speed[i], c->prm.dt);
  return vp;
}

/* Plan and predict (Algorithm 1 lines 1-5) in 3D: returns x* (x^n for a
 * model whose own PLAN pass gives x*, as thr_agent_predict). */
THR_HD thr_vec3 thr_agent_predict3(const thr_ctx *c, const thr_agents *a, int i) {
  thr_vec3 x = v3(a->x[i].x, a->x[i].y, a->z[i]);
  if (thr_model_plans_itself(&c->prm)) return x;
  thr_vec3 vp = thr_agent_preferred3(c, a, i);
  thr_vec3 v = v3(a->v[i].x, a->v[i].y, a->vz[i]);
  return thr_predict3(x, thr_blend_velocity3(v, vp, c->prm.alpha), c->prm.dt);
}

/* Is agent i at x (3D) at its goal now? */
THR_HD int thr_agent_at_goal3(const thr_ctx *c, const thr_agents *a, int i, thr_vec3 x) {
  thr_vec3 t;
  int inside = 0;
  return thr_agent_target3(c, a, i, x, &t, &inside) && inside;
}

/* The separation plane agent i prefers (avoidance.plane auto; docs/3d.md):
 * the neighbours within av_auto_radius (3D) beside it in its layer
 * against those above or below, for its heading (x* - x^n in (x, y));
 * horizontal without a heading. */
THR_HD int thr_agent_plane_choice(const thr_ctx *c, int i) {
  thr_vec3 xi = thr_agent_x3(c, i);
  thr_vec2 h = v2_sub(c->p[i], c->x[i]);
  float hl = v2_len(h);
  if (!(hl > 0.0f)) return THR_PLANE_HORIZONTAL;
  h = v2_scale(h, 1.0f / hl);
  float r2 = c->prm.av_auto_radius * c->prm.av_auto_radius, ri = c->radius[i];
  int beside = 0, above_below = 0;
  thr_nbr_iter it;
  thr_nbr_begin(&it, &c->grid, c->grid.cell_of[i], c->k_plane);
  for (int j; (j = thr_nbr_next(&it, &c->grid)) >= 0;) {
    if (j == i) continue;
    thr_vec3 d = v3_sub(thr_agent_x3(c, j), xi);
    if (!(v3_len2(d) <= r2)) continue;
    int where = thr_plane_census3(d, h, ri + c->radius[j]);
    beside += where == 1;
    above_below += where == 2;
  }
  return thr_plane_choice3(beside, above_below);
}

/* Stability iteration (lines 9-15) in 3D: sphere contact on x^n, walls,
 * floor and ceiling. Returns the correction of x^n and x*. */
THR_HD thr_vec3 thr_agent_stability3(const thr_ctx *c, int i) {
  const thr_params *prm = &c->prm;
  thr_vec3 xi = thr_agent_x3(c, i), sum = v3_zero();
  float ri = c->radius[i], wi = c->inv_mass[i];
  int n = 0;
  if (prm->contact_on) {
    thr_nbr_iter it;
    thr_nbr_begin(&it, &c->grid, c->grid.cell_of[i], c->k_contact);
    for (int j; (j = thr_nbr_next(&it, &c->grid)) >= 0;) {
      if (j == i) continue;
      thr_vec3 dx, nrm;
      float pen;
      if (thr_contact3(xi, thr_agent_x3(c, j), (ri + c->radius[j]) * prm->radius_scale, wi, c->inv_mass[j],
                       prm->contact_stiffness, thr_tie(c->id[i], c->id[j]), &dx, &nrm, &pen)) {
        sum = v3_add(sum, dx);
        ++n;
      }
    }
  }
  if (prm->walls_on) n += thr_walls_agent3(c, i, xi, xi, ri * prm->radius_scale, &sum);
  n += thr_floor_ceiling(xi.z, ri * prm->radius_scale, prm->z_min, prm->z_max, prm->wall_stiffness, &sum.z);
  thr_vec3 dx = thr_jacobi_average3(sum, n, prm->omega);
  if (prm->walls_on) {
    thr_vec2 m = thr_walls_keep_move(c, i, thr_xy(xi), thr_xy(dx));
    dx.x = m.x, dx.y = m.y;
  }
  return dx;
}

/* The long-range group's constraints between i and neighbour j in 3D
 * (d2: their squared 3D start-of-step distance): the collision response
 * along n, and the separation-plane avoidance (plane: the scenario's,
 * auto: vertical when either agent prefers it). */
THR_HD void thr_lr_accumulate3(const thr_ctx *c, int i, int j, thr_vec3 xi, thr_vec3 pi, float d2, thr_vec3 *sum,
                               int *n) {
  const thr_params *prm = &c->prm;
  int lr = prm->longrange_on && d2 <= prm->lr_radius * prm->lr_radius;
  int av = prm->avoidance_on && d2 <= prm->av_radius * prm->av_radius;
  if (!lr && !av) return;
  float tau0 = lr && av ? fmaxf(prm->lr_tau0, prm->av_tau0) : (lr ? prm->lr_tau0 : prm->av_tau0);
  thr_vec3 xj = thr_agent_x3(c, j);
  thr_lr_pred3 q;
  if (!thr_lr_predict3(xi, pi, xj, thr_agent_p3(c, j), (c->radius[i] + c->radius[j]) * prm->radius_scale,
                       c->inv_mass[i], c->inv_mass[j], prm->dt, tau0, &q))
    return;
  float s_av = thr_lr_respond3(prm, &q, lr, av, sum, n);
  if (s_av >= 0.0f) {
    int plane = prm->av_plane;
    if (plane == THR_PLANE_AUTO)
      plane = c->plane[i] == THR_PLANE_VERTICAL || c->plane[j] == THR_PLANE_VERTICAL ? THR_PLANE_VERTICAL
                                                                                   : THR_PLANE_HORIZONTAL;
    int first = c->id[i] < c->id[j];
    thr_vec3 dx;
    if (thr_lr_plane_avoidance3(&q, first, first ? xi : xj, first ? xj : xi, s_av, prm->dt, prm->av_response, plane,
                                v3_zero(), &dx)) {
      *sum = v3_add(*sum, dx);
      ++*n;
    }
  }
}

/* Long-range group of a solver iteration in 3D: the neighbours of the
 * step's list (or the same ones by a grid scan), within the search radius
 * in 3D. Returns the new x*_i. */
THR_HD thr_vec3 thr_agent_long_range3(const thr_ctx *c, int i) {
  const thr_params *prm = &c->prm;
  thr_vec3 xi = thr_agent_x3(c, i), pi = thr_agent_p3(c, i), sum = v3_zero();
  int n = 0;
  float rad = thr_lr_search_radius(prm);
  thr_query q = thr_query_long_range(c, i);
  THR_FOR_NEIGHBOURS(c, i, q, j, e, listed, {
    float d2 = thr_agent_dist2_3(c, i, j);
    if (listed || d2 <= rad * rad) thr_lr_accumulate3(c, i, j, xi, pi, d2, &sum, &n);
  });
  return v3_add(pi, thr_jacobi_average3(sum, n, prm->omega));
}

/* Contact of i with neighbour j in 3D (spheres), with friction. */
THR_HD void thr_contact_accumulate3(const thr_ctx *c, int i, int j, thr_vec3 pi, thr_vec3 disp_i, float tie,
                                    thr_vec3 *sum, int *n) {
  const thr_params *prm = &c->prm;
  thr_vec3 dx, nrm, pj = thr_agent_p3(c, j);
  float pen, wi = c->inv_mass[i], wj = c->inv_mass[j];
  if (!thr_contact3(pi, pj, (c->radius[i] + c->radius[j]) * prm->radius_scale, wi, wj, prm->contact_stiffness, tie,
                    &dx, &nrm, &pen))
    return;
  if (prm->friction_on)
    dx = v3_add(dx, thr_friction3(disp_i, v3_sub(pj, thr_agent_x3(c, j)), nrm, pen, wi, wj, prm->mu_static,
                                  prm->mu_kinetic));
  *sum = v3_add(*sum, dx);
  ++*n;
}

/* Contact group of a solver iteration in 3D: spheres (the step's contact
 * candidates, or the same ones by a grid scan), walls, floor and ceiling.
 * Returns the new x*_i, on x^n's side of every wall. */
THR_HD thr_vec3 thr_agent_contact3(const thr_ctx *c, int i) {
  const thr_params *prm = &c->prm;
  thr_vec3 xi = thr_agent_x3(c, i), pi = thr_agent_p3(c, i), sum = v3_zero();
  float ri = c->radius[i];
  int n = 0;
  if (prm->contact_on) {
    thr_vec3 disp_i = v3_sub(pi, xi);
    thr_query q = thr_query_contact(c, i);
    THR_FOR_NEIGHBOURS(c, i, q, j, e, listed, {
      if (listed || thr_agent_dist2_3(c, i, j) <= thr_contact_reach2(prm, ri + c->radius[j]))
        thr_contact_accumulate3(c, i, j, pi, disp_i, thr_neighbour_tie(c, i, j, listed, e), &sum, &n);
    });
  }
  if (prm->walls_on) n += thr_walls_agent3(c, i, pi, xi, ri * prm->radius_scale, &sum);
  n += thr_floor_ceiling(pi.z, ri * prm->radius_scale, prm->z_min, prm->z_max, prm->wall_stiffness, &sum.z);
  thr_vec3 next = v3_add(pi, thr_jacobi_average3(sum, n, prm->omega));
  if (prm->walls_on) {
    thr_vec2 k = thr_walls_keep_position(c, i, thr_xy(xi), thr_xy(next));
    next.x = k.x, next.y = k.y;
  }
  return next;
}

/* A SOLVER pass without a 3D form keeps x*. */
THR_HD thr_vec3 thr_agent_keep3(const thr_ctx *c, int i) { return thr_agent_p3(c, i); }

/* Line 23 in 3D: v = (x* - x)/dt. */
THR_HD thr_vec3 thr_agent_velocity3(const thr_ctx *c, int i) {
  return v3_scale(v3_sub(thr_agent_p3(c, i), thr_agent_x3(c, i)), 1.0f / c->prm.dt);
}

/* Lines 24-25 in 3D: XSPH over the neighbours within h (3D distance of
 * x*), reading the un-smoothed new velocities (c->v, c->vz), then the
 * clamps against the previous velocity. */
THR_HD thr_vec3 thr_agent_xsph_clamp3(const thr_ctx *c, int i, thr_vec3 v_old) {
  const thr_params *prm = &c->prm;
  thr_vec3 vi = thr_agent_v3(c, i);
  /* 3D ORCA: as the 2D final pass (thr_agent_xsph_clamp) */
  if (thr_model_keeps_velocity(prm)) return vi;
  if (prm->xsph_on) {
    thr_vec3 pi = thr_agent_p3(c, i), sum = v3_zero();
    float h2 = prm->xsph_h * prm->xsph_h;
    thr_nbr_iter it;
    thr_nbr_begin(&it, &c->grid, c->grid.cell_of[i], c->k_xsph);
    for (int j; (j = thr_nbr_next(&it, &c->grid)) >= 0;) {
      if (j == i) continue;
      float w = thr_poly6(v3_len2(v3_sub(pi, thr_agent_p3(c, j))), h2, prm->xsph_poly6);
      if (w > 0.0f) sum = v3_add(sum, thr_xsph_term3(vi, thr_agent_v3(c, j), w));
    }
    vi = v3_add(vi, v3_scale(sum, prm->xsph_c));
  }
  return thr_clamp_velocity3(vi, v_old, prm->dt, prm->max_speed, prm->max_accel);
}

/* The first non-finite field of a 3D agent's new state, as
 * thr_nonfinite_field. */
THR_HD int thr_nonfinite_field3(thr_vec3 x, thr_vec3 p, thr_vec3 v) {
  if (!isfinite(x.x) || !isfinite(x.y)) return THR_F_X;
  if (!isfinite(x.z)) return THR_F_Z;
  if (!isfinite(p.x) || !isfinite(p.y)) return THR_F_P;
  if (!isfinite(p.z)) return THR_F_PZ;
  if (!isfinite(v.x) || !isfinite(v.y)) return THR_F_V;
  if (!isfinite(v.z)) return THR_F_VZ;
  return -1;
}

#endif
