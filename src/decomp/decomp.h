/* Spatial domain decomposition: which rank owns which part of the world,
 * ghost (halo) selection and forwarding, migration, load balancing. The
 * only place in throng that calls MPI point-to-point (docs/architecture.md).
 *
 * A rank owns the agents whose cell (from x*, thr_cell_coord) lies in its
 * rectangle of cells (recursive coordinate bisection of the global grid)
 * and holds as ghosts exactly the other agents whose cell lies in its
 * window = rectangle + k_max cell rings. That, the global cell coordinates
 * and the canonical (cell, id) neighbour order make a run on P ranks
 * bitwise identical to the run on one rank. */
#ifndef THRONG_DECOMP_H
#define THRONG_DECOMP_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

#include "base/world.h"
#include "kernels/backend.h"

typedef struct thr_decomp thr_decomp;

/* Load-balancing settings (scenario keys decomposition.*). */
typedef struct thr_decomp_opts {
  int balance_every;        /* check the balance every K steps; 0 = only at start-up */
  double balance_threshold; /* re-partition when max/mean owned agents exceeds this */
} thr_decomp_opts;

/* Start with a uniform-area partition. The decomposition keeps w and prm:
 * when the partition changes it rebuilds w's obstacle lists for the new
 * window (thr_world_set_window) and hands the world to the backend again
 * (set_world). Returns 0; -1 when the scenario's grid cannot give every
 * rank a cell (message in err naming the largest rank count it admits; exit
 * status 2); -2 when out of memory. Collective. */
int thr_decomp_create(thr_decomp **d, MPI_Comm comm, thr_world *w, const thr_params *prm,
                      const thr_decomp_opts *opts, char *err, size_t errlen);
void thr_decomp_free(thr_decomp *d);
/* The cells this rank stores: its owned cells plus the ghost rings. */
thr_window thr_decomp_window(const thr_decomp *d);
/* Does this rank own an agent at x? */
int thr_decomp_owns(const thr_decomp *d, thr_vec2 x);
/* Rank among the ranks of this node (MPI_COMM_TYPE_SHARED), to pick a GPU. */
int thr_decomp_local_rank(const thr_decomp *d);
/* Once per step, after sort_owned: migration to neighbour ranks (no
 * re-sort: build_index orders owned and ghost agents canonically), load
 * balancing when due, the conservation check (one small MPI_Allreduce), an
 * all-ranks migration only when an agent's new owner is no neighbour, and
 * the ghost exchange that plans this step's halo. The first call (from
 * thr_sim_init) also balances the start-up partition. Collective. */
void thr_decomp_exchange(thr_decomp *d, thr_backend *b);

/* The same between steps, when agents were removed or added (exits,
 * sources) and a measurement needs the neighbour index again: migration,
 * the conservation check and the ghost exchange, but no balancing and no
 * step counted, so the steps that follow are the same as without it.
 * Collective. */
void thr_decomp_reindex(thr_decomp *d, thr_backend *b);
/* After a pass: forward the changed fields (THR_FIELD_BIT mask) of owned
 * agents to their ghosts on other ranks, along this step's plan.
 * Collective among neighbours. */
void thr_decomp_forward(thr_decomp *d, thr_backend *b, thr_field_mask fields);
/* The same in two halves, so that interior agents are computed while the
 * messages are in flight: begin packs and posts the messages, end waits and
 * unpacks (a no-op when nothing is in flight). One forward at a time. */
void thr_decomp_forward_begin(thr_decomp *d, thr_backend *b, thr_field_mask fields);
void thr_decomp_forward_end(thr_decomp *d, thr_backend *b);
/* This rank removed agents (exits) and added some (sources) outside a
 * migration: the conservation check's expectation and reference follow. */
void thr_decomp_note_agents(thr_decomp *d, const uint32_t *removed, size_t n_removed, const uint32_t *added,
                            size_t n_added);
/* How the per-pass halo forwards travel, once chosen (the first exchange):
 * "nccl (NCCL 2.x.y)", "mpi, device buffers", "mpi, host buffers", or
 * "none" on one rank. THRONG_HALO_TRANSPORT=auto|nccl|mpi chooses (docs/
 * user-guide.md); results are byte-identical with every transport. */
const char *thr_decomp_halo_transport(const thr_decomp *d);
/* Does this rank exchange halos (several ranks, neighbours present)? */
int thr_decomp_overlaps(const thr_decomp *d);
/* Rank 0 writes one CSV row per balance check to f (columns step, ranks,
 * imbalance_before, imbalance_after, max_owned, mean_owned, repartitioned);
 * rows of checks made before the call are written at once, with the header.
 * NULL stops logging. The caller owns f. */
void thr_decomp_set_log(thr_decomp *d, FILE *f);

#endif
