/* What the world and the kernels ask of a crowd model, from the model list
 * (model_list.h): no code outside a model's own files branches on its kind. */
#ifndef THRONG_MODEL_NEEDS_H
#define THRONG_MODEL_NEEDS_H

#include "agents.h"
#include "hostdevice.h"
#include "params.h"

/* Does the model give x* by a PLAN pass of its own (PBD's plan and
 * prediction then do not run)? */
THR_HD int thr_model_plans_itself(const thr_params *prm) {
  switch (prm->model_kind) {
#define THR_X(KIND, name, own_plan, groups, reach0, reach1, walls) \
  case THR_MODEL_##KIND:                                           \
    return own_plan;
    THR_MODELS(THR_X)
#undef THR_X
    default:
      return 0;
  }
}

/* The field groups (THR_GROUP_BIT) of the run's model; of every model. */
static inline unsigned thr_model_groups(const thr_params *prm) {
  switch (prm->model_kind) {
#define THR_X(KIND, name, own_plan, groups, reach0, reach1, walls) \
  case THR_MODEL_##KIND:                                           \
    return groups;
    THR_MODELS(THR_X)
#undef THR_X
    default:
      return 0u;
  }
}
static inline unsigned thr_model_groups_of_any(void) {
  unsigned g = 0u;
#define THR_X(KIND, name, own_plan, groups, reach0, reach1, walls) g |= groups;
  THR_MODELS(THR_X)
#undef THR_X
  return g;
}

/* The radius of the model's own neighbour query q (0 or 1) [m], 0: none;
 * rmax: the largest agent radius. */
static inline float thr_model_reach(const thr_params *prm, float rmax, int q) {
  (void)rmax;
  switch (prm->model_kind) {
#define THR_X(KIND, name, own_plan, groups, reach0, reach1, walls) \
  case THR_MODEL_##KIND:                                           \
    return q == 0 ? (reach0) : (reach1);
    THR_MODELS(THR_X)
#undef THR_X
    default:
      return 0.0f;
  }
}

/* How far from an agent's centre the model reads walls [m] (0: only the
 * contact of PBD's constraints). */
static inline float thr_model_wall_reach(const thr_params *prm, float rmax) {
  (void)rmax;
  switch (prm->model_kind) {
#define THR_X(KIND, name, own_plan, groups, reach0, reach1, walls) \
  case THR_MODEL_##KIND:                                           \
    return walls;
    THR_MODELS(THR_X)
#undef THR_X
    default:
      return 0.0f;
  }
}

#endif
