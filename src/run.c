#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "decomp/decomp.h"
#include "io/output.h"
#include "io/run_json.h"

/* ---- signals: stop at the next step boundary ------------------------------- */

static volatile sig_atomic_t g_signal;

static void on_signal(int sig) { g_signal = sig; }

typedef struct signal_guard {
  struct sigaction old_int, old_term;
} signal_guard;

static void signals_catch(signal_guard *g) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  g_signal = 0;
  sigaction(SIGINT, &sa, &g->old_int);
  sigaction(SIGTERM, &sa, &g->old_term);
}

static void signals_restore(const signal_guard *g) {
  sigaction(SIGINT, &g->old_int, NULL);
  sigaction(SIGTERM, &g->old_term, NULL);
}

/* ---- progress ----------------------------------------------------------------- */

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

/* ---- outputs: rank 0 writes, every rank learns whether it worked ---------- */

typedef struct run_ctx {
  thr_sim *s;
  const thr_run_opts *o;
  thr_output out;
  char *err;
  size_t errlen;
} run_ctx;

/* Rank 0's result (0 or -1) and message, on every rank. Collective. */
static int agree(run_ctx *r, int rc) {
  MPI_Bcast(&rc, 1, MPI_INT, 0, r->s->comm);
  if (rc) MPI_Bcast(r->err, (int)r->errlen, MPI_CHAR, 0, r->s->comm);
  return rc;
}

/* Gather every agent on rank 0 and hand them to write (rank 0). */
static int gather_and(run_ctx *r, int (*write)(run_ctx *r, const thr_agents *all, long step), long step) {
  thr_agents all;
  int rc = thr_sim_gather(r->s, &all);
  if (rc && r->s->rank == 0) snprintf(r->err, r->errlen, "out of memory gathering %ld agents", r->s->n_global);
  if (r->s->rank == 0 && !rc) rc = write(r, &all, step);
  if (r->s->rank == 0) thr_agents_free(&all);
  return agree(r, rc);
}

static int write_frame(run_ctx *r, const thr_agents *all, long step) {
  return thr_output_trajectory(&r->out, step, (double)step * r->s->prm.dt, all, r->err, r->errlen);
}

static int write_final(run_ctx *r, const thr_agents *all, long step) {
  (void)step;
  return thr_write_final_state(r->o->final_state, all, r->err, r->errlen);
}

/* The outputs due after the current step. Collective. */
static int write_outputs(run_ctx *r, int metrics, int frame) {
  thr_sim *s = r->s;
  if (metrics) {
    thr_metrics m;
    thr_sim_measure(s, &m);
    if (agree(r, s->rank == 0 ? thr_output_metrics(&r->out, &m, r->err, r->errlen) : 0)) return -1;
  }
  return frame ? gather_and(r, write_frame, s->step) : 0;
}

static int due(long step, int every) { return every > 0 && step % every == 0; }

/* ---- the run -------------------------------------------------------------------- */

/* Why the run stopped early, as an exit status (docs/user-guide.md). */
static int stopped(run_ctx *r, const thr_health *h, int *state) {
  if (h->field >= 0) {
    thr_sim *s = r->s;
    snprintf(r->err, r->errlen,
             "the state is not finite at step %ld (t = %.4f s): agent %u, %s (%s) is NaN or infinite; the "
             "scenario's parameters make the solver diverge (check time.dt, the stiffness and speed keys)",
             h->step, (double)h->step * s->prm.dt, h->id, thr_field_table[h->field].name,
             thr_field_table[h->field].meaning);
    *state = THR_RUN_DIVERGED;
    return 3;
  }
  snprintf(r->err, r->errlen, "stopped by signal %d (%s) after step %ld; outputs end with that step",
           h->stop_signal, h->stop_signal == SIGINT ? "SIGINT" : h->stop_signal == SIGTERM ? "SIGTERM" : "signal",
           h->step);
  *state = THR_RUN_INTERRUPTED;
  return 128 + h->stop_signal;
}

/* After a step (or at the start): the health check, then the outputs due.
 * A finite step is complete, so its outputs are written even when a signal
 * ends the run here. Returns the exit status (0: go on). Collective. */
static int check_and_write(run_ctx *r, int wait, int metrics, int frame, int *state) {
  thr_health h;
  int stop = thr_sim_check(r->s, wait, g_signal, &h);
  if (h.field < 0 && write_outputs(r, metrics, frame)) {
    *state = THR_RUN_FAILED;
    return 1;
  }
  return stop ? stopped(r, &h, state) : 0;
}

/* The closing run.json; a failure to write it fails a run that had not
 * failed yet (its message then replaces err). Collective. */
static int write_run_json(run_ctx *r, const thr_scenario *sc, long steps, double wall, int state, int code) {
  int rc = 0;
  if (r->s->rank == 0 && r->o->out_dir) {
    char err[1200];
    rc = thr_write_run_json(r->o->out_dir, sc, r->s, steps, wall, state, state == THR_RUN_COMPLETE ? NULL : r->err,
                            err, sizeof err);
    if (rc && code) fprintf(stderr, "throng: %s\n", err);
    if (rc && !code) snprintf(r->err, r->errlen, "%s", err);
  }
  return code ? code : (agree(r, rc) ? 1 : 0);
}

int thr_run(thr_sim *s, const thr_scenario *sc, const thr_run_opts *o, char *err, size_t errlen) {
  run_ctx r;
  memset(&r, 0, sizeof r);
  r.s = s;
  r.o = o;
  r.err = err;
  r.errlen = errlen;
  int out = o->out_dir != NULL, metrics = out && o->metrics_every > 0, frames = out && o->trajectory_every > 0;
  int rc = 0;
  if (s->rank == 0 && out) {
    rc = thr_output_open(&r.out, o->out_dir, metrics, frames, err, errlen);
    if (!rc) rc = thr_write_run_json(o->out_dir, sc, s, 0, 0.0, THR_RUN_RUNNING, NULL, err, errlen);
  }
  if (agree(&r, rc)) {
    if (s->rank == 0) thr_output_close(&r.out, err, 0);
    return 1;
  }
  FILE *balance = NULL; /* the decomposition's load-balance checks, on several ranks */
  if (s->rank == 0 && out && s->nranks > 1) {
    char path[THR_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/balance.csv", o->out_dir);
    if ((balance = fopen(path, "w"))) thr_decomp_set_log(s->dc, balance);
  }
  signal_guard sig;
  signals_catch(&sig);
  progress pg = {s->rank == 0 && !o->quiet, isatty(2), MPI_Wtime(), 0.0};
  long first = s->step;
  int state = THR_RUN_COMPLETE, code = 0;
  code = check_and_write(&r, 1, metrics, frames, &state);
  double t0 = MPI_Wtime();
  for (long k = 0; k < o->steps && !code; ++k) {
    thr_sim_step(s);
    long st = s->step;
    int metrics_now = metrics && due(st, o->metrics_every), frame_now = frames && due(st, o->trajectory_every);
    /* exact when outputs follow or the run ends; else a GPU may look one
     * step back rather than wait */
    code = check_and_write(&r, metrics_now || frame_now || k + 1 == o->steps, metrics_now, frame_now, &state);
    progress_update(&pg, s, k + 1, o->steps, 0);
  }
  double wall = MPI_Wtime() - t0;
  signals_restore(&sig);
  if (pg.enabled && o->steps > 0) {
    progress_update(&pg, s, s->step - first, o->steps, 1);
    if (pg.tty) fputc('\n', stderr);
  }
  if (!code && o->final_state && gather_and(&r, write_final, s->step)) state = THR_RUN_FAILED, code = 1;
  if (balance) {
    thr_decomp_set_log(s->dc, NULL);
    fclose(balance);
  }
  if (s->rank == 0 && out && thr_output_close(&r.out, code ? NULL : err, code ? 0 : errlen) && !code)
    state = THR_RUN_FAILED, code = 1;
  MPI_Bcast(&code, 1, MPI_INT, 0, s->comm);
  if (code == 1) agree(&r, -1);
  code = write_run_json(&r, sc, s->step - first, wall, state, code);
  if (!code && s->rank == 0 && !o->quiet) {
    double rate = wall > 0.0 ? (double)s->n_global * (double)(s->step - first) / wall : 0.0;
    fprintf(stderr, "throng: %ld steps of %ld agents in %.2f s (%.3g agent-steps/s)%s%s\n", s->step - first,
            s->n_global, wall, rate, out ? "; output in " : "", out ? o->out_dir : "");
  }
  return code;
}
