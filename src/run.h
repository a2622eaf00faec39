/* The run loop: steps, outputs at their cadence, a progress line, the final
 * state and the run summary. */
#ifndef THRONG_RUN_H
#define THRONG_RUN_H

#include "base/scenario.h"
#include "core/sim.h"

typedef struct thr_run_opts {
  long steps;              /* steps to take */
  const char *out_dir;     /* output directory (NULL: no output files) */
  const char *final_state; /* --final-state file or NULL */
  int quiet;               /* no progress line or summary */
  int trajectory_every;
  int metrics_every;
  int map_every;           /* density and speed maps: a sample every this many steps (0: none) */
} thr_run_opts;

/* Run o->steps steps (fewer when an evacuation empties the simulation:
 * every agent has left and no source will add one) with the outputs due, checking after every step that
 * the state is finite and that no rank was asked to stop (SIGINT, SIGTERM:
 * the run stops at the next step boundary with complete outputs). Returns
 * the exit status: 0 complete; 1 a runtime failure (a write failed: err
 * names the file and why); 3 the state became non-finite (err names the
 * step, the agent and the field); 128 + signal when stopped by a signal.
 * run.json records the same. Collective. */
int thr_run(thr_sim *s, const thr_scenario *sc, const thr_run_opts *o, char *err, size_t errlen);

#endif
