/* The once-per-step exchange kept on the device (backend_comm.h
 * exchange_*): migrating agents and ghost records are selected, grouped by
 * destination and packed into the message buffer by kernels, and the host
 * learns only the counts (two waits per selection: how many candidates,
 * then how many go where). With device message buffers (NCCL, a
 * CUDA-aware MPI) the records stay on the device; with host buffers they
 * cross once each way, packed, in one copy. */
#include <cub/device/device_scan.cuh>

#include "cuda_select.cuh"

/* Per-candidate counts for a group of 8 boxes, scanned to give each
 * candidate its rank within every box of the group (stable: storage order). */
enum { GROUP = 8 };
struct cnt8 {
  unsigned c[GROUP];
};
struct cnt8_add {
  __device__ cnt8 operator()(const cnt8 &a, const cnt8 &b) const {
    cnt8 r;
#pragma unroll
    for (int k = 0; k < GROUP; ++k) r.c[k] = a.c[k] + b.c[k];
    return r;
  }
};

/* Box offsets into the packed buffer, by value. */
struct box_offsets {
  unsigned long long off[65];
};

/* Scratch array k of at least `bytes`. */
enum { X_IDX, X_MASK, X_CNT, X_PRE, X_SMALL, X_TMP, X_SEND, X_RECV };
enum { SMALL_BYTES = (64 + 2 * 63) * sizeof(unsigned long long) };
static void *xbuf(cuda_state *s, int k, size_t bytes) {
  if (bytes > s->xch_cap[k]) {
    CUDA_CHECK(cudaStreamSynchronize(s->stream));
    if (s->xch[k]) CUDA_CHECK(cudaFree(s->xch[k]));
    s->xch_cap[k] = bytes + bytes / 4 + 256;
    CUDA_CHECK(cudaMalloc(&s->xch[k], s->xch_cap[k]));
  }
  return s->xch[k];
}

void thr_cuda_exchange_free(cuda_state *s) {
  for (int k = 0; k < THR_CUDA_XCH_BUFS; ++k)
    if (s->xch[k]) cudaFree(s->xch[k]);
}

size_t thr_cuda_exchange_bytes(const cuda_state *s) {
  size_t b = 0;
  for (int k = 0; k < THR_CUDA_XCH_BUFS; ++k) b += s->xch_cap[k];
  return b + s->d_halo_cap[0] + s->d_halo_cap[1];
}

/* ---- selecting and packing ------------------------------------------------ */

/* Candidates (owned agents outside the skip window) in storage order with
 * their box masks; with far_bit >= 0, a candidate in no box gets that bit. */
__global__ void k_x_compact(int n, thr_grid_view g, const thr_vec2 *p, const int *flag, const int *pos,
                            thr_box_set boxes, int nbox, int far_bit, int *idx, unsigned long long *mask) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || !flag[i]) return;
  int gx = thr_cell_coord(p[i].x, g.ox, g.cell, g.gnx);
  int gy = thr_cell_coord(p[i].y, g.oy, g.cell, g.gny);
  unsigned long long b = thr_box_mask(boxes, nbox, gx, gy);
  if (!b && far_bit >= 0) b = 1ull << far_bit;
  idx[pos[i]] = i;
  mask[pos[i]] = b;
}

__global__ void k_x_group(int m, int group, const unsigned long long *mask, cnt8 *cnt) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m) return;
  unsigned bits = (unsigned)(mask[t] >> (GROUP * group)) & 0xffu;
  cnt8 c;
#pragma unroll
  for (int k = 0; k < GROUP; ++k) c.c[k] = (bits >> k) & 1u;
  cnt[t] = c;
}

/* totals[box] from the last candidate's exclusive prefix and its own count */
__global__ void k_x_totals(int m, int group, int nb, const cnt8 *cnt, const cnt8 *pre, unsigned long long *totals) {
  int k = threadIdx.x;
  if (k < GROUP && GROUP * group + k < nb) totals[GROUP * group + k] = pre[m - 1].c[k] + cnt[m - 1].c[k];
}

/* Sum and sum of squares of the ids going to each box (integer atomics:
 * the result does not depend on their order). */
__global__ void k_x_id_sums(int m, int nb, const int *idx, const unsigned long long *mask, const uint32_t *id,
                            unsigned long long *sums) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m) return;
  unsigned long long b = mask[t], v = id[idx[t]];
  for (int k = 0; k < nb; ++k)
    if (b >> k & 1ull) {
      atomicAdd(&sums[2 * k], v);
      atomicAdd(&sums[2 * k + 1], v * v);
    }
}

/* Slot of candidate t in box k: the box's offset plus t's rank in it. */
static __device__ inline size_t x_slot(const box_offsets &o, const cnt8 *pre, int m, int t, int k) {
  return (size_t)o.off[k] + pre[(size_t)(k / GROUP) * m + t].c[k % GROUP];
}

__global__ void k_x_pack_recs(int m, int nb, const int *idx, const unsigned long long *mask, const cnt8 *pre,
                              box_offsets o, thr_agents a, thr_agent_rec *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m) return;
  unsigned long long b = mask[t];
  for (int k = 0; k < nb; ++k)
    if (b >> k & 1ull) thr_agent_load(&a, (size_t)idx[t], &out[x_slot(o, pre, m, t, k)]);
}

__global__ void k_x_pack_ghosts(int m, int nb, const int *idx, const unsigned long long *mask, const cnt8 *pre,
                                box_offsets o, thr_agents a, thr_ghost_rec *out, int *send_idx) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m) return;
  unsigned long long b = mask[t];
  for (int k = 0; k < nb; ++k)
    if (b >> k & 1ull) {
      size_t slot = x_slot(o, pre, m, t, k);
      thr_ghost_load(&a, (size_t)idx[t], &out[slot]);
      send_idx[slot] = idx[t];
    }
}

/* The candidates: their count (one host wait), indices and masks. */
static size_t select_candidates(cuda_state *s, thr_window skip, const thr_box_set &bs, int nbox, int far_bit) {
  size_t n = s->a.n_owned;
  if (!n) return 0;
  int *flag = s->cell_of, *pos = s->slot;
  k_outside_flags<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, s->base.grid, s->a.p, skip, flag);
  CUDA_LAUNCHED("outside_flags");
  thr_cuda_exclusive_scan(s, flag, pos, n);
  int *idx = (int *)xbuf(s, X_IDX, n * sizeof(int));
  unsigned long long *mask = (unsigned long long *)xbuf(s, X_MASK, n * sizeof(unsigned long long));
  k_x_compact<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, s->base.grid, s->a.p, flag, pos, bs, nbox,
                                                                far_bit, idx, mask);
  CUDA_LAUNCHED("x_compact");
  int *last = (int *)xbuf(s, X_SMALL, SMALL_BYTES);
  CUDA_CHECK(cudaMemcpyAsync(last, pos + n - 1, sizeof(int), cudaMemcpyDeviceToDevice, s->stream));
  CUDA_CHECK(cudaMemcpyAsync(last + 1, flag + n - 1, sizeof(int), cudaMemcpyDeviceToDevice, s->stream));
  int h[2];
  CUDA_CHECK(cudaMemcpyAsync(h, last, sizeof h, cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  return (size_t)h[0] + (size_t)h[1];
}

/* Each candidate's rank within each of its nb boxes (pre, [group][m]),
 * the boxes' totals and, for migration, id sums: one host wait. */
static cnt8 *rank_in_boxes(cuda_state *s, size_t m, int nb, int with_sums, size_t *counts, uint64_t *sums) {
  int groups = (nb + GROUP - 1) / GROUP;
  const unsigned long long *mask = (const unsigned long long *)s->xch[X_MASK];
  cnt8 *cnt = (cnt8 *)xbuf(s, X_CNT, m * sizeof(cnt8));
  cnt8 *pre = (cnt8 *)xbuf(s, X_PRE, (size_t)groups * m * sizeof(cnt8));
  unsigned long long *small = (unsigned long long *)xbuf(s, X_SMALL, SMALL_BYTES);
  unsigned long long *totals = small, *d_sums = small + 64; /* 64 totals, then 2 x 63 sums */
  CUDA_CHECK(cudaMemsetAsync(small, 0, (64 + 2 * 63) * sizeof *small, s->stream));
  cnt8 zero;
  memset(&zero, 0, sizeof zero);
  for (int g = 0; g < groups; ++g) {
    k_x_group<<<thr_blocks(m), THR_CUDA_BLOCK, 0, s->stream>>>((int)m, g, mask, cnt);
    CUDA_LAUNCHED("x_group");
    size_t bytes = 0;
    cnt8 *out = pre + (size_t)g * m;
    CUDA_CHECK(cub::DeviceScan::ExclusiveScan(NULL, bytes, cnt, out, cnt8_add(), zero, (int)m, s->stream));
    void *tmp = xbuf(s, X_TMP, bytes);
    CUDA_CHECK(cub::DeviceScan::ExclusiveScan(tmp, bytes, cnt, out, cnt8_add(), zero, (int)m, s->stream));
    k_x_totals<<<1, 32, 0, s->stream>>>((int)m, g, nb, cnt, out, totals);
    CUDA_LAUNCHED("x_totals");
  }
  if (with_sums) {
    k_x_id_sums<<<thr_blocks(m), THR_CUDA_BLOCK, 0, s->stream>>>((int)m, nb - 1, (const int *)s->xch[X_IDX], mask,
                                                                  s->a.id, d_sums);
    CUDA_LAUNCHED("x_id_sums");
  }
  unsigned long long h[64 + 2 * 63];
  CUDA_CHECK(cudaMemcpyAsync(h, small, sizeof h, cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  for (int k = 0; k < nb; ++k) counts[k] = (size_t)h[k];
  for (int k = 0; with_sums && k < 2 * (nb - 1); ++k) sums[k] = h[64 + k];
  return pre;
}

int thr_cuda_exchange_select(cuda_state *s, int kind, thr_window skip, const thr_window *boxes, int nbox,
                             size_t *counts, uint64_t *sums) {
  int migrate = kind == THR_EXCHANGE_MIGRATE;
  int nb = nbox + migrate; /* migration: one more box, the agents in no box */
  if (nbox < 0 || nb > 64) return thr_backend_error(s->self, "exchange_select: %d boxes (at most %d)", nbox, 64 - migrate);
  s->a.n = s->a.n_owned; /* ghosts dropped */
  s->order_is_identity = 0;
  for (int k = 0; k < nb; ++k) counts[k] = 0;
  for (int k = 0; migrate && k < 2 * nbox; ++k) sums[k] = 0;
  thr_box_set bs = thr_box_set_of(boxes, nbox);
  size_t m = select_candidates(s, skip, bs, nbox, migrate ? nbox : -1);
  if (!migrate) s->n_send = 0;
  if (!m) return 0;
  cnt8 *pre = rank_in_boxes(s, m, nb, migrate, counts, sums);
  box_offsets o;
  memset(&o, 0, sizeof o);
  size_t total = 0;
  for (int k = 0; k < nb; ++k) {
    o.off[k] = total;
    total += counts[k];
  }
  const int *idx = (const int *)s->xch[X_IDX];
  const unsigned long long *mask = (const unsigned long long *)s->xch[X_MASK];
  size_t rec = migrate ? sizeof(thr_agent_rec) : sizeof(thr_ghost_rec);
  void *msg = thr_cuda_halo_buffer(s, 0, total * rec + 1);
  /* host message buffers: pack on the device, then one copy */
  void *buf = s->device_halo ? msg : xbuf(s, X_SEND, total * rec + 1);
  if (!msg) return thr_backend_error(s->self, "out of memory for %zu message records", total);
  if (migrate) {
    k_x_pack_recs<<<thr_blocks(m), THR_CUDA_BLOCK, 0, s->stream>>>((int)m, nb, idx, mask, pre, o, s->a,
                                                                    (thr_agent_rec *)buf);
    CUDA_LAUNCHED("x_pack_recs");
    thr_cuda_remove_owned(s, idx, m); /* every candidate leaves */
  }
  if (!migrate) {
    if (total > s->send_cap) {
      CUDA_CHECK(cudaStreamSynchronize(s->stream));
      if (s->d_send_idx) CUDA_CHECK(cudaFree(s->d_send_idx));
      s->send_cap = total + total / 2 + 64;
      CUDA_CHECK(cudaMalloc(&s->d_send_idx, s->send_cap * sizeof(int)));
    }
    k_x_pack_ghosts<<<thr_blocks(m), THR_CUDA_BLOCK, 0, s->stream>>>((int)m, nb, idx, mask, pre, o, s->a,
                                                                      (thr_ghost_rec *)buf, s->d_send_idx);
    CUDA_LAUNCHED("x_pack_ghosts");
    s->n_send = total;
  }
  if (!s->device_halo) CUDA_CHECK(cudaMemcpyAsync(msg, buf, total * rec, cudaMemcpyDeviceToHost, s->stream));
  /* MPI (not stream-ordered, unlike NCCL) sends the buffer next */
  if (!s->stream_halo) CUDA_CHECK(cudaStreamSynchronize(s->stream));
  return 0;
}

int thr_cuda_exchange_copy_out(cuda_state *s, size_t first, size_t n, thr_agent_rec *recs) {
  if (!n) return 0;
  if (!s->device_halo) { /* already on the host, packed */
    memcpy(recs, (const thr_agent_rec *)s->h_halo[0] + first, n * sizeof *recs);
    return 0;
  }
  const thr_agent_rec *d = (const thr_agent_rec *)s->d_halo[0];
  CUDA_CHECK(cudaMemcpyAsync(recs, d + first, n * sizeof *recs, cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  return 0;
}

int thr_cuda_exchange_receive(cuda_state *s, int kind, size_t n) {
  size_t rec = kind == THR_EXCHANGE_MIGRATE ? sizeof(thr_agent_rec) : sizeof(thr_ghost_rec);
  const void *d = s->d_halo[1];
  if (!s->device_halo) { /* one copy up */
    void *up = n ? xbuf(s, X_RECV, n * rec) : NULL;
    if (n) CUDA_CHECK(cudaMemcpyAsync(up, s->h_halo[1], n * rec, cudaMemcpyHostToDevice, s->stream));
    d = up;
  }
  int rc = kind == THR_EXCHANGE_MIGRATE ? thr_cuda_append_device(s, (const thr_agent_rec *)d, n)
                                        : thr_cuda_set_ghosts_device(s, (const thr_ghost_rec *)d, n);
  /* MPI may write the receive buffer again before the stream would wait */
  if (!s->stream_halo) CUDA_CHECK(cudaStreamSynchronize(s->stream));
  return rc;
}
