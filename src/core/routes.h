/* The distance fields a scenario's agents follow (docs/routing.md): which
 * it needs (an exit's, the nearest exit's, a stage's), computed with
 * behavior/navfield identically on every rank, and stored in the world for
 * the backends. With congestion-aware routing (routing.congestion,
 * routing.exit_choice: time) the exit fields are recomputed as the crowd
 * moves, from the agents per cell summed over ranks (core/congestion.c). */
#ifndef THRONG_ROUTES_H
#define THRONG_ROUTES_H

#include <stddef.h>
#include <stdint.h>

#include "base/blob.h"
#include "base/scenario.h"
#include "base/world.h"
#include <mpi.h>

#include "behavior/navfield.h"
#include "kernels/backend.h"

/* What recomputing the fields needs, kept from their first computation:
 * the backend's setup (thr_route_setup, whose arrays live here) and the
 * exit-choice state. */
typedef struct thr_routing {
  int n_dynamic;      /* fields recomputed; 0: every field is static */
  long every;         /* steps between recomputations */
  thr_route_setup setup;
  float *base_cost;   /* [cells] the setup's arrays */
  int32_t *walk_box;
  int32_t *ph_cell, *ph_partner; /* the setup's phantom cells (a building's seams) */
  int count_field[THR_MAX_FIELDS + 1];
  int field[THR_MAX_FIELDS], weights_of[THR_MAX_FIELDS], labelled[THR_MAX_FIELDS];
  thr_navsource *src[THR_MAX_FIELDS];
  const thr_navsource *src_c[THR_MAX_FIELDS];
  long n_src[THR_MAX_FIELDS];
  int choice;         /* exit choice by time on the nearest-exit field */
  float hysteresis;   /* [s] */
  float relax;        /* share of the way a queue time moves towards its new value per recomputation */
  int n_exits;
  float *capacity;    /* [n_exits] persons/s: queue_flow x width */
  float *queue;       /* [n_exits] queue time of each exit [s] */
  float *offset;      /* [n_exits] the queue times in metres at free speed: the sources' start values */
  int64_t *basin;     /* [n_exits] each exit's queue at the last recomputation [THR_CROWD_QUANTA] */
  int labelled_once;  /* a solve has labelled the basins */
  long updates;       /* recomputations so far */
  long rounds;        /* solver rounds so far */
  double seconds;     /* wall-clock time of the recomputations (this rank) */
} thr_routing;

/* Compute the fields the scenario uses into w (nothing when it uses none);
 * with r (may be NULL) keep what recomputing the dynamic ones needs
 * (r->n_dynamic 0: none). Returns 0; -1 with a message (bad input: a grid
 * too large for routing.cell, an exit or stage with no walkable cell); -2
 * out of memory. */
int thr_routes_build(thr_world *w, const thr_scenario *sc, const thr_params *prm, thr_routing *r, char *err,
                     size_t errlen);
void thr_routing_free(thr_routing *r);

/* The backend's part: route_setup once, after the backend has its world. */
int thr_routing_setup(thr_routing *r, thr_backend *b);

/* Recompute the dynamic fields where the agents are now: each rank counts
 * its agents per cell, the counts are summed over ranks as integers (comm;
 * host buffer counts of setup.n_counts x cells, used only on several
 * ranks), and every rank solves the same fields. With exit choice by time,
 * each exit's queue time is revised first from the agents in its basin. 0,
 * or -1 (message in b->error). Collective. */
int thr_routing_update(thr_routing *r, thr_backend *b, MPI_Comm comm, int nranks, int32_t *counts);

/* What recomputing costs, for `throng check`: the host engine's memory
 * (bytes), and one recomputation with nobody in the way timed on this host
 * (seconds, solver rounds). 0, or -1 out of memory. */
int thr_routing_probe(const thr_routing *r, const thr_world *w, size_t *bytes, double *seconds, long *rounds);

/* Checkpoints: the counts of the last recomputation (from the backend) and
 * the queue times; unpack gives the backend those counts and solves again,
 * so that the fields are those the run had. unpack: 0, or -1 (damaged,
 * message in err). */
int thr_routing_pack(const thr_routing *r, thr_backend *b, thr_blob *blob);
int thr_routing_unpack(thr_routing *r, thr_backend *b, thr_blob *blob, char *err, size_t errlen);

/* Can an agent at x follow field k to its end (a finite distance)? */
int thr_route_reachable(const thr_world *w, int k, thr_vec2 x);
/* The centre of the routing cell nearest to x from which field k reaches its
 * target (an unreachable agent's message names where the way closes); 0
 * when there is none. */
int thr_route_nearest_reached(const thr_world *w, int k, thr_vec2 x, thr_vec2 *at);

/* "exit 'east'", "the nearest exit", "stage 'ticket'" into buf. */
const char *thr_route_name(const thr_scenario *sc, const thr_world *w, int k, char *buf, size_t len);

/* Bytes the fields take, with their copies without the crowd where the
 * fields see it (each rank holds them all). */
size_t thr_routes_bytes(const thr_world *w);

#endif
