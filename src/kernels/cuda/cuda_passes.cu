/* The passes of a step as CUDA kernels: one thread per owned agent, each
 * calling the same per-agent function of ../passes.h that the CPU backend
 * calls. */
#include "cuda_state.cuh"

thr_ctx thr_cuda_ctx(const cuda_state *s) {
  thr_ctx c = s->base;
  thr_ctx_bind(&c, &s->a, s->d_offset, s->order, s->cell_of);
  return c;
}

/* Also resets the step's health key (thr_cuda_health_post copied the last
 * one before this kernel, in stream order), saving a memset per step. */
__global__ void k_predict(const thr_ctx c, int n, thr_agents a, unsigned long long *health) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) *health = ~0ull;
  if (i >= n) return;
  if (c.prm.dim3) {
    thr_vec3 p = thr_agent_predict3(&c, &a, i);
    a.p[i] = thr_xy(p);
    a.pz[i] = p.z;
  } else {
    a.p[i] = thr_agent_predict(&c, &a, i);
  }
}

/* Thread t of a pass computes agent THR_PART_AGENT(r, t) (pass_parts.h). */

__global__ void k_stability(const thr_ctx c, thr_part_range r, thr_vec2 *x_out, thr_vec2 *p_out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= r.n) return;
  int i = (int)THR_PART_AGENT(r, t);
  thr_vec2 dx = thr_agent_stability(&c, i);
  x_out[i] = v2_add(c.x[i], dx);
  p_out[i] = v2_add(c.p[i], dx);
}

/* Any BEHAVIOUR pass: in place (an agent reads only its own count). */
template <int KIND>
__global__ void k_behaviour(const thr_ctx c, thr_part_range r, int32_t *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= r.n) return;
  int i = (int)THR_PART_AGENT(r, t);
  out[i] = thr_pass_behaviour_agent(KIND, &c, i);
}

/* Any UPDATE pass: in place (an agent writes only its own fields). */
template <int KIND>
__global__ void k_update(const thr_ctx c, thr_part_range r, thr_agents a) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= r.n) return;
  thr_pass_update_agent(KIND, &c, &a, (int)THR_PART_AGENT(r, t));
}

/* Any PLAN pass of the pass table: one instance per kind. */
template <int KIND>
__global__ void k_plan(const thr_ctx c, thr_part_range r, thr_agents a, thr_vec2 *p_out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= r.n) return;
  int i = (int)THR_PART_AGENT(r, t);
  p_out[i] = thr_pass_plan_agent(KIND, &c, &a, i);
}

/* Any PLAN pass for 3D agents (x* and its altitude). */
template <int KIND>
__global__ void k_plan3(const thr_ctx c, thr_part_range r, thr_agents a, thr_vec2 *p_out, float *pz_out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= r.n) return;
  int i = (int)THR_PART_AGENT(r, t);
  thr_vec3 p = thr_pass_plan_agent3(KIND, &c, &a, i);
  p_out[i] = thr_xy(p);
  pz_out[i] = p.z;
}

/* Register caps: the solver and long-range kernels must fit
 * THR_SOLVER_MIN_BLOCKS blocks of THR_CUDA_BLOCK threads per SM (8: 32
 * registers, full occupancy on Hopper). Measured on an H100
 * (bench/gpu_regcap.sh, docs/performance.md): 15.7 -> 14.2 ms per step at
 * 10^7 agents despite small spills; 0 leaves it to the compiler (47 registers). */
#ifndef THR_SOLVER_MIN_BLOCKS
#define THR_SOLVER_MIN_BLOCKS 8
#endif
#if THR_SOLVER_MIN_BLOCKS > 0
#define THR_SOLVER_BOUNDS __launch_bounds__(THR_CUDA_BLOCK, THR_SOLVER_MIN_BLOCKS)
#else
#define THR_SOLVER_BOUNDS
#endif

/* Any SOLVER pass of the pass table: one instance per kind. */
template <int KIND>
__global__ void THR_SOLVER_BOUNDS k_solver(const thr_ctx c, thr_part_range r, thr_vec2 *p_out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= r.n) return;
  int i = (int)THR_PART_AGENT(r, t);
  p_out[i] = thr_pass_solver_agent(KIND, &c, i);
}

/* The step's lists of a part's agents (thr_agent_step_lists); the register
 * cap gained 0.4 % at 10^7 agents on an H200. */
__global__ void THR_SOLVER_BOUNDS k_step_lists(const thr_ctx c, thr_part_range r, thr_step_lists l) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= r.n) return;
  int i = (int)THR_PART_AGENT(r, t);
  l.count[i] = thr_agent_step_lists(&c, i, l.lr + i, l.ct + i, (int)l.rows);
}

__global__ void k_velocity(const thr_ctx c, thr_part_range r, thr_vec2 *vnew) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= r.n) return;
  int i = (int)THR_PART_AGENT(r, t);
  vnew[i] = thr_agent_velocity(&c, i);
}

/* c.v holds the un-smoothed new velocities; v the previous ones. A
 * non-finite agent lowers *bad (atomicMin of thr_nonfinite_key: the lowest
 * id wins whatever the order). */
__global__ void k_finalize(const thr_ctx c, thr_part_range r, thr_agents a, unsigned long long *bad, int evac,
                           unsigned long long *cross) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= r.n) return;
  int i = (int)THR_PART_AGENT(r, t);
  thr_vec2 vi = thr_agent_xsph_clamp(&c, i, a.v[i]);
  a.v[i] = vi;
  thr_vec2 xi = c.p[i], x_old = evac ? a.x[i] : xi; /* the old position only matters then */
  a.x[i] = xi;
  uint32_t f = a.flags[i];
  if (thr_agent_at_goal(&c, xi, a.goal_set[i], a.goal[i])) f |= THR_FLAG_AT_GOAL;
  int field = thr_nonfinite_field(xi, xi, vi);
  if (field >= 0) atomicMin(bad, (unsigned long long)thr_nonfinite_key(c.id[i], field));
  if (evac) {
    a.travel[i] = thr_agent_travel(a.travel[i], x_old, xi);
    f |= thr_agent_evac_flags(&c, thr_local_cell(&c.grid, xi), xi, a.radius[i], a.stage[i], a.slot[i]);
    for (int k = 0; k < c.ev.n_lines; ++k)
      if (thr_evac_crosses(&c.ev, k, x_old, xi)) atomicAdd(&cross[k], 1ull);
    if (c.ev.n_seams) a.x[i] = thr_evac_through_seams(&c.ev, xi);
  }
  a.flags[i] = f;
}

/* ---- 3D agents (passes3d.h): the same passes with the altitude fields ---- */

__global__ void k_stability3(const thr_ctx c, thr_part_range r, thr_vec2 *x_out, thr_vec2 *p_out, float *z_out,
                             float *pz_out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= r.n) return;
  int i = (int)THR_PART_AGENT(r, t);
  thr_vec3 dx = thr_agent_stability3(&c, i);
  x_out[i] = v2(c.x[i].x + dx.x, c.x[i].y + dx.y);
  z_out[i] = c.z[i] + dx.z;
  p_out[i] = v2(c.p[i].x + dx.x, c.p[i].y + dx.y);
  pz_out[i] = c.pz[i] + dx.z;
}

template <int KIND>
__global__ void THR_SOLVER_BOUNDS k_solver3(const thr_ctx c, thr_part_range r, thr_vec2 *p_out, float *pz_out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= r.n) return;
  int i = (int)THR_PART_AGENT(r, t);
  thr_vec3 p = thr_pass_solver_agent3(KIND, &c, i);
  p_out[i] = thr_xy(p);
  pz_out[i] = p.z;
}

__global__ void k_velocity3(const thr_ctx c, thr_part_range r, thr_vec2 *vnew, float *vnewz) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= r.n) return;
  int i = (int)THR_PART_AGENT(r, t);
  thr_vec3 v = thr_agent_velocity3(&c, i);
  vnew[i] = thr_xy(v);
  vnewz[i] = v.z;
}

/* c.v, c.vz hold the un-smoothed new velocities; a.v, a.vz the previous
 * ones. 3D scenarios have no evacuation part. */
__global__ void k_finalize3(const thr_ctx c, thr_part_range r, thr_agents a, unsigned long long *bad) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= r.n) return;
  int i = (int)THR_PART_AGENT(r, t);
  thr_vec3 v = thr_agent_xsph_clamp3(&c, i, v3(a.v[i].x, a.v[i].y, a.vz[i]));
  a.v[i] = thr_xy(v);
  a.vz[i] = v.z;
  thr_vec3 x = thr_agent_p3(&c, i);
  a.x[i] = thr_xy(x);
  a.z[i] = x.z;
  if (thr_agent_at_goal3(&c, &a, i, x)) a.flags[i] |= THR_FLAG_AT_GOAL;
  int field = thr_nonfinite_field3(x, x, v);
  if (field >= 0) atomicMin(bad, (unsigned long long)thr_nonfinite_key(c.id[i], field));
}

/* Integer sums and float maxima (as ordered bit patterns of non-negative
 * floats): the totals do not depend on the order of the atomics. */
typedef struct dev_metrics {
  unsigned long long at_goal, pairs, walls, speed_q, fallbacks, forced;
  unsigned long long in_state[THR_MAX_BSTATES];
  unsigned int max_ov, max_rel, max_wall;
} dev_metrics;

__device__ static void warp_sum(unsigned long long *v) {
  for (int o = 16; o > 0; o >>= 1) *v += __shfl_down_sync(0xffffffffu, *v, o);
}
__device__ static void warp_max(unsigned int *v) {
  for (int o = 16; o > 0; o >>= 1) *v = max(*v, __shfl_down_sync(0xffffffffu, *v, o));
}

__global__ void k_measure(const thr_ctx c, int n, const uint32_t *flags, const int32_t *bstate, dev_metrics *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  /* agents per behaviour state: a warp's vote per state, one atomic each */
  if (bstate) {
    int st = i < n ? bstate[i] : -1;
    for (int k = 0; k < c.prm.orca.n_bstates; ++k) {
      unsigned int in = __ballot_sync(0xffffffffu, st == k);
      if ((threadIdx.x & 31) == 0 && in) atomicAdd(&out->in_state[k], (unsigned long long)__popc(in));
    }
  }
  unsigned long long at_goal = 0, pairs = 0, walls = 0, speed = 0, fallbacks = 0, forced = 0;
  unsigned int mov = 0, mrel = 0, mwall = 0;
  if (i < n) {
    thr_agent_metrics m = thr_agent_measure(&c, i);
    at_goal = (flags[i] & THR_FLAG_AT_GOAL) ? 1 : 0;
    fallbacks = (flags[i] & THR_FLAG_LP_FALLBACK) ? 1 : 0;
    forced = (flags[i] & THR_FLAG_FORCED) ? 1 : 0;
    pairs = (unsigned long long)m.overlaps;
    walls = m.wall_overlap > 0.0f ? 1 : 0;
    speed = (unsigned long long)thr_speed_quanta(thr_agent_speed(&c, i));
    mov = __float_as_uint(m.max_overlap);
    mrel = __float_as_uint(m.max_overlap_rel);
    mwall = __float_as_uint(m.wall_overlap);
  }
  warp_sum(&at_goal);
  warp_sum(&pairs);
  warp_sum(&walls);
  warp_sum(&speed);
  warp_sum(&fallbacks);
  warp_sum(&forced);
  warp_max(&mov);
  warp_max(&mrel);
  warp_max(&mwall);
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&out->at_goal, at_goal);
    atomicAdd(&out->pairs, pairs);
    atomicAdd(&out->walls, walls);
    atomicAdd(&out->speed_q, speed);
    atomicAdd(&out->fallbacks, fallbacks);
    atomicAdd(&out->forced, forced);
    atomicMax(&out->max_ov, mov);
    atomicMax(&out->max_rel, mrel);
    atomicMax(&out->max_wall, mwall);
  }
}

/* Per formation: squared distances to the SRDs (quanta) and broken
 * formations, as integer atomics (order-independent sums). */
__global__ void k_formation_measure(const thr_ctx c, int n, int nf, unsigned long long *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int f = c.formation[i];
  if (f < 0) return;
  atomicAdd(&out[f], (unsigned long long)thr_agent_formation_error(&c, i, f));
  if (!thr_agent_formation_holds(&c, i)) atomicAdd(&out[nf + f], 1ull);
}

/* ---- launchers (called by cuda_backend.cu) ---------------------------------- */

void thr_cuda_predict(cuda_state *s, float time) {
  s->base.ev.time = time;
  int n = (int)s->a.n_owned;
  if (!n) { /* no kernel to reset the health key */
    CUDA_CHECK(cudaMemsetAsync(s->d_health, 0xff, sizeof(uint64_t), s->stream));
    return;
  }
  k_predict<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>(thr_cuda_ctx(s), n, s->a,
                                                              (unsigned long long *)s->d_health);
  CUDA_LAUNCHED("predict");
}

/* A BEHAVIOUR pass. */
static void behaviour_pass(cuda_state *s, int kind, thr_part_range r) {
  if (!r.n) return;
  switch (kind) {
#define THR_X(NAME, label, stage, fn, fn3, on, fwd)                                                          \
  THR_IF_BEHAVIOUR_##stage(case THR_PASS_##NAME                                                         \
                           : k_behaviour<THR_PASS_##NAME><<<thr_blocks(r.n), THR_CUDA_BLOCK, 0, s->stream>>>( \
                                 thr_cuda_ctx(s), r, thr_pass_behaviour_out(kind, &s->a));                                      \
                           break;)
    THR_PASSES(THR_X)
#undef THR_X
    default:
      thr_backend_fail(s->self, "pass %d is not a behaviour pass", kind);
  }
}

/* An UPDATE pass. */
static void update_pass(cuda_state *s, int kind, thr_part_range r) {
  if (!r.n) return;
  switch (kind) {
#define THR_X(NAME, label, stage, fn, fn3, on, fwd)                                                       \
  THR_IF_UPDATE_##stage(case THR_PASS_##NAME                                                         \
                        : k_update<THR_PASS_##NAME><<<thr_blocks(r.n), THR_CUDA_BLOCK, 0, s->stream>>>( \
                              thr_cuda_ctx(s), r, s->a);                                            \
                        break;)
    THR_PASSES(THR_X)
#undef THR_X
    default:
      thr_backend_fail(s->self, "pass %d is not an update pass", kind);
  }
}

/* A PLAN pass. */
static void plan_pass(cuda_state *s, int kind, thr_part_range r) {
  if (!r.n) return;
  switch (kind) {
#define THR_X(NAME, label, stage, fn, fn3, on, fwd)                                                     \
  THR_IF_PLAN_##stage(case THR_PASS_##NAME                                                         \
                      : if (s->base.prm.dim3) k_plan3<THR_PASS_##NAME>                              \
                            <<<thr_blocks(r.n), THR_CUDA_BLOCK, 0, s->stream>>>(thr_cuda_ctx(s), r, s->a, s->p2, s->pz2); \
                        else k_plan<THR_PASS_##NAME><<<thr_blocks(r.n), THR_CUDA_BLOCK, 0, s->stream>>>( \
                            thr_cuda_ctx(s), r, s->a, s->p2);                                      \
                      break;)
    THR_PASSES(THR_X)
#undef THR_X
    default:
      thr_backend_fail(s->self, "pass %d is not a plan pass", kind);
  }
}

/* The step's neighbour lists of a part's agents (step_lists.h), at the
 * part's first solver pass (x^n is fixed from then on; boundary agents read
 * ghosts, which have arrived by their part). */
static void build_lists(cuda_state *s, int part, thr_part_range r) {
  thr_step_lists *l = &s->lists;
  if (s->a.n_owned > l->rows) { /* lists of owned agents only */
    CUDA_CHECK(cudaStreamSynchronize(s->stream));
    if (l->lr) CUDA_CHECK(cudaFree(l->lr));
    if (l->ct) CUDA_CHECK(cudaFree(l->ct));
    if (l->count) CUDA_CHECK(cudaFree(l->count));
    l->rows = s->a.n_owned + s->a.n_owned / 32 + 256;
    CUDA_CHECK(cudaMalloc(&l->lr, l->rows * THR_LR_CAP * sizeof(thr_list_entry)));
    CUDA_CHECK(cudaMalloc(&l->ct, l->rows * THR_CT_CAP * sizeof(thr_list_entry)));
    CUDA_CHECK(cudaMalloc(&l->count, l->rows * sizeof(int)));
  }
  if (r.n) {
    k_step_lists<<<thr_blocks(r.n), THR_CUDA_BLOCK, 0, s->stream>>>(thr_cuda_ctx(s), r, *l);
    CUDA_LAUNCHED("step_lists");
  }
  l->valid |= 1 << part;
}

/* A SOLVER pass; the long-range and contact groups read the step's lists. */
static void solver_pass(cuda_state *s, int kind, thr_part_range r, int part) {
  if (thr_lists_due(&s->lists, kind, part, &s->base.prm)) build_lists(s, part, r);
  if (!r.n) return;
  thr_ctx c = thr_cuda_ctx(s);
  if (thr_lists_used_by(kind, &c.prm)) thr_lists_bind(&c, &s->lists, 1);
  /* 3D agents: the pass's 3D instance, which also writes the altitude */
#define THR_X(NAME, label, stage, fn, fn3, on, fwd)                                                           \
  THR_IF_SOLVER_##stage(case THR_PASS_##NAME : if (c.prm.dim3) k_solver3<THR_PASS_##NAME>                    \
                            <<<thr_blocks(r.n), THR_CUDA_BLOCK, 0, s->stream>>>(c, r, s->p2, s->pz2);         \
                        else k_solver<THR_PASS_##NAME><<<thr_blocks(r.n), THR_CUDA_BLOCK, 0, s->stream>>>(c, r, s->p2); \
                        break;)
  switch (kind) {
    THR_PASSES(THR_X)
    default:
      thr_backend_fail(s->self, "pass %d is not a solver pass", kind);
  }
#undef THR_X
  CUDA_LAUNCHED(thr_pass_label(kind));
}

void thr_cuda_pass(cuda_state *s, int kind, int part) {
  thr_part_range r = thr_parts_select(&s->parts, s->a.n_owned, part);
  int dim3 = s->base.prm.dim3;
  switch (thr_pass_stage(kind)) {
    case THR_STAGE_BEHAVIOUR:
      behaviour_pass(s, kind, r);
      break;
    case THR_STAGE_UPDATE:
      update_pass(s, kind, r);
      break;
    case THR_STAGE_PLAN:
      plan_pass(s, kind, r);
      break;
    case THR_STAGE_STABILITY:
      if (r.n && dim3)
        k_stability3<<<thr_blocks(r.n), THR_CUDA_BLOCK, 0, s->stream>>>(thr_cuda_ctx(s), r, s->x2, s->p2, s->z2,
                                                                        s->pz2);
      else if (r.n)
        k_stability<<<thr_blocks(r.n), THR_CUDA_BLOCK, 0, s->stream>>>(thr_cuda_ctx(s), r, s->x2, s->p2);
      break;
    case THR_STAGE_SOLVER:
      solver_pass(s, kind, r, part);
      break;
    case THR_STAGE_VELOCITY:
      if (r.n && dim3)
        k_velocity3<<<thr_blocks(r.n), THR_CUDA_BLOCK, 0, s->stream>>>(thr_cuda_ctx(s), r, s->a.vnew, s->a.vnewz);
      else if (r.n)
        k_velocity<<<thr_blocks(r.n), THR_CUDA_BLOCK, 0, s->stream>>>(thr_cuda_ctx(s), r, s->a.vnew);
      break;
    case THR_STAGE_FINAL:
      if (r.n && dim3) {
        thr_ctx c = thr_cuda_ctx(s);
        c.v = s->a.vnew;
        c.vz = s->a.vnewz;
        k_finalize3<<<thr_blocks(r.n), THR_CUDA_BLOCK, 0, s->stream>>>(c, r, s->a, (unsigned long long *)s->d_health);
      } else if (r.n) {
        thr_ctx c = thr_cuda_ctx(s);
        c.v = s->a.vnew;
        k_finalize<<<thr_blocks(r.n), THR_CUDA_BLOCK, 0, s->stream>>>(
            c, r, s->a, (unsigned long long *)s->d_health, s->ev.on, s->ev.line_cross);
      }
      if (part != THR_PART_INTERIOR) thr_cuda_health_post(s);
      break;
    default:
      thr_backend_fail(s->self, "unknown pass %d", kind);
  }
  CUDA_LAUNCHED(thr_pass_label(kind));
  thr_pass_commit(&s->a, &s->x2, &s->p2, &s->z2, &s->pz2, s->base.prm.dim3, kind, part);
}

/* Interior agents (cell inside `interior`) first, then boundary agents,
 * each in storage order, into part_list. */
__global__ void k_interior_flags(int n, thr_grid_view g, const thr_vec2 *p, thr_window interior, int *flag) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  flag[i] = thr_window_contains(interior, thr_cell_coord(p[i].x, g.ox, g.cell, g.gnx),
                                thr_cell_coord(p[i].y, g.oy, g.cell, g.gny));
}

__global__ void k_split_parts(int n, int n_interior, const int *flag, const int *pos, int *list) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  list[flag[i] ? pos[i] : n_interior + i - pos[i]] = i;
}

int thr_cuda_set_interior(cuda_state *s, thr_window interior) {
  size_t n = s->a.n_owned;
  if (n > s->parts.cap) {
    CUDA_CHECK(cudaStreamSynchronize(s->stream));
    if (s->parts.list) CUDA_CHECK(cudaFree(s->parts.list));
    s->parts.cap = s->a.cap > n ? s->a.cap : n;
    CUDA_CHECK(cudaMalloc(&s->parts.list, s->parts.cap * sizeof(int)));
  }
  s->parts.n_interior = 0;
  if (n) {
    size_t al = (n * sizeof(int) + 255) & ~(size_t)255;
    char *st = (char *)thr_cuda_stage(s, 2 * al);
    int *flag = (int *)st, *pos = (int *)(st + al);
    k_interior_flags<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, s->base.grid, s->a.p, interior, flag);
    CUDA_LAUNCHED("interior_flags");
    thr_cuda_exclusive_scan(s, flag, pos, n);
    int last_pos = 0, last_flag = 0;
    CUDA_CHECK(cudaMemcpyAsync(&last_pos, pos + n - 1, sizeof(int), cudaMemcpyDeviceToHost, s->stream));
    CUDA_CHECK(cudaMemcpyAsync(&last_flag, flag + n - 1, sizeof(int), cudaMemcpyDeviceToHost, s->stream));
    CUDA_CHECK(cudaStreamSynchronize(s->stream));
    s->parts.n_interior = (size_t)(last_pos + last_flag);
    k_split_parts<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, (int)s->parts.n_interior, flag, pos,
                                                                    s->parts.list);
    CUDA_LAUNCHED("split_parts");
  }
  s->parts.valid = 1;
  return 0;
}

/* ---- health: the FINALIZE pass's non-finite key, read without stalling --- */

/* After a complete FINALIZE: copy the key to page-locked memory and mark
 * the copy with an event (the next predict resets the key); slots
 * alternate, so the previous step's copy stays readable while this one is
 * in flight. */
void thr_cuda_health_post(cuda_state *s) {
  int k = s->health_next;
  CUDA_CHECK(cudaMemcpyAsync(&s->h_health[k], s->d_health, sizeof(uint64_t), cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaEventRecord(s->health_event[k], s->stream));
  s->health_posted[k] = 1;
  s->health_last = k;
  s->health_next = 1 - k;
}

uint64_t thr_cuda_health(cuda_state *s, int wait, int *late) {
  int k = s->health_last;
  if (late) *late = 0;
  if (k < 0) return THR_ALL_FINITE;
  if (!wait && cudaEventQuery(s->health_event[k]) == cudaErrorNotReady) {
    /* the last copy is still in flight: report the one before it */
    k = 1 - k;
    if (late) *late = 1;
    if (!s->health_posted[k]) return THR_ALL_FINITE;
  }
  CUDA_CHECK(cudaEventSynchronize(s->health_event[k]));
  return s->h_health[k];
}

int thr_cuda_formation_measure(cuda_state *s, int nf, int64_t *sq_q, int64_t *broken) {
  int n = (int)s->a.n_owned;
  size_t bytes = 2 * (size_t)nf * sizeof(unsigned long long);
  unsigned long long *d = (unsigned long long *)thr_cuda_stage2(s, bytes);
  CUDA_CHECK(cudaMemsetAsync(d, 0, bytes, s->stream));
  if (n) {
    k_formation_measure<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>(thr_cuda_ctx(s), n, nf, d);
    CUDA_LAUNCHED("formation_measure");
  }
  unsigned long long *h = (unsigned long long *)malloc(bytes + 1);
  if (!h) return thr_backend_error(s->self, "out of memory measuring %d formations", nf);
  CUDA_CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  for (int f = 0; f < nf; ++f) {
    sq_q[f] += (int64_t)h[f];
    broken[f] += (int64_t)h[nf + f];
  }
  free(h);
  return 0;
}

void thr_cuda_measure(cuda_state *s, thr_metrics_partial *out) {
  int n = (int)s->a.n_owned;
  if (!s->d_metrics) CUDA_CHECK(cudaMalloc(&s->d_metrics, sizeof(dev_metrics)));
  dev_metrics *d = (dev_metrics *)s->d_metrics;
  CUDA_CHECK(cudaMemsetAsync(d, 0, sizeof(dev_metrics), s->stream));
  if (n) {
    const int32_t *bstate = s->base.prm.orca.n_bstates > 0 ? s->a.bstate : NULL;
    k_measure<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>(thr_cuda_ctx(s), n, s->a.flags, bstate, d);
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
  out->lp_fallbacks = (long)h.fallbacks;
  out->forced = (long)h.forced;
  for (int k = 0; k < THR_MAX_BSTATES; ++k) out->in_state[k] = (long)h.in_state[k];
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
