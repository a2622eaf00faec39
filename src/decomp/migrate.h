/* Migration: owned agents whose cell left this rank's rectangle move, with
 * their whole state, to the rank owning that cell; and the conservation
 * check (agent count and id checksums against the start). */
#ifndef THRONG_MIGRATE_H
#define THRONG_MIGRATE_H

#include "decomp_state.h"

enum {
  /* to neighbour ranks only, through the migration plan: an agent whose
   * owner is no neighbour (it moved further than the ghost width in one
   * step) waits in the pending list */
  THR_MIGRATE_NEIGHBOURS,
  /* to any rank, pending records too: after a re-partition, or when the
   * conservation check reports records pending anywhere */
  THR_MIGRATE_ALL_RANKS
};

void thr_migrate(thr_decomp *d, thr_backend *b, int mode);

/* The reference count and checksums (the start-up exchange). Collective. */
void thr_conservation_init(thr_decomp *d, thr_backend *b);
/* Compare with the reference (one MPI_Allreduce); stop the run, naming the
 * step and the ranks, when an agent was lost or duplicated. verify_ids
 * recomputes the checksums from the backend's ids. Returns the number of
 * records pending over all ranks. Collective. */
long thr_conservation_check(thr_decomp *d, thr_backend *b, int verify_ids);

#endif
