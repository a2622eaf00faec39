/* What a run writes (docs/user-guide.md, "Outputs"): metrics.csv, the
 * trajectory CSV series, run.json, and the --final-state file. Only rank 0
 * calls these; agents arrive gathered and sorted by id. */
#ifndef THRONG_OUTPUT_H
#define THRONG_OUTPUT_H

#include <stdio.h>

#include "base/agents.h"
#include "core/sim.h"

typedef struct thr_output {
  char dir[1024];
  FILE *metrics;
  int trajectory;    /* write trajectory frames */
  long n_frames;
  long frame_cap;
  long *frame_step;
  double *frame_time;
} thr_output;

/* Create `dir` (and parents) and open the enabled outputs. */
int thr_output_open(thr_output *o, const char *dir, int metrics, int trajectory, char *err, size_t errlen);
int thr_output_metrics(thr_output *o, const thr_metrics *m);
int thr_output_trajectory(thr_output *o, long step, double time, const thr_agents *all);
void thr_output_close(thr_output *o);

/* id,x,y,vx,vy sorted by id, C99 hexadecimal floats; written to a temporary
 * file and renamed, so the file is complete or absent. */
int thr_write_final_state(const char *path, const thr_agents *all, char *err, size_t errlen);

/* mkdir -p */
int thr_make_dirs(const char *path);

#endif
