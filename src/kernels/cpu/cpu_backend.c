/* The CPU backend: the reference implementation. Every phase is a loop over
 * owned agents calling the shared per-agent functions of kernels/passes.h
 * (OpenMP threads when available; results do not depend on the thread
 * count because each agent is computed from read-only inputs). */
#include <stdlib.h>
#include <string.h>

#include "cell_sort.h"
#include "cpu_exchange.h"
#include "route_engine.h"
#include "kernels/backend_comm.h"
#include "kernels/context.h"
#include "kernels/pass_table.h"
#include "kernels/step_lists.h"

typedef struct cpu_state {
  thr_agents a; /* owned, then ghosts */
  thr_ctx base; /* parameters, grid geometry, rings, obstacles, goals */
  size_t ncell;
  int *offset, *cursor; /* [ncell + 1], [ncell] */
  /* per-agent scratch, capacity scratch_cap */
  size_t scratch_cap;
  int *cell_of, *order;
  thr_vec2 *p2, *x2; /* the second buffers of x* and x^n (thr_pass_commit) */
  float *pz2, *z2;   /* ... of their altitudes (3D) */
  void *permute_buf;
  thr_field_mask view_mask; /* fields of the last view_begin */
  thr_formation_state *forms; /* the formations' state of this step (set_formations) */
  int forms_cap;
  /* halo plan of this step: owned agents forwarded to other ranks */
  int *halo_idx;
  size_t n_halo, halo_cap;
  void *hbuf[2]; /* halo message buffers (send, receive) */
  size_t hbuf_cap[2];
  thr_parts parts; /* interior, then boundary agents (set_interior) */
  thr_step_lists lists; /* the step's neighbour lists */
  int index_fresh; /* sort_owned's index still holds: owned agents unchanged, order[k] == k */
  /* evacuation */
  const thr_world *world; /* exits, areas, maps (host arrays) */
  int evac;               /* the world has an evacuation part */
  int64_t line_cross[THR_MAX_LINES]; /* crossings since the last evac_measure */
  thr_agent_rec *exited;
  thr_stage_event *events;
  size_t exited_cap, events_cap;
  uint64_t nonfinite, nonfinite_part; /* health of the last FINALIZE; of its parts so far */
  thr_route_engine route; /* congestion-aware routing (route_setup) */
  thr_cpu_exchange xch;   /* scratch of the packed once-per-step exchange */
} cpu_state;

static cpu_state *state(thr_backend *b) { return (cpu_state *)b->impl; }

static void free_scratch(cpu_state *s) {
  free(s->cell_of);
  free(s->order);
  free(s->p2);
  free(s->x2);
  free(s->pz2);
  free(s->z2);
  free(s->permute_buf);
  s->cell_of = s->order = NULL;
  s->p2 = s->x2 = NULL;
  s->pz2 = s->z2 = NULL;
  s->permute_buf = NULL;
  s->scratch_cap = 0;
  free(s->lists.lr);
  free(s->lists.ct);
  free(s->lists.count);
  memset(&s->lists, 0, sizeof s->lists);
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
      grow_array((void **)&s->pz2, cap * sizeof(float)) || grow_array((void **)&s->z2, cap * sizeof(float)) ||
      grow_array(&s->permute_buf, cap * thr_agents_max_elem()) ||
      grow_array((void **)&s->lists.lr, cap * THR_LR_CAP * sizeof(thr_list_entry)) ||
      grow_array((void **)&s->lists.ct, cap * THR_CT_CAP * sizeof(thr_list_entry)) ||
      grow_array((void **)&s->lists.count, cap * sizeof(int)))
    return -1; /* the arrays grown so far stay valid; scratch_cap is unchanged */
  s->lists.rows = cap;
  s->scratch_cap = cap;
  return 0;
}

static thr_ctx make_ctx(const cpu_state *s) {
  thr_ctx c = s->base;
  thr_ctx_bind(&c, &s->a, s->offset, s->order, s->cell_of);
  return c;
}

/* ---- world and agents ------------------------------------------------------ */

static int cpu_set_world(thr_backend *b, const thr_world *w, const thr_params *prm) {
  cpu_state *s = state(b);
  float time = s->base.ev.time; /* predict's; a re-partition comes later in the step */
  s->base = thr_ctx_static(w, prm);
  s->base.obs = thr_world_obstacle_view(w);
  s->base.goals = thr_world_goal_view(w);
  s->base.ev = thr_world_evac_view(w);
  s->base.ev.time = time;
  s->base.forms = s->forms; /* set_formations' table outlives a new window */
  s->world = w;
  if (!s->a.cap) s->a.absent = thr_fields_absent(prm); /* before the first agents arrive */
  s->evac = thr_world_has_evacuation(w);
  s->ncell = (size_t)w->window.nx * (size_t)w->window.ny;
  free(s->offset);
  free(s->cursor);
  s->offset = malloc((s->ncell + 1) * sizeof(int));
  s->cursor = malloc(s->ncell * sizeof(int));
  if (!s->offset || !s->cursor) return thr_backend_error(b, "out of memory for a grid of %zu cells", s->ncell);
  memset(s->offset, 0, (s->ncell + 1) * sizeof(int));
  /* a new window renumbers the cells: sort_owned's cells are stale even
   * where no agent moved (build_index must not keep them) */
  s->index_fresh = 0;
  s->lists.valid = 0;
  return 0;
}

static int out_of_memory(thr_backend *b, size_t agents) {
  return thr_backend_error(b, "out of memory for %zu agents", agents);
}

static int cpu_set_agents(thr_backend *b, const thr_agents *owned) {
  cpu_state *s = state(b);
  if (thr_agents_copy(&s->a, owned, owned->n_owned)) return out_of_memory(b, owned->n_owned);
  s->a.n = s->a.n_owned = owned->n_owned;
  s->index_fresh = 0;
  s->parts.valid = 0;
  return ensure_scratch(s) ? out_of_memory(b, owned->n_owned) : 0;
}

static int cpu_get_agents(thr_backend *b, thr_agents *owned) {
  cpu_state *s = state(b);
  if (thr_agents_copy(owned, &s->a, s->a.n_owned)) return out_of_memory(b, s->a.n_owned);
  owned->n = owned->n_owned = s->a.n_owned;
  return 0;
}

static int cpu_view_begin(thr_backend *b, thr_field_mask mask) {
  state(b)->view_mask = mask;
  return 0;
}

static int cpu_view_end(thr_backend *b, thr_agents *view) {
  cpu_state *s = state(b);
  thr_agents_init(view);
  for (int f = 0; f < THR_F_COUNT; ++f)
    if (s->view_mask & ((thr_field_mask)1 << f)) *thr_agents_field(view, f, NULL) = *thr_agents_field(&s->a, f, NULL);
  view->n = view->n_owned = view->cap = s->a.n_owned;
  return 0;
}

static int cpu_copy_out(thr_backend *b, thr_agents *all, thr_field_mask mask) {
  cpu_state *s = state(b);
  if (thr_agents_reserve(all, s->a.n + 1)) return out_of_memory(b, s->a.n);
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (!(mask & ((thr_field_mask)1 << f))) continue;
    void *dst = *thr_agents_field(all, f, NULL);
    if (dst) thr_field_copy(dst, *thr_agents_field(&s->a, f, NULL), f, s->a.n);
  }
  all->n = s->a.n;
  all->n_owned = s->a.n_owned;
  return 0;
}

static size_t cpu_n_owned(thr_backend *b) { return state(b)->a.n_owned; }

static int cpu_set_formations(thr_backend *b, const thr_formation_state *st, int n) {
  cpu_state *s = state(b);
  if (n > s->forms_cap) {
    thr_formation_state *q = realloc(s->forms, (size_t)n * sizeof *q);
    if (!q) return thr_backend_error(b, "out of memory for %d formations", n);
    s->forms = q;
    s->forms_cap = n;
  }
  if (n) memcpy(s->forms, st, (size_t)n * sizeof *st);
  s->base.forms = s->forms;
  return 0;
}

/* ---- phases ------------------------------------------------------------------ */

static void cpu_predict(thr_backend *b, float time) {
  cpu_state *s = state(b);
  s->base.ev.time = time;
  thr_ctx c = make_ctx(s);
  thr_agents *a = &s->a;
  long n = (long)a->n_owned;
  if (c.prm.dim3) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) {
      thr_vec3 p = thr_agent_predict3(&c, a, (int)i);
      a->p[i] = thr_xy(p);
      a->pz[i] = p.z;
    }
    return;
  }
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) a->p[i] = thr_agent_predict(&c, a, (int)i);
}

static void assign_cells(cpu_state *s, size_t from, size_t to) {
#pragma omp parallel for schedule(static)
  for (long i = (long)from; i < (long)to; ++i) s->cell_of[i] = thr_local_cell(&s->base.grid, s->a.p[i]);
}

static void cpu_sort_owned(thr_backend *b) {
  cpu_state *s = state(b);
  s->parts.valid = 0;
  size_t n = s->a.n_owned;
  assign_cells(s, 0, n);
  thr_cell_sort(s->cell_of, s->a.id, n, s->ncell, s->offset, s->order, s->cursor);
  thr_agents_permute(&s->a, s->order, n, s->permute_buf);
  assign_cells(s, 0, n);
  long nn = (long)n;
#pragma omp parallel for schedule(static)
  for (long k = 0; k < nn; ++k) s->order[k] = (int)k; /* the storage is in (cell, id) order now */
  s->a.n = n;                                          /* ghosts dropped (the exchange sets new ones) */
  s->index_fresh = 1;
  s->lists.valid = 0;
}

/* Cells of all local agents (owned ones too: migration or a new window may
 * have changed them since sort_owned), then the canonical order. */
static void cpu_build_index(thr_backend *b) {
  cpu_state *s = state(b);
  s->lists.valid = 0;
  if (s->index_fresh && s->a.n == s->a.n_owned) return; /* no ghosts, nothing moved: sort_owned's index */
  s->index_fresh = 0;
  assign_cells(s, 0, s->a.n);
  thr_cell_sort(s->cell_of, s->a.id, s->a.n, s->ncell, s->offset, s->order, s->cursor);
}

/* The step's neighbour lists of a part's agents (step_lists.h). */
static void build_lists(cpu_state *s, const thr_ctx *c, int part, thr_part_range r) {
  thr_step_lists *l = &s->lists;
#pragma omp parallel for schedule(static)
  for (long t = 0; t < r.n; ++t) {
    long i = THR_PART_AGENT(r, t);
    l->count[i] = thr_agent_step_lists(c, (int)i, l->lr + i * THR_LR_CAP, l->ct + i * THR_CT_CAP, 1);
  }
  l->valid |= 1 << part;
}

/* The health key of a FINALIZE part into the backend's state. */
static void note_health(cpu_state *s, int part, uint64_t bad) {
  if (part == THR_PART_INTERIOR)
    s->nonfinite_part = bad;
  else
    s->nonfinite = bad;
}

/* A pass over 3D agents (passes3d.h): the same stages with the altitude
 * fields; 3D scenarios have no evacuation part. */
static void cpu_pass3(thr_backend *b, thr_ctx *c, int kind, int part, thr_part_range r) {
  cpu_state *s = state(b);
  thr_agents *a = &s->a;
  switch (thr_pass_stage(kind)) {
    case THR_STAGE_PLAN:
#pragma omp parallel for schedule(static)
      for (long t = 0; t < r.n; ++t) {
        long i = THR_PART_AGENT(r, t);
        thr_vec3 p = thr_pass_plan_agent3(kind, c, a, (int)i);
        s->p2[i] = thr_xy(p);
        s->pz2[i] = p.z;
      }
      break;
    case THR_STAGE_STABILITY:
#pragma omp parallel for schedule(static)
      for (long t = 0; t < r.n; ++t) {
        long i = THR_PART_AGENT(r, t);
        thr_vec3 dx = thr_agent_stability3(c, (int)i);
        s->x2[i] = v2(a->x[i].x + dx.x, a->x[i].y + dx.y);
        s->z2[i] = a->z[i] + dx.z;
        s->p2[i] = v2(a->p[i].x + dx.x, a->p[i].y + dx.y);
        s->pz2[i] = a->pz[i] + dx.z;
      }
      break;
    case THR_STAGE_SOLVER:
      if (thr_lists_due(&s->lists, kind, part, &c->prm)) build_lists(s, c, part, r);
      if (thr_lists_used_by(kind, &c->prm)) thr_lists_bind(c, &s->lists, 0);
#pragma omp parallel for schedule(static)
      for (long t = 0; t < r.n; ++t) {
        long i = THR_PART_AGENT(r, t);
        thr_vec3 p = thr_pass_solver_agent3(kind, c, (int)i);
        s->p2[i] = thr_xy(p);
        s->pz2[i] = p.z;
      }
      break;
    case THR_STAGE_VELOCITY:
#pragma omp parallel for schedule(static)
      for (long t = 0; t < r.n; ++t) {
        long i = THR_PART_AGENT(r, t);
        thr_vec3 v = thr_agent_velocity3(c, (int)i);
        a->vnew[i] = thr_xy(v);
        a->vnewz[i] = v.z;
      }
      break;
    case THR_STAGE_FINAL: {
      c->v = a->vnew; /* XSPH reads the un-smoothed new velocities */
      c->vz = a->vnewz;
      uint64_t bad = part == THR_PART_BOUNDARY ? s->nonfinite_part : THR_ALL_FINITE;
#pragma omp parallel for schedule(static) reduction(min : bad)
      for (long t = 0; t < r.n; ++t) {
        long i = THR_PART_AGENT(r, t);
        thr_vec3 v = thr_agent_xsph_clamp3(c, (int)i, v3(a->v[i].x, a->v[i].y, a->vz[i]));
        a->v[i] = thr_xy(v);
        a->vz[i] = v.z;
        a->x[i] = a->p[i];
        a->z[i] = a->pz[i];
        thr_vec3 x = v3(a->x[i].x, a->x[i].y, a->z[i]);
        if (thr_agent_at_goal3(c, a, (int)i, x)) a->flags[i] |= THR_FLAG_AT_GOAL;
        int field = thr_nonfinite_field3(x, x, v);
        if (field >= 0 && thr_nonfinite_key(a->id[i], field) < bad) bad = thr_nonfinite_key(a->id[i], field);
      }
      note_health(s, part, bad);
      break;
    }
    default:
      thr_backend_fail(b, "unknown pass %d", kind);
  }
}

/* One pass of the pass table over a part of the owned agents: each agent
 * from read-only inputs (Jacobi), so the thread count changes nothing. */
static void cpu_pass(thr_backend *b, int kind, int part) {
  cpu_state *s = state(b);
  thr_agents *a = &s->a;
  thr_ctx c = make_ctx(s);
  thr_part_range r = thr_parts_select(&s->parts, a->n_owned, part);
  int stage = thr_pass_stage(kind);
  if (c.prm.dim3 && stage != THR_STAGE_BEHAVIOUR && stage != THR_STAGE_UPDATE) {
    cpu_pass3(b, &c, kind, part, r);
    thr_pass_commit(a, &s->x2, &s->p2, &s->z2, &s->pz2, 1, kind, part);
    return;
  }
  switch (stage) {
    case THR_STAGE_BEHAVIOUR: { /* in place: an agent reads only its own result */
      int32_t *out = thr_pass_behaviour_out(kind, a);
#pragma omp parallel for schedule(static)
      for (long t = 0; t < r.n; ++t) {
        long i = THR_PART_AGENT(r, t);
        out[i] = thr_pass_behaviour_agent(kind, &c, (int)i);
      }
      break;
    }
    case THR_STAGE_UPDATE: /* in place: an agent writes only its own fields */
#pragma omp parallel for schedule(static)
      for (long t = 0; t < r.n; ++t) thr_pass_update_agent(kind, &c, a, (int)THR_PART_AGENT(r, t));
      break;
    case THR_STAGE_PLAN:
#pragma omp parallel for schedule(static)
      for (long t = 0; t < r.n; ++t) {
        long i = THR_PART_AGENT(r, t);
        s->p2[i] = thr_pass_plan_agent(kind, &c, a, (int)i);
      }
      break;
    case THR_STAGE_STABILITY:
#pragma omp parallel for schedule(static)
      for (long t = 0; t < r.n; ++t) {
        long i = THR_PART_AGENT(r, t);
        thr_vec2 dx = thr_agent_stability(&c, (int)i);
        s->x2[i] = v2_add(a->x[i], dx);
        s->p2[i] = v2_add(a->p[i], dx);
      }
      break;
    case THR_STAGE_SOLVER:
      if (thr_lists_due(&s->lists, kind, part, &c.prm)) build_lists(s, &c, part, r);
      if (thr_lists_used_by(kind, &c.prm)) thr_lists_bind(&c, &s->lists, 0);
#pragma omp parallel for schedule(static)
      for (long t = 0; t < r.n; ++t) {
        long i = THR_PART_AGENT(r, t);
        s->p2[i] = thr_pass_solver_agent(kind, &c, (int)i);
      }
      break;
    case THR_STAGE_VELOCITY:
#pragma omp parallel for schedule(static)
      for (long t = 0; t < r.n; ++t) {
        long i = THR_PART_AGENT(r, t);
        a->vnew[i] = thr_agent_velocity(&c, (int)i);
      }
      break;
    case THR_STAGE_FINAL: {
      c.v = a->vnew; /* XSPH reads the un-smoothed new velocities */
      uint64_t bad = part == THR_PART_BOUNDARY ? s->nonfinite_part : THR_ALL_FINITE;
      int evac = s->evac, nl = c.ev.n_lines;
      int64_t cross[THR_MAX_LINES] = {0};
#pragma omp parallel for schedule(static) reduction(min : bad) reduction(+ : cross)
      for (long t = 0; t < r.n; ++t) {
        long i = THR_PART_AGENT(r, t);
        thr_vec2 x_old = a->x[i];
        a->v[i] = thr_agent_xsph_clamp(&c, (int)i, a->v[i]);
        a->x[i] = a->p[i];
        if (thr_agent_at_goal(&c, a->x[i], a->goal_set[i], a->goal[i])) a->flags[i] |= THR_FLAG_AT_GOAL;
        int field = thr_nonfinite_field(a->x[i], a->p[i], a->v[i]);
        if (field >= 0 && thr_nonfinite_key(a->id[i], field) < bad) bad = thr_nonfinite_key(a->id[i], field);
        if (!evac) continue;
        a->travel[i] = thr_agent_travel(a->travel[i], x_old, a->x[i]);
        a->flags[i] |= thr_agent_evac_flags(&c, thr_local_cell(&c.grid, a->x[i]), a->x[i], a->radius[i], a->stage[i],
                                            a->slot[i]);
        for (int k = 0; k < nl; ++k) cross[k] += thr_evac_crosses(&c.ev, k, x_old, a->x[i]);
        if (c.ev.n_seams) a->x[i] = thr_evac_through_seams(&c.ev, a->x[i]);
      }
      for (int k = 0; k < nl; ++k) s->line_cross[k] += cross[k];
      note_health(s, part, bad);
      break;
    }
    default:
      thr_backend_fail(b, "unknown pass %d", kind);
  }
  thr_pass_commit(a, &s->x2, &s->p2, &s->z2, &s->pz2, c.prm.dim3, kind, part);
}

/* Interior agents first, then boundary ones, each in storage order. */
static int cpu_set_interior(thr_backend *b, thr_window interior) {
  cpu_state *s = state(b);
  size_t n = s->a.n_owned;
  if (n > s->parts.cap) {
    int *q = realloc(s->parts.list, (n + 1) * sizeof *q);
    if (!q) return out_of_memory(b, n);
    s->parts.list = q;
    s->parts.cap = n;
  }
  const thr_grid_view *g = &s->base.grid;
  long k = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < n; ++i) {
      int gx = thr_cell_coord(s->a.p[i].x, g->ox, g->cell, g->gnx);
      int gy = thr_cell_coord(s->a.p[i].y, g->oy, g->cell, g->gny);
      if (thr_window_contains(interior, gx, gy) == (pass == 0)) s->parts.list[k++] = (int)i;
    }
    if (pass == 0) s->parts.n_interior = (size_t)k;
  }
  s->parts.valid = 1;
  return 0;
}

static int cpu_halo_device_mode(thr_backend *b, int on) {
  (void)b;
  (void)on;
  return 0;
}

static int cpu_halo_stream_mode(thr_backend *b, int on, unsigned char uuid[16]) {
  (void)b;
  (void)on;
  (void)uuid;
  return 0; /* host memory only */
}

static void cpu_measure(thr_backend *b, thr_metrics_partial *out) {
  cpu_state *s = state(b);
  thr_ctx c = make_ctx(s);
  thr_agents *a = &s->a;
  long n = (long)a->n_owned;
  long at_goal = 0, pairs = 0, walls = 0, fallbacks = 0, forced = 0, in_state[THR_MAX_BSTATES] = {0};
  int64_t speed_q = 0;
  double max_ov = 0.0, max_rel = 0.0, max_wall = 0.0;
  const int32_t *bstate = c.prm.orca.n_bstates > 0 ? a->bstate : NULL;
#pragma omp parallel for schedule(static) reduction(+ : at_goal, pairs, walls, speed_q, fallbacks, forced) \
    reduction(+ : in_state[:THR_MAX_BSTATES]) reduction(max : max_ov, max_rel, max_wall)
  for (long i = 0; i < n; ++i) {
    thr_agent_metrics m = thr_agent_measure(&c, (int)i);
    if (bstate) in_state[bstate[i]]++;
    at_goal += (a->flags[i] & THR_FLAG_AT_GOAL) ? 1 : 0;
    fallbacks += (a->flags[i] & THR_FLAG_LP_FALLBACK) ? 1 : 0;
    forced += (a->flags[i] & THR_FLAG_FORCED) ? 1 : 0;
    pairs += m.overlaps;
    walls += m.wall_overlap > 0.0f ? 1 : 0;
    speed_q += thr_speed_quanta(thr_agent_speed(&c, (int)i));
    if (m.max_overlap > max_ov) max_ov = m.max_overlap;
    if (m.max_overlap_rel > max_rel) max_rel = m.max_overlap_rel;
    if (m.wall_overlap > max_wall) max_wall = m.wall_overlap;
  }
  out->agents = n;
  out->at_goal = at_goal;
  out->lp_fallbacks = fallbacks;
  out->forced = forced;
  memcpy(out->in_state, in_state, sizeof in_state);
  out->overlap_pairs = pairs;
  out->wall_penetrations = walls;
  out->speed_sum_q = speed_q;
  out->max_overlap = max_ov;
  out->max_overlap_ratio = max_rel;
  out->max_wall_overlap = max_wall;
}

static int cpu_formation_measure(thr_backend *b, int n, int64_t *sq_q, int64_t *broken) {
  cpu_state *s = state(b);
  thr_ctx c = make_ctx(s);
  (void)n;
  for (size_t i = 0; i < s->a.n_owned; ++i) { /* only at output steps: one thread does */
    int f = s->a.formation[i];
    if (f < 0) continue;
    sq_q[f] += thr_agent_formation_error(&c, (int)i, f);
    broken[f] += !thr_agent_formation_holds(&c, (int)i);
  }
  return 0;
}

static void cpu_sync(thr_backend *b) { (void)b; }

/* ---- evacuation ------------------------------------------------------------- */

/* Grow a backend-owned host buffer of n items. */
static int grow_buffer(void **p, size_t *cap, size_t n, size_t elem) {
  if (n <= *cap) return 0;
  size_t want = *cap ? *cap : 64;
  while (want < n) want *= 2;
  void *q = realloc(*p, want * elem);
  if (!q) return -1;
  *p = q;
  *cap = want;
  return 0;
}

static int cpu_evac_collect(thr_backend *b, thr_evac_collect *out) {
  cpu_state *s = state(b);
  thr_agents *a = &s->a;
  size_t n_ex = 0, n_ev = 0, keep = 0;
  for (size_t i = 0; i < a->n_owned; ++i) {
    uint32_t f = a->flags[i];
    if (f & THR_FLAG_EXITED) {
      if (grow_buffer((void **)&s->exited, &s->exited_cap, n_ex + 1, sizeof *s->exited)) return out_of_memory(b, n_ex);
      thr_agent_load(a, i, &s->exited[n_ex++]);
      continue;
    }
    if (f & (THR_FLAG_ARRIVED | THR_FLAG_SEATED)) {
      if (grow_buffer((void **)&s->events, &s->events_cap, n_ev + 1, sizeof *s->events)) return out_of_memory(b, n_ev);
      thr_stage_event e = {a->id[i], f & (THR_FLAG_ARRIVED | THR_FLAG_SEATED), a->stage[i], a->slot[i],
                           a->journey[i]};
      s->events[n_ev++] = e;
      a->flags[i] = f & ~(uint32_t)(THR_FLAG_ARRIVED | THR_FLAG_SEATED);
    }
    if (keep != i) { /* close the gaps of the removed, keeping the order */
      thr_agent_rec r;
      thr_agent_load(a, i, &r);
      thr_agent_store(a, keep, &r);
    }
    keep++;
  }
  if (n_ex) {
    a->n = a->n_owned = keep; /* ghosts dropped: the next exchange sets them */
    s->index_fresh = 0;
    s->parts.valid = 0;
  }
  out->exited = s->exited;
  out->n_exited = n_ex;
  out->events = s->events;
  out->n_events = n_ev;
  return 0;
}

static int cpu_evac_assign(thr_backend *b, const thr_stage_assign *as, size_t n) {
  cpu_state *s = state(b);
  thr_agents *a = &s->a;
  long owned = (long)a->n_owned;
  if (!n) return 0;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < owned; ++i) thr_agent_assign(a, (int)i, as, (int)n);
  return 0;
}

static int cpu_probe_free(thr_backend *b, const thr_vec2 *pts, const float *radius, size_t n,
                          unsigned char *free_out) {
  cpu_state *s = state(b);
  const thr_agents *a = &s->a;
  float scale = s->base.prm.radius_scale;
  thr_probe_box bx = thr_probe_box_of(pts, radius, n, s->world->max_radius, scale);
  memset(free_out, 1, n);
  long owned = (long)a->n_owned;
  /* a free flag only ever goes from 1 to 0: the order of threads does not matter */
#pragma omp parallel for schedule(static)
  for (long i = 0; i < owned; ++i) {
    if (!thr_probe_box_holds(bx, a->x[i])) continue;
    for (size_t k = 0; k < n; ++k)
      if (thr_agent_blocks_point(pts[k], radius[k], a->x[i], a->radius[i], scale)) {
#pragma omp atomic write
        free_out[k] = 0;
      }
  }
  return 0;
}

/* ---- congestion-aware routing: the host engine over the owned agents ---- */

static int cpu_route_setup(thr_backend *b, const thr_route_setup *rs) {
  cpu_state *s = state(b);
  thr_route_engine_free(&s->route);
  if (thr_route_engine_init(&s->route, rs)) return thr_backend_error(b, "out of memory for the routing grid");
  return 0;
}

static int cpu_route_count(thr_backend *b, int32_t *host) {
  cpu_state *s = state(b);
  thr_route_engine_count(&s->route, &s->base.ev, s->a.x, s->a.v, s->a.n_owned);
  if (host) memcpy(host, s->route.counts, (size_t)s->route.rs.n_counts * s->route.cells * sizeof *host);
  return 0;
}

static int cpu_route_count_get(thr_backend *b, int32_t *host) {
  cpu_state *s = state(b);
  memcpy(host, s->route.counts, (size_t)s->route.rs.n_counts * s->route.cells * sizeof *host);
  return 0;
}

static int cpu_route_set_counts(thr_backend *b, const int32_t *host) {
  cpu_state *s = state(b);
  memcpy(s->route.counts, host, (size_t)s->route.rs.n_counts * s->route.cells * sizeof *host);
  return 0;
}

static int cpu_route_basins(thr_backend *b, int64_t *basins) {
  cpu_state *s = state(b);
  thr_route_engine_basins(&s->route, s->world->fields, basins);
  return 0;
}

/* The kernels read the world's fields where they are: the engine writes them there. */
static int cpu_route_solve(thr_backend *b, const float *exit_offset, long *rounds) {
  cpu_state *s = state(b);
  *rounds = thr_route_engine_solve(&s->route, exit_offset, s->world->fields);
  return 0;
}

static int cpu_evac_measure(thr_backend *b, thr_evac_counts *out) {
  cpu_state *s = state(b);
  const thr_world *w = s->world;
  const thr_agents *a = &s->a;
  for (size_t i = 0; i < a->n_owned; ++i) {
    thr_vec2 x = a->x[i];
    int64_t q = thr_speed_quanta(v2_len(a->v[i]));
    for (int k = 0; out->area_agents && k < w->n_areas; ++k) {
      const int *vf = w->area_vfirst;
      if (!thr_polygon_contains(w->area_verts + vf[k], vf[k + 1] - vf[k], x)) continue;
      out->area_agents[k]++;
      out->area_speed[k] += q;
    }
    int cell = thr_map_cell(w->map_ox, w->map_oy, w->map_cell, w->map_nx, w->map_ny, x);
    if (out->map_agents && cell >= 0) {
      out->map_agents[cell]++;
      out->map_speed[cell] += q;
    }
  }
  for (int k = 0; out->line_crossings && k < w->n_lines; ++k) {
    out->line_crossings[k] += s->line_cross[k];
    s->line_cross[k] = 0;
  }
  return 0;
}

static uint64_t cpu_nonfinite(thr_backend *b, int wait, int *late) {
  (void)wait;
  if (late) *late = 0;
  return state(b)->nonfinite;
}

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
  s->parts.valid = 0;
  thr_agents *a = &s->a;
  for (size_t k = 0; k < n; ++k) thr_agent_load(a, (size_t)idx[k], &recs[k]);
  /* the agents that stay at or above `keep`, in order, fill the gaps below
   * it, in order: O(n) moves, and the CUDA backend's rule
   * (thr_cuda_remove_owned), so both keep the same storage order */
  size_t keep = a->n_owned - n, hole = 0, listed = 0;
  while (listed < n && (size_t)idx[listed] < keep) listed++;
  for (size_t i = keep; i < a->n_owned; ++i) {
    if (listed < n && (size_t)idx[listed] == i) {
      listed++;
      continue;
    }
    thr_agent_rec r;
    thr_agent_load(a, i, &r);
    thr_agent_store(a, (size_t)idx[hole++], &r);
  }
  a->n = a->n_owned = keep;
  s->index_fresh = 0;
  return 0;
}

static int cpu_append_owned(thr_backend *b, const thr_agent_rec *recs, size_t n) {
  cpu_state *s = state(b);
  s->parts.valid = 0;
  thr_agents *a = &s->a;
  if (thr_agents_reserve(a, a->n_owned + n) || ensure_scratch(s)) return out_of_memory(b, a->n_owned + n);
  for (size_t k = 0; k < n; ++k) thr_agent_store(a, a->n_owned + k, &recs[k]);
  a->n = a->n_owned = a->n_owned + n;
  s->index_fresh = 0;
  return 0;
}

static int cpu_pack_ghosts(thr_backend *b, const int *idx, size_t n, thr_ghost_rec *out) {
  cpu_state *s = state(b);
  for (size_t k = 0; k < n; ++k) thr_ghost_load(&s->a, (size_t)idx[k], &out[k]);
  return 0;
}

static int cpu_set_ghosts(thr_backend *b, const thr_ghost_rec *g, size_t n) {
  cpu_state *s = state(b);
  thr_agents *a = &s->a;
  if (thr_agents_reserve(a, a->n_owned + n) || ensure_scratch(s)) return out_of_memory(b, a->n_owned + n);
  for (size_t k = 0; k < n; ++k) thr_ghost_store(a, a->n_owned + k, &g[k]);
  a->n = a->n_owned + n;
  return 0;
}

static int cpu_set_halo_send(thr_backend *b, const int *idx, size_t n) {
  cpu_state *s = state(b);
  if (n > s->halo_cap) {
    int *q = realloc(s->halo_idx, n * sizeof *q);
    if (!q) return out_of_memory(b, n);
    s->halo_idx = q;
    s->halo_cap = n;
  }
  if (n) memcpy(s->halo_idx, idx, n * sizeof *idx);
  s->n_halo = n;
  return 0;
}

/* Buffers hold the fields of the mask one after the other (field order),
 * each as an array over the agents. */
static void cpu_pack_halo(thr_backend *b, thr_field_mask mask, void *buf) {
  cpu_state *s = state(b);
  char *out = buf;
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (!(mask & ((thr_field_mask)1 << f))) continue;
    size_t elem;
    const char *src = *(char **)thr_agents_field(&s->a, f, &elem);
    for (size_t k = 0; k < s->n_halo; ++k) memcpy(out + k * elem, src + (size_t)s->halo_idx[k] * elem, elem);
    out += s->n_halo * elem;
  }
}

static void cpu_unpack_halo(thr_backend *b, thr_field_mask mask, const void *buf) {
  cpu_state *s = state(b);
  const char *in = buf;
  size_t first = s->a.n_owned, n = s->a.n - s->a.n_owned;
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (!(mask & ((thr_field_mask)1 << f))) continue;
    size_t elem;
    char *dst = *(char **)thr_agents_field(&s->a, f, &elem);
    if (n) memcpy(dst + first * elem, in, n * elem);
    in += n * elem;
  }
}

static int cpu_exchange_select(thr_backend *b, int kind, thr_window skip, const thr_window *boxes, int nbox,
                               size_t *counts, uint64_t *sums) {
  return thr_cpu_exchange_select(b, &state(b)->xch, kind, skip, boxes, nbox, counts, sums);
}

static void cpu_destroy(thr_backend *b) {
  if (!b) return;
  cpu_state *s = state(b);
  thr_agents_free(&s->a);
  free_scratch(s);
  free(s->offset);
  free(s->cursor);
  free(s->halo_idx);
  free(s->parts.list);
  free(s->exited);
  thr_route_engine_free(&s->route);
  free(s->events);
  free(s->hbuf[0]);
  free(s->hbuf[1]);
  thr_cpu_exchange_free(&s->xch);
  free(s->forms);
  free(s);
  free(b);
}

static const thr_backend_ops cpu_ops = {
    .name = "cpu",
    .destroy = cpu_destroy,
    .set_world = cpu_set_world,
    .set_agents = cpu_set_agents,
    .get_agents = cpu_get_agents,
    .copy_out = cpu_copy_out,
    .n_owned = cpu_n_owned,
    .view_begin = cpu_view_begin,
    .view_end = cpu_view_end,
    .set_formations = cpu_set_formations,
    .predict = cpu_predict,
    .sort_owned = cpu_sort_owned,
    .build_index = cpu_build_index,
    .pass = cpu_pass,
    .measure = cpu_measure,
    .formation_measure = cpu_formation_measure,
    .nonfinite = cpu_nonfinite,
    .evac_collect = cpu_evac_collect,
    .evac_assign = cpu_evac_assign,
    .insert = cpu_append_owned,
    .probe_free = cpu_probe_free,
    .evac_measure = cpu_evac_measure,
    .route_setup = cpu_route_setup,
    .route_count = cpu_route_count,
    .route_count_get = cpu_route_count_get,
    .route_set_counts = cpu_route_set_counts,
    .route_basins = cpu_route_basins,
    .route_solve = cpu_route_solve,
    .sync = cpu_sync,
};

static const thr_backend_comm_ops cpu_comm_ops = {
    .owned_cells = cpu_owned_cells,
    .select_outside = cpu_select_outside,
    .id_checksum = cpu_id_checksum,
    .extract_owned = cpu_extract_owned,
    .append_owned = cpu_append_owned,
    .pack_ghosts = cpu_pack_ghosts,
    .set_ghosts = cpu_set_ghosts,
    .set_halo_send = cpu_set_halo_send,
    .set_interior = cpu_set_interior,
    .halo_device_mode = cpu_halo_device_mode,
    .halo_stream_mode = cpu_halo_stream_mode,
    .halo_buffer = cpu_halo_buffer,
    .pack_halo = cpu_pack_halo,
    .unpack_halo = cpu_unpack_halo,
    .exchange_select = cpu_exchange_select,
    .exchange_copy_out = thr_cpu_exchange_copy_out,
    .exchange_receive = thr_cpu_exchange_receive,
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
  s->nonfinite = s->nonfinite_part = THR_ALL_FINITE;
  b->ops = &cpu_ops;
  b->comm = &cpu_comm_ops;
  b->impl = s;
  return b;
}
