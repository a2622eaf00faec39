/* The passes of a step as CUDA kernels: one thread per owned agent, each
 * calling the same per-agent function of ../passes.h that the CPU backend
 * calls. */
#include "cuda_state.cuh"

thr_ctx thr_cuda_ctx(const cuda_state *s) {
  thr_ctx c;
  c.prm = s->prm;
  c.grid = s->geom;
  c.grid.offset = s->d_offset;
  c.grid.order = s->order;
  c.grid.cell_of = s->cell_of;
  c.obs.n = s->n_obstacles;
  c.obs.vfirst = s->d_vfirst;
  c.obs.closed = s->d_closed;
  c.obs.verts = s->d_verts;
  c.obs.cell_offset = s->d_obs_offset;
  c.obs.cell_items = s->d_obs_items;
  c.goals.n_goals = s->n_goals;
  c.goals.n_sets = s->n_sets;
  c.goals.goals = s->d_goals;
  c.goals.set_first = s->d_set_first;
  c.goals.set_items = s->d_set_items;
  c.k_contact = s->k_contact;
  c.k_longrange = s->k_longrange;
  c.k_xsph = s->k_xsph;
  c.id = s->a.id;
  c.radius = s->a.radius;
  c.inv_mass = s->a.inv_mass;
  c.x = s->a.x;
  c.p = s->a.p;
  c.v = s->a.v;
  return c;
}

__global__ void k_predict(const thr_ctx c, int n, thr_vec2 *p, const float *pref_speed, const int32_t *goal_set,
                          const thr_vec2 *goal, const uint32_t *flags) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = thr_agent_predict(&c, c.x[i], c.v[i], pref_speed[i], goal_set[i], goal[i], flags[i]);
}

__global__ void k_stability(const thr_ctx c, int n, thr_vec2 *x_out, thr_vec2 *p_out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  thr_vec2 dx = thr_agent_stability(&c, i);
  x_out[i] = v2_add(c.x[i], dx);
  p_out[i] = v2_add(c.p[i], dx);
}

__global__ void k_lr_list(const thr_ctx c, int n, int *list, int rows, int *count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) count[i] = thr_agent_lr_list(&c, i, list + i, rows, THR_CUDA_LR_CAP);
}

__global__ void k_long_range_list(const thr_ctx c, int n, const int *list, int rows, const int *count,
                                  thr_vec2 *p_out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p_out[i] = thr_agent_long_range_list(&c, i, list + i, rows, count[i], THR_CUDA_LR_CAP);
}

__global__ void k_contact(const thr_ctx c, int n, thr_vec2 *p_out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p_out[i] = thr_agent_contact(&c, i);
}

__global__ void k_velocity(const thr_ctx c, int n, thr_vec2 *vnew) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) vnew[i] = thr_agent_velocity(&c, i);
}

/* c.v holds the un-smoothed new velocities; v the previous ones. */
__global__ void k_finalize(const thr_ctx c, int n, thr_vec2 *v, thr_vec2 *x, const int32_t *goal_set,
                           const thr_vec2 *goal, uint32_t *flags) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  v[i] = thr_agent_xsph_clamp(&c, i, v[i]);
  thr_vec2 xi = c.p[i];
  x[i] = xi;
  if (thr_agent_at_goal(&c, xi, goal_set[i], goal[i])) flags[i] |= THR_FLAG_AT_GOAL;
}

/* Integer sums and float maxima (as ordered bit patterns of non-negative
 * floats): the totals do not depend on the order of the atomics. */
typedef struct dev_metrics {
  unsigned long long at_goal, pairs, walls, speed_q;
  unsigned int max_ov, max_rel, max_wall;
} dev_metrics;

__device__ static void warp_sum(unsigned long long *v) {
  for (int o = 16; o > 0; o >>= 1) *v += __shfl_down_sync(0xffffffffu, *v, o);
}
__device__ static void warp_max(unsigned int *v) {
  for (int o = 16; o > 0; o >>= 1) *v = max(*v, __shfl_down_sync(0xffffffffu, *v, o));
}

__global__ void k_measure(const thr_ctx c, int n, const uint32_t *flags, dev_metrics *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long at_goal = 0, pairs = 0, walls = 0, speed = 0;
  unsigned int mov = 0, mrel = 0, mwall = 0;
  if (i < n) {
    thr_agent_metrics m = thr_agent_measure(&c, i);
    at_goal = (flags[i] & THR_FLAG_AT_GOAL) ? 1 : 0;
    pairs = (unsigned long long)m.overlaps;
    walls = m.wall_overlap > 0.0f ? 1 : 0;
    speed = (unsigned long long)((double)v2_len(c.v[i]) / THR_SPEED_QUANTUM + 0.5);
    mov = __float_as_uint(m.max_overlap);
    mrel = __float_as_uint(m.max_overlap_rel);
    mwall = __float_as_uint(m.wall_overlap);
  }
  warp_sum(&at_goal);
  warp_sum(&pairs);
  warp_sum(&walls);
  warp_sum(&speed);
  warp_max(&mov);
  warp_max(&mrel);
  warp_max(&mwall);
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&out->at_goal, at_goal);
    atomicAdd(&out->pairs, pairs);
    atomicAdd(&out->walls, walls);
    atomicAdd(&out->speed_q, speed);
    atomicMax(&out->max_ov, mov);
    atomicMax(&out->max_rel, mrel);
    atomicMax(&out->max_wall, mwall);
  }
}

/* ---- launchers (called by cuda_backend.cu) ---------------------------------- */

void thr_cuda_predict(cuda_state *s) {
  int n = (int)s->a.n_owned;
  if (!n) return;
  k_predict<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>(thr_cuda_ctx(s), n, s->a.p, s->a.pref_speed,
                                                              s->a.goal_set, s->a.goal, s->a.flags);
  CUDA_LAUNCHED("predict");
}

static void swap_vec(thr_vec2 **a, thr_vec2 **b) {
  thr_vec2 *t = *a;
  *a = *b;
  *b = t;
}

void thr_cuda_stability(cuda_state *s) {
  int n = (int)s->a.n_owned;
  if (n) {
    k_stability<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>(thr_cuda_ctx(s), n, s->x2, s->p2);
    CUDA_LAUNCHED("stability");
  }
  swap_vec(&s->a.x, &s->x2);
  swap_vec(&s->a.p, &s->p2);
}

/* The neighbour lists of the step's long-range passes (x^n is fixed from
 * the first solver iteration on). */
static void build_lr_lists(cuda_state *s) {
  size_t n = s->a.n_owned;
  if (n > s->lr_rows) {
    CUDA_CHECK(cudaStreamSynchronize(s->stream));
    if (s->lr_list) CUDA_CHECK(cudaFree(s->lr_list));
    if (s->lr_count) CUDA_CHECK(cudaFree(s->lr_count));
    s->lr_rows = s->a.cap;
    CUDA_CHECK(cudaMalloc(&s->lr_list, s->lr_rows * THR_CUDA_LR_CAP * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&s->lr_count, s->lr_rows * sizeof(int)));
  }
  if (n) {
    k_lr_list<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>(thr_cuda_ctx(s), (int)n, s->lr_list, (int)s->lr_rows,
                                                                s->lr_count);
    CUDA_LAUNCHED("lr_list");
  }
  s->lr_valid = 1;
}

void thr_cuda_long_range(cuda_state *s) {
  int n = (int)s->a.n_owned;
  if (!s->lr_valid) build_lr_lists(s);
  if (n) {
    k_long_range_list<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>(thr_cuda_ctx(s), n, s->lr_list,
                                                                        (int)s->lr_rows, s->lr_count, s->p2);
    CUDA_LAUNCHED("long_range");
  }
  swap_vec(&s->a.p, &s->p2);
}

void thr_cuda_contact(cuda_state *s) {
  int n = (int)s->a.n_owned;
  if (n) {
    k_contact<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>(thr_cuda_ctx(s), n, s->p2);
    CUDA_LAUNCHED("contact");
  }
  swap_vec(&s->a.p, &s->p2);
}

void thr_cuda_velocity(cuda_state *s) {
  int n = (int)s->a.n_owned;
  if (!n) return;
  k_velocity<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>(thr_cuda_ctx(s), n, s->vnew);
  CUDA_LAUNCHED("velocity");
}

void thr_cuda_finalize(cuda_state *s) {
  int n = (int)s->a.n_owned;
  if (!n) return;
  thr_ctx c = thr_cuda_ctx(s);
  c.v = s->vnew;
  k_finalize<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>(c, n, s->a.v, s->a.x, s->a.goal_set, s->a.goal,
                                                               s->a.flags);
  CUDA_LAUNCHED("finalize");
}

void thr_cuda_measure(cuda_state *s, thr_metrics_partial *out) {
  int n = (int)s->a.n_owned;
  if (!s->d_metrics) CUDA_CHECK(cudaMalloc(&s->d_metrics, sizeof(dev_metrics)));
  dev_metrics *d = (dev_metrics *)s->d_metrics;
  CUDA_CHECK(cudaMemsetAsync(d, 0, sizeof(dev_metrics), s->stream));
  if (n) {
    k_measure<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>(thr_cuda_ctx(s), n, s->a.flags, d);
    CUDA_LAUNCHED("measure");
  }
  dev_metrics h;
  CUDA_CHECK(cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  out->agents = n;
  out->at_goal = (long)h.at_goal;
  out->overlap_pairs = (long)h.pairs;
  out->wall_penetrations = (long)h.walls;
  out->speed_sum_q = (int64_t)h.speed_q;
  union {
    unsigned int u;
    float f;
  } cv;
  cv.u = h.max_ov;
  out->max_overlap = cv.f;
  cv.u = h.max_rel;
  out->max_overlap_ratio = cv.f;
  cv.u = h.max_wall;
  out->max_wall_overlap = cv.f;
}
