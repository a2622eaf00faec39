/* The per-agent dispatch of the pass table (pass_list.h): which function
 * a pass calls for one agent, host and device alike. Included by the
 * backends (src/kernels/cpu, src/kernels/cuda) and their tests only. */
#ifndef THRONG_PASS_TABLE_H
#define THRONG_PASS_TABLE_H

#include "pass_list.h"
#include "passes.h"
#include "passes3d.h"
#include "passes_orca.h"
#include "passes_powerlaw.h"
#include "passes_rvo3d.h"

/* A pass without a 2D or a 3D form (THR_NO_2D, THR_NO_3D in the list)
 * keeps x* where a dispatch names it: the loader refuses a scenario of
 * that dimension for its model, so it never runs. */
THR_HD thr_vec2 thr_agent_no_2d(const thr_ctx *c, const thr_agents *a, int i) {
  (void)a;
  return c->p[i];
}
THR_HD thr_vec3 thr_agent_no_3d(const thr_ctx *c, const thr_agents *a, int i) {
  (void)a;
  return thr_agent_p3(c, i);
}
#define THR_NO_2D thr_agent_no_2d
#define THR_NO_3D thr_agent_no_3d

#define THR_IF_SOLVER_BEHAVIOUR(...)
#define THR_IF_SOLVER_UPDATE(...)
#define THR_IF_SOLVER_PLAN(...)
#define THR_IF_SOLVER_STABILITY(...)
#define THR_IF_SOLVER_SOLVER(...) __VA_ARGS__
#define THR_IF_SOLVER_VELOCITY(...)
#define THR_IF_SOLVER_FINAL(...)

/* A SOLVER pass for agent i: the new x*_i. */
THR_HD thr_vec2 thr_pass_solver_agent(int kind, const thr_ctx *c, int i) {
  switch (kind) {
#define THR_X(NAME, label, stage, fn, fn3, on, fwd) THR_IF_SOLVER_##stage(case THR_PASS_##NAME : return fn(c, i);)
    THR_PASSES(THR_X)
#undef THR_X
    default:
      return c->p[i];
  }
}

/* A SOLVER pass for a 3D agent i: the new x*_i. */
THR_HD thr_vec3 thr_pass_solver_agent3(int kind, const thr_ctx *c, int i) {
  switch (kind) {
#define THR_X(NAME, label, stage, fn, fn3, on, fwd) THR_IF_SOLVER_##stage(case THR_PASS_##NAME : return fn3(c, i);)
    THR_PASSES(THR_X)
#undef THR_X
    default:
      return thr_agent_p3(c, i);
  }
}

#define THR_IF_PLAN_BEHAVIOUR(...)
#define THR_IF_PLAN_UPDATE(...)
#define THR_IF_PLAN_PLAN(...) __VA_ARGS__
#define THR_IF_PLAN_STABILITY(...)
#define THR_IF_PLAN_SOLVER(...)
#define THR_IF_PLAN_VELOCITY(...)
#define THR_IF_PLAN_FINAL(...)

/* A PLAN pass for agent i (a: the owned agents' store): the new x*_i. */
THR_HD thr_vec2 thr_pass_plan_agent(int kind, const thr_ctx *c, const thr_agents *a, int i) {
  switch (kind) {
#define THR_X(NAME, label, stage, fn, fn3, on, fwd) THR_IF_PLAN_##stage(case THR_PASS_##NAME : return fn(c, a, i);)
    THR_PASSES(THR_X)
#undef THR_X
    default:
      return c->p[i];
  }
}

/* A PLAN pass for a 3D agent i: the new x*_i. */
THR_HD thr_vec3 thr_pass_plan_agent3(int kind, const thr_ctx *c, const thr_agents *a, int i) {
  switch (kind) {
#define THR_X(NAME, label, stage, fn, fn3, on, fwd) THR_IF_PLAN_##stage(case THR_PASS_##NAME : return fn3(c, a, i);)
    THR_PASSES(THR_X)
#undef THR_X
    default:
      return thr_agent_p3(c, i);
  }
}

#define THR_IF_BEHAVIOUR_BEHAVIOUR(...) __VA_ARGS__
#define THR_IF_BEHAVIOUR_UPDATE(...)
#define THR_IF_BEHAVIOUR_PLAN(...)
#define THR_IF_BEHAVIOUR_STABILITY(...)
#define THR_IF_BEHAVIOUR_SOLVER(...)
#define THR_IF_BEHAVIOUR_VELOCITY(...)
#define THR_IF_BEHAVIOUR_FINAL(...)

/* A BEHAVIOUR pass for agent i: its new clear-step count. */
THR_HD int thr_pass_behaviour_agent(int kind, const thr_ctx *c, int i) {
  switch (kind) {
#define THR_X(NAME, label, stage, fn, fn3, on, fwd) THR_IF_BEHAVIOUR_##stage(case THR_PASS_##NAME : return fn(c, i);)
    THR_PASSES(THR_X)
#undef THR_X
    default:
      return c->fclear[i];
  }
}

#define THR_IF_UPDATE_BEHAVIOUR(...)
#define THR_IF_UPDATE_UPDATE(...) __VA_ARGS__
#define THR_IF_UPDATE_PLAN(...)
#define THR_IF_UPDATE_STABILITY(...)
#define THR_IF_UPDATE_SOLVER(...)
#define THR_IF_UPDATE_VELOCITY(...)
#define THR_IF_UPDATE_FINAL(...)

/* An UPDATE pass for agent i (a: the store, owned agents then ghosts). */
THR_HD void thr_pass_update_agent(int kind, const thr_ctx *c, const thr_agents *a, int i) {
  switch (kind) {
#define THR_X(NAME, label, stage, fn, fn3, on, fwd) THR_IF_UPDATE_##stage(case THR_PASS_##NAME : fn(c, a, i); break;)
    THR_PASSES(THR_X)
#undef THR_X
    default:
      break;
  }
}

/* Where a BEHAVIOUR pass writes each agent's result (a store of host or
 * device pointers). */
THR_HD int32_t *thr_pass_behaviour_out(int kind, const thr_agents *a) {
  return kind == THR_PASS_PLANE_CHOICE ? a->plane : a->fclear;
}

#endif
