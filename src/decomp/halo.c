#include "halo.h"

#include "exchange.h"
#include "nccl.h"
#include "support.h"

/* The cells at least k rings inside the rectangle lie in no other rank's
 * window: their agents are never ghosts, and read no ghost. */
static thr_window interior_of(const thr_decomp *d) {
  thr_window in = {d->rect.x0 + d->k, d->rect.y0 + d->k, d->rect.nx - 2 * d->k, d->rect.ny - 2 * d->k};
  if (in.nx < 0) in.nx = 0;
  if (in.ny < 0) in.ny = 0;
  return in;
}

/* For every neighbour (ascending), the owned agents whose cell lies in its
 * window, in storage order: the backend reports the agents outside the
 * interior with one bit per neighbour window, 64 windows per call. */
static void build_plan(thr_decomp *d, thr_backend *b, thr_window interior) {
  size_t n = b->ops->n_owned(b);
  thr_decomp_grow(d, (void **)&d->cand, &d->cand_cap, n + 1, sizeof *d->cand);
  thr_decomp_grow(d, (void **)&d->cand_mask, &d->cand_mask_cap, n + 1, sizeof *d->cand_mask);
  thr_decomp_grow(d, (void **)&d->cells, &d->cells_cap, 2 * n + 2, sizeof *d->cells);
  d->cells_valid = 0;
  if (thr_plan_reset(&d->halo, d->n_nbr, d->nbr)) thr_decomp_fatal(d, "out of memory (halo plan)");
  for (int j0 = 0; j0 < d->n_nbr; j0 += 64) {
    int nb = d->n_nbr - j0 < 64 ? d->n_nbr - j0 : 64;
    size_t nbnd = b->comm->select_outside(b, interior, d->nbr_send + j0, nb, d->cand, d->cells, d->cand_mask);
    if (thr_plan_append_by_mask(&d->halo, j0, nb, nbnd, d->cand, d->cand_mask))
      thr_decomp_fatal(d, "out of memory (halo plan)");
  }
}

int thr_halo_backend_packs(const thr_decomp *d, const thr_backend *b, int boxes) {
  return d->device_exchange && b->comm->exchange_select && d->n_nbr <= boxes;
}

void thr_halo_exchange_records(thr_decomp *d, thr_backend *b, const thr_comm_plan *p, const void *send, void *recv,
                               MPI_Datatype type, size_t elem, int tag) {
  if (!d->nccl) {
    MPI_Request *req = thr_decomp_requests(d, 2 * (size_t)p->n_peers + 2);
    int nreq = thr_plan_post(d->comm, p, send, recv, type, elem, tag, req);
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    return;
  }
  void *stream = b->comm->halo_stream_begin(b);
  thr_nccl_begin(d->nccl);
  thr_nccl_post(d->nccl, p, send, recv, elem, stream);
  char why[160];
  if (thr_nccl_end(d->nccl, why, sizeof why)) thr_decomp_fatal(d, "%s", why);
  b->comm->halo_stream_end(b);
}

/* The host path: selection, plan and records through the host, MPI. */
static void ghosts_through_host(thr_decomp *d, thr_backend *b, thr_window interior) {
  build_plan(d, b, interior);
  thr_comm_plan *p = &d->halo;
  MPI_Request *req = thr_decomp_requests(d, 2 * (size_t)p->n_peers + 2);
  if (thr_plan_exchange_counts(d->comm, p, 0, req)) thr_decomp_fatal(d, "out of memory (halo counts)");
  thr_decomp_grow(d, (void **)&d->gsend, &d->gsend_cap, p->n_send + 1, sizeof *d->gsend);
  thr_decomp_grow(d, (void **)&d->grecv, &d->grecv_cap, p->n_recv + 1, sizeof *d->grecv);
  if (p->n_send && b->comm->pack_ghosts(b, p->export_list, p->n_send, d->gsend))
    thr_decomp_backend_failed(d, b, "pack_ghosts");
  int nreq = thr_plan_post(d->comm, p, d->gsend, d->grecv, d->t_ghost, sizeof(thr_ghost_rec), THR_TAG_GHOST, req);
  MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
  /* ghosts in sender-rank order; the send list in the same order forwards
   * their changed fields after every pass */
  if (b->comm->set_ghosts(b, d->grecv, p->n_recv)) thr_decomp_backend_failed(d, b, "set_ghosts");
  if (b->comm->set_halo_send(b, p->export_list, p->n_send)) thr_decomp_backend_failed(d, b, "set_halo_send");
}

/* Packed by the backend: it selects and packs the ghost records and
 * keeps the send list; NCCL or MPI carries the records; only counts cross
 * the host (and, with host message buffers, the packed records). Same
 * plan, same order as the host path. */
static void ghosts_packed(thr_decomp *d, thr_backend *b, thr_window interior) {
  size_t counts[64];
  if (b->comm->exchange_select(b, THR_EXCHANGE_GHOSTS, interior, d->nbr_send, d->n_nbr, counts, NULL))
    thr_decomp_backend_failed(d, b, "exchange_select");
  thr_comm_plan *p = &d->halo;
  if (thr_plan_reset(p, d->n_nbr, d->nbr)) thr_decomp_fatal(d, "out of memory (halo plan)");
  thr_plan_set_send(p, counts);
  if (thr_plan_exchange_counts(d->comm, p, 0, thr_decomp_requests(d, 2 * (size_t)p->n_peers + 2)))
    thr_decomp_fatal(d, "out of memory (halo counts)");
  size_t rec = sizeof(thr_ghost_rec);
  void *send = b->comm->halo_buffer(b, 0, p->n_send * rec + 1);
  void *recv = b->comm->halo_buffer(b, 1, p->n_recv * rec + 1);
  if (!send || !recv) thr_decomp_fatal(d, "out of memory for %zu ghost records", p->n_recv);
  thr_halo_exchange_records(d, b, p, send, recv, d->t_ghost, rec, THR_TAG_GHOST);
  if (b->comm->exchange_receive(b, THR_EXCHANGE_GHOSTS, p->n_recv)) thr_decomp_backend_failed(d, b, "exchange_receive");
}

void thr_halo_plan(thr_decomp *d, thr_backend *b) {
  thr_window interior = interior_of(d);
  if (thr_halo_backend_packs(d, b, 64))
    ghosts_packed(d, b, interior);
  else
    ghosts_through_host(d, b, interior);
  /* agents more than the ghost width inside the rectangle read no ghost:
   * passes compute them while halo messages are in flight (without the
   * split, THRONG_HALO_OVERLAP=0, every agent waits for the messages) */
  if (d->overlap && b->comm->set_interior(b, interior)) thr_decomp_backend_failed(d, b, "set_interior");
}

int thr_decomp_overlaps(const thr_decomp *d) { return d->nranks > 1 && d->n_nbr > 0; }

/* Buffers hold field after field ([field][agent], agents grouped by
 * neighbour): one message per neighbour and field, so no re-layout is
 * needed and the buffers may be device memory handed to a CUDA-aware MPI. */
void thr_decomp_forward_begin(thr_decomp *d, thr_backend *b, thr_field_mask fields) {
  if (!thr_decomp_overlaps(d) || !fields) return;
  if (d->in_flight) thr_decomp_fatal(d, "internal error: a halo forward is already in flight");
  const thr_comm_plan *p = &d->halo;
  size_t per_agent = thr_fields_bytes(fields);
  char *send = b->comm->halo_buffer(b, 0, per_agent * p->n_send + 1);
  char *recv = b->comm->halo_buffer(b, 1, per_agent * p->n_recv + 1);
  if (!send || !recv) thr_decomp_fatal(d, "out of memory for halo buffers (%zu ghosts)", p->n_recv);
  if (p->n_send) b->comm->pack_halo(b, fields, send);
  d->in_flight = fields;
  d->hrecv = recv;
  if (d->nccl) {
    /* queued on the backend's message stream, after the pack */
    void *stream = b->comm->halo_stream_begin(b);
    thr_nccl_begin(d->nccl);
    for (int f = 0; f < THR_F_COUNT; ++f) {
      if (!(fields & ((thr_field_mask)1 << f))) continue;
      size_t elem = thr_field_table[f].elem;
      thr_nccl_post(d->nccl, p, send, recv, elem, stream);
      send += p->n_send * elem;
      recv += p->n_recv * elem;
    }
    char why[160];
    if (thr_nccl_end(d->nccl, why, sizeof why)) thr_decomp_fatal(d, "%s", why);
    return;
  }
  MPI_Request *req = thr_decomp_requests(d, 2 * (size_t)p->n_peers * THR_F_COUNT + 2);
  int nreq = 0;
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (!(fields & ((thr_field_mask)1 << f))) continue;
    size_t elem = thr_field_table[f].elem;
    nreq += thr_plan_post(d->comm, p, send, recv, d->t_field[f], elem, THR_TAG_HALO + f, req + nreq);
    send += p->n_send * elem;
    recv += p->n_recv * elem;
  }
  d->n_in_flight_req = nreq;
}

void thr_decomp_forward_end(thr_decomp *d, thr_backend *b) {
  if (!d->in_flight) return;
  if (d->nccl)
    b->comm->halo_stream_end(b);
  else
    MPI_Waitall(d->n_in_flight_req, d->req, MPI_STATUSES_IGNORE);
  if (d->halo.n_recv) b->comm->unpack_halo(b, d->in_flight, d->hrecv);
  d->in_flight = 0;
  d->n_in_flight_req = 0;
}

void thr_decomp_forward(thr_decomp *d, thr_backend *b, thr_field_mask fields) {
  thr_decomp_forward_begin(d, b, fields);
  thr_decomp_forward_end(d, b);
}
