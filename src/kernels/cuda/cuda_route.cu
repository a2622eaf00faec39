/* Congestion-aware routing on the GPU: the steps of the host engine
 * (kernels/cpu/route_engine.c) with the same shared functions of
 * ../eikonal.h and ../evac.h, so that a strict build gives the CPU's bits:
 * integer counts and box sums, the crowd's cost per cell, the tiled eikonal
 * solver (a block per active tile, its Jacobi sweeps in shared memory,
 * rounds until no tile changes) and the exits' basins. The fields are
 * written into the device copy the kernels read. */
#include <cub/cub.cuh>
#include <stdlib.h>
#include <string.h>

#include "cuda_state.cuh"

void thr_cuda_route_free(cuda_state *s) {
  thr_cuda_route *r = &s->route;
  void *ptrs[] = {r->base_cost, r->walk_box, r->counts, r->cost, r->fixed, r->box_rows, r->box_sums, r->label,
                  r->t_next, r->l_next, r->changed, r->active, r->list, r->n_list, r->basins, r->src_all,
                  r->src_min, r->cub_tmp, r->tile_ids, r->offset, r->ph_cell, r->ph_partner, r->ph_lab,
                  r->ph_val, r->ph_moved};
  for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; ++k)
    if (ptrs[k]) cudaFree(ptrs[k]);
  free(r->count_field);
  free(r->field);
  free(r->weights_of);
  free(r->labelled);
  free(r->src_first);
  memset(r, 0, sizeof *r);
}

template <typename T>
static T *dev_alloc(cuda_state *s, size_t n) {
  T *d = NULL;
  CUDA_CHECK(cudaMalloc(&d, (n ? n : 1) * sizeof(T)));
  return d;
}

template <typename T>
static T *host_dup(const T *p, size_t n) {
  T *q = (T *)malloc((n ? n : 1) * sizeof(T));
  if (q && n) memcpy(q, p, n * sizeof(T));
  return q;
}

__global__ void k_iota_tiles(int n, int *a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = i;
}

int thr_cuda_route_setup(cuda_state *s, const thr_route_setup *rs) {
  thr_cuda_route_free(s);
  thr_cuda_route *r = &s->route;
  r->rs = *rs;
  r->cells = (size_t)rs->nx * (size_t)rs->ny;
  r->tnx = thr_eik_tiles(rs->nx);
  r->tny = thr_eik_tiles(rs->ny);
  r->tiles = r->tnx * r->tny;
  size_t cells = r->cells, nd = (size_t)rs->n_dynamic;
  r->count_field = host_dup(rs->count_field, (size_t)rs->n_counts);
  r->field = host_dup(rs->field, nd);
  r->weights_of = host_dup(rs->weights_of, nd);
  r->labelled = host_dup(rs->labelled, nd);
  r->src_first = (long *)malloc((nd + 1) * sizeof(long));
  if (!r->count_field || !r->field || !r->weights_of || !r->labelled || !r->src_first)
    return thr_backend_error(s->self, "out of memory for the routing setup");
  r->src_first[0] = 0;
  for (size_t d = 0; d < nd; ++d) r->src_first[d + 1] = r->src_first[d] + rs->n_src[d];
  r->base_cost = dev_alloc<float>(s, cells);
  r->walk_box = dev_alloc<int32_t>(s, cells);
  r->counts = dev_alloc<int32_t>(s, (size_t)(rs->n_counts ? rs->n_counts : 1) * cells);
  r->cost = dev_alloc<float>(s, cells);
  r->fixed = dev_alloc<unsigned char>(s, cells);
  r->box_rows = dev_alloc<int32_t>(s, cells);
  r->box_sums = dev_alloc<int32_t>(s, cells);
  r->label = dev_alloc<int32_t>(s, cells);
  r->t_next = dev_alloc<float>(s, cells);
  r->l_next = dev_alloc<int32_t>(s, cells);
  r->changed = dev_alloc<unsigned char>(s, (size_t)r->tiles);
  r->active = dev_alloc<unsigned char>(s, (size_t)r->tiles);
  r->list = dev_alloc<int>(s, (size_t)r->tiles);
  r->n_list = dev_alloc<int>(s, 1);
  r->basins = dev_alloc<unsigned long long>(s, (size_t)rs->n_exits + 1);
  r->offset = dev_alloc<float>(s, (size_t)rs->n_exits + 1);
  CUDA_CHECK(cudaMemset(r->offset, 0, ((size_t)rs->n_exits + 1) * sizeof(float)));
  r->labelled_field = -1;
  for (size_t d = 0; d < nd; ++d)
    if (rs->labelled[d]) r->labelled_field = rs->field[d];
  r->src_all = dev_alloc<thr_navsource>(s, (size_t)r->src_first[nd]);
  size_t np = (size_t)rs->n_phantom;
  r->ph_cell = dev_alloc<int32_t>(s, np);
  r->ph_partner = dev_alloc<int32_t>(s, np);
  r->ph_lab = dev_alloc<int32_t>(s, np);
  r->ph_val = dev_alloc<float>(s, np);
  r->ph_moved = dev_alloc<int>(s, 1);
  if (np) {
    CUDA_CHECK(cudaMemcpy(r->ph_cell, rs->ph_cell, np * sizeof(int32_t), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(r->ph_partner, rs->ph_partner, np * sizeof(int32_t), cudaMemcpyHostToDevice));
  }
  r->rs.ph_cell = r->rs.ph_partner = NULL; /* host arrays: not kept */
  r->src_min = dev_alloc<int>(s, cells);
  CUDA_CHECK(cudaMemcpy(r->base_cost, rs->base_cost, cells * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(r->walk_box, rs->walk_box, cells * sizeof(int32_t), cudaMemcpyHostToDevice));
  for (size_t d = 0; d < nd; ++d)
    if (rs->n_src[d])
      CUDA_CHECK(cudaMemcpy(r->src_all + r->src_first[d], rs->src[d], (size_t)rs->n_src[d] * sizeof(thr_navsource),
                            cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(r->counts, 0, (size_t)rs->n_counts * cells * sizeof(int32_t)));
  CUDA_CHECK(cudaMemset(r->label, 0xff, cells * sizeof(int32_t))); /* -1 */
  /* CUB scratch of the active-tile compaction */
  size_t bytes = 0;
  r->tile_ids = dev_alloc<int>(s, (size_t)r->tiles);
  k_iota_tiles<<<thr_blocks((size_t)r->tiles), THR_CUDA_BLOCK, 0, s->stream>>>(r->tiles, r->tile_ids);
  CUDA_LAUNCHED("route_tile_ids");
  cub::DeviceSelect::Flagged(NULL, bytes, r->tile_ids, r->active, r->list, r->n_list, r->tiles, s->stream);
  r->cub_tmp = dev_alloc<unsigned char>(s, bytes);
  r->cub_bytes = bytes;
  r->on = 1;
  return 0;
}

/* ---- counts --------------------------------------------------------------- */

__global__ void k_route_count(int n, const thr_vec2 *x, const thr_vec2 *v, thr_evac_view e, int field,
                              int32_t *counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int c = thr_map_cell(e.fox, e.foy, e.fh, e.fnx, e.fny, x[i]);
  if (c >= 0) atomicAdd(&counts[c], thr_agent_crowd_weight(&e, field, x[i], v[i]));
}

static int32_t *host_counts_stage(cuda_state *s, size_t bytes) { return (int32_t *)thr_cuda_host_stage(s, bytes); }

/* Integer counts: the sums are exact whatever order the atomics run in. */
int thr_cuda_route_count(cuda_state *s, int32_t *host) {
  thr_cuda_route *r = &s->route;
  size_t bytes = (size_t)r->rs.n_counts * r->cells * sizeof(int32_t);
  CUDA_CHECK(cudaMemsetAsync(r->counts, 0, bytes, s->stream));
  size_t n = s->a.n_owned;
  for (int k = 0; k < r->rs.n_counts && n; ++k) {
    k_route_count<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, s->a.x, s->a.v, s->base.ev,
                                                                     r->count_field[k], r->counts + k * r->cells);
    CUDA_LAUNCHED("route_count");
  }
  return host ? thr_cuda_route_count_get(s, host) : 0;
}

int thr_cuda_route_count_get(cuda_state *s, int32_t *host) {
  thr_cuda_route *r = &s->route;
  size_t bytes = (size_t)r->rs.n_counts * r->cells * sizeof(int32_t);
  int32_t *h = host_counts_stage(s, bytes);
  CUDA_CHECK(cudaMemcpyAsync(h, r->counts, bytes, cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  memcpy(host, h, bytes);
  return 0;
}

int thr_cuda_route_set_counts(cuda_state *s, const int32_t *host) {
  thr_cuda_route *r = &s->route;
  size_t bytes = (size_t)r->rs.n_counts * r->cells * sizeof(int32_t);
  int32_t *h = host_counts_stage(s, bytes);
  memcpy(h, host, bytes);
  CUDA_CHECK(cudaMemcpyAsync(r->counts, h, bytes, cudaMemcpyHostToDevice, s->stream));
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  return 0;
}

/* ---- basins --------------------------------------------------------------- */

__global__ void k_route_basins(int cells, const int32_t *counts, const int32_t *label, const float *T,
                               const float *offset, float radius, unsigned long long *basins) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cells || !counts[c] || label[c] < 0) return;
  int l = label[c];
  if (!thr_route_in_queue(T[c], offset[l], radius)) return;
  atomicAdd(&basins[l], (unsigned long long)counts[c]);
}

int thr_cuda_route_basins(cuda_state *s, int64_t *basins) {
  thr_cuda_route *r = &s->route;
  if (r->rs.queue_counts < 0 || !r->rs.n_exits) return 0;
  size_t ne = (size_t)r->rs.n_exits;
  CUDA_CHECK(cudaMemsetAsync(r->basins, 0, ne * sizeof(unsigned long long), s->stream));
  if (r->labelled_field < 0) return 0;
  k_route_basins<<<thr_blocks(r->cells), THR_CUDA_BLOCK, 0, s->stream>>>(
      (int)r->cells, r->counts + (size_t)r->rs.queue_counts * r->cells, r->label,
      s->ev.fields + (size_t)r->labelled_field * r->cells, r->offset, r->rs.queue_radius, r->basins);
  CUDA_LAUNCHED("route_basins");
  unsigned long long *h = (unsigned long long *)thr_cuda_host_stage(s, ne * sizeof *h);
  CUDA_CHECK(cudaMemcpyAsync(h, r->basins, ne * sizeof *h, cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  for (size_t e = 0; e < ne; ++e) basins[e] += (int64_t)h[e];
  return 0;
}

/* ---- the crowd's cost ----------------------------------------------------- */

/* Box sums as thr_route_box_sums: a thread per row, then a thread per column. */
__global__ void k_box_rows(int nx, int ny, int box, const int32_t *in, int32_t *rows) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < ny) thr_route_box_line(nx, box, 1, in + (size_t)j * nx, rows + (size_t)j * nx);
}

__global__ void k_box_cols(int nx, int ny, int box, const int32_t *rows, int32_t *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nx) thr_route_box_line(ny, box, (size_t)nx, rows + i, out + i);
}

__global__ void k_crowd_cost(int nx, int ny, const float *base, const int32_t *sums, const int32_t *walk, float area,
                             thr_crowd_law law, float *cost) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= nx * ny) return;
  float rho = thr_crowd_density_body(sums, walk, nx, ny, c % nx, c / nx, THR_CROWD_QUANTA, area);
  cost[c] = base[c] / thr_crowd_scale(&law, rho);
}

static void crowd_cost(cuda_state *s, int k) {
  thr_cuda_route *r = &s->route;
  const thr_route_setup *rs = &r->rs;
  if (k < 0) {
    CUDA_CHECK(cudaMemcpyAsync(r->cost, r->base_cost, r->cells * sizeof(float), cudaMemcpyDeviceToDevice,
                               s->stream));
    return;
  }
  k_box_rows<<<thr_blocks((size_t)rs->ny), THR_CUDA_BLOCK, 0, s->stream>>>(rs->nx, rs->ny, rs->box,
                                                                            r->counts + k * r->cells, r->box_rows);
  k_box_cols<<<thr_blocks((size_t)rs->nx), THR_CUDA_BLOCK, 0, s->stream>>>(rs->nx, rs->ny, rs->box, r->box_rows,
                                                                            r->box_sums);
  k_crowd_cost<<<thr_blocks(r->cells), THR_CUDA_BLOCK, 0, s->stream>>>(rs->nx, rs->ny, r->base_cost, r->box_sums,
                                                                       r->walk_box, rs->h * rs->h, rs->law, r->cost);
  CUDA_LAUNCHED("route_crowd_cost");
}

/* ---- sources -------------------------------------------------------------- */

__global__ void k_fill_field(int cells, float *T, int32_t *L, unsigned char *fixed, int *src_min) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cells) return;
  T[c] = HUGE_VALF;
  if (L) L[c] = -1;
  fixed[c] = 0;
  src_min[c] = 0x7fffffff;
}

/* A source's start value (the exit's offset in a labelled field). */
__device__ float source_value(const thr_navsource *sr, const float *offset) {
  return offset ? offset[sr->label] : sr->value;
}

/* The host engine takes sources in order and keeps the first of the lowest
 * values in a cell: here the lowest value (an integer minimum over
 * non-negative floats' bits), then the first source index holding it. */
__global__ void k_sources_min(int n, const thr_navsource *src, const float *offset, const float *cost, float *T) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  int c = src[k].cell;
  if (!(cost[c] < HUGE_VALF)) return;
  float v = source_value(&src[k], offset);
  atomicMin((int *)&T[c], __float_as_int(v));
}

__global__ void k_sources_first(int n, const thr_navsource *src, const float *offset, const float *cost,
                                const float *T, int *src_min) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  int c = src[k].cell;
  if (!(cost[c] < HUGE_VALF) || source_value(&src[k], offset) != T[c]) return;
  atomicMin(&src_min[c], k);
}

__global__ void k_sources_set(int n, const thr_navsource *src, const float *cost, const int *src_min,
                              unsigned char *fixed, int32_t *L, unsigned char *changed, thr_eik_grid g) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  int c = src[k].cell;
  if (!(cost[c] < HUGE_VALF) || src_min[c] != k) return;
  fixed[c] = 1;
  if (L) L[c] = src[k].label;
  changed[thr_eik_tile_of(&g, c)] = THR_EIK_ALL;
}

/* ---- a building's phantom cells (eikonal.h) ------------------------------ */

__global__ void k_phantoms_clear(int n, float *val, int32_t *lab) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  val[k] = HUGE_VALF;
  lab[k] = -1;
}

__global__ void k_phantoms_set(int n, const int32_t *cell, const float *val, const int32_t *lab, float *T, int32_t *L,
                               unsigned char *fixed, unsigned char *changed, thr_eik_grid g) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  int q = thr_eik_phantom_set(k, cell, val, lab, T, L, fixed);
  if (q >= 0) changed[thr_eik_tile_of(&g, q)] = THR_EIK_ALL;
}

__global__ void k_phantoms_take(int n, const int32_t *partner, const float *T, const int32_t *L, float *val,
                                int32_t *lab, int *moved) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  if (thr_eik_phantom_take(k, partner, T, L, val, lab)) *moved = 1;
}

/* ---- the tiled solver ----------------------------------------------------- */

__global__ void k_activate(thr_eik_grid g, const unsigned char *changed, unsigned char *active) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= g.tnx * g.tny) return;
  active[t] = (unsigned char)thr_eik_next_active(&g, changed, t);
}

/* One active tile per block of THR_EIK_TILE^2 threads (thr_eik_sweep_cell). */
__global__ void k_eik_tiles(thr_eik_grid g, const int *list, const float *T, const int32_t *L, float *t_next,
                            int32_t *l_next, unsigned char *changed) {
  __shared__ float buf[2][THR_EIK_BUF];
  __shared__ int32_t lbuf[2][THR_EIK_BUF];
  int t = list[blockIdx.x], q = threadIdx.x, lab = L != NULL;
  for (int k = q; k < THR_EIK_BUF; k += blockDim.x) {
    thr_eik_load(&g, T, L, t, k, buf[0], lab ? lbuf[0] : NULL);
    buf[1][k] = buf[0][k];
    if (lab) lbuf[1][k] = lbuf[0][k];
  }
  __syncthreads();
  int sw = 0, lowered = 1;
  for (; sw < THR_EIK_SWEEPS && lowered; ++sw) /* until a sweep changes nothing: the host engine's rule */
    lowered = __syncthreads_or(thr_eik_sweep_cell(&g, t, q, buf[sw & 1], lab ? lbuf[sw & 1] : NULL,
                                                  buf[(sw + 1) & 1], lab ? lbuf[(sw + 1) & 1] : NULL));
  __shared__ unsigned flags;
  if (q == 0) flags = 0u;
  __syncthreads();
  int k = thr_eik_slot(q), c = thr_eik_slot_cell(&g, t, k);
  if (c >= 0) {
    float v = buf[sw & 1][k];
    t_next[c] = v;
    if (lab) l_next[c] = lbuf[sw & 1][k];
    unsigned f = thr_eik_cell_flags(q, v, buf[(sw + 1) & 1][k], T[c]);
    if (f) atomicOr(&flags, f); /* an OR: the same whatever the order */
  }
  __syncthreads();
  if (q == 0) changed[t] = (unsigned char)flags;
}

__global__ void k_eik_commit(thr_eik_grid g, const int *list, const float *t_next, const int32_t *l_next, float *T,
                             int32_t *L) {
  int t = list[blockIdx.x], k = thr_eik_slot(threadIdx.x), c = thr_eik_slot_cell(&g, t, k);
  if (c < 0) return;
  T[c] = t_next[c];
  if (L) L[c] = l_next[c];
}

/* The active tiles in index order; their count (the host waits for it). */
static int compact(cuda_state *s) {
  thr_cuda_route *r = &s->route;
  size_t bytes = r->cub_bytes;
  cub::DeviceSelect::Flagged(r->cub_tmp, bytes, r->tile_ids, r->active, r->list, r->n_list, r->tiles, s->stream);
  int *h = (int *)thr_cuda_host_stage(s, sizeof(int));
  CUDA_CHECK(cudaMemcpyAsync(h, r->n_list, sizeof(int), cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  return *h;
}

static long eikonal(cuda_state *s, const thr_eik_grid *g, float *T, int32_t *L) {
  thr_cuda_route *r = &s->route;
  unsigned tb = thr_blocks((size_t)r->tiles);
  k_activate<<<tb, THR_CUDA_BLOCK, 0, s->stream>>>(*g, r->changed, r->active);
  int n = compact(s);
  long rounds = 0;
  while (n > 0 && rounds < THR_EIK_MAX_ROUNDS) {
    ++rounds;
    CUDA_CHECK(cudaMemsetAsync(r->changed, 0, (size_t)r->tiles, s->stream));
    k_eik_tiles<<<(unsigned)n, THR_EIK_TILE * THR_EIK_TILE, 0, s->stream>>>(*g, r->list, T, L, r->t_next, r->l_next,
                                                                           r->changed);
    k_eik_commit<<<(unsigned)n, THR_EIK_TILE * THR_EIK_TILE, 0, s->stream>>>(*g, r->list, r->t_next, r->l_next, T, L);
    k_activate<<<tb, THR_CUDA_BLOCK, 0, s->stream>>>(*g, r->changed, r->active);
    CUDA_LAUNCHED("route_eikonal");
    n = compact(s);
  }
  return rounds;
}

int thr_cuda_route_solve(cuda_state *s, const float *exit_offset, long *rounds) {
  thr_cuda_route *r = &s->route;
  const thr_route_setup *rs = &r->rs;
  *rounds = 0;
  float *d_offset = NULL;
  if (exit_offset && rs->n_exits) {
    d_offset = r->offset;
    CUDA_CHECK(cudaMemcpyAsync(d_offset, exit_offset, (size_t)rs->n_exits * sizeof(float), cudaMemcpyHostToDevice,
                               s->stream));
  }
  int np = rs->n_phantom;
  unsigned pb = thr_blocks((size_t)(np ? np : 1));
  for (int d = 0; d < rs->n_dynamic; ++d) {
    float *T = s->ev.fields + (size_t)r->field[d] * r->cells;
    int32_t *L = r->labelled[d] ? r->label : NULL;
    const float *off = L ? d_offset : NULL;
    crowd_cost(s, r->weights_of[d]);
    thr_eik_grid g = {rs->nx, rs->ny, r->tnx, r->tny, r->cost, r->fixed};
    if (np) k_phantoms_clear<<<pb, THR_CUDA_BLOCK, 0, s->stream>>>(np, r->ph_val, r->ph_lab);
    for (int round = 0;; ++round) {
      k_fill_field<<<thr_blocks(r->cells), THR_CUDA_BLOCK, 0, s->stream>>>((int)r->cells, T, L, r->fixed, r->src_min);
      CUDA_CHECK(cudaMemsetAsync(r->changed, 0, (size_t)r->tiles, s->stream));
      long ns = r->src_first[d + 1] - r->src_first[d];
      const thr_navsource *src = r->src_all + r->src_first[d];
      if (ns) {
        unsigned nb = thr_blocks((size_t)ns);
        k_sources_min<<<nb, THR_CUDA_BLOCK, 0, s->stream>>>((int)ns, src, off, r->cost, T);
        k_sources_first<<<nb, THR_CUDA_BLOCK, 0, s->stream>>>((int)ns, src, off, r->cost, T, r->src_min);
        k_sources_set<<<nb, THR_CUDA_BLOCK, 0, s->stream>>>((int)ns, src, r->cost, r->src_min, r->fixed, L,
                                                            r->changed, g);
        CUDA_LAUNCHED("route_sources");
      }
      if (np)
        k_phantoms_set<<<pb, THR_CUDA_BLOCK, 0, s->stream>>>(np, r->ph_cell, r->ph_val, r->ph_lab, T, L, r->fixed,
                                                             r->changed, g);
      *rounds += eikonal(s, &g, T, L);
      if (!np) break;
      /* a building: again until the phantoms hold their partners' values */
      CUDA_CHECK(cudaMemsetAsync(r->ph_moved, 0, sizeof(int), s->stream));
      k_phantoms_take<<<pb, THR_CUDA_BLOCK, 0, s->stream>>>(np, r->ph_partner, T, L, r->ph_val, r->ph_lab,
                                                            r->ph_moved);
      CUDA_LAUNCHED("route_phantoms");
      int *h = (int *)thr_cuda_host_stage(s, sizeof(int));
      CUDA_CHECK(cudaMemcpyAsync(h, r->ph_moved, sizeof(int), cudaMemcpyDeviceToHost, s->stream));
      CUDA_CHECK(cudaStreamSynchronize(s->stream));
      if (!*h || round == THR_SEAM_ROUNDS) break;
    }
  }
  return 0;
}
