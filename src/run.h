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
  int trajectory_hdf5;     /* frames into trajectory.h5 (else one CSV file each) */
  int compression;         /* trajectory.h5 deflate level (0: none) */
  int checkpoint_every;    /* a checkpoint every this many steps (0: only when stopped by SIGTERM/SIGUSR1/SIGHUP/SIGHUP) */
  int checkpoint_keep;     /* checkpoints kept (older ones are deleted) */
  int n_catalyst;           /* Catalyst scripts (the scenario's catalyst_scripts, --catalyst included) */
  int catalyst_every;       /* hand them the state every this many steps */
  struct thr_checkpoint *restart; /* the checkpoint this run continues (its outputs' counts), or NULL */
  const char *restart_path;
} thr_run_opts;

/* Exit status of a run stopped by SIGTERM, SIGUSR1 or SIGHUP after writing a
 * checkpoint (EX_TEMPFAIL: job scripts requeue on it). */
enum { THR_EXIT_BAD_INPUT = 2, THR_EXIT_CHECKPOINTED = 75 };

/* From now on remember SIGTERM, SIGUSR1 and SIGHUP (Slurm's time limit,
 * its warning, a closed session), so that one arriving while a run starts up (reading, placing,
 * routing: minutes for a large crowd) stops it at its first step, with a
 * checkpoint; without this the default action would kill the process. */
void thr_run_watch_signals(void);

/* Run o->steps steps (fewer when an evacuation empties the simulation:
 * every agent has left and no source will add one) with the outputs due, checking after every step that
 * the state is finite and that no rank was asked to stop (SIGINT, SIGTERM:
 * the run stops at the next step boundary with complete outputs). Returns
 * the exit status: 0 complete; 1 a runtime failure (a write failed: err
 * names the file and why; a Catalyst script raised an error); 2 a Catalyst
 * script did not load (nothing written); 3 the state became non-finite (err names the
 * step, the agent and the field); 75 when SIGTERM, SIGUSR1 or SIGHUP stopped it and
 * a checkpoint was written (checkpoints/latest.h5 in the output directory);
 * 128 + signal when stopped by SIGINT (or SIGTERM, SIGUSR1, SIGHUP without
 * an output directory).
 * run.json records the same. Collective. */
int thr_run(thr_sim *s, const thr_scenario *sc, const thr_run_opts *o, char *err, size_t errlen);

#endif
