#include "formations.h"

#include "kernels/quanta.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Quantum of the centroid sums [m]: integer sums are exact, so every rank
 * count gives the same centroid (10 um: 1e5 m worlds x 1e8 agents fit in
 * 64 bits). */
#define CENTROID_QUANTUM 1e-5

void thr_formations_free(thr_formations *f) {
  if (!f) return;
  for (int k = 0; f->path && k < f->n; ++k) thr_group_path_free(&f->path[k]);
  free(f->group);
  free(f->speed);
  free(f->wp_radius);
  free(f->weight);
  free(f->rms);
  free(f->members);
  free(f->path);
  free(f->state);
  free(f);
}

static int index_of_group(const thr_formations *f, int group) {
  for (int k = 0; k < f->n; ++k)
    if (f->group[k] == group) return k;
  return -1;
}

/* Formation index, clear count and SRD offset of the owned agents; the
 * group start positions P(0) (eq. 2) into p0. Collective. */
static int attach(thr_formations *f, const thr_scenario *sc, thr_agents *owned, MPI_Comm comm, thr_vec2 *p0,
                  char *err, size_t errlen) {
  int n = f->n;
  int64_t *sums = calloc((size_t)3 * (size_t)n, sizeof *sums); /* x, y, count */
  if (!sums) {
    snprintf(err, errlen, "out of memory attaching agents to formations");
    return -2;
  }
  for (size_t i = 0; i < owned->n_owned; ++i) {
    int k = index_of_group(f, owned->group[i]);
    owned->formation[i] = k;
    owned->fclear[i] = k >= 0 ? THR_FCLEAR_MAX : 0;
    if (k < 0) continue;
    sums[3 * k] += (int64_t)llround((double)owned->x[i].x / CENTROID_QUANTUM);
    sums[3 * k + 1] += (int64_t)llround((double)owned->x[i].y / CENTROID_QUANTUM);
    sums[3 * k + 2] += 1;
  }
  MPI_Allreduce(MPI_IN_PLACE, sums, 3 * n, MPI_INT64_T, MPI_SUM, comm);
  int rc = 0;
  for (int k = 0; k < n && !rc; ++k) {
    f->members[k] = (long)sums[3 * k + 2];
    if (!f->members[k]) {
      snprintf(err, errlen, "%s:%d: formations.groups[%d]: no agent has group %d (agents[].group)", sc->path,
               sc->formations[k].line, k, f->group[k]);
      rc = -1;
      break;
    }
    double m = (double)sums[3 * k + 2];
    p0[k] = v2((float)((double)sums[3 * k] * CENTROID_QUANTUM / m),
               (float)((double)sums[3 * k + 1] * CENTROID_QUANTUM / m));
  }
  free(sums);
  if (rc) return rc;
  for (size_t i = 0; i < owned->n_owned; ++i) {
    int k = owned->formation[i];
    owned->srd[i] = k >= 0 ? v2_sub(owned->x[i], p0[k]) : v2(0.0f, 0.0f);
  }
  return 0;
}

int thr_formations_create(thr_formations **out, const thr_scenario *sc, thr_agents *owned, MPI_Comm comm,
                          char *err, size_t errlen) {
  *out = NULL;
  int n = sc->n_formations;
  if (!n) return 0;
  thr_formations *f = calloc(1, sizeof *f);
  thr_vec2 *p0 = calloc((size_t)n, sizeof *p0);
  if (f) {
    f->n = n;
    f->group = calloc((size_t)n, sizeof *f->group);
    f->speed = calloc((size_t)n, sizeof *f->speed);
    f->wp_radius = calloc((size_t)n, sizeof *f->wp_radius);
    f->weight = calloc((size_t)n, sizeof *f->weight);
    f->rms = calloc((size_t)n, sizeof *f->rms);
    f->members = calloc((size_t)n, sizeof *f->members);
    f->path = calloc((size_t)n, sizeof *f->path);
    f->state = calloc((size_t)n, sizeof *f->state);
  }
  if (!f || !p0 || !f->group || !f->speed || !f->wp_radius || !f->weight || !f->rms || !f->members || !f->path || !f->state) {
    free(p0);
    thr_formations_free(f);
    snprintf(err, errlen, "out of memory for %d formations", n);
    return -2;
  }
  for (int k = 0; k < n; ++k) {
    const thr_formation_def *d = &sc->formations[k];
    f->group[k] = d->group;
    f->speed[k] = d->speed;
    f->wp_radius[k] = d->waypoint_radius;
    f->weight[k] = d->speed_weight;
    f->weighted |= d->speed_weight > 0.0f;
    p0[k] = d->path[0]; /* checkpointed agents: the paths' state comes with them */
  }
  int rc = owned ? attach(f, sc, owned, comm, p0, err, errlen) : 0;
  for (int k = 0; k < n && !rc; ++k) {
    const thr_formation_def *d = &sc->formations[k];
    if (thr_group_path_init(&f->path[k], d->path, d->n_path, d->min_spacing, p0[k])) {
      snprintf(err, errlen, "out of memory for the path of formation %d", k);
      rc = -2;
    }
    f->state[k].pos = p0[k];
  }
  free(p0);
  if (rc) {
    thr_formations_free(f);
    return rc;
  }
  *out = f;
  return 0;
}

void thr_formations_advance(thr_formations *f, float dt) {
  for (int k = 0; k < f->n; ++k) {
    float speed = thr_formation_weighted_speed(f->speed[k], f->weight[k], f->rms[k]);
    thr_vec2 step = thr_group_path_step(&f->path[k], speed, dt, f->wp_radius[k]);
    f->state[k].pos = f->path[k].pos;
    f->state[k].vel = v2_scale(step, 1.0f / dt);
  }
}

void thr_formations_set_errors(thr_formations *f, const int64_t *sq_q) {
  for (int k = 0; k < f->n; ++k)
    f->rms[k] = f->members[k] ? sqrt((double)sq_q[k] * THR_SPEED_QUANTUM / (double)f->members[k]) : 0.0;
}

void thr_formations_pack(const thr_formations *f, thr_blob *b) {
  thr_blob_put_i64(b, f ? f->n : 0);
  for (int k = 0; f && k < f->n; ++k) {
    const thr_group_path *p = &f->path[k];
    thr_blob_put_i64(b, p->waypoint);
    thr_blob_put_i64(b, p->arrived);
    thr_blob_put(b, &p->pos, sizeof p->pos);
    thr_blob_put(b, &p->step, sizeof p->step);
    thr_blob_put(b, &f->state[k], sizeof f->state[k]);
    thr_blob_put_i64(b, f->members[k]);
  }
}

static int finite2(thr_vec2 v) { return isfinite(v.x) && isfinite(v.y); }

/* Formation k's path state as read (waypoint, arrived: the values in the
 * bytes) against its path. */
static int formation_state_fits(const thr_formations *f, int k, int64_t waypoint, int64_t arrived, char *err,
                                size_t errlen) {
  const thr_group_path *p = &f->path[k];
  const char *bad = waypoint < 0 || waypoint >= p->n                 ? "waypoint lies outside its path"
                    : arrived != 0 && arrived != 1                   ? "arrived flag is neither 0 nor 1"
                    : !finite2(p->pos) || !finite2(p->step)          ? "position or last step is not finite"
                    : !finite2(f->state[k].pos) || !finite2(f->state[k].vel) ? "group state is not finite"
                    : f->members[k] < 0                              ? "member count is negative"
                                                                     : NULL;
  if (bad)
    snprintf(err, errlen, "formation %d (group %d): its %s (waypoint %lld of %d points, arrived %lld, %ld members)",
             k, f->group[k], bad, (long long)waypoint, p->n, (long long)arrived, f->members[k]);
  return bad ? -1 : 0;
}

int thr_formations_unpack(thr_formations *f, thr_blob *b, char *err, size_t errlen) {
  int have = f ? f->n : 0;
  int64_t n = thr_blob_get_i64(b);
  if (!b->bad && n != have) {
    snprintf(err, errlen, "the checkpoint holds %lld formations; the scenario has %d", (long long)n, have);
    return -1;
  }
  for (int k = 0; k < have && !b->bad; ++k) {
    thr_group_path *p = &f->path[k];
    int64_t waypoint = thr_blob_get_i64(b), arrived = thr_blob_get_i64(b);
    thr_blob_get(b, &p->pos, sizeof p->pos);
    thr_blob_get(b, &p->step, sizeof p->step);
    thr_blob_get(b, &f->state[k], sizeof f->state[k]);
    f->members[k] = (long)thr_blob_get_i64(b);
    if (!b->bad && formation_state_fits(f, k, waypoint, arrived, err, errlen)) return -1;
    p->waypoint = (int)waypoint;
    p->arrived = (int)arrived;
  }
  if (b->bad || thr_blob_left(b)) {
    snprintf(err, errlen, "%zu bytes that do not hold the state of %d formations (cut short or bytes left over)",
             b->n, have);
    return -1;
  }
  return 0;
}
