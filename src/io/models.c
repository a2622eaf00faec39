#include "models.h"

#include <string.h>

/* in the order of the model list (base/model_list.h) */
const thr_model_desc *const thr_models[] = {
#define THR_X(KIND, name, own_plan, groups, reach0, reach1, walls, derive) &thr_model_##name,
    THR_MODELS(THR_X)
#undef THR_X
};
const int thr_model_count = (int)(sizeof thr_models / sizeof thr_models[0]);

const thr_model_desc *thr_model_of(int kind) {
  for (int k = 0; k < thr_model_count; ++k)
    if (thr_models[k]->kind == kind) return thr_models[k];
  return NULL;
}

const thr_model_desc *thr_model_owning(const char *path) {
  size_t len = strcspn(path, ".[");
  for (int k = 0; k < thr_model_count; ++k)
    for (const char *const *s = thr_models[k]->sections; *s; ++s)
      if (strlen(*s) == len && !strncmp(*s, path, len)) return thr_models[k];
  return NULL;
}
