/* Scenario files: YAML (libyaml) -> thr_scenario, with validation.
 * Every key is documented in docs/configuration.md. Errors name the file,
 * line, column and key (or the --set override) and what is wrong. */
#ifndef THRONG_CONFIG_H
#define THRONG_CONFIG_H

#include <stddef.h>
#include "base/scenario.h"

/* Load and validate scenario `path`, applying `n_sets` overrides of the form
 * "KEY=VALUE" (the --set options, in order). On success fills *sc and
 * returns 0. On bad input writes one message (no trailing newline) to err
 * and returns -1; *sc is then left empty (safe to free). */
int thr_config_load(const char *path, const char *const *sets, int n_sets, thr_scenario *sc, char *err,
                    size_t errlen);

/* The paper's defaults (radius-0.5 agents), as documented. */
void thr_params_defaults(thr_params *prm);

#endif
