#include "models.h"

/* in the order of the model list (base/model_list.h) */
const thr_model_desc *const thr_models[] = {
#define THR_X(KIND, name, own_plan, groups, reach0, reach1, walls) &thr_model_##name,
    THR_MODELS(THR_X)
#undef THR_X
};
const int thr_model_count = (int)(sizeof thr_models / sizeof thr_models[0]);

const thr_model_desc *thr_model_of(int kind) {
  for (int k = 0; k < thr_model_count; ++k)
    if (thr_models[k]->kind == kind) return thr_models[k];
  return NULL;
}

const char *thr_model_foreign_keys(const thr_params *p, const thr_params *d, const thr_model_desc **owner) {
  for (int k = 0; k < thr_model_count; ++k) {
    const thr_model_desc *m = thr_models[k];
    const char *s = m->kind != p->model_kind && m->keys_given ? m->keys_given(p, d) : NULL;
    if (s) {
      if (owner) *owner = m;
      return s;
    }
  }
  return NULL;
}
