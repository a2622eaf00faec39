/* The state of the decomposition, shared as data by the files of
 * src/decomp/. Each file's functions are declared in its own header, and a
 * file includes only the headers of the files below it:
 *
 *   decomp.c    creation, the once-per-step exchange            (top)
 *   balance.c   imbalance checks, re-partitioning, balance.csv
 *   migrate.c   moving owned agents to their owners, conservation
 *   halo.c      ghost selection (the halo plan), forwarding
 *   topology.c  adopting a partition: rectangle, window, neighbours
 *   support.c   fatal errors, growing buffers, MPI datatypes
 *   exchange.c  applying plans with MPI point-to-point
 *   plan.c      communication plans (pure)
 *   partition.c recursive coordinate bisection (pure)          (bottom)
 *
 * so calls only go down and tests/unit/check_layers.py can check that. */
#ifndef THRONG_DECOMP_STATE_H
#define THRONG_DECOMP_STATE_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "decomp.h"
#include "kernels/backend_comm.h"
#include "partition.h"
#include "plan.h"

/* The id checksums are recomputed from the backend's own ids at every
 * balance check and at least this often (steps). */
#define THR_DECOMP_VERIFY_EVERY 64

typedef struct thr_balance_row {
  long step;
  double before, after;
  long max_owned;
  double mean_owned;
  int repartitioned;
} thr_balance_row;

struct thr_decomp {
  MPI_Comm comm;
  int rank, nranks, local_rank;
  thr_world *world;
  const thr_params *prm;
  thr_decomp_opts opts;
  int k;           /* ghost rings = world k_max */
  int verbose;     /* THRONG_DECOMP_VERBOSE set: print partitions and migrations */
  long fault_step; /* THRONG_DECOMP_FAULT=S (tests): lose an agent from step S; -1 = never */
  long step;       /* exchanges done so far (0 during the start-up exchange) */

  thr_partition part;
  thr_window rect;   /* owned cells */
  thr_window window; /* rect + k rings, clipped */

  /* neighbours: ranks whose window meets this rect (= ranks whose rect
   * meets this window), ascending; nbr_send[j] = their window within this
   * rect */
  int n_nbr;
  int *nbr;
  thr_window *nbr_send;

  MPI_Datatype t_agent, t_ghost;
  MPI_Datatype t_field[THR_F_COUNT]; /* one element of each agent field */
  MPI_Request *req;
  size_t req_cap;

  /* agents outside a window (backend select_outside), with their cells and
   * a bit per neighbour window */
  int *cand;
  uint64_t *cand_mask;
  size_t cand_cap, cand_mask_cap;
  /* owned cells of the current storage order (thr_topology_cells), or the
   * cells of select_outside's agents */
  int32_t *cells;
  size_t cells_cap;
  int cells_valid;

  /* migration: the plan, destinations (peer index, -1 when not a
   * neighbour), records out and in, and records waiting for an all-ranks
   * exchange (their owner is no neighbour) */
  thr_comm_plan mig;
  int *mig_dest;
  size_t mig_dest_cap;
  thr_agent_rec *mig_recs, *mig_send, *mig_recv, *pending;
  size_t mig_recs_cap, mig_send_cap, mig_recv_cap, pending_cap, n_pending;

  /* conservation: global reference, local running values (owned agents
   * plus pending records), this step's moves */
  uint64_t ref_count, ref_sum, ref_sq;
  uint64_t id_sum, id_sq;
  long expect; /* owned agents + pending records this rank should hold */
  int64_t delta_count; /* agents added - removed here since the last check (exits, sources) */
  uint64_t delta_sum, delta_sq;
  long step_sent, step_recv, step_before;

  /* halo plan of this step and the forward in flight */
  thr_comm_plan halo;
  thr_ghost_rec *gsend, *grecv;
  size_t gsend_cap, grecv_cap;
  thr_field_mask in_flight; /* fields of the forward in flight (0: none) */
  int n_in_flight_req;
  void *hrecv;     /* the receive buffer of the forward in flight */
  int device_halo; /* halo buffers in device memory (CUDA-aware MPI, NCCL) */
  int transport;   /* THR_TRANSPORT_* asked for (THRONG_HALO_TRANSPORT) */
  int overlap;     /* split passes into interior and boundary parts (THRONG_HALO_OVERLAP) */
  struct thr_nccl *nccl; /* the NCCL transport, when in use */
  int device_exchange;   /* the backend packs migration and ghosts (decision 0018; THRONG_DEVICE_EXCHANGE=0: not) */
  char transport_name[48]; /* what the forwards use (thr_decomp_halo_transport) */

  /* balance log */
  FILE *log;
  thr_balance_row *rows;
  size_t n_rows, rows_cap;

  int64_t *hist; /* agents per partition bin */
};

#endif
