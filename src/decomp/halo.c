/* Ghosts: every owned agent whose cell lies in another rank's window is
 * sent to that rank, directly (no relays, so subdomains narrower than the
 * ghost width work). The lists are built once per step after migration
 * (the halo plan) and reused by every forward of that step. */
#include "decomp_internal.h"

#include <string.h>

void thr_halo_neighbours(thr_decomp *d) {
  d->n_nbr = 0;
  for (int r = 0; r < d->nranks; ++r) {
    if (r == d->rank) continue;
    /* r's window within my rectangle; by symmetry of "within k rings" it is
     * non-empty exactly when my window meets r's rectangle */
    thr_window s = thr_window_meet(thr_window_grow(d->part.rect[r], d->k, d->part.gnx, d->part.gny), d->rect);
    if (thr_window_empty(s)) continue;
    d->nbr[d->n_nbr] = r;
    d->nbr_send[d->n_nbr] = s;
    d->n_nbr++;
  }
  if (d->verbose) {
    char list[256] = "";
    size_t used = 0;
    for (int j = 0; j < d->n_nbr && used + 12 < sizeof list; ++j)
      used += (size_t)snprintf(list + used, sizeof list - used, " %d", d->nbr[j]);
    fprintf(stderr, "throng: decomposition step %ld: rank %d exchanges ghosts with %d ranks:%s\n",
            d->step > 0 ? d->step - 1 : 0, d->rank, d->n_nbr, list);
  }
}

/* Exchange one int per neighbour (send[j] to nbr[j], recv[j] from it). */
static void exchange_counts(thr_decomp *d, const int *send, int *recv) {
  int nreq = 0;
  for (int j = 0; j < d->n_nbr; ++j)
    MPI_Irecv(&recv[j], 1, MPI_INT, d->nbr[j], THR_TAG_GHOST_COUNT, d->comm, &d->req[nreq++]);
  for (int j = 0; j < d->n_nbr; ++j)
    MPI_Isend(&send[j], 1, MPI_INT, d->nbr[j], THR_TAG_GHOST_COUNT, d->comm, &d->req[nreq++]);
  MPI_Waitall(nreq, d->req, MPI_STATUSES_IGNORE);
}

void thr_halo_plan(thr_decomp *d, thr_backend *b) {
  size_t n = b->ops->n_owned(b);
  int m = d->n_nbr, k = d->k;
  /* cells at least k rings inside the rectangle are in no other window:
   * the backend reports only the agents outside that interior, with a bit
   * per neighbour window (64 neighbours per call) */
  thr_window interior = {d->rect.x0 + k, d->rect.y0 + k, d->rect.nx - 2 * k, d->rect.ny - 2 * k};
  if (interior.nx < 0) interior.nx = 0;
  if (interior.ny < 0) interior.ny = 0;
  thr_decomp_grow(d, (void **)&d->bnd_idx, &d->bnd_idx_cap, n + 1, sizeof(int));
  thr_decomp_grow(d, (void **)&d->bnd_mask, &d->bnd_mask_cap, n + 1, sizeof(uint64_t));
  thr_decomp_grow(d, (void **)&d->cells, &d->cells_cap, 2 * n + 2, sizeof *d->cells);
  d->cells_valid = 0;
  memset(d->send_cnt, 0, (size_t)d->nranks * sizeof(int));
  size_t total = 0;
  for (int j0 = 0; j0 < m || (m == 0 && j0 == 0); j0 += 64) {
    int nb = m - j0 < 64 ? m - j0 : 64;
    if (nb <= 0) break;
    size_t nbnd = b->ops->select_outside(b, interior, d->nbr_send + j0, nb, d->bnd_idx, d->cells, d->bnd_mask);
    for (int j = j0; j < j0 + nb; ++j) {
      d->send_off[j] = (int)total;
      uint64_t bit = (uint64_t)1 << (j - j0);
      for (size_t t = 0; t < nbnd; ++t) d->send_cnt[j] += (d->bnd_mask[t] & bit) != 0;
      /* per neighbour (ascending rank), in storage order */
      thr_decomp_grow(d, (void **)&d->send_idx, &d->send_idx_cap, total + (size_t)d->send_cnt[j] + 1, sizeof(int));
      for (size_t t = 0; t < nbnd; ++t)
        if (d->bnd_mask[t] & bit) d->send_idx[total++] = d->bnd_idx[t];
    }
  }
  exchange_counts(d, d->send_cnt, d->recv_cnt);
  size_t nrecv = 0;
  for (int j = 0; j < m; ++j) {
    d->recv_off[j] = (int)nrecv;
    nrecv += (size_t)d->recv_cnt[j];
  }
  thr_decomp_grow(d, (void **)&d->gsend, &d->gsend_cap, total + 1, sizeof(thr_ghost_rec));
  thr_decomp_grow(d, (void **)&d->grecv, &d->grecv_cap, nrecv + 1, sizeof(thr_ghost_rec));
  if (total && b->ops->pack_ghosts(b, d->send_idx, total, d->gsend))
    thr_decomp_fatal(d, "backend %s: pack_ghosts failed", b->ops->name);
  int nreq = 0;
  for (int j = 0; j < m; ++j)
    if (d->recv_cnt[j])
      MPI_Irecv(d->grecv + d->recv_off[j], d->recv_cnt[j], d->t_ghost, d->nbr[j], THR_TAG_GHOST, d->comm,
                &d->req[nreq++]);
  for (int j = 0; j < m; ++j)
    if (d->send_cnt[j])
      MPI_Isend(d->gsend + d->send_off[j], d->send_cnt[j], d->t_ghost, d->nbr[j], THR_TAG_GHOST, d->comm,
                &d->req[nreq++]);
  MPI_Waitall(nreq, d->req, MPI_STATUSES_IGNORE);
  /* ghosts in sender-rank order, then the send list in the same order */
  if (b->ops->set_ghosts(b, d->grecv, nrecv))
    thr_decomp_fatal(d, "backend %s: set_ghosts failed (%zu ghosts)", b->ops->name, nrecv);
  if (b->ops->set_halo_send(b, d->send_idx, total))
    thr_decomp_fatal(d, "backend %s: set_halo_send failed (%zu agents)", b->ops->name, total);
  d->n_send = total;
  d->n_recv = nrecv;
  /* forward buffers: up to three fields of one thr_vec2 per agent */
  /* send and receive buffers belong to the backend (page-locked host
   * memory, or device memory when MPI is CUDA-aware) */
  d->hsend = b->ops->halo_buffer(b, 0, (3 * total + 1) * sizeof(thr_vec2));
  d->hrecv = b->ops->halo_buffer(b, 1, (3 * nrecv + 1) * sizeof(thr_vec2));
  if (!d->hsend || !d->hrecv) thr_decomp_fatal(d, "out of memory for halo buffers (%zu ghosts)", nrecv);
  /* agents more than the ghost width inside the rectangle read no ghost:
   * passes compute them while halo messages are in flight */
  if (b->ops->set_interior(b, interior)) thr_decomp_fatal(d, "backend %s: set_interior failed", b->ops->name);
}

static int popcount3(int fields) {
  return ((fields & THR_HALO_X) != 0) + ((fields & THR_HALO_P) != 0) + ((fields & THR_HALO_VNEW) != 0);
}

int thr_decomp_overlaps(const thr_decomp *d) { return d->nranks > 1 && d->n_nbr > 0; }

/* Buffers hold field after field ([f][agent], agents grouped by neighbour):
 * one message per neighbour and field, so no re-layout is needed and the
 * buffers may be device memory handed to a CUDA-aware MPI. */
void thr_decomp_forward_begin(thr_decomp *d, thr_backend *b, int fields) {
  int nf = popcount3(fields);
  if (!thr_decomp_overlaps(d) || nf == 0) return;
  if (d->pending) thr_decomp_fatal(d, "internal error: a halo forward is already in flight");
  size_t ns = d->n_send, nr = d->n_recv;
  if (ns) b->ops->pack_halo(b, fields, d->hsend);
  int nreq = 0;
  for (int f = 0; f < nf; ++f) {
    for (int j = 0; j < d->n_nbr; ++j)
      if (d->recv_cnt[j])
        MPI_Irecv(d->hrecv + (size_t)f * nr + d->recv_off[j], d->recv_cnt[j], d->t_vec2, d->nbr[j], THR_TAG_HALO + f,
                  d->comm, &d->req[nreq++]);
    for (int j = 0; j < d->n_nbr; ++j)
      if (d->send_cnt[j])
        MPI_Isend(d->hsend + (size_t)f * ns + d->send_off[j], d->send_cnt[j], d->t_vec2, d->nbr[j], THR_TAG_HALO + f,
                  d->comm, &d->req[nreq++]);
  }
  d->pending = fields;
  d->n_pending_req = nreq;
}

void thr_decomp_forward_end(thr_decomp *d, thr_backend *b) {
  if (!d->pending) return;
  MPI_Waitall(d->n_pending_req, d->req, MPI_STATUSES_IGNORE);
  if (d->n_recv) b->ops->unpack_halo(b, d->pending, d->hrecv);
  d->pending = 0;
  d->n_pending_req = 0;
}

void thr_decomp_forward(thr_decomp *d, thr_backend *b, int fields) {
  thr_decomp_forward_begin(d, b, fields);
  thr_decomp_forward_end(d, b);
}
