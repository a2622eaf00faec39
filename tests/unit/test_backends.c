/* Backend conformance: one test body for every backend (HOOMD's device
 * fixture, in C). THRONG_TEST_BACKEND=cpu (default) or cuda picks it; CTest
 * registers every case twice, unit.backends.* (CPU) and gpu.backends.*
 * (CUDA: skipped, exit 77, without a CUDA build or a GPU).
 *
 *  - each pass on small fixtures against hand-computed results;
 *  - each pass of a step on a crowd with every constraint on against a
 *    reference: the shared per-agent functions called directly over an
 *    index built here independently (qsort by cell and id). Bit for bit on
 *    the CPU and in strict CUDA builds, within TOL_FAST otherwise;
 *  - a pass split into interior and boundary parts equals the whole pass;
 *  - every field through the data-movement table: records (migration),
 *    ghost records, halo forwarding of each field. */
#include <stdlib.h>

static int setup_backend(void);
#define THR_TEST_SETUP setup_backend
#include "check.h"

#include "kernels/backend_comm.h"
#include "kernels/context.h"
#include "kernels/pass_table.h"
#include "kernels/rng.h"

/* The default CUDA build trades the last bits for speed (docs/backends.md). */
#define TOL_FAST 2e-4

static const char *backend_name(void) {
  const char *b = getenv("THRONG_TEST_BACKEND");
  return b && *b ? b : "cpu";
}

static int exact(void) {
#ifdef THRONG_STRICT_FP
  return 1;
#else
  return strcmp(backend_name(), "cpu") == 0;
#endif
}

static thr_backend *make_backend(void) {
  thr_backend *b = NULL;
  if (!strcmp(backend_name(), "cpu")) b = thr_backend_cpu_create();
#ifdef THRONG_HAVE_CUDA
  char err[256];
  if (!strcmp(backend_name(), "cuda")) b = thr_backend_cuda_create(0, err, sizeof err);
#endif
  if (!b) {
    fprintf(stderr, "cannot create backend %s\n", backend_name());
    exit(1);
  }
  return b;
}

static int setup_backend(void) {
  if (!strcmp(backend_name(), "cpu")) return 0;
#ifdef THRONG_HAVE_CUDA
  if (!strcmp(backend_name(), "cuda") && thr_cuda_device_count() > 0) return 0;
  fprintf(stderr, "SKIPPED: no CUDA GPU visible\n");
#else
  fprintf(stderr, "SKIPPED: this build has no CUDA backend\n");
#endif
  return 77;
}

/* ---- fixtures ------------------------------------------------------------- */

typedef struct fixture {
  thr_scenario sc;
  thr_world w;
  thr_params prm;
  thr_agents a;
} fixture;

/* A 20 x 20 m room with a wall segment and a square pillar, one goal
 * rectangle, and the paper's parameters (every constraint on). */
static void fixture_init(fixture *f, int with_obstacles) {
  memset(f, 0, sizeof *f);
  thr_scenario *sc = &f->sc;
  sc->world_min = v2(0.0f, 0.0f);
  sc->world_max = v2(20.0f, 20.0f);
  thr_params *p = &sc->prm;
  p->dt = 1.0f / 48.0f;
  p->alpha = 0.0385f;
  p->omega = 1.2f;
  p->stability_iterations = 1;
  p->solver_iterations = 6;
  p->radius_scale = 1.05f;
  p->contact_on = p->friction_on = p->longrange_on = p->avoidance_on = p->walls_on = p->xsph_on = 1;
  p->contact_stiffness = 1.0f;
  p->mu_static = 0.21f;
  p->mu_kinetic = 0.10f;
  p->lr_stiffness = p->av_stiffness = 0.24f;
  p->lr_tau0 = p->av_tau0 = 20.0f;
  p->lr_radius = p->av_radius = 3.0f;
  p->wall_stiffness = 1.0f;
  p->xsph_c = 0.1f;
  p->xsph_h = 3.5f;
  p->max_speed = 2.5f;
  p->arrive_radius = 0.5f;
  p->skin = 0.3f;
  static int vfirst[3] = {0, 2, 6}, closed[2] = {0, 1}, line[2] = {1, 2};
  static thr_vec2 verts[6] = {{2.0f, 15.0f}, {12.0f, 15.0f}, {9.0f, 6.0f}, {11.0f, 6.0f}, {11.0f, 8.0f}, {9.0f, 8.0f}};
  static thr_goal goals[1] = {{THR_GOAL_RECT, 17.0f, 8.0f, 19.0f, 12.0f, 0.0f}};
  static int set_first[2] = {0, 1}, set_items[1] = {0};
  sc->obs_vfirst = vfirst;
  if (with_obstacles) {
    sc->n_obstacles = 2;
    sc->n_verts = 6;
    sc->obs_closed = closed;
    sc->obs_line = line;
    sc->verts = verts;
  }
  sc->n_goals = 1;
  sc->goals = goals;
  sc->n_sets = 1;
  sc->set_first = set_first;
  sc->set_items = set_items;
  f->prm = sc->prm;
  char err[256];
  if (thr_world_init(&f->w, sc, &f->prm, 0.5f, err, sizeof err)) {
    fprintf(stderr, "world: %s\n", err);
    exit(1);
  }
  thr_agents_init(&f->a);
}

static void fixture_free(fixture *f) {
  thr_world_free(&f->w);
  thr_agents_free(&f->a);
}

static void add_agent(fixture *f, uint32_t id, thr_vec2 x, thr_vec2 p, thr_vec2 v, float radius) {
  thr_agent_rec r;
  thr_agent_rec_blank(&r);
  r.id = id;
  r.x = x;
  r.p = p;
  r.v = v;
  r.radius = radius;
  r.inv_mass = 1.0f;
  r.pref_speed = 1.4f;
  r.goal_set = THR_GOALSET_NONE;
  if (thr_agents_push(&f->a, &r)) exit(1);
  f->a.n_owned = f->a.n;
}

/* A crowd of n agents on a jittered lattice, some near the walls, heading
 * for the goal or for personal points, with random velocities. */
static void add_crowd(fixture *f, int n) {
  for (int k = 0; k < n; ++k) {
    uint32_t id = (uint32_t)(3 * k + 1); /* ids not in storage order */
    float x = 1.0f + 0.95f * (float)(k % 18) + 0.3f * thr_rng_uniform(7, id, 0, 1);
    float y = 1.0f + 0.95f * (float)(k / 18) + 0.3f * thr_rng_uniform(7, id, 0, 2);
    thr_vec2 v = v2(2.0f * thr_rng_uniform(7, id, 0, 3) - 1.0f, 2.0f * thr_rng_uniform(7, id, 0, 4) - 1.0f);
    thr_vec2 pos = v2(x, y);
    add_agent(f, id, pos, pos, v, 0.2f + 0.25f * thr_rng_uniform(7, id, 0, 5));
    thr_agent_rec r;
    thr_agent_load(&f->a, f->a.n - 1, &r);
    r.goal_set = k % 3 ? 0 : THR_GOALSET_PERSONAL;
    r.goal = v2(18.0f - x * 0.5f, 19.0f - y);
    r.inv_mass = 1.0f / (0.5f + thr_rng_uniform(7, id, 0, 6));
    thr_agent_store(&f->a, f->a.n - 1, &r);
  }
}

/* A backend holding the fixture's agents, indexed (one rank, no ghosts). */
static thr_backend *load(fixture *f) {
  thr_backend *b = make_backend();
  if (b->ops->set_world(b, &f->w, &f->prm) || b->ops->set_agents(b, &f->a)) {
    fprintf(stderr, "backend: %s\n", b->error);
    exit(1);
  }
  b->ops->sort_owned(b);
  b->ops->build_index(b);
  return b;
}

static thr_field_mask all_fields(void) { return ((thr_field_mask)1 << THR_F_COUNT) - 1; }

/* The backend's agents (all fields), in its storage order. */
static void snapshot(thr_backend *b, thr_agents *out) {
  thr_agents_init(out);
  if (b->ops->copy_out(b, out, all_fields())) exit(1);
}

/* Load the fixture into a backend, run one pass over every agent, and take
 * the result. */
static void pass_and_snapshot(fixture *f, int kind, thr_agents *out) {
  thr_backend *b = load(f);
  b->ops->pass(b, kind, THR_PART_ALL);
  snapshot(b, out);
  b->ops->destroy(b);
}

static int agent_of_id(const thr_agents *a, uint32_t id) {
  for (size_t i = 0; i < a->n; ++i)
    if (a->id[i] == id) return (int)i;
  return -1;
}

/* ---- passes on hand-computed fixtures --------------------------------------- */

/* Two disks of radius 0.5, 0.8 m apart: contact distance 1.05, overlap
 * 0.25, each moves 0.125 away, times omega 1.2 (one constraint): 0.15.
 * The stability pass moves x^n and x* alike. */
THR_TEST(stability_pushes_a_pair_apart) {
  fixture f;
  fixture_init(&f, 0);
  f.prm.longrange_on = f.prm.avoidance_on = f.prm.xsph_on = 0;
  add_agent(&f, 0, v2(5.0f, 5.0f), v2(5.1f, 5.0f), v2(0, 0), 0.5f);
  add_agent(&f, 1, v2(5.8f, 5.0f), v2(5.9f, 5.0f), v2(0, 0), 0.5f);
  thr_agents s;
  pass_and_snapshot(&f, THR_PASS_STABILITY, &s);
  int i0 = agent_of_id(&s, 0), i1 = agent_of_id(&s, 1);
  CHECK_NEAR(s.x[i0].x, 4.85f, 1e-6);
  CHECK_NEAR(s.x[i1].x, 5.95f, 1e-6);
  CHECK_NEAR(s.p[i0].x, 4.95f, 1e-6);
  CHECK_NEAR(s.p[i1].x, 6.05f, 1e-6);
  CHECK(s.x[i0].y == 5.0f && s.p[i1].y == 5.0f);
  thr_agents_free(&s);
  fixture_free(&f);
}

/* The contact pass acts on x* only; a head-on pair has no tangential
 * motion, so friction adds nothing. Masses 1 and 3: the light one takes
 * 3/4 of the 0.25 overlap (times omega 1.2 = 0.225), the heavy one 0.075. */
THR_TEST(contact_splits_by_inverse_mass) {
  fixture f;
  fixture_init(&f, 0);
  f.prm.longrange_on = f.prm.avoidance_on = f.prm.xsph_on = 0;
  add_agent(&f, 0, v2(5.0f, 5.0f), v2(5.0f, 5.0f), v2(0, 0), 0.5f);
  add_agent(&f, 1, v2(5.8f, 5.0f), v2(5.8f, 5.0f), v2(0, 0), 0.5f);
  f.a.inv_mass[1] = 1.0f / 3.0f;
  thr_agents s;
  pass_and_snapshot(&f, THR_PASS_CONTACT, &s);
  int i0 = agent_of_id(&s, 0), i1 = agent_of_id(&s, 1);
  CHECK_NEAR(s.p[i0].x, 5.0f - 0.225f, 1e-6);
  CHECK_NEAR(s.p[i1].x, 5.8f + 0.075f, 1e-6);
  CHECK(s.x[i0].x == 5.0f && s.x[i1].x == 5.8f);
  thr_agents_free(&s);
  fixture_free(&f);
}

/* An agent 0.3 m from the wall segment y = 15 (radius 0.5 x 1.05): pushed
 * out by 0.225 x omega 1.2 = 0.27 along the normal. */
THR_TEST(contact_with_a_wall) {
  fixture f;
  fixture_init(&f, 1);
  f.prm.longrange_on = f.prm.avoidance_on = f.prm.xsph_on = 0;
  add_agent(&f, 0, v2(6.0f, 14.7f), v2(6.0f, 14.7f), v2(0, 0), 0.5f);
  thr_agents s;
  pass_and_snapshot(&f, THR_PASS_CONTACT, &s);
  CHECK_NEAR(s.p[0].y, 14.7f - 0.27f, 1e-5);
  CHECK_NEAR(s.p[0].x, 6.0f, 1e-6);
  thr_agents_free(&s);
  fixture_free(&f);
}

/* Velocity pass: vnew = (x* - x)/dt; finalize (XSPH off): the speed clamp
 * of 2.5 m/s, x = x*, and the goal flag of an agent inside its goal. */
THR_TEST(velocity_then_finalize) {
  fixture f;
  fixture_init(&f, 0);
  f.prm.longrange_on = f.prm.avoidance_on = f.prm.xsph_on = 0;
  add_agent(&f, 0, v2(1.0f, 1.0f), v2(1.1f, 1.05f), v2(0, 0), 0.3f);
  add_agent(&f, 1, v2(18.0f, 10.0f), v2(18.01f, 10.0f), v2(0, 0), 0.3f);
  f.a.goal_set[1] = 0; /* inside the goal rectangle */
  thr_backend *b = load(&f);
  b->ops->pass(b, THR_PASS_VELOCITY, THR_PART_ALL);
  thr_agents s;
  snapshot(b, &s);
  int i0 = agent_of_id(&s, 0), i1 = agent_of_id(&s, 1);
  CHECK_NEAR(s.vnew[i0].x, 4.8f, 1e-4);
  CHECK_NEAR(s.vnew[i0].y, 2.4f, 1e-4);
  CHECK_NEAR(s.vnew[i1].x, 0.48f, 1e-4);
  thr_agents_free(&s);
  b->ops->pass(b, THR_PASS_FINALIZE, THR_PART_ALL);
  snapshot(b, &s);
  double speed = sqrt((double)s.v[i0].x * s.v[i0].x + (double)s.v[i0].y * s.v[i0].y);
  CHECK_NEAR(speed, 2.5, 1e-5);
  CHECK_NEAR(s.v[i0].x / s.v[i0].y, 2.0, 1e-5);
  CHECK(s.x[i0].x == s.p[i0].x && s.x[i0].y == s.p[i0].y);
  CHECK((s.flags[i1] & THR_FLAG_AT_GOAL) != 0);
  CHECK((s.flags[i0] & THR_FLAG_AT_GOAL) == 0);
  thr_agents_free(&s);
  b->ops->destroy(b);
  fixture_free(&f);
}

/* ---- every pass of a step against the shared functions ------------------- */

static const uint32_t *ref_ids;
static const int *ref_cells;
static int cmp_cell_id(const void *pa, const void *pb) {
  int a = *(const int *)pa, b = *(const int *)pb;
  if (ref_cells[a] != ref_cells[b]) return ref_cells[a] < ref_cells[b] ? -1 : 1;
  return ref_ids[a] < ref_ids[b] ? -1 : (ref_ids[a] > ref_ids[b]);
}

/* The neighbour index of s built from scratch: cells from x*, items in
 * (cell, id) order by qsort. */
typedef struct ref_index {
  int *cell_of, *order, *offset;
} ref_index;

static void ref_index_build(ref_index *r, const fixture *f, const thr_agents *s) {
  thr_grid_view g = thr_world_grid_geometry(&f->w);
  size_t ncell = (size_t)g.nx * (size_t)g.ny;
  r->cell_of = malloc((s->n + 1) * sizeof(int));
  r->order = malloc((s->n + 1) * sizeof(int));
  r->offset = calloc(ncell + 1, sizeof(int));
  for (size_t i = 0; i < s->n; ++i) {
    r->cell_of[i] = thr_local_cell(&g, s->p[i]);
    r->order[i] = (int)i;
    r->offset[r->cell_of[i] + 1]++;
  }
  for (size_t c = 0; c < ncell; ++c) r->offset[c + 1] += r->offset[c];
  ref_ids = s->id;
  ref_cells = r->cell_of;
  qsort(r->order, s->n, sizeof(int), cmp_cell_id);
}

static void ref_index_free(ref_index *r) {
  free(r->cell_of);
  free(r->order);
  free(r->offset);
}

static thr_ctx ref_ctx(const fixture *f, const thr_agents *s, const ref_index *r) {
  thr_ctx c = thr_ctx_static(&f->w, &f->prm);
  c.obs = thr_world_obstacle_view(&f->w);
  c.goals = thr_world_goal_view(&f->w);
  thr_ctx_bind(&c, s, r->offset, r->order, r->cell_of);
  return c;
}

/* What pass `kind` makes of state s, computed here over index r (built when
 * the backend built its own: once per step, from x* after prediction); into
 * out (a copy of s). */
static void ref_pass(const fixture *f, const ref_index *r, const thr_agents *s, int kind, thr_agents *out) {
  thr_ctx c = ref_ctx(f, s, r);
  thr_agents_init(out);
  thr_agents_reserve(out, s->n + 1);
  for (int fld = 0; fld < THR_F_COUNT; ++fld) {
    size_t elem = thr_field_table[fld].elem;
    memcpy(*thr_agents_field(out, fld, NULL), *thr_agents_field((thr_agents *)s, fld, NULL), s->n * elem);
  }
  out->n = s->n;
  out->n_owned = s->n_owned;
  for (int i = 0; i < (int)s->n_owned; ++i) {
    switch (thr_pass_stage(kind)) {
      case THR_STAGE_STABILITY: {
        thr_vec2 dx = thr_agent_stability(&c, i);
        out->x[i] = v2_add(s->x[i], dx);
        out->p[i] = v2_add(s->p[i], dx);
        break;
      }
      case THR_STAGE_SOLVER:
        out->p[i] = thr_pass_solver_agent(kind, &c, i);
        break;
      case THR_STAGE_VELOCITY:
        out->vnew[i] = thr_agent_velocity(&c, i);
        break;
      default: {
        thr_ctx cv = c;
        cv.v = s->vnew;
        out->v[i] = thr_agent_xsph_clamp(&cv, i, s->v[i]);
        out->x[i] = s->p[i];
        if (thr_agent_at_goal(&cv, out->x[i], s->goal_set[i], s->goal[i])) out->flags[i] |= THR_FLAG_AT_GOAL;
      }
    }
  }
}

static int vec_differs(thr_vec2 a, thr_vec2 b) {
  if (exact()) return memcmp(&a, &b, sizeof a) != 0;
  return fabsf(a.x - b.x) > TOL_FAST * (1.0f + fabsf(b.x)) || fabsf(a.y - b.y) > TOL_FAST * (1.0f + fabsf(b.y));
}

/* Count the owned agents whose x, x*, v, vnew or flags differ. */
static int compare_states(const char *what, const thr_agents *got, const thr_agents *want) {
  int bad = 0;
  for (size_t i = 0; i < want->n_owned; ++i) {
    int d = vec_differs(got->x[i], want->x[i]) || vec_differs(got->p[i], want->p[i]) ||
            vec_differs(got->v[i], want->v[i]) || vec_differs(got->vnew[i], want->vnew[i]) ||
            got->flags[i] != want->flags[i] || got->id[i] != want->id[i];
    if (d && !bad)
      fprintf(stderr, "%s: agent %u: p (%.9g, %.9g), reference (%.9g, %.9g)\n", what, want->id[i],
              (double)got->p[i].x, (double)got->p[i].y, (double)want->p[i].x, (double)want->p[i].y);
    bad += d;
  }
  return bad;
}

THR_TEST(every_pass_matches_the_shared_functions) {
  fixture f;
  fixture_init(&f, 1);
  add_crowd(&f, 300);
  thr_backend *b = load(&f);
  b->ops->predict(b, 0.0f);
  b->ops->sort_owned(b);
  b->ops->build_index(b);
  thr_agents before, want, got;
  snapshot(b, &before);
  ref_index r;
  ref_index_build(&r, &f, &before);
  int seq[] = {THR_PASS_STABILITY, THR_PASS_LONG_RANGE, THR_PASS_CONTACT, THR_PASS_LONG_RANGE,
               THR_PASS_CONTACT, THR_PASS_VELOCITY, THR_PASS_FINALIZE};
  for (size_t k = 0; k < sizeof seq / sizeof seq[0]; ++k) {
    ref_pass(&f, &r, &before, seq[k], &want);
    b->ops->pass(b, seq[k], THR_PART_ALL);
    snapshot(b, &got);
    int bad = compare_states(thr_pass_label(seq[k]), &got, &want);
    if (bad) fprintf(stderr, "pass %zu (%s): %d of %zu agents differ\n", k, thr_pass_label(seq[k]), bad, want.n);
    CHECK(bad == 0);
    thr_agents_free(&before);
    thr_agents_free(&want);
    before = got;
  }
  CHECK(before.n == 300);
  ref_index_free(&r);
  thr_agents_free(&before);
  b->ops->destroy(b);
  fixture_free(&f);
}

/* A new window between sort_owned and build_index renumbers the cells even
 * where no agent moved: a re-partition that hands a rank no ghosts (found
 * by issue 21's evacuation runs on 4 ranks, where the CPU backend kept
 * sort_owned's cells and a rank's agents lost every neighbour for a step).
 * The passes must see what a backend loaded with that window sees. */
THR_TEST(a_new_window_after_sort_owned_renumbers_the_cells) {
  fixture f;
  fixture_init(&f, 1);
  add_crowd(&f, 150);
  thr_window narrow = f.w.window;
  narrow.nx -= 2; /* the two last columns hold no agent */
  int kinds[] = {THR_PASS_LONG_RANGE, THR_PASS_CONTACT};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
    thr_window full = {0, 0, f.w.gnx, f.w.gny};
    CHECK(thr_world_set_window(&f.w, full, &f.prm) == 0);
    thr_backend *b = load(&f);
    b->ops->predict(b, 0.0f);
    b->ops->sort_owned(b);
    CHECK(thr_world_set_window(&f.w, narrow, &f.prm) == 0);
    CHECK(b->ops->set_world(b, &f.w, &f.prm) == 0);
    b->ops->build_index(b);
    b->ops->pass(b, kinds[k], THR_PART_ALL);
    thr_agents got, want;
    snapshot(b, &got);
    thr_backend *r = load(&f); /* the narrow window from the start */
    r->ops->predict(r, 0.0f);
    r->ops->sort_owned(r);
    r->ops->build_index(r);
    r->ops->pass(r, kinds[k], THR_PART_ALL);
    snapshot(r, &want);
    int bad = 0; /* the pass's result: x* (vnew is scratch before the velocity pass) */
    CHECK(got.n == want.n);
    for (size_t i = 0; i < want.n && i < got.n; ++i)
      bad += got.id[i] != want.id[i] || vec_differs(got.p[i], want.p[i]) || vec_differs(got.x[i], want.x[i]);
    if (bad) fprintf(stderr, "%s after a new window: %d of %zu agents differ\n", thr_pass_label(kinds[k]), bad, want.n);
    CHECK(bad == 0);
    thr_agents_free(&got);
    thr_agents_free(&want);
    b->ops->destroy(b);
    r->ops->destroy(r);
  }
  fixture_free(&f);
}

/* A new window in the middle of a step (a re-partition after predict)
 * keeps the step's time: the speed-density re-plan (HEADWAY) of agents
 * released at 1 s, at 2 s, equals the one without the new window. (Both
 * backends reset it to 0 once: released agents then stood for that step.) */
THR_TEST(a_new_window_keeps_the_step_time) {
  fixture f;
  fixture_init(&f, 0);
  f.prm.headway_on = 1;
  f.prm.hw_time_gap = 0.35f;
  f.prm.hw_min_gap = 0.05f;
  f.prm.hw_anticipation = 0.0f;
  f.prm.hw_width = 0.7f;
  f.prm.hw_range = 2.0f;
  add_crowd(&f, 100);
  for (size_t i = 0; i < f.a.n; ++i) f.a.release[i] = 1.0f;
  thr_agents got, want;
  for (int renew = 0; renew < 2; ++renew) {
    thr_backend *b = load(&f);
    b->ops->predict(b, 2.0f);
    b->ops->sort_owned(b);
    if (renew) CHECK(b->ops->set_world(b, &f.w, &f.prm) == 0);
    b->ops->build_index(b);
    b->ops->pass(b, THR_PASS_PLAN_VELOCITY, THR_PART_ALL); /* the plans the law reads, as the step runs them */
    b->ops->pass(b, THR_PASS_HEADWAY, THR_PART_ALL);
    snapshot(b, renew ? &got : &want);
    b->ops->destroy(b);
  }
  int bad = 0, moving = 0;
  for (size_t i = 0; i < want.n; ++i) {
    bad += vec_differs(got.p[i], want.p[i]);
    moving += v2_len2(v2_sub(want.p[i], want.x[i])) > 0.0f;
  }
  if (bad) fprintf(stderr, "headway after a new window: %d of %zu agents differ\n", bad, want.n);
  CHECK(bad == 0);
  CHECK(moving > 50); /* released: they walk */
  thr_agents_free(&got);
  thr_agents_free(&want);
  fixture_free(&f);
}

/* Sources' probe: a candidate is free when no owned agent is within the
 * contact distance, checked against a brute-force count, also right after
 * agents left the backend (the grid index is stale then: exits are removed
 * before sources probe). */
THR_TEST(probe_free_sees_the_owned_agents_as_they_are) {
  fixture f;
  fixture_init(&f, 0);
  add_crowd(&f, 120);
  thr_backend *b = load(&f);
  enum { NP = 40 };
  thr_vec2 pts[NP];
  float rad[NP];
  for (int k = 0; k < NP; ++k) { /* near agents (some blocked, some not) and in the open */
    const thr_vec2 at = f.a.x[(3 * k) % f.a.n];
    float off = 0.15f + 0.9f * thr_rng_uniform(11, (uint32_t)k, 0, 1);
    pts[k] = k < NP - 4 ? v2(at.x + off, at.y) : v2(16.0f + (float)k * 0.1f, 18.0f);
    rad[k] = 0.2f + 0.1f * thr_rng_uniform(11, (uint32_t)k, 0, 2);
  }
  for (int round = 0; round < 2; ++round) {
    if (round == 1) { /* 20 agents leave: the rest move down in storage */
      int idx[20];
      thr_agent_rec recs[20];
      for (int k = 0; k < 20; ++k) idx[k] = 5 * k;
      CHECK(b->comm->extract_owned(b, idx, 20, recs) == 0);
    }
    thr_agents now;
    snapshot(b, &now);
    unsigned char got[NP];
    CHECK(b->ops->probe_free(b, pts, rad, NP, got) == 0);
    int n_free = 0, bad = 0;
    for (int k = 0; k < NP; ++k) {
      int want = 1;
      for (size_t i = 0; i < now.n_owned; ++i)
        if (thr_agent_blocks_point(pts[k], rad[k], now.x[i], now.radius[i], f.prm.radius_scale)) want = 0;
      bad += got[k] != want;
      n_free += want;
    }
    if (bad) fprintf(stderr, "round %d: %d of %d probes wrong\n", round, bad, NP);
    CHECK(bad == 0);
    CHECK(n_free > 4 && n_free < NP); /* both answers occur */
    thr_agents_free(&now);
  }
  b->ops->destroy(b);
  fixture_free(&f);
}

/* Interior first, then boundary, equals the whole pass, bit for bit: every
 * pass a run of each model (PBD in 2D and 3D, ORCA with forces, the power
 * law) switches on, over the fields that run stores. */
THR_TEST(parts_equal_the_whole_pass) {
  for (int mode = 0; mode < 4; ++mode) {
    fixture f;
    fixture_init(&f, 1);
    f.prm.dim3 = mode == 1;
    f.prm.z_max = 10.0f;
    f.prm.model_kind = mode == 2 ? THR_MODEL_ORCA : mode == 3 ? THR_MODEL_POWERLAW : THR_MODEL_PBD;
    f.prm.orca.forces_on = mode == 2;
    f.prm.formation_on = mode == 0;
    add_crowd(&f, 300);
    thr_backend *whole = load(&f), *split = load(&f);
    thr_window interior = {3, 3, 6, 6};
    CHECK(split->comm->set_interior(split, interior) == 0);
    int passes = 0;
    for (int kind = 0; kind < THR_PASS_COUNT; ++kind) {
      if (!thr_pass_enabled(kind, &f.prm)) continue;
      passes++;
      whole->ops->pass(whole, kind, THR_PART_ALL);
      split->ops->pass(split, kind, THR_PART_INTERIOR);
      split->ops->pass(split, kind, THR_PART_BOUNDARY);
    }
    CHECK(passes >= 4);
    thr_agents a, c;
    snapshot(whole, &a);
    snapshot(split, &c);
    int same = a.n == c.n;
    for (int fld = 0; same && fld < THR_F_COUNT; ++fld) {
      /* STEP fields no pass of a mode writes hold what the allocation left */
      if (mode && !thr_field_table[fld].state) continue;
      size_t elem = thr_field_table[fld].elem;
      same = !memcmp(*thr_agents_field(&a, fld, NULL), *thr_agents_field(&c, fld, NULL), a.n * elem);
      if (!same) fprintf(stderr, "mode %d: field %s differs\n", mode, thr_field_table[fld].name);
    }
    CHECK(same);
    thr_agents_free(&a);
    thr_agents_free(&c);
    whole->ops->destroy(whole);
    split->ops->destroy(split);
    fixture_free(&f);
  }
}

/* ---- the data-movement table, field by field -------------------------------- */

/* Every byte of every field of agent i gets a value from (field, id). */
static void fill_pattern(thr_agents *a) {
  for (int fld = 0; fld < THR_F_COUNT; ++fld) {
    size_t elem;
    unsigned char *base = *(unsigned char **)thr_agents_field(a, fld, &elem);
    for (size_t i = 0; i < a->n; ++i)
      for (size_t k = 0; k < elem; ++k) base[i * elem + k] = (unsigned char)(31 * fld + 7 * a->id[i] + 3 * k + 1);
  }
}

static int field_equal(const thr_agents *a, size_t i, const thr_agents *b, size_t j, int fld) {
  size_t elem;
  const char *pa = *(char **)thr_agents_field((thr_agents *)a, fld, &elem);
  const char *pb = *(char **)thr_agents_field((thr_agents *)b, fld, NULL);
  return !memcmp(pa + i * elem, pb + j * elem, elem);
}

static void pattern_agents(fixture *f, int n) {
  for (int k = 0; k < n; ++k) add_agent(f, (uint32_t)(10 + k), v2(1.0f + 2.0f * (float)k, 3.0f), v2(0, 0), v2(0, 0), 0.3f);
  fill_pattern(&f->a);
  thr_field_mask absent = thr_fields_absent(&f->prm); /* blank where a run of f->prm stores nothing */
  for (int fld = 0; fld < THR_F_COUNT; ++fld)
    if (absent & ((thr_field_mask)1 << fld)) thr_field_fill_blank(*thr_agents_field(&f->a, fld, NULL), fld, 0, f->a.n);
  for (int k = 0; k < n; ++k) { /* positions the cells understand */
    f->a.p[k] = v2(1.0f + 2.0f * (float)k, 3.0f);
    f->a.id[k] = (uint32_t)(10 + k);
  }
}

/* Migration: extracted records hold every STATE field; appended records
 * reappear with all of them. */
THR_TEST(records_carry_every_state_field) {
  /* runs leave the fields they never set out of sorts (2D the 3D ones, PBD
   * the ORCA ones): each checked where it is used */
  for (int mode = 0; mode < 3; ++mode) {
    fixture f;
    fixture_init(&f, 0);
    f.prm.dim3 = mode == 1;
    f.prm.model_kind = mode == 2 ? THR_MODEL_ORCA : THR_MODEL_PBD;
    f.prm.z_max = 10.0f;
    pattern_agents(&f, 6);
    thr_backend *b = make_backend();
    CHECK(b->ops->set_world(b, &f.w, &f.prm) == 0 && b->ops->set_agents(b, &f.a) == 0);
    int idx[2] = {1, 4};
    thr_agent_rec recs[2];
    CHECK(b->comm->extract_owned(b, idx, 2, recs) == 0);
    CHECK(b->ops->n_owned(b) == 4);
    thr_agents one;
    thr_agents_init(&one);
    for (int k = 0; k < 2; ++k) thr_agents_push(&one, &recs[k]);
    for (int fld = 0; fld < THR_F_COUNT; ++fld)
      if (thr_field_table[fld].state)
        for (int k = 0; k < 2; ++k) CHECK(field_equal(&one, (size_t)k, &f.a, (size_t)idx[k], fld));
    CHECK(b->comm->append_owned(b, recs, 2) == 0);
    thr_agents got;
    thr_agents_init(&got);
    CHECK(b->ops->get_agents(b, &got) == 0);
    CHECK(got.n == 6);
    /* the last agent that stays (5) fills the gap below the new end (1), the
     * returned come last */
    int order[6] = {0, 5, 2, 3, 1, 4};
    for (int fld = 0; fld < THR_F_COUNT; ++fld)
      if (thr_field_table[fld].state && !(thr_fields_absent(&f.prm) & ((thr_field_mask)1 << fld)))
        for (int k = 0; k < 6; ++k) CHECK(field_equal(&got, (size_t)k, &f.a, (size_t)order[k], fld));
    thr_agents_free(&one);
    thr_agents_free(&got);
    b->ops->destroy(b);
    fixture_free(&f);
  }
}

/* Ghosts: the ghost record carries the GHOST fields; halo forwarding
 * carries any field (each alone, and all STEP fields together). */
THR_TEST(ghosts_and_halo_carry_their_fields) {
  fixture f;
  fixture_init(&f, 0);
  pattern_agents(&f, 5);
  thr_backend *src = make_backend(), *dst = make_backend();
  CHECK(src->ops->set_world(src, &f.w, &f.prm) == 0 && src->ops->set_agents(src, &f.a) == 0);
  /* give the STEP fields values too (a velocity pass), then take the
   * sender's state as the reference */
  src->ops->sort_owned(src);
  src->ops->build_index(src);
  src->ops->pass(src, THR_PASS_VELOCITY, THR_PART_ALL);
  thr_agents ref;
  snapshot(src, &ref);
  fixture g; /* the receiving rank owns one agent of its own */
  fixture_init(&g, 0);
  pattern_agents(&g, 1);
  CHECK(dst->ops->set_world(dst, &g.w, &g.prm) == 0 && dst->ops->set_agents(dst, &g.a) == 0);
  int idx[3] = {4, 0, 2};
  thr_ghost_rec gr[3];
  CHECK(src->comm->pack_ghosts(src, idx, 3, gr) == 0);
  CHECK(dst->comm->set_ghosts(dst, gr, 3) == 0);
  thr_agents got;
  thr_agents_init(&got);
  CHECK(dst->ops->copy_out(dst, &got, all_fields()) == 0);
  CHECK(got.n == 4 && got.n_owned == 1);
  for (int fld = 0; fld < THR_F_COUNT; ++fld)
    if (thr_field_table[fld].ghost)
      for (int k = 0; k < 3; ++k) CHECK(field_equal(&got, (size_t)(1 + k), &ref, (size_t)idx[k], fld));
  thr_agents_free(&got);

  CHECK(src->comm->set_halo_send(src, idx, 3) == 0);
  thr_field_mask step_fields = 0;
  for (int fld = 0; fld < THR_F_COUNT; ++fld)
    if (!thr_field_table[fld].state) step_fields |= (thr_field_mask)1 << fld;
  thr_field_mask absent = thr_fields_absent(&f.prm); /* no pass of this run forwards them */
  for (int fld = 0; fld <= THR_F_COUNT; ++fld) {
    thr_field_mask mask = fld < THR_F_COUNT ? (thr_field_mask)1 << fld : (all_fields() & ~step_fields);
    if (mask & absent) mask &= ~absent;
    if (!mask) continue;
    size_t bytes = thr_fields_bytes(mask) * 3;
    void *sbuf = src->comm->halo_buffer(src, 0, bytes), *rbuf = dst->comm->halo_buffer(dst, 1, bytes);
    CHECK(sbuf && rbuf);
    src->comm->pack_halo(src, mask, sbuf);
    memcpy(rbuf, sbuf, bytes); /* what MPI does between the ranks */
    dst->comm->unpack_halo(dst, mask, rbuf);
    CHECK(dst->ops->copy_out(dst, &got, all_fields()) == 0);
    for (int h = 0; h < THR_F_COUNT; ++h)
      if (mask & ((thr_field_mask)1 << h))
        for (int k = 0; k < 3; ++k) CHECK(field_equal(&got, (size_t)(1 + k), &ref, (size_t)idx[k], h));
    thr_agents_free(&got);
  }
  thr_agents_free(&ref);
  src->ops->destroy(src);
  dst->ops->destroy(dst);
  fixture_free(&f);
  fixture_free(&g);
}

/* The exchange packed by the backend (exchange_*, decision 0018) against a
 * brute-force plan: agents outside the skip window, once per box holding
 * their cell, box after box in storage order; migrants also removed (the
 * last that stay fill the gaps) and the ones in no box last; counts, id sums,
 * the records; received records appended or made ghosts. Eight agents on a
 * line, one per 2 m, in (cell, id) order. */
static thr_window cells_of(const fixture *f, float x0, float x1) {
  const thr_world *w = &f->w;
  int a = thr_cell_coord(x0, w->min.x, w->cell, w->gnx), b = thr_cell_coord(x1, w->min.x, w->cell, w->gnx);
  return (thr_window){a, 0, b - a + 1, w->gny};
}

static int cell_in(const fixture *f, thr_window win, float x) {
  const thr_world *w = &f->w;
  return thr_window_contains(win, thr_cell_coord(x, w->min.x, w->cell, w->gnx),
                             thr_cell_coord(3.0f, w->min.y, w->cell, w->gny));
}

THR_TEST(the_exchange_packs_by_box_in_storage_order) {
  for (int kind = THR_EXCHANGE_GHOSTS; kind <= THR_EXCHANGE_MIGRATE; ++kind) {
    fixture f;
    fixture_init(&f, 0);
    pattern_agents(&f, 8); /* agent k: id 10 + k at x = 1 + 2k */
    thr_backend *b = load(&f);
    if (!b->comm->exchange_select) {
      b->ops->destroy(b);
      fixture_free(&f);
      continue;
    }
    thr_window skip = cells_of(&f, 5.0f, 9.0f); /* agents 2..4 stay inside */
    thr_window boxes[2];
    int nbox = 2;
    if (kind == THR_EXCHANGE_GHOSTS) {
      boxes[0] = cells_of(&f, 11.0f, 15.0f); /* agents 5..7 */
      boxes[1] = cells_of(&f, 1.0f, 11.0f);  /* 0, 1 (and 5), overlapping box 0 */
    } else {
      boxes[0] = cells_of(&f, 1.0f, 3.0f);   /* agents 0, 1 */
      boxes[1] = cells_of(&f, 13.0f, 15.0f); /* 6, 7; agent 5 is in no box */
    }
    /* the plan by brute force */
    int want[24], nwant = 0;
    size_t want_count[3] = {0, 0, 0};
    uint64_t want_sum[4] = {0, 0, 0, 0};
    for (int k = 0; k <= nbox; ++k)
      for (int a = 0; a < 8; ++a) {
        float x = 1.0f + 2.0f * (float)a;
        if (cell_in(&f, skip, x)) continue;
        int in = k < nbox ? cell_in(&f, boxes[k], x) : 0;
        if (k == nbox) { /* migration: in no box */
          if (kind != THR_EXCHANGE_MIGRATE || cell_in(&f, boxes[0], x) || cell_in(&f, boxes[1], x)) continue;
          in = 1;
        }
        if (!in) continue;
        want[nwant++] = a;
        want_count[k]++;
        if (k < nbox) {
          want_sum[2 * k] += (uint64_t)(10 + a);
          want_sum[2 * k + 1] += (uint64_t)(10 + a) * (uint64_t)(10 + a);
        }
      }
    CHECK(want_count[0] == 2 || want_count[0] == 3); /* the fixture's cells are what the test assumes */
    size_t counts[3] = {9, 9, 9};
    uint64_t sums[4] = {1, 1, 1, 1};
    CHECK(b->comm->exchange_select(b, kind, skip, boxes, nbox, counts, sums) == 0);
    for (int k = 0; k < nbox + (kind == THR_EXCHANGE_MIGRATE); ++k) CHECK(counts[k] == want_count[k]);
    const char *packed = b->comm->halo_buffer(b, 0, 0); /* host buffers: the packed records are there */
    for (int t = 0; t < nwant; ++t) {
      uint32_t id;
      thr_vec2 p;
      if (kind == THR_EXCHANGE_GHOSTS) {
        const thr_ghost_rec *g = (const thr_ghost_rec *)packed + t;
        id = g->id, p = g->p;
      } else {
        const thr_agent_rec *r = (const thr_agent_rec *)packed + t;
        id = r->id, p = r->p;
      }
      CHECK(id == (uint32_t)(10 + want[t]));
      CHECK(p.x == 1.0f + 2.0f * (float)want[t]);
    }
    if (kind == THR_EXCHANGE_GHOSTS) {
      CHECK(b->ops->n_owned(b) == 8);
    } else {
      for (int k = 0; k < 4; ++k) CHECK(sums[k] == want_sum[k]);
      thr_agent_rec far;
      CHECK(b->comm->exchange_copy_out(b, want_count[0] + want_count[1], 1, &far) == 0 && far.id == 15);
      /* leavers 0, 1, 5, 6, 7: agents 3 and 4 fill slots 0 and 1 */
      CHECK(b->ops->n_owned(b) == 3);
      thr_agent_rec in[2];
      memcpy(in, packed, sizeof in); /* agents 0 and 1 come back */
      memcpy(b->comm->halo_buffer(b, 1, sizeof in), in, sizeof in);
      CHECK(b->comm->exchange_receive(b, THR_EXCHANGE_MIGRATE, 2) == 0);
      thr_agents got;
      thr_agents_init(&got);
      CHECK(b->ops->get_agents(b, &got) == 0);
      uint32_t order[5] = {13, 14, 12, 10, 11};
      CHECK(got.n == 5);
      for (int k = 0; k < 5 && k < (int)got.n; ++k) CHECK(got.id[k] == order[k]);
      thr_agents_free(&got);
    }
    b->ops->destroy(b);
    fixture_free(&f);
  }
}

/* Host views (in situ visualisation): the fields asked for, every byte, in
 * the order get_agents gives; after the store grows, a second view too. */
THR_TEST(views_show_the_owned_fields) {
  fixture f;
  fixture_init(&f, 0);
  pattern_agents(&f, 5);
  thr_backend *b = make_backend();
  CHECK(b->ops->set_world(b, &f.w, &f.prm) == 0 && b->ops->set_agents(b, &f.a) == 0);
  thr_field_mask mask = THR_FIELD_BIT(X) | THR_FIELD_BIT(V) | THR_FIELD_BIT(ID) | THR_FIELD_BIT(GROUP) |
                        THR_FIELD_BIT(RADIUS) | THR_FIELD_BIT(FLAGS);
  for (int round = 0; round < 2; ++round) {
    thr_agents want, view;
    thr_agents_init(&want);
    CHECK(b->ops->get_agents(b, &want) == 0);
    CHECK(b->ops->view_begin(b, mask) == 0);
    CHECK(b->ops->view_end(b, &view) == 0);
    CHECK(view.n_owned == want.n_owned && view.n_owned == (size_t)(5 + 3 * round));
    for (int fld = 0; fld < THR_F_COUNT; ++fld) {
      void *arr = *thr_agents_field(&view, fld, NULL);
      if (!(mask & ((thr_field_mask)1 << fld))) {
        CHECK(arr == NULL);
        continue;
      }
      for (size_t k = 0; k < view.n_owned; ++k) CHECK(field_equal(&view, k, &want, k, fld));
    }
    thr_agents_free(&want);
    /* more agents: the view's buffers grow */
    thr_agent_rec recs[3];
    for (int k = 0; k < 3; ++k) {
      thr_agent_rec_blank(&recs[k]);
      recs[k].id = (uint32_t)(100 + 10 * round + k);
      recs[k].x = recs[k].p = v2(2.0f + (float)k, 5.0f);
      recs[k].group = 7 + k;
      recs[k].radius = 0.25f;
    }
    if (round == 0) CHECK(b->comm->append_owned(b, recs, 3) == 0);
  }
  b->ops->destroy(b);
  fixture_free(&f);
}
