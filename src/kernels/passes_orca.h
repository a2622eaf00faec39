/* The ORCA model's per-agent work (seed paper 002; spec
 * seed-002-orca-forces.md §3.1-3.6; docs/orca.md): the behaviour state
 * machine (an UPDATE pass), the forces an agent hands on (pass A, UPDATE),
 * and its velocity (pass B, PLAN): the preferred velocity of its state,
 * the net force and its half-plane, its nearest neighbours in (distance,
 * id) order and their half-planes, and the linear program (orca.h).
 * x* = x + dt v_new, from which the velocity and final passes of the step
 * take v and x as for PBD. */
#ifndef THRONG_PASSES_ORCA_H
#define THRONG_PASSES_ORCA_H

#include "orca.h"
#include "passes.h"
#include "rng.h"

/* ORCA's two queries of the model list (model_list.h: reach0, reach1):
 * its neighbours (the largest orca.neighbor_dist) and its forces (orca_reach). */
enum { THR_ORCA_NEIGHBOUR_QUERY = 0, THR_ORCA_FORCE_QUERY = 1 };

/* Candidate j of agent i into the kept list (key_d, key_id, nb; m of at
 * most cap kept), ordered by (squared distance, id). */
THR_HD void thr_orca_keep(float d2, uint32_t id, int j, float *key_d, uint32_t *key_id, int *nb, int *m, int cap) {
  int k = *m < cap ? *m : cap - 1;
  if (*m == cap && !(d2 < key_d[k] || (d2 == key_d[k] && id < key_id[k]))) return;
  /* insertion: shift the larger keys up by one (the last one drops out when full) */
  while (k > 0 && (d2 < key_d[k - 1] || (d2 == key_d[k - 1] && id < key_id[k - 1]))) {
    key_d[k] = key_d[k - 1], key_id[k] = key_id[k - 1], nb[k] = nb[k - 1];
    --k;
  }
  key_d[k] = d2, key_id[k] = id, nb[k] = j;
  if (*m < cap) ++*m;
}

/* The nearest neighbours of agent i closer than range (start of step), at
 * most cap, ordered by (squared distance, id): the same set in the same
 * order whatever the rank or the scan order; with dim3 the distance is 3D
 * (a 2D cell holds every altitude, and the 3D distance is at least the
 * horizontal one). Returns their number; their indices in nb (key_d,
 * key_id: cap entries of scratch). The cells are scanned ring by ring (ring
 * r: the cells r away in x or y) up to `rings`, and the scan stops once the
 * list is full and its furthest entry is nearer than any cell of the next
 * ring can be (r cells away): in a dense crowd one or two rings instead of
 * all of them. ORCA and the 3D ORCA share it. */
THR_HD int thr_nearest_neighbors(const thr_ctx *c, int i, int rings, float range, int cap, int dim3, float *key_d,
                                 uint32_t *key_id, int *nb) {
  const thr_grid_view *g = &c->grid;
  float r2 = range * range;
  int m = 0;
  if (cap <= 0) return 0;
  thr_vec2 xi = c->x[i];
  int cell = g->cell_of[i], cx = cell % g->nx, cy = cell / g->nx;
  for (int r = 0; r <= rings; ++r) {
    for (int dy = -r; dy <= r; ++dy) {
      int y = cy + dy;
      if (y < 0 || y >= g->ny) continue;
      int edge = dy == -r || dy == r; /* a whole row of the ring, or its two ends */
      for (int side = 0; side < (edge ? 1 : 2); ++side) {
        int x0 = edge ? cx - r : (side ? cx + r : cx - r), x1 = edge ? cx + r : x0;
        x0 = x0 < 0 ? 0 : x0;
        x1 = x1 >= g->nx ? g->nx - 1 : x1;
        if (x0 > x1 || (r == 0 && side)) continue;
        for (int t = g->offset[y * g->nx + x0], e = g->offset[y * g->nx + x1 + 1]; t < e; ++t) {
          int j = g->order[t];
          if (j == i) continue;
          float d2 = v2_len2(v2_sub(c->x[j], xi));
          if (dim3) {
            float dz = c->z[i] - c->z[j];
            d2 += dz * dz;
          }
          if (d2 < r2) thr_orca_keep(d2, c->id[j], j, key_d, key_id, nb, &m, cap);
        }
      }
    }
    float next = (float)r * g->cell * 0.999f; /* the next ring is at least this far */
    if (m == cap && key_d[cap - 1] < next * next) break;
  }
  return m;
}

/* ORCA's neighbours of agent i: the nearest orca.max_neighbors within range. */
THR_HD int thr_orca_neighbors(const thr_ctx *c, int i, float range, int *nb) {
  float key_d[THR_ORCA_MAX_NEIGHBORS];
  uint32_t key_id[THR_ORCA_MAX_NEIGHBORS];
  int cap = c->prm.orca.neighbors < THR_ORCA_MAX_NEIGHBORS ? c->prm.orca.neighbors : THR_ORCA_MAX_NEIGHBORS;
  return thr_nearest_neighbors(c, i, c->k_model[THR_ORCA_NEIGHBOUR_QUERY], range, cap, 0, key_d, key_id, nb);
}

/* Edges of obstacle o (obstacles_view.h): a polygon's sides, an open
 * polyline's segments once each way. */
THR_HD int thr_orca_edge_count(const thr_obstacle_view *ov, int o) {
  int m = ov->vfirst[o + 1] - ov->vfirst[o];
  return ov->closed[o] ? m : 2 * (m - 1);
}

/* Unit vector along a, or zero. */
THR_HD thr_vec2 thr_orca_dir(thr_vec2 a) {
  float l = v2_len(a);
  return l > 0.0f ? v2_scale(a, 1.0f / l) : v2(0.0f, 0.0f);
}

/* Is obstacle o a polygon given counter-clockwise (positive area)? */
THR_HD int thr_orca_polygon_ccw(const thr_obstacle_view *ov, int o) {
  const thr_vec2 *v = ov->verts + ov->vfirst[o];
  int m = ov->vfirst[o + 1] - ov->vfirst[o];
  float area2 = 0.0f;
  for (int j = 0; j < m; ++j) area2 += thr_det(v[j], v[j + 1 < m ? j + 1 : 0]);
  return area2 > 0.0f;
}

/* The two ends of edge k of obstacle o, polygons walked counter-clockwise
 * (ccw: thr_orca_polygon_ccw; unused for open walls): all the neighbour
 * query needs. */
THR_HD void thr_orca_edge_ends(const thr_obstacle_view *ov, int o, int k, int ccw, thr_vec2 *p1, thr_vec2 *p2) {
  const thr_vec2 *v = ov->verts + ov->vfirst[o];
  int m = ov->vfirst[o + 1] - ov->vfirst[o];
  if (!ov->closed[o]) {
    *p1 = v[k / 2 + (k & 1)], *p2 = v[k / 2 + !(k & 1)];
    return;
  }
  int a = k % m, b = (k + 1) % m;
  *p1 = v[ccw ? a : m - 1 - a], *p2 = v[ccw ? b : m - 1 - b];
}

/* Edge k of obstacle o (spec §6.3): polygons walked counter-clockwise
 * whatever their orientation in the scenario (ccw: thr_orca_polygon_ccw,
 * once per obstacle; unused for open walls). */
THR_HD thr_orca_edge thr_orca_edge_of(const thr_obstacle_view *ov, int o, int k, int ccw) {
  const thr_vec2 *v = ov->verts + ov->vfirst[o];
  int m = ov->vfirst[o + 1] - ov->vfirst[o];
  thr_orca_edge e;
  if (!ov->closed[o]) {
    thr_orca_edge_ends(ov, o, k, ccw, &e.p1, &e.p2);
    e.d1 = thr_orca_dir(v2_sub(e.p2, e.p1));
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
  e.d1 = thr_orca_dir(v2_sub(w[2], w[1]));
  e.d2 = thr_orca_dir(v2_sub(w[3], w[2]));
  e.dprev = thr_orca_dir(v2_sub(w[1], w[0]));
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
  float ri = c->radius[i], reach = prm->orca.horizon_obst * prm->max_speed + ri, r2 = reach * reach;
  float key_d[THR_ORCA_MAX_EDGES];
  int key_o[THR_ORCA_MAX_EDGES], key_k[THR_ORCA_MAX_EDGES], key_ccw[THR_ORCA_MAX_EDGES], m = 0;
  int cell = c->grid.cell_of[i];
  for (int t = ov->cell_offset[cell]; t < ov->cell_offset[cell + 1]; ++t) {
    int o = ov->cell_items[t], ne = thr_orca_edge_count(ov, o);
    int ccw = ov->closed[o] && thr_orca_polygon_ccw(ov, o);
    for (int k = 0; k < ne; ++k) {
      thr_vec2 p1, p2;
      thr_orca_edge_ends(ov, o, k, ccw, &p1, &p2);
      /* only edges whose outer (right) side the agent is on: it cannot see
       * the back of a polygon's side or of a wall's other face (the spec's
       * neighbour rule leaves this out; without it the back face's
       * half-plane pulls the agent into the wall) */
      if (!(thr_det(v2_sub(p2, p1), v2_sub(xi, p1)) < 0.0f)) continue;
      float d2 = v2_len2(v2_sub(xi, thr_closest_on_segment(xi, p1, p2)));
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
    n += thr_orca_obstacle_line(lines, n, &e, xi, v, ri, prm->orca.horizon_obst, &lines[n]);
  }
  return n;
}

/* ---- behaviour states (002 section 4; spec 3.6) ----------------------------- */

/* The state an ORCA agent is in as a parameter set: the scenario's when
 * it has no behaviour states. */
THR_HD thr_bstate thr_orca_state(const thr_ctx *c, const thr_agents *a, int i) {
  const thr_params *prm = &c->prm;
  if (prm->orca.n_bstates > 0) return c->bstates[a->bstate[i]];
  thr_bstate s;
  s.goal = THR_STATE_GOAL_KEEP;
  s.speed = 1.0f;
  s.range = prm->orca.range;
  s.horizon = prm->orca.horizon;
  s.push = prm->orca.push_mode;
  s.radius = 0.0f;
  s.push_gain = prm->orca.push_gain;
  s.share = prm->orca.share;
  return s;
}

/* The step number of this step (time / dt, the same bits on every backend). */
THR_HD uint64_t thr_orca_step(const thr_ctx *c) { return (uint64_t)(c->ev.time / c->prm.dt + 0.5f); }

/* Lap bookkeeping bits of an agent's flags (spec 3.6): the agent's half of
 * the circuit is known, and it has passed the opposite ray since its last
 * lap (so that being pushed back and forth over the start line counts no
 * lap). */
enum { THR_FLAG_LAP_SEEN = 64u, THR_FLAG_LAP_ARMED = 128u };

/* Did the agent cross the ray from behaviors.center along b (b: towards
 * behaviors.start, or the opposite ray with side -1) counter-clockwise
 * during the last step (x - dt v -> x)? Signs of cross products only: no
 * trigonometry. */
THR_HD int thr_orca_ray_crossed(const thr_params *prm, thr_vec2 x, thr_vec2 v, float side) {
  thr_vec2 c = prm->orca.circ_center;
  thr_vec2 b = v2_scale(v2_sub(prm->orca.circ_start, c), side);
  thr_vec2 now = v2_sub(x, c), before = v2_sub(v2_sub(x, v2_scale(v, prm->dt)), c);
  return thr_det(b, before) < 0.0f && thr_det(b, now) >= 0.0f && v2_dot(now, b) > 0.0f;
}

/* Does agent i close a circuit this step? Crossing the start ray counter-
 * clockwise after the opposite one (an agent first seen on the second half
 * of its circuit is armed). Updates the lap bits. */
THR_HD int thr_orca_lap(const thr_params *prm, const thr_agents *a, int i) {
  uint32_t f = a->flags[i];
  thr_vec2 x = a->x[i], v = a->v[i];
  if (!(f & THR_FLAG_LAP_SEEN)) {
    f |= THR_FLAG_LAP_SEEN;
    if (thr_det(v2_sub(prm->orca.circ_start, prm->orca.circ_center), v2_sub(x, prm->orca.circ_center)) < 0.0f) f |= THR_FLAG_LAP_ARMED;
  }
  int lap = 0;
  if (thr_orca_ray_crossed(prm, x, v, -1.0f)) f |= THR_FLAG_LAP_ARMED;
  if ((f & THR_FLAG_LAP_ARMED) && thr_orca_ray_crossed(prm, x, v, 1.0f)) {
    lap = 1;
    f &= ~(uint32_t)THR_FLAG_LAP_ARMED;
  }
  a->flags[i] = f;
  return lap;
}

/* Does transition t fire for agent i this step (lap: it has just closed a
 * circuit)? */
THR_HD int thr_orca_transition_fires(const thr_ctx *c, const thr_agents *a, int i, const thr_btrans *t, int lap) {
  thr_vec2 x = a->x[i];
  switch (t->kind) {
    case THR_BT_AFTER:
      return a->btime[i] >= t->steps;
    case THR_BT_ARRIVED:
      return (a->flags[i] & THR_FLAG_AT_GOAL) != 0;
    case THR_BT_REGION:
      return x.x >= t->box[0] && x.y >= t->box[1] && x.x <= t->box[2] && x.y <= t->box[3];
    case THR_BT_LAPS:
      return a->laps[i] >= t->laps;
    case THR_BT_LAP:
      return lap;
    case THR_BT_SLOW:
      return a->bslow[i] >= c->prm.orca.slow_steps;
    case THR_BT_RANDOM:
      return thr_rng_uniform(c->prm.orca.rng_seed, a->id[i], thr_orca_step(c), 0x6273u + (uint32_t)(t - c->btrans)) <
             t->chance;
    default:
      return 0;
  }
}

/* The behaviour pass (UPDATE, before the forces): the agent's timers, its
 * lap count, then the first transition of its state that holds (file
 * order; at most one a step). Entering a state with a goal sets the
 * agent's goal set (walked to straight: its route is dropped) and forgets
 * the old arrival. Reads and writes agent i
 * only. */
THR_HD void thr_agent_behavior(const thr_ctx *c, const thr_agents *a, int i) {
  const thr_params *prm = &c->prm;
  thr_bstate st = thr_orca_state(c, a, i);
  a->bslow[i] = v2_len(a->v[i]) < prm->orca.slow_speed ? a->bslow[i] + 1 : 0;
  if (prm->orca.n_bstates == 0) return;
  a->btime[i] += 1;
  int lap = st.goal == THR_STATE_GOAL_CIRCULATE && thr_orca_lap(prm, a, i);
  a->laps[i] += lap;
  for (int k = 0; k < prm->orca.n_btrans; ++k) {
    const thr_btrans *t = &c->btrans[k];
    if (t->from != a->bstate[i] || !thr_orca_transition_fires(c, a, i, t, lap)) continue;
    a->bstate[i] = t->to;
    a->btime[i] = 0;
    a->bslow[i] = 0;
    int g = c->bstates[t->to].goal;
    if (g != THR_STATE_GOAL_KEEP) { /* the state's goal, straight (no distance field) */
      a->goal_set[i] = g >= 0 ? g : THR_GOALSET_NONE;
      a->route[i] = -1;
      a->flags[i] &= ~(uint32_t)THR_FLAG_AT_GOAL;
    }
    break;
  }
}

/* Agent i's preferred velocity in its state: the planner's, scaled by the
 * state's speed; none standing; counter-clockwise around behaviors.center
 * (turned towards behaviors.radius by behaviors.inward per metre off it,
 * at most 1 m's worth) circulating. */
THR_HD thr_vec2 thr_orca_preferred(const thr_ctx *c, const thr_agents *a, int i, const thr_bstate *st) {
  const thr_params *prm = &c->prm;
  if (st->goal == THR_STATE_GOAL_STAND || c->ev.time < a->release[i]) return v2(0.0f, 0.0f);
  if (st->goal == THR_STATE_GOAL_CIRCULATE) {
    thr_vec2 r = v2_sub(a->x[i], prm->orca.circ_center);
    float d = v2_len(r);
    if (!(d > 0.0f)) return v2(0.0f, 0.0f);
    thr_vec2 u = v2_scale(r, 1.0f / d);
    thr_vec2 dir = thr_perp_left(u);
    float radius = st->radius > 0.0f ? st->radius : prm->orca.circ_radius;
    if (radius > 0.0f) { /* radial weight `inward` from 1 m off the radius on, less nearer */
      float off = radius - d;
      off = off > 1.0f ? 1.0f : (off < -1.0f ? -1.0f : off);
      dir = v2_add(dir, v2_scale(u, prm->orca.circ_inward * off));
    }
    return v2_scale(dir, a->pref_speed[i] * st->speed / v2_len(dir));
  }
  return v2_scale(thr_agent_plan(c, a, i).vp, st->speed);
}

/* ---- physical forces (002 section 3.3; spec 2.4, 3.1 passes A and B) ---- */

enum { THR_FLAG_FORCED = 16u,      /* an external force acted on the agent last step (eq. 9) */
       THR_FLAG_LP_FALLBACK = 32u }; /* its linear program had no feasible point last step */

/* Does pusher i (x_i, v_i, r_i, pushing towards unit `ahead`) push agent k
 * (x_k, r_k)? Its next position x_i + dt v_i would touch k (within the
 * interaction margin) and k is ahead of it (a pusher pushes forwards, not
 * the agents beside or behind it: a choice, 002 is silent), within the
 * forces' reach (a pusher faster than twice max_speed pushes no further).
 * One function for the pusher's count and the pushed agent's test. */
THR_HD int thr_orca_pushes(const thr_params *prm, thr_vec2 xi, thr_vec2 vi, float ri, thr_vec2 ahead, thr_vec2 xk,
                           float rk) {
  thr_vec2 d = v2_sub(xk, v2_add(xi, v2_scale(vi, prm->dt))), e = v2_sub(xk, xi);
  float R = ri + rk + prm->orca.interact_margin;
  return v2_len2(d) < R * R && v2_dot(e, ahead) > 0.0f && v2_len2(e) < prm->orca.reach * prm->orca.reach;
}

/* Does agent i push this step (its state's push mode)? */
THR_HD int thr_orca_is_pusher(const thr_ctx *c, const thr_agents *a, int i, const thr_bstate *st) {
  return st->push == THR_PUSH_ALWAYS || (st->push == THR_PUSH_WHEN_SLOW && a->bslow[i] >= c->prm.orca.slow_steps);
}

/* Pass A (UPDATE): what agent i hands on this step. Its push f_p shared
 * among the agents it pushes (fpush), and the force inferred from how its
 * velocity changed last step (deceleration, eq. 8, or resistance to a
 * force, eq. 9) shared among the interacting neighbours in its cone as
 * their reaction (fshare, faxis, fcone), or kept by itself when none
 * (faxis zero). The counts are the sender's: ghosts get the shares by
 * halo forwarding. */
THR_HD void thr_agent_orca_forces_out(const thr_ctx *c, const thr_agents *a, int i) {
  const thr_params *prm = &c->prm;
  thr_bstate st = thr_orca_state(c, a, i);
  thr_vec2 xi = c->x[i], vi = c->v[i];
  float ri = c->radius[i], w = c->inv_mass[i], mass = w > 0.0f ? 1.0f / w : 0.0f;
  float fp = 0.0f;
  thr_vec2 ahead = v2(0.0f, 0.0f);
  if (mass > 0.0f && thr_orca_is_pusher(c, a, i, &st)) {
    thr_vec2 vp = thr_orca_preferred(c, a, i, &st);
    ahead = thr_orca_dir(vp);
    fp = st.push_gain * mass * (prm->orca.push_speed ? v2_len(vp) : v2_len(vi));
  }
  int forced = (a->flags[i] & THR_FLAG_FORCED) != 0;
  thr_vec2 F = forced ? thr_orca_resistive_force(vi, a->vf[i], mass, prm->orca.k_thresh, prm->dt, 1)
                      : thr_orca_deceleration_force(vi, a->vprev[i], mass, prm->orca.k_thresh, prm->orca.cos_d, prm->dt, 0);
  thr_vec2 axis = thr_orca_dir(forced ? a->vf[i] : a->vprev[i]);
  float cos_t = forced ? prm->orca.cos_r : prm->orca.cos_d;
  int has_f = v2_len2(F) > 0.0f && v2_len2(axis) > 0.0f;
  int n_push = 0, n_cone = 0;
  if (fp > 0.0f || has_f) {
    thr_nbr_iter it;
    thr_nbr_begin(&it, &c->grid, c->grid.cell_of[i], c->k_model[THR_ORCA_FORCE_QUERY]);
    for (int j; (j = thr_nbr_next(&it, &c->grid)) >= 0;) {
      if (j == i) continue;
      n_push += fp > 0.0f && thr_orca_pushes(prm, xi, vi, ri, ahead, c->x[j], c->radius[j]);
      n_cone += has_f && thr_orca_in_cone(axis, v2_sub(c->x[j], xi), ri + c->radius[j], prm->orca.interact_margin, cos_t);
    }
  }
  a->fpush[i] = n_push > 0 ? fp / (float)n_push : 0.0f;
  a->fahead[i] = ahead;
  if (n_cone > 0) {
    a->fshare[i] = v2_scale(F, (prm->orca.inferred_sign ? 1.0f : -1.0f) / (float)n_cone);
    a->faxis[i] = axis;
    a->fcone[i] = cos_t;
  } else {
    a->fshare[i] = F;
    a->faxis[i] = v2(0.0f, 0.0f);
    a->fcone[i] = 2.0f;
  }
}

/* Pass B's net force on agent k (eq. 10): what it kept of its own inferred
 * force, collisions with neighbours (eq. 6) and walls (the same with an
 * immovable wall), pushes (eq. 5) and inferred-force shares it receives,
 * summed in canonical neighbour order. Every pair predicate is the
 * sender's function with the sender first. */
THR_HD thr_vec2 thr_orca_net_force(const thr_ctx *c, const thr_agents *a, int k) {
  const thr_params *prm = &c->prm;
  thr_vec2 xk = c->x[k], vk = c->v[k];
  float rk = c->radius[k], wk = c->inv_mass[k];
  thr_vec2 f = v2_len2(a->faxis[k]) > 0.0f ? v2(0.0f, 0.0f) : a->fshare[k];
  thr_nbr_iter it;
  thr_nbr_begin(&it, &c->grid, c->grid.cell_of[k], c->k_model[THR_ORCA_FORCE_QUERY]);
  for (int j; (j = thr_nbr_next(&it, &c->grid)) >= 0;) {
    if (j == k) continue;
    thr_vec2 xj = c->x[j];
    float R = rk + c->radius[j], col = R + prm->orca.contact_margin;
    if (v2_len2(v2_sub(xk, xj)) < col * col)
      f = v2_add(f, thr_orca_collision_force(xk, vk, wk, xj, c->v[j], c->inv_mass[j], prm->orca.restitution, prm->dt,
                                             thr_tie(c->id[k], c->id[j])));
    if (a->fpush[j] > 0.0f && thr_orca_pushes(prm, xj, c->v[j], c->radius[j], a->fahead[j], xk, rk))
      f = v2_add(f, thr_orca_push_force(xj, c->v[j], a->fpush[j], 1, xk, prm->dt));
    if (v2_len2(a->faxis[j]) > 0.0f && thr_orca_in_cone(a->faxis[j], v2_sub(xk, xj), R, prm->orca.interact_margin, a->fcone[j]))
      f = v2_add(f, a->fshare[j]);
  }
  if (prm->walls_on && wk > 0.0f) {
    const thr_obstacle_view *ov = &c->obs;
    int cell = c->grid.cell_of[k];
    for (int t = ov->cell_offset[cell]; t < ov->cell_offset[cell + 1]; ++t) {
      float dist;
      thr_vec2 n;
      if (!thr_obstacle_distance(ov, ov->cell_items[t], xk, xk, &dist, &n) || !(dist < rk + prm->orca.contact_margin))
        continue;
      float vn = v2_dot(vk, n);
      if (vn < 0.0f) f = v2_add(f, v2_scale(n, -(1.0f + prm->orca.restitution) * vn / wk / prm->dt));
    }
  }
  return f;
}

/* Pass B (PLAN): agent i's ORCA step: the permitted velocity closest to its
 * preferred one within the disc of model.max_speed, the obstacle half-
 * planes hard (never given up for the others), then the force constraint
 * (held inside the disc) and the neighbours' half-planes. Records v^(n-1),
 * v^f and the flags of eq. 9 and of the fallback; returns x* = x + dt
 * v_new, the velocity the agent keeps (the final pass leaves it as it is). */
THR_HD thr_vec2 thr_agent_orca(const thr_ctx *c, const thr_agents *a, int i) {
  const thr_params *prm = &c->prm;
  thr_bstate st = thr_orca_state(c, a, i);
  thr_vec2 vp = thr_orca_preferred(c, a, i, &st);
  int nb[THR_ORCA_MAX_NEIGHBORS];
  thr_orca_line lines[THR_ORCA_MAX_EDGES + 1 + THR_ORCA_MAX_NEIGHBORS],
      scratch[THR_ORCA_MAX_EDGES + 1 + THR_ORCA_MAX_NEIGHBORS];
  thr_vec2 xi = c->x[i], vi = c->v[i];
  float ri = c->radius[i], vmax = prm->max_speed;
  int hard = prm->walls_on && c->obs.n > 0 ? thr_orca_obstacle_lines(c, i, vi, lines) : 0, n = hard;
  thr_vec2 vf = vi;
  int forced = 0;
  if (prm->orca.forces_on) {
    thr_vec2 f = thr_orca_net_force(c, a, i);
    vf = v2_add(vi, v2_scale(f, c->inv_mass[i] * prm->dt));
    forced = thr_orca_force_line(vf, f, vmax, &lines[n]);
    n += forced;
  }
  int m = thr_orca_neighbors(c, i, st.range, nb);
  for (int k = 0; k < m; ++k) {
    int j = nb[k];
    lines[n + k] = thr_orca_agent_line(xi, vi, ri, c->x[j], c->v[j], c->radius[j], st.horizon, prm->dt, st.share);
  }
  thr_vec2 v;
  int ok = thr_orca_solve(lines, n + m, hard, vmax, vp, scratch, &v);
  if (prm->orca.forces_on) {
    a->vprev[i] = vi;
    a->vf[i] = vf;
  }
  uint32_t fl = a->flags[i] & ~(uint32_t)(THR_FLAG_FORCED | THR_FLAG_LP_FALLBACK);
  a->flags[i] = fl | (forced ? (uint32_t)THR_FLAG_FORCED : 0u) | (ok ? 0u : (uint32_t)THR_FLAG_LP_FALLBACK);
  return v2_add(xi, v2_scale(v, prm->dt));
}

#endif
