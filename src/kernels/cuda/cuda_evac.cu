/* Evacuation on the GPU: device copies of the world's exits, stages,
 * slots, lines, areas and distance fields; removing agents that left and
 * handing out stage events (compaction in place); stage assignments by id;
 * probing spawn points; measurement counts. The per-agent decisions are
 * the shared functions of ../evac.h and ../passes.h. */
#include <stdlib.h>
#include <string.h>

#include "cuda_state.cuh"

#define EVAC_PTRS(X)                                                                                               \
  X(exit_vfirst, int) X(exit_verts, thr_vec2) X(exit_offset, int) X(exit_items, int) X(stages, thr_stage_view)       \
  X(slots, thr_vec2) X(lines, thr_vec2) X(fields, float) X(ref_fields, float) X(area_vfirst, int)                   \
  X(area_verts, thr_vec2) X(seams, thr_seam) X(zones, thr_zone) X(zone_verts, thr_vec2)

void thr_cuda_evac_free(cuda_state *s) {
#define THR_X(name, type) \
  if (s->ev.name) cudaFree(s->ev.name);
  EVAC_PTRS(THR_X)
#undef THR_X
  if (s->ev.line_cross) cudaFree(s->ev.line_cross);
  if (s->ev.counts) cudaFree(s->ev.counts);
  free(s->ev.exited);
  free(s->ev.events);
  memset(&s->ev, 0, sizeof s->ev);
}

template <typename T>
static T *upload(cuda_state *s, const T *h, size_t n) {
  T *d = NULL;
  CUDA_CHECK(cudaMalloc(&d, (n ? n : 1) * sizeof(T)));
  if (n && h) CUDA_CHECK(cudaMemcpy(d, h, n * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

/* The world's evacuation parts on the device, and the view kernels read. */
void thr_cuda_evac_set_world(cuda_state *s, const thr_world *w) {
  /* the line crossings counted since the last measurement outlive a new
   * window (a re-partition between two metrics rows) */
  unsigned long long *crossings = s->ev.line_cross;
  s->ev.line_cross = NULL;
  float *kept_fields = s->route.on && s->ev.fields ? s->ev.fields : NULL;
  if (kept_fields) s->ev.fields = NULL;
  thr_cuda_evac_free(s);
  s->ev.on = thr_world_has_evacuation(w);
  s->base.ev = thr_world_evac_view(w);
  if (!s->ev.on) {
    if (crossings) cudaFree(crossings);
    if (kept_fields) cudaFree(kept_fields);
    return;
  }
  size_t cells = (size_t)w->window.nx * (size_t)w->window.ny;
  s->ev.exit_vfirst = upload(s, w->exit_vfirst, (size_t)w->n_exits + 1);
  s->ev.exit_verts = upload(s, w->exit_verts, (size_t)(w->n_exits ? w->exit_vfirst[w->n_exits] : 0));
  s->ev.exit_offset = upload(s, w->n_exits ? w->exit_cell_offset : NULL, w->n_exits ? cells + 1 : 0);
  s->ev.exit_items =
      upload(s, w->exit_cell_items, w->n_exits ? (size_t)w->exit_cell_offset[cells] : 0);
  s->ev.stages = upload(s, w->stages, (size_t)w->n_stages);
  s->ev.slots = upload(s, w->slots, (size_t)w->n_slots);
  s->ev.lines = upload(s, w->lines, 2 * (size_t)w->n_lines);
  s->ev.seams = upload(s, w->seams, (size_t)w->n_seams);
  s->ev.zones = upload(s, w->zones, (size_t)w->n_zones);
  s->ev.zone_verts = upload(s, w->zone_verts, (size_t)(w->n_zones ? w->zones[w->n_zones - 1].v0 + w->zones[w->n_zones - 1].nv : 0));
  if (kept_fields) {
    /* the fields the routing recomputed live only here: a new window keeps them */
    s->ev.fields = kept_fields;
  } else {
    s->ev.fields = upload(s, w->fields, (size_t)w->n_fields * (size_t)w->fnx * (size_t)w->fny);
  }
  s->ev.ref_fields = w->ref_fields ? upload(s, w->ref_fields, (size_t)w->n_fields * (size_t)w->fnx * (size_t)w->fny)
                                   : NULL;
  s->ev.area_vfirst = upload(s, w->area_vfirst, (size_t)w->n_areas + 1);
  s->ev.area_verts = upload(s, w->area_verts, (size_t)(w->n_areas ? w->area_vfirst[w->n_areas] : 0));
  s->ev.line_cross = crossings;
  if (!crossings) {
    CUDA_CHECK(cudaMalloc(&s->ev.line_cross, THR_MAX_LINES * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(s->ev.line_cross, 0, THR_MAX_LINES * sizeof(unsigned long long)));
  }
  s->ev.n_areas = w->n_areas;
  s->ev.map_ox = w->map_ox;
  s->ev.map_oy = w->map_oy;
  s->ev.map_cell = w->map_cell;
  s->ev.map_nx = w->map_nx;
  s->ev.map_ny = w->map_ny;
  thr_evac_view *v = &s->base.ev;
  v->exit_vfirst = s->ev.exit_vfirst;
  v->exit_verts = s->ev.exit_verts;
  v->exit_cell_offset = w->n_exits ? s->ev.exit_offset : NULL;
  v->exit_cell_items = s->ev.exit_items;
  v->fields = s->ev.fields;
  v->ref_fields = s->ev.ref_fields;
  v->stages = s->ev.stages;
  v->slots = s->ev.slots;
  v->lines = s->ev.lines;
  v->seams = s->ev.seams;
  v->zones = s->ev.zones;
  v->zone_verts = s->ev.zone_verts;
}

/* ---- removal and events --------------------------------------------------------- */

__global__ void k_evac_marks(int n, const uint32_t *flags, int *exited, int *event) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t f = flags[i];
  exited[i] = (f & THR_FLAG_EXITED) != 0;
  event[i] = !exited[i] && (f & (THR_FLAG_ARRIVED | THR_FLAG_SEATED)) != 0;
}

/* Events into out[pos[i]]; their flags cleared. */
__global__ void k_evac_events(int n, const int *event, const int *pos, thr_agents a, thr_stage_event *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || !event[i]) return;
  uint32_t f = a.flags[i];
  thr_stage_event e;
  e.id = a.id[i];
  e.flags = f & (THR_FLAG_ARRIVED | THR_FLAG_SEATED);
  e.stage = a.stage[i];
  e.slot = a.slot[i];
  e.journey = a.journey[i];
  out[pos[i]] = e;
  a.flags[i] = f & ~(uint32_t)(THR_FLAG_ARRIVED | THR_FLAG_SEATED);
}

__global__ void k_evac_pack(int n, const int *exited, const int *pos, thr_agents a, thr_agent_rec *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && exited[i]) thr_agent_load(&a, (size_t)i, &out[pos[i]]);
}

__global__ void k_keep_index(int n, const int *exited, const int *pos, int *order) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && !exited[i]) order[i - pos[i]] = i;
}

/* Last element of an exclusive scan plus the last flag: the count. */
static size_t scan_count(cuda_state *s, const int *flag, int *pos, size_t n) {
  thr_cuda_exclusive_scan(s, flag, pos, n);
  int last[2] = {0, 0};
  CUDA_CHECK(cudaMemcpyAsync(&last[0], pos + n - 1, sizeof(int), cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaMemcpyAsync(&last[1], flag + n - 1, sizeof(int), cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  return (size_t)(last[0] + last[1]);
}

static int host_room(void **p, size_t *cap, size_t n, size_t elem) {
  if (n <= *cap) return 0;
  void *q = realloc(*p, (n + n / 2 + 64) * elem);
  if (!q) return -1;
  *p = q;
  *cap = n + n / 2 + 64;
  return 0;
}

int thr_cuda_evac_collect(cuda_state *s, thr_evac_collect *out) {
  size_t n = s->a.n_owned;
  memset(out, 0, sizeof *out);
  if (!n) return 0;
  size_t al = (n * sizeof(int) + 255) & ~(size_t)255;
  char *st = (char *)thr_cuda_stage(s, 4 * al);
  int *exited = (int *)st, *event = (int *)(st + al), *pos_ex = (int *)(st + 2 * al), *pos_ev = (int *)(st + 3 * al);
  k_evac_marks<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, s->a.flags, exited, event);
  CUDA_LAUNCHED("evac_marks");
  size_t n_ex = scan_count(s, exited, pos_ex, n), n_ev = scan_count(s, event, pos_ev, n);
  if (host_room((void **)&s->ev.exited, &s->ev.exited_cap, n_ex, sizeof(thr_agent_rec)) ||
      host_room((void **)&s->ev.events, &s->ev.events_cap, n_ev, sizeof(thr_stage_event)))
    return thr_backend_error(s->self, "out of host memory for %zu exits and %zu stage events", n_ex, n_ev);
  size_t ev_bytes = (n_ev * sizeof(thr_stage_event) + 255) & ~(size_t)255;
  char *st2 = (char *)thr_cuda_stage2(s, ev_bytes + n_ex * sizeof(thr_agent_rec) + 1);
  if (n_ev) {
    thr_stage_event *d = (thr_stage_event *)st2;
    k_evac_events<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, event, pos_ev, s->a, d);
    CUDA_LAUNCHED("evac_events");
    CUDA_CHECK(cudaMemcpyAsync(s->ev.events, d, n_ev * sizeof *d, cudaMemcpyDeviceToHost, s->stream));
  }
  if (n_ex) {
    thr_agent_rec *d = (thr_agent_rec *)(st2 + ev_bytes);
    k_evac_pack<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, exited, pos_ex, s->a, d);
    CUDA_LAUNCHED("evac_pack");
    CUDA_CHECK(cudaMemcpyAsync(s->ev.exited, d, n_ex * sizeof *d, cudaMemcpyDeviceToHost, s->stream));
    /* the others keep their order: compact every STATE field */
    k_keep_index<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, exited, pos_ex, s->order);
    CUDA_LAUNCHED("keep_index");
    thr_cuda_gather_fields(s, s->order, n - n_ex);
    s->a.n = s->a.n_owned = n - n_ex; /* ghosts dropped: the next exchange sets them */
    s->order_is_identity = 0;
    s->parts.valid = 0;
  }
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  out->exited = s->ev.exited;
  out->n_exited = n_ex;
  out->events = s->ev.events;
  out->n_events = n_ev;
  return 0;
}

/* ---- assignments, probes, counts ----------------------------------------------- */

__global__ void k_evac_assign(int n, const thr_stage_assign *as, int m, thr_agents a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) thr_agent_assign(&a, i, as, m);
}

int thr_cuda_evac_assign(cuda_state *s, const thr_stage_assign *as, size_t m) {
  size_t n = s->a.n_owned;
  if (!m || !n) return 0;
  thr_stage_assign *d = (thr_stage_assign *)thr_cuda_stage(s, m * sizeof *d);
  CUDA_CHECK(cudaMemcpyAsync(d, as, m * sizeof *d, cudaMemcpyHostToDevice, s->stream));
  k_evac_assign<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, d, (int)m, s->a);
  CUDA_LAUNCHED("evac_assign");
  CUDA_CHECK(cudaStreamSynchronize(s->stream)); /* the host buffer is the caller's */
  return 0;
}

/* Owned agent i marks the candidates it blocks (an OR: order-free). */
__global__ void k_probe(int n_owned, const thr_vec2 *x, const float *rad, thr_probe_box bx, float scale, int n,
                        const thr_vec2 *pts, const float *radius, int *blocked) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_owned || !thr_probe_box_holds(bx, x[i])) return;
  for (int k = 0; k < n; ++k)
    if (thr_agent_blocks_point(pts[k], radius[k], x[i], rad[i], scale)) atomicOr(&blocked[k], 1);
}

int thr_cuda_probe_free(cuda_state *s, const thr_vec2 *pts, const float *radius, size_t n, unsigned char *out) {
  if (!n) return 0;
  size_t a = (n * sizeof(thr_vec2) + 255) & ~(size_t)255, r = (n * sizeof(float) + 255) & ~(size_t)255;
  char *st = (char *)thr_cuda_stage(s, a + r + n * sizeof(int));
  int *blocked = (int *)(st + a + r);
  float scale = s->base.prm.radius_scale;
  thr_probe_box bx = thr_probe_box_of(pts, radius, n, s->max_radius, scale);
  CUDA_CHECK(cudaMemcpyAsync(st, pts, n * sizeof(thr_vec2), cudaMemcpyHostToDevice, s->stream));
  CUDA_CHECK(cudaMemcpyAsync(st + a, radius, n * sizeof(float), cudaMemcpyHostToDevice, s->stream));
  CUDA_CHECK(cudaMemsetAsync(blocked, 0, n * sizeof(int), s->stream));
  size_t owned = s->a.n_owned;
  if (owned) {
    k_probe<<<thr_blocks(owned), THR_CUDA_BLOCK, 0, s->stream>>>((int)owned, s->a.x, s->a.radius, bx, scale, (int)n,
                                                                 (thr_vec2 *)st, (float *)(st + a), blocked);
    CUDA_LAUNCHED("probe");
  }
  int *h = (int *)thr_cuda_host_stage(s, n * sizeof(int));
  CUDA_CHECK(cudaMemcpyAsync(h, blocked, n * sizeof(int), cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  for (size_t k = 0; k < n; ++k) out[k] = (unsigned char)!h[k];
  return 0;
}

/* Areas and map cells: integer counts and speed quanta, added atomically
 * (integers: the order does not matter). */
__global__ void k_evac_counts(int n, thr_agents a, int n_areas, const int *vfirst, const thr_vec2 *verts, float ox,
                              float oy, float cell, int nx, int ny, unsigned long long *area, unsigned long long *map) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  thr_vec2 x = a.x[i];
  unsigned long long q = (unsigned long long)thr_speed_quanta(v2_len(a.v[i]));
  for (int k = 0; area && k < n_areas; ++k)
    if (thr_polygon_contains(verts + vfirst[k], vfirst[k + 1] - vfirst[k], x)) {
      atomicAdd(&area[2 * k], 1ull);
      atomicAdd(&area[2 * k + 1], q);
    }
  int c = thr_map_cell(ox, oy, cell, nx, ny, x);
  if (map && c >= 0) {
    atomicAdd(&map[2 * (size_t)c], 1ull);
    atomicAdd(&map[2 * (size_t)c + 1], q);
  }
}

int thr_cuda_evac_measure(cuda_state *s, thr_evac_counts *out) {
  size_t na = out->area_agents ? (size_t)s->ev.n_areas : 0;
  size_t nm = out->map_agents ? (size_t)s->ev.map_nx * (size_t)s->ev.map_ny : 0;
  size_t words = 2 * (na + nm) + THR_MAX_LINES;
  if (words > s->ev.counts_cap) {
    if (s->ev.counts) CUDA_CHECK(cudaFree(s->ev.counts));
    CUDA_CHECK(cudaMalloc(&s->ev.counts, words * sizeof(unsigned long long)));
    s->ev.counts_cap = words;
  }
  unsigned long long *d = s->ev.counts;
  CUDA_CHECK(cudaMemsetAsync(d, 0, 2 * (na + nm) * sizeof *d, s->stream));
  size_t n = s->a.n_owned;
  if (n && (na || nm)) {
    k_evac_counts<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>(
        (int)n, s->a, (int)na, s->ev.area_vfirst, s->ev.area_verts, s->ev.map_ox, s->ev.map_oy, s->ev.map_cell,
        nm ? s->ev.map_nx : 0, s->ev.map_ny, na ? d : NULL, nm ? d + 2 * na : NULL);
    CUDA_LAUNCHED("evac_counts");
  }
  if (out->line_crossings && s->ev.line_cross) {
    CUDA_CHECK(cudaMemcpyAsync(d + 2 * (na + nm), s->ev.line_cross, THR_MAX_LINES * sizeof *d,
                               cudaMemcpyDeviceToDevice, s->stream));
    CUDA_CHECK(cudaMemsetAsync(s->ev.line_cross, 0, THR_MAX_LINES * sizeof *d, s->stream));
  }
  unsigned long long *h = (unsigned long long *)thr_cuda_host_stage(s, words * sizeof *h);
  CUDA_CHECK(cudaMemcpyAsync(h, d, words * sizeof *h, cudaMemcpyDeviceToHost, s->stream));
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  for (size_t k = 0; k < na; ++k) {
    out->area_agents[k] += (int64_t)h[2 * k];
    out->area_speed[k] += (int64_t)h[2 * k + 1];
  }
  for (size_t k = 0; k < nm; ++k) {
    out->map_agents[k] += (int64_t)h[2 * (na + k)];
    out->map_speed[k] += (int64_t)h[2 * (na + k) + 1];
  }
  for (int k = 0; out->line_crossings && s->ev.line_cross && k < s->base.ev.n_lines; ++k)
    out->line_crossings[k] += (int64_t)h[2 * (na + nm) + k];
  return 0;
}

