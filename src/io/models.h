/* The crowd models as the host sees them (issue 33, decision 0015): one
 * row per model with what the loader, `throng check` and run.json ask of
 * it, so that none of them branches on the model kind. A model's rows live
 * in its own file (io/model_pbd.c, model_orca.c, model_powerlaw.c); this
 * table lists them in THR_MODEL_* order. */
#ifndef THRONG_IO_MODELS_H
#define THRONG_IO_MODELS_H

#include <stdio.h>

#include "base/params.h"
#include "base/scenario.h"

/* A key a model's settle step refuses: its section and name, and why. */
typedef struct thr_model_fault {
  const char *section, *name;
  char why[200];
} thr_model_fault;

typedef struct thr_model_desc {
  int kind;        /* THR_MODEL_* */
  const char *key; /* its model.kind value */
  /* a model with its own plan (model_list.h): what model.max_speed is to it */
  const char *max_speed_role;
  /* After every key is read: checks what the key table cannot and derives
   * the model's parameters; 0, or -1 with *fault filled. NULL: nothing. */
  int (*settle)(thr_params *p, const thr_scenario *sc, thr_model_fault *fault);
  /* `throng check`: the model's lines of the summary */
  void (*summary)(FILE *f, const thr_scenario *sc, const thr_params *p);
  /* run.json: the "model" object, one line with its trailing comma */
  void (*json)(FILE *f, const thr_params *p);
  /* its top-level sections, NULL-terminated ({"orca", "forces",
   * "behaviors", NULL}): their keys fill its member of thr_params's model
   * union, so another model's scenario may not give them */
  const char *const *sections;
} thr_model_desc;

/* thr_model_pbd, thr_model_orca, ...: one per line of the model list */
#define THR_X(KIND, name, own_plan, groups, reach0, reach1, walls, derive) extern const thr_model_desc thr_model_##name;
THR_MODELS(THR_X)
#undef THR_X

/* The model.kind choices, "pbd, orca, powerlaw" (the model list's order). */
#define THR_MODEL_CHOICE(KIND, name, own_plan, groups, reach0, reach1, walls, derive) ", " #name
#define THR_MODEL_CHOICES (&(THR_MODELS(THR_MODEL_CHOICE))[2]) /* past the first ", " */

/* Every model, in THR_MODEL_* order, and the one of a kind (NULL if none). */
extern const thr_model_desc *const thr_models[];
extern const int thr_model_count;
const thr_model_desc *thr_model_of(int kind);

/* The model whose section holds the key `path` ("forces.k_thresh"), or NULL
 * for the keys every model shares. */
const thr_model_desc *thr_model_owning(const char *path);

#endif
