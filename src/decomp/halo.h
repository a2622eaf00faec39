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

#endif
