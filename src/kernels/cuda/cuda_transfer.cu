/* Agents between host and device: whole owned sets (start, output), and the
 * small moving pieces of the domain decomposition (migrating agents, ghost
 * payloads, per-pass halo fields), packed and unpacked on the device. */
#include <cub/device/device_scan.cuh>

#include "cuda_select.cuh"

/* Field f of n agents from the device array d (NULL: a field this run does
 * not store) into the host array h (NULL: one the host store does not keep). */
static void copy_to_host(cuda_state *s, void *h, const void *d, int f, size_t n) {
  if (!n || !h) return;
  if (d)
    CUDA_CHECK(cudaMemcpy(h, d, n * thr_field_table[f].elem, cudaMemcpyDeviceToHost));
  else
    thr_field_fill_blank(h, f, 0, n);
}

int thr_cuda_upload_owned(cuda_state *s, const thr_agents *owned) {
  size_t n = owned->n_owned;
  if (thr_cuda_reserve(s, n ? n : 1)) return -1;
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (!thr_field_table[f].state) continue;
    size_t elem;
    void *d = *thr_agents_field(&s->a, f, &elem);
    const void *h = *thr_agents_field((thr_agents *)owned, f, NULL);
    if (n && d) CUDA_CHECK(cudaMemcpy(d, h, n * elem, cudaMemcpyHostToDevice)); /* absent: blank (agent_fields.h) */
  }
  s->a.n = s->a.n_owned = n;
  s->order_is_identity = 0;
  return 0;
}

int thr_cuda_download_owned(cuda_state *s, thr_agents *owned) {
  size_t n = s->a.n_owned;
  if (thr_agents_reserve(owned, n ? n : 1)) return thr_backend_error(s->self, "out of host memory for %zu agents", n);
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (!thr_field_table[f].state) continue;
    size_t elem;
    const void *d = *thr_agents_field(&s->a, f, &elem);
    void *h = *thr_agents_field(owned, f, NULL);
    copy_to_host(s, h, d, f, n);
  }
  owned->n = owned->n_owned = n;
  return 0;
}

int thr_cuda_copy_out(cuda_state *s, thr_agents *all, thr_field_mask mask) {
  size_t n = s->a.n;
  if (thr_agents_reserve(all, n + 1)) return thr_backend_error(s->self, "out of host memory for %zu agents", n);
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (!(mask & ((thr_field_mask)1 << f))) continue;
    size_t elem;
    const void *d = *thr_agents_field(&s->a, f, &elem);
    copy_to_host(s, *thr_agents_field(all, f, NULL), d, f, n);
  }
  all->n = n;
  all->n_owned = s->a.n_owned;
  return 0;
}

/* Host views: the fields of the mask copied one after the other into one
 * page-locked buffer, asynchronously on the stream (ordered after the step
 * that wrote them, and before the next step rewrites them). */
int thr_cuda_view_begin(cuda_state *s, thr_field_mask mask) {
  mask &= ~s->a.absent; /* a view of a field the run does not store leaves it NULL */
  size_t n = s->a.n_owned, bytes = thr_fields_bytes(mask) * n;
  if (!s->view_event) CUDA_CHECK(cudaEventCreateWithFlags(&s->view_event, cudaEventDisableTiming));
  if (bytes > s->h_view_cap) {
    if (s->h_view) {
      CUDA_CHECK(cudaStreamSynchronize(s->stream)); /* an earlier view's copies may still read into it */
      CUDA_CHECK(cudaFreeHost(s->h_view));
      s->h_view = NULL, s->h_view_cap = 0;
    }
    size_t cap = bytes + bytes / 4;
    if (cudaMallocHost(&s->h_view, cap) != cudaSuccess) {
      cudaGetLastError();
      return thr_backend_error(s->self, "out of page-locked host memory for a view of %zu agents (%zu bytes)", n,
                               cap);
    }
    s->h_view_cap = cap;
  }
  char *out = (char *)s->h_view;
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (!(mask & ((thr_field_mask)1 << f))) continue;
    size_t elem;
    const void *d = *thr_agents_field(&s->a, f, &elem);
    if (n) CUDA_CHECK(cudaMemcpyAsync(out, d, n * elem, cudaMemcpyDeviceToHost, s->stream));
    out += n * elem;
  }
  CUDA_CHECK(cudaEventRecord(s->view_event, s->stream));
  s->view_mask = mask;
  s->view_n = n;
  return 0;
}

int thr_cuda_view_end(cuda_state *s, thr_agents *view) {
  thr_agents_init(view);
  CUDA_CHECK(cudaEventSynchronize(s->view_event));
  char *in = (char *)s->h_view;
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (!(s->view_mask & ((thr_field_mask)1 << f))) continue;
    size_t elem;
    void **field = thr_agents_field(view, f, &elem);
    *field = in;
    in += s->view_n * elem;
  }
  view->n = view->n_owned = view->cap = s->view_n;
  return 0;
}

/* Upload a host index list into device staging. */
static int *upload_idx(cuda_state *s, const int *idx, size_t n, size_t extra_bytes, void **rest) {
  size_t ib = (n * sizeof(int) + 255) & ~(size_t)255;
  char *stage = (char *)thr_cuda_stage(s, ib + extra_bytes);
  if (n) CUDA_CHECK(cudaMemcpyAsync(stage, idx, n * sizeof(int), cudaMemcpyHostToDevice, s->stream));
  if (rest) *rest = stage + ib;
  return (int *)stage;
}

__global__ void k_global_cells(int n, thr_grid_view g, const thr_vec2 *p, int32_t *cells) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cells[2 * i] = thr_cell_coord(p[i].x, g.ox, g.cell, g.gnx);
  cells[2 * i + 1] = thr_cell_coord(p[i].y, g.oy, g.cell, g.gny);
}

int thr_cuda_owned_cells(cuda_state *s, int32_t *cells) {
  size_t n = s->a.n_owned;
  if (!n) return 0;
  int32_t *d = (int32_t *)thr_cuda_stage(s, n * 2 * sizeof(int32_t));
  k_global_cells<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, s->base.grid, s->a.p, d);
  CUDA_LAUNCHED("global_cells");
  CUDA_CHECK(cudaMemcpyAsync(cells, d, n * 2 * sizeof(int32_t), cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  return 0;
}

/* Records of the field list (base/agents.h), packed and unpacked on the
 * device with the same load/store functions the CPU backend uses. */
__global__ void k_pack_recs(int n, const int *idx, thr_agents a, thr_agent_rec *out) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) thr_agent_load(&a, (size_t)idx[k], &out[k]);
}

__global__ void k_unpack_recs(int n, int first, const thr_agent_rec *in, thr_agents a) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) thr_agent_store(&a, (size_t)(first + k), &in[k]);
}

/* out[i] = sum of in[0..i) for i < n (CUB, temporary storage kept). */
void thr_cuda_exclusive_scan(cuda_state *s, const int *in, int *out, size_t n) {
  size_t bytes = 0;
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, bytes, in, out, (int)n, s->stream));
  if (bytes > s->scan_tmp_bytes) {
    CUDA_CHECK(cudaStreamSynchronize(s->stream));
    if (s->d_scan_tmp) CUDA_CHECK(cudaFree(s->d_scan_tmp));
    CUDA_CHECK(cudaMalloc(&s->d_scan_tmp, bytes));
    s->scan_tmp_bytes = bytes;
  }
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(s->d_scan_tmp, bytes, in, out, (int)n, s->stream));
}

/* ---- removing owned agents ------------------------------------------------
 * The last owned agents that stay fill the removed agents' slots, so a step
 * moves O(migrants) records, not every owned agent. The storage order is
 * not kept, and need not be: the neighbour index orders agents by (cell,
 * id) and the next step's sort_owned restores the storage order. */

/* flag[t]: does slot keep + t stay? Yes (this kernel) unless listed (the next). */
__global__ void k_x_tail_keep(int m, int *flag) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < m) flag[t] = 1;
}

__global__ void k_x_tail_clear(int m, int keep, const int *idx, int *flag) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < m && idx[t] >= keep) flag[idx[t] - keep] = 0;
}

__global__ void k_x_movers(int m, int keep, const int *flag, const int *pos, int *movers) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < m && flag[t]) movers[pos[t]] = keep + t;
}

/* The removed agents below `keep` are idx[0..h) (ascending), and exactly h
 * agents that stay lie at or above it: the k-th of them fills the k-th
 * hole. Reads and writes touch disjoint slots. */
__global__ void k_x_fill_holes(int m, int keep, const int *idx, const int *movers, thr_agents a) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m || idx[t] >= keep) return;
  thr_agent_rec r;
  thr_agent_load(&a, (size_t)movers[t], &r);
  thr_agent_store(&a, (size_t)idx[t], &r);
}

void thr_cuda_remove_owned(cuda_state *s, const int *d_idx, size_t n) {
  size_t owned = s->a.n_owned;
  s->a.n = owned;
  s->order_is_identity = 0;
  s->parts.valid = 0;
  if (!n) return;
  int keep = (int)(owned - n), m = (int)n;
  /* flags, their scan and the movers in the per-agent scratch arrays
   * (free between sort_owned and build_index) */
  int *flag = s->cell_of, *pos = s->slot, *movers = s->order;
  k_x_tail_keep<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>(m, flag);
  k_x_tail_clear<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>(m, keep, d_idx, flag);
  CUDA_LAUNCHED("tail flags");
  thr_cuda_exclusive_scan(s, flag, pos, n);
  k_x_movers<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>(m, keep, flag, pos, movers);
  k_x_fill_holes<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>(m, keep, d_idx, movers, s->a);
  CUDA_LAUNCHED("fill holes");
  s->a.n = s->a.n_owned = (size_t)keep;
}

int thr_cuda_extract_owned(cuda_state *s, const int *idx, size_t n, thr_agent_rec *recs) {
  s->a.n = s->a.n_owned; /* ghosts dropped */
  s->order_is_identity = 0;
  s->parts.valid = 0;
  if (!n) return 0;
  void *rest;
  int *d_idx = upload_idx(s, idx, n, n * sizeof(thr_agent_rec), &rest);
  thr_agent_rec *d_recs = (thr_agent_rec *)rest;
  k_pack_recs<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, d_idx, s->a, d_recs);
  CUDA_LAUNCHED("pack_recs");
  CUDA_CHECK(cudaMemcpyAsync(recs, d_recs, n * sizeof(thr_agent_rec), cudaMemcpyDeviceToHost, s->stream));
  thr_cuda_remove_owned(s, d_idx, n);
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  return 0;
}

/* n records at d (device memory) appended to the owned agents. */
int thr_cuda_append_device(cuda_state *s, const thr_agent_rec *d, size_t n) {
  size_t owned = s->a.n_owned;
  s->a.n = owned;
  s->order_is_identity = 0;
  s->parts.valid = 0;
  if (!n) return 0;
  if (thr_cuda_reserve(s, owned + n)) return -1; /* message in b->error */
  k_unpack_recs<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, (int)owned, d, s->a);
  CUDA_LAUNCHED("unpack_recs");
  s->a.n = s->a.n_owned = owned + n;
  return 0;
}

/* bytes from host memory into device staging (NULL for none) */
static const void *upload(cuda_state *s, const void *host, size_t bytes) {
  if (!bytes) return NULL;
  void *d = thr_cuda_stage(s, bytes);
  CUDA_CHECK(cudaMemcpyAsync(d, host, bytes, cudaMemcpyHostToDevice, s->stream));
  return d;
}

int thr_cuda_append_owned(cuda_state *s, const thr_agent_rec *recs, size_t n) {
  int rc = thr_cuda_append_device(s, (const thr_agent_rec *)upload(s, recs, n * sizeof *recs), n);
  CUDA_CHECK(cudaStreamSynchronize(s->stream)); /* the caller reuses recs */
  return rc;
}

__global__ void k_pack_ghosts(int n, const int *idx, thr_agents a, thr_ghost_rec *out) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) thr_ghost_load(&a, (size_t)idx[k], &out[k]);
}

__global__ void k_unpack_ghosts(int n, int first, const thr_ghost_rec *in, thr_agents a) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) thr_ghost_store(&a, (size_t)(first + k), &in[k]);
}

int thr_cuda_pack_ghosts(cuda_state *s, const int *idx, size_t n, thr_ghost_rec *out) {
  if (!n) return 0;
  void *rest;
  int *d_idx = upload_idx(s, idx, n, n * sizeof(thr_ghost_rec), &rest);
  k_pack_ghosts<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, d_idx, s->a, (thr_ghost_rec *)rest);
  CUDA_LAUNCHED("pack_ghosts");
  CUDA_CHECK(cudaMemcpyAsync(out, rest, n * sizeof(thr_ghost_rec), cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  return 0;
}

/* The ghosts become the n records at d (device memory). */
int thr_cuda_set_ghosts_device(cuda_state *s, const thr_ghost_rec *d, size_t n) {
  size_t owned = s->a.n_owned;
  s->order_is_identity = 0;
  if (thr_cuda_reserve(s, owned + n + 1)) return -1;
  s->a.n = owned + n;
  if (!n) return 0;
  k_unpack_ghosts<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, (int)owned, d, s->a);
  CUDA_LAUNCHED("unpack_ghosts");
  return 0;
}

int thr_cuda_set_ghosts(cuda_state *s, const thr_ghost_rec *g, size_t n) {
  int rc = thr_cuda_set_ghosts_device(s, (const thr_ghost_rec *)upload(s, g, n * sizeof *g), n);
  CUDA_CHECK(cudaStreamSynchronize(s->stream)); /* the caller reuses g */
  return rc;
}

int thr_cuda_set_halo_send(cuda_state *s, const int *idx, size_t n) {
  if (n > s->send_cap) {
    if (s->d_send_idx) CUDA_CHECK(cudaFree(s->d_send_idx));
    s->send_cap = n + n / 2 + 64;
    CUDA_CHECK(cudaMalloc(&s->d_send_idx, s->send_cap * sizeof(int)));
  }
  if (n) CUDA_CHECK(cudaMemcpyAsync(s->d_send_idx, idx, n * sizeof(int), cudaMemcpyHostToDevice, s->stream));
  s->n_send = n;
  return 0;
}

/* Buffer *buf of at least `bytes`, grown (1.5x) in device or page-locked
 * host memory after every queued use of it; NULL when out of memory. */
static void *grow_message_buffer(cuda_state *s, void **buf, size_t *cap, size_t bytes, int device) {
  if (bytes <= *cap) return *buf;
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  if (s->comm_stream) CUDA_CHECK(cudaStreamSynchronize(s->comm_stream));
  if (*buf) CUDA_CHECK(device ? cudaFree(*buf) : cudaFreeHost(*buf));
  *cap = bytes + bytes / 2 + 4096;
  if ((device ? cudaMalloc(buf, *cap) : cudaMallocHost(buf, *cap)) != cudaSuccess) {
    cudaGetLastError(); /* reported by the caller, not by the next launch check */
    *buf = NULL;
    *cap = 0;
  }
  return *buf;
}

/* Message buffers: device memory for NCCL and a CUDA-aware MPI, else
 * page-locked host memory. */
void *thr_cuda_halo_buffer(cuda_state *s, int which, size_t bytes) {
  if (s->device_halo) return grow_message_buffer(s, &s->d_halo[which], &s->d_halo_cap[which], bytes, 1);
  return grow_message_buffer(s, &s->h_halo[which], &s->h_halo_cap[which], bytes, 0);
}

/* Halo buffers hold the fields of the mask one after the other (field
 * order), each as an array over the agents (backend_comm.h). */
void thr_cuda_pack_halo(cuda_state *s, thr_field_mask mask, void *buf) {
  size_t n = s->n_send, bytes = thr_fields_bytes(mask) * n;
  if (!n || !bytes) return;
  /* device mode: gather straight into the (device) message buffer */
  char *d = s->device_halo ? (char *)buf : (char *)thr_cuda_stage(s, bytes);
  char *out = d;
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (!(mask & ((thr_field_mask)1 << f))) continue;
    size_t elem;
    void *src = *thr_agents_field(&s->a, f, &elem);
    thr_cuda_gather(s, out, src, s->d_send_idx, n, elem);
    out += n * elem;
  }
  if (!s->device_halo) CUDA_CHECK(cudaMemcpyAsync(buf, d, bytes, cudaMemcpyDeviceToHost, s->stream));
  if (!s->stream_halo) CUDA_CHECK(cudaStreamSynchronize(s->stream));
}

void thr_cuda_unpack_halo(cuda_state *s, thr_field_mask mask, const void *buf) {
  size_t owned = s->a.n_owned, n = s->a.n - owned;
  if (!n) return;
  const char *in = (const char *)buf;
  /* asynchronous: later kernels on the stream wait for the copies, and the
   * next pack_halo synchronises the stream before the decomposition reuses
   * the (page-locked) buffer */
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (!(mask & ((thr_field_mask)1 << f))) continue;
    size_t elem;
    char *dst = *(char **)thr_agents_field(&s->a, f, &elem);
    CUDA_CHECK(cudaMemcpyAsync(dst + owned * elem, in, n * elem,
                               s->device_halo ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice, s->stream));
    in += n * elem;
  }
}

/* ---- selections for the decomposition ------------------------------------- */

__global__ void k_outside_compact(int n, thr_grid_view g, const thr_vec2 *p, const int *flag, const int *pos,
                                  thr_box_set boxes, int nbox, int *idx, int2 *cells, unsigned long long *mask) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || !flag[i]) return;
  int gx = thr_cell_coord(p[i].x, g.ox, g.cell, g.gnx);
  int gy = thr_cell_coord(p[i].y, g.oy, g.cell, g.gny);
  unsigned long long m = thr_box_mask(boxes, nbox, gx, gy);
  int t = pos[i];
  idx[t] = i;
  cells[t] = make_int2(gx, gy);
  mask[t] = m;
}

size_t thr_cuda_select_outside(cuda_state *s, thr_window skip, const thr_window *boxes, int nbox, int *idx,
                               int32_t *cells, uint64_t *mask) {
  size_t n = s->a.n_owned;
  if (!n) return 0;
  thr_box_set bs = thr_box_set_of(boxes, nbox);
  /* staging: flags, positions, then the compacted idx, cells, masks */
  size_t al = (n * sizeof(int) + 255) & ~(size_t)255;
  char *st = (char *)thr_cuda_stage(s, 3 * al + 2 * ((n * 8 + 255) & ~(size_t)255));
  int *flag = (int *)st, *pos = (int *)(st + al), *d_idx = (int *)(st + 2 * al);
  int2 *d_cells = (int2 *)(st + 3 * al);
  unsigned long long *d_mask = (unsigned long long *)(st + 3 * al + ((n * 8 + 255) & ~(size_t)255));
  k_outside_flags<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, s->base.grid, s->a.p, skip, flag);
  CUDA_LAUNCHED("outside_flags");
  thr_cuda_exclusive_scan(s, flag, pos, n);
  k_outside_compact<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, s->base.grid, s->a.p, flag, pos, bs, nbox,
                                                                      d_idx, d_cells, d_mask);
  CUDA_LAUNCHED("outside_compact");
  int last_pos = 0, last_flag = 0;
  CUDA_CHECK(cudaMemcpyAsync(&last_pos, pos + n - 1, sizeof(int), cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaMemcpyAsync(&last_flag, flag + n - 1, sizeof(int), cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  size_t count = (size_t)(last_pos + last_flag);
  if (count) {
    CUDA_CHECK(cudaMemcpyAsync(idx, d_idx, count * sizeof(int), cudaMemcpyDeviceToHost, s->stream));
    CUDA_CHECK(cudaMemcpyAsync(cells, d_cells, count * sizeof(int2), cudaMemcpyDeviceToHost, s->stream));
    if (mask)
      CUDA_CHECK(cudaMemcpyAsync(mask, d_mask, count * sizeof(uint64_t), cudaMemcpyDeviceToHost, s->stream));
    CUDA_CHECK(cudaStreamSynchronize(s->stream));
  }
  return count;
}

__global__ void k_id_checksum(int n, const uint32_t *id, unsigned long long *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long v = i < n ? id[i] : 0, q = v * v;
  for (int o = 16; o > 0; o >>= 1) {
    v += __shfl_down_sync(0xffffffffu, v, o);
    q += __shfl_down_sync(0xffffffffu, q, o);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&out[0], v);
    atomicAdd(&out[1], q);
  }
}

void thr_cuda_id_checksum(cuda_state *s, uint64_t *sum, uint64_t *sq) {
  size_t n = s->a.n_owned;
  unsigned long long *d = (unsigned long long *)thr_cuda_stage(s, 2 * sizeof(unsigned long long));
  CUDA_CHECK(cudaMemsetAsync(d, 0, 2 * sizeof(unsigned long long), s->stream));
  if (n) {
    k_id_checksum<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, s->a.id, d);
    CUDA_LAUNCHED("id_checksum");
  }
  unsigned long long h[2];
  CUDA_CHECK(cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  *sum = h[0];
  *sq = h[1];
}
