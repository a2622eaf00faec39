#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/evac.h"
#include "core/measure.h"
#include "decomp/decomp.h"
#include "io/evac_output.h"
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
  /* an evacuation ends when everyone has left: its step count is a bound */
  char left[48] = "";
  if (s->evac)
    snprintf(left, sizeof left, " (%ld left)", s->n_initial + thr_evac_added(s->evac) - s->n_global);
  fprintf(stderr, "%sstep %ld/%ld  t=%.2f s  agents %ld%s  %.1f steps/s  ETA %s%.0f s%s", p->tty ? "\r" : "",
          s->step, s->step - done + total, (double)s->step * s->prm.dt, s->n_global, left, rate,
          s->evac ? "at most " : "", eta, p->tty ? "   " : "\n");
  fflush(stderr);
}

/* ---- outputs: rank 0 writes, every rank learns whether it worked ---------- */

typedef struct run_ctx {
  thr_sim *s;
  const thr_run_opts *o;
  thr_output out;
  int evac_out;         /* evacuation outputs (exits, areas, lines, maps) */
  thr_evac_output ev;   /* rank 0 */
  thr_measure *measure; /* areas, lines, maps; NULL without */
  thr_area_sample *area_row;
  int64_t *line_row;
  long last_row;        /* step of the last row of exits.csv, areas.csv, lines.csv */
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

static int due(long step, int every) { return every > 0 && step % every == 0; }

/* The agents that left since the last call (evacuated.csv), then one row of
 * exits.csv, areas.csv and lines.csv for the current step. Collective. */
static int write_evac_row(run_ctx *r) {
  thr_sim *s = r->s;
  int rc = 0;
  if (s->evac) {
    size_t n;
    const thr_exit_rec *rec = thr_evac_gather_exits(s->evac, &n);
    if (s->rank == 0) rc = thr_evac_output_exited(&r->ev, rec, n, r->err, r->errlen);
  }
  thr_measure_sample(r->measure, s, r->area_row, r->line_row);
  if (s->rank == 0 && !rc)
    rc = thr_evac_output_row(&r->ev, s->step, (double)s->step * s->prm.dt, r->area_row, r->line_row, r->err,
                             r->errlen);
  r->last_row = s->step;
  return agree(r, rc);
}

/* The outputs due after the current step. Collective. */
static int write_outputs(run_ctx *r, int metrics, int frame) {
  thr_sim *s = r->s;
  if (metrics) {
    thr_metrics m;
    thr_sim_measure(s, &m);
    if (agree(r, s->rank == 0 ? thr_output_metrics(&r->out, &m, r->err, r->errlen) : 0)) return -1;
    if (r->evac_out && write_evac_row(r)) return -1;
  }
  if (r->evac_out && due(s->step, s->world.map_nx > 0 ? r->o->map_every : 0)) thr_measure_map_sample(r->measure, s);
  return frame ? gather_and(r, write_frame, s->step) : 0;
}

/* ---- evacuation outputs: open at the start, close at the end ------------------- */

static int evac_outputs_open(run_ctx *r, const thr_scenario *sc) {
  thr_sim *s = r->s;
  int rc = thr_measure_create(&r->measure, s, r->err, r->errlen);
  if (!rc && s->rank == 0) {
    r->area_row = calloc((size_t)s->world.n_areas + 1, sizeof *r->area_row);
    r->line_row = calloc((size_t)s->world.n_lines + 1, sizeof *r->line_row);
    if (!r->area_row || !r->line_row) {
      snprintf(r->err, r->errlen, "out of memory for the measurement rows");
      rc = -1;
    }
    if (!rc) rc = thr_evac_output_open(&r->ev, r->o->out_dir, sc, &s->world, r->err, r->errlen);
  }
  if (s->evac) thr_evac_keep_records(s->evac, 1);
  r->last_row = -1;
  return agree(r, rc);
}

/* The last rows (when the last step had none), the maps and summary.json.
 * Collective. */
static int evac_outputs_finish(run_ctx *r, const thr_scenario *sc, long steps, double work, double wall, int state) {
  thr_sim *s = r->s;
  if (state != THR_RUN_DIVERGED && r->last_row != s->step && write_evac_row(r)) return -1;
  const thr_world *w = &s->world;
  size_t cells = w->map_nx > 0 ? (size_t)w->map_nx * (size_t)w->map_ny : 0;
  double *density = NULL, *speed = NULL;
  int rc = 0;
  if (cells && s->rank == 0) {
    density = malloc(cells * sizeof *density);
    speed = malloc(cells * sizeof *speed);
    if (!density || !speed) {
      snprintf(r->err, r->errlen, "out of memory for the maps (%zu cells; raise measurement.maps.cell)", cells);
      rc = -1;
    }
  }
  if (agree(r, rc)) {
    free(density);
    free(speed);
    return -1;
  }
  long samples = cells ? thr_measure_maps(r->measure, s, density, speed) : 0;
  if (s->rank == 0) {
    rc = thr_evac_output_maps(&r->ev, w->map_ox, w->map_oy, w->map_cell, w->map_nx, w->map_ny, density, speed,
                              samples, r->err, r->errlen);
    static const char *const names[] = {"running", "complete", "failed", "diverged", "interrupted"};
    thr_evac_summary sum = {s->n_initial,
                            s->evac ? thr_evac_added(s->evac) : 0,
                            s->n_global,
                            steps,
                            (double)s->step * s->prm.dt,
                            wall,
                            wall > 0.0 ? work / wall : 0.0,
                            names[state]};
    (void)sc;
    if (!rc) rc = thr_evac_output_summary(&r->ev, &sum, r->err, r->errlen);
  }
  free(density);
  free(speed);
  return agree(r, rc);
}

static void evac_outputs_free(run_ctx *r) {
  if (r->s->rank == 0) thr_evac_output_close(&r->ev, NULL, 0);
  thr_measure_free(r->measure);
  free(r->area_row);
  free(r->line_row);
  r->measure = NULL;
  r->area_row = NULL;
  r->line_row = NULL;
}

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
static int write_run_json(run_ctx *r, const thr_scenario *sc, long steps, double agent_steps, double wall, int state,
                          int code) {
  int rc = 0;
  if (r->s->rank == 0 && r->o->out_dir) {
    char err[1200];
    rc = thr_write_run_json(r->o->out_dir, sc, r->s, steps, agent_steps, wall, state,
                            state == THR_RUN_COMPLETE ? NULL : r->err, err, sizeof err);
    if (rc && code) fprintf(stderr, "throng: %s\n", err);
    if (rc && !code) snprintf(r->err, r->errlen, "%s", err);
  }
  return code ? code : (agree(r, rc) ? 1 : 0);
}

/* An evacuation is over when every agent has left and no source will add
 * another (the same on every rank). */
static int everyone_left(const thr_sim *s) {
  return s->evac && s->n_global == 0 && thr_evac_sources_done(s->evac, (double)s->step * s->prm.dt);
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
    if (!rc) rc = thr_write_run_json(o->out_dir, sc, s, 0, 0.0, 0.0, THR_RUN_RUNNING, NULL, err, errlen);
  }
  if (agree(&r, rc)) {
    if (s->rank == 0) thr_output_close(&r.out, err, 0);
    return 1;
  }
  r.evac_out = out && thr_evac_output_wanted(sc);
  if (r.evac_out && evac_outputs_open(&r, sc)) {
    evac_outputs_free(&r);
    if (s->rank == 0) thr_output_close(&r.out, NULL, 0);
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
  double work0 = s->agent_steps;
  int state = THR_RUN_COMPLETE, code = 0, empty = 0;
  code = check_and_write(&r, 1, metrics, frames, &state);
  double t0 = MPI_Wtime();
  for (long k = 0; k < o->steps && !code && !empty; ++k) {
    thr_sim_step(s);
    long st = s->step;
    empty = everyone_left(s);
    int metrics_now = metrics && due(st, o->metrics_every), frame_now = frames && due(st, o->trajectory_every);
    /* the step that empties the simulation gets its outputs */
    if (empty) metrics_now = metrics, frame_now = frames;
    /* exact when outputs follow or the run ends; else a GPU may look one
     * step back rather than wait */
    code = check_and_write(&r, metrics_now || frame_now || k + 1 == o->steps || empty, metrics_now, frame_now,
                           &state);
    progress_update(&pg, s, k + 1, o->steps, 0);
  }
  double wall = MPI_Wtime() - t0, work = s->agent_steps - work0;
  signals_restore(&sig);
  long steps = s->step - first;
  if (pg.enabled && o->steps > 0) {
    progress_update(&pg, s, steps, empty ? steps : o->steps, 1);
    if (pg.tty) fputc('\n', stderr);
  }
  if (pg.enabled && empty)
    fprintf(stderr, "throng: every agent has left by t = %.2f s (step %ld); the run ends there\n",
            (double)s->step * s->prm.dt, s->step);
  if (!code && o->final_state && gather_and(&r, write_final, s->step)) state = THR_RUN_FAILED, code = 1;
  /* after a non-finite step, the evacuation files end with the last finite one */
  if (r.evac_out && code != 1 && evac_outputs_finish(&r, sc, steps, work, wall, state))
    state = THR_RUN_FAILED, code = 1;
  if (r.evac_out) evac_outputs_free(&r);
  if (balance) {
    thr_decomp_set_log(s->dc, NULL);
    fclose(balance);
  }
  if (s->rank == 0 && out && thr_output_close(&r.out, code ? NULL : err, code ? 0 : errlen) && !code)
    state = THR_RUN_FAILED, code = 1;
  MPI_Bcast(&code, 1, MPI_INT, 0, s->comm);
  if (code == 1) agree(&r, -1);
  code = write_run_json(&r, sc, steps, work, wall, state, code);
  if (!code && s->rank == 0 && !o->quiet) {
    double rate = wall > 0.0 ? work / wall : 0.0;
    fprintf(stderr, "throng: %ld steps, %.4g agent-steps (%ld agents now) in %.2f s (%.3g agent-steps/s)%s%s\n",
            steps, work, s->n_global, wall, rate, out ? "; output in " : "", out ? o->out_dir : "");
  }
  return code;
}
