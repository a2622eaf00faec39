/* Internals of the decomposition, shared by the files of src/decomp/:
 *   decomp.c     creation, the per-step exchange (glue), partition changes
 *   partition.c  recursive coordinate bisection (no MPI)
 *   migrate.c    moving owned agents to their owners, the conservation check
 *   halo.c       neighbour ranks, ghost selection, the halo plan, forwarding
 *   balance.c    imbalance checks, re-partitioning, balance.csv rows */
#ifndef THRONG_DECOMP_INTERNAL_H
#define THRONG_DECOMP_INTERNAL_H

#include <stdint.h>

#include "decomp.h"
#include "partition.h"

/* Message tags (one per kind of message, so kinds never mix). */
enum { THR_TAG_MIGRATE = 7101, THR_TAG_GHOST_COUNT, THR_TAG_GHOST, THR_TAG_HALO /* + field 0..2 */ };

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
  int k; /* ghost rings = world k_max */
  int verbose; /* THRONG_DECOMP_VERBOSE set: print partitions and migrations */
  long fault_step; /* THRONG_DECOMP_FAULT=S (tests): lose an agent from step S; -1 = never */
  long step; /* exchanges done so far (0 during the start-up exchange) */

  thr_partition part;
  thr_window rect;   /* owned cells */
  thr_window window; /* rect + k rings, clipped */

  /* ranks whose window meets this rect (= ranks whose rect meets this
   * window), ascending; send[j] = their window within this rect */
  int n_nbr;
  int *nbr;
  thr_window *nbr_send;

  MPI_Datatype t_agent, t_ghost, t_vec2;
  MPI_Request *req; /* [2 * nranks] */

  /* agents outside the interior this step (backend select_outside) */
  int *bnd_idx;
  uint64_t *bnd_mask;
  size_t bnd_idx_cap, bnd_mask_cap;

  /* owned cells of the current storage order (backend owned_cells; used
   * when re-partitioning), or the cells of select_outside's agents */
  int32_t *cells;
  size_t cells_cap;
  int cells_valid;

  /* migration scratch */
  int *mig_idx, *mig_dest;
  size_t mig_idx_cap, mig_dest_cap;
  thr_agent_rec *mig_out, *mig_in;
  size_t mig_out_cap, mig_in_cap;
  int *scount, *rcount, *sdispl, *rdispl; /* [nranks] */

  /* conservation: global reference, local running values, this step's moves */
  uint64_t ref_count, ref_sum, ref_sq;
  uint64_t id_sum, id_sq;
  long expect;         /* owned agents this rank should hold */
  long step_sent, step_recv, step_before;

  /* halo plan of this step: per neighbour j, send_cnt[j] agents from
   * send_idx + send_off[j]; recv_cnt[j] ghosts at recv_off[j] */
  int *send_idx;
  size_t send_idx_cap, n_send, n_recv;
  int *send_cnt, *send_off, *recv_cnt, *recv_off; /* [nranks] */
  thr_ghost_rec *gsend, *grecv;
  size_t gsend_cap, grecv_cap;
  thr_vec2 *hsend, *hrecv; /* the backend's halo_buffer (host or device memory) */
  int pending;              /* fields of the forward in flight (0: none) */
  int n_pending_req;
  int device_halo;          /* halo buffers in device memory (CUDA-aware MPI) */

  /* balance log */
  FILE *log;
  thr_balance_row *rows;
  size_t n_rows, rows_cap;

  /* scratch for the id checksums and the histogram */
  int64_t *hist;
};

/* Print "throng: <message>" and abort the whole job (MPI_Abort). */
void thr_decomp_fatal(thr_decomp *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;
/* Grow *p (capacity *cap elements of elem bytes) to hold n; aborts when out
 * of memory. */
void thr_decomp_grow(thr_decomp *d, void **p, size_t *cap, size_t n, size_t elem);
/* Owned cells (gx, gy) of the current storage order, cached until the
 * owned agents change. */
const int32_t *thr_decomp_cells(thr_decomp *d, thr_backend *b);
/* Adopt d->part: rectangle, window, neighbours; with b, also rebuild the
 * world's obstacle lists and hand the world to the backend. */
void thr_decomp_apply_partition(thr_decomp *d, thr_backend *b);

/* migrate.c */
void thr_migrate(thr_decomp *d, thr_backend *b);
void thr_conservation_init(thr_decomp *d, thr_backend *b);
void thr_conservation_check(thr_decomp *d, thr_backend *b, int verify_ids);

/* halo.c */
void thr_halo_neighbours(thr_decomp *d);
void thr_halo_plan(thr_decomp *d, thr_backend *b);

/* balance.c */
void thr_balance(thr_decomp *d, thr_backend *b);
void thr_balance_log_free(thr_decomp *d);

#endif
