/* Agents between host and device: whole owned sets (start, output), and the
 * small moving pieces of the domain decomposition (migrating agents, ghost
 * payloads, per-pass halo fields), packed and unpacked on the device. */
#include <cub/device/device_scan.cuh>

#include "cuda_state.cuh"

int thr_cuda_upload_owned(cuda_state *s, const thr_agents *owned) {
  size_t n = owned->n_owned;
  if (thr_cuda_reserve(s, n ? n : 1)) return -1;
  for (int f = 0; f < THR_F_COUNT; ++f) {
    size_t elem;
    void *d = *thr_agents_field(&s->a, f, &elem);
    const void *h = *thr_agents_field((thr_agents *)owned, f, NULL);
    if (n) CUDA_CHECK(cudaMemcpy(d, h, n * elem, cudaMemcpyHostToDevice));
  }
  s->a.n = s->a.n_owned = n;
  s->order_is_identity = 0;
  return 0;
}

int thr_cuda_download_owned(cuda_state *s, thr_agents *owned) {
  size_t n = s->a.n_owned;
  if (thr_agents_reserve(owned, n ? n : 1)) return -1;
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  for (int f = 0; f < THR_F_COUNT; ++f) {
    size_t elem;
    const void *d = *thr_agents_field(&s->a, f, &elem);
    void *h = *thr_agents_field(owned, f, NULL);
    if (n) CUDA_CHECK(cudaMemcpy(h, d, n * elem, cudaMemcpyDeviceToHost));
  }
  owned->n = owned->n_owned = n;
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

/* Device view of the agent fields, for record packing kernels. */
typedef struct dev_fields {
  uint32_t *id;
  thr_vec2 *x, *p, *v;
  float *radius, *inv_mass, *pref_speed;
  thr_vec2 *goal;
  int32_t *goal_set, *group;
  uint32_t *flags;
} dev_fields;

static dev_fields fields_of(const cuda_state *s) {
  dev_fields f = {s->a.id,     s->a.x,          s->a.p,    s->a.v,        s->a.radius, s->a.inv_mass,
                  s->a.pref_speed, s->a.goal, s->a.goal_set, s->a.group, s->a.flags};
  return f;
}

__global__ void k_pack_recs(int n, const int *idx, dev_fields f, thr_agent_rec *out) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  int i = idx[k];
  thr_agent_rec r;
  r.id = f.id[i];
  r.x = f.x[i];
  r.p = f.p[i];
  r.v = f.v[i];
  r.radius = f.radius[i];
  r.inv_mass = f.inv_mass[i];
  r.pref_speed = f.pref_speed[i];
  r.goal = f.goal[i];
  r.goal_set = f.goal_set[i];
  r.group = f.group[i];
  r.flags = f.flags[i];
  out[k] = r;
}

__global__ void k_unpack_recs(int n, int first, const thr_agent_rec *in, dev_fields f) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  int i = first + k;
  thr_agent_rec r = in[k];
  f.id[i] = r.id;
  f.x[i] = r.x;
  f.p[i] = r.p;
  f.v[i] = r.v;
  f.radius[i] = r.radius;
  f.inv_mass[i] = r.inv_mass;
  f.pref_speed[i] = r.pref_speed;
  f.goal[i] = r.goal;
  f.goal_set[i] = r.goal_set;
  f.group[i] = r.group;
  f.flags[i] = r.flags;
}

__global__ void k_fill_int(int n, int *a, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = value;
}

__global__ void k_clear_listed(int n, const int *idx, int *flag) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) flag[idx[k]] = 0;
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

__global__ void k_compact(int n, const int *keep, const int *pos, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && keep[i]) out[pos[i]] = i;
}

int thr_cuda_extract_owned(cuda_state *s, const int *idx, size_t n, thr_agent_rec *recs) {
  size_t owned = s->a.n_owned;
  s->a.n = owned; /* ghosts dropped */
  s->order_is_identity = 0;
  s->parts_valid = 0;
  if (!n) return 0;
  void *rest;
  int *d_idx = upload_idx(s, idx, n, n * sizeof(thr_agent_rec), &rest);
  thr_agent_rec *d_recs = (thr_agent_rec *)rest;
  k_pack_recs<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, d_idx, fields_of(s), d_recs);
  CUDA_LAUNCHED("pack_recs");
  CUDA_CHECK(cudaMemcpyAsync(recs, d_recs, n * sizeof(thr_agent_rec), cudaMemcpyDeviceToHost, s->stream));
  /* keep the others, in order: flags in cell_of, their exclusive scan in
   * slot, kept indices compacted into order */
  k_fill_int<<<thr_blocks(owned), THR_CUDA_BLOCK, 0, s->stream>>>((int)owned, s->cell_of, 1);
  k_clear_listed<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, d_idx, s->cell_of);
  CUDA_LAUNCHED("keep flags");
  thr_cuda_exclusive_scan(s, s->cell_of, s->slot, owned);
  k_compact<<<thr_blocks(owned), THR_CUDA_BLOCK, 0, s->stream>>>((int)owned, s->cell_of, s->slot, s->order);
  CUDA_LAUNCHED("compact");
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  size_t keep = owned - n;
  thr_cuda_gather_fields(s, s->order, keep);
  s->a.n = s->a.n_owned = keep;
  return 0;
}

int thr_cuda_append_owned(cuda_state *s, const thr_agent_rec *recs, size_t n) {
  size_t owned = s->a.n_owned;
  s->a.n = owned;
  s->order_is_identity = 0;
  s->parts_valid = 0;
  if (!n) return 0;
  if (thr_cuda_reserve(s, owned + n)) return -1;
  thr_agent_rec *d = (thr_agent_rec *)thr_cuda_stage(s, n * sizeof(thr_agent_rec));
  CUDA_CHECK(cudaMemcpyAsync(d, recs, n * sizeof(thr_agent_rec), cudaMemcpyHostToDevice, s->stream));
  k_unpack_recs<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, (int)owned, d, fields_of(s));
  CUDA_LAUNCHED("unpack_recs");
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  s->a.n = s->a.n_owned = owned + n;
  return 0;
}

__global__ void k_pack_ghosts(int n, const int *idx, dev_fields f, thr_ghost_rec *out) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  int i = idx[k];
  thr_ghost_rec g;
  g.id = f.id[i];
  g.radius = f.radius[i];
  g.inv_mass = f.inv_mass[i];
  g.x = f.x[i];
  g.p = f.p[i];
  g.v = f.v[i];
  out[k] = g;
}

__global__ void k_unpack_ghosts(int n, int first, const thr_ghost_rec *in, dev_fields f) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  int i = first + k;
  thr_ghost_rec g = in[k];
  f.id[i] = g.id;
  f.radius[i] = g.radius;
  f.inv_mass[i] = g.inv_mass;
  f.x[i] = g.x;
  f.p[i] = g.p;
  f.v[i] = g.v;
}

int thr_cuda_pack_ghosts(cuda_state *s, const int *idx, size_t n, thr_ghost_rec *out) {
  if (!n) return 0;
  void *rest;
  int *d_idx = upload_idx(s, idx, n, n * sizeof(thr_ghost_rec), &rest);
  k_pack_ghosts<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, d_idx, fields_of(s), (thr_ghost_rec *)rest);
  CUDA_LAUNCHED("pack_ghosts");
  CUDA_CHECK(cudaMemcpyAsync(out, rest, n * sizeof(thr_ghost_rec), cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  return 0;
}

int thr_cuda_set_ghosts(cuda_state *s, const thr_ghost_rec *g, size_t n) {
  size_t owned = s->a.n_owned;
  s->order_is_identity = 0;
  if (thr_cuda_reserve(s, owned + n + 1)) return -1;
  s->a.n = owned + n;
  if (!n) return 0;
  thr_ghost_rec *d = (thr_ghost_rec *)thr_cuda_stage(s, n * sizeof(thr_ghost_rec));
  CUDA_CHECK(cudaMemcpyAsync(d, g, n * sizeof(thr_ghost_rec), cudaMemcpyHostToDevice, s->stream));
  k_unpack_ghosts<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, (int)owned, d, fields_of(s));
  CUDA_LAUNCHED("unpack_ghosts");
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  return 0;
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

/* Halo fields in THR_HALO_* bit order. */
static int halo_fields(cuda_state *s, int fields, thr_vec2 **arrays) {
  int k = 0;
  if (fields & THR_HALO_X) arrays[k++] = s->a.x;
  if (fields & THR_HALO_P) arrays[k++] = s->a.p;
  if (fields & THR_HALO_VNEW) arrays[k++] = s->vnew;
  return k;
}

__global__ void k_gather_vec(int n, const int *idx, const thr_vec2 *src, thr_vec2 *dst) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) dst[k] = src[idx[k]];
}

void thr_cuda_pack_halo(cuda_state *s, int fields, void *buf) {
  thr_vec2 *arrays[3];
  int nf = halo_fields(s, fields, arrays);
  size_t n = s->n_send;
  if (!n || !nf) return;
  /* device mode: gather straight into the (device) message buffer */
  thr_vec2 *d = s->device_halo ? (thr_vec2 *)buf : (thr_vec2 *)thr_cuda_stage(s, (size_t)nf * n * sizeof(thr_vec2));
  for (int k = 0; k < nf; ++k) {
    k_gather_vec<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, s->d_send_idx, arrays[k], d + k * n);
    CUDA_LAUNCHED("pack_halo");
  }
  if (!s->device_halo)
    CUDA_CHECK(cudaMemcpyAsync(buf, d, (size_t)nf * n * sizeof(thr_vec2), cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
}

void thr_cuda_unpack_halo(cuda_state *s, int fields, const void *buf) {
  thr_vec2 *arrays[3];
  int nf = halo_fields(s, fields, arrays);
  size_t owned = s->a.n_owned, n = s->a.n - owned;
  if (!n) return;
  const thr_vec2 *h = (const thr_vec2 *)buf;
  /* asynchronous: later kernels on the stream wait for the copies, and the
   * next pack_halo synchronises the stream before the decomposition reuses
   * the (page-locked) buffer */
  for (int k = 0; k < nf; ++k)
    CUDA_CHECK(cudaMemcpyAsync(arrays[k] + owned, h + k * n, n * sizeof(thr_vec2),
                               s->device_halo ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice, s->stream));
}

/* ---- selections for the decomposition ------------------------------------- */

typedef struct box_set {
  thr_window w[64];
} box_set;

__global__ void k_outside_flags(int n, thr_grid_view g, const thr_vec2 *p, thr_window skip, int *flag) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int gx = thr_cell_coord(p[i].x, g.ox, g.cell, g.gnx);
  int gy = thr_cell_coord(p[i].y, g.oy, g.cell, g.gny);
  flag[i] = !thr_window_contains(skip, gx, gy);
}

__global__ void k_outside_compact(int n, thr_grid_view g, const thr_vec2 *p, const int *flag, const int *pos,
                                  box_set boxes, int nbox, int *idx, int2 *cells, unsigned long long *mask) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || !flag[i]) return;
  int gx = thr_cell_coord(p[i].x, g.ox, g.cell, g.gnx);
  int gy = thr_cell_coord(p[i].y, g.oy, g.cell, g.gny);
  unsigned long long m = 0;
  for (int k = 0; k < nbox; ++k)
    if (thr_window_contains(boxes.w[k], gx, gy)) m |= 1ull << k;
  int t = pos[i];
  idx[t] = i;
  cells[t] = make_int2(gx, gy);
  mask[t] = m;
}

size_t thr_cuda_select_outside(cuda_state *s, thr_window skip, const thr_window *boxes, int nbox, int *idx,
                               int32_t *cells, uint64_t *mask) {
  size_t n = s->a.n_owned;
  if (!n) return 0;
  box_set bs;
  memset(&bs, 0, sizeof bs);
  for (int k = 0; k < nbox && k < 64; ++k) bs.w[k] = boxes[k];
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
