#include "measure.h"

#include <math.h>
#include "base/polygon.h"
#include "base/geometry.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/passes.h"

struct thr_measure {
  int n_areas, n_lines;
  size_t n_cells;
  double *area_m2;          /* [n_areas] */
  int64_t *sample;          /* area agents, area speeds, line crossings: [2 n_areas + n_lines] */
  int64_t *crossed;         /* [n_lines] since the start (this rank's) */
  int64_t *map;             /* map agents, map speeds: [2 n_cells] (this rank's) */
  long map_samples;
  /* per sample extremes, rank 0 (the other ranks' stay 0): the most agents
   * in one sample, the samples at or above the threshold, the step of the
   * last sample with an agent (-1: none) */
  int64_t *peak, *above, *last; /* [n_cells] each, one block */
  int64_t *now;                 /* this sample's agents and speeds [2 n_cells] */
};

static double ring_area(const thr_vec2 *v, int n) {
  double a = 0.0;
  for (int k = 0; k < n; ++k) {
    const thr_vec2 p = v[k], q = v[(k + 1) % n];
    a += (double)p.x * (double)q.y - (double)q.x * (double)p.y;
  }
  return fabs(0.5 * a);
}

int thr_measure_create(thr_measure **out, const thr_sim *s, char *err, size_t errlen) {
  const thr_world *w = &s->world;
  *out = NULL;
  size_t cells = w->map_nx > 0 ? (size_t)w->map_nx * (size_t)w->map_ny : 0;
  if (!w->n_areas && !w->n_lines && !cells) return 0;
  thr_measure *m = calloc(1, sizeof *m);
  if (!m) goto oom;
  m->n_areas = w->n_areas;
  m->n_lines = w->n_lines;
  m->n_cells = cells;
  m->area_m2 = calloc((size_t)w->n_areas + 1, sizeof *m->area_m2);
  m->sample = calloc(2 * (size_t)w->n_areas + (size_t)w->n_lines + 1, sizeof *m->sample);
  m->crossed = calloc((size_t)w->n_lines + 1, sizeof *m->crossed);
  m->map = calloc(2 * cells + 1, sizeof *m->map);
  m->peak = calloc(3 * cells + 1, sizeof *m->peak);
  m->now = calloc(2 * cells + 1, sizeof *m->now);
  if (!m->area_m2 || !m->sample || !m->crossed || !m->map || !m->peak || !m->now) goto oom;
  m->above = m->peak + cells;
  m->last = m->peak + 2 * cells;
  for (size_t c = 0; c < cells; ++c) m->last[c] = -1;
  for (int k = 0; k < w->n_areas; ++k)
    m->area_m2[k] = ring_area(w->area_verts + w->area_vfirst[k], w->area_vfirst[k + 1] - w->area_vfirst[k]);
  *out = m;
  return 0;
oom:
  thr_measure_free(m);
  snprintf(err, errlen, "out of memory for the measurement maps (%zu cells; raise measurement.maps.cell)", cells);
  return -1;
}

void thr_measure_free(thr_measure *m) {
  if (!m) return;
  free(m->area_m2);
  free(m->sample);
  free(m->crossed);
  free(m->map);
  free(m->peak);
  free(m->now);
  free(m);
}

void thr_measure_sample(thr_measure *m, thr_sim *s, thr_area_sample *areas, int64_t *crossings) {
  if (!m) return;
  double t0 = MPI_Wtime();
  int na = m->n_areas, nl = m->n_lines;
  int64_t *v = m->sample;
  memset(v, 0, (2 * (size_t)na + (size_t)nl) * sizeof *v);
  thr_evac_counts c = {na ? v : NULL, na ? v + na : NULL, NULL, NULL, nl ? v + 2 * na : NULL};
  s->be->ops->evac_measure(s->be, &c);
  for (int k = 0; k < nl; ++k) m->crossed[k] += v[2 * na + k];
  memcpy(v + 2 * na, m->crossed, (size_t)nl * sizeof *v);
  int n = 2 * na + nl;
  if (s->nranks > 1 && n)
    MPI_Reduce(s->rank == 0 ? MPI_IN_PLACE : v, v, n, MPI_INT64_T, MPI_SUM, 0, s->comm);
  if (s->rank == 0) {
    for (int k = 0; k < na; ++k) {
      areas[k].agents = (long)v[k];
      areas[k].density = m->area_m2[k] > 0.0 ? (double)v[k] / m->area_m2[k] : 0.0;
      areas[k].mean_speed = v[k] ? (double)v[na + k] * THR_SPEED_QUANTUM / (double)v[k] : NAN;
    }
    if (nl) memcpy(crossings, v + 2 * na, (size_t)nl * sizeof *v);
  }
  s->timers.t[THR_PHASE_METRICS] += MPI_Wtime() - t0;
}

/* MPI_Reduce (sum, to rank 0) of n int64 in chunks: MPI counts are int. */
static void reduce_sum(int64_t *v, size_t n, thr_sim *s) {
  for (size_t at = 0; s->nranks > 1 && at < n; at += 1u << 28) {
    int len = (int)(n - at < (1u << 28) ? n - at : (1u << 28));
    MPI_Reduce(s->rank == 0 ? MPI_IN_PLACE : v + at, v + at, len, MPI_INT64_T, MPI_SUM, 0, s->comm);
  }
}

void thr_measure_map_sample(thr_measure *m, thr_sim *s) {
  if (!m || !m->n_cells) return;
  double t0 = MPI_Wtime();
  size_t n = m->n_cells;
  memset(m->now, 0, 2 * n * sizeof *m->now);
  thr_evac_counts c = {NULL, NULL, m->now, m->now + n, NULL};
  s->be->ops->evac_measure(s->be, &c);
  for (size_t k = 0; k < 2 * n; ++k) m->map[k] += m->now[k];
  m->map_samples++;
  /* the extremes need this sample's counts of every rank (integers: the
   * same on any rank count) */
  reduce_sum(m->now, n, s);
  if (s->rank == 0) {
    double cell2 = (double)s->world.map_cell * (double)s->world.map_cell;
    double threshold = (double)s->world.map_threshold;
    for (size_t k = 0; k < n; ++k) {
      int64_t a = m->now[k];
      if (!a) continue;
      if (a > m->peak[k]) m->peak[k] = a;
      if ((double)a / cell2 >= threshold) m->above[k]++;
      m->last[k] = s->step;
    }
  }
  s->timers.t[THR_PHASE_METRICS] += MPI_Wtime() - t0;
}

long thr_measure_maps(thr_measure *m, thr_sim *s, double sample_seconds, double *const maps[THR_N_MAPS]) {
  if (!m || !m->n_cells || !m->map_samples) return 0;
  size_t n = 2 * m->n_cells;
  reduce_sum(m->map, n, s);
  if (s->rank == 0) {
    const thr_world *w = &s->world;
    double cell2 = (double)w->map_cell * (double)w->map_cell, dt = (double)s->prm.dt;
    for (size_t c = 0; c < m->n_cells; ++c) {
      int64_t agents = m->map[c], q = m->map[m->n_cells + c];
      int seen = agents > 0; /* NaN: never entered */
      maps[THR_MAP_DENSITY][c] = seen ? (double)agents / (double)m->map_samples / cell2 : NAN;
      maps[THR_MAP_SPEED][c] = seen ? (double)q * THR_SPEED_QUANTUM / (double)agents : NAN;
      maps[THR_MAP_DENSITY_MAX][c] = seen ? (double)m->peak[c] / cell2 : NAN;
      maps[THR_MAP_TIME_ABOVE][c] = seen ? (double)m->above[c] * sample_seconds : NAN;
      maps[THR_MAP_LAST_OCCUPIED][c] = seen ? (double)m->last[c] * dt : NAN;
    }
  }
  /* the sums are spent: a second call would count twice */
  memset(m->map, 0, n * sizeof *m->map);
  long samples = m->map_samples;
  m->map_samples = 0;
  return samples;
}

int thr_measure_pack(thr_measure *m, thr_sim *s, thr_blob *b) {
  if (!m) return 0;
  int nl = m->n_lines;
  if (nl) { /* crossings since the last sample */
    int64_t v[THR_MAX_LINES] = {0};
    thr_evac_counts c = {NULL, NULL, NULL, NULL, v};
    s->be->ops->evac_measure(s->be, &c);
    for (int k = 0; k < nl; ++k) m->crossed[k] += v[k];
  }
  size_t n = (size_t)nl + 2 * m->n_cells;
  int64_t *sum = malloc((n + 1) * sizeof *sum);
  int bad = !sum;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, s->comm);
  if (bad) {
    free(sum);
    return -1;
  }
  memcpy(sum, m->crossed, (size_t)nl * sizeof *sum);
  memcpy(sum + nl, m->map, 2 * m->n_cells * sizeof *sum);
  for (size_t at = 0; s->nranks > 1 && at < n; at += 1u << 28) {
    int len = (int)(n - at < (1u << 28) ? n - at : (1u << 28));
    MPI_Reduce(s->rank == 0 ? MPI_IN_PLACE : sum + at, sum + at, len, MPI_INT64_T, MPI_SUM, 0, s->comm);
  }
  if (s->rank == 0) {
    thr_blob_put_i64(b, nl);
    thr_blob_put_i64(b, (int64_t)m->n_cells);
    thr_blob_put(b, sum, n * sizeof *sum);
    thr_blob_put_i64(b, m->map_samples);
    thr_blob_put(b, m->peak, 3 * m->n_cells * sizeof *m->peak); /* rank 0 holds them */
  }
  free(sum);
  return 0;
}

/* The sums as read (rank 0) against what they count: crossings, agents and
 * speed quanta are never negative; a cell nobody entered has no speeds, and
 * without a sample no cell has anything. */
static int measure_sums_fit(const thr_measure *m, char *err, size_t errlen) {
  for (int k = 0; k < m->n_lines; ++k)
    if (m->crossed[k] < 0) {
      snprintf(err, errlen, "line %d: %lld crossings (negative)", k, (long long)m->crossed[k]);
      return -1;
    }
  if (m->map_samples < 0) {
    snprintf(err, errlen, "%ld map samples (negative)", m->map_samples);
    return -1;
  }
  for (size_t c = 0; c < m->n_cells; ++c) {
    int64_t agents = m->map[c], speeds = m->map[m->n_cells + c];
    if (agents < 0 || speeds < 0 || (!agents && speeds) || (agents && !m->map_samples)) {
      snprintf(err, errlen, "map cell %zu: an agent sum of %lld and a speed sum of %lld after %ld samples", c,
               (long long)agents, (long long)speeds, m->map_samples);
      return -1;
    }
    if (m->peak[c] < 0 || m->peak[c] > agents || m->above[c] < 0 || m->above[c] > m->map_samples ||
        m->last[c] < -1 || (m->peak[c] > 0) != (m->last[c] >= 0)) {
      snprintf(err, errlen, "map cell %zu: a peak of %lld agents, %lld samples above the threshold and a last step "
               "%lld that do not fit its %lld agents in %ld samples", c, (long long)m->peak[c],
               (long long)m->above[c], (long long)m->last[c], (long long)agents, m->map_samples);
      return -1;
    }
  }
  return 0;
}

int thr_measure_unpack(thr_measure *m, thr_sim *s, thr_blob *b, char *err, size_t errlen) {
  if (!m) return 0;
  int bad = 0;
  size_t nl = (size_t)m->n_lines;
  memset(m->crossed, 0, nl * sizeof *m->crossed);
  memset(m->map, 0, 2 * m->n_cells * sizeof *m->map);
  memset(m->peak, 0, 2 * m->n_cells * sizeof *m->peak);
  for (size_t c = 0; c < m->n_cells; ++c) m->last[c] = -1;
  if (s->rank == 0) {
    size_t l = thr_blob_get_count(b, THR_MAX_LINES), c = thr_blob_get_count(b, b->n);
    if (!b->bad && (l != nl || c != m->n_cells)) {
      snprintf(err, errlen, "sums of %zu lines and %zu map cells; the scenario has %zu lines and %zu cells", l, c, nl,
               m->n_cells);
      bad = 1;
    }
    thr_blob_get(b, m->crossed, bad ? 0 : nl * sizeof *m->crossed);
    thr_blob_get(b, m->map, bad ? 0 : 2 * m->n_cells * sizeof *m->map);
    m->map_samples = (long)thr_blob_get_i64(b);
    /* the extremes; a checkpoint from before they existed has none: they
     * start again from the restart */
    if (!bad && !b->bad && thr_blob_left(b)) thr_blob_get(b, m->peak, 3 * m->n_cells * sizeof *m->peak);
    if (!bad && (b->bad || thr_blob_left(b))) {
      snprintf(err, errlen, "%zu bytes that do not hold the sums of the scenario's %zu lines and %zu map cells (cut "
               "short or bytes left over)", b->n, nl, m->n_cells);
      bad = 1;
    }
    if (!bad) bad = measure_sums_fit(m, err, errlen) ? 1 : 0;
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, s->comm);
  MPI_Bcast(&m->map_samples, 1, MPI_LONG, 0, s->comm);
  if (bad && s->nranks > 1) MPI_Bcast(err, (int)errlen, MPI_CHAR, 0, s->comm);
  return bad ? -1 : 0;
}

/* ---- lines that can be walked round (throng check) ---------------------------- */

/* Can an agent stand at p: inside the walkable area (or the world) and in
 * no closed obstacle? */
static int open_ground(const thr_scenario *sc, thr_vec2 p) {
  if (sc->walkable.n_polys ? thr_polyset_locate(&sc->walkable, p, 1e-3) != THR_INSIDE
                           : !(p.x > sc->world_min.x && p.x < sc->world_max.x && p.y > sc->world_min.y &&
                               p.y < sc->world_max.y))
    return 0;
  for (int o = 0; o < sc->n_obstacles; ++o)
    if (sc->obs_closed[o] &&
        thr_polygon_contains(sc->verts + sc->obs_vfirst[o], sc->obs_vfirst[o + 1] - sc->obs_vfirst[o], p))
      return 0;
  return 1;
}

void thr_measure_line_gaps(const thr_scenario *sc, int k, double gap[2]) {
  thr_vec2 end[2] = {sc->lines[k].a, sc->lines[k].b};
  for (int e = 0; e < 2; ++e) {
    double best = INFINITY;
    if (!open_ground(sc, end[e])) { /* in a wall, or beyond the boundary: nobody walks round it */
      gap[e] = 0.0;
      continue;
    }
    for (int o = 0; o < sc->n_obstacles; ++o) {
      int v0 = sc->obs_vfirst[o], v1 = sc->obs_vfirst[o + 1], n = v1 - v0;
      int segs = sc->obs_closed[o] ? n : n - 1;
      for (int s = 0; s < segs; ++s) {
        double d = thr_point_segment_distance(end[e], sc->verts[v0 + s], sc->verts[v0 + (s + 1) % n]);
        if (d < best) best = d;
      }
    }
    gap[e] = best;
  }
}
