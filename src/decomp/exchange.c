#include "exchange.h"

#include <stdlib.h>
#include <string.h>

int thr_plan_exchange_counts(MPI_Comm comm, thr_comm_plan *p, int all_ranks, MPI_Request *req) {
  if (all_ranks) {
    int P;
    MPI_Comm_size(comm, &P);
    int *s = calloc((size_t)P, sizeof *s), *r = calloc((size_t)P, sizeof *r);
    if (!s || !r) {
      free(s);
      free(r);
      return -1;
    }
    for (int j = 0; j < p->n_peers; ++j) s[p->peer[j]] = p->send_count[j];
    MPI_Alltoall(s, 1, MPI_INT, r, 1, MPI_INT, comm);
    for (int j = 0; j < p->n_peers; ++j) s[j] = r[p->peer[j]];
    thr_plan_set_recv(p, s);
    free(s);
    free(r);
    return 0;
  }
  int nreq = 0;
  for (int j = 0; j < p->n_peers; ++j)
    MPI_Irecv(&p->recv_count[j], 1, MPI_INT, p->peer[j], THR_TAG_COUNTS, comm, &req[nreq++]);
  for (int j = 0; j < p->n_peers; ++j)
    MPI_Isend(&p->send_count[j], 1, MPI_INT, p->peer[j], THR_TAG_COUNTS, comm, &req[nreq++]);
  MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
  thr_plan_set_recv(p, p->recv_count);
  return 0;
}

void thr_plan_exchange_tallies(MPI_Comm comm, thr_comm_plan *p, uint64_t *send, uint64_t *recv, MPI_Request *req) {
  int nreq = 0;
  for (int j = 0; j < p->n_peers; ++j)
    MPI_Irecv(recv + 3 * j, 3, MPI_UINT64_T, p->peer[j], THR_TAG_COUNTS, comm, &req[nreq++]);
  for (int j = 0; j < p->n_peers; ++j) {
    send[3 * j] = (uint64_t)p->send_count[j];
    MPI_Isend(send + 3 * j, 3, MPI_UINT64_T, p->peer[j], THR_TAG_COUNTS, comm, &req[nreq++]);
  }
  MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
  for (int j = 0; j < p->n_peers; ++j) p->recv_count[j] = (int)recv[3 * j];
  thr_plan_set_recv(p, p->recv_count);
}

int thr_plan_post(MPI_Comm comm, const thr_comm_plan *p, const void *send, void *recv, MPI_Datatype type,
                  size_t elem, int tag, MPI_Request *req) {
  int nreq = 0;
  for (int j = 0; j < p->n_peers; ++j)
    if (p->recv_count[j])
      MPI_Irecv((char *)recv + (size_t)p->recv_offset[j] * elem, p->recv_count[j], type, p->peer[j], tag, comm,
                &req[nreq++]);
  for (int j = 0; j < p->n_peers; ++j)
    if (p->send_count[j])
      MPI_Isend((const char *)send + (size_t)p->send_offset[j] * elem, p->send_count[j], type, p->peer[j], tag,
                comm, &req[nreq++]);
  return nreq;
}
