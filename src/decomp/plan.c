#include "plan.h"

#include <stdlib.h>
#include <string.h>

void thr_plan_init(thr_comm_plan *p) { memset(p, 0, sizeof *p); }

void thr_plan_free(thr_comm_plan *p) {
  free(p->peer);
  free(p->send_count);
  free(p->send_offset);
  free(p->recv_count);
  free(p->recv_offset);
  free(p->export_list);
  thr_plan_init(p);
}

static int grow_ints(int **a, size_t n) {
  int *q = realloc(*a, (n ? n : 1) * sizeof **a);
  if (!q) return -1;
  *a = q;
  return 0;
}

static int reserve_export(thr_comm_plan *p, size_t n) {
  if (n <= p->export_cap) return 0;
  size_t want = p->export_cap ? p->export_cap : 64;
  while (want < n) want *= 2;
  if (grow_ints(&p->export_list, want)) return -1;
  p->export_cap = want;
  return 0;
}

int thr_plan_reset(thr_comm_plan *p, int n_peers, const int *ranks) {
  size_t n = (size_t)n_peers;
  if (n > p->peer_cap) {
    if (grow_ints(&p->peer, n) || grow_ints(&p->send_count, n) || grow_ints(&p->send_offset, n) ||
        grow_ints(&p->recv_count, n) || grow_ints(&p->recv_offset, n))
      return -1;
    p->peer_cap = n;
  }
  p->n_peers = n_peers;
  if (n) {
    memcpy(p->peer, ranks, n * sizeof *ranks);
    memset(p->send_count, 0, n * sizeof(int));
    memset(p->send_offset, 0, n * sizeof(int));
    memset(p->recv_count, 0, n * sizeof(int));
    memset(p->recv_offset, 0, n * sizeof(int));
  }
  p->n_send = p->n_recv = 0;
  return 0;
}

int thr_plan_append_by_mask(thr_comm_plan *p, int first, int npeers, size_t n, const int *cand,
                            const uint64_t *mask) {
  for (int j = first; j < first + npeers; ++j) {
    uint64_t bit = (uint64_t)1 << (j - first);
    size_t count = 0;
    for (size_t t = 0; t < n; ++t) count += (mask[t] & bit) != 0;
    if (reserve_export(p, p->n_send + count)) return -1;
    p->send_offset[j] = (int)p->n_send;
    p->send_count[j] = (int)count;
    for (size_t t = 0; t < n; ++t)
      if (mask[t] & bit) p->export_list[p->n_send++] = cand[t];
  }
  return 0;
}

int thr_plan_build_by_peer(thr_comm_plan *p, size_t n, const int *dest) {
  size_t total = 0;
  for (size_t t = 0; t < n; ++t)
    if (dest[t] >= 0) {
      p->send_count[dest[t]]++;
      total++;
    }
  if (reserve_export(p, total)) return -1;
  /* counting sort by peer, stable: candidate order within a peer */
  int off = 0;
  for (int j = 0; j < p->n_peers; ++j) {
    p->send_offset[j] = off;
    off += p->send_count[j];
  }
  int *fill = p->recv_offset; /* scratch until thr_plan_set_recv */
  memcpy(fill, p->send_offset, (size_t)p->n_peers * sizeof(int));
  for (size_t t = 0; t < n; ++t)
    if (dest[t] >= 0) p->export_list[fill[dest[t]]++] = (int)t;
  p->n_send = total;
  return 0;
}

void thr_plan_set_send(thr_comm_plan *p, const size_t *send_count) {
  size_t off = 0;
  for (int j = 0; j < p->n_peers; ++j) {
    p->send_count[j] = (int)send_count[j];
    p->send_offset[j] = (int)off;
    off += send_count[j];
  }
  p->n_send = off;
}

void thr_plan_set_recv(thr_comm_plan *p, const int *recv_count) {
  size_t off = 0;
  for (int j = 0; j < p->n_peers; ++j) {
    p->recv_count[j] = recv_count[j];
    p->recv_offset[j] = (int)off;
    off += (size_t)recv_count[j];
  }
  p->n_recv = off;
}

int thr_plan_peer_index(const thr_comm_plan *p, int rank) {
  int lo = 0, hi = p->n_peers - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (p->peer[mid] == rank) return mid;
    if (p->peer[mid] < rank)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}
