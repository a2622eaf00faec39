/* run.json: what ran (scenario, parameters, build, ranks) and, once done,
 * how long each phase took. */
#ifndef THRONG_RUN_JSON_H
#define THRONG_RUN_JSON_H

#include <stddef.h>

#include "base/scenario.h"
#include "core/sim.h"

/* How a run ended (or that it is still going), for run.json and the exit
 * status (docs/user-guide.md). */
enum thr_run_state {
  THR_RUN_RUNNING,     /* written at the start: a run.json saying this was cut short */
  THR_RUN_COMPLETE,    /* exit 0 */
  THR_RUN_FAILED,      /* exit 1: a write failed, out of memory, ... */
  THR_RUN_DIVERGED,    /* exit 3: the state became non-finite */
  THR_RUN_INTERRUPTED, /* exit 128 + signal: SIGINT (or SIGTERM without an output directory) */
  THR_RUN_CHECKPOINTED /* exit 75: SIGTERM, SIGUSR1 or SIGHUP; a checkpoint to restart from was written */
};

/* What a run read and wrote besides its metrics: the checkpoint it
 * continues and the last one it wrote (NULL: none), and the time spent
 * writing trajectory frames and checkpoints and in Catalyst. */
typedef struct thr_run_io {
  const char *restarted_from; /* --restart FILE */
  long restart_step;
  const char *checkpoint;     /* the last checkpoint written */
  double trajectory_seconds;
  long trajectory_frames;
  double checkpoint_seconds;
  long checkpoints;
  double catalyst_seconds; /* in Catalyst calls (the view of the agents included) */
  double catalyst_first;   /* of which the first call (imports, views) */
  long catalyst_calls;
  /* the output cadence (steps; 0: none), for readers of the files */
  const char *trajectory_format; /* "hdf5", "csv", or NULL: no trajectory */
  int trajectory_every, metrics_every, map_every, checkpoint_every, catalyst_every;
} thr_run_io;

/* The state's name in run.json and summary.json ("complete", ...). */
const char *thr_run_state_name(int state);

/* run.json in `dir` (written to run.json.tmp and renamed): what ran, how
 * far (steps, agent-steps: the agents of each step summed, wall seconds),
 * the state and, unless complete, why
 * (`reason`). Returns 0, or -1 with "PATH: reason" in err. */
int thr_write_run_json(const char *dir, const thr_scenario *sc, const thr_sim *s, long steps, double agent_steps,
                       double wall, int state, const char *reason, const thr_run_io *io, char *err,
                       size_t errlen);

#endif
