#include "evac.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decomp/decomp.h"
#include "kernels/evac_agent.h"
#include "kernels/rng.h"
#include "populate.h"

#define NO_AGENT UINT32_MAX
/* Sources: candidates examined per step at most, and the RNG streams. */
#define SPAWNS_PER_STEP 4096
enum { STREAM_SPAWN_X = 40, STREAM_SPAWN_Y, SPAWN_TRIES = 64 };

/* A queue or waiting stage: who sits where, since when, and who waits for
 * a slot (holding position, in arrival order). */
typedef struct stage_state {
  uint32_t *occupant; /* [n_slots] */
  int32_t *journey;   /* [n_slots] the occupant's journey */
  double *since;      /* [n_slots] when it sat down; < 0: not (yet) seated */
  uint32_t *queue_id; /* agents holding position for a slot */
  int32_t *queue_journey;
  size_t n_queue, queue_cap;
  long targeted; /* agents whose stage this is */
  int open;      /* a waiting stage after its release time: agents pass through */
} stage_state;

typedef struct pending_spawn {
  int source;
  long seq;
  int attempt;
} pending_spawn;

struct thr_evac {
  MPI_Comm comm;
  int rank, nranks;
  const thr_scenario *sc;
  const thr_world *w;
  int journeys; /* stage events matter */
  stage_state *st;
  long *rr; /* round-robin counters, [n_journeys * n_stages] */
  thr_stage_assign *as;
  size_t n_as, as_cap;
  thr_stage_event *mine, *all;
  size_t mine_cap, all_cap;
  int *counts, *displs; /* [nranks] */
  thr_exit_rec *recs, *gathered;
  size_t n_recs, recs_cap, gathered_cap;
  long *produced; /* per source: spawns due so far */
  pending_spawn *pending;
  size_t n_pending, pending_cap;
  uint32_t next_id;
  long added;
  int id_limit_said;
  int keep_records; /* exit records wanted (thr_evac_keep_records) */
  int keep_leavers;  /* leaving states wanted (thr_evac_keep_leavers) */
  thr_agents leavers; /* this rank's agents that left since the last frame */
  thr_agents shown;   /* ... and those that left before it, shown once */
};

/* Grow *p (capacity *cap items of elem bytes) to hold n; -1 out of memory. */
static int grow(void **p, size_t *cap, size_t n, size_t elem) {
  if (n <= *cap && *p) return 0;
  size_t want = *cap ? *cap : 64;
  while (want < n) want *= 2;
  void *q = realloc(*p, want * elem);
  if (!q) return -1;
  *p = q;
  *cap = want;
  return 0;
}

/* Out of memory in the middle of a step: nothing sensible can go on. */
static void fatal(const thr_evac *e, const char *what) {
  fprintf(stderr, "throng: rank %d: out of memory (%s)\n", e->rank, what);
  fflush(stderr);
  MPI_Abort(e->comm, 1);
}

/* ---- the stage model ---------------------------------------------------------- */

static void assign(thr_evac *e, uint32_t id, int stage, int slot) {
  if (grow((void **)&e->as, &e->as_cap, e->n_as + 1, sizeof *e->as)) fatal(e, "stage assignments");
  thr_stage_assign a = {id, stage, stage >= 0 ? e->w->stages[stage].field : -1, slot};
  e->as[e->n_as++] = a;
}

/* The stage after `stage` on journey j, or -1 (the journey ends there). */
static int next_stage(thr_evac *e, int j, int stage) {
  const thr_scenario *sc = e->sc;
  const thr_transition *t = &sc->transitions[j * sc->n_stages + stage];
  if (t->n <= 0) return -1;
  const int *item = sc->trans_items + t->first;
  if (t->kind == THR_TRANSITION_LEAST_TARGETED) {
    int best = item[0];
    for (int k = 1; k < t->n; ++k)
      if (e->st[item[k]].targeted < e->st[best].targeted) best = item[k];
    return best;
  }
  if (t->kind == THR_TRANSITION_ROUND_ROBIN) {
    const float *wt = sc->trans_weights + t->first;
    long round = 0;
    for (int k = 0; k < t->n; ++k) round += lroundf(wt[k]) > 0 ? lroundf(wt[k]) : 1;
    long pos = e->rr[j * sc->n_stages + stage]++ % round;
    for (int k = 0; k < t->n; ++k) {
      long n = lroundf(wt[k]) > 0 ? lroundf(wt[k]) : 1;
      if (pos < n) return item[k];
      pos -= n;
    }
  }
  return item[0];
}

static void enter(thr_evac *e, uint32_t id, int from, int to);

/* An agent at the area of queue or waiting stage s: a slot, or hold. */
static void take_slot(thr_evac *e, uint32_t id, int j, int s) {
  const thr_stage_def *d = &e->sc->stages[s];
  stage_state *st = &e->st[s];
  if (st->open) { /* a waiting stage already released: walk on */
    enter(e, id, s, next_stage(e, j, s));
    return;
  }
  for (int k = 0; k < d->n_slots; ++k) {
    if (st->occupant[k] != NO_AGENT) continue;
    if (d->kind == THR_STAGE_QUEUE && k > 0 && st->occupant[k - 1] == NO_AGENT) break;
    st->occupant[k] = id;
    st->journey[k] = j;
    st->since[k] = -1.0;
    assign(e, id, s, d->slot_first + k);
    return;
  }
  if (grow((void **)&st->queue_id, &st->queue_cap, st->n_queue + 1, sizeof *st->queue_id) ||
      !(st->queue_journey = realloc(st->queue_journey, st->queue_cap * sizeof *st->queue_journey)))
    fatal(e, "stage queue");
  st->queue_id[st->n_queue] = id;
  st->queue_journey[st->n_queue++] = j;
  assign(e, id, s, THR_SLOT_HOLD);
}

/* Agent id moves from stage `from` to `to` (-1: its journey ends; it
 * stands). */
static void enter(thr_evac *e, uint32_t id, int from, int to) {
  if (from >= 0) e->st[from].targeted--;
  if (to >= 0) e->st[to].targeted++;
  assign(e, id, to, THR_SLOT_NONE);
}

/* The first agent holding position at s takes the free slot k. */
static void fill_slot(thr_evac *e, int s, int k) {
  stage_state *st = &e->st[s];
  if (!st->n_queue) return;
  st->occupant[k] = st->queue_id[0];
  st->journey[k] = st->queue_journey[0];
  st->since[k] = -1.0;
  assign(e, st->queue_id[0], s, e->sc->stages[s].slot_first + k);
  memmove(st->queue_id, st->queue_id + 1, (st->n_queue - 1) * sizeof *st->queue_id);
  memmove(st->queue_journey, st->queue_journey + 1, (st->n_queue - 1) * sizeof *st->queue_journey);
  st->n_queue--;
}

/* The occupant of slot k of s leaves for its next stage. */
static void release(thr_evac *e, int s, int k) {
  stage_state *st = &e->st[s];
  uint32_t id = st->occupant[k];
  int j = st->journey[k];
  st->occupant[k] = NO_AGENT;
  enter(e, id, s, next_stage(e, j, s));
}

/* Queue: the front leaves every `service` s after sitting down; the others
 * move up one slot, the first one holding position takes the last. */
static void serve_queue(thr_evac *e, int s, double t) {
  const thr_stage_def *d = &e->sc->stages[s];
  stage_state *st = &e->st[s];
  if (st->occupant[0] == NO_AGENT || st->since[0] < 0.0 || t - st->since[0] < (double)d->service - 1e-9) return;
  release(e, s, 0);
  int last = 0;
  for (int k = 1; k < d->n_slots && st->occupant[k] != NO_AGENT; ++k) {
    st->occupant[k - 1] = st->occupant[k];
    st->journey[k - 1] = st->journey[k];
    st->since[k - 1] = -1.0; /* it walks to its new slot first */
    st->occupant[k] = NO_AGENT;
    assign(e, st->occupant[k - 1], s, d->slot_first + k - 1);
    last = k;
  }
  fill_slot(e, s, last);
}

/* Waiting: everyone leaves at `until` (and later arrivals pass through), or
 * each occupant `duration` s after sitting down. */
static void serve_waiting(thr_evac *e, int s, double t) {
  const thr_stage_def *d = &e->sc->stages[s];
  stage_state *st = &e->st[s];
  if (d->until >= 0.0f) {
    if (st->open || t < (double)d->until) return;
    st->open = 1;
    for (int k = 0; k < d->n_slots; ++k)
      if (st->occupant[k] != NO_AGENT) release(e, s, k);
    while (st->n_queue) {
      uint32_t id = st->queue_id[0];
      int j = st->queue_journey[0];
      memmove(st->queue_id, st->queue_id + 1, (st->n_queue - 1) * sizeof *st->queue_id);
      memmove(st->queue_journey, st->queue_journey + 1, (st->n_queue - 1) * sizeof *st->queue_journey);
      st->n_queue--;
      enter(e, id, s, next_stage(e, j, s));
    }
    return;
  }
  for (int k = 0; k < d->n_slots; ++k) {
    if (st->occupant[k] == NO_AGENT || st->since[k] < 0.0 || t - st->since[k] < (double)d->duration - 1e-9) continue;
    release(e, s, k);
    fill_slot(e, s, k);
  }
}

/* One event of any rank (in id order). */
static void on_event(thr_evac *e, const thr_stage_event *ev, double t) {
  const thr_scenario *sc = e->sc;
  if (ev->flags & THR_FLAG_EXITED) {
    if (ev->stage >= 0) e->st[ev->stage].targeted--;
    return;
  }
  if (ev->stage < 0 || ev->journey < 0) return;
  const thr_stage_def *d = &sc->stages[ev->stage];
  if (ev->flags & THR_FLAG_SEATED) {
    int k = ev->slot - d->slot_first;
    if (k >= 0 && k < d->n_slots && e->st[ev->stage].occupant[k] == ev->id && e->st[ev->stage].since[k] < 0.0)
      e->st[ev->stage].since[k] = t;
    return;
  }
  if (d->kind == THR_STAGE_WAYPOINT)
    enter(e, ev->id, ev->stage, next_stage(e, ev->journey, ev->stage));
  else if (d->kind == THR_STAGE_QUEUE || d->kind == THR_STAGE_WAITING)
    take_slot(e, ev->id, ev->journey, ev->stage);
}

static int by_id(const void *a, const void *b) {
  uint32_t x = ((const thr_stage_event *)a)->id, y = ((const thr_stage_event *)b)->id;
  if (x != y) return x < y ? -1 : 1;
  return (int)((const thr_stage_event *)a)->flags - (int)((const thr_stage_event *)b)->flags;
}

/* Assignments sorted by id, the last one of each agent kept (stable). */
static int by_id_then_order(const void *a, const void *b) {
  const thr_stage_assign *x = a, *y = b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return x < y ? -1 : (x > y);
}

static void squeeze_assignments(thr_evac *e) {
  qsort(e->as, e->n_as, sizeof *e->as, by_id_then_order);
  size_t k = 0;
  for (size_t i = 0; i < e->n_as; ++i) {
    if (k && e->as[k - 1].id == e->as[i].id)
      e->as[k - 1] = e->as[i];
    else
      e->as[k++] = e->as[i];
  }
  e->n_as = k;
}

/* Everyone's events, in id order, on every rank. */
static size_t gather_events(thr_evac *e, size_t n_mine) {
  if (e->nranks == 1) {
    if (grow((void **)&e->all, &e->all_cap, n_mine + 1, sizeof *e->all)) fatal(e, "stage events");
    memcpy(e->all, e->mine, n_mine * sizeof *e->mine);
  } else {
    int n = (int)(n_mine * sizeof *e->mine);
    MPI_Allgather(&n, 1, MPI_INT, e->counts, 1, MPI_INT, e->comm);
    size_t total = 0;
    for (int r = 0; r < e->nranks; ++r) {
      e->displs[r] = (int)total;
      total += (size_t)e->counts[r];
    }
    if (grow((void **)&e->all, &e->all_cap, total / sizeof *e->all + 1, sizeof *e->all)) fatal(e, "stage events");
    MPI_Allgatherv(e->mine, n, MPI_BYTE, e->all, e->counts, e->displs, MPI_BYTE, e->comm);
    n_mine = total / sizeof *e->all;
  }
  qsort(e->all, n_mine, sizeof *e->all, by_id);
  return n_mine;
}

static void advance_stages(thr_evac *e, thr_backend *b, const thr_evac_collect *c, double t) {
  size_t n = 0;
  if (grow((void **)&e->mine, &e->mine_cap, c->n_events + c->n_exited + 1, sizeof *e->mine)) fatal(e, "events");
  for (size_t k = 0; k < c->n_events; ++k) e->mine[n++] = c->events[k];
  for (size_t k = 0; k < c->n_exited; ++k) {
    thr_stage_event ev = {c->exited[k].id, THR_FLAG_EXITED, c->exited[k].stage, THR_SLOT_NONE, c->exited[k].journey};
    e->mine[n++] = ev;
  }
  size_t total = gather_events(e, n);
  e->n_as = 0;
  for (size_t k = 0; k < total; ++k) on_event(e, &e->all[k], t);
  for (int s = 0; s < e->sc->n_stages; ++s) {
    if (e->sc->stages[s].kind == THR_STAGE_QUEUE) serve_queue(e, s, t);
    if (e->sc->stages[s].kind == THR_STAGE_WAITING) serve_waiting(e, s, t);
  }
  if (!e->n_as) return;
  squeeze_assignments(e);
  if (b->ops->evac_assign(b, e->as, e->n_as)) thr_backend_fail(b, "evac_assign: %s", b->error);
}

/* ---- exits ------------------------------------------------------------------------ */

/* The exit that the disk (x, r) meets (lowest index), as the kernels decide it.
 * Should the host's arithmetic disagree with the device's at the edge, the
 * disk grows until it meets one: every agent that left is counted at an
 * exit (the outputs index their tables with it). */
static int exit_of(const thr_world *w, thr_vec2 x, float r) {
  for (int grow_by = 0; grow_by < 64; ++grow_by, r = r > 0.0f ? 2.0f * r : 0.01f)
    for (int k = 0; k < w->n_exits; ++k)
      if (thr_disk_meets_polygon(w->exit_verts + w->exit_vfirst[k], w->exit_vfirst[k + 1] - w->exit_vfirst[k], x, r))
        return k;
  return 0;
}

static void record_exits(thr_evac *e, const thr_evac_collect *c, double t) {
  if (!e->keep_records) return;
  if (grow((void **)&e->recs, &e->recs_cap, e->n_recs + c->n_exited + 1, sizeof *e->recs)) fatal(e, "exit records");
  for (size_t k = 0; k < c->n_exited; ++k) {
    const thr_agent_rec *a = &c->exited[k];
    thr_exit_rec r = {a->id, exit_of(e->w, a->x, a->radius), a->group, t, a->release, a->born, a->travel};
    e->recs[e->n_recs++] = r;
  }
}

static int by_time_id(const void *a, const void *b) {
  const thr_exit_rec *x = a, *y = b;
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  return x->id < y->id ? -1 : (x->id > y->id);
}

static long spawns_due(const thr_source_def *q, double t);

void thr_evac_keep_records(thr_evac *e, int on) { e->keep_records = on; }

void thr_evac_keep_leavers(thr_evac *e, int on) { e->keep_leavers = on; }

static void record_leavers(thr_evac *e, const thr_evac_collect *c) {
  if (!e->keep_leavers) return;
  for (size_t k = 0; k < c->n_exited; ++k)
    if (thr_agents_push(&e->leavers, &c->exited[k])) fatal(e, "leaving agents");
}

static int append_agents(const thr_agents *from, thr_agents *into) {
  thr_agent_rec r;
  for (size_t i = 0; i < from->n; ++i) {
    thr_agent_load(from, i, &r);
    if (thr_agents_push(into, &r)) return -1;
  }
  into->n_owned = into->n;
  return 0;
}

int thr_evac_leavers(const thr_evac *e, thr_agents *into) {
  return append_agents(&e->leavers, into) || append_agents(&e->shown, into) ? -1 : 0;
}

void thr_evac_leavers_done(thr_evac *e) {
  thr_agents t = e->shown;
  e->shown = e->leavers;
  e->leavers = t;
  e->leavers.n = e->leavers.n_owned = 0;
}

size_t thr_evac_leavers_due(const thr_evac *e) { return e->leavers.n + e->shown.n; }

int thr_evac_sources_done(const thr_evac *e, double t) {
  if (e->n_pending) return 0;
  for (int q = 0; q < e->sc->n_sources; ++q) {
    const thr_source_def *d = &e->sc->sources[q];
    if (!(d->rate > 0.0f)) continue;
    if (d->count > 0 && e->produced[q] >= d->count) continue;
    if (d->stop >= 0.0f && t >= (double)d->stop && e->produced[q] >= spawns_due(d, (double)d->stop)) continue;
    return 0;
  }
  return 1;
}

const thr_exit_rec *thr_evac_gather_exits(thr_evac *e, size_t *n) {
  int mine = (int)(e->n_recs * sizeof *e->recs);
  size_t total = e->n_recs * sizeof *e->recs;
  if (e->nranks > 1) {
    MPI_Gather(&mine, 1, MPI_INT, e->counts, 1, MPI_INT, 0, e->comm);
    total = 0;
    for (int r = 0; e->rank == 0 && r < e->nranks; ++r) {
      e->displs[r] = (int)total;
      total += (size_t)e->counts[r];
    }
  }
  if (e->rank == 0 && grow((void **)&e->gathered, &e->gathered_cap, total / sizeof *e->recs + 1, sizeof *e->recs))
    fatal(e, "exit records");
  if (e->nranks > 1)
    MPI_Gatherv(e->recs, mine, MPI_BYTE, e->gathered, e->counts, e->displs, MPI_BYTE, 0, e->comm);
  else if (total)
    memcpy(e->gathered, e->recs, total);
  e->n_recs = 0;
  *n = e->rank == 0 ? total / sizeof *e->recs : 0;
  if (*n) qsort(e->gathered, *n, sizeof *e->gathered, by_time_id);
  return e->gathered;
}

/* ---- sources ------------------------------------------------------------------------ */

/* Spawns of source q due by time t: one at start + k / rate for k = 0,
 * 1, ..., up to stop and count. */
static long spawns_due(const thr_source_def *q, double t) {
  if (t < (double)q->start || !(q->rate > 0.0f)) return 0;
  double until = q->stop >= 0.0f && t > (double)q->stop ? (double)q->stop : t;
  long n = (long)floor((until - (double)q->start) * (double)q->rate + 1e-9) + 1;
  return q->count > 0 && n > q->count ? q->count : n;
}

/* Where pending spawn p tries this step: a point of its source's region,
 * drawn for (source, sequence, attempt). Returns 0 when no try landed in
 * the region. */
static int spawn_point(const thr_evac *e, const pending_spawn *p, thr_vec2 *out) {
  const thr_scenario *sc = e->sc;
  const thr_polyset *ps = &sc->regions;
  int poly = sc->sources[p->source].region, r0 = ps->poly_first[poly];
  thr_vec2 lo = ps->verts[ps->ring_first[r0]], hi = lo;
  for (int v = ps->ring_first[r0]; v < ps->ring_first[r0 + 1]; ++v) {
    lo = v2(fminf(lo.x, ps->verts[v].x), fminf(lo.y, ps->verts[v].y));
    hi = v2(fmaxf(hi.x, ps->verts[v].x), fmaxf(hi.y, ps->verts[v].y));
  }
  uint64_t key = ((uint64_t)(uint32_t)p->source << 40) ^ (uint64_t)p->seq;
  for (int k = 0; k < SPAWN_TRIES; ++k) {
    uint64_t step = (uint64_t)p->attempt * SPAWN_TRIES + (uint64_t)k;
    thr_vec2 x = v2(lo.x + (hi.x - lo.x) * thr_rng_uniform(sc->seed, key, step, STREAM_SPAWN_X),
                    lo.y + (hi.y - lo.y) * thr_rng_uniform(sc->seed, key, step, STREAM_SPAWN_Y));
    if (thr_source_point_ok(sc, e->w, p->source, x)) {
      *out = x;
      return 1;
    }
  }
  return 0;
}

/* The largest radius a source's agents can have. */
static float spawn_radius(const thr_scenario *sc, int q) {
  const thr_block *bk = &sc->blocks[sc->sources[q].block];
  return bk->radius_dist.kind == THR_DIST_NORMAL ? bk->radius_dist.hi : bk->radius_max;
}

/* Add the agents sources have due and room for; returns how many (the
 * same on every rank). */
static long run_sources(thr_evac *e, thr_backend *b, struct thr_decomp *dc, double t, uint32_t **ids, size_t *n_ids) {
  const thr_scenario *sc = e->sc;
  *n_ids = 0;
  for (int q = 0; q < sc->n_sources; ++q)
    for (long due = spawns_due(&sc->sources[q], t); e->produced[q] < due; e->produced[q]++) {
      if (grow((void **)&e->pending, &e->pending_cap, e->n_pending + 1, sizeof *e->pending)) fatal(e, "spawns");
      pending_spawn p = {q, e->produced[q], 0};
      e->pending[e->n_pending++] = p;
    }
  size_t n = e->n_pending < SPAWNS_PER_STEP ? e->n_pending : SPAWNS_PER_STEP;
  if (!n) return 0;
  thr_vec2 *pts = malloc(n * sizeof *pts);
  float *rad = malloc(n * sizeof *rad);
  unsigned char *ok = malloc(n), *mine = malloc(n);
  thr_agent_rec *recs = malloc(n * sizeof *recs);
  *ids = malloc(n * sizeof **ids);
  if (!pts || !rad || !ok || !mine || !recs || !*ids) fatal(e, "spawns");
  /* candidates clear of each other (decided alike on every rank), then of
   * every agent: each rank probes its owned agents, the minimum over ranks
   * decides (the same on any rank count) */
  size_t n_ok = 0;
  for (size_t k = 0; k < n; ++k) {
    rad[k] = spawn_radius(sc, e->pending[k].source);
    ok[k] = (unsigned char)spawn_point(e, &e->pending[k], &pts[k]);
    for (size_t m = 0; m < k && ok[k]; ++m) {
      float d = (rad[k] + rad[m]) * sc->prm.radius_scale;
      if (v2_len2(v2_sub(pts[k], pts[m])) < d * d) ok[k] = 0;
    }
    mine[k] = ok[k] && thr_decomp_owns(dc, pts[k]);
    if (ok[k]) n_ok++;
  }
  unsigned char *probe = malloc(n + 1);
  thr_vec2 *mpts = malloc((n_ok + 1) * sizeof *mpts);
  float *mrad = malloc((n_ok + 1) * sizeof *mrad);
  if (!probe || !mpts || !mrad) fatal(e, "spawns");
  for (size_t k = 0, m = 0; k < n; ++k)
    if (ok[k]) mpts[m] = pts[k], mrad[m++] = rad[k];
  if (n_ok && b->ops->probe_free(b, mpts, mrad, n_ok, probe)) thr_backend_fail(b, "probe_free: %s", b->error);
  for (size_t k = 0, m = 0; k < n; ++k)
    if (ok[k]) ok[k] = probe[m++];
  if (e->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, ok, (int)n, MPI_UNSIGNED_CHAR, MPI_MIN, e->comm);
  /* accepted ones get the next ids, in order; the rest try again */
  size_t n_rec = 0, kept = 0;
  long accepted = 0;
  for (size_t k = 0; k < n; ++k) {
    pending_spawn p = e->pending[k];
    if (!ok[k] || e->next_id == UINT32_MAX) {
      p.attempt++;
      e->pending[kept++] = p;
      continue;
    }
    uint32_t id = e->next_id++;
    accepted++;
    const thr_block *bk = &sc->blocks[sc->sources[p.source].block];
    if (bk->route_kind == THR_ROUTE_JOURNEY) e->st[sc->journeys[bk->route].first_stage].targeted++;
    if (!mine[k]) continue;
    thr_populate_agent(sc, e->w, sc->sources[p.source].block, id, pts[k], (float)t, &recs[n_rec++]);
    (*ids)[(*n_ids)++] = id;
  }
  memmove(e->pending + kept, e->pending + n, (e->n_pending - n) * sizeof *e->pending);
  e->n_pending = kept + (e->n_pending - n);
  if (n_rec && b->ops->insert(b, recs, n_rec)) thr_backend_fail(b, "insert: %s", b->error);
  free(pts);
  free(rad);
  free(ok);
  free(mine);
  free(recs);
  free(probe);
  free(mpts);
  free(mrad);
  e->added += accepted;
  return accepted;
}

/* ---- the step ---------------------------------------------------------------------- */

long thr_evac_after_step(thr_evac *e, thr_backend *b, struct thr_decomp *dc, double t, long *changed) {
  thr_evac_collect c;
  if (b->ops->evac_collect(b, &c)) thr_backend_fail(b, "evac_collect: %s", b->error);
  record_exits(e, &c, t);
  record_leavers(e, &c);
  uint32_t *removed = malloc((c.n_exited + 1) * sizeof *removed);
  if (!removed) fatal(e, "exit records");
  for (size_t k = 0; k < c.n_exited; ++k) removed[k] = c.exited[k].id;
  size_t n_removed = c.n_exited;
  if (e->journeys) advance_stages(e, b, &c, t); /* c's buffers are not used after this */
  uint32_t *added = NULL;
  size_t n_added = 0;
  long accepted = e->sc->n_sources ? run_sources(e, b, dc, t, &added, &n_added) : 0;
  thr_decomp_note_agents(dc, removed, n_removed, added, n_added);
  long gone = (long)n_removed;
  if (e->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, &gone, 1, MPI_LONG, MPI_SUM, e->comm);
  free(removed);
  free(added);
  *changed = gone + accepted;
  return accepted - gone;
}

long thr_evac_added(const thr_evac *e) { return e->added; }

/* ---- set-up ---------------------------------------------------------------------------- */

/* Agents whose stage is s at the start (every rank knows every block). */
static int count_initial_stages(thr_evac *e, char *err, size_t errlen) {
  const thr_scenario *sc = e->sc;
  for (int b = 0; b < sc->n_blocks; ++b) {
    const thr_block *bk = &sc->blocks[b];
    if (bk->source || bk->route_kind != THR_ROUTE_JOURNEY) continue;
    long n = thr_block_agents(sc, b, err, errlen);
    if (n < 0) return -1;
    e->st[sc->journeys[bk->route].first_stage].targeted += n;
  }
  return 0;
}

int thr_evac_create(thr_evac **out, const thr_scenario *sc, const thr_world *w, MPI_Comm comm, long n_initial,
                    char *err, size_t errlen) {
  thr_evac *e = calloc(1, sizeof *e);
  *out = e;
  if (!e) goto oom;
  thr_agents_init(&e->leavers);
  thr_agents_init(&e->shown);
  e->comm = comm;
  MPI_Comm_rank(comm, &e->rank);
  MPI_Comm_size(comm, &e->nranks);
  e->sc = sc;
  e->w = w;
  e->next_id = (uint32_t)n_initial;
  e->journeys = sc->n_journeys > 0;
  e->counts = calloc((size_t)e->nranks, sizeof(int));
  e->displs = calloc((size_t)e->nranks, sizeof(int));
  e->st = calloc((size_t)(sc->n_stages + 1), sizeof *e->st);
  e->rr = calloc((size_t)(sc->n_journeys * sc->n_stages + 1), sizeof *e->rr);
  e->produced = calloc((size_t)(sc->n_sources + 1), sizeof *e->produced);
  if (!e->counts || !e->displs || !e->st || !e->rr || !e->produced) goto oom;
  for (int s = 0; s < sc->n_stages; ++s) {
    int n = sc->stages[s].n_slots;
    stage_state *st = &e->st[s];
    st->occupant = malloc((size_t)(n + 1) * sizeof *st->occupant);
    st->journey = malloc((size_t)(n + 1) * sizeof *st->journey);
    st->since = malloc((size_t)(n + 1) * sizeof *st->since);
    if (!st->occupant || !st->journey || !st->since) goto oom;
    for (int k = 0; k < n; ++k) st->occupant[k] = NO_AGENT, st->since[k] = -1.0;
  }
  return count_initial_stages(e, err, errlen);
oom:
  snprintf(err, errlen, "out of memory setting up exits, stages and sources");
  return -2;
}

/* ---- checkpoints ---------------------------------------------------------------- */

void thr_evac_pack(const thr_evac *e, thr_blob *b) {
  const thr_scenario *sc = e->sc;
  for (int s = 0; s < sc->n_stages; ++s) {
    const stage_state *st = &e->st[s];
    int n = sc->stages[s].n_slots;
    thr_blob_put(b, st->occupant, (size_t)n * sizeof *st->occupant);
    /* an empty slot keeps its last occupant's journey and time (or none was
     * ever set): written as -1, so that the bytes are the state and no more */
    for (int k = 0; k < n; ++k) {
      int32_t j = st->occupant[k] == NO_AGENT ? -1 : st->journey[k];
      thr_blob_put(b, &j, sizeof j);
    }
    for (int k = 0; k < n; ++k) thr_blob_put_f64(b, st->occupant[k] == NO_AGENT ? -1.0 : st->since[k]);
    thr_blob_put_i64(b, (int64_t)st->n_queue);
    thr_blob_put(b, st->queue_id, st->n_queue * sizeof *st->queue_id);
    thr_blob_put(b, st->queue_journey, st->n_queue * sizeof *st->queue_journey);
    thr_blob_put_i64(b, st->targeted);
    thr_blob_put_i64(b, st->open);
  }
  thr_blob_put(b, e->rr, (size_t)(sc->n_journeys * sc->n_stages) * sizeof *e->rr);
  thr_blob_put(b, e->produced, (size_t)sc->n_sources * sizeof *e->produced);
  thr_blob_put_i64(b, (int64_t)e->n_pending);
  thr_blob_put(b, e->pending, e->n_pending * sizeof *e->pending);
  thr_blob_put_i64(b, e->next_id);
  thr_blob_put_i64(b, e->added);
  thr_blob_put_i64(b, e->id_limit_said);
}

/* visits[j * n_stages + s]: journey j can reach stage s (its first stage
 * and every stage a transition names from one it reaches). NULL: out of
 * memory. */
static unsigned char *journey_visits(const thr_scenario *sc) {
  int ns = sc->n_stages;
  unsigned char *visits = calloc((size_t)sc->n_journeys * (size_t)ns + 1, 1);
  int *todo = malloc(((size_t)ns + 1) * sizeof *todo);
  for (int j = 0; visits && todo && j < sc->n_journeys; ++j) {
    unsigned char *v = visits + (size_t)j * (size_t)ns;
    int n = 0, first = sc->journeys[j].first_stage;
    if (first < 0 || first >= ns) continue;
    v[first] = 1;
    todo[n++] = first;
    while (n) {
      const thr_transition *t = &sc->transitions[j * ns + todo[--n]];
      for (int k = 0; k < t->n; ++k) {
        int s = sc->trans_items[t->first + k];
        if (s >= 0 && s < ns && !v[s]) v[s] = 1, todo[n++] = s;
      }
    }
  }
  free(todo);
  return visits;
}

/* Agent `id` on journey j at stage s (a slot or the queue): an id given so
 * far, a journey of the scenario that leads to s. */
static int agent_at_stage_fits(const thr_evac *e, const unsigned char *visits, int s, uint32_t id, int32_t j,
                               const char *where, char *err, size_t errlen) {
  const thr_scenario *sc = e->sc;
  if (id >= e->next_id) {
    snprintf(err, errlen, "stage '%s' %s: agent id %u, but only ids below %u were given", sc->stages[s].name, where, id,
             e->next_id);
    return -1;
  }
  if (j < 0 || j >= sc->n_journeys) {
    snprintf(err, errlen, "stage '%s' %s: agent %u on journey %d, but the scenario has %d journey%s",
             sc->stages[s].name, where, id, (int)j, sc->n_journeys, sc->n_journeys == 1 ? "" : "s");
    return -1;
  }
  if (!visits[(size_t)j * (size_t)sc->n_stages + (size_t)s]) {
    snprintf(err, errlen, "stage '%s' %s: agent %u on journey '%s', which does not lead to this stage",
             sc->stages[s].name, where, id, sc->journeys[j].name);
    return -1;
  }
  return 0;
}

static int by_value_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* One stage's slots and queue against its definition. ids collects every
 * agent seen (for the duplicate check). */
static int stage_state_fits(const thr_evac *e, const unsigned char *visits, int s, uint32_t *ids, size_t *n_ids,
                            char *err, size_t errlen) {
  const thr_stage_def *d = &e->sc->stages[s];
  const stage_state *st = &e->st[s];
  int seated = d->kind == THR_STAGE_QUEUE || d->kind == THR_STAGE_WAITING, empty_before = 0;
  char where[64];
  for (int k = 0; k < d->n_slots; ++k) {
    if (st->occupant[k] == NO_AGENT) {
      empty_before = 1;
      continue;
    }
    snprintf(where, sizeof where, "slot %d", k);
    if (agent_at_stage_fits(e, visits, s, st->occupant[k], st->journey[k], where, err, errlen)) return -1;
    if (d->kind == THR_STAGE_QUEUE && empty_before) {
      snprintf(err, errlen, "queue '%s': slot %d is taken behind an empty one (a queue fills from the front)",
               d->name, k);
      return -1;
    }
    if (!(st->since[k] == -1.0 || (isfinite(st->since[k]) && st->since[k] >= 0.0))) {
      snprintf(err, errlen, "stage '%s' slot %d: seated since %g s (neither a time nor -1: not yet)", d->name, k,
               st->since[k]);
      return -1;
    }
    ids[(*n_ids)++] = st->occupant[k];
  }
  if (st->n_queue && !seated) {
    snprintf(err, errlen, "stage '%s': %zu agents hold position, but only queue and waiting stages have slots",
             d->name, st->n_queue);
    return -1;
  }
  for (size_t q = 0; q < st->n_queue; ++q) {
    snprintf(where, sizeof where, "holding position %zu", q);
    if (agent_at_stage_fits(e, visits, s, st->queue_id[q], st->queue_journey[q], where, err, errlen)) return -1;
    ids[(*n_ids)++] = st->queue_id[q];
  }
  if (st->targeted < 0 || st->targeted > (long)e->next_id) {
    snprintf(err, errlen, "stage '%s': %ld agents head for it, but %u were ever given an id", d->name, st->targeted,
             e->next_id);
    return -1;
  }
  /* released (a waiting stage after `until`): everyone was let go, later arrivals walk through */
  int may_open = d->kind == THR_STAGE_WAITING && d->until >= 0.0f, held = 0;
  for (int k = 0; k < d->n_slots; ++k) held += st->occupant[k] != NO_AGENT;
  if ((st->open != 0 && st->open != 1) || (st->open && (!may_open || held || st->n_queue))) {
    snprintf(err, errlen, "stage '%s': released flag %d (0 or 1; only a waiting stage with `until` is released, "
             "and then holds nobody)", d->name, st->open);
    return -1;
  }
  return 0;
}

/* The sources' progress and the spawns waiting for room. */
static int sources_fit(const thr_evac *e, char *err, size_t errlen) {
  const thr_scenario *sc = e->sc;
  for (int q = 0; q < sc->n_sources; ++q) {
    const thr_source_def *d = &sc->sources[q];
    if (e->produced[q] < 0 || (d->count > 0 && e->produced[q] > d->count)) {
      snprintf(err, errlen, "source '%s': %ld spawns due so far (count %ld)", d->name, e->produced[q], d->count);
      return -1;
    }
  }
  for (size_t k = 0; k < e->n_pending; ++k) {
    const pending_spawn *p = &e->pending[k];
    if (p->source < 0 || p->source >= sc->n_sources || p->seq < 0 || p->seq >= e->produced[p->source] ||
        p->attempt < 0) {
      snprintf(err, errlen, "pending spawn %zu: source %d, number %ld, attempt %d (the scenario has %d sources)", k,
               p->source, p->seq, p->attempt, sc->n_sources);
      return -1;
    }
  }
  return 0;
}

/* What the stage model indexes with and counts on, against the scenario:
 * after the bytes were read (they fit in length), before anything uses
 * them. first_id: the scenario's agents (ids below it are theirs). */
static int evac_state_fits(const thr_evac *e, uint32_t first_id, char *err, size_t errlen) {
  const thr_scenario *sc = e->sc;
  if (e->next_id < first_id || e->added != (long)(e->next_id - first_id) || (e->id_limit_said & ~1)) {
    snprintf(err, errlen,
             "the next agent id %u, %ld agents added by sources and the id-limit flag %d do not agree with the "
             "scenario's %u agents",
             e->next_id, e->added, e->id_limit_said, first_id);
    return -1;
  }
  for (int k = 0; k < sc->n_journeys * sc->n_stages; ++k)
    if (e->rr[k] < 0) {
      snprintf(err, errlen, "journey '%s': round-robin counter %ld after stage '%s' (negative)",
               sc->journeys[k / sc->n_stages].name, e->rr[k], sc->stages[k % sc->n_stages].name);
      return -1;
    }
  size_t n_ids = 0;
  for (int s = 0; s < sc->n_stages; ++s) n_ids += (size_t)sc->stages[s].n_slots + e->st[s].n_queue;
  unsigned char *visits = journey_visits(sc);
  uint32_t *ids = malloc((n_ids + 1) * sizeof *ids);
  int rc = visits && ids ? 0 : -1;
  if (rc) snprintf(err, errlen, "out of memory checking the stages' state");
  n_ids = 0;
  for (int s = 0; s < sc->n_stages && !rc; ++s) rc = stage_state_fits(e, visits, s, ids, &n_ids, err, errlen);
  if (!rc) {
    qsort(ids, n_ids, sizeof *ids, by_value_u32);
    for (size_t k = 1; k < n_ids && !rc; ++k)
      if (ids[k] == ids[k - 1]) {
        snprintf(err, errlen, "agent %u takes two places in the stages (slots or queues)", ids[k]);
        rc = -1;
      }
  }
  free(visits);
  free(ids);
  return rc ? -1 : sources_fit(e, err, errlen);
}

int thr_evac_unpack(thr_evac *e, thr_blob *b, char *err, size_t errlen) {
  const thr_scenario *sc = e->sc;
  const uint32_t first_id = e->next_id; /* thr_evac_create's: the scenario's agents */
  for (int s = 0; s < sc->n_stages && !b->bad; ++s) {
    stage_state *st = &e->st[s];
    size_t n = (size_t)sc->stages[s].n_slots;
    thr_blob_get(b, st->occupant, n * sizeof *st->occupant);
    thr_blob_get(b, st->journey, n * sizeof *st->journey);
    thr_blob_get(b, st->since, n * sizeof *st->since);
    /* each waiting agent takes an id and a journey: the bytes bound the count */
    size_t q = thr_blob_get_count(b, thr_blob_left(b) / (sizeof *st->queue_id + sizeof *st->queue_journey));
    if (b->bad) {
      snprintf(err, errlen, "stage '%s': its slots or queue length lie past the end of the %zu bytes",
               sc->stages[s].name, b->n);
      return -1;
    }
    if (grow((void **)&st->queue_id, &st->queue_cap, q + 1, sizeof *st->queue_id) ||
        !(st->queue_journey = realloc(st->queue_journey, st->queue_cap * sizeof *st->queue_journey))) {
      snprintf(err, errlen, "out of memory restoring the stage queues");
      return -1;
    }
    st->n_queue = q;
    thr_blob_get(b, st->queue_id, q * sizeof *st->queue_id);
    thr_blob_get(b, st->queue_journey, q * sizeof *st->queue_journey);
    st->targeted = (long)thr_blob_get_i64(b);
    st->open = (int)thr_blob_get_i64(b);
    for (size_t k = 0; k < n; ++k)
      if (st->occupant[k] == NO_AGENT) st->journey[k] = -1, st->since[k] = -1.0; /* as packed */
  }
  thr_blob_get(b, e->rr, (size_t)(sc->n_journeys * sc->n_stages) * sizeof *e->rr);
  thr_blob_get(b, e->produced, (size_t)sc->n_sources * sizeof *e->produced);
  size_t np = thr_blob_get_count(b, thr_blob_left(b) / sizeof *e->pending);
  if (!b->bad && grow((void **)&e->pending, &e->pending_cap, np + 1, sizeof *e->pending)) {
    snprintf(err, errlen, "out of memory restoring the pending spawns");
    return -1;
  }
  e->n_pending = b->bad ? 0 : np;
  thr_blob_get(b, e->pending, e->n_pending * sizeof *e->pending);
  int64_t next = thr_blob_get_i64(b);
  e->added = (long)thr_blob_get_i64(b);
  e->id_limit_said = (int)thr_blob_get_i64(b);
  if (b->bad || thr_blob_left(b)) {
    snprintf(err, errlen,
             "%zu bytes that do not hold the scenario's stages and sources (cut short, a count past the end, or "
             "bytes left over)",
             b->n);
    return -1;
  }
  if (next < 0 || next > (int64_t)UINT32_MAX) {
    snprintf(err, errlen, "the next agent id %lld lies outside 0..%u", (long long)next, UINT32_MAX);
    return -1;
  }
  e->next_id = (uint32_t)next;
  return evac_state_fits(e, first_id, err, errlen);
}

void thr_evac_free(thr_evac *e) {
  if (!e) return;
  for (int s = 0; e->st && s < e->sc->n_stages; ++s) {
    free(e->st[s].occupant);
    free(e->st[s].journey);
    free(e->st[s].since);
    free(e->st[s].queue_id);
    free(e->st[s].queue_journey);
  }
  void *bufs[] = {e->st, e->rr, e->as, e->mine, e->all, e->counts, e->displs, e->recs, e->gathered, e->produced,
                  e->pending};
  for (size_t k = 0; k < sizeof bufs / sizeof bufs[0]; ++k) free(bufs[k]);
  thr_agents_free(&e->leavers);
  thr_agents_free(&e->shown);
  free(e);
}
