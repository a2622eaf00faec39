/* Unit tests of placement (core/populate.c) for the layouts that place
 * agents on given slots: `points` (a list or a CSV file, scaled and offset)
 * and `polygon` with `spacing` (the lattice points inside the region). Each
 * case loads a scenario from a fresh directory under /tmp, lays it out as
 * `throng run` does (world, count, agents) and compares the positions
 * exactly: every coordinate below is a float the arithmetic hits exactly. */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/agents.h"
#include "base/world.h"
#include "check.h"
#include "core/populate.h"
#include "io/config.h"

#define WORLD "world: {min: [-10, -10], max: [20, 20]}\n"

static char g_err[2048];

typedef struct placed {
  size_t n;
  uint32_t id[64];
  float x[64], y[64];
} placed;

static void die(const char *what) {
  perror(what);
  exit(1);
}

/* Loads yaml (a file `rel` beside it holding `text` when rel is not NULL)
 * and lays it out into *out; 0, or -1 with the message in g_err. */
static int place_with_file(const char *yaml, const char *rel, const char *text, placed *out) {
  char dir[64] = "/tmp/thr_populate_XXXXXX", path[128], file[192];
  if (!mkdtemp(dir)) die("mkdtemp");
  snprintf(path, sizeof path, "%s/scn.yaml", dir);
  snprintf(file, sizeof file, "%s/%s", dir, rel ? rel : "");
  FILE *f = fopen(path, "w");
  if (!f || fputs(yaml, f) < 0 || fclose(f)) die(path);
  if (rel && (!(f = fopen(file, "w")) || fputs(text, f) < 0 || fclose(f))) die(file);
  thr_scenario sc;
  thr_world w;
  thr_agents a;
  thr_agents_init(&a);
  memset(out, 0, sizeof *out);
  g_err[0] = '\0';
  int rc = thr_config_load(path, NULL, 0, &sc, g_err, sizeof g_err);
  if (rel) remove(file);
  remove(path);
  rmdir(dir);
  if (rc) return -1;
  thr_params prm = sc.prm;
  int world = thr_world_init(&w, &sc, &prm, thr_scenario_max_radius(&sc), g_err, sizeof g_err) == 0;
  long n = world ? thr_scenario_count(&sc, g_err, sizeof g_err) : -1;
  if (n >= 0) rc = thr_populate(&sc, &w, &prm, NULL, NULL, &a, g_err, sizeof g_err);
  if (!rc && n >= 0) {
    CHECK((long)a.n == n); /* the count agrees with the agents laid out */
    for (size_t i = 0; i < a.n && i < 64; ++i) {
      thr_agent_rec r;
      thr_agent_load(&a, i, &r);
      out->id[i] = r.id, out->x[i] = r.x.x, out->y[i] = r.x.y;
    }
    out->n = a.n;
  }
  if (world) thr_world_free(&w);
  thr_agents_free(&a);
  thr_scenario_free(&sc);
  return rc || n < 0 ? -1 : 0;
}

static int place(const char *yaml, placed *out) {
  return place_with_file(yaml, NULL, NULL, out);
}

/* Agent k has id `id` and stands exactly at (x, y). */
static int at(const placed *p, size_t k, uint32_t id, float x, float y) {
  int ok = k < p->n && p->id[k] == id && p->x[k] == x && p->y[k] == y;
  if (!ok && k < p->n)
    fprintf(stderr, "  agent %zu: id %u at (%.9g, %.9g), expected id %u at (%.9g, %.9g)\n", k, p->id[k],
            (double)p->x[k], (double)p->y[k], id, (double)x, (double)y);
  return ok;
}

/* The message names the file and block line, then contains `what`. */
static int refused(const char *what) {
  int ok = strstr(g_err, "/scn.yaml:") && strstr(g_err, what);
  if (!ok) fprintf(stderr, "  expected a message with '%s', got '%s'\n", what, g_err);
  return ok;
}

/* ---- layout points ------------------------------------------------------- */

THR_TEST(points_inline_in_list_order) {
  placed p;
  CHECK(place(WORLD "agents:\n"
                    "  - {layout: grid, min: [0, 0], max: [2, 0], rows: 1, cols: 2}\n"
                    "  - {layout: points, points: [[5, 5], [2.5, 7], [-3, 1.25], [8, -4]]}\n",
              &p) == 0);
  CHECK(p.n == 6);
  /* ids go on from the grid's two, in the list's order */
  CHECK(at(&p, 2, 2, 5.0f, 5.0f));
  CHECK(at(&p, 3, 3, 2.5f, 7.0f));
  CHECK(at(&p, 4, 4, -3.0f, 1.25f));
  CHECK(at(&p, 5, 5, 8.0f, -4.0f));
}

THR_TEST(points_scale_and_offset) {
  placed p;
  CHECK(place(WORLD "agents:\n"
                    "  - {layout: points, points: [[0, 0], [1, 0.5], [-1.5, 2]], scale: 2, offset: [10, -3]}\n"
                    "  - {layout: points, points: [[1, 1]], offset: [0.5, 0.25]}\n"
                    "  - {layout: points, points: [[4, 8]], scale: 0.25}\n",
              &p) == 0);
  CHECK(p.n == 5);
  CHECK(at(&p, 0, 0, 10.0f, -3.0f));
  CHECK(at(&p, 1, 1, 12.0f, -2.0f));
  CHECK(at(&p, 2, 2, 7.0f, 1.0f));
  CHECK(at(&p, 3, 3, 1.5f, 1.25f)); /* scale 1 */
  CHECK(at(&p, 4, 4, 1.0f, 2.0f));  /* offset [0, 0] */
}

THR_TEST(points_file_beside_the_scenario) {
  placed p;
  /* points_file is relative to the scenario file's directory, not the working directory */
  CHECK(place_with_file(WORLD "agents:\n  - {layout: points, points_file: wedge.csv, scale: 1.5, offset: [4, 4], "
                              "agent_radius: 0.25}\n",
                        "wedge.csv", "# a wedge, the tip first\nx,y\n0,0\n-1,-1\n1,-1\n-2,-2  # outer left\n2,-2\n",
                        &p) == 0);
  CHECK(p.n == 5);
  CHECK(at(&p, 0, 0, 4.0f, 4.0f));
  CHECK(at(&p, 1, 1, 2.5f, 2.5f));
  CHECK(at(&p, 2, 2, 5.5f, 2.5f));
  CHECK(at(&p, 3, 3, 1.0f, 1.0f));
  CHECK(at(&p, 4, 4, 7.0f, 1.0f));
}

/* Two points closer than their contact distance, (r_i + r_j) x
 * model.radius_scale = (0.5 + 0.5) x 1.05: refused, as random layouts
 * never place them. */
THR_TEST(points_that_overlap_are_refused) {
  placed p;
  CHECK(place(WORLD "agents:\n  - {layout: points, points: [[0, 0], [3, 0], [3, 1]]}\n", &p) == -1);
  CHECK(refused("agents[0] ('block0'): agent 2 at (3, 1) overlaps agent 1 at (3, 0): 1 m apart, closer than their "
                "contact distance 1.05 m ((0.5 + 0.5) x model.radius_scale 1.05); points 1 and 2 of the block"));
  /* 1.05 m apart is contact, not overlap */
  CHECK(place(WORLD "agents:\n  - {layout: points, points: [[0, 0], [0, 1.5]], scale: 0.7}\n", &p) == 0);
  /* scale moves them apart */
  CHECK(place(WORLD "agents:\n  - {layout: points, points: [[0, 0], [3, 0], [3, 1]], scale: 2}\n", &p) == 0);
  CHECK(p.n == 3);
}

THR_TEST(points_outside_the_world_or_in_obstacles_are_refused) {
  placed p;
  CHECK(place(WORLD "agents:\n  - {layout: points, points: [[0, 0], [25, 0]]}\n", &p) == -1);
  CHECK(refused("agents[0] ('block0'): agent 1 at (25, 0) is outside the world"));
  CHECK(place(WORLD "obstacles:\n  - {rect: {min: [2, -1], max: [4, 1]}}\n"
                    "agents:\n  - {layout: points, points: [[0, 0], [3, 0]], agent_radius: 0.2}\n",
              &p) == -1);
  CHECK(refused("agent 1 at (3, 0) lies inside obstacle 0 (line 3)"));
}

/* ---- layout polygon with spacing ------------------------------------------- */

/* The triangle (0, 0), (4, 0), (0, 4) with spacing 1: the lattice starts at
 * the bounding box's minimum plus half a spacing, (0.5, 0.5); rows bottom to
 * top, each left to right. Inside: x + y < 4, so row 0.5 holds 0.5, 1.5,
 * 2.5 ((3.5, 0.5) lies on the hypotenuse and a point on the boundary is
 * left out), row 1.5 holds 0.5, 1.5, row 2.5 holds 0.5, row 3.5 none. */
THR_TEST(polygon_lattice_triangle) {
  placed p;
  const char *yaml = WORLD "agents:\n"
                           "  - {layout: polygon, polygon: [[0, 0], [4, 0], [0, 4]], spacing: 1, agent_radius: 0.4}\n";
  CHECK(place(yaml, &p) == 0);
  CHECK(p.n == 6);
  CHECK(at(&p, 0, 0, 0.5f, 0.5f));
  CHECK(at(&p, 1, 1, 1.5f, 0.5f));
  CHECK(at(&p, 2, 2, 2.5f, 0.5f));
  CHECK(at(&p, 3, 3, 0.5f, 1.5f));
  CHECK(at(&p, 4, 4, 1.5f, 1.5f));
  CHECK(at(&p, 5, 5, 0.5f, 2.5f));
  /* the vertices in the other order, the same points */
  CHECK(place(WORLD "agents:\n  - {layout: polygon, polygon: [[0, 4], [4, 0], [0, 0]], spacing: 1, "
                    "agent_radius: 0.4}\n",
              &p) == 0);
  CHECK(p.n == 6 && at(&p, 2, 2, 2.5f, 0.5f) && at(&p, 5, 5, 0.5f, 2.5f));
}

/* A rectangular lattice [sx, sy] and count: the first count points, in the
 * same order. Triangle (0, 0), (6, 0), (0, 4) with spacing [2, 1]: rows at
 * y = 0.5, 1.5, 2.5, 3.5 of columns x = 1, 3, 5; inside 2x + 3y < 12. */
THR_TEST(polygon_lattice_rectangular_and_count) {
  placed p;
  const char *base = WORLD "agents:\n  - {layout: polygon, polygon: [[0, 0], [6, 0], [0, 4]], spacing: [2, 1], "
                           "agent_radius: 0.4";
  char yaml[512];
  snprintf(yaml, sizeof yaml, "%s}\n", base);
  CHECK(place(yaml, &p) == 0);
  /* row 0.5: 1, 3, 5 (2x + 3y = 3.5, 7.5, 11.5); row 1.5: 1, 3 (6.5, 10.5; 5 gives 14.5); row 2.5: 1 (9.5;
   * 3 gives 13.5); row 3.5: none (1 gives 12.5) */
  CHECK(p.n == 6);
  CHECK(at(&p, 0, 0, 1.0f, 0.5f) && at(&p, 1, 1, 3.0f, 0.5f) && at(&p, 2, 2, 5.0f, 0.5f));
  CHECK(at(&p, 3, 3, 1.0f, 1.5f) && at(&p, 4, 4, 3.0f, 1.5f));
  CHECK(at(&p, 5, 5, 1.0f, 2.5f));
  snprintf(yaml, sizeof yaml, "%s, count: 4}\n", base);
  CHECK(place(yaml, &p) == 0);
  CHECK(p.n == 4 && at(&p, 0, 0, 1.0f, 0.5f) && at(&p, 2, 2, 5.0f, 0.5f) && at(&p, 3, 3, 1.0f, 1.5f));
  snprintf(yaml, sizeof yaml, "%s, count: 7}\n", base);
  CHECK(place(yaml, &p) == -1);
  CHECK(refused("agents[0] ('block0'): count 7 exceeds the 6 lattice points inside the region"));
}

/* An L: the row y = 1.5 runs along the edge (4, 1.5)-(2, 1.5), so its
 * points there lie on the boundary and are left out, as on any other edge;
 * the points at x < 2 of that row are inside. */
THR_TEST(polygon_lattice_row_on_an_edge) {
  placed p;
  CHECK(place(WORLD "agents:\n  - {layout: polygon, polygon: [[0, 0], [4, 0], [4, 1.5], [2, 1.5], [2, 4], [0, 4]], "
                    "spacing: 1, agent_radius: 0.4}\n",
              &p) == 0);
  CHECK(p.n == 10);
  const float want[10][2] = {{0.5f, 0.5f}, {1.5f, 0.5f}, {2.5f, 0.5f}, {3.5f, 0.5f}, {0.5f, 1.5f},
                             {1.5f, 1.5f}, {0.5f, 2.5f}, {1.5f, 2.5f}, {0.5f, 3.5f}, {1.5f, 3.5f}};
  for (size_t k = 0; k < 10; ++k) CHECK(at(&p, k, (uint32_t)k, want[k][0], want[k][1]));
}

THR_TEST(polygon_lattice_refusals) {
  placed p;
  /* spacing 1 is below the contact distance 1.05 of radius-0.5 agents */
  CHECK(place(WORLD "agents:\n  - {layout: polygon, polygon: [[0, 0], [4, 0], [0, 4]], spacing: 1}\n", &p) == -1);
  CHECK(refused("agent 1 at (1.5, 0.5) overlaps agent 0 at (0.5, 0.5): 1 m apart, closer than their contact "
                "distance 1.05 m ((0.5 + 0.5) x model.radius_scale 1.05); raise spacing or lower agent_radius"));
  CHECK(place(WORLD "agents:\n  - {layout: polygon, polygon: [[0, 0], [4, 0], [0, 4]], spacing: 5}\n", &p) == -1);
  CHECK(refused("no point of the lattice of spacing [5, 5] lies inside the region; lower spacing"));
  CHECK(place(WORLD "agents:\n  - {layout: polygon, polygon: [[0, 0], [4, 0], [0, 4]], spacing: 1e-6}\n", &p) == -1);
  CHECK(refused("more than throng searches"));
}
