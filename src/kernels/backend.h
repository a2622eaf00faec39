/* The backend interface: the step driver (core/sim.c) calls these
 * operations and never knows whether they run on CPU threads or a GPU.
 * A backend owns the local agents (owned first, then ghosts) in its own
 * memory; the host sees them only through set_agents/get_agents and the
 * halo/migration packing calls used by decomp/. */
#ifndef THRONG_BACKEND_H
#define THRONG_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include "../core/agents.h"
#include "../core/world.h"
#include "params.h"

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
  void (*stability)(thr_backend *b);   /* one stability iteration */
  void (*long_range)(thr_backend *b);  /* long-range / avoidance group of one solver iteration */
  void (*contact)(thr_backend *b);     /* contact + walls group of one solver iteration */
  void (*velocity)(thr_backend *b);    /* v = (x* - x)/dt into the new-velocity buffer */
  void (*finalize)(thr_backend *b);    /* XSPH, clamps, x = x*, goal flags */
  void (*measure)(thr_backend *b, thr_metrics_partial *out);
  void (*sync)(thr_backend *b);        /* wait for queued work (timing) */
} thr_backend_ops;

struct thr_backend {
  const thr_backend_ops *ops;
  void *impl;
};

/* Available backends. */
thr_backend *thr_backend_cpu_create(void);
#ifdef THRONG_HAVE_CUDA
thr_backend *thr_backend_cuda_create(char *err, size_t errlen);
int thr_cuda_device_count(void);
#endif

#endif
