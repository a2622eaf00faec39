/* Unit tests of the in situ channels' data (insitu/insitu_data.c): the
 * geometry channel from a scenario file (walls, obstacles, exits, areas,
 * lines: kinds, indices, vertices) and the agents channel from a host
 * store (3-D points, speeds, arrays pointing into the store). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/agents.h"
#include "check.h"
#include "insitu/insitu.h"
#include "io/config.h"

/* A scenario file with every kind of shape: an L-shaped walkable area with
 * a hole, a rectangle obstacle, a polyline obstacle, two exits (a segment
 * and a polygon), an area and a line. */
static const char *SCENARIO =
    "geometry: {walkable: 'POLYGON ((0 0, 10 0, 10 6, 4 6, 4 8, 0 8, 0 0), (6 2, 7 2, 7 3, 6 3, 6 2))'}\n"
    "obstacles:\n"
    "  - {rect: {min: [1, 1], max: [2, 2]}}\n"
    "  - {polyline: [[3, 1], [3, 4], [5, 4]]}\n"
    "exits:\n"
    "  - {name: east, segment: [[10, 1], [10, 5]]}\n"
    "  - {name: north, polygon: [[1, 7.5], [3, 7.5], [3, 8], [1, 8]]}\n"
    "agents:\n"
    "  - {layout: grid, min: [8, 1], max: [9, 2], rows: 2, cols: 2}\n"
    "measurement:\n"
    "  areas: [{name: a, polygon: [[7, 4], [9, 4], [9, 5.5], [7, 5.5]]}]\n"
    "  lines: [{name: l, segment: [[5, 0], [5, 6]]}]\n";

static int load(thr_scenario *sc) {
  char dir[] = "/tmp/thr_insitu_XXXXXX", path[64], err[1024];
  if (!mkdtemp(dir)) return -1;
  snprintf(path, sizeof path, "%s/s.yaml", dir);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs(SCENARIO, f);
  fclose(f);
  int rc = thr_config_load(path, NULL, 0, sc, err, sizeof err);
  if (rc) fprintf(stderr, "  %s\n", err);
  remove(path);
  rmdir(dir);
  return rc;
}

/* shape k has n vertices, the first at (x, y), z = 0 everywhere */
static int shape_is(const thr_insitu_geometry *g, int k, int kind, int index, int closed, int n, float x, float y) {
  const float *p = g->points + 3 * g->first[k];
  int ok = g->kind[k] == kind && g->index[k] == index && g->closed[k] == closed && g->first[k + 1] - g->first[k] == n &&
           p[0] == x && p[1] == y;
  for (int v = g->first[k]; v < g->first[k + 1]; ++v) ok = ok && g->points[3 * v + 2] == 0.0f;
  if (!ok)
    fprintf(stderr, "  shape %d: kind %d index %d closed %d, %d vertices from (%g, %g)\n", k, g->kind[k], g->index[k],
            g->closed[k], g->first[k + 1] - g->first[k], p[0], p[1]);
  return ok;
}

THR_TEST(geometry_has_every_shape) {
  thr_scenario sc;
  CHECK(load(&sc) == 0);
  thr_insitu_geometry g;
  CHECK(thr_insitu_geometry_build(&g, &sc) == 0);
  /* 2 obstacles, 2 walls (outer ring, hole), 2 exits, 1 area, 1 line */
  CHECK(g.n_shapes == 8);
  CHECK(shape_is(&g, 0, THR_INSITU_OBSTACLE, 0, 1, 4, 1, 1));
  CHECK(shape_is(&g, 1, THR_INSITU_OBSTACLE, 1, 0, 3, 3, 1));
  CHECK(shape_is(&g, 2, THR_INSITU_WALL, 0, 0, 7, 0, 0)); /* the outer ring: an open chain back to its start */
  CHECK(shape_is(&g, 3, THR_INSITU_WALL, 1, 1, 4, 6, 2));
  CHECK(g.kind[4] == THR_INSITU_EXIT && g.index[4] == 0 && g.closed[4] == 1);
  CHECK(shape_is(&g, 5, THR_INSITU_EXIT, 1, 1, 4, 1, 7.5f));
  CHECK(shape_is(&g, 6, THR_INSITU_AREA, 0, 1, 4, 7, 4));
  CHECK(shape_is(&g, 7, THR_INSITU_LINE, 0, 0, 2, 5, 0));
  CHECK(g.first[g.n_shapes] == g.n_points);
  /* the segment exit's strip reaches x = 10 */
  float xmax = 0;
  for (int v = g.first[4]; v < g.first[5]; ++v) xmax = g.points[3 * v] > xmax ? g.points[3 * v] : xmax;
  CHECK(xmax >= 10.0f);
  thr_insitu_geometry_free(&g);
  CHECK(g.points == NULL && g.n_shapes == 0);
  thr_scenario_free(&sc);
}

THR_TEST(agents_channel_points_into_the_store) {
  thr_agents a;
  thr_agents_init(&a);
  for (int k = 0; k < 3; ++k) {
    thr_agent_rec r;
    thr_agent_rec_blank(&r);
    r.id = (uint32_t)(40 + k);
    r.x = v2(1.0f + (float)k, -2.0f);
    r.v = v2(3.0f * (float)k, 4.0f * (float)k);
    r.group = 7;
    r.radius = 0.25f;
    r.flags = (uint32_t)k;
    CHECK(thr_agents_push(&a, &r) == 0);
  }
  a.n_owned = a.n;
  thr_insitu_buffers b = {0};
  thr_insitu_agents c;
  CHECK(thr_insitu_agents_fill(&c, &b, &a, 0, 12, 0.25) == 0);
  CHECK(c.n == 3 && c.step == 12 && c.time == 0.25);
  for (int k = 0; k < 3; ++k) {
    CHECK(c.points[3 * k] == 1.0f + (float)k && c.points[3 * k + 1] == -2.0f && c.points[3 * k + 2] == 0.0f);
    CHECK(c.velocity[3 * k] == 3.0f * (float)k && c.velocity[3 * k + 1] == 4.0f * (float)k);
    CHECK(c.velocity[3 * k + 2] == 0.0f);
    CHECK_NEAR(c.speed[k], 5.0 * k, 1e-6); /* a 3-4-5 triangle */
  }
  /* no copy of id, group, radius and state */
  CHECK(c.id == a.id && c.group == a.group && c.radius == a.radius && c.state == a.flags);
  /* fewer agents: the buffers are reused */
  const float *pts = c.points;
  a.n_owned = 1;
  CHECK(thr_insitu_agents_fill(&c, &b, &a, 0, 13, 0.5) == 0 && c.n == 1 && c.points == pts);
  thr_insitu_buffers_free(&b);
  thr_agents_free(&a);
}
