/* The CUDA backend: the operations table of backend.h. Agent data stay on
 * the device; the host sees them only for output, metrics and the
 * decomposition's small transfers. Each operation is an NVTX range, so a
 * profile (nsys, ncu) shows the phases by name. */
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_state.cuh"

static cuda_state *state(thr_backend *b) { return (cuda_state *)b->impl; }

struct nvtx_range {
  explicit nvtx_range(const char *name) { nvtxRangePushA(name); }
  ~nvtx_range() { nvtxRangePop(); }
};

template <typename T>
static T *upload_array(cuda_state *s, const T *h, size_t n) {
  T *d = NULL;
  CUDA_CHECK(cudaMalloc(&d, (n ? n : 1) * sizeof(T)));
  if (n && h) CUDA_CHECK(cudaMemcpy(d, h, n * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

static void free_world(cuda_state *s) {
  void *ptrs[] = {s->d_vfirst, s->d_closed, s->d_obs_offset, s->d_obs_items, s->d_verts,
                  s->d_goals,  s->d_set_first, s->d_set_items, s->d_offset, s->d_count, s->d_bstates, s->d_btrans};
  for (void *p : ptrs)
    if (p) cudaFree(p);
  s->d_vfirst = s->d_closed = s->d_obs_offset = s->d_obs_items = s->d_set_first = s->d_set_items = NULL;
  s->d_offset = s->d_count = NULL;
  s->d_verts = NULL;
  s->d_goals = NULL;
  s->d_bstates = NULL;
  s->d_btrans = NULL;
}

static int cuda_set_world(thr_backend *b, const thr_world *w, const thr_params *prm) {
  nvtx_range r("set_world");
  cuda_state *s = state(b);
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  free_world(s);
  float time = s->base.ev.time; /* predict's; a re-partition comes later in the step */
  s->base = thr_ctx_static(w, prm);
  if (!s->a.cap) s->a.absent = thr_fields_absent(prm); /* before the first agents arrive */
  s->max_radius = w->max_radius;
  s->ncell = (size_t)w->window.nx * (size_t)w->window.ny;
  s->n_obstacles = w->n_obstacles;
  s->d_vfirst = upload_array(s, w->obs_vfirst, (size_t)w->n_obstacles + 1);
  s->d_closed = upload_array(s, w->obs_closed, (size_t)w->n_obstacles);
  s->d_verts = upload_array(s, w->verts, (size_t)w->n_verts);
  s->d_obs_offset = upload_array(s, w->obs_cell_offset, s->ncell + 1);
  s->obs_items = (size_t)w->obs_cell_offset[s->ncell];
  s->d_obs_items = upload_array(s, w->obs_cell_items, s->obs_items);
  s->n_goals = w->n_goals;
  s->n_sets = w->n_sets;
  s->d_goals = upload_array(s, w->goals, (size_t)w->n_goals);
  s->d_set_first = upload_array(s, w->set_first, (size_t)w->n_sets + 1);
  s->d_set_items = upload_array(s, w->set_items, (size_t)(w->n_sets ? w->set_first[w->n_sets] : 0));
  thr_obstacle_view ov = {s->n_obstacles, s->d_vfirst, s->d_closed, s->d_verts, s->d_obs_offset, s->d_obs_items};
  thr_goal_view gv = {s->n_goals, s->n_sets, s->d_goals, s->d_set_first, s->d_set_items};
  s->base.obs = ov;
  s->base.goals = gv;
  s->d_bstates = upload_array(s, w->bstates, (size_t)THR_MAX_BSTATES);
  s->d_btrans = upload_array(s, w->btrans, (size_t)THR_MAX_BTRANS);
  s->base.bstates = s->d_bstates;
  s->base.btrans = s->d_btrans;
  s->base.forms = s->d_forms; /* set_formations' table outlives a new window */
  s->d_offset = upload_array<int>(s, NULL, s->ncell + 1);
  s->d_count = upload_array<int>(s, NULL, s->ncell + 1);
  CUDA_CHECK(cudaMemset(s->d_offset, 0, (s->ncell + 1) * sizeof(int)));
  s->order_is_identity = 0;
  thr_cuda_evac_set_world(s, w);
  s->base.ev.time = time;
  return 0;
}

static int cuda_set_agents(thr_backend *b, const thr_agents *owned) { return thr_cuda_upload_owned(state(b), owned); }
static int cuda_get_agents(thr_backend *b, thr_agents *owned) { return thr_cuda_download_owned(state(b), owned); }
static int cuda_view_begin(thr_backend *b, thr_field_mask mask) { return thr_cuda_view_begin(state(b), mask); }
static int cuda_view_end(thr_backend *b, thr_agents *view) { return thr_cuda_view_end(state(b), view); }
static int cuda_copy_out(thr_backend *b, thr_agents *all, thr_field_mask mask) {
  return thr_cuda_copy_out(state(b), all, mask);
}
static size_t cuda_n_owned(thr_backend *b) { return state(b)->a.n_owned; }

/* A few bytes a step: from pageable memory, which the copy stages before it
 * returns, in stream order after the last step's kernels. */
static int cuda_set_formations(thr_backend *b, const thr_formation_state *st, int n) {
  cuda_state *s = state(b);
  if (n > s->forms_cap) {
    CUDA_CHECK(cudaStreamSynchronize(s->stream));
    if (s->d_forms) CUDA_CHECK(cudaFree(s->d_forms));
    CUDA_CHECK(cudaMalloc(&s->d_forms, (size_t)n * sizeof *st));
    s->forms_cap = n;
  }
  if (n) CUDA_CHECK(cudaMemcpyAsync(s->d_forms, st, (size_t)n * sizeof *st, cudaMemcpyHostToDevice, s->stream));
  s->base.forms = s->d_forms;
  return 0;
}

static int cuda_formation_measure(thr_backend *b, int n, int64_t *sq_q, int64_t *broken) {
  return thr_cuda_formation_measure(state(b), n, sq_q, broken);
}

static void cuda_predict(thr_backend *b, float time) {
  nvtx_range r("predict");
  thr_cuda_predict(state(b), time);
}
static int cuda_evac_collect(thr_backend *b, thr_evac_collect *out) {
  nvtx_range r("evac_collect");
  return thr_cuda_evac_collect(state(b), out);
}
static int cuda_evac_assign(thr_backend *b, const thr_stage_assign *as, size_t n) {
  return thr_cuda_evac_assign(state(b), as, n);
}
static int cuda_insert(thr_backend *b, const thr_agent_rec *recs, size_t n) {
  return thr_cuda_append_owned(state(b), recs, n);
}
static int cuda_probe_free(thr_backend *b, const thr_vec2 *pts, const float *radius, size_t n,
                           unsigned char *out) {
  return thr_cuda_probe_free(state(b), pts, radius, n, out);
}
static int cuda_evac_measure(thr_backend *b, thr_evac_counts *out) {
  nvtx_range r("evac_measure");
  return thr_cuda_evac_measure(state(b), out);
}
static int cuda_route_setup(thr_backend *b, const thr_route_setup *rs) {
  nvtx_range r("route_setup");
  return thr_cuda_route_setup(state(b), rs);
}
static int cuda_route_count(thr_backend *b, int32_t *host) {
  nvtx_range r("route_count");
  return thr_cuda_route_count(state(b), host);
}
static int cuda_route_count_get(thr_backend *b, int32_t *host) { return thr_cuda_route_count_get(state(b), host); }
static int cuda_route_set_counts(thr_backend *b, const int32_t *host) {
  return thr_cuda_route_set_counts(state(b), host);
}
static int cuda_route_basins(thr_backend *b, int64_t *basins) {
  nvtx_range r("route_basins");
  return thr_cuda_route_basins(state(b), basins);
}
static int cuda_route_solve(thr_backend *b, const float *exit_offset, long *rounds) {
  nvtx_range r("route_solve");
  return thr_cuda_route_solve(state(b), exit_offset, rounds);
}

__global__ void k_iota(int n, int *a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = i;
}

/* Owned agents into (cell, id) order; ghosts are dropped (the
 * decomposition sets new ones). Without ghosts the index is then complete:
 * the offsets stay valid and the order is the identity. */
static void cuda_sort_owned(thr_backend *b) {
  nvtx_range r("sort_owned");
  cuda_state *s = state(b);
  size_t n = s->a.n_owned;
  s->a.n = n;
  thr_cuda_assign_cells(s, 0, n);
  thr_cuda_cell_sort(s, n);
  thr_cuda_gather_fields(s, s->order, n);
  thr_cuda_assign_cells(s, 0, n);
  if (n) {
    k_iota<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, s->order);
    CUDA_LAUNCHED("iota");
  }
  s->order_is_identity = 1;
  s->lists.valid = 0;
  s->parts.valid = 0;
}

static void cuda_build_index(thr_backend *b) {
  nvtx_range r("build_index");
  cuda_state *s = state(b);
  s->lists.valid = 0;
  if (s->order_is_identity && s->a.n == s->a.n_owned) return;
  /* all cells: migration or a new window may have changed owned ones */
  thr_cuda_assign_cells(s, 0, s->a.n);
  thr_cuda_cell_sort(s, s->a.n);
  s->order_is_identity = 0;
}

static void cuda_pass(thr_backend *b, int kind, int part) {
  nvtx_range r(thr_pass_label(kind));
  thr_cuda_pass(state(b), kind, part);
}
static int cuda_set_interior(thr_backend *b, thr_window interior) {
  nvtx_range r("set_interior");
  return thr_cuda_set_interior(state(b), interior);
}
static int cuda_halo_device_mode(thr_backend *b, int on) {
  state(b)->device_halo = on;
  return on;
}
/* Stream mode: a second stream carries the messages, so that the interior
 * part of the next pass runs beside them; two events order it against the
 * main stream (pack before send, receive before unpack). */
static int cuda_halo_stream_mode(thr_backend *b, int on, unsigned char uuid[16]) {
  cuda_state *s = state(b);
  if (on && !s->comm_stream) {
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, s->device));
    memcpy(uuid, prop.uuid.bytes, 16);
    CUDA_CHECK(cudaStreamCreateWithFlags(&s->comm_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&s->comm_ready, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&s->comm_done, cudaEventDisableTiming));
  }
  s->stream_halo = on;
  s->device_halo = on;
  return on;
}
static void *cuda_halo_stream_begin(thr_backend *b) {
  cuda_state *s = state(b);
  CUDA_CHECK(cudaEventRecord(s->comm_ready, s->stream));
  CUDA_CHECK(cudaStreamWaitEvent(s->comm_stream, s->comm_ready, 0));
  return (void *)s->comm_stream;
}
static void cuda_halo_stream_end(thr_backend *b) {
  cuda_state *s = state(b);
  CUDA_CHECK(cudaEventRecord(s->comm_done, s->comm_stream));
  CUDA_CHECK(cudaStreamWaitEvent(s->stream, s->comm_done, 0));
}
static void cuda_measure(thr_backend *b, thr_metrics_partial *out) {
  nvtx_range r("measure");
  thr_cuda_measure(state(b), out);
}
static uint64_t cuda_nonfinite(thr_backend *b, int wait, int *late) { return thr_cuda_health(state(b), wait, late); }
static void cuda_sync(thr_backend *b) {
  cuda_state *s = state(b);
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
}

static int cuda_owned_cells(thr_backend *b, int32_t *cells) { return thr_cuda_owned_cells(state(b), cells); }
static size_t cuda_select_outside(thr_backend *b, thr_window skip, const thr_window *boxes, int nbox, int *idx,
                                  int32_t *cells, uint64_t *mask) {
  nvtx_range r("select_outside");
  return thr_cuda_select_outside(state(b), skip, boxes, nbox, idx, cells, mask);
}
static void cuda_id_checksum(thr_backend *b, uint64_t *sum, uint64_t *sq) {
  thr_cuda_id_checksum(state(b), sum, sq);
}
static int cuda_extract_owned(thr_backend *b, const int *idx, size_t n, thr_agent_rec *recs) {
  nvtx_range r("migrate_out");
  return thr_cuda_extract_owned(state(b), idx, n, recs);
}
static int cuda_append_owned(thr_backend *b, const thr_agent_rec *recs, size_t n) {
  nvtx_range r("migrate_in");
  return thr_cuda_append_owned(state(b), recs, n);
}
static int cuda_pack_ghosts(thr_backend *b, const int *idx, size_t n, thr_ghost_rec *out) {
  nvtx_range r("pack_ghosts");
  return thr_cuda_pack_ghosts(state(b), idx, n, out);
}
static int cuda_set_ghosts(thr_backend *b, const thr_ghost_rec *g, size_t n) {
  nvtx_range r("set_ghosts");
  return thr_cuda_set_ghosts(state(b), g, n);
}
static int cuda_set_halo_send(thr_backend *b, const int *idx, size_t n) {
  return thr_cuda_set_halo_send(state(b), idx, n);
}
static void *cuda_halo_buffer(thr_backend *b, int which, size_t bytes) {
  return thr_cuda_halo_buffer(state(b), which, bytes);
}
static int cuda_exchange_select(thr_backend *b, int kind, thr_window skip, const thr_window *boxes, int nbox,
                                size_t *counts, uint64_t *sums) {
  nvtx_range r(kind == THR_EXCHANGE_MIGRATE ? "migrate_select" : "ghost_select");
  return thr_cuda_exchange_select(state(b), kind, skip, boxes, nbox, counts, sums);
}
static int cuda_exchange_copy_out(thr_backend *b, size_t first, size_t n, thr_agent_rec *recs) {
  return thr_cuda_exchange_copy_out(state(b), first, n, recs);
}
static int cuda_exchange_receive(thr_backend *b, int kind, size_t n) {
  nvtx_range r(kind == THR_EXCHANGE_MIGRATE ? "migrate_in" : "set_ghosts");
  return thr_cuda_exchange_receive(state(b), kind, n);
}
static void cuda_pack_halo(thr_backend *b, thr_field_mask mask, void *buf) {
  nvtx_range r("pack_halo");
  thr_cuda_pack_halo(state(b), mask, buf);
}
static void cuda_unpack_halo(thr_backend *b, thr_field_mask mask, const void *buf) {
  nvtx_range r("unpack_halo");
  thr_cuda_unpack_halo(state(b), mask, buf);
}

/* Everything this backend allocated on the device (agents, scratch, grid,
 * world, staging). */
static size_t cuda_memory_bytes(thr_backend *b) {
  cuda_state *s = state(b);
  return s->a.cap * thr_cuda_bytes_per_agent(s) + s->lists.rows * thr_lists_bytes_per_row() +
         3 * (s->ncell + 1) * sizeof(int) + s->obs_items * sizeof(int) + s->scan_tmp_bytes + s->stage_cap +
         s->send_cap * sizeof(int) + thr_cuda_exchange_bytes(s) + s->fused_cap;
}

static void cuda_destroy(thr_backend *b) {
  if (!b) return;
  cuda_state *s = state(b);
  cudaStreamSynchronize(s->stream);
  free_world(s);
  thr_cuda_evac_free(s);
  thr_cuda_route_free(s);
  if (s->d_stage2) cudaFree(s->d_stage2);
  thr_cuda_free_agents(s);
  if (s->d_scan_tmp) cudaFree(s->d_scan_tmp);
  if (s->lists.lr) cudaFree(s->lists.lr);
  if (s->lists.ct) cudaFree(s->lists.ct);
  if (s->lists.count) cudaFree(s->lists.count);
  if (s->comm_stream) {
    cudaStreamSynchronize(s->comm_stream);
    cudaStreamDestroy(s->comm_stream);
    cudaEventDestroy(s->comm_ready);
    cudaEventDestroy(s->comm_done);
  }
  if (s->d_metrics) cudaFree(s->d_metrics);
  if (s->d_forms) cudaFree(s->d_forms);
  if (s->d_health) cudaFree(s->d_health);
  if (s->h_health) cudaFreeHost(s->h_health);
  for (int k = 0; k < 2; ++k)
    if (s->health_event[k]) cudaEventDestroy(s->health_event[k]);
  if (s->d_send_idx) cudaFree(s->d_send_idx);
  if (s->d_stage) cudaFree(s->d_stage);
  if (s->h_stage) cudaFreeHost(s->h_stage);
  if (s->h_view) cudaFreeHost(s->h_view);
  if (s->view_event) cudaEventDestroy(s->view_event);
  for (int k = 0; k < 2; ++k) {
    if (s->h_halo[k]) cudaFreeHost(s->h_halo[k]);
    if (s->d_halo[k]) cudaFree(s->d_halo[k]);
  }
  if (s->parts.list) cudaFree(s->parts.list);
  thr_cuda_exchange_free(s);
  cudaStreamDestroy(s->stream);
  free(s);
  free(b);
}

static const thr_backend_ops cuda_ops = {
    .name = "cuda",
    .destroy = cuda_destroy,
    .set_world = cuda_set_world,
    .set_agents = cuda_set_agents,
    .get_agents = cuda_get_agents,
    .copy_out = cuda_copy_out,
    .n_owned = cuda_n_owned,
    .view_begin = cuda_view_begin,
    .view_end = cuda_view_end,
    .set_formations = cuda_set_formations,
    .predict = cuda_predict,
    .sort_owned = cuda_sort_owned,
    .build_index = cuda_build_index,
    .pass = cuda_pass,
    .measure = cuda_measure,
    .formation_measure = cuda_formation_measure,
    .nonfinite = cuda_nonfinite,
    .evac_collect = cuda_evac_collect,
    .evac_assign = cuda_evac_assign,
    .insert = cuda_insert,
    .probe_free = cuda_probe_free,
    .evac_measure = cuda_evac_measure,
    .route_setup = cuda_route_setup,
    .route_count = cuda_route_count,
    .route_count_get = cuda_route_count_get,
    .route_set_counts = cuda_route_set_counts,
    .route_basins = cuda_route_basins,
    .route_solve = cuda_route_solve,
    .sync = cuda_sync,
    .memory_bytes = cuda_memory_bytes,
};

static const thr_backend_comm_ops cuda_comm_ops = {
    .owned_cells = cuda_owned_cells,
    .select_outside = cuda_select_outside,
    .id_checksum = cuda_id_checksum,
    .extract_owned = cuda_extract_owned,
    .append_owned = cuda_append_owned,
    .pack_ghosts = cuda_pack_ghosts,
    .set_ghosts = cuda_set_ghosts,
    .set_halo_send = cuda_set_halo_send,
    .set_interior = cuda_set_interior,
    .halo_device_mode = cuda_halo_device_mode,
    .halo_stream_mode = cuda_halo_stream_mode,
    .halo_stream_begin = cuda_halo_stream_begin,
    .halo_stream_end = cuda_halo_stream_end,
    .halo_buffer = cuda_halo_buffer,
    .pack_halo = cuda_pack_halo,
    .unpack_halo = cuda_unpack_halo,
    .exchange_select = cuda_exchange_select,
    .exchange_copy_out = cuda_exchange_copy_out,
    .exchange_receive = cuda_exchange_receive,
};

extern "C" int thr_cuda_device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError(); /* clear: no driver or no device */
    return 0;
  }
  return n;
}

extern "C" thr_backend *thr_backend_cuda_create(int local_rank, char *err, size_t errlen) {
  int count = thr_cuda_device_count();
  if (count <= 0) {
    snprintf(err, errlen, "--backend cuda: no CUDA GPU is visible on this node (check CUDA_VISIBLE_DEVICES and "
                          "the driver)");
    return NULL;
  }
  int device = local_rank % count;
  if (cudaSetDevice(device) != cudaSuccess) {
    snprintf(err, errlen, "--backend cuda: cannot use GPU %d", device);
    return NULL;
  }
  thr_backend *b = (thr_backend *)calloc(1, sizeof *b);
  cuda_state *s = (cuda_state *)calloc(1, sizeof *s);
  if (!b || !s) {
    free(b);
    free(s);
    snprintf(err, errlen, "out of host memory");
    return NULL;
  }
  s->device = device;
  s->self = b;
  b->ops = &cuda_ops;
  b->comm = &cuda_comm_ops;
  b->impl = s;
  thr_cuda_plan_scratch(s);
  s->health_last = -1;
  if (cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking) != cudaSuccess ||
      cudaMalloc(&s->d_health, sizeof(uint64_t)) != cudaSuccess ||
      cudaMemset(s->d_health, 0xff, sizeof(uint64_t)) != cudaSuccess ||
      cudaMallocHost((void **)&s->h_health, 2 * sizeof(uint64_t)) != cudaSuccess ||
      cudaEventCreateWithFlags(&s->health_event[0], cudaEventDisableTiming) != cudaSuccess ||
      cudaEventCreateWithFlags(&s->health_event[1], cudaEventDisableTiming) != cudaSuccess) {
    cudaGetLastError();
    snprintf(err, errlen, "--backend cuda: cannot set up GPU %d (stream, events, memory)", device);
    free(s);
    free(b);
    return NULL;
  }
  return b;
}
