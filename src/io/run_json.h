/* run.json: what ran (scenario, parameters, build, ranks) and, once done,
 * how long each phase took. */
#ifndef THRONG_RUN_JSON_H
#define THRONG_RUN_JSON_H

#include "base/scenario.h"
#include "core/sim.h"

/* Written at the start (done = 0) and rewritten at the end (done = 1). */
int thr_write_run_json(const char *dir, const thr_scenario *sc, const thr_sim *s, long steps, double wall,
                       int done);

#endif
