/* The per-agent work of every pass of a time step (Algorithm 1), shared by
 * the CPU loops (kernels/cpu) and the CUDA kernels (kernels/cuda): each
 * function computes one owned agent i from read-only inputs and returns its
 * new values, so a pass is a Jacobi sweep in gather form, without atomics,
 * and neighbours are visited in canonical (cell, id) order. */
#ifndef THRONG_PASSES_H
#define THRONG_PASSES_H

#include <stdint.h>
#include "base/agents.h"
#include "goals.h"
#include "grid_view.h"
#include "base/hostdevice.h"
#include "obstacles_view.h"
#include "base/model_needs.h"
#include "base/params.h"
#include "quanta.h"
#include "evac_agent.h"
#include "formation.h"
#include "physics.h"

/* agent flags (evac.h has the others) */
enum { THR_FLAG_AT_GOAL = 1u };

/* Capacities of the per-step neighbour lists (thr_agent_step_lists): an
 * agent with more neighbours than that is computed by scanning the grid,
 * which visits the same neighbours in the same order. */
enum { THR_LR_CAP = 48, THR_CT_CAP = 16 };

/* A list entry is 16 bits: the neighbour's storage index as its distance
 * from the agent's own, j - i (the lists were 260 of 417 bytes per agent on
 * the GPU as 32-bit indices; issue 33). Owned agents are stored in (cell,
 * id) order (sort_owned), so neighbours lie within a few rows of cells of
 * the agent: up to 32,767 places away in the long-range list, 16,383 in the
 * contact list, whose top bit is the tie. A neighbour further away (a ghost,
 * an agent that arrived this step, a rank window with rows of more than
 * about 9,000 agents) makes the list incomplete: the pass then scans the
 * grid, which gives the same neighbours in the same order. */
typedef uint16_t thr_list_entry;
enum { THR_LR_ENTRY_BITS = 16, THR_CT_ENTRY_BITS = 15 };

/* The entry of distance d in `bits` bits (two's complement), or -1 where d
 * does not fit. */
THR_HD int thr_list_encode(int d, int bits) {
  int half = 1 << (bits - 1);
  return d >= -half && d < half ? (int)((unsigned)d & ((1u << bits) - 1u)) : -1;
}

/* The distance of an entry of `bits` bits (other bits ignored). */
THR_HD int thr_list_decode(unsigned e, int bits) {
  int half = 1 << (bits - 1);
  return (int)(e & (unsigned)(half - 1)) - (int)(e & (unsigned)half);
}

/* Everything a pass reads. Pointers are host or device pointers of the
 * backend that runs the pass; x, p, v change between passes (ping-pong). */
typedef struct thr_ctx {
  thr_params prm;
  thr_grid_view grid;
  thr_obstacle_view obs;
  thr_goal_view goals;
  int k_contact;   /* cell rings for contact queries */
  int k_longrange; /* ... for long-range and avoidance queries */
  int k_xsph;      /* ... for XSPH */
  int k_headway;   /* ... for the speed-density (headway) law */
  int k_formation; /* ... for the congestion test of formations */
  int k_plane;     /* ... for the 3D auto plane choice */
  int k_model[2];  /* ... for the model's own queries (model_list.h: ORCA's
                      neighbours and forces, the power law's neighbours) */
  const uint32_t *id;
  const float *radius;
  const float *inv_mass;
  const thr_vec2 *x; /* positions at the start of the step, x^n */
  const thr_vec2 *p; /* predicted positions x* (current iterate) */
  const thr_vec2 *v; /* velocities (see each pass) */
  const float *z, *pz, *vz; /* 3D scenarios: the altitudes of x^n and x*, vertical velocities */
  const int32_t *plane;     /* 3D auto mode: each agent's preferred separation plane */
  thr_evac_view ev;  /* time, exits, distance fields, stages, measurement lines */
  /* formations (read only when prm.formation_on): the agents' formation
   * index (-1: none), clear-step counts, SRD offsets and speeds, and the
   * formations' state of this step */
  const int32_t *formation, *fclear;
  const thr_vec2 *srd;
  const float *agility; /* NULL without formations: 1 for every agent */
  const int32_t *frings, *fdelay; /* 004's reaction per agent; -1: the formations' setting */
  const float *pref_speed;
  const thr_formation_state *forms;
  /* the step's neighbour lists (thr_agent_step_lists), NULL while not
   * built: entry k of agent i at [i * lr_si + k * list_sk] (lr_list),
   * [i * ct_si + k * list_sk] (ct_list) */
  const thr_list_entry *lr_list, *ct_list;
  const int *list_count;
  int lr_si, ct_si, list_sk;
  /* ORCA's behaviour states and transitions (world.h; prm.orca.n_bstates,
   * n_btrans of them): by pointer, not in prm, to keep this context small */
  const thr_bstate *bstates;
  const thr_btrans *btrans;
} thr_ctx;

THR_HD float thr_tie(uint32_t idi, uint32_t idj) { return idi < idj ? 1.0f : -1.0f; }

/* What an agent plans (section 4.1): its preferred velocity, and the
 * potential it walks down (the distance field of its route, or the
 * distance to its target point), which says which neighbours are ahead of
 * it on its way. */
typedef struct thr_plan {
  thr_vec2 vp;     /* preferred velocity */
  int field;       /* distance field walked down, or -1: towards `target` */
  thr_vec2 target; /* target point when field < 0 */
} thr_plan;

/* The preferred velocity: zero before the agent's release time
 * (pre-movement); down its distance field when it has a route; else
 * towards the closest goal, zero once there. */
THR_HD thr_plan thr_agent_plan(const thr_ctx *c, const thr_agents *a, int i) {
  thr_vec2 x = a->x[i];
  thr_plan pl;
  pl.vp = v2(0.0f, 0.0f);
  pl.field = -1;
  pl.target = x;
  int inside = 0;
  if (c->ev.time < a->release[i]) {
    /* standing: pre-movement */
  } else if (a->route[i] >= 0) {
    pl.field = a->route[i];
    pl.vp = thr_evac_preferred(&c->ev, x, a->pref_speed[i], a->route[i], a->stage[i], a->slot[i], c->prm.dt);
  } else if (!(a->flags[i] & THR_FLAG_AT_GOAL) &&
             thr_agent_target(&c->goals, a->goal_set[i], a->goal[i], x, c->prm.arrive_radius, &pl.target, &inside) &&
             !inside) {
    pl.vp = thr_preferred_velocity(x, pl.target, a->pref_speed[i], c->prm.dt);
  }
  /* stairs and speed zones (docs/floors.md) */
  if (c->ev.n_zones) pl.vp = v2_scale(pl.vp, thr_evac_zone_factor(&c->ev, x, pl.vp));
  return pl;
}

/* Plan and predict (Algorithm 1 lines 1-5): the preferred velocity, then
 * blending and the prediction x*. */
THR_HD thr_vec2 thr_agent_predict(const thr_ctx *c, const thr_agents *a, int i) {
  /* ORCA: agents are binned where they are; its PLAN pass gives x* */
  if (thr_model_plans_itself(&c->prm)) return a->x[i]; /* ORCA, power law: their PLAN pass gives x* */
  /* formation agents: p* = x + dt v (004 Algorithm 1 lines 5-6); their plan
   * is last step's steering, already in v */
  if (c->prm.formation_on && a->formation[i] >= 0) return thr_predict(a->x[i], a->v[i], c->prm.dt);
  thr_plan pl = thr_agent_plan(c, a, i);
  return thr_predict(a->x[i], thr_blend_velocity(a->v[i], pl.vp, c->prm.alpha), c->prm.dt);
}

/* How much further back an agent beside a wall ranks than its place on the
 * field says [m]: pressed against a wall or a door post, it lets the
 * agents beside it go first (people leave a wall's side to the stream), yet
 * still leads those clearly behind it (decision 0013). */
#define THR_WALL_YIELD 0.3f

/* An agent's potential at x: lower is further on its way. Beside a wall,
 * where the field has a blocked node around x, the value of the finite
 * nodes around x, THR_WALL_YIELD more. Fields that see the crowd are ranked
 * by their values without it: a crowd's density says how fast a place is,
 * not who is ahead of whom, and a rank that changed with every agent's cell
 * would let agents in a dense crowd stop following the one just ahead. */
THR_HD float thr_plan_potential(const thr_ctx *c, const thr_plan *pl, thr_vec2 x) {
  if (pl->field < 0) return v2_len(v2_sub(pl->target, x));
  thr_navfield_view f = thr_evac_ref_field(&c->ev, pl->field);
  float v = thr_navfield_value(&f, x);
  return v < HUGE_VALF ? v : thr_navfield_value_near(&f, x) + THR_WALL_YIELD;
}

/* The plan of this step as the headway law needs it of every agent, its
 * neighbours included: agent i's preferred velocity (zero while it stands,
 * and for formation agents, which follow their SRD). An UPDATE pass, so the
 * value is computed after migration and forwarded to ghosts. */
THR_HD void thr_agent_plan_velocity(const thr_ctx *c, const thr_agents *a, int i) {
  a->vpref[i] = (c->prm.formation_on && a->formation[i] >= 0) ? v2(0.0f, 0.0f) : thr_agent_plan(c, a, i).vp;
}

/* Sidestep of the headway law (headway.sidestep): a held-up agent may turn
 * by 30 deg to either side; it looks this far beyond its body for a wall. */
#define THR_SIDESTEP_COS 0.8660254f
#define THR_SIDESTEP_SIN 0.5f
#define THR_SIDESTEP_LOOK 0.3f

/* Unit vector e turned by the angle of cosine c and sine s (counter-clockwise). */
THR_HD thr_vec2 thr_rotate_unit(thr_vec2 e, float c, float s) { return v2(c * e.x - s * e.y, s * e.x + c * e.y); }

/* Is there walkable room at x for an agent with plan pl? With a distance
 * field, where the field is finite (walls and the cells they touch are
 * not); towards a goal point, always. */
THR_HD int thr_plan_room(const thr_ctx *c, const thr_plan *pl, thr_vec2 x) {
  if (pl->field < 0) return 1;
  thr_navfield_view f = thr_evac_field(&c->ev, pl->field);
  return thr_navfield_value(&f, x) < HUGE_VALF;
}

/* How much a neighbour with preferred velocity vj heads the way of an agent
 * heading along unit e: the cosine of the angle between them, 0 for
 * angles of 90 deg and more, 1 for a standing neighbour (it holds up
 * whoever walks into it). */
THR_HD float thr_headway_alignment(thr_vec2 e, thr_vec2 vj) {
  float sj = v2_len(vj);
  if (!(sj > 0.0f)) return 1.0f;
  float cj = v2_dot(e, vj) / sj;
  return cj > 0.0f ? cj : 0.0f;
}

/* How far a neighbour has turned from the agent's way, for the turn
 * anticipation: 0 heading the same way, 1 at 45.6 deg (cosine 0.7) and more. */
THR_HD float thr_headway_turned(float cj) {
  float w = (1.0f - cj) / 0.3f;
  return w < 0.0f ? 0.0f : (w > 1.0f ? 1.0f : w);
}

/* Is neighbour j a leader of agent i? Only a leader can make i wait
 * (decisions 0004 and 0013); of two agents at most one leads the other:
 * - an agent coming towards i (its preferred direction vj more than
 *   120 deg from i's, e) is passed, not followed: contact and avoidance
 *   take the two past each other. Waiting for it made two groups walking
 *   towards each other stand face to face for good; on one field it also
 *   made agents whose directions cross in a crowd wait for each other;
 * - on the same distance field (route, as i's plan pl), the one further on
 *   its way: lower potential (the field's value, a travel distance or
 *   time), equal: the lower id. One order for everyone on the field, so no
 *   two or more agents ever wait for each other in a ring;
 * - otherwise the one further along their common direction:
 *   d . (e + e_j) > 0 for d = x_j - x_i (equal: the lower id), which is
 *   antisymmetric whatever their targets. A standing neighbour (vj zero)
 *   leads whoever walks into it. */
THR_HD int thr_headway_leads(const thr_ctx *c, const thr_agents *a, const thr_plan *pl, float phi_i, int i, int j,
                             thr_vec2 e) {
  uint32_t idi = c->id[i], idj = c->id[j];
  thr_vec2 vj = a->vpref[j];
  float sj = v2_len(vj);
  thr_vec2 ej = sj > 0.0f ? v2_scale(vj, 1.0f / sj) : v2(0.0f, 0.0f);
  if (v2_dot(e, ej) < -0.5f) return 0;
  if (pl->field >= 0 && a->route[j] == pl->field) {
    float phi_j = thr_plan_potential(c, pl, c->x[j]);
    return phi_j < phi_i || (phi_j == phi_i && idj < idi);
  }
  float ahead = v2_dot(v2_sub(c->x[j], c->x[i]), v2_add(e, ej));
  return ahead > 0.0f || (ahead == 0.0f && idj < idi);
}

/* Speed-density relation (docs/decisions/0004-pedestrian-model.md): the
 * preferred speed is limited by the time-gap law to the free gap ahead: the
 * nearest neighbour (start-of-step positions) that the agent would walk
 * into going straight along its preferred direction and that leads it
 * (thr_headway_leads). Re-predicts x* with the limited preferred velocity;
 * an agent that is not slowed keeps the x* of the prediction bit for bit.
 * Its own plan is computed again (for the potential): migration between
 * the prediction and this pass carries only the agents' state. */
THR_HD thr_vec2 thr_agent_headway(const thr_ctx *c, const thr_agents *a, int i) {
  const thr_params *prm = &c->prm;
  thr_vec2 vp = a->vpref[i];
  float s0 = v2_len(vp);
  if (!(s0 > 0.0f)) return c->p[i];
  thr_plan pl = thr_agent_plan(c, a, i);
  thr_vec2 xi = c->x[i], e = v2_scale(vp, 1.0f / s0);
  thr_vec2 el = thr_rotate_unit(e, THR_SIDESTEP_COS, THR_SIDESTEP_SIN);
  thr_vec2 er = thr_rotate_unit(e, THR_SIDESTEP_COS, -THR_SIDESTEP_SIN);
  float ri = c->radius[i], range2 = prm->hw_range * prm->hw_range, phi_i = 0.0f;
  float gap = HUGE_VALF, gl = HUGE_VALF, gr = HUGE_VALF; /* ahead, and along the two sidesteps */
  int side = prm->hw_sidestep > 0.0f, have_phi = 0;
  thr_nbr_iter it;
  thr_nbr_begin(&it, &c->grid, c->grid.cell_of[i], c->k_headway);
  for (int j; (j = thr_nbr_next(&it, &c->grid)) >= 0;) {
    thr_vec2 d = v2_sub(c->x[j], xi);
    if (j == i || v2_len2(d) > range2) continue;
    thr_vec2 vj = a->vpref[j];
    float R = ri + c->radius[j], cj = thr_headway_alignment(e, vj);
    d = v2_add(d, v2_scale(c->v[j], prm->hw_anticipation + prm->hw_turn_anticipation * thr_headway_turned(cj)));
    float g = thr_headway_gap(e, d, R, prm->hw_width * (prm->hw_cross_width + (1.0f - prm->hw_cross_width) * cj));
    float g1 = side ? thr_headway_gap(el, d, R, 1.0f) : HUGE_VALF, g2 = side ? thr_headway_gap(er, d, R, 1.0f) : HUGE_VALF;
    if (!(g < gap) && !(g1 < gl) && !(g2 < gr)) continue;
    if (!have_phi) {
      phi_i = thr_plan_potential(c, &pl, xi);
      have_phi = 1;
    }
    if (!thr_headway_leads(c, a, &pl, phi_i, i, j, e)) continue;
    gap = g < gap ? g : gap;
    gl = g1 < gl ? g1 : gl;
    gr = g2 < gr ? g2 : gr;
  }
  float s = thr_headway_speed(s0, gap, prm->hw_min_gap, prm->hw_time_gap);
  if (side && s < s0) {
    /* held up: step aside, 30 deg left or right, where the way is clear for hw_sidestep metres at least and
     * the progress along e is larger (left first when equal), unless a wall is there (the field is +inf) */
    float sl = gl >= prm->hw_sidestep ? thr_headway_speed(s0, gl, prm->hw_min_gap, prm->hw_time_gap) : 0.0f;
    float sr = gr >= prm->hw_sidestep ? thr_headway_speed(s0, gr, prm->hw_min_gap, prm->hw_time_gap) : 0.0f;
    thr_vec2 es = sl >= sr ? el : er;
    float ss = sl >= sr ? sl : sr;
    if (THR_SIDESTEP_COS * ss > s && thr_plan_room(c, &pl, v2_add(xi, v2_scale(es, ri + THR_SIDESTEP_LOOK))))
      return thr_predict(xi, thr_blend_velocity(c->v[i], v2_scale(es, ss), prm->alpha), prm->dt);
  }
  if (s == s0) return c->p[i];
  return thr_predict(xi, thr_blend_velocity(c->v[i], v2_scale(vp, s / s0), prm->alpha), prm->dt);
}

/* ---- formations (seed paper 004; docs/formations.md) ---------------------- */

/* Agent i's formation, or -1 (none, or no formations in the run). */
THR_HD int thr_agent_formation_of(const thr_ctx *c, int i) { return c->prm.formation_on ? c->formation[i] : -1; }

/* Agent i's Short Range Destination in formation f this step. */
THR_HD thr_vec2 thr_agent_srd(const thr_ctx *c, int i, int f) { return v2_add(c->forms[f].pos, c->srd[i]); }

/* 004's reaction of formation agent i: its look-ahead rings and restore
 * delay, its own (agents[].lookahead_rings, restore_delay) or the
 * formations'. */
THR_HD int thr_agent_lookahead(const thr_ctx *c, int i) { return c->frings[i] >= 0 ? c->frings[i] : c->k_formation; }
THR_HD int thr_agent_formation_holds(const thr_ctx *c, int i) {
  return thr_formation_holds(c->fclear[i], c->fdelay[i] >= 0 ? c->fdelay[i] : c->prm.fm_restore_delay);
}

/* Behaviour (spec §2.5, eq. 9 per agent): congested when a cell within
 * the agent's look-ahead rings of i's cell (binned on x*) holds an agent of
 * another group (never with formations.break false); returns i's new
 * clear-step count. Agents outside formations keep theirs. */
THR_HD int thr_agent_formation_clear(const thr_ctx *c, int i) {
  int f = c->formation[i];
  if (f < 0) return c->fclear[i];
  int congested = 0;
  if (!c->prm.fm_break) return thr_formation_clear_next(c->fclear[i], congested);
  thr_nbr_iter it;
  thr_nbr_begin(&it, &c->grid, c->grid.cell_of[i], thr_agent_lookahead(c, i));
  for (int j; !congested && (j = thr_nbr_next(&it, &c->grid)) >= 0;) congested = c->formation[j] != f;
  return thr_formation_clear_next(c->fclear[i], congested);
}

/* The formation group of a solver iteration (eq. 8): an agent holding its
 * formation moves towards its SRD, by the per-iteration stiffness, at most
 * its speed x dt / N with the cap. Returns the new x*_i. */
THR_HD thr_vec2 thr_agent_formation(const thr_ctx *c, int i) {
  const thr_params *prm = &c->prm;
  thr_vec2 pi = c->p[i];
  int f = c->formation[i];
  if (f < 0 || !thr_agent_formation_holds(c, i)) return pi;
  float cap = prm->fm_cap ? c->pref_speed[i] * prm->dt / (float)prm->solver_iterations : 0.0f;
  return v2_add(pi, thr_formation_correction(pi, thr_agent_srd(c, i, f), prm->fm_k_it, cap));
}

/* Seek steering after the velocity update (eq. 10, spec §2.6) of formation
 * agent i (formation f) at its new position x. */
THR_HD thr_vec2 thr_agent_steer(const thr_ctx *c, int i, int f, thr_vec2 v, thr_vec2 x) {
  const thr_params *prm = &c->prm;
  thr_vec2 s = thr_agent_srd(c, i, f);
  if (prm->steer_mode == THR_STEER_LITERAL) return thr_steer_literal(v, x, s, c->pref_speed[i]);
  if (prm->steer_mode == THR_STEER_PURSUIT)
    return thr_steer_pursuit(v, x, s, c->forms[f].vel, prm->steer_time, c->pref_speed[i], prm->steer_accel,
                             prm->dt);
  return v;
}

/* Agent i's move dx from s, shortened where it would cross a wall
 * (thr_walls_keep_fraction); unchanged, bit for bit, where it does not. */
THR_HD thr_vec2 thr_walls_keep_move(const thr_ctx *c, int i, thr_vec2 s, thr_vec2 dx) {
  float f = thr_walls_keep_fraction(&c->obs, c->grid.cell_of[i], s, v2_add(s, dx));
  return f < 1.0f ? v2_scale(dx, f) : dx;
}

/* Agent i's new position p after a move from s, held on s's side of every
 * wall: p itself, bit for bit, where the move crosses none. */
THR_HD thr_vec2 thr_walls_keep_position(const thr_ctx *c, int i, thr_vec2 s, thr_vec2 p) {
  float f = thr_walls_keep_fraction(&c->obs, c->grid.cell_of[i], s, p);
  return f < 1.0f ? v2_add(s, v2_scale(v2_sub(p, s), f)) : p;
}

/* Stability iteration (Algorithm 1 lines 9-15): contact constraints on the
 * start-of-step positions x^n, agents and walls. Returns the correction,
 * which the caller adds to both x^n and x*. */
THR_HD thr_vec2 thr_agent_stability(const thr_ctx *c, int i) {
  const thr_params *prm = &c->prm;
  thr_vec2 xi = c->x[i];
  float ri = c->radius[i], wi = c->inv_mass[i];
  thr_vec2 sum = v2(0.0f, 0.0f);
  int n = 0;
  if (prm->contact_on) {
    thr_nbr_iter it;
    thr_nbr_begin(&it, &c->grid, c->grid.cell_of[i], c->k_contact);
    for (int j; (j = thr_nbr_next(&it, &c->grid)) >= 0;) {
      if (j == i) continue;
      thr_vec2 dx, nrm;
      float pen;
      if (thr_contact(xi, c->x[j], (ri + c->radius[j]) * prm->radius_scale, wi, c->inv_mass[j],
                      prm->contact_stiffness, thr_tie(c->id[i], c->id[j]), &dx, &nrm, &pen)) {
        sum = v2_add(sum, dx);
        ++n;
      }
    }
  }
  if (prm->walls_on)
    n += thr_walls_agent(&c->obs, c->grid.cell_of[i], xi, xi, ri * prm->radius_scale + prm->wall_clearance,
                         prm->wall_stiffness, &sum);
  thr_vec2 dx = thr_jacobi_average(sum, n, prm->omega);
  return prm->walls_on ? thr_walls_keep_move(c, i, xi, dx) : dx;
}

/* Search radius of the long-range group: the larger of the enabled ones. */
THR_HD float thr_lr_search_radius(const thr_params *prm) {
  float rad = prm->longrange_on ? prm->lr_radius : 0.0f;
  if (prm->avoidance_on && prm->av_radius > rad) rad = prm->av_radius;
  return rad;
}

/* The long-range group's constraints between i and neighbour j (xj, pj,
 * rj, wj: its x^n, x*, radius, inverse mass; d2: the pair's squared
 * start-of-step distance): the pair is predicted once and gives a
 * collision and/or an avoidance response. */
THR_HD void thr_lr_accumulate(const thr_params *prm, thr_vec2 xi, thr_vec2 pi, float ri, float wi, thr_vec2 xj,
                              thr_vec2 pj, float rj, float wj, float d2, thr_vec2 *sum, int *n) {
  int lr = prm->longrange_on && d2 <= prm->lr_radius * prm->lr_radius;
  int av = prm->avoidance_on && d2 <= prm->av_radius * prm->av_radius;
  if (!lr && !av) return;
  float tau0 = lr && av ? fmaxf(prm->lr_tau0, prm->av_tau0) : (lr ? prm->lr_tau0 : prm->av_tau0);
  thr_lr_pred q;
  if (!thr_lr_predict(xi, pi, xj, pj, (ri + rj) * prm->radius_scale, wi, wj, prm->dt, tau0, &q)) return;
  float s_av = thr_lr_respond(prm, &q, lr, av, sum, n);
  if (s_av >= 0.0f) {
    thr_vec2 dx;
    if (thr_lr_avoidance(&q, xi, xj, s_av, prm->dt, prm->av_response, &dx)) {
      *sum = v2_add(*sum, dx);
      ++*n;
    }
  }
}

/* The contact candidates a solver iteration considers: the neighbours
 * whose start-of-step distance is within the contact distance plus the
 * skin (pairs further apart cannot touch unless they close more than the
 * skin within one step). Squared. */
THR_HD float thr_contact_reach2(const thr_params *prm, float rsum) {
  float d = rsum * prm->radius_scale + prm->skin;
  return d * d;
}

/* Contact of i (at pi, moved disp_i this step) with neighbour j (x^n xj,
 * x* pj, radius rj, inverse mass wj; tie from the ids), with friction when
 * `friction`. */
THR_HD void thr_contact_accumulate(const thr_params *prm, thr_vec2 pi, thr_vec2 disp_i, float ri, float wi,
                                   thr_vec2 xj, thr_vec2 pj, float rj, float wj, float tie, int friction,
                                   thr_vec2 *sum, int *n) {
  thr_vec2 dx, nrm;
  float pen;
  if (!thr_contact(pi, pj, (ri + rj) * prm->radius_scale, wi, wj, prm->contact_stiffness, tie, &dx, &nrm, &pen))
    return;
  if (friction)
    dx = v2_add(dx, thr_friction(disp_i, v2_sub(pj, xj), nrm, pen, wi, wj, prm->mu_static, prm->mu_kinetic));
  *sum = v2_add(*sum, dx);
  ++*n;
}

/* A contact-list entry's top bit: set when the tie of the pair is -1 (so
 * the pass needs no id). */
#define THR_CT_TIE_BIT 0x8000u

/* The step's neighbour lists of agent i, built once per step at its first
 * solver pass (x^n is fixed from then on), in canonical order, in one scan
 * of the grid: the long-range group's neighbours (start-of-step distance
 * within the search radius, among the candidates of a k_longrange scan) and
 * the contact candidates (within thr_contact_reach2, among those of a
 * k_contact scan) -- exactly the neighbours the grid scans of
 * thr_agent_long_range and thr_agent_contact visit, in the same order.
 * Entry k goes to lr[k * stride], ct[k * stride] for k below the caps, as
 * j - i (thr_list_encode).
 * Returns the counts, each capped at its cap + 1 (over: list incomplete,
 * also where an entry does not fit), long range in the low 16 bits. */
THR_HD int thr_agent_step_lists(const thr_ctx *c, int i, thr_list_entry *lr, thr_list_entry *ct, int stride) {
  const thr_params *prm = &c->prm;
  const thr_grid_view *g = &c->grid;
  int klr = prm->longrange_on || prm->avoidance_on ? c->k_longrange : -1;
  int kct = prm->contact_on ? c->k_contact : -1;
  int kmax = klr > kct ? klr : kct;
  thr_vec2 xi = c->x[i];
  float ri = c->radius[i], rad = thr_lr_search_radius(prm);
  uint32_t idi = c->id[i];
  int cell = g->cell_of[i], cx = cell % g->nx, cy = cell / g->nx;
  int nlr = 0, nct = 0;
  for (int dy = -kmax; dy <= kmax; ++dy) {
    int y = cy + dy;
    if (y < 0 || y >= g->ny) continue;
    /* the row's slots of each scan (empty where the scan has no such row) */
    int lr0 = 0, lr1 = 0, ct0 = 0, ct1 = 0;
    if (dy >= -klr && dy <= klr) {
      int x0 = cx - klr < 0 ? 0 : cx - klr, x1 = cx + klr >= g->nx ? g->nx - 1 : cx + klr;
      lr0 = g->offset[y * g->nx + x0];
      lr1 = g->offset[y * g->nx + x1 + 1];
    }
    if (dy >= -kct && dy <= kct) {
      int x0 = cx - kct < 0 ? 0 : cx - kct, x1 = cx + kct >= g->nx ? g->nx - 1 : cx + kct;
      ct0 = g->offset[y * g->nx + x0];
      ct1 = g->offset[y * g->nx + x1 + 1];
    }
    int t0 = lr1 > lr0 ? lr0 : ct0, t1 = lr1 > lr0 ? lr1 : ct1;
    if (ct1 > ct0 && ct0 < t0) t0 = ct0;
    if (ct1 > ct0 && ct1 > t1) t1 = ct1;
    for (int t = t0; t < t1; ++t) {
      int j = g->order[t];
      if (j == i) continue;
      float d2 = v2_len2(v2_sub(xi, c->x[j]));
      if (prm->dim3) { /* spheres: a column of cells holds every altitude */
        float dz = c->z[i] - c->z[j];
        d2 += dz * dz;
      }
      if (t >= lr0 && t < lr1 && d2 <= rad * rad) {
        int e = thr_list_encode(j - i, THR_LR_ENTRY_BITS);
        if (e < 0) nlr = THR_LR_CAP; /* does not fit: incomplete */
        if (nlr < THR_LR_CAP) lr[(size_t)nlr * (size_t)stride] = (thr_list_entry)e; /* size_t: rows * 48 passes 2^31 */
        ++nlr;
      }
      if (t >= ct0 && t < ct1 && d2 <= thr_contact_reach2(prm, ri + c->radius[j])) {
        int e = thr_list_encode(j - i, THR_CT_ENTRY_BITS);
        if (e < 0) nct = THR_CT_CAP;
        if (nct < THR_CT_CAP)
          ct[(size_t)nct * (size_t)stride] = (thr_list_entry)((unsigned)e | (idi < c->id[j] ? 0u : THR_CT_TIE_BIT));
        ++nct;
      }
    }
  }
  if (nlr > THR_LR_CAP) nlr = THR_LR_CAP + 1;
  if (nct > THR_CT_CAP) nct = THR_CT_CAP + 1;
  return nlr | (nct << 16);
}

/* The neighbour loop of the solver passes, written once for 2D and 3D and
 * both backends: agent i's neighbours of one query, from the step's list
 * where it is complete, else from a scan of the query's rings (the same
 * neighbours in the same order). The body runs for each neighbour j with
 * `e` its list entry (0 when scanned) and `listed` a constant: 1 in the
 * list's copy of the body (j passed the list's selection already), 0 in the
 * scan's (j is any agent of the rings but i). Two copies of the body, not
 * one loop that asks each time where the next neighbour comes from: that
 * loop ran the solver passes 20 % slower on the GPU (decision 0015).
 *   thr_query q = thr_query_long_range(c, i);
 *   THR_FOR_NEIGHBOURS(c, i, q, j, e, listed, { if (!listed && !(...)) continue; ... }) */
typedef struct thr_query {
  const thr_list_entry *list; /* agent i's entries; NULL: scan */
  int count, bits, rings;
} thr_query;

THR_HD thr_query thr_query_of(const thr_ctx *c, int i, const thr_list_entry *lists, int si, int count, int cap,
                              int bits, int rings) {
  thr_query q;
  q.list = c->list_count && count <= cap ? lists + (size_t)i * (size_t)si : NULL;
  q.count = count;
  q.bits = bits;
  q.rings = rings;
  return q;
}

/* ... of the long-range group (thr_lr_search_radius), and of contact
 * (thr_contact_reach2; a listed entry's top bit is the tie). */
THR_HD thr_query thr_query_long_range(const thr_ctx *c, int i) {
  return thr_query_of(c, i, c->lr_list, c->lr_si, c->list_count ? (c->list_count[i] & 0xffff) : 0, THR_LR_CAP,
                      THR_LR_ENTRY_BITS, c->k_longrange);
}
THR_HD thr_query thr_query_contact(const thr_ctx *c, int i) {
  return thr_query_of(c, i, c->ct_list, c->ct_si, c->list_count ? (c->list_count[i] >> 16) : 0, THR_CT_CAP,
                      THR_CT_ENTRY_BITS, c->k_contact);
}

#define THR_FOR_NEIGHBOURS(c, i, q, j, e, listed, ...)                                  \
  do {                                                                                  \
    if ((q).list) {                                                                     \
      const int listed = 1;                                                             \
      for (int k_ = 0; k_ < (q).count; ++k_) {                                          \
        unsigned e = (q).list[(size_t)k_ * (size_t)(c)->list_sk];                       \
        int j = (i) + thr_list_decode(e, (q).bits);                                     \
        __VA_ARGS__                                                                     \
      }                                                                                 \
    } else {                                                                            \
      const int listed = 0;                                                             \
      thr_nbr_iter it_;                                                                 \
      thr_nbr_begin(&it_, &(c)->grid, (c)->grid.cell_of[i], (q).rings);                 \
      for (int j; (j = thr_nbr_next(&it_, &(c)->grid)) >= 0;) {                         \
        unsigned e = 0u; /* read below: nvcc counts a set, unread variable an error */ \
        if (j == (i) + (int)e) continue;                                                \
        __VA_ARGS__                                                                     \
      }                                                                                 \
    }                                                                                   \
  } while (0)

/* The tie of contact pair (i, j): from a listed entry, or from the ids. */
THR_HD float thr_neighbour_tie(const thr_ctx *c, int i, int j, int listed, unsigned e) {
  if (listed) return (e & THR_CT_TIE_BIT) ? -1.0f : 1.0f;
  return thr_tie(c->id[i], c->id[j]);
}

/* Long-range group of a solver iteration (sections 4.4, 4.5): every
 * neighbour whose start-of-step distance is within the search radius, from
 * the step's list when it has one, else found by scanning the grid (the
 * same neighbours in the same order, so the same bits). Returns the new x*_i. */
THR_HD thr_vec2 thr_agent_long_range(const thr_ctx *c, int i) {
  const thr_params *prm = &c->prm;
  thr_vec2 xi = c->x[i], pi = c->p[i];
  float ri = c->radius[i], wi = c->inv_mass[i], rad = thr_lr_search_radius(prm);
  thr_vec2 sum = v2(0.0f, 0.0f);
  int n = 0;
  int fi = thr_agent_formation_of(c, i); /* agents of one formation do not avoid each other */
  thr_query q = thr_query_long_range(c, i);
  THR_FOR_NEIGHBOURS(c, i, q, j, e, listed, {
    if (fi >= 0 && c->formation[j] == fi) continue;
    thr_vec2 xj = c->x[j];
    float d2 = v2_len2(v2_sub(xi, xj));
    if (!listed && !(d2 <= rad * rad)) continue;
    thr_lr_accumulate(prm, xi, pi, ri, wi, xj, c->p[j], c->radius[j], c->inv_mass[j], d2, &sum, &n);
  });
  /* 004's agility: how much of its avoidance the agent performs */
  thr_vec2 dp = thr_jacobi_average(sum, n, prm->omega);
  return v2_add(pi, c->agility ? v2_scale(dp, c->agility[i]) : dp);
}

/* Friction between i (formation fi, or -1) and j: none between agents of one
 * formation, so that one rejoining its place slides past its group-mates
 * (with static friction a lagging agent stays locked behind the one ahead
 * in its row: docs/formations.md). */
THR_HD int thr_pair_friction(const thr_ctx *c, int fi, int j) {
  return c->prm.friction_on && !(fi >= 0 && c->formation[j] == fi);
}

/* Contact group of a solver iteration (sections 4.2, 4.7): frictional
 * contact on x* with the neighbours of thr_contact_reach2 (the step's list,
 * or a grid scan: the same neighbours in the same order) and with walls.
 * Returns the new x*_i. */
THR_HD thr_vec2 thr_agent_contact(const thr_ctx *c, int i) {
  const thr_params *prm = &c->prm;
  thr_vec2 xi = c->x[i], pi = c->p[i];
  float ri = c->radius[i], wi = c->inv_mass[i];
  thr_vec2 sum = v2(0.0f, 0.0f);
  int n = 0;
  if (prm->contact_on) {
    thr_vec2 disp_i = v2_sub(pi, xi);
    int fi = thr_agent_formation_of(c, i);
    thr_query q = thr_query_contact(c, i);
    THR_FOR_NEIGHBOURS(c, i, q, j, e, listed, {
      thr_vec2 xj = c->x[j];
      float rj = c->radius[j];
      if (!listed && !(v2_len2(v2_sub(xi, xj)) <= thr_contact_reach2(prm, ri + rj))) continue;
      thr_contact_accumulate(prm, pi, disp_i, ri, wi, xj, c->p[j], rj, c->inv_mass[j],
                             thr_neighbour_tie(c, i, j, listed, e), thr_pair_friction(c, fi, j), &sum, &n);
    });
  }
  if (prm->walls_on)
    n += thr_walls_agent(&c->obs, c->grid.cell_of[i], pi, xi, ri * prm->radius_scale + prm->wall_clearance,
                         prm->wall_stiffness, &sum);
  thr_vec2 next = v2_add(pi, thr_jacobi_average(sum, n, prm->omega));
  /* the last group of an iteration ends on x^n's side of every wall */
  return prm->walls_on ? thr_walls_keep_position(c, i, xi, next) : next;
}

/* Algorithm 1 line 23: v = (x* - x) / dt. */
THR_HD thr_vec2 thr_agent_velocity(const thr_ctx *c, int i) {
  return v2_scale(v2_sub(c->p[i], c->x[i]), 1.0f / c->prm.dt);
}

/* Algorithm 1 lines 24-25: XSPH (eq. 3) over neighbours within h at x*,
 * reading the un-smoothed new velocities c->v (a formation agent: over its
 * formation's agents only), the steering of formation agents, then the
 * clamps against the previous velocity v_old. Returns the final velocity. */
THR_HD thr_vec2 thr_agent_xsph_clamp(const thr_ctx *c, int i, thr_vec2 v_old) {
  const thr_params *prm = &c->prm;
  thr_vec2 vi = c->v[i];
  /* ORCA: the agent moved with its plan's velocity (x* = x + dt v), which
   * the LP's disc bounds; a clamp here would store a velocity it did not
   * move with, which the next step's half-planes and forces read */
  if (thr_model_keeps_velocity(prm)) return vi;
  int fi = thr_agent_formation_of(c, i);
  if (prm->xsph_on) {
    thr_vec2 pi = c->p[i];
    float h2 = prm->xsph_h * prm->xsph_h;
    thr_vec2 sum = v2(0.0f, 0.0f);
    thr_nbr_iter it;
    thr_nbr_begin(&it, &c->grid, c->grid.cell_of[i], c->k_xsph);
    for (int j; (j = thr_nbr_next(&it, &c->grid)) >= 0;) {
      if (j == i || (fi >= 0 && c->formation[j] != fi)) continue;
      float w = thr_poly6(v2_len2(v2_sub(pi, c->p[j])), h2, prm->xsph_poly6);
      if (w > 0.0f) sum = v2_add(sum, thr_xsph_term(vi, c->v[j], w));
    }
    vi = v2_add(vi, v2_scale(sum, prm->xsph_c));
  }
  if (fi >= 0) vi = thr_agent_steer(c, i, fi, vi, c->p[i]);
  return thr_clamp_velocity(vi, v_old, prm->dt, prm->max_speed, prm->max_accel);
}

/* Goal bookkeeping after the step: is the agent at x now at its goal? */
THR_HD int thr_agent_at_goal(const thr_ctx *c, thr_vec2 x, int goal_set, thr_vec2 personal) {
  thr_vec2 t = v2(0.0f, 0.0f);
  int inside = 0;
  return thr_agent_target(&c->goals, goal_set, personal, x, c->prm.arrive_radius, &t, &inside) &&
         inside;
}

/* ---- evacuation bookkeeping of FINALIZE ----------------------------------- */

/* The flags an agent (radius r) gains at its new position x (local cell
 * `cell`): its stage events, and THR_FLAG_EXITED when it reached an exit. */
THR_HD uint32_t thr_agent_evac_flags(const thr_ctx *c, int cell, thr_vec2 x, float r, int stage, int slot) {
  uint32_t f = thr_evac_stage_events(&c->ev, x, stage, slot);
  if (thr_evac_exit_at(&c->ev, cell, x, r) >= 0) f |= THR_FLAG_EXITED;
  return f;
}

/* Does an agent at xj (radius rj) keep a new agent of radius r off the
 * point p (contact distance, eq. 2)? Sources probe spawn points with it. */
THR_HD int thr_agent_blocks_point(thr_vec2 p, float r, thr_vec2 xj, float rj, float scale) {
  float d = (r + rj) * scale;
  return v2_len2(v2_sub(p, xj)) < d * d;
}

/* The box around spawn candidates outside which no agent (radius at most
 * max_radius) can block one: their extent grown by the largest contact
 * distance, with a margin against rounding. Only a filter: the test is
 * thr_agent_blocks_point. */
typedef struct thr_probe_box {
  float x0, y0, x1, y1;
} thr_probe_box;

THR_HD thr_probe_box thr_probe_box_of(const thr_vec2 *pts, const float *radius, size_t n, float max_radius,
                                      float scale) {
  thr_probe_box bx = {INFINITY, INFINITY, -INFINITY, -INFINITY};
  float rmax = 0.0f;
  for (size_t k = 0; k < n; ++k) {
    bx.x0 = fminf(bx.x0, pts[k].x);
    bx.y0 = fminf(bx.y0, pts[k].y);
    bx.x1 = fmaxf(bx.x1, pts[k].x);
    bx.y1 = fmaxf(bx.y1, pts[k].y);
    rmax = fmaxf(rmax, radius[k]);
  }
  float g = (rmax + max_radius) * scale * 1.001f + 1e-3f;
  bx.x0 -= g;
  bx.y0 -= g;
  bx.x1 += g;
  bx.y1 += g;
  return bx;
}

THR_HD int thr_probe_box_holds(thr_probe_box bx, thr_vec2 x) {
  return x.x >= bx.x0 && x.x <= bx.x1 && x.y >= bx.y0 && x.y <= bx.y1;
}

/* Distance walked after a step from x_old to x_new. */
THR_HD float thr_agent_travel(float travel, thr_vec2 x_old, thr_vec2 x_new) {
  return travel + v2_len(v2_sub(x_new, x_old));
}

/* ---- health: the run stops on a non-finite state ------------------------ */

/* The first field of an agent's new state that is not finite (THR_F_X,
 * THR_F_P or THR_F_V), or -1 when all are. */
THR_HD int thr_nonfinite_field(thr_vec2 x, thr_vec2 p, thr_vec2 v) {
  if (!isfinite(x.x) || !isfinite(x.y)) return THR_F_X;
  if (!isfinite(p.x) || !isfinite(p.y)) return THR_F_P;
  if (!isfinite(v.x) || !isfinite(v.y)) return THR_F_V;
  return -1;
}

/* Formation error of agent i in formation f (final position x): its
 * squared distance to its SRD in units of THR_SPEED_QUANTUM m^2 (the same
 * integer quantum, so sums do not depend on their order). */
THR_HD int64_t thr_agent_formation_error(const thr_ctx *c, int i, int f) {
  return thr_speed_quanta(v2_len2(v2_sub(c->x[i], thr_agent_srd(c, i, f))));
}

/* Agent i's speed (with its vertical velocity in 3D). */
THR_HD float thr_agent_speed(const thr_ctx *c, int i) {
  thr_vec2 v = c->v[i];
  return c->prm.dim3 ? sqrtf(v.x * v.x + v.y * v.y + c->vz[i] * c->vz[i]) : v2_len(v);
}

/* Per-agent contribution to the step metrics, on final positions x (in 3D
 * with their altitudes: overlaps of spheres). */
typedef struct thr_agent_metrics {
  int overlaps;          /* pairs with this agent as lower id that overlap */
  float max_overlap;     /* largest overlap depth [m] */
  float max_overlap_rel; /* ... relative to the smaller radius of the pair */
  float wall_overlap;    /* deepest wall penetration [m] (0 when none) */
} thr_agent_metrics;

THR_HD thr_agent_metrics thr_agent_measure(const thr_ctx *c, int i) {
  thr_agent_metrics m;
  m.overlaps = 0;
  m.max_overlap = 0.0f;
  m.max_overlap_rel = 0.0f;
  m.wall_overlap = 0.0f;
  thr_vec2 xi = c->x[i];
  float ri = c->radius[i];
  uint32_t idi = c->id[i];
  thr_nbr_iter it;
  thr_nbr_begin(&it, &c->grid, c->grid.cell_of[i], c->k_contact);
  for (int j; (j = thr_nbr_next(&it, &c->grid)) >= 0;) {
    if (j == i || c->id[j] < idi) continue;
    float rj = c->radius[j];
    float rs = ri + rj;
    float d2 = v2_len2(v2_sub(xi, c->x[j]));
    if (c->prm.dim3) { /* spheres */
      float dz = c->z[i] - c->z[j];
      d2 += dz * dz;
    }
    if (!(d2 < rs * rs)) continue;
    float ov = rs - sqrtf(d2);
    float rel = ov / (ri < rj ? ri : rj);
    m.overlaps++;
    if (ov > m.max_overlap) m.max_overlap = ov;
    if (rel > m.max_overlap_rel) m.max_overlap_rel = rel;
  }
  for (int t = c->obs.cell_offset[c->grid.cell_of[i]];
       t < c->obs.cell_offset[c->grid.cell_of[i] + 1]; ++t) {
    float d;
    thr_vec2 n;
    if (!thr_obstacle_distance(&c->obs, c->obs.cell_items[t], xi, xi, &d, &n)) continue;
    if (ri - d > m.wall_overlap) m.wall_overlap = ri - d;
  }
  return m;
}

#endif
