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
} thr_run_opts;

/* Returns 0, or -1 with a message in err (runtime failure). Collective. */
int thr_run(thr_sim *s, const thr_scenario *sc, const thr_run_opts *o, char *err, size_t errlen);

#endif
