/* The passes of a time step, declared once (Algorithm 1, lines 9-27): the
 * list and what the host asks of it (labels, stages, which run, which
 * fields they forward, which fields a run stores). The per-agent dispatch
 * that calls each pass's function is pass_table.h; only the backends
 * include it, so the domain decomposition compiles no model's passes.
 *
 * THR_PASSES(PASS) calls PASS(NAME, label, stage, agent_fn, agent_fn3, enabled, forwards)
 * for each pass, in the order the step runs them:
 *   label     name in timings and profiles
 *   stage     BEHAVIOUR: runs once, first: agent_fn(c, i) returns the
 *                        agent's new formation clear-step count (fclear);
 *             UPDATE:    runs once, first: agent_fn(c, a, i) updates agent i's
 *                        own fields in the store a (reading only its own
 *                        and its neighbours' start-of-step values);
 *             PLAN:      runs once, before the stability iterations: a new
 *                        x*_i from the plan of agent i and its neighbours'
 *                        start-of-step positions (agent_fn(c, a, i) returns it);
 *             STABILITY: contact on x^n, moves x^n and x* (agent_fn returns
 *                        the correction);
 *             SOLVER:    one constraint group of a solver iteration, Jacobi
 *                        on x* (agent_fn returns the new x*_i); every SOLVER
 *                        pass runs once per solver iteration, in list order;
 *             VELOCITY:  v = (x* - x)/dt into vnew;
 *             FINAL:     XSPH, clamps, x = x*, goal flags.
 *   agent_fn3 the same for 3D agents (passes3d.h; a vector of thr_vec3 where
 *             agent_fn returns a thr_vec2), THR_NO_3D where a pass has none
 *             (those are off in a 3D scenario, or need no 3D form); a pass
 *             of 3D agents only has THR_NO_2D as its agent_fn (the loader
 *             refuses a model whose PLAN pass has no form for the scenario:
 *             thr_pass_has_form)
 *   enabled   an expression of `prm` (const thr_params *): does the pass run?
 *   forwards  an expression of `prm`: the fields (THR_FIELD_BIT) whose new
 *             values ghosts on other ranks need after this pass (in 3D
 *             with their altitude companions, thr_fields_3d).
 * A new constraint group is one SOLVER line here plus its per-agent function
 * in passes.h: the driver, both backends and the halo follow from the line. */
#ifndef THRONG_PASS_LIST_H
#define THRONG_PASS_LIST_H

#include "base/agents.h"
#include "base/model_needs.h"
#include "base/params.h"

#define THR_PASSES(PASS)                                                                                     \
  PASS(FORMATION_STATE, "formation_state", BEHAVIOUR, thr_agent_formation_clear, THR_NO_3D, prm->formation_on, 0)  \
  PASS(PLANE_CHOICE, "plane_choice", BEHAVIOUR, thr_agent_plane_choice, THR_NO_3D,                              \
    prm->dim3 && prm->avoidance_on && prm->av_plane == THR_PLANE_AUTO, THR_FIELD_BIT(PLANE))                     \
  PASS(BEHAVIOR, "behavior", UPDATE, thr_agent_behavior, THR_NO_3D,                                               \
    prm->model_kind == THR_MODEL_ORCA, 0)          \
  PASS(ORCA_FORCES, "orca_forces", UPDATE, thr_agent_orca_forces_out, THR_NO_3D,                                  \
    prm->model_kind == THR_MODEL_ORCA && prm->orca.forces_on,                                                         \
    THR_FIELD_BIT(FPUSH) | THR_FIELD_BIT(FAHEAD) | THR_FIELD_BIT(FSHARE) | THR_FIELD_BIT(FAXIS) |                \
        THR_FIELD_BIT(FCONE))                  \
  PASS(PLAN_VELOCITY, "plan", UPDATE, thr_agent_plan_velocity, THR_NO_3D, prm->headway_on, THR_FIELD_BIT(VPREF)) \
  PASS(HEADWAY, "headway", PLAN, thr_agent_headway, THR_NO_3D, prm->headway_on, THR_FIELD_BIT(P))              \
  PASS(ORCA, "orca", PLAN, thr_agent_orca, THR_NO_3D, prm->model_kind == THR_MODEL_ORCA, 0)                      \
  PASS(POWERLAW, "powerlaw", PLAN, thr_agent_powerlaw, THR_NO_3D, prm->model_kind == THR_MODEL_POWERLAW, 0)      \
  PASS(RVO3D, "rvo3d", PLAN, THR_NO_2D, thr_agent_rvo3d, prm->model_kind == THR_MODEL_RVO3D, 0)                  \
  PASS(STABILITY, "stability", STABILITY, thr_agent_stability, thr_agent_stability3, 1,                          \
    THR_FIELD_BIT(X) | THR_FIELD_BIT(P))                                                                    \
  PASS(FORMATION, "formation", SOLVER, thr_agent_formation, thr_agent_keep3, prm->formation_on, THR_FIELD_BIT(P)) \
  PASS(LONG_RANGE, "long_range", SOLVER, thr_agent_long_range, thr_agent_long_range3,                           \
    prm->longrange_on || prm->avoidance_on, THR_FIELD_BIT(P))                                               \
  PASS(CONTACT, "contact", SOLVER, thr_agent_contact, thr_agent_contact3,                                       \
    (prm->contact_on || prm->walls_on || prm->dim3) && prm->model_kind == THR_MODEL_PBD, THR_FIELD_BIT(P))                                        \
  PASS(VELOCITY, "velocity", VELOCITY, thr_agent_velocity, thr_agent_velocity3, 1,                              \
    prm->xsph_on ? THR_FIELD_BIT(VNEW) : 0)                                                                 \
  PASS(FINALIZE, "xsph", FINAL, thr_agent_xsph_clamp, thr_agent_xsph_clamp3, 1, 0)

enum thr_pass_kind {
#define THR_X(NAME, label, stage, fn, fn3, on, fwd) THR_PASS_##NAME,
  THR_PASSES(THR_X)
#undef THR_X
  THR_PASS_COUNT
};

enum thr_pass_stage { THR_STAGE_BEHAVIOUR, THR_STAGE_UPDATE, THR_STAGE_PLAN, THR_STAGE_STABILITY, THR_STAGE_SOLVER, THR_STAGE_VELOCITY, THR_STAGE_FINAL };

/* The fields of mask with their altitude companions (z of x, pz of p, ...)
 * in a 3D scenario; mask itself in 2D. */
static inline thr_field_mask thr_fields_3d(thr_field_mask m, const thr_params *prm) {
  if (!prm->dim3) return m;
  if (m & THR_FIELD_BIT(X)) m |= THR_FIELD_BIT(Z);
  if (m & THR_FIELD_BIT(P)) m |= THR_FIELD_BIT(PZ);
  if (m & THR_FIELD_BIT(V)) m |= THR_FIELD_BIT(VZ);
  if (m & THR_FIELD_BIT(VNEW)) m |= THR_FIELD_BIT(VNEWZ);
  return m;
}

/* The fields a run keeps no arrays for (agent_fields.h, column group):
 * the 3D ones in 2D, the ORCA ones under the other models, the formation
 * ones without formations. They hold their blank value for every agent. */
static inline thr_field_mask thr_fields_absent(const thr_params *prm) {
  thr_field_mask m = 0;
  if (!prm->dim3) m |= thr_fields_of_group(THR_GROUP_DIM3);
  unsigned others = thr_model_groups_of_any() & ~thr_model_needs_of(prm, 0.0f).groups; /* other models' */
  for (int g = 0; g < THR_GROUP_COUNT; ++g)
    if (others & (1u << g)) m |= thr_fields_of_group(g);
  if (!prm->formation_on) m |= thr_fields_of_group(THR_GROUP_FORMATION);
  return m;
}

/* ---- host side: what the driver and the backends ask of the table ---- */

static inline const char *thr_pass_label(int kind) {
  static const char *const labels[THR_PASS_COUNT] = {
#define THR_X(NAME, label, stage, fn, fn3, on, fwd) label,
      THR_PASSES(THR_X)
#undef THR_X
  };
  return kind >= 0 && kind < THR_PASS_COUNT ? labels[kind] : "?";
}

static inline int thr_pass_stage(int kind) {
  switch (kind) {
#define THR_X(NAME, label, stage, fn, fn3, on, fwd) \
  case THR_PASS_##NAME:                        \
    return THR_STAGE_##stage;
    THR_PASSES(THR_X)
#undef THR_X
    default:
      return -1;
  }
}

static inline int thr_pass_enabled(int kind, const thr_params *prm) {
  switch (kind) {
#define THR_X(NAME, label, stage, fn, fn3, on, fwd) \
  case THR_PASS_##NAME:                        \
    return (on) != 0;
    THR_PASSES(THR_X)
#undef THR_X
    default:
      return 0;
  }
}

/* Has the pass a form for 2D (dim3 = 0) or 3D agents (its agent_fn or
 * agent_fn3 is not THR_NO_2D or THR_NO_3D)? */
static inline int thr_pass_has_form(int kind, int dim3) {
  static const char *const fn2[THR_PASS_COUNT] = {
#define THR_X(NAME, label, stage, fn, fn3, on, fwd) #fn,
      THR_PASSES(THR_X)
#undef THR_X
  };
  static const char *const fn3s[THR_PASS_COUNT] = {
#define THR_X(NAME, label, stage, fn, fn3, on, fwd) #fn3,
      THR_PASSES(THR_X)
#undef THR_X
  };
  if (kind < 0 || kind >= THR_PASS_COUNT) return 0;
  const char *f = dim3 ? fn3s[kind] : fn2[kind], *none = dim3 ? "THR_NO_3D" : "THR_NO_2D";
  for (int k = 0;; ++k)
    if (f[k] != none[k]) return 1;
    else if (!f[k]) return 0;
}

static inline thr_field_mask thr_pass_forwards(int kind, const thr_params *prm) {
  switch (kind) {
#define THR_X(NAME, label, stage, fn, fn3, on, fwd) \
  case THR_PASS_##NAME:                        \
    return thr_fields_3d((fwd), prm);
    THR_PASSES(THR_X)
#undef THR_X
    default:
      return 0;
  }
}

#endif
