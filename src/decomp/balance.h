/* Dynamic load balancing: measure the imbalance (max / mean owned agents);
 * above the threshold, re-partition by RCB weighted with the global
 * histogram of agents per bin, adopt the new partition when it is better,
 * and migrate the agents to their new owners right away. Rank 0 keeps one
 * row per check for balance.csv. */
#ifndef THRONG_BALANCE_H
#define THRONG_BALANCE_H

#include "decomp_state.h"

/* One balance check. Collective. */
void thr_balance(thr_decomp *d, thr_backend *b);
void thr_balance_log_free(thr_decomp *d);

#endif
