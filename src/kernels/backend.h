/* The backend interface: the step driver (core/sim.c) calls these
 * operations and never knows whether they run on CPU threads or a GPU.
 * A backend owns the local agents (owned first, then ghosts) in its own
 * memory; the host sees them only through set_agents/get_agents and the
 * halo/migration packing calls used by decomp/. */
#ifndef THRONG_BACKEND_H
#define THRONG_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "base/agents.h"
#include "base/params.h"
#include "base/world.h"
#include "passes.h"

/* Partial step metrics of the owned agents (reduced over ranks by core). */
#define THR_SPEED_QUANTUM 1e-6

typedef struct thr_metrics_partial {
  long agents;
  long at_goal;
  long overlap_pairs;
  long wall_penetrations;
  int64_t speed_sum_q; /* sum of speeds in units of THR_SPEED_QUANTUM: integer, so the sum
                          is the same whatever the order (ranks, threads) */
  double max_overlap;
  double max_overlap_ratio;
  double max_wall_overlap;
} thr_metrics_partial;

/* What a ghost (a copy of another rank's agent) carries: everything a
 * neighbour loop reads. */
typedef struct thr_ghost_rec {
  uint32_t id;
  float radius;
  float inv_mass;
  thr_vec2 x, p, v;
} thr_ghost_rec;

/* Fields forwarded to ghosts after a pass (thr_backend_ops.pack_halo):
 * in the buffer, the selected fields follow each other in this order, each
 * as an array of n thr_vec2. */
enum { THR_HALO_X = 1, THR_HALO_P = 2, THR_HALO_VNEW = 4 };

/* Which owned agents a pass computes. Interior agents (cells more than the
 * ghost width inside the rank's rectangle) read no ghost, so they can be
 * computed while the previous pass's halo messages are in flight; the
 * boundary agents follow once the ghosts have arrived. A pass's output
 * becomes its input for the next pass after the part that completes it
 * (ALL or BOUNDARY). Without set_interior every agent is a boundary agent. */
enum { THR_PART_ALL = 0, THR_PART_INTERIOR = 1, THR_PART_BOUNDARY = 2 };

typedef struct thr_backend thr_backend;

typedef struct thr_backend_ops {
  const char *name;
  void (*destroy)(thr_backend *b);
  /* Static world: grid geometry of the rank's cell window, obstacles, goals. */
  int (*set_world)(thr_backend *b, const thr_world *w, const thr_params *prm);
  /* Replace the local agents by the owned agents in `owned` (no ghosts). */
  int (*set_agents)(thr_backend *b, const thr_agents *owned);
  /* Copy the owned agents (all fields) into `owned` (resized). */
  int (*get_agents)(thr_backend *b, thr_agents *owned);
  size_t (*n_owned)(thr_backend *b);

  /* Phases of a step, in driver order (docs/architecture.md). */
  void (*predict)(thr_backend *b);     /* plan, blend, x* (owned) */
  void (*sort_owned)(thr_backend *b);  /* cells from x*, owned agents reordered by (cell, id) */
  void (*build_index)(thr_backend *b); /* neighbour index over owned and ghost agents */
  /* The passes; `part` is a THR_PART_* value. */
  void (*stability)(thr_backend *b, int part);  /* one stability iteration */
  void (*long_range)(thr_backend *b, int part); /* long-range / avoidance group of a solver iteration */
  void (*contact)(thr_backend *b, int part);    /* contact + walls group of a solver iteration */
  void (*velocity)(thr_backend *b, int part);   /* v = (x* - x)/dt into the new-velocity buffer */
  void (*finalize)(thr_backend *b, int part);   /* XSPH, clamps, x = x*, goal flags */
  void (*measure)(thr_backend *b, thr_metrics_partial *out);
  void (*sync)(thr_backend *b);        /* wait for queued work (timing) */

  /* ---- support for the domain decomposition (decomp/ calls these) ---- */
  /* Global cell coordinates (gx, gy) of every owned agent's x*, into
   * cells[2*i], cells[2*i+1] (host array of 2*n_owned). */
  int (*owned_cells)(thr_backend *b, int32_t *cells);
  /* Owned agents whose global cell (from x*) lies outside `skip`, in
   * storage order: their indices, cells (gx, gy pairs) and a bit mask
   * telling for each of the nbox (at most 64) boxes whether the cell lies in
   * it. The host arrays must hold n_owned entries (mask may be NULL when
   * nbox is 0). Returns how many. Only these few agents cross to the host. */
  size_t (*select_outside)(thr_backend *b, thr_window skip, const thr_window *boxes, int nbox, int *idx,
                           int32_t *cells, uint64_t *mask);
  /* Sum and sum of squares of the owned agents' ids (conservation check). */
  void (*id_checksum)(thr_backend *b, uint64_t *sum, uint64_t *sq);
  /* Remove the owned agents idx[0..n) (ascending) and return their full
   * records in recs (host). Ghosts are dropped. */
  int (*extract_owned)(thr_backend *b, const int *idx, size_t n, thr_agent_rec *recs);
  /* Append owned agents (after extract_owned; ghosts are dropped). */
  int (*append_owned)(thr_backend *b, const thr_agent_rec *recs, size_t n);
  /* Ghost payload of owned agents idx[0..n) into out (host). */
  int (*pack_ghosts)(thr_backend *b, const int *idx, size_t n, thr_ghost_rec *out);
  /* Replace the ghosts by g[0..n) (stored after the owned agents, in order). */
  int (*set_ghosts)(thr_backend *b, const thr_ghost_rec *g, size_t n);
  /* The halo plan of this step: owned agents idx[0..n) are sent, in that
   * order, whenever fields are forwarded. */
  int (*set_halo_send)(thr_backend *b, const int *idx, size_t n);
  /* Split the owned agents into interior (cells inside `interior`) and
   * boundary ones for the THR_PART_* passes of this step. */
  int (*set_interior)(thr_backend *b, thr_window interior);
  /* Ask for halo buffers in device memory (on = 1), to hand to a CUDA-aware
   * MPI. Returns whether they are (0 for host-memory backends). */
  int (*halo_device_mode)(thr_backend *b, int on);
  /* A buffer of at least `bytes` owned by the backend, for halo messages
   * (which = 0: send, 1: receive): host memory (page-locked for the CUDA
   * backend, so that packing and unpacking are DMA transfers), or device
   * memory in device mode. Valid until the next call with the same `which`;
   * NULL when out of memory. */
  void *(*halo_buffer)(thr_backend *b, int which, size_t bytes);
  /* Pack the selected fields (THR_HALO_*) of the send list into buf
   * (n_send thr_vec2 per field, field after field); returns when buf is
   * ready to send. */
  void (*pack_halo)(thr_backend *b, int fields, void *buf);
  /* Unpack the selected fields of all ghosts, in ghost order, from buf
   * (same layout). May return before the copy is done: passes queued after
   * it see the data, and the next pack_halo waits for it. */
  void (*unpack_halo)(thr_backend *b, int fields, const void *buf);

  /* Bytes of backend memory (device memory for the CUDA backend) held for
   * agents, grid and world; NULL when not measured. */
  size_t (*memory_bytes)(thr_backend *b);
} thr_backend_ops;

struct thr_backend {
  const thr_backend_ops *ops;
  void *impl;
};

/* Available backends. */
thr_backend *thr_backend_cpu_create(void);
#ifdef THRONG_HAVE_CUDA
/* device = node-local rank modulo the number of visible GPUs */
thr_backend *thr_backend_cuda_create(int local_rank, char *err, size_t errlen);
int thr_cuda_device_count(void);
#endif

#endif
