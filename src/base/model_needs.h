/* What the world and the kernels ask of a crowd model, from the model list
 * (model_list.h): no code outside a model's own files branches on its kind. */
#ifndef THRONG_MODEL_NEEDS_H
#define THRONG_MODEL_NEEDS_H

#include "agents.h"
#include "hostdevice.h"
#include "params.h"

typedef struct thr_model_needs {
  int own_plan;    /* a PLAN pass of its own gives x* (PBD's plan and prediction do not run); 2: and keeps its velocity */
  unsigned groups; /* the field groups it needs beyond CORE (THR_GROUP_BIT) */
  float reach[2];  /* the radii of its own neighbour queries [m], 0: none */
  float walls;     /* how far from an agent's centre it reads walls [m], 0: only PBD's contact */
} thr_model_needs;

/* The line of the run's model; rmax: the largest agent radius. */
THR_HD thr_model_needs thr_model_needs_of(const thr_params *prm, float rmax) {
  thr_model_needs n = {0, 0u, {0.0f, 0.0f}, 0.0f};
  (void)rmax;
  switch (prm->model_kind) {
#define THR_X(KIND, name, own_plan, groups, reach0, reach1, walls, derive) \
  case THR_MODEL_##KIND: {                                         \
    thr_model_needs m = {own_plan, groups, {reach0, reach1}, walls}; \
    n = m;                                                         \
    break;                                                         \
  }
    THR_MODELS(THR_X)
#undef THR_X
    default:
      break;
  }
  return n;
}

/* The model's parameters derived from the world (rmax: the largest agent
 * radius), set in prm. */
static inline void thr_model_derive(thr_params *prm, float rmax) {
  switch (prm->model_kind) {
#define THR_X(KIND, name, own_plan, groups, reach0, reach1, walls, derive) \
  case THR_MODEL_##KIND:                                                 \
    derive;                                                              \
    break;
    THR_MODELS(THR_X)
#undef THR_X
    default:
      break;
  }
}

THR_HD int thr_model_plans_itself(const thr_params *prm) { return thr_model_needs_of(prm, 0.0f).own_plan; }
/* Does the final pass leave the planned velocity as it is (own_plan 2)? */
THR_HD int thr_model_keeps_velocity(const thr_params *prm) { return thr_model_needs_of(prm, 0.0f).own_plan == 2; }

/* The field groups of every model's line. */
static inline unsigned thr_model_groups_of_any(void) {
  unsigned g = 0u;
#define THR_X(KIND, name, own_plan, groups, reach0, reach1, walls, derive) g |= groups;
  THR_MODELS(THR_X)
#undef THR_X
  return g;
}

#endif
