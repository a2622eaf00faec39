/* The CPU backend: the reference implementation. Every phase is a loop over
 * owned agents calling the shared per-agent functions of kernels/passes.h
 * (OpenMP threads when available; results do not depend on the thread
 * count because each agent is computed from read-only inputs). */
#include <stdlib.h>
#include <string.h>

#include "kernels/backend.h"
#include "kernels/context.h"
#include "cell_sort.h"

typedef struct cpu_state {
  thr_agents a; /* owned, then ghosts */
  thr_ctx base; /* parameters, grid geometry, rings, obstacles, goals */
  size_t ncell;
  int *offset, *cursor; /* [ncell + 1], [ncell] */
  /* per-agent scratch, capacity scratch_cap */
  size_t scratch_cap;
  int *cell_of, *order;
  thr_vec2 *p2, *x2, *vnew;
  void *permute_buf;
  /* halo plan of this step: owned agents forwarded to other ranks */
  int *halo_idx;
  size_t n_halo, halo_cap;
  void *hbuf[2]; /* halo message buffers (send, receive) */
  size_t hbuf_cap[2];
  /* pass parts (set_interior): interior agents, then boundary agents */
  int *part_list;
  size_t part_cap;
  long n_interior;
  int parts_valid;
} cpu_state;

static cpu_state *state(thr_backend *b) { return (cpu_state *)b->impl; }

static void free_scratch(cpu_state *s) {
  free(s->cell_of);
  free(s->order);
  free(s->p2);
  free(s->x2);
  free(s->vnew);
  free(s->permute_buf);
  s->cell_of = s->order = NULL;
  s->p2 = s->x2 = s->vnew = NULL;
  s->permute_buf = NULL;
  s->scratch_cap = 0;
}

/* Grow one scratch array, keeping its contents (realloc). */
static int grow_array(void **p, size_t bytes) {
  void *q = realloc(*p, bytes);
  if (!q) return -1;
  *p = q;
  return 0;
}

/* Per-agent scratch follows the agent store's capacity. Contents survive
 * growth: the owned agents' cells (cell_of, from sort_owned) must outlive
 * the ghost exchange that may grow the store before build_index. */
static int ensure_scratch(cpu_state *s) {
  size_t cap = s->a.cap ? s->a.cap : 1;
  if (cap <= s->scratch_cap) return 0;
  if (grow_array((void **)&s->cell_of, cap * sizeof(int)) || grow_array((void **)&s->order, cap * sizeof(int)) ||
      grow_array((void **)&s->p2, cap * sizeof(thr_vec2)) || grow_array((void **)&s->x2, cap * sizeof(thr_vec2)) ||
      grow_array((void **)&s->vnew, cap * sizeof(thr_vec2)) || grow_array(&s->permute_buf, cap * 8))
    return -1; /* the arrays grown so far stay valid; scratch_cap is unchanged */
  s->scratch_cap = cap;
  return 0;
}

static thr_ctx make_ctx(const cpu_state *s) {
  thr_ctx c = s->base;
  thr_ctx_bind(&c, &s->a, s->offset, s->order, s->cell_of);
  return c;
}

static void swap_vec(thr_vec2 **a, thr_vec2 **b) {
  thr_vec2 *t = *a;
  *a = *b;
  *b = t;
}

/* ---- world and agents ------------------------------------------------------ */

static int cpu_set_world(thr_backend *b, const thr_world *w, const thr_params *prm) {
  cpu_state *s = state(b);
  s->base = thr_ctx_static(w, prm);
  s->base.obs = thr_world_obstacle_view(w);
  s->base.goals = thr_world_goal_view(w);
  s->ncell = (size_t)w->window.nx * (size_t)w->window.ny;
  free(s->offset);
  free(s->cursor);
  s->offset = malloc((s->ncell + 1) * sizeof(int));
  s->cursor = malloc(s->ncell * sizeof(int));
  if (!s->offset || !s->cursor) return -1;
  memset(s->offset, 0, (s->ncell + 1) * sizeof(int));
  return 0;
}

static int cpu_set_agents(thr_backend *b, const thr_agents *owned) {
  cpu_state *s = state(b);
  if (thr_agents_copy(&s->a, owned, owned->n_owned)) return -1;
  s->a.n = s->a.n_owned = owned->n_owned;
  return ensure_scratch(s);
}

static int cpu_get_agents(thr_backend *b, thr_agents *owned) {
  cpu_state *s = state(b);
  if (thr_agents_copy(owned, &s->a, s->a.n_owned)) return -1;
  owned->n = owned->n_owned = s->a.n_owned;
  return 0;
}

static size_t cpu_n_owned(thr_backend *b) { return state(b)->a.n_owned; }

/* ---- phases ------------------------------------------------------------------ */

static void cpu_predict(thr_backend *b) {
  cpu_state *s = state(b);
  thr_ctx c = make_ctx(s);
  thr_agents *a = &s->a;
  long n = (long)a->n_owned;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i)
    a->p[i] = thr_agent_predict(&c, a->x[i], a->v[i], a->pref_speed[i], a->goal_set[i], a->goal[i], a->flags[i]);
}

static void assign_cells(cpu_state *s, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i) s->cell_of[i] = thr_local_cell(&s->base.grid, s->a.p[i]);
}

static void cpu_sort_owned(thr_backend *b) {
  cpu_state *s = state(b);
  s->parts_valid = 0;
  size_t n = s->a.n_owned;
  assign_cells(s, 0, n);
  thr_cell_sort(s->cell_of, s->a.id, n, s->ncell, s->offset, s->order, s->cursor);
  thr_agents_permute(&s->a, s->order, n, s->permute_buf);
  assign_cells(s, 0, n);
}

/* Cells of all local agents (owned ones too: migration or a new window may
 * have changed them since sort_owned), then the canonical order. */
static void cpu_build_index(thr_backend *b) {
  cpu_state *s = state(b);
  assign_cells(s, 0, s->a.n);
  thr_cell_sort(s->cell_of, s->a.id, s->a.n, s->ncell, s->offset, s->order, s->cursor);
}

/* The owned agents of a pass part: agent k is list[k], or k without list. */
typedef struct part_range {
  const int *list;
  long n;
} part_range;

static part_range part_of(const cpu_state *s, int part) {
  part_range all = {NULL, (long)s->a.n_owned};
  if (part == THR_PART_ALL) return all;
  if (!s->parts_valid) return part == THR_PART_INTERIOR ? (part_range){NULL, 0} : all;
  if (part == THR_PART_INTERIOR) return (part_range){s->part_list, s->n_interior};
  return (part_range){s->part_list + s->n_interior, (long)s->a.n_owned - s->n_interior};
}
#define PART_AGENT(r, t) ((r).list ? (long)(r).list[t] : (t))

static void cpu_stability(thr_backend *b, int part) {
  cpu_state *s = state(b);
  thr_ctx c = make_ctx(s);
  thr_agents *a = &s->a;
  part_range r = part_of(s, part);
#pragma omp parallel for schedule(static)
  for (long t = 0; t < r.n; ++t) {
    long i = PART_AGENT(r, t);
    thr_vec2 dx = thr_agent_stability(&c, (int)i);
    s->x2[i] = v2_add(a->x[i], dx);
    s->p2[i] = v2_add(a->p[i], dx);
  }
  if (part == THR_PART_INTERIOR) return;
  swap_vec(&a->x, &s->x2);
  swap_vec(&a->p, &s->p2);
}

/* A pass that computes new predicted positions x* (Jacobi: read x*, write
 * the other buffer, swap once the pass is complete). */
static void p_pass(cpu_state *s, int part, thr_vec2 (*agent)(const thr_ctx *, int)) {
  thr_ctx c = make_ctx(s);
  part_range r = part_of(s, part);
#pragma omp parallel for schedule(static)
  for (long t = 0; t < r.n; ++t) {
    long i = PART_AGENT(r, t);
    s->p2[i] = agent(&c, (int)i);
  }
  if (part != THR_PART_INTERIOR) swap_vec(&s->a.p, &s->p2);
}

static void cpu_long_range(thr_backend *b, int part) { p_pass(state(b), part, thr_agent_long_range); }
static void cpu_contact(thr_backend *b, int part) { p_pass(state(b), part, thr_agent_contact); }

static void cpu_velocity(thr_backend *b, int part) {
  cpu_state *s = state(b);
  thr_ctx c = make_ctx(s);
  part_range r = part_of(s, part);
#pragma omp parallel for schedule(static)
  for (long t = 0; t < r.n; ++t) {
    long i = PART_AGENT(r, t);
    s->vnew[i] = thr_agent_velocity(&c, (int)i);
  }
}

static void cpu_finalize(thr_backend *b, int part) {
  cpu_state *s = state(b);
  thr_ctx c = make_ctx(s);
  c.v = s->vnew; /* XSPH reads the un-smoothed new velocities */
  thr_agents *a = &s->a;
  part_range r = part_of(s, part);
#pragma omp parallel for schedule(static)
  for (long t = 0; t < r.n; ++t) {
    long i = PART_AGENT(r, t);
    a->v[i] = thr_agent_xsph_clamp(&c, (int)i, a->v[i]);
    a->x[i] = a->p[i];
    if (thr_agent_at_goal(&c, a->x[i], a->goal_set[i], a->goal[i])) a->flags[i] |= THR_FLAG_AT_GOAL;
  }
}

/* Interior agents first, then boundary ones, each in storage order. */
static int cpu_set_interior(thr_backend *b, thr_window interior) {
  cpu_state *s = state(b);
  size_t n = s->a.n_owned;
  if (n > s->part_cap) {
    int *q = realloc(s->part_list, (n + 1) * sizeof *q);
    if (!q) return -1;
    s->part_list = q;
    s->part_cap = n;
  }
  const thr_grid_view *g = &s->base.grid;
  long k = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < n; ++i) {
      int gx = thr_cell_coord(s->a.p[i].x, g->ox, g->cell, g->gnx);
      int gy = thr_cell_coord(s->a.p[i].y, g->oy, g->cell, g->gny);
      if (thr_window_contains(interior, gx, gy) == (pass == 0)) s->part_list[k++] = (int)i;
    }
    if (pass == 0) s->n_interior = k;
  }
  s->parts_valid = 1;
  return 0;
}

static int cpu_halo_device_mode(thr_backend *b, int on) {
  (void)b;
  (void)on;
  return 0;
}

static void cpu_measure(thr_backend *b, thr_metrics_partial *out) {
  cpu_state *s = state(b);
  thr_ctx c = make_ctx(s);
  thr_agents *a = &s->a;
  long n = (long)a->n_owned;
  long at_goal = 0, pairs = 0, walls = 0;
  int64_t speed_q = 0;
  double max_ov = 0.0, max_rel = 0.0, max_wall = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : at_goal, pairs, walls, speed_q) \
    reduction(max : max_ov, max_rel, max_wall)
  for (long i = 0; i < n; ++i) {
    thr_agent_metrics m = thr_agent_measure(&c, (int)i);
    at_goal += (a->flags[i] & THR_FLAG_AT_GOAL) ? 1 : 0;
    pairs += m.overlaps;
    walls += m.wall_overlap > 0.0f ? 1 : 0;
    speed_q += (int64_t)((double)v2_len(a->v[i]) / THR_SPEED_QUANTUM + 0.5);
    if (m.max_overlap > max_ov) max_ov = m.max_overlap;
    if (m.max_overlap_rel > max_rel) max_rel = m.max_overlap_rel;
    if (m.wall_overlap > max_wall) max_wall = m.wall_overlap;
  }
  out->agents = n;
  out->at_goal = at_goal;
  out->overlap_pairs = pairs;
  out->wall_penetrations = walls;
  out->speed_sum_q = speed_q;
  out->max_overlap = max_ov;
  out->max_overlap_ratio = max_rel;
  out->max_wall_overlap = max_wall;
}

static void cpu_sync(thr_backend *b) { (void)b; }

/* ---- decomposition support (decomp/ calls these) ------------------------------ */

static int cpu_owned_cells(thr_backend *b, int32_t *cells) {
  cpu_state *s = state(b);
  const thr_grid_view *g = &s->base.grid;
  for (size_t i = 0; i < s->a.n_owned; ++i) {
    cells[2 * i] = thr_cell_coord(s->a.p[i].x, g->ox, g->cell, g->gnx);
    cells[2 * i + 1] = thr_cell_coord(s->a.p[i].y, g->oy, g->cell, g->gny);
  }
  return 0;
}

static size_t cpu_select_outside(thr_backend *b, thr_window skip, const thr_window *boxes, int nbox, int *idx,
                                 int32_t *cells, uint64_t *mask) {
  cpu_state *s = state(b);
  const thr_grid_view *g = &s->base.grid;
  size_t n = 0;
  for (size_t i = 0; i < s->a.n_owned; ++i) {
    int gx = thr_cell_coord(s->a.p[i].x, g->ox, g->cell, g->gnx);
    int gy = thr_cell_coord(s->a.p[i].y, g->oy, g->cell, g->gny);
    if (thr_window_contains(skip, gx, gy)) continue;
    idx[n] = (int)i;
    cells[2 * n] = gx;
    cells[2 * n + 1] = gy;
    if (mask) {
      uint64_t m = 0;
      for (int k = 0; k < nbox; ++k)
        if (thr_window_contains(boxes[k], gx, gy)) m |= (uint64_t)1 << k;
      mask[n] = m;
    }
    n++;
  }
  return n;
}

static void cpu_id_checksum(thr_backend *b, uint64_t *sum, uint64_t *sq) {
  cpu_state *s = state(b);
  uint64_t a = 0, q = 0;
  for (size_t i = 0; i < s->a.n_owned; ++i) {
    uint64_t v = s->a.id[i];
    a += v;
    q += v * v;
  }
  *sum = a;
  *sq = q;
}

static void *cpu_halo_buffer(thr_backend *b, int which, size_t bytes) {
  cpu_state *s = state(b);
  if (bytes > s->hbuf_cap[which]) {
    void *q = realloc(s->hbuf[which], bytes);
    if (!q) return NULL;
    s->hbuf[which] = q;
    s->hbuf_cap[which] = bytes;
  }
  return s->hbuf[which];
}

static int cpu_extract_owned(thr_backend *b, const int *idx, size_t n, thr_agent_rec *recs) {
  cpu_state *s = state(b);
  s->parts_valid = 0;
  thr_agents *a = &s->a;
  for (size_t k = 0; k < n; ++k) thr_agents_get(a, (size_t)idx[k], &recs[k]);
  /* close the gaps, keeping the order of the agents that stay */
  size_t keep = 0, next = 0;
  for (size_t i = 0; i < a->n_owned; ++i) {
    if (next < n && (size_t)idx[next] == i) {
      next++;
      continue;
    }
    if (keep != i) {
      for (int f = 0; f < THR_F_COUNT; ++f) {
        size_t elem;
        char *base = *(char **)thr_agents_field(a, f, &elem);
        memcpy(base + keep * elem, base + i * elem, elem);
      }
    }
    keep++;
  }
  a->n = a->n_owned = keep;
  return 0;
}

static int cpu_append_owned(thr_backend *b, const thr_agent_rec *recs, size_t n) {
  cpu_state *s = state(b);
  s->parts_valid = 0;
  thr_agents *a = &s->a;
  if (thr_agents_reserve(a, a->n_owned + n)) return -1;
  for (size_t k = 0; k < n; ++k) thr_agents_set(a, a->n_owned + k, &recs[k]);
  a->n = a->n_owned = a->n_owned + n;
  return ensure_scratch(s);
}

static int cpu_pack_ghosts(thr_backend *b, const int *idx, size_t n, thr_ghost_rec *out) {
  cpu_state *s = state(b);
  const thr_agents *a = &s->a;
  for (size_t k = 0; k < n; ++k) {
    size_t i = (size_t)idx[k];
    out[k].id = a->id[i];
    out[k].radius = a->radius[i];
    out[k].inv_mass = a->inv_mass[i];
    out[k].x = a->x[i];
    out[k].p = a->p[i];
    out[k].v = a->v[i];
  }
  return 0;
}

static int cpu_set_ghosts(thr_backend *b, const thr_ghost_rec *g, size_t n) {
  cpu_state *s = state(b);
  thr_agents *a = &s->a;
  if (thr_agents_reserve(a, a->n_owned + n) || ensure_scratch(s)) return -1;
  for (size_t k = 0; k < n; ++k) {
    size_t i = a->n_owned + k;
    thr_agent_rec r;
    memset(&r, 0, sizeof r); /* fields no pass reads of a ghost */
    r.id = g[k].id;
    r.radius = g[k].radius;
    r.inv_mass = g[k].inv_mass;
    r.x = g[k].x;
    r.p = g[k].p;
    r.v = g[k].v;
    thr_agents_set(a, i, &r);
  }
  a->n = a->n_owned + n;
  return 0;
}

static int cpu_set_halo_send(thr_backend *b, const int *idx, size_t n) {
  cpu_state *s = state(b);
  if (n > s->halo_cap) {
    int *q = realloc(s->halo_idx, n * sizeof *q);
    if (!q) return -1;
    s->halo_idx = q;
    s->halo_cap = n;
  }
  if (n) memcpy(s->halo_idx, idx, n * sizeof *idx);
  s->n_halo = n;
  return 0;
}

/* The arrays a halo field lives in: x, p or the new velocities. */
static thr_vec2 *halo_field(cpu_state *s, int field) {
  return field == THR_HALO_X ? s->a.x : field == THR_HALO_P ? s->a.p : s->vnew;
}

static void cpu_pack_halo(thr_backend *b, int fields, void *buf) {
  cpu_state *s = state(b);
  thr_vec2 *out = buf;
  static const int order[3] = {THR_HALO_X, THR_HALO_P, THR_HALO_VNEW};
  for (int f = 0; f < 3; ++f) {
    if (!(fields & order[f])) continue;
    const thr_vec2 *src = halo_field(s, order[f]);
    for (size_t k = 0; k < s->n_halo; ++k) out[k] = src[s->halo_idx[k]];
    out += s->n_halo;
  }
}

static void cpu_unpack_halo(thr_backend *b, int fields, const void *buf) {
  cpu_state *s = state(b);
  const thr_vec2 *in = buf;
  size_t first = s->a.n_owned, n = s->a.n - s->a.n_owned;
  static const int order[3] = {THR_HALO_X, THR_HALO_P, THR_HALO_VNEW};
  for (int f = 0; f < 3; ++f) {
    if (!(fields & order[f])) continue;
    if (n) memcpy(halo_field(s, order[f]) + first, in, n * sizeof *in);
    in += n;
  }
}

static void cpu_destroy(thr_backend *b) {
  if (!b) return;
  cpu_state *s = state(b);
  thr_agents_free(&s->a);
  free_scratch(s);
  free(s->offset);
  free(s->cursor);
  free(s->halo_idx);
  free(s->part_list);
  free(s->hbuf[0]);
  free(s->hbuf[1]);
  free(s);
  free(b);
}

static const thr_backend_ops cpu_ops = {
    .name = "cpu",
    .destroy = cpu_destroy,
    .set_world = cpu_set_world,
    .set_agents = cpu_set_agents,
    .get_agents = cpu_get_agents,
    .n_owned = cpu_n_owned,
    .predict = cpu_predict,
    .sort_owned = cpu_sort_owned,
    .build_index = cpu_build_index,
    .stability = cpu_stability,
    .long_range = cpu_long_range,
    .contact = cpu_contact,
    .velocity = cpu_velocity,
    .finalize = cpu_finalize,
    .measure = cpu_measure,
    .sync = cpu_sync,
    .owned_cells = cpu_owned_cells,
    .select_outside = cpu_select_outside,
    .set_interior = cpu_set_interior,
    .halo_device_mode = cpu_halo_device_mode,
    .halo_buffer = cpu_halo_buffer,
    .id_checksum = cpu_id_checksum,
    .extract_owned = cpu_extract_owned,
    .append_owned = cpu_append_owned,
    .pack_ghosts = cpu_pack_ghosts,
    .set_ghosts = cpu_set_ghosts,
    .set_halo_send = cpu_set_halo_send,
    .pack_halo = cpu_pack_halo,
    .unpack_halo = cpu_unpack_halo,
};

thr_backend *thr_backend_cpu_create(void) {
  thr_backend *b = calloc(1, sizeof *b);
  cpu_state *s = calloc(1, sizeof *s);
  if (!b || !s) {
    free(b);
    free(s);
    return NULL;
  }
  thr_agents_init(&s->a);
  b->ops = &cpu_ops;
  b->impl = s;
  return b;
}
