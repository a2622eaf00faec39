#include "migrate.h"

#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "halo.h"
#include "support.h"

static void add_id(thr_decomp *d, uint32_t id, int sign) {
  uint64_t v = id;
  if (sign > 0) {
    d->id_sum += v;
    d->id_sq += v * v;
  } else {
    d->id_sum -= v;
    d->id_sq -= v * v;
  }
}

/* The rank owning an agent: from the global cell of its x*, as the
 * backends compute it. */
static int owner_of(const thr_decomp *d, const thr_agent_rec *r) {
  const thr_world *w = d->world;
  return thr_partition_owner(&d->part, thr_cell_coord(r->p.x, w->min.x, w->cell, w->gnx),
                             thr_cell_coord(r->p.y, w->min.y, w->cell, w->gny));
}

/* The peers of a migration: the neighbours, or every other rank. */
static void set_peers(thr_decomp *d, int mode) {
  int rc;
  if (mode == THR_MIGRATE_NEIGHBOURS) {
    rc = thr_plan_reset(&d->mig, d->n_nbr, d->nbr);
  } else {
    int *all = malloc((size_t)d->nranks * sizeof *all);
    int n = 0;
    for (int r = 0; all && r < d->nranks; ++r)
      if (r != d->rank) all[n++] = r;
    rc = all ? thr_plan_reset(&d->mig, n, all) : -1;
    free(all);
  }
  if (rc) thr_decomp_fatal(d, "out of memory (migration plan)");
}

/* The records to move: this step's leavers (extracted from the backend),
 * then, in all-ranks mode, the pending ones. Returns how many. */
static size_t gather_leavers(thr_decomp *d, thr_backend *b, int mode) {
  size_t n = b->ops->n_owned(b);
  thr_decomp_grow(d, (void **)&d->cand, &d->cand_cap, n + 1, sizeof *d->cand);
  thr_decomp_grow(d, (void **)&d->cells, &d->cells_cap, 2 * n + 2, sizeof *d->cells);
  size_t nout = b->comm->select_outside(b, d->rect, NULL, 0, d->cand, d->cells, NULL);
  d->cells_valid = 0; /* d->cells now holds the leavers' cells only */
  size_t extra = mode == THR_MIGRATE_ALL_RANKS ? d->n_pending : 0;
  thr_decomp_grow(d, (void **)&d->mig_recs, &d->mig_recs_cap, nout + extra + 1, sizeof *d->mig_recs);
  if (nout && b->comm->extract_owned(b, d->cand, nout, d->mig_recs)) thr_decomp_backend_failed(d, b, "extract_owned");
  if (extra) memcpy(d->mig_recs + nout, d->pending, extra * sizeof *d->pending);
  if (mode == THR_MIGRATE_ALL_RANKS) d->n_pending = 0;
  return nout + extra;
}

/* What the migration of this step did, for the checks and the log. */
static void account(thr_decomp *d, size_t nout, size_t nin, size_t far) {
  if (d->verbose)
    fprintf(stderr, "throng: decomposition step %ld: rank %d migrated %zu agents out, %zu in%s\n", d->step - 1,
            d->rank, nout, nin, far ? " (some wait for an all-ranks exchange)" : "");
  d->expect += (long)nin - (long)nout;
  d->step_sent += (long)nout;
  d->step_recv += (long)nin;
  d->cells_valid = 0;
}

/* THRONG_DECOMP_FAULT (tests only): how many of nin arriving agents to
 * keep; from the fault step on, behave once like a backend that loses one,
 * which the conservation check must catch. */
static size_t arrivals_kept(thr_decomp *d, size_t nin) {
  if (d->fault_step >= 0 && d->step - 1 >= d->fault_step && nin) {
    d->fault_step = -1;
    return nin - 1;
  }
  return nin;
}

/* To the neighbours, packed by the backend: it selects, groups, packs and
 * removes the leavers; the host learns their counts and id sums, keeps
 * those whose owner is no neighbour (pending), and NCCL or MPI carries the
 * rest. Same records, same order as the host path. */
static void migrate_packed(thr_decomp *d, thr_backend *b) {
  int nn = d->n_nbr;
  thr_window boxes[63] = {{0, 0, 0, 0}};
  size_t counts[64];
  uint64_t sums[2 * 63], tally_out[3 * 63], tally_in[3 * 63];
  for (int j = 0; j < nn; ++j) boxes[j] = d->part.rect[d->nbr[j]];
  if (b->comm->exchange_select(b, THR_EXCHANGE_MIGRATE, d->rect, boxes, nn, counts, sums))
    thr_decomp_backend_failed(d, b, "exchange_select");
  size_t far = counts[nn], nout = 0;
  for (int j = 0; j < nn; ++j) nout += counts[j];
  if (far) {
    thr_decomp_grow(d, (void **)&d->pending, &d->pending_cap, d->n_pending + far, sizeof *d->pending);
    if (b->comm->exchange_copy_out(b, nout, far, d->pending + d->n_pending))
      thr_decomp_backend_failed(d, b, "exchange_copy_out");
    d->n_pending += far;
  }
  if (thr_plan_reset(&d->mig, nn, d->nbr)) thr_decomp_fatal(d, "out of memory (migration plan)");
  thr_plan_set_send(&d->mig, counts);
  for (int j = 0; j < nn; ++j) {
    tally_out[3 * j + 1] = sums[2 * j];
    tally_out[3 * j + 2] = sums[2 * j + 1];
    d->id_sum -= sums[2 * j];
    d->id_sq -= sums[2 * j + 1];
  }
  thr_plan_exchange_tallies(d->comm, &d->mig, tally_out, tally_in, thr_decomp_requests(d, 2 * (size_t)nn + 2));
  size_t nin = d->mig.n_recv;
  if (nout == 0 && nin == 0) {
    if (far) account(d, 0, 0, far);
    return;
  }
  for (int j = 0; j < nn; ++j) {
    d->id_sum += tally_in[3 * j + 1];
    d->id_sq += tally_in[3 * j + 2];
  }
  size_t rec = sizeof(thr_agent_rec);
  void *send = b->comm->halo_buffer(b, 0, nout * rec + 1 + far * rec);
  void *recv = b->comm->halo_buffer(b, 1, nin * rec + 1);
  if (!send || !recv) thr_decomp_fatal(d, "out of memory for %zu migrating agents", nin);
  thr_halo_exchange_records(d, b, &d->mig, send, recv, d->t_agent, rec, THR_TAG_MIGRATE);
  if (b->comm->exchange_receive(b, THR_EXCHANGE_MIGRATE, arrivals_kept(d, nin)))
    thr_decomp_backend_failed(d, b, "exchange_receive");
  account(d, nout, nin, far);
}

void thr_migrate(thr_decomp *d, thr_backend *b, int mode) {
  if (mode == THR_MIGRATE_NEIGHBOURS && thr_halo_backend_packs(d, b, 63)) {
    migrate_packed(d, b);
    return;
  }
  size_t n = gather_leavers(d, b, mode);
  set_peers(d, mode);
  /* destinations; a leaver whose owner is no neighbour waits (pending) */
  thr_decomp_grow(d, (void **)&d->mig_dest, &d->mig_dest_cap, n + 1, sizeof *d->mig_dest);
  size_t far = 0, back = 0;
  for (size_t t = 0; t < n; ++t) {
    int owner = owner_of(d, &d->mig_recs[t]);
    d->mig_dest[t] = thr_plan_peer_index(&d->mig, owner);
    if (d->mig_dest[t] >= 0) continue;
    if (owner == d->rank) { /* a pending record that a re-partition gave to this rank */
      if (b->comm->append_owned(b, &d->mig_recs[t], 1)) thr_decomp_backend_failed(d, b, "append_owned");
      back++;
      continue;
    }
    thr_decomp_grow(d, (void **)&d->pending, &d->pending_cap, d->n_pending + 1, sizeof *d->pending);
    d->pending[d->n_pending++] = d->mig_recs[t];
    far++;
  }
  if (back) d->cells_valid = 0;
  if (thr_plan_build_by_peer(&d->mig, n, d->mig_dest)) thr_decomp_fatal(d, "out of memory (migration plan)");
  if (thr_plan_exchange_counts(d->comm, &d->mig, mode == THR_MIGRATE_ALL_RANKS,
                               thr_decomp_requests(d, 2 * (size_t)d->mig.n_peers + 2)))
    thr_decomp_fatal(d, "out of memory (migration counts)");
  size_t nout = d->mig.n_send, nin = d->mig.n_recv;
  if (nout == 0 && nin == 0) return;
  /* No re-sort after moving agents: build_index recomputes every local
   * agent's cell and orders owned and ghost agents canonically anyway, and
   * the next step's sort_owned restores the storage order. */
  thr_decomp_grow(d, (void **)&d->mig_send, &d->mig_send_cap, nout + 1, sizeof *d->mig_send);
  thr_decomp_grow(d, (void **)&d->mig_recv, &d->mig_recv_cap, nin + 1, sizeof *d->mig_recv);
  for (size_t k = 0; k < nout; ++k) {
    d->mig_send[k] = d->mig_recs[d->mig.export_list[k]];
    add_id(d, d->mig_send[k].id, -1);
  }
  MPI_Request *req = thr_decomp_requests(d, 2 * (size_t)d->mig.n_peers + 2);
  int nreq = thr_plan_post(d->comm, &d->mig, d->mig_send, d->mig_recv, d->t_agent, sizeof(thr_agent_rec),
                           THR_TAG_MIGRATE, req);
  MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
  for (size_t k = 0; k < nin; ++k) add_id(d, d->mig_recv[k].id, +1);
  size_t nkeep = arrivals_kept(d, nin);
  if (nkeep && b->comm->append_owned(b, d->mig_recv, nkeep)) thr_decomp_backend_failed(d, b, "append_owned");
  account(d, nout, nin, far);
}

void thr_decomp_note_agents(thr_decomp *d, const uint32_t *removed, size_t n_removed, const uint32_t *added,
                            size_t n_added) {
  if (!d || d->nranks == 1) return;
  for (size_t k = 0; k < n_removed; ++k) add_id(d, removed[k], -1);
  for (size_t k = 0; k < n_added; ++k) add_id(d, added[k], +1);
  d->expect += (long)n_added - (long)n_removed;
  /* the reference moves by the same amounts, summed over the ranks at the
   * next check */
  d->delta_count += (int64_t)n_added - (int64_t)n_removed;
  for (size_t k = 0; k < n_removed; ++k) {
    uint64_t v = removed[k];
    d->delta_sum -= v;
    d->delta_sq -= v * v;
  }
  for (size_t k = 0; k < n_added; ++k) {
    uint64_t v = added[k];
    d->delta_sum += v;
    d->delta_sq += v * v;
  }
}

void thr_conservation_init(thr_decomp *d, thr_backend *b) {
  b->comm->id_checksum(b, &d->id_sum, &d->id_sq);
  d->expect = (long)b->ops->n_owned(b);
  uint64_t v[3] = {(uint64_t)d->expect, d->id_sum, d->id_sq};
  MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_UINT64_T, MPI_SUM, d->comm);
  d->ref_count = v[0];
  d->ref_sum = v[1];
  d->ref_sq = v[2];
}

/* Something was lost or duplicated: say where, then stop. */
static void report_violation(thr_decomp *d, const uint64_t *v, long have, int bad) {
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

long thr_conservation_check(thr_decomp *d, thr_backend *b, int verify_ids) {
  long have = (long)b->ops->n_owned(b) + (long)d->n_pending;
  int bad = have != d->expect;
  if (verify_ids) {
    uint64_t s, q;
    b->comm->id_checksum(b, &s, &q);
    for (size_t k = 0; k < d->n_pending; ++k) {
      uint64_t id = d->pending[k].id;
      s += id;
      q += id * id;
    }
    if (s != d->id_sum || q != d->id_sq) bad = 1;
    d->id_sum = s;
    d->id_sq = q;
  }
  uint64_t v[8] = {(uint64_t)have, d->id_sum, d->id_sq, (uint64_t)bad, (uint64_t)d->n_pending,
                   (uint64_t)d->delta_count, d->delta_sum, d->delta_sq};
  MPI_Allreduce(MPI_IN_PLACE, v, 8, MPI_UINT64_T, MPI_SUM, d->comm);
  /* agents that left or were added since the last check (exits, sources) */
  d->ref_count += v[5];
  d->ref_sum += v[6];
  d->ref_sq += v[7];
  d->delta_count = 0;
  d->delta_sum = d->delta_sq = 0;
  if (v[0] != d->ref_count || v[1] != d->ref_sum || v[2] != d->ref_sq || v[3] != 0) report_violation(d, v, have, bad);
  return (long)v[4];
}
