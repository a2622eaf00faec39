/* The channels' data (insitu.h): plain arrays, no VTK. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "insitu.h"

#include "base/agents.h"
#include "base/geometry.h"
#include "base/scenario.h"

void thr_insitu_geometry_free(thr_insitu_geometry *g) {
  free(g->points);
  free(g->first);
  free(g->closed);
  free(g->kind);
  free(g->index);
  memset(g, 0, sizeof *g);
}

/* Append one shape; the arrays were sized by the caller. */
static void add_shape(thr_insitu_geometry *g, const thr_vec2 *v, int n, int closed, int kind, int index) {
  int k = g->n_shapes++;
  g->first[k] = g->n_points;
  for (int i = 0; i < n; ++i) {
    float *p = g->points + 3 * (size_t)g->n_points++;
    p[0] = v[i].x, p[1] = v[i].y, p[2] = 0.0f;
  }
  g->first[k + 1] = g->n_points;
  g->closed[k] = closed;
  g->kind[k] = kind;
  g->index[k] = index;
}

int thr_insitu_geometry_build(thr_insitu_geometry *g, const thr_scenario *sc) {
  memset(g, 0, sizeof *g);
  /* the walls of the walkable area are the last obstacles, one per ring */
  int walls = sc->walkable.n_rings, obstacles = sc->n_obstacles - walls;
  int shapes = sc->n_obstacles + sc->exit_shapes.n_rings + sc->areas.n_rings + sc->n_lines;
  int points = sc->n_verts + sc->exit_shapes.n_verts + sc->areas.n_verts + 2 * sc->n_lines;
  g->points = malloc(3 * ((size_t)points + 1) * sizeof *g->points);
  g->first = malloc(((size_t)shapes + 1) * sizeof *g->first);
  g->closed = malloc(((size_t)shapes + 1) * sizeof *g->closed);
  g->kind = malloc(((size_t)shapes + 1) * sizeof *g->kind);
  g->index = malloc(((size_t)shapes + 1) * sizeof *g->index);
  if (!g->points || !g->first || !g->closed || !g->kind || !g->index) {
    thr_insitu_geometry_free(g);
    return -1;
  }
  g->first[0] = 0;
  for (int o = 0; o < sc->n_obstacles; ++o)
    add_shape(g, sc->verts + sc->obs_vfirst[o], sc->obs_vfirst[o + 1] - sc->obs_vfirst[o], sc->obs_closed[o],
              o < obstacles ? THR_INSITU_OBSTACLE : THR_INSITU_WALL, o < obstacles ? o : o - obstacles);
  /* an exit is one polygon without holes: ring r belongs to exit r */
  for (int r = 0; r < sc->exit_shapes.n_rings; ++r)
    add_shape(g, thr_ring_verts(&sc->exit_shapes, r), thr_ring_len(&sc->exit_shapes, r), 1, THR_INSITU_EXIT, r);
  for (int r = 0; r < sc->areas.n_rings; ++r)
    add_shape(g, thr_ring_verts(&sc->areas, r), thr_ring_len(&sc->areas, r), 1, THR_INSITU_AREA, r);
  for (int l = 0; l < sc->n_lines; ++l) {
    thr_vec2 ab[2] = {sc->lines[l].a, sc->lines[l].b};
    add_shape(g, ab, 2, 0, THR_INSITU_LINE, l);
  }
  return 0;
}

void thr_insitu_buffers_free(thr_insitu_buffers *b) {
  free(b->points);
  free(b->velocity);
  free(b->speed);
  memset(b, 0, sizeof *b);
}

int thr_insitu_agents_fill(thr_insitu_agents *out, thr_insitu_buffers *b, const thr_agents *owned, int dim3,
                           long step, double time) {
  size_t n = owned->n_owned;
  if (n > b->cap || !b->points) {
    size_t cap = n + n / 4 + 64;
    float *p = realloc(b->points, 3 * cap * sizeof *p);
    if (p) b->points = p;
    float *v = realloc(b->velocity, 3 * cap * sizeof *v);
    if (v) b->velocity = v;
    float *s = realloc(b->speed, cap * sizeof *s);
    if (s) b->speed = s;
    if (!p || !v || !s) return -1;
    b->cap = cap;
  }
  /* threads: on a GPU run this loop is most of throng's side of a call */
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    thr_vec2 x = owned->x[i], v = owned->v[i];
    float z = dim3 ? owned->z[i] : 0.0f, vz = dim3 ? owned->vz[i] : 0.0f;
    b->points[3 * i] = x.x, b->points[3 * i + 1] = x.y, b->points[3 * i + 2] = z;
    b->velocity[3 * i] = v.x, b->velocity[3 * i + 1] = v.y, b->velocity[3 * i + 2] = vz;
    b->speed[i] = sqrtf(v.x * v.x + v.y * v.y + vz * vz);
  }
  out->n = n;
  out->step = step;
  out->time = time;
  out->points = b->points;
  out->velocity = b->velocity;
  out->speed = b->speed;
  out->id = owned->id;
  out->group = owned->group;
  out->radius = owned->radius;
  out->state = owned->flags;
  return 0;
}
