#include "populate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/context.h"
#include "kernels/rng.h"

#define THR_PI 3.14159265358979323846

/* RNG streams of the per-agent draws at creation (step 0). */
enum {
  STREAM_RADIUS = 1,
  STREAM_MASS,
  STREAM_SPEED,
  STREAM_JITTER_X,
  STREAM_JITTER_Y,
  STREAM_GOAL_X,
  STREAM_GOAL_Y,
  STREAM_RANDOM_X = 16, /* random layout: attempt a uses step a */
  STREAM_RANDOM_Y
};

float thr_scenario_max_radius(const thr_scenario *sc) {
  float r = 0.0f;
  for (int b = 0; b < sc->n_blocks; ++b)
    if (sc->blocks[b].radius_max > r) r = sc->blocks[b].radius_max;
  return r;
}

static void block_error(const thr_scenario *sc, int b, char *err, size_t errlen, const char *what) {
  snprintf(err, errlen, "%s:%d: agents[%d] ('%s'): %s", sc->path, sc->blocks[b].line, b, sc->blocks[b].name,
           what);
}

/* ---- lattice layouts ------------------------------------------------------ */

typedef struct lattice {
  size_t n;
  double *x, *y;
  double *key; /* sort key (normalised radius) for count selection */
} lattice;

static void lattice_free(lattice *l) {
  free(l->x);
  free(l->y);
  free(l->key);
  memset(l, 0, sizeof *l);
}

static int lattice_alloc(lattice *l, size_t n) {
  l->n = 0;
  l->x = malloc((n ? n : 1) * sizeof(double));
  l->y = malloc((n ? n : 1) * sizeof(double));
  l->key = malloc((n ? n : 1) * sizeof(double));
  return (l->x && l->y && l->key) ? 0 : -1;
}

static void lattice_add(lattice *l, double x, double y, double key) {
  l->x[l->n] = x;
  l->y[l->n] = y;
  l->key[l->n] = key;
  l->n++;
}

/* Points of a rectangular lattice (grid layout), row by row. */
static int grid_points(const thr_block *bk, lattice *l) {
  long rows, cols;
  double sx, sy, x0 = bk->min.x, y0 = bk->min.y;
  if (bk->rows > 0 && bk->cols > 0) {
    rows = bk->rows;
    cols = bk->cols;
    sx = cols > 1 ? ((double)bk->max.x - bk->min.x) / (double)(cols - 1) : 0.0;
    sy = rows > 1 ? ((double)bk->max.y - bk->min.y) / (double)(rows - 1) : 0.0;
    if (cols == 1) x0 = 0.5 * ((double)bk->min.x + bk->max.x);
    if (rows == 1) y0 = 0.5 * ((double)bk->min.y + bk->max.y);
  } else {
    sx = bk->spacing_x;
    sy = bk->spacing_y;
    cols = (long)floor(((double)bk->max.x - bk->min.x) / sx + 1e-6) + 1;
    rows = (long)floor(((double)bk->max.y - bk->min.y) / sy + 1e-6) + 1;
  }
  if ((double)rows * (double)cols > 2.0e9) return -1;
  if (lattice_alloc(l, (size_t)(rows * cols))) return -1;
  for (long r = 0; r < rows; ++r)
    for (long c = 0; c < cols; ++c) lattice_add(l, x0 + (double)c * sx, y0 + (double)r * sy, 0.0);
  return 0;
}

/* Lattice points of spacing (sx, sy) inside the ellipse; count only when
 * l == NULL. */
static long ellipse_points(const thr_block *bk, double sx, double sy, lattice *l) {
  double rx = bk->rx, ry = bk->ry;
  long ni = (long)floor(rx / sx), nj = (long)floor(ry / sy);
  long n = 0;
  for (long j = -nj; j <= nj; ++j) {
    for (long i = -ni; i <= ni; ++i) {
      double u = (double)i * sx / rx, w = (double)j * sy / ry;
      double k = u * u + w * w;
      if (k > 1.0 + 1e-9) continue;
      if (l) lattice_add(l, bk->center.x + (double)i * sx, bk->center.y + (double)j * sy, k);
      n++;
    }
  }
  return n;
}

/* Indices sorted by (key, index): qsort is not stable, so compare indices. */
static const double *sort_keys;
static int cmp_key_index(const void *a, const void *b) {
  size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
  if (sort_keys[ia] < sort_keys[ib]) return -1;
  if (sort_keys[ia] > sort_keys[ib]) return 1;
  return ia < ib ? -1 : (ia > ib);
}
static int cmp_index(const void *a, const void *b) {
  size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
  return ia < ib ? -1 : (ia > ib);
}

/* Keep the `count` points with the smallest key, in their original order. */
static int keep_closest(lattice *l, long count) {
  size_t *idx = malloc(l->n * sizeof(size_t));
  if (!idx) return -1;
  for (size_t k = 0; k < l->n; ++k) idx[k] = k;
  sort_keys = l->key;
  qsort(idx, l->n, sizeof(size_t), cmp_key_index);
  qsort(idx, (size_t)count, sizeof(size_t), cmp_index);
  for (long k = 0; k < count; ++k) {
    l->x[k] = l->x[idx[k]];
    l->y[k] = l->y[idx[k]];
  }
  l->n = (size_t)count;
  free(idx);
  return 0;
}

/* Lattice positions of a block (all layouts but random). */
static int block_points(const thr_scenario *sc, int b, lattice *l, char *err, size_t errlen) {
  const thr_block *bk = &sc->blocks[b];
  char msg[256];
  memset(l, 0, sizeof *l);
  if (bk->layout == THR_LAYOUT_GRID) {
    if (grid_points(bk, l)) {
      block_error(sc, b, err, errlen, "the grid is too large");
      return -1;
    }
  } else if (bk->layout == THR_LAYOUT_CIRCLE) {
    if (lattice_alloc(l, (size_t)bk->count)) return -1;
    for (long k = 0; k < bk->count; ++k) {
      double a = 2.0 * THR_PI * (double)k / (double)bk->count;
      lattice_add(l, bk->center.x + bk->rx * cos(a), bk->center.y + bk->rx * sin(a), 0.0);
    }
  } else { /* disk, ellipse */
    double sx = bk->spacing_x, sy = bk->spacing_y;
    if (!(sx > 0.0)) { /* largest spacing giving at least `count` points */
      sx = sqrt(THR_PI * bk->rx * bk->ry / (double)bk->count);
      for (int it = 0; it < 2000 && ellipse_points(bk, sx, sx, NULL) < bk->count; ++it) sx *= 0.995;
      sy = sx;
    }
    long n = ellipse_points(bk, sx, sy, NULL);
    if (lattice_alloc(l, (size_t)n)) return -1;
    ellipse_points(bk, sx, sy, l);
  }
  if (bk->count > 0 && (long)l->n < bk->count) {
    snprintf(msg, sizeof msg, "count %ld exceeds the %zu positions of the layout", bk->count, l->n);
    block_error(sc, b, err, errlen, msg);
    lattice_free(l);
    return -1;
  }
  if (bk->count > 0 && (long)l->n > bk->count && keep_closest(l, bk->count)) {
    lattice_free(l);
    return -1;
  }
  if (l->n == 0) {
    block_error(sc, b, err, errlen, "the layout holds no agent");
    return -1;
  }
  return 0;
}

long thr_scenario_count(const thr_scenario *sc, char *err, size_t errlen) {
  long total = 0;
  for (int b = 0; b < sc->n_blocks; ++b) {
    if (sc->blocks[b].layout == THR_LAYOUT_RANDOM) {
      total += sc->blocks[b].count;
      continue;
    }
    lattice l;
    if (block_points(sc, b, &l, err, errlen)) return -1;
    total += (long)l.n;
    lattice_free(&l);
  }
  return total;
}

/* ---- random layout --------------------------------------------------------- */

/* Uniform non-overlapping positions in the block's rectangle by dart
 * throwing; attempt a of agent id draws with step a, so the result depends
 * only on the seed and ids. */
static int random_points(const thr_scenario *sc, int b, uint32_t first_id, const float *radius,
                         lattice *l, char *err, size_t errlen) {
  const thr_block *bk = &sc->blocks[b];
  long n = bk->count;
  double w = (double)bk->max.x - bk->min.x, h = (double)bk->max.y - bk->min.y;
  double cs = 2.0 * bk->radius_max * sc->prm.radius_scale;
  if (cs <= 0.0) cs = 1.0;
  long ncx = (long)ceil(w / cs), ncy = (long)ceil(h / cs);
  if (ncx < 1) ncx = 1;
  if (ncy < 1) ncy = 1;
  if ((double)ncx * (double)ncy > 1.0e8) {
    block_error(sc, b, err, errlen, "the random-layout rectangle is too large for its agents");
    return -1;
  }
  long *head = malloc((size_t)(ncx * ncy) * sizeof(long));
  long *next = malloc((size_t)n * sizeof(long));
  if (!head || !next || lattice_alloc(l, (size_t)n)) {
    free(head);
    free(next);
    lattice_free(l);
    return -1;
  }
  for (long c = 0; c < ncx * ncy; ++c) head[c] = -1;
  for (long k = 0; k < n; ++k) {
    uint32_t id = first_id + (uint32_t)k;
    int placed = 0;
    for (int a = 0; a < 1000 && !placed; ++a) {
      double x = bk->min.x + w * thr_rng_uniform(sc->seed, id, (uint64_t)a, STREAM_RANDOM_X);
      double y = bk->min.y + h * thr_rng_uniform(sc->seed, id, (uint64_t)a, STREAM_RANDOM_Y);
      long cx = (long)((x - bk->min.x) / cs), cy = (long)((y - bk->min.y) / cs);
      if (cx >= ncx) cx = ncx - 1;
      if (cy >= ncy) cy = ncy - 1;
      int clear = 1;
      for (long yy = cy - 1; yy <= cy + 1 && clear; ++yy)
        for (long xx = cx - 1; xx <= cx + 1 && clear; ++xx) {
          if (xx < 0 || yy < 0 || xx >= ncx || yy >= ncy) continue;
          for (long o = head[yy * ncx + xx]; o >= 0 && clear; o = next[o]) {
            double dx = x - l->x[o], dy = y - l->y[o];
            double md = ((double)radius[k] + radius[o]) * sc->prm.radius_scale;
            if (dx * dx + dy * dy < md * md) clear = 0;
          }
        }
      if (!clear) continue;
      lattice_add(l, x, y, 0.0);
      next[k] = head[cy * ncx + cx];
      head[cy * ncx + cx] = k;
      placed = 1;
    }
    if (!placed) {
      char msg[200];
      snprintf(msg, sizeof msg,
               "cannot place agent %ld of %ld without overlap after 1000 attempts; enlarge the rectangle or "
               "lower count",
               k, n);
      block_error(sc, b, err, errlen, msg);
      free(head);
      free(next);
      lattice_free(l);
      return -1;
    }
  }
  free(head);
  free(next);
  return 0;
}

/* ---- agents ------------------------------------------------------------------ */

static float draw_range(uint64_t seed, uint32_t id, uint32_t stream, float lo, float hi) {
  if (!(hi > lo)) return lo;
  return lo + (hi - lo) * thr_rng_uniform(seed, id, 0, stream);
}

static float draw_jitter(uint64_t seed, uint32_t id, uint32_t stream, float amp) {
  if (!(amp > 0.0f)) return 0.0f;
  return amp * (2.0f * thr_rng_uniform(seed, id, 0, stream) - 1.0f);
}

/* Check one agent against the world and the obstacles of its cell. */
static int check_agent(const thr_scenario *sc, const thr_world *w, int b, const thr_agent_rec *r, char *err,
                       size_t errlen) {
  char msg[400];
  if (!(r->x.x >= w->min.x && r->x.x <= w->max.x && r->x.y >= w->min.y && r->x.y <= w->max.y)) {
    snprintf(msg, sizeof msg, "agent %u at (%g, %g) is outside the world [%g, %g] x [%g, %g]", r->id,
             (double)r->x.x, (double)r->x.y, (double)w->min.x, (double)w->max.x, (double)w->min.y,
             (double)w->max.y);
    block_error(sc, b, err, errlen, msg);
    return -1;
  }
  thr_obstacle_view ov = thr_world_obstacle_view(w);
  thr_grid_view g = thr_world_grid_geometry(w);
  int cell = thr_local_cell(&g, r->x);
  for (int t = ov.cell_offset[cell]; t < ov.cell_offset[cell + 1]; ++t) {
    int o = ov.cell_items[t];
    float d;
    thr_vec2 n;
    if (!thr_obstacle_distance(&ov, o, r->x, r->x, &d, &n)) d = 0.0f;
    if (d >= r->radius) continue;
    snprintf(msg, sizeof msg, "agent %u at (%g, %g) %s obstacle %d (line %d)", r->id, (double)r->x.x,
             (double)r->x.y, d < 0.0f ? "lies inside" : "overlaps", o, sc->obs_line[o]);
    block_error(sc, b, err, errlen, msg);
    return -1;
  }
  return 0;
}

static void set_goal(const thr_scenario *sc, const thr_block *bk, thr_agent_rec *r) {
  thr_vec2 g = v2(0.0f, 0.0f);
  r->goal_set = THR_GOALSET_PERSONAL;
  switch (bk->goal_kind) {
    case THR_BGOAL_SET:
      r->goal_set = bk->goal_set;
      break;
    case THR_BGOAL_POINT:
      g = bk->goal_point;
      break;
    case THR_BGOAL_OFFSET:
      g = v2_add(r->x, bk->goal_point);
      break;
    case THR_BGOAL_ANTIPODAL:
      g = v2(2.0f * bk->goal_point.x - r->x.x, 2.0f * bk->goal_point.y - r->x.y);
      break;
    default:
      r->goal_set = THR_GOALSET_NONE;
      break;
  }
  if (r->goal_set == THR_GOALSET_PERSONAL) {
    g.x += draw_jitter(sc->seed, r->id, STREAM_GOAL_X, bk->goal_jitter);
    g.y += draw_jitter(sc->seed, r->id, STREAM_GOAL_Y, bk->goal_jitter);
  }
  r->goal = g;
}

int thr_populate(const thr_scenario *sc, const thr_world *w, const thr_params *prm,
                 int (*keep)(uint32_t id, thr_vec2 x, void *user), void *user, thr_agents *out, char *err,
                 size_t errlen) {
  (void)prm;
  uint32_t next_id = 0;
  for (int b = 0; b < sc->n_blocks; ++b) {
    const thr_block *bk = &sc->blocks[b];
    lattice l;
    float *radius = NULL;
    if (bk->layout == THR_LAYOUT_RANDOM) {
      radius = malloc((size_t)bk->count * sizeof(float));
      if (!radius) return -1;
      for (long k = 0; k < bk->count; ++k)
        radius[k] = draw_range(sc->seed, next_id + (uint32_t)k, STREAM_RADIUS, bk->radius_min, bk->radius_max);
      int rc = random_points(sc, b, next_id, radius, &l, err, errlen);
      free(radius);
      if (rc) return -1;
    } else if (block_points(sc, b, &l, err, errlen)) {
      return -1;
    }
    for (size_t k = 0; k < l.n; ++k) {
      thr_agent_rec r;
      memset(&r, 0, sizeof r);
      r.id = next_id++;
      r.radius = draw_range(sc->seed, r.id, STREAM_RADIUS, bk->radius_min, bk->radius_max);
      r.inv_mass = 1.0f / draw_range(sc->seed, r.id, STREAM_MASS, bk->mass_min, bk->mass_max);
      r.pref_speed = bk->speed_mean + draw_jitter(sc->seed, r.id, STREAM_SPEED, bk->speed_spread);
      if (r.pref_speed < 0.0f) r.pref_speed = 0.0f;
      r.x.x = (float)l.x[k] + draw_jitter(sc->seed, r.id, STREAM_JITTER_X, bk->jitter);
      r.x.y = (float)l.y[k] + draw_jitter(sc->seed, r.id, STREAM_JITTER_Y, bk->jitter);
      r.p = r.x;
      r.group = bk->group;
      set_goal(sc, bk, &r);
      if (check_agent(sc, w, b, &r, err, errlen)) {
        lattice_free(&l);
        return -1;
      }
      if (keep && !keep(r.id, r.x, user)) continue;
      if (thr_agents_push(out, &r)) {
        snprintf(err, errlen, "out of memory creating agent %u", r.id);
        lattice_free(&l);
        return -1;
      }
    }
    lattice_free(&l);
  }
  out->n_owned = out->n;
  return 0;
}
