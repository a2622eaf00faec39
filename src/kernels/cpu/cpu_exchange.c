#include "cpu_exchange.h"

#include <stdlib.h>
#include <string.h>

void thr_cpu_exchange_free(thr_cpu_exchange *x) {
  free(x->idx);
  free(x->list);
  free(x->cells);
  free(x->mask);
  free(x->recs);
  memset(x, 0, sizeof *x);
}

static int grow(void **p, size_t n, size_t elem) {
  void *q = realloc(*p, (n ? n : 1) * elem);
  if (!q) return -1;
  *p = q;
  return 0;
}

static int reserve(thr_backend *b, thr_cpu_exchange *x, size_t n) {
  if (n <= x->cap) return 0;
  size_t cap = n + n / 4 + 64;
  if (grow((void **)&x->idx, cap, sizeof *x->idx) || grow((void **)&x->cells, 2 * cap, sizeof *x->cells) ||
      grow((void **)&x->mask, cap, sizeof *x->mask))
    return thr_backend_error(b, "out of memory for the exchange of %zu agents", n);
  x->cap = cap;
  return 0;
}

/* list[slot] = candidate of that slot: box after box (box order), storage
 * order within a box, each candidate once per box bit; box offsets in off. */
static int group_by_box(thr_backend *b, thr_cpu_exchange *x, size_t m, int nb, size_t *counts, size_t *off) {
  size_t total = 0;
  for (int k = 0; k < nb; ++k) {
    counts[k] = 0;
    for (size_t t = 0; t < m; ++t) counts[k] += (x->mask[t] >> k) & 1u;
    off[k] = total;
    total += counts[k];
  }
  if (total > x->list_cap) {
    if (grow((void **)&x->list, total, sizeof *x->list))
      return thr_backend_error(b, "out of memory for the exchange of %zu records", total);
    x->list_cap = total;
  }
  for (int k = 0; k < nb; ++k) {
    size_t slot = off[k];
    for (size_t t = 0; t < m; ++t)
      if ((x->mask[t] >> k) & 1u) x->list[slot++] = (int)t;
  }
  return 0;
}

int thr_cpu_exchange_select(thr_backend *b, thr_cpu_exchange *x, int kind, thr_window skip, const thr_window *boxes,
                            int nbox, size_t *counts, uint64_t *sums) {
  const thr_backend_comm_ops *C = b->comm;
  int migrate = kind == THR_EXCHANGE_MIGRATE;
  int nb = nbox + migrate; /* migration: one more box, the agents in no box */
  if (nbox < 0 || nb > 64) return thr_backend_error(b, "exchange_select: %d boxes (at most %d)", nbox, 64 - migrate);
  if (reserve(b, x, b->ops->n_owned(b))) return -1;
  size_t m = C->select_outside(b, skip, boxes, nbox, x->idx, x->cells, x->mask);
  if (migrate)
    for (size_t t = 0; t < m; ++t)
      if (!x->mask[t]) x->mask[t] = (uint64_t)1 << nbox;
  size_t off[64] = {0};
  if (group_by_box(b, x, m, nb, counts, off)) return -1;
  size_t total = nb ? off[nb - 1] + counts[nb - 1] : 0;
  size_t rec = migrate ? sizeof(thr_agent_rec) : sizeof(thr_ghost_rec);
  char *buf = C->halo_buffer(b, 0, total * rec + 1);
  if (!buf) return thr_backend_error(b, "out of memory for %zu message records", total);
  if (!migrate) {
    /* the send list: the grouped candidates' agents */
    for (size_t s = 0; s < total; ++s) x->list[s] = x->idx[x->list[s]];
    if (C->pack_ghosts(b, x->list, total, (thr_ghost_rec *)buf)) return -1;
    return C->set_halo_send(b, x->list, total);
  }
  for (int k = 0; k < 2 * nbox; ++k) sums[k] = 0;
  if (m > 0 && grow((void **)&x->recs, m, sizeof *x->recs))
    return thr_backend_error(b, "out of memory for %zu migrating agents", m);
  /* every candidate leaves: records in candidate order, then by slot */
  if (m && C->extract_owned(b, x->idx, m, x->recs)) return -1;
  for (size_t s = 0; s < total; ++s) memcpy(buf + s * rec, &x->recs[x->list[s]], rec);
  for (int k = 0; k < nbox; ++k)
    for (size_t s = off[k]; s < off[k] + counts[k]; ++s) {
      uint64_t v = x->recs[x->list[s]].id;
      sums[2 * k] += v;
      sums[2 * k + 1] += v * v;
    }
  return 0;
}

int thr_cpu_exchange_copy_out(thr_backend *b, size_t first, size_t n, thr_agent_rec *recs) {
  const thr_agent_rec *packed = b->comm->halo_buffer(b, 0, 0);
  if (n) memcpy(recs, packed + first, n * sizeof *recs);
  return 0;
}

int thr_cpu_exchange_receive(thr_backend *b, int kind, size_t n) {
  const void *in = b->comm->halo_buffer(b, 1, 0);
  if (kind == THR_EXCHANGE_MIGRATE) return b->comm->append_owned(b, in, n);
  return b->comm->set_ghosts(b, in, n);
}
