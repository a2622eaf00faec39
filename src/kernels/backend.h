/* The backend interface, as the step driver (core/sim.c) sees it: the
 * compute operations of a time step, which run on CPU threads or a GPU
 * without the driver knowing which. A backend owns the local agents (owned
 * first, then ghosts) in its own memory. What the domain decomposition asks
 * of a backend (selecting, packing and unpacking agents) is a second table,
 * in backend_comm.h, used only by src/decomp/.
 *
 * Errors: operations that can fail for lack of memory return -1 and leave a
 * message in b->error for the caller to report. A failure inside an
 * operation that cannot return one (a CUDA launch in a pass) goes to
 * thr_backend_fail, which calls the handler the driver installed (it
 * reports and aborts the simulation's communicator). */
#ifndef THRONG_BACKEND_H
#define THRONG_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "base/agents.h"
#include "base/params.h"
#include "base/world.h"
#include "eikonal.h"
#include "pass_parts.h"
#include "pass_list.h"
#include "quanta.h"

/* Partial step metrics of the owned agents (reduced over ranks by core). */
typedef struct thr_metrics_partial {
  long agents;
  long at_goal;
  long overlap_pairs;
  long wall_penetrations;
  long lp_fallbacks; /* ORCA: agents whose linear program had no feasible point this step */
  long forced;       /* ORCA: agents a physical force acted on this step */
  long in_state[THR_MAX_BSTATES]; /* ORCA: agents in each behaviour state (behaviors.states) */
  int64_t speed_sum_q; /* sum of speeds in units of THR_SPEED_QUANTUM: integer, so the sum
                          is the same whatever the order (ranks, threads) */
  double max_overlap;
  double max_overlap_ratio;
  double max_wall_overlap;
} thr_metrics_partial;

/* ---- evacuation (core/evac.c; docs/decisions/0003-evacuation.md) ---- */

/* An owned agent that reached its stage (THR_FLAG_ARRIVED) or its slot
 * (THR_FLAG_SEATED) in the last FINALIZE; core/evac.c also uses it for the
 * agents that left (THR_FLAG_EXITED). */
typedef struct thr_stage_event {
  uint32_t id, flags;
  int32_t stage, slot, journey;
} thr_stage_event;


/* What evac_collect hands out (backend buffers, valid until its next call). */
typedef struct thr_evac_collect {
  const thr_agent_rec *exited; /* removed agents, in storage order */
  size_t n_exited;
  const thr_stage_event *events;
  size_t n_events;
} thr_evac_collect;

/* Counts that evac_measure adds to (host arrays sized from the world; NULL
 * entries are skipped): owned agents and the sum of their speeds in
 * THR_SPEED_QUANTUM per measurement area and per map cell, and crossings of
 * each measurement line since the last call. */
typedef struct thr_evac_counts {
  int64_t *area_agents, *area_speed; /* [n_areas] */
  int64_t *map_agents, *map_speed;   /* [map_nx * map_ny] */
  int64_t *line_crossings;           /* [n_lines] */
} thr_evac_counts;

/* What a backend needs to recompute the dynamic fields (route_setup): the
 * grid of the world's fields, each cell's cost without the crowd, the box
 * of its density, the speed law, and per dynamic field its sources. */
typedef struct thr_route_setup {
  int nx, ny;
  float h;
  const float *base_cost;   /* [cells] h / speed without the crowd; +INFINITY blocked */
  const int32_t *walk_box;  /* [cells] walkable cells in each cell's density box */
  int box;                  /* the box's half-width in cells */
  thr_crowd_law law;
  int n_counts;             /* count arrays */
  const int *count_field;   /* [n_counts] field whose direction weights array k (-1: plain counts) */
  int queue_counts;         /* the count array the exits' queues are summed from, -1: none */
  int n_dynamic;            /* fields recomputed */
  const int *field;         /* [n_dynamic] their world field indices */
  const int *weights_of;    /* [n_dynamic] the count array of their crowd (-1: static speeds) */
  const int *labelled;      /* [n_dynamic] 1: labels kept (the exits' basins) */
  const thr_navsource *const *src; /* [n_dynamic] sources (cell, start value, label = exit) */
  const long *n_src;
  int n_exits;
  float queue_radius;       /* an exit's queue: its basin's agents within this travel distance of it [m] */
  int n_phantom;            /* a building's phantom cells, each taking its partner's value (behavior/navfield.h) */
  const int32_t *ph_cell, *ph_partner;
} thr_route_setup;

typedef struct thr_backend thr_backend;
struct thr_backend_comm_ops;
struct thr_formation_state; /* kernels/formation.h */

typedef struct thr_backend_ops {
  const char *name;
  void (*destroy)(thr_backend *b);
  /* Static world: grid geometry of the rank's cell window, obstacles, goals. */
  int (*set_world)(thr_backend *b, const thr_world *w, const thr_params *prm);
  /* Replace the local agents by the owned agents in `owned` (no ghosts). */
  int (*set_agents)(thr_backend *b, const thr_agents *owned);
  /* Copy the owned agents' STATE fields into `owned` (resized). */
  int (*get_agents)(thr_backend *b, thr_agents *owned);
  /* Copy the fields of `mask` of every local agent, owned then ghosts, into
   * `all` (host, resized; all->n and all->n_owned set): for inspection and
   * the conformance tests, not for a step. */
  int (*copy_out)(thr_backend *b, thr_agents *all, thr_field_mask mask);
  size_t (*n_owned)(thr_backend *b);
  /* The owned agents' fields of `mask` on the host, for a reader that looks
   * and keeps nothing (in situ visualisation). view_begin starts the copies
   * (CUDA: on the backend's stream, after the last step's work, into
   * page-locked buffers, without waiting; CPU: nothing to copy); view_end
   * waits for them and points view's arrays of `mask` at host memory (CPU:
   * the backend's own arrays), valid until the next backend operation; the
   * other arrays are NULL. */
  int (*view_begin)(thr_backend *b, thr_field_mask mask);
  int (*view_end)(thr_backend *b, thr_agents *view);

  /* The formations' state of the coming step (n of them; the same on every
   * rank), before predict; kept until the next call. */
  int (*set_formations)(thr_backend *b, const struct thr_formation_state *st, int n);

  /* The step, in driver order (docs/architecture.md). */
  void (*predict)(thr_backend *b, float time); /* plan, blend, x* (owned); time: the step's start [s] */
  void (*sort_owned)(thr_backend *b);  /* cells from x*, owned agents reordered by (cell, id) */
  void (*build_index)(thr_backend *b); /* neighbour index over owned and ghost agents */
  /* One pass of the pass table (kind: THR_PASS_*) over a part (THR_PART_*)
   * of the owned agents. */
  void (*pass)(thr_backend *b, int kind, int part);
  void (*measure)(thr_backend *b, thr_metrics_partial *out);
  /* Add, per formation (n), the owned agents' squared distances to their
   * SRDs (thr_agent_formation_error) and their count of broken formations. */
  int (*formation_measure)(thr_backend *b, int n, int64_t *sq_q, int64_t *broken);
  /* Health of the state the FINALIZE pass wrote: the lowest
   * thr_nonfinite_key of an owned agent whose x, x* or v is not finite, or
   * THR_ALL_FINITE. wait = 1: of the last FINALIZE (may synchronise a GPU);
   * wait = 0: of the last one that has completed without waiting, which a
   * GPU backend may report one step late (then *late = 1). */
  uint64_t (*nonfinite)(thr_backend *b, int wait, int *late);

  /* Evacuation, after FINALIZE (unused, and cheap, without exits, stages or
   * sources). Remove the owned agents flagged EXITED and hand out the stage
   * events of the others, clearing their event flags. */
  int (*evac_collect)(thr_backend *b, thr_evac_collect *out);
  /* Apply as[0..n) (sorted by id) to the owned agents among them. */
  int (*evac_assign)(thr_backend *b, const thr_stage_assign *as, size_t n);
  /* Append new owned agents (sources). */
  int (*insert)(thr_backend *b, const thr_agent_rec *recs, size_t n);
  /* free_out[k] = 1 when no owned agent (at its current position)
   * overlaps the disk (pts[k], radius[k]) at contact distance
   * (thr_agent_blocks_point). Owned agents only, by a scan, not the grid:
   * it is called after exits were removed (ghosts dropped, the index
   * stale), and every rank probes every candidate, so that the answer (the
   * minimum over ranks) is the same on any rank count. */
  int (*probe_free)(thr_backend *b, const thr_vec2 *pts, const float *radius, size_t n, unsigned char *free_out);
  /* Add measurement counts (thr_evac_counts). */
  int (*evac_measure)(thr_backend *b, thr_evac_counts *out);
  /* Congestion-aware routing (core/congestion.c, kernels/eikonal.h): the
   * backend recomputes the world's dynamic fields where its agents are.
   * route_setup once (after set_world; the setup is copied); route_count
   * counts the owned agents per cell into the backend's count arrays (each
   * array weighted by thr_agent_crowd_weight of its field), and hands a
   * host copy (n_counts x cells) when host is not NULL; route_set_counts
   * replaces them (the sums over ranks); route_basins adds the counts of
   * array queue_counts (in THR_CROWD_QUANTA of an agent) over each exit's
   * queue (thr_route_in_queue: the cells of its basin within queue_radius of
   * it, by the last solve's labels and values) to basins[n_exits];
   * route_solve recomputes every dynamic field (exit e's sources starting
   * at exit_offset[e] in the labelled field) and returns the rounds the
   * solver took. All -1 with b->error on failure. */
  int (*route_setup)(thr_backend *b, const thr_route_setup *rs);
  int (*route_count)(thr_backend *b, int32_t *host);
  int (*route_count_get)(thr_backend *b, int32_t *host); /* the counts now held (checkpoints) */
  int (*route_set_counts)(thr_backend *b, const int32_t *host);
  int (*route_basins)(thr_backend *b, int64_t *basins);
  int (*route_solve)(thr_backend *b, const float *exit_offset, long *rounds);
  void (*sync)(thr_backend *b); /* wait for queued work (timing) */

  /* Bytes of backend memory (device memory for the CUDA backend) held for
   * agents, grid and world; NULL when not measured. */
  size_t (*memory_bytes)(thr_backend *b);
} thr_backend_ops;

/* Called with the backend and a message when an operation fails where it
 * cannot return an error; must not return (it aborts the run). */
typedef void (*thr_backend_fail_fn)(void *ctx, thr_backend *b, const char *msg);

struct thr_backend {
  const thr_backend_ops *ops;
  const struct thr_backend_comm_ops *comm; /* decomp/ only (backend_comm.h) */
  void *impl;
  char error[512];            /* why the last operation returned -1 */
  thr_backend_fail_fn on_fail; /* installed by the driver */
  void *fail_ctx;
};

/* Record why an operation fails; returns -1 (for `return thr_backend_error(...)`). */
int thr_backend_error(thr_backend *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* An operation cannot go on: hand the message to the driver's handler
 * (which aborts); without one, print it and abort. */
void thr_backend_fail(thr_backend *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;

/* Available backends. */
thr_backend *thr_backend_cpu_create(void);
#ifdef THRONG_HAVE_CUDA
/* device = node-local rank modulo the number of visible GPUs */
thr_backend *thr_backend_cuda_create(int local_rank, char *err, size_t errlen);
int thr_cuda_device_count(void);
#endif

#endif
