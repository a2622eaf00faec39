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

/* Does the backend pack the once-per-step exchange (exchange_* operations,
 * at most `boxes` neighbour boxes)? */
int thr_halo_backend_packs(const thr_decomp *d, const thr_backend *b, int boxes);
/* The messages of plan p (items of elem bytes, MPI type `type`, tag `tag`)
 * from the backend's halo buffer `send` to `recv`: over NCCL, queued on the
 * backend's message stream after the work queued so far (work queued later
 * waits for them); else over MPI, returning when they have arrived. */
void thr_halo_exchange_records(thr_decomp *d, thr_backend *b, const thr_comm_plan *p, const void *send, void *recv,
                               MPI_Datatype type, size_t elem, int tag);

#endif
