#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/floors.h"
#include "core/evac.h"
#include "core/formations.h"
#include "core/measure.h"
#include "decomp/decomp.h"
#include "io/checkpoint.h"
#include "io/evac_output.h"
#include "io/geometry_out.h"
#include "io/output.h"
#include "io/run_json.h"
#include "io/trajectory.h"
#include "io/walkable_out.h"
#include "io/wkt.h"
#include "insitu/insitu.h"

/* ---- signals: stop at the next step boundary ------------------------------- */

static volatile sig_atomic_t g_signal;
static int g_watching; /* thr_run_watch_signals was called */

static void on_signal(int sig) { g_signal = sig; }

/* The signals a run stops on at the next step boundary. SIGHUP (the
 * terminal or the ssh session gone) is treated as SIGTERM: a checkpoint to
 * go on from rather than a run killed half-way with run.json "running". */
static const int g_stop_signals[] = {SIGINT, SIGTERM, SIGUSR1, SIGHUP};
enum { N_STOP_SIGNALS = sizeof g_stop_signals / sizeof g_stop_signals[0] };

static const char *signal_name(int sig) {
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGUSR1 ? "SIGUSR1" : sig == SIGHUP ? "SIGHUP"
                                                                                                               : "signal";
}

/* A stop that leaves a checkpoint to go on from (Slurm's warnings, a lost session). */
static int signal_checkpoints(int sig) { return sig == SIGTERM || sig == SIGUSR1 || sig == SIGHUP; }

void thr_run_watch_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < N_STOP_SIGNALS; ++i)
    if (g_stop_signals[i] != SIGINT) sigaction(g_stop_signals[i], &sa, NULL);
  g_watching = 1;
}

typedef struct signal_guard {
  struct sigaction old[N_STOP_SIGNALS];
} signal_guard;

static void signals_catch(signal_guard *g) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  if (!g_watching) g_signal = 0; /* else keep what arrived while the run started up */
  for (int i = 0; i < N_STOP_SIGNALS; ++i) sigaction(g_stop_signals[i], &sa, &g->old[i]);
}

static void signals_restore(const signal_guard *g) {
  for (int i = 0; i < N_STOP_SIGNALS; ++i) sigaction(g_stop_signals[i], &g->old[i], NULL);
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
  long sampled_step;    /* a restart's first step: its map sample is in the checkpoint (-1: none) */
  thr_trajectory *traj; /* trajectory.h5, or NULL */
  double traj_seconds;  /* spent writing frames */
  long traj_frames;
  int stop_signal;      /* the signal that stopped the run, or 0 */
  char checkpoint[THR_PATH_MAX + 64]; /* the last checkpoint written ("" none) */
  double ckpt_seconds;
  long ckpt_count;
  long *kept;           /* rank 0: steps of this run's checkpoints still on disk, oldest first */
  thr_insitu *insitu;   /* Catalyst, or NULL */
  thr_insitu_buffers insitu_buf;
  double insitu_seconds;
  double insitu_first;  /* the first call (Python imports the scripts, views open) */
  long insitu_calls;
  int n_kept;
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
  return thr_write_final_state(r->o->final_state, all, r->s->prm.dim3, r->err, r->errlen);
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

/* A frame of trajectory.h5 at `step`: every rank hands its own agents
 * (present: else none) and those that left in the last two frame intervals,
 * where they left (docs/output.md, "Agents that leave"). A frame on the
 * trajectory_every clock shows the leavers; the last step off it (/final,
 * which PedPy does not read) keeps them due for the frames after the run.
 * Collective. */
static int h5_frame(run_ctx *r, long step, int present) {
  thr_sim *s = r->s;
  thr_agents mine;
  thr_agents_init(&mine);
  int rc = present ? s->be->ops->get_agents(s->be, &mine) : 0;
  if (!rc && s->evac) rc = thr_evac_leavers(s->evac, &mine);
  if (rc) snprintf(r->err, r->errlen, "out of memory copying %zu agents for a trajectory frame", mine.n_owned);
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, s->comm);
  if (!rc) rc = thr_trajectory_frame(r->traj, step, &mine, r->err, r->errlen);
  if (s->evac && step % r->o->trajectory_every == 0) thr_evac_leavers_done(s->evac);
  thr_agents_free(&mine);
  return rc;
}

static int write_frame_h5(run_ctx *r) {
  double t0 = MPI_Wtime();
  int rc = h5_frame(r, r->s->step, 1);
  r->traj_seconds += MPI_Wtime() - t0;
  r->traj_frames++;
  return rc;
}

/* After the last step: the leavers still due (those of the last steps,
 * shown twice) in frames of their own, numbered as the next frames would
 * be, so that PedPy sees every agent cross a line at an exit. Collective. */
static int write_leavers_frames(run_ctx *r) {
  thr_sim *s = r->s;
  long every = r->o->trajectory_every;
  for (long step = (s->step / every + 1) * every;; step += every) {
    unsigned long due = s->evac ? (unsigned long)thr_evac_leavers_due(s->evac) : 0ul;
    MPI_Allreduce(MPI_IN_PLACE, &due, 1, MPI_UNSIGNED_LONG, MPI_SUM, s->comm);
    if (!due) return 0;
    int rc = h5_frame(r, step, 0);
    if (rc) return rc;
  }
}

/* The fields Catalyst shows (insitu.h's agents channel). */
#define INSITU_FIELDS                                                                                       \
  (THR_FIELD_BIT(X) | THR_FIELD_BIT(V) | THR_FIELD_BIT(ID) | THR_FIELD_BIT(GROUP) | THR_FIELD_BIT(RADIUS) | \
   THR_FIELD_BIT(FLAGS))

/* Start copying the agents Catalyst will see (a GPU copies while the other
 * outputs are written). Collective. */
static int insitu_begin(run_ctx *r) {
  thr_backend *b = r->s->be;
  double t0 = MPI_Wtime();
  int rc = b->ops->view_begin(b, thr_fields_3d(INSITU_FIELDS, &r->s->prm));
  if (rc) snprintf(r->err, r->errlen, "Catalyst: %s", b->error);
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, r->s->comm);
  r->insitu_seconds += MPI_Wtime() - t0;
  return rc;
}

/* Hand this rank's agents to the Catalyst scripts. Collective. */
static int insitu_execute(run_ctx *r) {
  thr_sim *s = r->s;
  double t0 = MPI_Wtime();
  thr_agents view;
  thr_insitu_agents a;
  int rc = s->be->ops->view_end(s->be, &view);
  if (rc) snprintf(r->err, r->errlen, "Catalyst: %s", s->be->error);
  if (!rc && thr_insitu_agents_fill(&a, &r->insitu_buf, &view, s->prm.dim3, s->step, (double)s->step * s->prm.dt)) {
    snprintf(r->err, r->errlen, "Catalyst: out of memory for the points of %zu agents", view.n_owned);
    rc = -1;
  }
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, s->comm);
  if (!rc) rc = thr_insitu_execute(r->insitu, &a, r->err, r->errlen);
  r->insitu_seconds += MPI_Wtime() - t0;
  if (!r->insitu_calls++) r->insitu_first = r->insitu_seconds;
  return rc;
}

/* Catalyst on comm with the scenario's scripts and geometry; extracts go
 * under the output directory. Collective. */
static int insitu_open(run_ctx *r, const thr_scenario *sc) {
  thr_insitu_geometry g;
  int rc = thr_insitu_geometry_build(&g, sc);
  if (rc) snprintf(r->err, r->errlen, "out of memory for the geometry handed to Catalyst");
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, r->s->comm);
  const char *scripts[THR_MAX_CATALYST_SCRIPTS];
  for (int k = 0; k < sc->n_catalyst_scripts; ++k) scripts[k] = sc->catalyst_scripts[k];
  double t0 = MPI_Wtime();
  if (!rc)
    rc = thr_insitu_open(&r->insitu, r->s->comm, scripts, sc->n_catalyst_scripts, r->o->out_dir, &g, r->err,
                         r->errlen);
  thr_insitu_geometry_free(&g);
  if (!rc && r->s->rank == 0 && !r->o->quiet)
    fprintf(stderr, "throng: %s started in %.2f s: %d script(s), every %d steps\n",
            thr_insitu_description(r->insitu), MPI_Wtime() - t0, sc->n_catalyst_scripts, r->o->catalyst_every);
  return rc;
}

/* formations.csv rows of this step. Collective. */
static int write_formation_rows(run_ctx *r) {
  thr_sim *s = r->s;
  int n = s->forms->n, rc = 0;
  int64_t *q = malloc(2 * (size_t)n * sizeof *q);
  if (!q) {
    snprintf(r->err, r->errlen, "out of memory measuring %d formations", n);
    rc = -1;
  }
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, s->comm);
  if (rc) {
    free(q);
    return -1;
  }
  thr_sim_measure_formations(s, q, q + n);
  if (s->rank == 0)
    rc = thr_output_formations(&r->out, s->step, (double)s->step * s->prm.dt, s->forms, q, q + n, r->err, r->errlen);
  free(q);
  return agree(r, rc);
}

/* The outputs due after the current step. Collective. */
static int write_outputs(run_ctx *r, int metrics, int frame, int insitu) {
  thr_sim *s = r->s;
  if (insitu && insitu_begin(r)) return -1;
  if (metrics) {
    thr_metrics m;
    thr_sim_measure(s, &m);
    if (agree(r, s->rank == 0 ? thr_output_metrics(&r->out, &m, r->err, r->errlen) ||
                                    thr_output_states(&r->out, &m, r->err, r->errlen)
                              : 0))
      return -1;
    if (r->evac_out && write_evac_row(r)) return -1;
    if (s->forms && write_formation_rows(r)) return -1;
  }
  if (r->evac_out && due(s->step, s->world.map_nx > 0 ? r->o->map_every : 0) && s->step != r->sampled_step)
    thr_measure_map_sample(r->measure, s);
  if (frame && (r->traj ? write_frame_h5(r) : gather_and(r, write_frame, s->step))) return -1;
  return insitu ? insitu_execute(r) : 0;
}

/* trajectory.h5 with the walkable area (the world rectangle when the
 * scenario has none). Collective. */
static int open_trajectory(run_ctx *r, const thr_scenario *sc) {
  /* a building: the first floor's walkable area (geometry-FLOOR.wkt has each floor's) */
  thr_polyset first = {0};
  int building = sc->n_floors > 0;
  char *wkt = building && thr_floor_walkable(sc, 0, &first) ? NULL
              : thr_walkable_wkt(sc, building ? &first : &sc->walkable, building ? sc->floors[0].shift : 0.0f);
  thr_polyset_free(&first);
  thr_trajectory_info info = {wkt, sc->name, (double)r->s->prm.dt, r->o->trajectory_every, r->o->compression,
                              r->s->prm.dim3, building ? sc : NULL};
  int rc = 0;
  if (!wkt) {
    snprintf(r->err, r->errlen, "out of memory writing the walkable area");
    rc = -1;
  }
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, r->s->comm);
  if (!rc) rc = thr_trajectory_open(&r->traj, r->s->comm, r->o->out_dir, &info, r->err, r->errlen);
  free(wkt);
  return rc;
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
  r->sampled_step = r->o->restart ? s->step : -1;
  return agree(r, rc);
}

/* The last rows (when the last step had none), the maps and summary.json.
 * Collective. */
static int evac_outputs_finish(run_ctx *r, const thr_scenario *sc, long steps, double work, double wall, int state) {
  thr_sim *s = r->s;
  if (state != THR_RUN_DIVERGED && r->last_row != s->step && write_evac_row(r)) return -1;
  const thr_world *w = &s->world;
  size_t cells = w->map_nx > 0 ? (size_t)w->map_nx * (size_t)w->map_ny : 0;
  double *block = NULL, *maps[THR_N_MAPS] = {NULL};
  int rc = 0;
  if (cells && s->rank == 0) {
    block = malloc(cells * THR_N_MAPS * sizeof *block);
    if (!block) {
      snprintf(r->err, r->errlen, "out of memory for the maps (%zu cells; raise measurement.maps.cell)", cells);
      rc = -1;
    }
    for (int k = 0; block && k < THR_N_MAPS; ++k) maps[k] = block + (size_t)k * cells;
  }
  if (agree(r, rc)) {
    free(block);
    return -1;
  }
  double sample_seconds = (double)r->o->map_every * (double)s->prm.dt;
  long samples = cells ? thr_measure_maps(r->measure, s, sample_seconds, maps) : 0;
  if (s->rank == 0) {
    rc = thr_evac_output_maps(&r->ev, w->map_ox, w->map_oy, w->map_cell, w->map_nx, w->map_ny,
                              (const double *const *)maps, samples, r->err, r->errlen);
    thr_evac_summary sum = {s->n_initial,
                            s->evac ? thr_evac_added(s->evac) : 0,
                            s->n_global,
                            steps,
                            (double)s->step * s->prm.dt,
                            wall,
                            wall > 0.0 ? work / wall : 0.0,
                            thr_run_state_name(state)};
    (void)sc;
    if (!rc) rc = thr_evac_output_summary(&r->ev, &sum, r->err, r->errlen);
  }
  free(block);
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
  r->stop_signal = h->stop_signal;
  snprintf(r->err, r->errlen, "stopped by signal %d (%s) after step %ld; outputs end with that step",
           h->stop_signal, signal_name(h->stop_signal), h->step);
  *state = THR_RUN_INTERRUPTED;
  return 128 + h->stop_signal;
}

/* After a step (or at the start): the health check, then the outputs due.
 * A finite step is complete, so its outputs are written even when a signal
 * ends the run here. Returns the exit status (0: go on). Collective. */
static int check_and_write(run_ctx *r, int wait, int metrics, int frame, int insitu, int *state) {
  thr_health h;
  int stop = thr_sim_check(r->s, wait, g_signal, &h);
  if (h.field < 0 && write_outputs(r, metrics, frame, insitu)) {
    *state = THR_RUN_FAILED;
    return 1;
  }
  return stop ? stopped(r, &h, state) : 0;
}

/* The closing run.json; a failure to write it fails a run that had not
 * failed yet (its message then replaces err). Collective. */
/* What run.json says of the outputs: where the run came from, the cadence,
 * the time spent. */
static thr_run_io run_io(const run_ctx *r) {
  const thr_run_opts *o = r->o;
  thr_run_io io;
  memset(&io, 0, sizeof io);
  io.restarted_from = o->restart_path;
  io.restart_step = o->restart ? thr_checkpoint_step(o->restart) : 0;
  io.checkpoint = r->checkpoint[0] ? r->checkpoint : NULL;
  io.trajectory_seconds = r->traj_seconds;
  io.trajectory_frames = r->traj_frames;
  io.checkpoint_seconds = r->ckpt_seconds;
  io.checkpoints = r->ckpt_count;
  io.catalyst_seconds = r->insitu_seconds;
  io.catalyst_first = r->insitu_first;
  io.catalyst_calls = r->insitu_calls;
  io.trajectory_format = o->trajectory_every > 0 ? (o->trajectory_hdf5 ? "hdf5" : "csv") : NULL;
  io.trajectory_every = o->trajectory_every;
  io.metrics_every = o->metrics_every;
  io.map_every = o->map_every;
  io.checkpoint_every = o->checkpoint_every;
  io.catalyst_every = o->n_catalyst > 0 ? o->catalyst_every : 0;
  return io;
}

static int write_run_json(run_ctx *r, const thr_scenario *sc, long steps, double agent_steps, double wall, int state,
                          int code) {
  int rc = 0;
  if (r->s->rank == 0 && r->o->out_dir) {
    char err[1200];
    thr_run_io io = run_io(r);
    rc = thr_write_run_json(r->o->out_dir, sc, r->s, steps, agent_steps, wall, state,
                            state == THR_RUN_COMPLETE ? NULL : r->err, &io, err, sizeof err);
    if (rc && code) fprintf(stderr, "throng: %s\n", err);
    if (rc && !code) snprintf(r->err, r->errlen, "%s", err);
  }
  return code ? code : (agree(r, rc) ? 1 : 0);
}

/* ---- checkpoints ------------------------------------------------------------------ */

/* checkpoints/latest.h5 -> the newest checkpoint (a relative link, made
 * under another name and renamed over the old one). Rank 0. */
static int link_latest(run_ctx *r, const char *dir, const char *name) {
  char link[THR_PATH_MAX + 32], tmp[THR_PATH_MAX + 48];
  snprintf(link, sizeof link, "%s/latest.h5", dir);
  snprintf(tmp, sizeof tmp, "%s/latest.h5.tmp", dir);
  remove(tmp);
  if (symlink(name, tmp) || rename(tmp, link)) {
    snprintf(r->err, r->errlen, "%s: cannot point it to %s: %s", link, name, strerror(errno));
    remove(tmp);
    return -1;
  }
  return 0;
}

/* Forget (and delete) the oldest checkpoints beyond checkpoint_keep. Rank 0. */
static void keep_last(run_ctx *r, const char *dir, long step) {
  int keep = r->o->checkpoint_keep > 0 ? r->o->checkpoint_keep : 1;
  if (!r->kept) r->kept = calloc((size_t)keep + 1, sizeof *r->kept);
  if (!r->kept) return; /* out of memory: keep them all */
  if (r->n_kept && r->kept[r->n_kept - 1] == step) return;
  r->kept[r->n_kept++] = step;
  if (r->n_kept <= keep) return;
  char old[THR_PATH_MAX + 64];
  snprintf(old, sizeof old, "%s/checkpoint-%08ld.h5", dir, r->kept[0]);
  remove(old);
  memmove(r->kept, r->kept + 1, (size_t)(r->n_kept - 1) * sizeof *r->kept);
  r->n_kept--;
}

/* DIR/checkpoints/checkpoint-STEP.h5 of the current state; agents that
 * left and are not yet in evacuated.csv are written there first. Collective. */
static int write_checkpoint(run_ctx *r, const thr_scenario *sc) {
  thr_sim *s = r->s;
  double t0 = MPI_Wtime();
  char dir[THR_PATH_MAX + 16], name[48], path[THR_PATH_MAX + 64];
  snprintf(dir, sizeof dir, "%s/checkpoints", r->o->out_dir);
  snprintf(name, sizeof name, "checkpoint-%08ld.h5", s->step);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int rc = 0;
  if (s->rank == 0 && thr_make_dirs(dir)) {
    snprintf(r->err, r->errlen, "%s: cannot create the directory: %s", dir, strerror(errno));
    rc = -1;
  }
  if (agree(r, rc)) return -1;
  if (r->evac_out && s->evac) {
    size_t n;
    const thr_exit_rec *rec = thr_evac_gather_exits(s->evac, &n);
    if (s->rank == 0) rc = thr_evac_output_exited(&r->ev, rec, n, r->err, r->errlen);
    if (agree(r, rc)) return -1;
  }
  if (thr_checkpoint_write(path, s, sc, r->measure, s->rank == 0 && r->evac_out ? &r->ev : NULL, r->err,
                           r->errlen))
    return -1;
  if (s->rank == 0) {
    rc = link_latest(r, dir, name);
    if (!rc) keep_last(r, dir, s->step);
  }
  if (agree(r, rc)) return -1;
  double dt = MPI_Wtime() - t0;
  r->ckpt_seconds += dt;
  r->ckpt_count++;
  snprintf(r->checkpoint, sizeof r->checkpoint, "%s", path);
  if (s->rank == 0 && !r->o->quiet) {
    struct stat st;
    double mb = stat(path, &st) == 0 ? (double)st.st_size / 1e6 : 0.0;
    fprintf(stderr, "%sthrong: checkpoint at step %ld: %s (%.1f MB in %.2f s)\n", isatty(2) ? "\n" : "", s->step,
            path, mb, dt);
  }
  return 0;
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
  /* Catalyst first: a script that does not compile is bad input, found
   * before anything is written */
  int insitu = o->n_catalyst > 0;
  if (insitu) {
    struct stat st;
    int existed = !out || stat(o->out_dir, &st) == 0;
    MPI_Barrier(s->comm); /* rank 0 looked before any rank's Catalyst made it */
    if (insitu_open(&r, sc)) {
      if (s->rank == 0 && !existed) rmdir(o->out_dir); /* Catalyst made it; empty */
      return THR_EXIT_BAD_INPUT;
    }
  }
  int rc = 0;
  if (s->rank == 0 && out) {
    rc = thr_output_open(&r.out, o->out_dir, metrics, frames && !o->trajectory_hdf5, err, errlen);
    r.out.dim3 = s->prm.dim3;
    r.out.building = sc->n_floors ? sc : NULL;
    thr_run_io io = run_io(&r);
    if (!rc && metrics && s->forms) rc = thr_output_open_formations(&r.out, err, errlen);
    if (!rc && metrics && s->prm.model_kind == THR_MODEL_ORCA && s->prm.orca.n_bstates > 0)
      rc = thr_output_open_states(&r.out, s->prm.orca.n_bstates, (const char(*)[64])sc->bstate_names, err, errlen);
    if (!rc) rc = thr_write_run_json(o->out_dir, sc, s, 0, 0.0, 0.0, THR_RUN_RUNNING, NULL, &io, err, errlen);
    if (!rc) rc = thr_write_geometry(o->out_dir, sc, &s->world, err, errlen);
  }
  if (agree(&r, rc)) {
    if (s->rank == 0) thr_output_close(&r.out, err, 0);
    thr_insitu_close(r.insitu);
    return 1;
  }
  if (frames && o->trajectory_hdf5 && open_trajectory(&r, sc)) {
    if (s->rank == 0) thr_output_close(&r.out, NULL, 0);
    thr_insitu_close(r.insitu);
    return write_run_json(&r, sc, 0, 0.0, 0.0, THR_RUN_FAILED, 1); /* run.json said "running" */
  }
  if (frames && o->trajectory_hdf5 && s->evac) thr_evac_keep_leavers(s->evac, 1);
  r.evac_out = out && thr_evac_output_wanted(sc);
  rc = r.evac_out ? evac_outputs_open(&r, sc) : 0;
  /* a restarted run goes on counting where its checkpoint stopped */
  if (!rc && r.evac_out && o->restart)
    rc = agree(&r, thr_checkpoint_restore_outputs(o->restart, s, r.measure, s->rank == 0 ? &r.ev : NULL, err,
                                                  errlen));
  if (rc) {
    evac_outputs_free(&r);
    thr_trajectory_close(r.traj, err, 0);
    if (s->rank == 0) thr_output_close(&r.out, NULL, 0);
    thr_insitu_close(r.insitu);
    return write_run_json(&r, sc, 0, 0.0, 0.0, THR_RUN_FAILED, 1);
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
  /* a restarted run's first frame only when due: frame numbers stay step / every */
  code = check_and_write(&r, 1, metrics, frames && due(s->step, o->trajectory_every),
                         insitu && due(s->step, o->catalyst_every), &state);
  double t0 = MPI_Wtime();
  for (long k = 0; k < o->steps && !code && !empty; ++k) {
    thr_sim_step(s);
    long st = s->step;
    empty = everyone_left(s);
    int metrics_now = metrics && due(st, o->metrics_every), frame_now = frames && due(st, o->trajectory_every);
    int insitu_now = insitu && due(st, o->catalyst_every);
    /* the step that empties the simulation gets its outputs; the last
     * step gets a trajectory frame (off the trajectory_every clock: a CSV
     * file of its step, or trajectory.h5's /final) */
    if (empty) metrics_now = metrics, insitu_now = insitu;
    if (empty || k + 1 == o->steps) frame_now = frames;
    /* exact when outputs follow or the run ends; else a GPU may look one
     * step back rather than wait */
    code = check_and_write(&r, metrics_now || frame_now || insitu_now || k + 1 == o->steps || empty, metrics_now,
                           frame_now, insitu_now, &state);
    if (!code && out && due(st, o->checkpoint_every) && write_checkpoint(&r, sc)) state = THR_RUN_FAILED, code = 1;
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
  /* Slurm's warning before a time limit (SIGTERM, or SIGUSR1 with
   * --signal) or a lost session (SIGHUP): a checkpoint to go on from,
   * unless this step has one */
  if (state == THR_RUN_INTERRUPTED && out && thr_checkpoint_available() &&
      signal_checkpoints(r.stop_signal)) {
    char name[48];
    snprintf(name, sizeof name, "checkpoint-%08ld.h5", s->step);
    const char *last = strrchr(r.checkpoint, '/');
    if (!(last && !strcmp(last + 1, name)) && write_checkpoint(&r, sc)) {
      state = THR_RUN_FAILED, code = 1;
    } else {
      state = THR_RUN_CHECKPOINTED, code = THR_EXIT_CHECKPOINTED;
      snprintf(err, errlen, "stopped by %s after step %ld; checkpoint %s written: go on with --restart %s",
               signal_name(r.stop_signal), s->step, r.checkpoint, r.checkpoint);
    }
  }
  if (!code && o->final_state && gather_and(&r, write_final, s->step)) state = THR_RUN_FAILED, code = 1;
  thr_insitu_close(r.insitu);
  thr_insitu_buffers_free(&r.insitu_buf);
  if (r.traj && !code && state == THR_RUN_COMPLETE && write_leavers_frames(&r)) state = THR_RUN_FAILED, code = 1;
  if (r.traj) {
    char terr[1200];
    int trc = thr_trajectory_close(r.traj, code == 1 ? terr : err, code == 1 ? sizeof terr : errlen);
    r.traj = NULL;
    if (trc && code != 1) state = THR_RUN_FAILED, code = 1;
  }
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
  free(r.kept);
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
