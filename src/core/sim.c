#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decomp/decomp.h"
#include "evac.h"
#include "formations.h"
#include "populate.h"
#include "routes.h"

const char *thr_phase_name(int phase) {
  static const char *const names[] = {"predict", "grid", "evacuation", "routing", "halo", "migrate", "metrics"};
  if (phase == THR_PHASE_PREDICT || phase == THR_PHASE_GRID) return names[phase];
  if (phase > THR_PHASE_GRID && phase < THR_PHASE_EVACUATION) return thr_pass_label(phase - THR_PHASE_GRID - 1);
  if (phase >= THR_PHASE_EVACUATION && phase < THR_PHASE_COUNT) return names[2 + phase - THR_PHASE_EVACUATION];
  return "?";
}

const char *thr_default_backend(void) {
#ifdef THRONG_HAVE_CUDA
  if (thr_cuda_device_count() > 0) return "cuda";
#endif
  return "cpu";
}


/* Each rank drives GPU (node-local rank mod GPUs per node). */
static thr_backend *create_backend(const char *name, const thr_decomp *dc, char *err, size_t errlen) {
  if (!strcmp(name, "cpu")) return thr_backend_cpu_create();
  if (!strcmp(name, "cuda")) {
#ifdef THRONG_HAVE_CUDA
    return thr_backend_cuda_create(thr_decomp_local_rank(dc), err, errlen);
#else
    (void)dc;
    snprintf(err, errlen, "--backend cuda: this build has no CUDA backend (configure with -DTHRONG_CUDA=ON)");
    return NULL;
#endif
  }
  snprintf(err, errlen, "--backend %s: unknown backend (known: cpu, cuda)", name);
  return NULL;
}

/* The driver's error policy: a backend that cannot go on reports here; the
 * whole simulation stops (every rank of its communicator). */
static void backend_failed(void *ctx, thr_backend *b, const char *msg) {
  thr_sim *s = ctx;
  fprintf(stderr, "throng: rank %d: backend %s: %s\n", s->rank, b->ops->name, msg);
  fflush(stderr);
  MPI_Abort(s->comm, 1);
}

/* Which passes run and what they forward: from the pass table, once. */
static void plan_passes(thr_sim *s) {
  s->n_solver_passes = 0;
  s->n_plan_passes = 0;
  for (int k = 0; k < THR_PASS_COUNT; ++k) {
    s->forwards[k] = thr_pass_forwards(k, &s->prm);
    if (thr_pass_stage(k) == THR_STAGE_SOLVER && thr_pass_enabled(k, &s->prm))
      s->solver_passes[s->n_solver_passes++] = k;
    int stage = thr_pass_stage(k);
    if ((stage == THR_STAGE_BEHAVIOUR || stage == THR_STAGE_UPDATE || stage == THR_STAGE_PLAN) &&
        thr_pass_enabled(k, &s->prm))
      s->plan_passes[s->n_plan_passes++] = k;
  }
}

static int ranks_on_node(MPI_Comm comm) {
  MPI_Comm node;
  int n = 1;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &n);
  MPI_Comm_free(&node);
  return n;
}

static int keep_owned(uint32_t id, thr_vec2 x, void *user) {
  (void)id;
  return thr_decomp_owns((const thr_decomp *)user, x);
}

int thr_sim_init(thr_sim *s, const thr_scenario *sc, const char *backend, MPI_Comm comm, char *err,
                 size_t errlen) {
  return thr_sim_init_from(s, sc, backend, NULL, comm, err, errlen);
}

int thr_sim_init_from(thr_sim *s, const thr_scenario *sc, const char *backend, const thr_agent_source *src,
                      MPI_Comm comm, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  s->comm = comm;
  MPI_Comm_rank(comm, &s->rank);
  MPI_Comm_size(comm, &s->nranks);
  s->prm = sc->prm;
  s->prm.fm_k_it = thr_formation_iteration_stiffness(s->prm.fm_stiffness, s->prm.solver_iterations);
  s->seed = sc->seed;
  plan_passes(s);
  if (thr_world_init(&s->world, sc, &s->prm, thr_scenario_max_radius(sc), err, errlen)) return -1;
  int rrc = thr_routes_build(&s->world, sc, &s->prm, &s->routing, err, errlen);
  if (rrc) return rrc;
  if (thr_sources_check(sc, &s->world, err, errlen)) return -1;
  /* sizes and memory first: nothing is enumerated or allocated for a
   * scenario that cannot fit */
  long n = thr_scenario_count(sc, err, errlen);
  if (n < 0 || thr_scenario_fits(sc, n, s->nranks, ranks_on_node(comm), err, errlen)) return -1;
  s->n_global = s->n_initial = n;
  thr_decomp_opts dopts = {sc->balance_every, sc->balance_threshold};
  int drc = thr_decomp_create(&s->dc, comm, &s->world, &s->prm, &dopts, err, errlen);
  if (drc) return drc; /* -1: more ranks than the grid admits (bad input) */

  /* Create (and check) agents while the obstacle lists still cover the
   * whole world: every rank checks every agent, and keeps its own. */
  thr_agents owned;
  thr_agents_init(&owned);
  if (src) {
    s->n_global = src->n_global;
    int frc = src->fill(src->user, keep_owned, s->dc, &owned, err, errlen);
    if (frc) {
      thr_agents_free(&owned);
      return frc;
    }
  } else if (thr_populate(sc, &s->world, &s->prm, keep_owned, s->dc, &owned, err, errlen)) {
    thr_agents_free(&owned);
    return -1;
  }
  int frc = thr_formations_create(&s->forms, sc, src ? NULL : &owned, comm, err, errlen);
  if (frc) {
    thr_agents_free(&owned);
    return frc;
  }
  if (thr_world_set_window(&s->world, thr_decomp_window(s->dc), &s->prm)) {
    snprintf(err, errlen, "out of memory building obstacle lists");
    thr_agents_free(&owned);
    return -2;
  }

  const char *name = backend ? backend : thr_default_backend();
  s->be = create_backend(name, s->dc, err, errlen);
  if (!s->be) {
    thr_agents_free(&owned);
    return -1;
  }
  s->be->on_fail = backend_failed;
  s->be->fail_ctx = s;
  if (s->be->ops->set_world(s->be, &s->world, &s->prm) || s->be->ops->set_agents(s->be, &owned)) {
    snprintf(err, errlen, "backend %s: %s", name, s->be->error);
    thr_agents_free(&owned);
    return -2;
  }
  thr_agents_free(&owned);
  if (thr_routing_setup(&s->routing, s->be)) {
    snprintf(err, errlen, "backend %s: %s", name, s->be->error);
    return -2;
  }
  if (sc->n_exits || sc->n_journeys || sc->n_sources) {
    int erc = thr_evac_create(&s->evac, sc, &s->world, comm, n, err, errlen);
    if (erc) return erc;
  }
  /* a neighbour index for the initial state (metrics of step 0) */
  s->be->ops->sort_owned(s->be);
  thr_decomp_exchange(s->dc, s->be);
  s->be->ops->build_index(s->be);
  return 0;
}

void thr_sim_free(thr_sim *s) {
  thr_routing_free(&s->routing);
  free(s->route_counts);
  thr_evac_free(s->evac);
  thr_formations_free(s->forms);
  thr_decomp_free(s->dc); /* first: its NCCL communicator uses the backend's device */
  if (s->be) s->be->ops->destroy(s->be);
  thr_world_free(&s->world);
  memset(s, 0, sizeof *s);
}

/* Run one backend phase and charge its time to `phase`. */
#define PHASE(s, phase, call)                               \
  do {                                                      \
    double t0_ = MPI_Wtime();                               \
    call;                                                   \
    if ((s)->timing) (s)->be->ops->sync((s)->be);           \
    (s)->timers.t[phase] += MPI_Wtime() - t0_;              \
  } while (0)

/* One pass of the step, overlapped with the halo exchange of the pass
 * before: the interior agents (which read no ghost) first, then the
 * previous pass's ghost values arrive, then the boundary agents, then this
 * pass's changed fields leave for the other ranks. On one rank the interior
 * part is empty and the boundary part is every agent. */
static void run_pass(thr_sim *s, int kind) {
  thr_backend *b = s->be;
  int phase = thr_pass_phase(kind);
  PHASE(s, phase, b->ops->pass(b, kind, THR_PART_INTERIOR));
  PHASE(s, THR_PHASE_HALO, thr_decomp_forward_end(s->dc, b));
  PHASE(s, phase, b->ops->pass(b, kind, THR_PART_BOUNDARY));
  if (s->forwards[kind]) PHASE(s, THR_PHASE_HALO, thr_decomp_forward_begin(s->dc, b, s->forwards[kind]));
}

/* The fields that see congestion, from where the agents are now
 * (core/congestion.c): counted by each rank, summed over ranks as integers
 * (the same bits on every rank and rank count), solved alike on every rank. */
static void update_routes(thr_sim *s) {
  thr_routing *r = &s->routing;
  size_t n = (size_t)r->setup.n_counts * (size_t)r->setup.nx * (size_t)r->setup.ny;
  if (s->nranks > 1 && !s->route_counts && !(s->route_counts = malloc((n ? n : 1) * sizeof *s->route_counts)))
    thr_backend_fail(s->be, "out of memory for %zu routing counts", n);
  double t0 = MPI_Wtime();
  if (thr_routing_update(r, s->be, s->comm, s->nranks, s->route_counts)) thr_backend_fail(s->be, "%s", s->be->error);
  r->seconds += MPI_Wtime() - t0;
}

/* The formations' rms_error at the end of the step before (or of the
 * checkpoint), for the weights on their speeds. Collective. */
static void measure_formation_errors(thr_sim *s) {
  int n = s->forms->n;
  int64_t *q = malloc(2 * (size_t)n * sizeof *q);
  if (!q) thr_backend_fail(s->be, "out of memory measuring %d formations", n);
  thr_sim_measure_formations(s, q, q + n);
  thr_formations_set_errors(s->forms, q);
  free(q);
}

void thr_sim_step(thr_sim *s) {
  const thr_backend_ops *B = s->be->ops;
  thr_backend *b = s->be;
  const thr_params *prm = &s->prm;
  long n_start = s->n_global;

  /* routes that see the crowd, on their cadence of simulated time */
  if (s->routing.n_dynamic && s->step % s->routing.every == 0) PHASE(s, THR_PHASE_ROUTING, update_routes(s));

  /* the formations move on their paths first (004's Algorithm 1 lines 2-3) */
  if (s->forms) {
    if (s->forms->weighted) measure_formation_errors(s);
    thr_formations_advance(s->forms, prm->dt);
    if (B->set_formations(b, s->forms->state, s->forms->n)) thr_backend_fail(b, "%s", b->error);
  }

  /* plan and predict (Algorithm 1 lines 1-5) */
  PHASE(s, THR_PHASE_PREDICT, B->predict(b, (float)((double)s->step * prm->dt)));
  /* neighbours (lines 6-8): owned agents in (cell, id) order, then the
   * decomposition moves agents and ghosts, then the full index */
  PHASE(s, THR_PHASE_GRID, B->sort_owned(b));
  PHASE(s, THR_PHASE_MIGRATE, thr_decomp_exchange(s->dc, b));
  PHASE(s, THR_PHASE_GRID, B->build_index(b));
  /* the speed-density relation re-plans x* with the neighbours in view */
  for (int k = 0; k < s->n_plan_passes; ++k) run_pass(s, s->plan_passes[k]);
  /* stability iterations (lines 9-15): x^n and x* change */
  for (int it = 0; it < prm->stability_iterations; ++it) run_pass(s, THR_PASS_STABILITY);
  /* constraint iterations (lines 16-21): the enabled constraint groups of
   * the pass table (long range, then contact), in table order */
  for (int it = 0; it < prm->solver_iterations; ++it)
    for (int k = 0; k < s->n_solver_passes; ++k) run_pass(s, s->solver_passes[k]);
  /* velocities (lines 22-27); XSPH reads the neighbours' new velocities */
  run_pass(s, THR_PASS_VELOCITY);
  run_pass(s, THR_PASS_FINALIZE);
  /* agents leave at exits, journeys advance, sources add agents */
  if (s->evac) {
    long changed = 0;
    PHASE(s, THR_PHASE_EVACUATION,
          s->n_global += thr_evac_after_step(s->evac, b, s->dc, (double)(s->step + 1) * prm->dt, &changed));
    s->index_stale = changed > 0;
  }
  s->agent_steps += (double)n_start;
  s->step++;
  s->timers.steps++;
}

/* Lowest non-finite key and highest signal of all ranks (MIN of both). */
static void reduce_health(thr_sim *s, uint64_t *v) {
  if (s->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_UINT64_T, MPI_MIN, s->comm);
}

int thr_sim_check(thr_sim *s, int wait, int signal, thr_health *h) {
  int late = 0;
  uint64_t v[2] = {s->be->ops->nonfinite(s->be, wait, &late), UINT64_MAX - (uint64_t)(signal > 0 ? signal : 0)};
  reduce_health(s, v);
  uint64_t sig = v[1];
  if (v[0] != THR_ALL_FINITE && !wait) {
    /* seen, maybe a step late: name the agent of this step (a non-finite
     * position or velocity stays so) */
    v[0] = s->be->ops->nonfinite(s->be, 1, &late);
    reduce_health(s, v);
  }
  h->step = s->step;
  h->field = v[0] == THR_ALL_FINITE ? -1 : (int)(v[0] & 0xff);
  h->id = v[0] == THR_ALL_FINITE ? 0 : (uint32_t)(v[0] >> 8);
  h->stop_signal = (int)(UINT64_MAX - sig);
  return h->field >= 0 || h->stop_signal;
}

void thr_sim_measure(thr_sim *s, thr_metrics *m) {
  thr_metrics_partial p;
  double t0 = MPI_Wtime();
  if (s->index_stale) { /* the overlap count needs the index of the agents there are now */
    s->be->ops->sort_owned(s->be);
    thr_decomp_reindex(s->dc, s->be);
    s->be->ops->build_index(s->be);
    s->index_stale = 0;
  }
  thr_decomp_forward(s->dc, s->be, thr_fields_3d(THR_FIELD_BIT(X), &s->prm)); /* ghosts' final positions */
  s->be->ops->measure(s->be, &p);
  enum { N_SUMS = 6 + THR_MAX_BSTATES };
  long sums[N_SUMS] = {p.agents, p.at_goal, p.overlap_pairs, p.wall_penetrations, p.lp_fallbacks, p.forced};
  memcpy(sums + 6, p.in_state, sizeof p.in_state);
  int64_t speed = p.speed_sum_q;
  double maxes[3] = {p.max_overlap, p.max_overlap_ratio, p.max_wall_overlap};
  MPI_Allreduce(MPI_IN_PLACE, sums, N_SUMS, MPI_LONG, MPI_SUM, s->comm);
  MPI_Allreduce(MPI_IN_PLACE, &speed, 1, MPI_INT64_T, MPI_SUM, s->comm);
  MPI_Allreduce(MPI_IN_PLACE, maxes, 3, MPI_DOUBLE, MPI_MAX, s->comm);
  m->step = s->step;
  m->time = (double)s->step * (double)s->prm.dt;
  m->agents = sums[0];
  m->at_goal = sums[1];
  m->overlap_pairs = sums[2];
  m->wall_penetrations = sums[3];
  m->lp_fallbacks = sums[4];
  m->forced = sums[5];
  memcpy(m->in_state, sums + 6, sizeof m->in_state);
  m->mean_speed = sums[0] ? (double)speed * THR_SPEED_QUANTUM / (double)sums[0] : 0.0;
  m->max_overlap = maxes[0];
  m->max_overlap_ratio = maxes[1];
  m->max_wall_overlap = maxes[2];
  s->timers.t[THR_PHASE_METRICS] += MPI_Wtime() - t0;
}

void thr_sim_measure_formations(thr_sim *s, int64_t *sq_q, int64_t *broken) {
  int n = s->forms->n;
  memset(sq_q, 0, (size_t)n * sizeof *sq_q);
  memset(broken, 0, (size_t)n * sizeof *broken);
  /* this step's state (also before the first step, or after a restart) */
  if (s->be->ops->set_formations(s->be, s->forms->state, n) ||
      s->be->ops->formation_measure(s->be, n, sq_q, broken))
    thr_backend_fail(s->be, "%s", s->be->error);
  MPI_Allreduce(MPI_IN_PLACE, sq_q, n, MPI_INT64_T, MPI_SUM, s->comm);
  MPI_Allreduce(MPI_IN_PLACE, broken, n, MPI_INT64_T, MPI_SUM, s->comm);
}

static const uint32_t *sort_ids;
static int cmp_by_id(const void *a, const void *b) {
  uint32_t x = sort_ids[*(const int *)a], y = sort_ids[*(const int *)b];
  return x < y ? -1 : (x > y);
}

int thr_sim_gather(thr_sim *s, thr_agents *all) {
  thr_agents mine;
  thr_agents_init(&mine);
  int rc = s->be->ops->get_agents(s->be, &mine);
  int n = (int)mine.n_owned;
  int *counts = NULL, *displs = NULL, total = 0;
  if (s->rank == 0) {
    counts = malloc((size_t)s->nranks * sizeof(int));
    displs = malloc((size_t)s->nranks * sizeof(int));
  }
  MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, s->comm);
  if (s->rank == 0) {
    for (int r = 0; r < s->nranks; ++r) total += counts[r];
    thr_agents_init(all);
    if (thr_agents_reserve(all, (size_t)total + 1)) rc = -1;
  }
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (!thr_field_table[f].state) continue; /* step scratch is not output */
    size_t elem;
    void *src = *thr_agents_field(&mine, f, &elem);
    void *dst = s->rank == 0 ? *thr_agents_field(all, f, NULL) : NULL;
    if (s->rank == 0) {
      int off = 0;
      for (int r = 0; r < s->nranks; ++r) {
        displs[r] = off;
        off += counts[r];
      }
    }
    MPI_Datatype t;
    MPI_Type_contiguous((int)elem, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    MPI_Gatherv(src, n, t, dst, counts, displs, t, 0, s->comm);
    MPI_Type_free(&t);
  }
  thr_agents_free(&mine);
  if (s->rank == 0) {
    all->n = all->n_owned = (size_t)total;
    int *perm = malloc(((size_t)total + 1) * sizeof(int));
    void *buf = malloc(((size_t)total + 1) * thr_agents_max_elem());
    if (perm && buf) {
      for (int k = 0; k < total; ++k) perm[k] = k;
      sort_ids = all->id;
      qsort(perm, (size_t)total, sizeof(int), cmp_by_id);
      thr_agents_permute(all, perm, (size_t)total, buf);
    } else {
      rc = -1;
    }
    free(perm);
    free(buf);
  } else {
    thr_agents_init(all);
  }
  free(counts);
  free(displs);
  return rc;
}
