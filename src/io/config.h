/* Scenario files: YAML (libyaml) -> thr_scenario, with validation.
 * Every key is a row of the key table (schema.h), which docs/configuration.md
 * prints. Errors name the file, line, column and key (or the --set override)
 * and what is wrong. */
#ifndef THRONG_CONFIG_H
#define THRONG_CONFIG_H

#include <stddef.h>
#include "base/scenario.h"
#include "schema.h"

/* Load and validate scenario `path`, applying `n_sets` overrides of the form
 * "KEY=VALUE" (the --set options, in order). On success fills *sc and
 * returns 0. On bad input writes one message (no trailing newline) to err
 * and returns -1; *sc is then left empty (safe to free). */
int thr_config_load(const char *path, const char *const *sets, int n_sets, thr_scenario *sc, char *err,
                    size_t errlen);

/* The paper's defaults (radius-0.5 agents), as documented: the key table's
 * defaults of the thr_params fields; every other field 0. */
void thr_params_defaults(thr_params *prm);
/* ... of the shared keys and those of model `kind` (THR_MODEL_*): only the
 * run's model's member of the parameters' model union holds values. */
void thr_params_defaults_of(thr_params *prm, int kind);

/* The key table's defaults of the thr_scenario fields, thr_params included;
 * other fields are left as they are. (The name, derived from the file's
 * name, is set by thr_config_load.) */
void thr_config_scenario_defaults(thr_scenario *sc);

/* The key table's defaults of the thr_block fields (the name block<N> and
 * the group, derived from the block's index, are set by thr_config_load). */
void thr_config_block_defaults(thr_block *b);

/* Read row k's default text, as a file's value of k would be read, into its
 * field in obj (the struct k->field.at names). 0, or -1 with a message in err
 * (when k has no default or field, or the default does not read). */
int thr_config_read_default(const thr_key *k, void *obj, char *err, size_t errlen);

/* A preset's value of a key into obj (the struct its row's field lives
 * in), as the loader applies it; tests/unit/test_schema.c reads them all. */
int thr_config_read_preset_value(const thr_preset_value *pv, void *obj, char *err, size_t errlen);

#endif
