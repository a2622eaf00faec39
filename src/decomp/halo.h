/* Ghosts: every owned agent whose cell lies in another rank's window is
 * sent to that rank, directly (no relays, so subdomains narrower than the
 * ghost width work). The halo plan is built once per step after migration
 * and applied by every forward of that step. */
#ifndef THRONG_HALO_H
#define THRONG_HALO_H

#include "decomp_state.h"

/* Select this step's ghosts, exchange their records, hand the backend its
 * ghosts, its send list and its interior/boundary split. Collective among
 * neighbours. */
void thr_halo_plan(thr_decomp *d, thr_backend *b);

/* Does the once-per-step exchange stay in the backend's memory (NCCL, a
 * backend with exchange_* operations, at most `boxes` neighbours boxes)? */
int thr_halo_on_device(const thr_decomp *d, const thr_backend *b, int boxes);
/* The messages of plan p (items of elem bytes) from device buffer send to
 * recv over NCCL, queued on the backend's message stream after the work
 * queued so far; work queued later waits for them. */
void thr_halo_device_messages(thr_decomp *d, thr_backend *b, const thr_comm_plan *p, const void *send, void *recv,
                              size_t elem);

#endif
