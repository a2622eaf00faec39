/* What a run writes (docs/user-guide.md, "Outputs"): metrics.csv, the
 * trajectory CSV series, run.json, and the --final-state file. Only rank 0
 * calls these; agents arrive gathered and sorted by id.
 *
 * Every write, flush and close is checked; a failure gives "PATH: reason"
 * and the run stops. Files that must be complete or absent (run.json, the
 * series index, --final-state) are written to PATH.tmp and renamed; a
 * failed write removes the temporary file. Metrics rows are flushed one by
 * one, so the file ends with the last completed step whatever stops the run.
 *
 * Test hook (docs/testing.md): THRONG_FAULT_WRITE=NAME[:N] makes the N-th
 * write (default the first) to a file called NAME fail with ENOSPC, as on a
 * full disk. */
#ifndef THRONG_OUTPUT_H
#define THRONG_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "base/agents.h"
#include "core/sim.h"
#include "io/out_dir.h"

typedef struct thr_output {
  char dir[THR_PATH_MAX];
  FILE *metrics;
  char metrics_path[THR_PATH_MAX];
  FILE *formations; /* formations.csv (thr_output_open_formations) */
  char formations_path[THR_PATH_MAX];
  FILE *states; /* states.csv (thr_output_open_states) */
  char states_path[THR_PATH_MAX];
  int n_states;
  const char (*state_names)[64];
  int trajectory; /* write trajectory frames */
  int dim3;       /* 3D agents: the frames have z and vz */
  const thr_scenario *building; /* floors: the frames have x, y in each floor's coordinates and z its elevation */
  long n_frames;
  long frame_cap;
  long *frame_step;
  double *frame_time;
} thr_output;

/* Before anything runs (after the output directory `dir`, NULL for none,
 * was claimed: out_dir.h): `final_state` must name a file in an existing
 * directory, not a directory, not the scenario, not anything inside `dir`,
 * and, where it exists, a regular file or a character device (written in
 * place: /dev/null), never a symbolic link (which the write would replace)
 * or a FIFO. Returns 0, or -1 with a message naming the path and what is
 * wrong (bad input: exit status 2). */
int thr_output_check_final_state(const char *final_state, const char *dir, const char *scenario, char *err,
                                 size_t errlen);

/* Create `dir` (and parents) and open the enabled outputs. */
int thr_output_open(thr_output *o, const char *dir, int metrics, int trajectory, char *err, size_t errlen);
int thr_output_metrics(thr_output *o, const thr_metrics *m, char *err, size_t errlen);
/* formations.csv: a row per formation at each metrics step (sq_q, broken:
 * thr_sim_measure_formations). */
int thr_output_open_formations(thr_output *o, char *err, size_t errlen);
int thr_output_formations(thr_output *o, long step, double time, const struct thr_formations *fm,
                          const int64_t *sq_q, const int64_t *broken, char *err, size_t errlen);
/* states.csv: the agents in each of the n behaviour states (names: the
 * scenario's behaviors.states) at each metrics step (ORCA). */
int thr_output_open_states(thr_output *o, int n, const char (*names)[64], char *err, size_t errlen);
int thr_output_states(thr_output *o, const thr_metrics *m, char *err, size_t errlen);
int thr_output_trajectory(thr_output *o, long step, double time, const thr_agents *all, char *err, size_t errlen);
/* Close the outputs; -1 with a message when the last data could not be
 * written. */
int thr_output_close(thr_output *o, char *err, size_t errlen);

/* id,x,y,vx,vy sorted by id, C99 hexadecimal floats; written to a temporary
 * file and renamed, so the file is complete or absent. */
int thr_write_final_state(const char *path, const thr_agents *all, int dim3, char *err, size_t errlen);

/* PATH.tmp opened for writing (f), then thr_file_commit: checked flush and
 * close, the fault hook, rename to PATH; on failure the temporary file is
 * removed and err says "PATH: reason". A character device (/dev/null) is
 * written in place (tmp is then ""); a symbolic link at PATH or PATH.tmp is
 * refused, never replaced or followed. */
FILE *thr_file_begin(const char *path, char *tmp, size_t tmplen, char *err, size_t errlen);
int thr_file_commit(FILE *f, const char *path, const char *tmp, char *err, size_t errlen);

/* A file written row by row (metrics.csv, exits.csv, ...): dir/name
 * opened for writing into *f, its path kept in path[THR_PATH_MAX]. Each
 * thr_stream_check flushes and reports a failed write as "PATH: reason";
 * thr_stream_close checks, closes and sets *f = NULL. */
int thr_stream_open(FILE **f, char *path, const char *dir, const char *name, char *err, size_t errlen);
int thr_stream_check(FILE *f, const char *path, char *err, size_t errlen);
int thr_stream_close(FILE **f, const char *path, char *err, size_t errlen);

/* Text as a JSON string (quotes, backslashes and control characters
 * escaped) and as a CSV field (quoted when it holds a comma, a quote or a
 * line break). */
void thr_json_string(FILE *f, const char *s);
void thr_csv_field(FILE *f, const char *s);

/* The fault hook above, for writers that do not go through stdio (HDF5):
 * 1 (errno = ENOSPC) when this write to `path` is the one to fail. */
int thr_fault_write(const char *path);

/* mkdir -p */
int thr_make_dirs(const char *path);

#endif
