/* What the domain decomposition (src/decomp/, and only it) asks of a
 * backend: which owned agents lie where, and moving agents and their fields
 * in and out of the backend's memory in the order of a communication plan.
 * Every buffer here is host memory unless said otherwise; only these few
 * agents cross between a GPU and the host. */
#ifndef THRONG_BACKEND_COMM_H
#define THRONG_BACKEND_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

typedef struct thr_backend_comm_ops {
  /* Global cell coordinates (gx, gy) of every owned agent's x*, into
   * cells[2*i], cells[2*i+1] (2*n_owned entries). */
  int (*owned_cells)(thr_backend *b, int32_t *cells);
  /* Owned agents whose global cell (from x*) lies outside `skip`, in
   * storage order: their indices, cells (gx, gy pairs) and a bit mask
   * telling for each of the nbox (at most 64) boxes whether the cell lies in
   * it. The arrays must hold n_owned entries (mask may be NULL when nbox is
   * 0). Returns how many. */
  size_t (*select_outside)(thr_backend *b, thr_window skip, const thr_window *boxes, int nbox, int *idx,
                           int32_t *cells, uint64_t *mask);
  /* Sum and sum of squares of the owned agents' ids (conservation check). */
  void (*id_checksum)(thr_backend *b, uint64_t *sum, uint64_t *sq);

  /* Migration. Remove the owned agents idx[0..n) (ascending) and write
   * their records to recs[0..n) in that order; ghosts are dropped. The
   * agents that stay at or above the new end fill, in order, the removed
   * slots below it, in order (every backend alike). */
  int (*extract_owned)(thr_backend *b, const int *idx, size_t n, thr_agent_rec *recs);
  /* Append owned agents (ghosts are dropped). */
  int (*append_owned)(thr_backend *b, const thr_agent_rec *recs, size_t n);

  /* Ghost exchange. Ghost records of owned agents idx[0..n) into out. */
  int (*pack_ghosts)(thr_backend *b, const int *idx, size_t n, thr_ghost_rec *out);
  /* Replace the ghosts by g[0..n) (stored after the owned agents, in order). */
  int (*set_ghosts)(thr_backend *b, const thr_ghost_rec *g, size_t n);
  /* This step's halo plan: owned agents idx[0..n) are sent, in that order,
   * whenever fields are forwarded. */
  int (*set_halo_send)(thr_backend *b, const int *idx, size_t n);
  /* Split the owned agents into interior (cells inside `interior`) and
   * boundary ones for the THR_PART_* passes of this step. */
  int (*set_interior)(thr_backend *b, thr_window interior);

  /* Halo forwarding. Ask for message buffers in device memory (on = 1), to
   * hand to a CUDA-aware MPI; returns whether they are. */
  int (*halo_device_mode)(thr_backend *b, int on);
  /* Stream-ordered transport (NCCL, src/decomp/nccl.h): device buffers,
   * pack_halo returns without waiting, and the messages are queued on a
   * stream of the backend's (halo_stream_begin/end). on = 1 asks for it and
   * writes the device's 16-byte UUID (two ranks must not share a device);
   * returns whether the backend can (0: it stays in host mode). */
  int (*halo_stream_mode)(thr_backend *b, int on, unsigned char uuid[16]);
  /* The stream (a cudaStream_t) to queue this forward's messages on; they
   * start after the work queued so far (the pack) and run beside the
   * passes queued next. */
  void *(*halo_stream_begin)(thr_backend *b);
  /* Work queued from now on (unpack_halo, passes) waits for the messages. */
  void (*halo_stream_end)(thr_backend *b);
  /* A buffer of at least `bytes` owned by the backend (which = 0: send, 1:
   * receive): host memory (page-locked for the CUDA backend), or device
   * memory in device mode. Valid until the next call with the same `which`;
   * NULL when out of memory. */
  void *(*halo_buffer)(thr_backend *b, int which, size_t bytes);
  /* The fields of `mask` (in field order, each an array of n_send
   * elements) of the send list, into buf; returns when buf is ready (in
   * stream mode: once the gather is queued). */
  void (*pack_halo)(thr_backend *b, thr_field_mask mask, void *buf);
  /* The same layout, over all ghosts in ghost order, from buf. May return
   * before the copy is done: passes queued after it see the data, and the
   * next pack_halo waits for it. */
  void (*unpack_halo)(thr_backend *b, thr_field_mask mask, const void *buf);

  /* ---- The once-per-step exchange packed by the backend (NULL where a
   * backend has none, and the decomposition then uses the operations
   * above). Records are packed into halo buffer 0 and taken from halo
   * buffer 1: in device mode they never reach the host, else they cross
   * once each way in one copy; the host learns only how many go where.
   * Outside stream mode both operations wait for the backend, so that MPI
   * may send and then reuse the buffers. */
  /* Owned agents whose cell lies outside `skip`, each once for every one of
   * the nbox boxes holding its cell, packed into halo buffer 0 grouped by
   * box (box order; storage order within a box). THR_EXCHANGE_GHOSTS (nbox
   * <= 64): ghost records, and the same agents, in the same order, become
   * the halo send list. THR_EXCHANGE_MIGRATE (disjoint boxes, nbox <= 63):
   * full records, the agents in no box after the last box's, and every
   * selected agent leaves the owned set (ghosts are dropped). Writes
   * counts[0..nbox] (box j; [nbox] in no box: migration only) and, for
   * migration, sums[2j], sums[2j+1]: sum and sum of squares of box j's ids.
   * Waits for the counts, the only host waits of the exchange. */
  int (*exchange_select)(thr_backend *b, int kind, thr_window skip, const thr_window *boxes, int nbox,
                         size_t *counts, uint64_t *sums);
  /* Records first..first+n of halo buffer 0 into host recs (migration: the
   * agents in no box, which the decomposition keeps). */
  int (*exchange_copy_out)(thr_backend *b, size_t first, size_t n, thr_agent_rec *recs);
  /* The n records received in halo buffer 1 (after the work queued so far,
   * the messages): THR_EXCHANGE_GHOSTS: they replace the ghosts;
   * THR_EXCHANGE_MIGRATE: they are appended to the owned agents. */
  int (*exchange_receive)(thr_backend *b, int kind, size_t n);
} thr_backend_comm_ops;

enum { THR_EXCHANGE_GHOSTS = 0, THR_EXCHANGE_MIGRATE = 1 };

#endif
