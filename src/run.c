#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "decomp/decomp.h"
#include "io/output.h"
#include "io/run_json.h"

/* Progress on stderr: a few times per second at most on a terminal, every
 * 10 s in a log file (e.g. a Slurm job's output). */
typedef struct progress {
  int enabled, tty;
  double start, last;
} progress;

static void progress_update(progress *p, const thr_sim *s, long done, long total, int force) {
  if (!p->enabled) return;
  double now = MPI_Wtime();
  double every = p->tty ? 0.25 : 10.0;
  if (!force && now - p->last < every) return;
  p->last = now;
  double el = now - p->start;
  double rate = el > 0.0 ? (double)done / el : 0.0;
  double eta = rate > 0.0 ? (double)(total - done) / rate : 0.0;
  fprintf(stderr, "%sstep %ld/%ld  t=%.2f s  agents %ld  %.1f steps/s  ETA %.0f s%s", p->tty ? "\r" : "",
          s->step, s->step - done + total, (double)s->step * s->prm.dt, s->n_global, rate, eta,
          p->tty ? "   " : "\n");
  fflush(stderr);
}

static int gather_and(thr_sim *s, int (*write)(void *ctx, const thr_agents *all), void *ctx) {
  thr_agents all;
  int rc = thr_sim_gather(s, &all);
  if (s->rank == 0 && !rc) rc = write(ctx, &all);
  if (s->rank == 0) thr_agents_free(&all);
  MPI_Bcast(&rc, 1, MPI_INT, 0, s->comm);
  return rc;
}

typedef struct frame_ctx {
  thr_output *out;
  long step;
  double time;
} frame_ctx;

static int write_frame(void *ctx, const thr_agents *all) {
  frame_ctx *f = ctx;
  return thr_output_trajectory(f->out, f->step, f->time, all);
}

typedef struct final_ctx {
  const char *path;
  char *err;
  size_t errlen;
} final_ctx;

static int write_final(void *ctx, const thr_agents *all) {
  final_ctx *f = ctx;
  return thr_write_final_state(f->path, all, f->err, f->errlen);
}

/* Metrics row; a non-finite state stops the run. */
static int measure_row(thr_sim *s, thr_output *out, char *err, size_t errlen) {
  thr_metrics m;
  thr_sim_measure(s, &m);
  if (!isfinite(m.mean_speed) || !isfinite(m.max_overlap)) {
    snprintf(err, errlen, "non-finite agent state at step %ld (time %.3f s); check the scenario parameters",
             m.step, m.time);
    return -1;
  }
  if (s->rank == 0 && thr_output_metrics(out, &m)) {
    snprintf(err, errlen, "writing metrics.csv failed");
    return -1;
  }
  return 0;
}

int thr_run(thr_sim *s, const thr_scenario *sc, const thr_run_opts *o, char *err, size_t errlen) {
  thr_output out;
  memset(&out, 0, sizeof out);
  int rc = 0;
  if (s->rank == 0 && o->out_dir)
    rc = thr_output_open(&out, o->out_dir, o->metrics_every > 0, o->trajectory_every > 0, err, errlen);
  MPI_Bcast(&rc, 1, MPI_INT, 0, s->comm);
  if (rc) return -1;
  if (s->rank == 0 && o->out_dir) thr_write_run_json(o->out_dir, sc, s, o->steps, 0.0, 0);
  FILE *balance = NULL; /* the decomposition's load-balance checks, on several ranks */
  if (s->rank == 0 && o->out_dir && s->nranks > 1) {
    char path[1200];
    snprintf(path, sizeof path, "%s/balance.csv", o->out_dir);
    if ((balance = fopen(path, "w"))) thr_decomp_set_log(s->dc, balance);
  }

  progress pg = {s->rank == 0 && !o->quiet, isatty(2), MPI_Wtime(), 0.0};
  long first = s->step;
  if (o->out_dir && o->metrics_every > 0) rc = measure_row(s, &out, err, errlen);
  if (!rc && o->out_dir && o->trajectory_every > 0) {
    frame_ctx fc = {&out, s->step, (double)s->step * s->prm.dt};
    rc = gather_and(s, write_frame, &fc);
    if (rc) snprintf(err, errlen, "writing trajectory frame %ld failed", s->step);
  }
  double t0 = MPI_Wtime();
  for (long k = 0; k < o->steps && !rc; ++k) {
    thr_sim_step(s);
    long st = s->step;
    if (o->out_dir && o->metrics_every > 0 && st % o->metrics_every == 0) rc = measure_row(s, &out, err, errlen);
    if (!rc && o->out_dir && o->trajectory_every > 0 && st % o->trajectory_every == 0) {
      frame_ctx fc = {&out, st, (double)st * s->prm.dt};
      rc = gather_and(s, write_frame, &fc);
      if (rc) snprintf(err, errlen, "writing trajectory frame %ld failed", st);
    }
    progress_update(&pg, s, k + 1, o->steps, 0);
  }
  double wall = MPI_Wtime() - t0;
  if (pg.enabled && o->steps > 0) {
    progress_update(&pg, s, s->step - first, o->steps, 1);
    if (pg.tty) fputc('\n', stderr);
  }
  if (!rc && o->final_state) {
    final_ctx fc = {o->final_state, err, errlen};
    rc = gather_and(s, write_final, &fc);
    if (rc && s->rank == 0 && !err[0]) snprintf(err, errlen, "--final-state %s: write failed", o->final_state);
    MPI_Bcast(err, (int)errlen, MPI_CHAR, 0, s->comm);
  }
  if (s->rank == 0 && o->out_dir) thr_write_run_json(o->out_dir, sc, s, s->step - first, wall, 1);
  if (s->rank == 0) thr_output_close(&out);
  if (balance) {
    thr_decomp_set_log(s->dc, NULL);
    fclose(balance);
  }
  if (!rc && s->rank == 0 && !o->quiet) {
    double rate = wall > 0.0 ? (double)s->n_global * (double)(s->step - first) / wall : 0.0;
    fprintf(stderr, "throng: %ld steps of %ld agents in %.2f s (%.3g agent-steps/s)%s%s\n", s->step - first,
            s->n_global, wall, rate, o->out_dir ? "; output in " : "", o->out_dir ? o->out_dir : "");
  }
  return rc;
}
