/* Migration: owned agents whose cell left this rank's rectangle move, with
 * their whole state, to the rank owning that cell; then the conservation
 * check (global count and id checksums against the start). */
#include "decomp_internal.h"

#include <stdlib.h>
#include <string.h>

static void add_ids(uint64_t *sum, uint64_t *sq, uint32_t id, int sign) {
  uint64_t v = id;
  if (sign > 0) {
    *sum += v;
    *sq += v * v;
  } else {
    *sum -= v;
    *sq -= v * v;
  }
}

void thr_migrate(thr_decomp *d, thr_backend *b) {
  size_t n = b->ops->n_owned(b);
  int P = d->nranks;
  /* who leaves, in storage order (extract_owned wants ascending indices):
   * the backend reports only the agents outside this rank's rectangle */
  thr_decomp_grow(d, (void **)&d->mig_idx, &d->mig_idx_cap, n + 1, sizeof(int));
  thr_decomp_grow(d, (void **)&d->mig_dest, &d->mig_dest_cap, n + 1, sizeof(int));
  thr_decomp_grow(d, (void **)&d->cells, &d->cells_cap, 2 * n + 2, sizeof *d->cells);
  memset(d->scount, 0, (size_t)P * sizeof(int));
  size_t nout = b->ops->select_outside(b, d->rect, NULL, 0, d->mig_idx, d->cells, NULL);
  d->cells_valid = 0; /* d->cells now holds the leavers' cells only */
  for (size_t k = 0; k < nout; ++k) {
    int r = thr_partition_owner(&d->part, d->cells[2 * k], d->cells[2 * k + 1]);
    d->mig_dest[k] = r;
    d->scount[r]++;
  }
  MPI_Alltoall(d->scount, 1, MPI_INT, d->rcount, 1, MPI_INT, d->comm);
  size_t nin = 0;
  for (int r = 0; r < P; ++r) {
    d->rdispl[r] = (int)nin;
    nin += (size_t)d->rcount[r];
  }
  /* No re-sort after moving agents: build_index recomputes every local
   * agent's cell and orders owned and ghost agents canonically anyway, and
   * the next step's sort_owned restores the storage order. */
  if (nout == 0 && nin == 0) return;
  /* leavers grouped by destination, storage order within a destination */
  thr_decomp_grow(d, (void **)&d->mig_in, &d->mig_in_cap, nout + nin + 1, sizeof(thr_agent_rec));
  thr_decomp_grow(d, (void **)&d->mig_out, &d->mig_out_cap, nout + 1, sizeof(thr_agent_rec));
  if (nout && b->ops->extract_owned(b, d->mig_idx, nout, d->mig_in))
    thr_decomp_fatal(d, "backend %s: extract_owned failed", b->ops->name);
  int off = 0;
  for (int r = 0; r < P; ++r) {
    d->sdispl[r] = off;
    off += d->scount[r];
  }
  for (size_t k = 0; k < nout; ++k) {
    d->mig_out[d->sdispl[d->mig_dest[k]]++] = d->mig_in[k];
    add_ids(&d->id_sum, &d->id_sq, d->mig_in[k].id, -1);
  }
  int nreq = 0;
  for (int r = 0; r < P; ++r) {
    if (d->rcount[r])
      MPI_Irecv(d->mig_in + d->rdispl[r], d->rcount[r], d->t_agent, r, THR_TAG_MIGRATE, d->comm, &d->req[nreq++]);
  }
  for (int r = 0; r < P; ++r) {
    if (d->scount[r])
      MPI_Isend(d->mig_out + d->sdispl[r] - d->scount[r], d->scount[r], d->t_agent, r, THR_TAG_MIGRATE, d->comm,
                &d->req[nreq++]);
  }
  MPI_Waitall(nreq, d->req, MPI_STATUSES_IGNORE);
  for (size_t k = 0; k < nin; ++k) add_ids(&d->id_sum, &d->id_sq, d->mig_in[k].id, +1);
  size_t nkeep = nin;
  if (d->fault_step >= 0 && d->step - 1 >= d->fault_step && nin) {
    /* THRONG_DECOMP_FAULT (tests only): behave like a backend that loses
     * one arriving agent, which the conservation check must catch */
    nkeep--;
    d->fault_step = -1;
  }
  if (nkeep && b->ops->append_owned(b, d->mig_in, nkeep))
    thr_decomp_fatal(d, "backend %s: append_owned failed (%zu agents)", b->ops->name, nin);
  if (d->verbose)
    fprintf(stderr, "throng: decomposition step %ld: rank %d migrated %zu agents out, %zu in\n", d->step - 1, d->rank,
            nout, nin);
  d->expect += (long)nin - (long)nout;
  d->step_sent += (long)nout;
  d->step_recv += (long)nin;
  d->cells_valid = 0;
}

void thr_conservation_init(thr_decomp *d, thr_backend *b) {
  b->ops->id_checksum(b, &d->id_sum, &d->id_sq);
  d->expect = (long)b->ops->n_owned(b);
  uint64_t v[3] = {(uint64_t)d->expect, d->id_sum, d->id_sq};
  MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_UINT64_T, MPI_SUM, d->comm);
  d->ref_count = v[0];
  d->ref_sum = v[1];
  d->ref_sq = v[2];
}

void thr_conservation_check(thr_decomp *d, thr_backend *b, int verify_ids) {
  long have = (long)b->ops->n_owned(b);
  uint64_t bad = have != d->expect;
  if (verify_ids) {
    uint64_t s, q;
    b->ops->id_checksum(b, &s, &q);
    if (s != d->id_sum || q != d->id_sq) bad = 1;
    d->id_sum = s;
    d->id_sq = q;
  }
  uint64_t v[4] = {(uint64_t)have, d->id_sum, d->id_sq, bad};
  MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_UINT64_T, MPI_SUM, d->comm);
  if (v[0] == d->ref_count && v[1] == d->ref_sum && v[2] == d->ref_sq && v[3] == 0) return;

  /* Something was lost or duplicated: say where, then stop. */
  long mine[5] = {d->step_before, d->step_sent, d->step_recv, have, (long)bad};
  long *all = d->rank == 0 ? malloc((size_t)d->nranks * sizeof mine) : NULL;
  MPI_Gather(mine, 5, MPI_LONG, all, 5, MPI_LONG, 0, d->comm);
  if (d->rank == 0) {
    fprintf(stderr,
            "throng: agent conservation violated at step %ld: %llu agents (expected %llu), id checksums %s; "
            "ranks whose owned count does not match their migrations:",
            d->step - 1, (unsigned long long)v[0], (unsigned long long)d->ref_count,
            v[1] == d->ref_sum && v[2] == d->ref_sq ? "match" : "differ");
    int named = 0;
    for (int r = 0; all && r < d->nranks; ++r) {
      long *m = all + 5 * r;
      if (!m[4]) continue;
      fprintf(stderr, " rank %d (had %ld, sent %ld, received %ld, now %ld)", r, m[0], m[1], m[2], m[3]);
      named++;
    }
    if (!named) fprintf(stderr, " none (every rank's count matches its own migrations; the loss is in transit)");
    fputc('\n', stderr);
    fflush(stderr);
  }
  free(all);
  MPI_Barrier(d->comm);
  MPI_Abort(d->comm, 1);
}
