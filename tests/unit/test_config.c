/* Unit tests of the scenario parser (io/config.c, io/yamltree.c): defaults,
 * every documented key landing in its field, --set overrides, and the exact
 * error messages (FILE:LINE:COL: KEY: what is wrong) for bad input. Each case
 * writes its YAML to a fresh file under /tmp. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h> /* mkdir */
#include <unistd.h>

#include "check.h"
#include "io/config.h"
#include "io/models.h"

#define TOL 1e-6

/* A valid world (line 1) and agent list (lines 2-3) to build cases on. */
#define WORLD "world: {min: [0, 0], max: [20, 20]}\n"
#define AGENTS "agents:\n  - {layout: grid, min: [1, 1], max: [5, 5], rows: 2, cols: 2}\n"
#define GRID "{layout: grid, min: [1, 1], max: [5, 5], rows: 2, cols: 2"

static char g_dir[64];
static char g_path[128]; /* the scenario file of the last load */
static char g_err[1024]; /* its error message */

/* The scenario file: len bytes of text (which may hold NUL bytes). */
static void write_scenario_bytes(const char *text, size_t len) {
  strcpy(g_dir, "/tmp/thr_config_XXXXXX");
  if (!mkdtemp(g_dir)) {
    perror("mkdtemp");
    exit(1);
  }
  snprintf(g_path, sizeof g_path, "%s/scn.yaml", g_dir);
  FILE *f = fopen(g_path, "wb");
  if (!f || fwrite(text, 1, len, f) != len || fclose(f)) {
    perror(g_path);
    exit(1);
  }
}

static void write_scenario(const char *yaml) {
  write_scenario_bytes(yaml, strlen(yaml));
}

static void remove_scenario(void) {
  remove(g_path);
  rmdir(g_dir);
}

static int load_sets(const char *yaml, const char *const *sets, int n_sets, thr_scenario *sc) {
  write_scenario(yaml);
  g_err[0] = '\0';
  int rc = thr_config_load(g_path, sets, n_sets, sc, g_err, sizeof g_err);
  remove_scenario();
  if (rc) fprintf(stderr, "  load failed: %s\n", g_err);
  return rc;
}

static int load(const char *yaml, thr_scenario *sc) {
  return load_sets(yaml, NULL, 0, sc);
}

/* Loading must fail, leave *sc empty, and give a one-line message that
 * starts with want: after the file path when want starts with ':' (":7:3:
 * key: ..."), as it is otherwise ("--set ..."). */
static int fails_bytes(const char *text, size_t len, const char *const *sets, int n_sets, const char *want) {
  thr_scenario sc;
  write_scenario_bytes(text, len);
  g_err[0] = '\0';
  int rc = thr_config_load(g_path, sets, n_sets, &sc, g_err, sizeof g_err);
  remove_scenario();
  const char *msg = g_err;
  int ok =
      rc == -1 && sc.n_blocks == 0 && !sc.blocks && !sc.goals && !sc.obs_vfirst && !sc.verts && !strchr(g_err, '\n');
  if (want[0] == ':') {
    size_t n = strlen(g_path);
    ok = ok && !strncmp(msg, g_path, n);
    msg += n;
  }
  ok = ok && !strncmp(msg, want, strlen(want));
  if (!ok)
    fprintf(stderr, "  expected an error starting with: %s%s\n  got (rc %d):                    %s\n",
            want[0] == ':' ? g_path : "", want, rc, g_err);
  thr_scenario_free(&sc);
  return ok;
}

static int fails_sets(const char *yaml, const char *const *sets, int n_sets, const char *want) {
  return fails_bytes(yaml, strlen(yaml), sets, n_sets, want);
}

#define FAILS(yaml, want) CHECK(fails_sets(yaml, NULL, 0, want))

/* Does s end with tail? */
static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  return n >= m && !strcmp(s + n - m, tail);
}
/* text: a string literal, NUL bytes included */
#define FAILS_BYTES(text, want) CHECK(fails_bytes(text, sizeof text - 1, NULL, 0, want))
#define FAILS_SET(yaml, set, want)           \
  do {                                       \
    const char *sets_[] = {set};             \
    CHECK(fails_sets(yaml, sets_, 1, want)); \
  } while (0)

static void check_vec(thr_vec2 v, float x, float y) {
  CHECK_NEAR(v.x, x, TOL);
  CHECK_NEAR(v.y, y, TOL);
}

/* ---- values landing in their fields --------------------------------------- */

THR_TEST(params_defaults) {
  thr_params p;
  memset(&p, 0xff, sizeof p);
  thr_params_defaults(&p);
  CHECK(p.dt == 1.0f / 48.0f);
  CHECK_NEAR(p.alpha, 0.0385, TOL);
  CHECK_NEAR(p.omega, 1.2, TOL);
  CHECK(p.stability_iterations == 1 && p.solver_iterations == 6);
  CHECK_NEAR(p.radius_scale, 1.05, TOL);
  CHECK(p.contact_on == 1 && p.friction_on == 1);
  CHECK_NEAR(p.contact_stiffness, 1.0, TOL);
  CHECK_NEAR(p.mu_static, 0.21, TOL);
  CHECK_NEAR(p.mu_kinetic, 0.10, TOL);
  CHECK(p.longrange_on == 1);
  CHECK_NEAR(p.lr_stiffness, 0.24, TOL);
  CHECK_NEAR(p.lr_tau0, 20, TOL);
  CHECK_NEAR(p.lr_radius, 3.0, TOL);
  CHECK(p.avoidance_on == 0);
  CHECK_NEAR(p.av_stiffness, 0.24, TOL);
  CHECK_NEAR(p.av_tau0, 20, TOL);
  CHECK_NEAR(p.av_radius, 3.0, TOL);
  CHECK(p.walls_on == 1);
  CHECK_NEAR(p.wall_stiffness, 1.0, TOL);
  CHECK(p.xsph_on == 1);
  CHECK_NEAR(p.xsph_c, 0.1, TOL);
  CHECK_NEAR(p.xsph_h, 3.5, TOL);
  CHECK(p.xsph_poly6 == 0.0f);
  CHECK_NEAR(p.max_speed, 2.5, TOL);
  CHECK(p.max_accel == 0.0f);
  CHECK_NEAR(p.arrive_radius, 0.5, TOL);
  CHECK(p.cell_size == 0.0f);
  CHECK_NEAR(p.skin, 0.3, TOL);
}

THR_TEST(scenario_defaults) {
  thr_scenario sc;
  thr_params d;
  thr_params_defaults(&d);
  CHECK(load(WORLD AGENTS, &sc) == 0);
  CHECK(memcmp(&sc.prm, &d, sizeof d) == 0);
  CHECK(!strcmp(sc.name, "scn"));
  CHECK(!strcmp(sc.path, g_path));
  CHECK(sc.seed == 1 && sc.steps == 1000);
  CHECK(sc.trajectory_every == 24 && sc.metrics_every == 1);
  CHECK(sc.out_dir[0] == '\0');
  check_vec(sc.world_min, 0, 0);
  check_vec(sc.world_max, 20, 20);
  CHECK(sc.n_obstacles == 0 && sc.n_verts == 0 && sc.obs_vfirst && sc.obs_vfirst[0] == 0);
  CHECK(sc.n_goals == 0 && sc.n_sets == 0 && sc.set_first && sc.set_first[0] == 0);
  CHECK(sc.n_blocks == 1);
  const thr_block *b = &sc.blocks[0];
  CHECK(!strcmp(b->name, "block0") && b->line == 3 && b->layout == THR_LAYOUT_GRID);
  check_vec(b->min, 1, 1);
  check_vec(b->max, 5, 5);
  CHECK(b->rows == 2 && b->cols == 2 && b->count == 0);
  CHECK(b->spacing_x == 0.0f && b->spacing_y == 0.0f && b->jitter == 0.0f);
  CHECK_NEAR(b->speed_mean, 1.4, TOL);
  CHECK_NEAR(b->speed_spread, 0.1, TOL);
  CHECK(b->radius_min == 0.5f && b->radius_max == 0.5f);
  CHECK(b->mass_min == 1.0f && b->mass_max == 1.0f);
  CHECK(b->group == 0 && b->goal_kind == THR_BGOAL_NONE);
  thr_scenario_free(&sc);
  CHECK(sc.blocks == NULL && sc.n_blocks == 0);
  thr_scenario_free(&sc); /* safe twice */
}

/* model.preset: pedestrian gives the preset's values as defaults (of the
 * parameters and of every agent block, sources' agents included); keys the
 * scenario gives win over them; paper is the table's defaults. */
THR_TEST(model_presets) {
  thr_scenario sc;
  thr_params d;
  thr_params_defaults(&d);
  CHECK(load(WORLD "model: {preset: paper}\n" AGENTS, &sc) == 0);
  CHECK(sc.preset == THR_PRESET_PAPER && memcmp(&sc.prm, &d, sizeof d) == 0);
  thr_scenario_free(&sc);
  CHECK(load(WORLD "model: {preset: pedestrian, alpha: 0.05}\nheadway: {time_gap: 0.8}\n"
                   "agents:\n  - {layout: grid, min: [1, 1], max: [5, 5], rows: 2, cols: 2}\n"
                   "  - {layout: grid, min: [6, 6], max: [9, 9], rows: 2, cols: 2, agent_radius: 0.3,"
                   " speed: 1.0}\n",
             &sc) == 0);
  CHECK(sc.preset == THR_PRESET_PEDESTRIAN);
  CHECK(sc.prm.headway_on == 1 && sc.prm.longrange_on == 0 && sc.prm.avoidance_on == 1 && sc.prm.xsph_on == 0);
  CHECK(sc.prm.radius_scale == 1.0f);
  CHECK_NEAR(sc.prm.hw_time_gap, 0.8, TOL); /* the scenario's value, not the preset's */
  CHECK_NEAR(sc.prm.alpha, 0.05, TOL);
  CHECK(sc.n_blocks == 2);
  CHECK_NEAR(sc.blocks[0].radius_min, 0.2, TOL);
  CHECK_NEAR(sc.blocks[0].radius_max, 0.25, TOL);
  CHECK_NEAR(sc.blocks[0].speed_mean, 1.34, TOL);
  CHECK(sc.blocks[1].radius_min == 0.3f && sc.blocks[1].radius_max == 0.3f);
  CHECK(sc.blocks[1].speed_mean == 1.0f && sc.blocks[1].speed_spread == 0.0f);
  thr_scenario_free(&sc);
  FAILS(WORLD "model: {preset: people}\n" AGENTS, ":2:17: model.preset: expected one of paper, pedestrian");
}

THR_TEST(every_section_key) {
  thr_scenario sc;
  CHECK(load("world: {min: [-5, -6], max: [7, 8]}\n"
             "time: {dt: 0.01, steps: 77}\n"
             "solver: {stability_iterations: 3, iterations: 9, omega: 1.5}\n"
             "model: {alpha: 0.5, radius_scale: 1.2, max_speed: 3, max_acceleration: 4, arrive_radius: 0.7}\n"
             "contact: {enabled: no, stiffness: 0.5, friction: off, static_friction: 0.3, kinetic_friction: 0.2}\n"
             "long_range: {enabled: false, stiffness: 0.11, tau0: 9, radius: 4}\n"
             "avoidance: {enabled: yes, stiffness: 0.12, tau0: 8, radius: 5}\n"
             "walls: {enabled: False, stiffness: 0.8}\n"
             "xsph: {enabled: OFF, h: 2.5, c: 0.2}\n"
             "neighbors: {cell_size: 1.5, skin: 0.4}\n"
             "output: {dir: results/x, trajectory_every: 0, metrics_every: 5}\n"
             "name: custom\n"
             "description: \"free text: anything\"\n"
             "seed: 18446744073709551615\n" AGENTS,
             &sc) == 0);
  const thr_params *p = &sc.prm;
  check_vec(sc.world_min, -5, -6);
  check_vec(sc.world_max, 7, 8);
  CHECK_NEAR(p->dt, 0.01, TOL);
  CHECK(sc.steps == 77);
  CHECK(p->stability_iterations == 3 && p->solver_iterations == 9);
  CHECK_NEAR(p->omega, 1.5, TOL);
  CHECK_NEAR(p->alpha, 0.5, TOL);
  CHECK_NEAR(p->radius_scale, 1.2, TOL);
  CHECK_NEAR(p->max_speed, 3, TOL);
  CHECK_NEAR(p->max_accel, 4, TOL);
  CHECK_NEAR(p->arrive_radius, 0.7, TOL);
  CHECK(p->contact_on == 0 && p->friction_on == 0);
  CHECK_NEAR(p->contact_stiffness, 0.5, TOL);
  CHECK_NEAR(p->mu_static, 0.3, TOL);
  CHECK_NEAR(p->mu_kinetic, 0.2, TOL);
  CHECK(p->longrange_on == 0);
  CHECK_NEAR(p->lr_stiffness, 0.11, TOL);
  CHECK_NEAR(p->lr_tau0, 9, TOL);
  CHECK_NEAR(p->lr_radius, 4, TOL);
  CHECK(p->avoidance_on == 1);
  CHECK_NEAR(p->av_stiffness, 0.12, TOL);
  CHECK_NEAR(p->av_tau0, 8, TOL);
  CHECK_NEAR(p->av_radius, 5, TOL);
  CHECK(p->walls_on == 0);
  CHECK_NEAR(p->wall_stiffness, 0.8, TOL);
  CHECK(p->xsph_on == 0);
  CHECK_NEAR(p->xsph_h, 2.5, TOL);
  CHECK_NEAR(p->xsph_c, 0.2, TOL);
  CHECK(p->xsph_poly6 == 0.0f);
  CHECK_NEAR(p->cell_size, 1.5, TOL);
  CHECK_NEAR(p->skin, 0.4, TOL);
  CHECK(!strcmp(sc.out_dir, "results/x"));
  CHECK(sc.trajectory_every == 0 && sc.metrics_every == 5);
  CHECK(!strcmp(sc.name, "custom"));
  CHECK(sc.seed == UINT64_MAX);
  CHECK(sc.blocks[0].line == 16);
  thr_scenario_free(&sc);
}

THR_TEST(goal_shapes) {
  thr_scenario sc;
  CHECK(load(WORLD "goals:\n"
                   "  - name: a\n"
                   "    point: [1, 2]\n"
                   "  - {name: b, rect: {min: [1, 2], max: [3, 4]}}\n"
                   "  - name: c\n"
                   "    disk: {center: [5, 6], radius: 1.5}\n" AGENTS,
             &sc) == 0);
  CHECK(sc.n_goals == 3);
  CHECK(!strcmp(sc.goal_names[0], "a") && !strcmp(sc.goal_names[1], "b") && !strcmp(sc.goal_names[2], "c"));
  CHECK(sc.goal_line[0] == 3 && sc.goal_line[1] == 5 && sc.goal_line[2] == 6);
  CHECK(sc.goals[0].kind == THR_GOAL_POINT && sc.goals[0].ax == 1.0f && sc.goals[0].ay == 2.0f);
  CHECK(sc.goals[1].kind == THR_GOAL_RECT && sc.goals[1].ax == 1.0f && sc.goals[1].ay == 2.0f);
  CHECK(sc.goals[1].bx == 3.0f && sc.goals[1].by == 4.0f);
  CHECK(sc.goals[2].kind == THR_GOAL_DISK && sc.goals[2].ax == 5.0f && sc.goals[2].ay == 6.0f);
  CHECK(sc.goals[2].r == 1.5f);
  CHECK(sc.n_sets == 0);
  thr_scenario_free(&sc);
}

THR_TEST(obstacle_shapes) {
  thr_scenario sc;
  CHECK(load(WORLD "obstacles:\n"
                   "  - segment: [[0, 0], [1, 0]]\n"
                   "  - polyline: [[0, 1], [1, 1], [2, 2]]\n"
                   "  - polygon: [[5, 5], [6, 5], [6, 6]]\n"
                   "  - rect: {min: [10, 10], max: [12, 13]}\n" AGENTS,
             &sc) == 0);
  CHECK(sc.n_obstacles == 4 && sc.n_verts == 12);
  static const int vfirst[] = {0, 2, 5, 8, 12}, closed[] = {0, 0, 1, 1}, line[] = {3, 4, 5, 6};
  for (int o = 0; o < 4; ++o)
    CHECK(sc.obs_vfirst[o] == vfirst[o] && sc.obs_closed[o] == closed[o] && sc.obs_line[o] == line[o]);
  CHECK(sc.obs_vfirst[4] == 12);
  check_vec(sc.verts[0], 0, 0);
  check_vec(sc.verts[1], 1, 0);
  check_vec(sc.verts[4], 2, 2);
  check_vec(sc.verts[7], 6, 6);
  /* the rectangle, counter-clockwise from its lower-left corner */
  check_vec(sc.verts[8], 10, 10);
  check_vec(sc.verts[9], 12, 10);
  check_vec(sc.verts[10], 12, 13);
  check_vec(sc.verts[11], 10, 13);
  thr_scenario_free(&sc);
}

THR_TEST(block_layouts) {
  thr_scenario sc;
  CHECK(load(WORLD "agents:\n"
                   "  - {layout: grid, min: [1, 1], max: [9, 5], spacing: 2, count: 6}\n"
                   "  - {layout: grid, min: [1, 1], max: [9, 5], spacing: [1.5, 2.5]}\n"
                   "  - {layout: random, min: [0, 10], max: [5, 15], count: 20}\n"
                   "  - {layout: disk, center: [10, 10], radius: 3, spacing: 1.2}\n"
                   "  - {layout: ellipse, center: [15, 15], semi_axes: [3, 2], count: 12}\n"
                   "  - {layout: circle, center: [10, 10], radius: 8, count: 24}\n"
                   "  - layout: disk\n"
                   "    center: [4, 4]\n"
                   "    radius: 2\n"
                   "    count: 5\n",
             &sc) == 0);
  CHECK(sc.n_blocks == 7);
  const thr_block *b = sc.blocks;
  for (int k = 0; k < 7; ++k) CHECK(b[k].line == 3 + k && b[k].group == k);
  CHECK(b[0].layout == THR_LAYOUT_GRID && b[0].spacing_x == 2.0f && b[0].spacing_y == 2.0f && b[0].count == 6);
  CHECK(b[0].rows == 0 && b[0].cols == 0);
  check_vec(b[0].max, 9, 5);
  CHECK(b[1].spacing_x == 1.5f && b[1].spacing_y == 2.5f && b[1].count == 0);
  CHECK(b[2].layout == THR_LAYOUT_RANDOM && b[2].count == 20);
  check_vec(b[2].min, 0, 10);
  check_vec(b[2].max, 5, 15);
  CHECK(b[3].layout == THR_LAYOUT_DISK && b[3].rx == 3.0f && b[3].ry == 3.0f && b[3].count == 0);
  CHECK_NEAR(b[3].spacing_x, 1.2, TOL);
  check_vec(b[3].center, 10, 10);
  CHECK(b[4].layout == THR_LAYOUT_ELLIPSE && b[4].rx == 3.0f && b[4].ry == 2.0f && b[4].count == 12);
  CHECK(b[4].spacing_x == 0.0f);
  CHECK(b[5].layout == THR_LAYOUT_CIRCLE && b[5].rx == 8.0f && b[5].ry == 8.0f && b[5].count == 24);
  CHECK(b[6].layout == THR_LAYOUT_DISK && b[6].count == 5 && b[6].rx == 2.0f && !strcmp(b[6].name, "block6"));
  thr_scenario_free(&sc);
}

THR_TEST(block_agent_keys) {
  thr_scenario sc;
  CHECK(load(WORLD "agents:\n"
                   "  - name: left crowd\n"
                   "    layout: grid\n"
                   "    min: [1, 1]\n"
                   "    max: [5, 5]\n"
                   "    rows: 3\n"
                   "    cols: 4\n"
                   "    jitter: 0.05\n"
                   "    speed: 1.2\n"
                   "    agent_radius: {min: 0.3, max: 0.4}\n"
                   "    mass: 80\n"
                   "    group: 7\n"
                   "  - layout: grid\n"
                   "    min: [1, 1]\n"
                   "    max: [5, 5]\n"
                   "    rows: 1\n"
                   "    cols: 1\n"
                   "    speed: {mean: 2, spread: 0.5}\n"
                   "    agent_radius: 0.45\n"
                   "    mass: {min: 60, max: 90}\n"
                   "  - " GRID ", speed: {mean: 0.05}}\n",
             &sc) == 0);
  const thr_block *b = sc.blocks;
  CHECK(!strcmp(b[0].name, "left crowd") && b[0].line == 3 && b[0].rows == 3 && b[0].cols == 4);
  CHECK_NEAR(b[0].jitter, 0.05, TOL);
  CHECK_NEAR(b[0].speed_mean, 1.2, TOL);
  CHECK(b[0].speed_spread == 0.0f);
  CHECK_NEAR(b[0].radius_min, 0.3, TOL);
  CHECK_NEAR(b[0].radius_max, 0.4, TOL);
  CHECK(b[0].mass_min == 80.0f && b[0].mass_max == 80.0f && b[0].group == 7);
  CHECK(!strcmp(b[1].name, "block1") && b[1].line == 14 && b[1].group == 1);
  CHECK(b[1].speed_mean == 2.0f && b[1].speed_spread == 0.5f);
  CHECK_NEAR(b[1].radius_min, 0.45, TOL);
  CHECK(b[1].radius_min == b[1].radius_max);
  CHECK(b[1].mass_min == 60.0f && b[1].mass_max == 90.0f);
  /* the default spread (0.1) never exceeds the mean */
  CHECK_NEAR(b[2].speed_mean, 0.05, TOL);
  CHECK(b[2].speed_spread == b[2].speed_mean && b[2].line == 22);
  thr_scenario_free(&sc);
}

THR_TEST(block_goals) {
  thr_scenario sc;
  CHECK(load(WORLD "goals:\n"
                   "  - {name: exit, rect: {min: [18, 0], max: [20, 20]}}\n"
                   "  - {name: door, point: [10, 20]}\n"
                   "agents:\n"
                   "  - " GRID ", goal: door}\n"
                   "  - " GRID ", goal: [exit, door]}\n"
                   "  - " GRID ", goal: {point: [3, 4], jitter: 0.5}}\n"
                   "  - " GRID ", goal: {offset: [10, 0]}}\n"
                   "  - {layout: circle, center: [10, 10], radius: 5, count: 8, goal: {antipodal: [10, 11]}}\n"
                   "  - " GRID ", goal: [door]}\n"
                   "  - " GRID "}\n",
             &sc) == 0);
  const thr_block *b = sc.blocks;
  CHECK(sc.n_sets == 3);
  CHECK(sc.set_first[0] == 0 && sc.set_first[1] == 1 && sc.set_first[2] == 3 && sc.set_first[3] == 4);
  CHECK(sc.set_items[0] == 1 && sc.set_items[1] == 0 && sc.set_items[2] == 1 && sc.set_items[3] == 1);
  CHECK(b[0].goal_kind == THR_BGOAL_SET && b[0].goal_set == 0);
  CHECK(b[1].goal_kind == THR_BGOAL_SET && b[1].goal_set == 1);
  CHECK(b[2].goal_kind == THR_BGOAL_POINT && b[2].goal_jitter == 0.5f);
  check_vec(b[2].goal_point, 3, 4);
  CHECK(b[3].goal_kind == THR_BGOAL_OFFSET && b[3].goal_jitter == 0.0f);
  check_vec(b[3].goal_point, 10, 0);
  CHECK(b[4].goal_kind == THR_BGOAL_ANTIPODAL);
  check_vec(b[4].goal_point, 10, 11);
  CHECK(b[5].goal_kind == THR_BGOAL_SET && b[5].goal_set == 2);
  CHECK(b[6].goal_kind == THR_BGOAL_NONE);
  thr_scenario_free(&sc);
}

THR_TEST(fractions_and_numbers) {
  thr_scenario sc;
  CHECK(load("world: {min: [-1/2, -1e1], max: [20, 2.5E1]}\n"
             "time: {dt: 1/48}\n"
             "model: {alpha: 1 / 4, radius_scale: 3/2, max_speed: .5, arrive_radius: +2.}\n" AGENTS,
             &sc) == 0);
  CHECK(sc.prm.dt == 1.0f / 48.0f);
  CHECK(sc.prm.alpha == 0.25f && sc.prm.radius_scale == 1.5f && sc.prm.max_speed == 0.5f);
  CHECK(sc.prm.arrive_radius == 2.0f);
  check_vec(sc.world_min, -0.5f, -10);
  check_vec(sc.world_max, 20, 25);
  thr_scenario_free(&sc);
  FAILS(WORLD "time: {dt: 1/0}\n" AGENTS, ":2:12: time.dt: expected a number > 0, got \"1/0\" (division by zero)");
  FAILS(WORLD "time: {dt: 1/x}\n" AGENTS, ":2:12: time.dt: expected a number > 0, got \"1/x\"");
  FAILS(WORLD "time: {dt: 0x10}\n" AGENTS, ":2:12: time.dt: expected a number > 0, got \"0x10\"");
}

/* ---- --set overrides ------------------------------------------------------ */

THR_TEST(set_scalars) {
  thr_scenario sc;
  const char *sets[] = {"solver.iterations=8", "time.dt=1/96", "contact.enabled=false",
                        "name=renamed",        "seed = 42",    "solver.iterations=10"};
  CHECK(load_sets(WORLD "solver: {iterations: 3, omega: 1.1}\n" AGENTS, sets, 6, &sc) == 0);
  CHECK(sc.prm.solver_iterations == 10); /* later overrides win */
  CHECK_NEAR(sc.prm.omega, 1.1, TOL);
  CHECK(sc.prm.dt == 1.0f / 96.0f && sc.prm.contact_on == 0);
  CHECK(!strcmp(sc.name, "renamed") && sc.seed == 42);
  thr_scenario_free(&sc);
}

THR_TEST(set_creates_keys) {
  thr_scenario sc;
  const char *sets[] = {
      "long_range.stiffness=0.5",         "output.dir=out/x", "xsph.h=2",       "avoidance.enabled=true",
      "goals=[{name: g, point: [1, 2]}]", "agents[0].goal=g", "time={steps: 5}"};
  CHECK(load_sets(WORLD "xsph:\n" AGENTS, sets, 7, &sc) == 0);
  CHECK(sc.prm.lr_stiffness == 0.5f && sc.prm.longrange_on == 1);
  CHECK(!strcmp(sc.out_dir, "out/x") && sc.prm.xsph_h == 2.0f && sc.prm.avoidance_on == 1);
  CHECK(sc.n_goals == 1 && !strcmp(sc.goal_names[0], "g") && sc.goal_line[0] == 0);
  CHECK(sc.blocks[0].goal_kind == THR_BGOAL_SET && sc.n_sets == 1 && sc.steps == 5);
  thr_scenario_free(&sc);
}

THR_TEST(set_list_items_and_flow_values) {
  thr_scenario sc;
  const char *sets[] = {"agents[1].count=7",   "agents[0].speed={mean: 2, spread: 0}",
                        "world.min=[-10,-10]", "agents[0].min=[-9, -9]",
                        "agents[1].max[1]=16", "agents[0].goal={offset: [1, 2]}"};
  CHECK(load_sets(WORLD "agents:\n"
                        "  - " GRID "}\n"
                        "  - {layout: random, min: [0, 10], max: [5, 15], count: 5}\n",
                  sets, 6, &sc) == 0);
  CHECK(sc.blocks[1].count == 7 && sc.blocks[0].speed_mean == 2.0f && sc.blocks[0].speed_spread == 0.0f);
  check_vec(sc.world_min, -10, -10);
  check_vec(sc.blocks[0].min, -9, -9);
  check_vec(sc.blocks[1].max, 5, 16);
  CHECK(sc.blocks[0].goal_kind == THR_BGOAL_OFFSET);
  check_vec(sc.blocks[0].goal_point, 1, 2);
  thr_scenario_free(&sc);
}

THR_TEST(set_errors) {
  const char *base = WORLD AGENTS;
  FAILS_SET(base, "agents[5].count=1",
            "--set agents[5].count=1: agents[5]: index past the end of the list (it has 1 item)");
  FAILS_SET(base, "obstacles[0].rect=1",
            "--set obstacles[0].rect=1: obstacles: no such list; index [0] is past its end");
  FAILS_SET(base, "solver.iterations", "--set solver.iterations: expected KEY=VALUE (e.g. --set solver.iterations=8)");
  FAILS_SET(base, "solver..iterations=3",
            "--set solver..iterations=3: bad key 'solver..iterations': expected a dotted path");
  FAILS_SET(base, "agents[x].count=3", "--set agents[x].count=3: bad key 'agents[x].count'");
  /* the list of known keys, in the table's order (its middle, which grows
   * with every model's section, is not spelled out here) */
  FAILS_SET(base, "solvr.iterations=3",
            "--set solvr.iterations=3: unknown key 'solvr' (known keys here: name, description, seed, world, geometry, "
            "time, solver, model, headway, contact, ");
  CHECK(ends_with(g_err, ", decomposition, goals, floors, stairs, speed_zones, obstacles, exits, routing, stages, journeys, agents, sources, "
                         "formations, measurement, output, catalyst); did you mean 'solver'?"));
  FAILS_SET(base, "solver.iteratons=3",
            "--set solver.iteratons=3: solver: unknown key 'iteratons' (known keys here: stability_iterations, "
            "iterations, omega); did you mean 'iterations'?");
  FAILS_SET(base, "solver.iterations=abc",
            "--set solver.iterations=abc: solver.iterations: expected an integer >= 0, got \"abc\"");
  FAILS_SET(base, "world.min=[1, 2",
            "--set world.min=[1, 2: world.min: bad YAML value: did not find expected ',' or ']'");
  FAILS_SET(base, "agents[0].mass=0", "--set agents[0].mass=0: agents[0].mass: expected a number > 0, got \"0\"");
  FAILS_SET(base, "agents.count=1", "--set agents.count=1: agents: is a list, not a map; it has no key 'count'");
  FAILS_SET(base, "time.dt=", "--set time.dt=: time.dt: expected a number > 0, got nothing");
  const char *two[] = {"solver.iterations=4", "time.dt=-1"};
  CHECK(fails_sets(base, two, 2, "--set time.dt=-1: time.dt: expected a number > 0, got \"-1\""));
}

/* ---- syntax --------------------------------------------------------------- */

THR_TEST(malformed_yaml) {
  FAILS(WORLD
        "agents:\n"
        "  - layout: grid\n"
        "    min: [1, 1\n"
        "    max: [5, 5]\n",
        ":5:8: agents[0].min: did not find expected ',' or ']' (while parsing a flow sequence started at line 4, "
        "column 10)");
  FAILS(WORLD "agents:\n  - layout: grid\n\tmin: [1, 1]\n",
        ":4:1: agents[0].layout: found a tab character that violates indentation");
  FAILS(WORLD "name: \"unclosed\n" AGENTS, ":5:1: name: found unexpected end of stream");
  FAILS(WORLD AGENTS "---\nname: x\n", ":4:1: a scenario is one YAML document; found a second one");
  FAILS(WORLD "seed: !!int 3\n" AGENTS, ":2:7: seed: YAML tags (tag:yaml.org,2002:int) are not supported");
}

THR_TEST(duplicates_anchors_merges) {
  FAILS(WORLD "world: 1\n", ":2:1: duplicate key 'world' (first at line 1)");
  FAILS(WORLD "agents:\n  - layout: grid\n    layout: random\n",
        ":4:5: agents[0]: duplicate key 'layout' (first at line 3)");
  FAILS("world: &w {min: [0, 0], max: [20, 20]}\n" AGENTS, ":1:8: world: anchors (&w) are not supported");
  FAILS("world: *w\n" AGENTS, ":1:8: world: aliases (*w) are not supported");
  FAILS("world:\n  <<: {min: [0, 0]}\n" AGENTS, ":2:3: world: merge keys (<<) are not supported");
  FAILS("? [a, b]\n: 1\n", ":1:3: map keys must be plain names, got a list");
}

/* ---- encoding and control characters --------------------------------------- */

/* libyaml gives bad text as a byte offset; messages give its line and column
 * (in characters, as for every other error) and no key path, since libyaml
 * reads ahead of the key it is parsing. */
THR_TEST(encoding_errors_located) {
  FAILS(WORLD AGENTS "# ok\x1b\n", ":4:5: invalid text: control characters are not allowed (0x1B)");
  FAILS(WORLD "name: h\xc3\xa9\xff\n" AGENTS, ":2:9: invalid text: invalid leading UTF-8 octet (0xFF)");
  FAILS(WORLD "name: h\xc3\n" AGENTS, ":2:9: invalid text: invalid trailing UTF-8 octet (0x0A)");
  FAILS_BYTES(WORLD "seed: 1\0\n" AGENTS, ":2:8: invalid text: control characters are not allowed (0x00)");
  FAILS(WORLD "name: a\xed\xa0\x80\n" AGENTS, ":2:8: invalid text: invalid Unicode character (0xD800)");
  /* CR LF and NEL end a line, as for libyaml */
  FAILS("world: {min: [0, 0], max: [20, 20]}\r\n\r\nname: \x01\n",
        ":3:7: invalid text: control characters are not allowed (0x01)");
  FAILS("world: {min: [0, 0], max: [20, 20]}\xc2\x85name: \x01\n",
        ":2:7: invalid text: control characters are not allowed (0x01)");
  /* UTF-16 (byte order mark FF FE): a low surrogate without a high one */
  FAILS_BYTES("\xff\xfe"
              "a\0:\0 \0\x00\xdc",
              ":1:4: invalid text: unexpected low surrogate area (0xDC00)");
  /* in an override: the place in the value, and the override shown escaped */
  FAILS_SET(WORLD AGENTS, "name=a\x1b",
            "--set name=a\\x1b: name: bad YAML value: invalid text: control characters are not allowed (0x1B) (at "
            "line 1, column 2 of the value)");
}

/* Names end up in output paths, summaries and messages: printable only. */
THR_TEST(names_printable) {
  const char *printable = "must be printable, without control characters; got ";
  char want[256];
  snprintf(want, sizeof want, ":2:7: name: a name %s\"red\\x1b[31m\"", printable);
  FAILS(WORLD "name: \"red\\e[31m\"\n" AGENTS, want);
  snprintf(want, sizeof want, ":8:11: agents[0].name: a name %s\"a\\x09b\"", printable);
  FAILS(WORLD "agents:\n  - layout: grid\n    min: [1, 1]\n    max: [5, 5]\n    rows: 2\n    cols: 2\n"
              "    name: \"a\\tb\"\n",
        want);
  snprintf(want, sizeof want, ":3:12: goals[0].name: a name %s\"g\\xc2\\x85\"", printable); /* C1: U+0085 */
  FAILS(WORLD "goals:\n  - {name: \"g\\x85\", point: [1, 1]}\n" AGENTS, want);
  snprintf(want, sizeof want, ":5:70: agents[0].goal: a name %s\"ex\\x7fit\"", printable);
  FAILS(WORLD "goals:\n  - {name: exit, point: [1, 1]}\nagents:\n  - " GRID ", goal: \"ex\\x7Fit\"}\n", want);
  snprintf(want, sizeof want, "--set name=\"x\\ty\": name: a name %s\"x\\x09y\"", printable);
  FAILS_SET(WORLD AGENTS, "name=\"x\\ty\"", want);
  thr_scenario sc;
  CHECK(load(WORLD "name: Zürich-東京\n" AGENTS, &sc) == 0);
  CHECK(!strcmp(sc.name, "Zürich-東京"));
  thr_scenario_free(&sc);
}

/* No message passes control characters or broken UTF-8 from the input on
 * to the terminal: they are shown as \xNN. */
THR_TEST(messages_escape_input) {
  FAILS(WORLD "\"so\\x1blver\": 1\n" AGENTS, ":2:1: unknown key 'so\\x1blver' (known keys here: name,");
  FAILS(WORLD "seed: \"\\a\"\n" AGENTS, ":2:7: seed: expected an integer >= 0, got \"\\x07\"");
  FAILS(WORLD "seed: !<a%1Bb> 3\n" AGENTS, ":2:7: seed: YAML tags (a\\x1bb) are not supported");
  /* "\0" in a quoted value or key would cut the C string short */
  FAILS(WORLD "name: \"a\\0b\"\n" AGENTS, ":2:7: name: a NUL character (\\0) is not allowed in a value");
  FAILS(WORLD "\"seed\\0x\": 3\n" AGENTS, ":2:1: a NUL character (\\0) is not allowed in a value");
  /* a long value is cut between characters, not inside one */
  char yaml[512] = WORLD "solver: {iterations: ";
  char want[256] = ":2:22: solver.iterations: expected an integer >= 0, got \"";
  for (int k = 0; k < 40; ++k) strcat(yaml, "\xc3\xa9");
  for (int k = 0; k < 28; ++k) strcat(want, "\xc3\xa9");
  strcat(yaml, "}\n" AGENTS);
  strcat(want, "...\"");
  FAILS(yaml, want);
}

/* ---- unknown keys --------------------------------------------------------- */

THR_TEST(unknown_keys) {
  FAILS(WORLD "solvr: {iterations: 3}\n" AGENTS,
        ":2:1: unknown key 'solvr' (known keys here: name, description, seed, world, geometry, time, solver, model, "
        "headway, contact, long_range, avoidance, walls, xsph, ");
  for (int m = 0; m < thr_model_count; ++m) /* every model's sections are keys here */
    for (const char *const *sec = thr_models[m]->sections; *sec; ++sec) {
      char key[40];
      snprintf(key, sizeof key, ", %s, ", *sec);
      CHECK(strstr(g_err, key) != NULL);
    }
  CHECK(ends_with(g_err, ", neighbors, decomposition, goals, floors, stairs, speed_zones, obstacles, exits, routing, stages, journeys, agents, "
                         "sources, formations, measurement, output, catalyst); did you mean 'solver'?"));
  FAILS(WORLD "solver: {iteratons: 3}\n" AGENTS,
        ":2:10: solver: unknown key 'iteratons' (known keys here: stability_iterations, iterations, omega); "
        "did you mean 'iterations'?");
  FAILS("world: {min: [0, 0], max: [1, 1], mid: 3}\n" AGENTS,
        ":1:35: world: unknown key 'mid' (known keys here: min, max, z)");
  FAILS(WORLD "output: {directory: x}\n" AGENTS,
        ":2:10: output: unknown key 'directory' (known keys here: dir, trajectory_every, metrics_every, trajectory_format, compression, checkpoint_every, checkpoint_keep)");
  FAILS(WORLD "zzz: 1\n" AGENTS, ":2:1: unknown key 'zzz' (known keys here: name,");
}

THR_TEST(unknown_keys_nested) {
  FAILS(WORLD "agents:\n  - " GRID ", sped: 1}\n",
        ":3:64: agents[0]: unknown key 'sped' (known keys here: name, layout, min, max, center, radius, semi_axes, "
        "polygon, points, points_file, scale, offset, rows, cols, spacing, count, density, jitter, speed, "
        "agent_radius, mass, agility, lookahead_rings, restore_delay, group, goal, altitude, premovement, behavior, laps, "
        "exit, journey, floor); did you mean 'speed'?");
  FAILS(WORLD "goals:\n  - {name: a, pont: [1, 2]}\n" AGENTS,
        ":3:15: goals[0]: unknown key 'pont' (known keys here: name, point, rect, disk, floor); did you mean 'point'?");
  FAILS(WORLD "obstacles:\n  - segmnt: [[0, 0], [1, 1]]\n" AGENTS,
        ":3:5: obstacles[0]: unknown key 'segmnt' (known keys here: segment, polyline, polygon, rect, floor)");
  FAILS(WORLD "agents:\n  - " GRID ", speed: {mean: 1, sprd: 0}}\n",
        ":3:81: agents[0].speed: unknown key 'sprd' (known keys here: mean, spread, sd, min, max, rimea)");
  FAILS(WORLD "agents:\n  - " GRID ", goal: {pointt: [1, 2]}}\n",
        ":3:71: agents[0].goal: unknown key 'pointt' (known keys here: point, offset, antipodal, jitter, altitude)");
  FAILS(WORLD "goals:\n  - {name: a, disk: {center: [1, 2], r: 1}}\n" AGENTS,
        ":3:38: goals[0].disk: unknown key 'r' (known keys here: center, radius)");
}

/* ---- types and ranges ----------------------------------------------------- */

THR_TEST(wrong_types) {
  FAILS(WORLD "time: {steps: ten}\n" AGENTS, ":2:15: time.steps: expected an integer >= 0, got \"ten\"");
  FAILS(WORLD "solver: {iterations: 2.5}\n" AGENTS,
        ":2:22: solver.iterations: expected an integer >= 0, got \"2.5\" (not a whole number)");
  FAILS(WORLD "model: {alpha: [1]}\n" AGENTS, ":2:16: model.alpha: expected a number in [0, 1], got a list of 1 item");
  FAILS(WORLD "contact: {enabled: 1}\n" AGENTS, ":2:20: contact.enabled: expected true or false, got \"1\"");
  FAILS(WORLD "time: {dt: '0.1'}\n" AGENTS, ":2:12: time.dt: expected a number > 0, got \"0.1\" (quoted, so a string)");
  FAILS("world: [0, 0]\n" AGENTS, ":1:8: world: expected a map {min: [x, y], max: [x, y]}, got a list of 2 items");
  FAILS("world: {min: [0, 0, 0], max: [1, 1]}\n" AGENTS,
        ":1:14: world.min: expected a point [x, y], got a list of 3 items");
  FAILS(WORLD "agents: {layout: grid}\n", ":2:9: agents: expected a list of at least one agent block, got a map");
  FAILS(WORLD "name: [a]\n" AGENTS, ":2:7: name: expected a string, got a list of 1 item");
  FAILS(WORLD "solver: 3\n" AGENTS,
        ":2:9: solver: expected a map with keys stability_iterations, iterations, omega, got \"3\"");
  FAILS(WORLD "agents:\n  - grid\n", ":3:5: agents[0]: expected an agent block (a map with layout, ...), got \"grid\"");
}

THR_TEST(negative_radius) {
  FAILS(WORLD "agents:\n  - " GRID ", agent_radius: -0.5}\n",
        ":3:78: agents[0].agent_radius: expected a number > 0, got \"-0.5\"");
  FAILS(WORLD "agents:\n  - " GRID ", agent_radius: {min: 0.5, max: 0.4}}\n",
        ":3:94: agents[0].agent_radius.max: must be >= agents[0].agent_radius.min (0.5), got 0.4");
  FAILS(WORLD "goals:\n  - {name: a, disk: {center: [1, 2], radius: -1}}\n" AGENTS,
        ":3:46: goals[0].disk.radius: expected a number > 0, got \"-1\"");
  FAILS(WORLD "agents:\n  - {layout: disk, center: [5, 5], radius: 0, spacing: 1}\n",
        ":3:44: agents[0].radius: expected a number > 0, got \"0\"");
  FAILS(WORLD "long_range: {radius: -3}\n" AGENTS, ":2:22: long_range.radius: expected a number > 0, got \"-3\"");
}

THR_TEST(zero_mass) {
  FAILS(WORLD "agents:\n  - " GRID ", mass: 0}\n", ":3:70: agents[0].mass: expected a number > 0, got \"0\"");
  FAILS(WORLD "agents:\n  - " GRID ", mass: {min: 0, max: 1}}\n",
        ":3:76: agents[0].mass.min: expected a number > 0, got \"0\"");
  FAILS(WORLD "agents:\n  - " GRID ", mass: -70}\n", ":3:70: agents[0].mass: expected a number > 0, got \"-70\"");
}

THR_TEST(non_finite_numbers) {
  FAILS(WORLD "time: {dt: .nan}\n" AGENTS, ":2:12: time.dt: expected a finite number > 0, got \".nan\"");
  FAILS("world: {min: [0, 0], max: [.inf, 1]}\n" AGENTS, ":1:28: world.max[0]: expected a finite number, got \".inf\"");
  FAILS(WORLD "model: {max_speed: -.inf}\n" AGENTS,
        ":2:20: model.max_speed: expected a finite number >= 0, got \"-.inf\"");
  FAILS(WORLD "model: {max_speed: 1e40}\n" AGENTS,
        ":2:20: model.max_speed: expected a finite number >= 0, got \"1e40\"");
  FAILS(WORLD "neighbors: {skin: .NaN}\n" AGENTS, ":2:19: neighbors.skin: expected a finite number >= 0, got \".NaN\"");
  FAILS(WORLD "agents:\n  - " GRID ", speed: .inf}\n", ":3:71: agents[0].speed: expected a finite number >= 0");
}

THR_TEST(world_bounds) {
  FAILS("world: {min: [0, 0], max: [10, 0]}\n" AGENTS,
        ":1:27: world.max: max [10, 0] must exceed min [0, 0] in each coordinate");
  FAILS("world: {min: [5, 5], max: [5, 6]}\n" AGENTS, ":1:27: world.max: max [5, 6] must exceed min [5, 5]");
  FAILS("world: {min: [0, 0]}\n" AGENTS, ":1:8: world: missing required key 'max'");
  FAILS(WORLD "agents:\n  - {layout: random, min: [5, 5], max: [4, 6], count: 3}\n",
        ":3:40: agents[0].max: max [4, 6] must not be below min [5, 5] in each coordinate");
}

THR_TEST(missing_required_keys) {
  FAILS(AGENTS, ":1:1: missing required key 'world' (a map {min: [x, y], max: [x, y]})");
  FAILS(WORLD, ":1:1: missing required key 'agents' (a list of agent blocks)");
  FAILS(WORLD "agents: []\n", ":2:9: agents: expected a list of at least one agent block, got a list of 0 items");
  FAILS(WORLD "agents:\n  - {min: [1, 1]}\n",
        ":3:5: agents[0]: missing required key 'layout' (one of grid, random, disk, ellipse, circle, polygon, points)");
  FAILS(WORLD "agents:\n  - {layout: grid, min: [1, 1], max: [5, 5]}\n",
        ":3:5: agents[0]: layout 'grid' needs rows and cols, or spacing");
  FAILS(WORLD "agents:\n  - {layout: grid, max: [5, 5], spacing: 1}\n", ":3:5: agents[0]: missing required key 'min'");
  FAILS(WORLD "agents:\n  - {layout: random, min: [1, 1], max: [5, 5]}\n",
        ":3:5: agents[0]: missing required key 'count'");
  FAILS(WORLD "agents:\n  - {layout: circle, center: [1, 1], radius: 5}\n",
        ":3:5: agents[0]: missing required key 'count'");
  FAILS(WORLD "agents:\n  - {layout: disk, center: [1, 1], radius: 5}\n",
        ":3:5: agents[0]: layout 'disk' needs spacing, count or both");
  FAILS(WORLD "agents:\n  - {layout: ellipse, center: [1, 1], count: 5}\n",
        ":3:5: agents[0]: missing required key 'semi_axes'");
  FAILS(WORLD "goals:\n  - {point: [1, 1]}\n" AGENTS, ":3:5: goals[0]: missing required key 'name'");
  FAILS(WORLD "goals:\n  - {name: a}\n" AGENTS, ":3:5: goals[0]: needs one of point, rect, disk");
  FAILS(WORLD "obstacles:\n  - {}\n" AGENTS, ":3:5: obstacles[0]: needs one of segment, polyline, polygon, rect");
}

THR_TEST(layout_specific_keys) {
  FAILS(WORLD "agents:\n  - " GRID ", semi_axes: [1, 2]}\n",
        ":3:64: agents[0]: key 'semi_axes' does not apply to layout 'grid' (grid blocks take min, max, rows, cols, "
        "spacing, count)");
  FAILS(WORLD "agents:\n  - " GRID ", spacing: 1}\n",
        ":3:64: agents[0]: give either rows and cols or spacing, not both");
  FAILS(WORLD "agents:\n  - {layout: grid, min: [1, 1], max: [5, 5], rows: 2}\n",
        ":3:5: agents[0]: missing required key 'cols' (rows needs cols)");
  FAILS(WORLD "agents:\n  - " GRID ", count: 5}\n", ":3:71: agents[0].count: count 5 exceeds rows x cols = 4");
  FAILS(WORLD "agents:\n  - {layout: random, min: [1, 1], max: [5, 5], count: 3, radius: 2}\n",
        ":3:58: agents[0]: key 'radius' does not apply to layout 'random' (random blocks take min, max, count)");
  FAILS(WORLD "agents:\n  - {layout: grd}\n",
        ":3:14: agents[0].layout: expected one of grid, random, disk, ellipse, circle, polygon, points, got \"grd\"");
  FAILS(WORLD "agents:\n  - {layout: circle, center: [1, 1], radius: 5, count: 0}\n",
        ":3:56: agents[0].count: expected an integer > 0, got \"0\"");
}

THR_TEST(unknown_goal_names) {
  const char *goals = WORLD "goals:\n  - {name: exit, point: [1, 1]}\n  - {name: door, point: [2, 2]}\n";
  char yaml[512];
  snprintf(yaml, sizeof yaml, "%sagents:\n  - %s, goal: exti}\n", goals, GRID);
  FAILS(yaml, ":6:70: agents[0].goal: unknown goal 'exti' (goals defined: exit, door)");
  snprintf(yaml, sizeof yaml, "%sagents:\n  - %s, goal: [exit, nope]}\n", goals, GRID);
  FAILS(yaml, ":6:77: agents[0].goal[1]: unknown goal 'nope' (goals defined: exit, door)");
  FAILS(WORLD "agents:\n  - " GRID ", goal: exit}\n",
        ":3:70: agents[0].goal: unknown goal 'exit' (no goals are defined; add them under 'goals')");
}

THR_TEST(duplicate_goal_names) {
  FAILS(WORLD
        "goals:\n"
        "  - name: exit\n"
        "    point: [1, 1]\n"
        "  - {name: exit, point: [2, 2]}\n" AGENTS,
        ":5:12: goals[1].name: duplicate goal name 'exit' (first at line 3)");
}

THR_TEST(obstacle_errors) {
  FAILS(WORLD "obstacles:\n  - polygon: [[0, 0], [1, 0]]\n" AGENTS,
        ":3:14: obstacles[0].polygon: expected a list of at least 3 points [[x, y], ...], got a list of 2 items");
  FAILS(WORLD "obstacles:\n  - segment: [[0, 0], [1, 0], [2, 0]]\n" AGENTS,
        ":3:14: obstacles[0].segment: expected a list of 2 points [[x1, y1], [x2, y2]], got a list of 3 items");
  FAILS(WORLD "obstacles:\n  - polyline: [[0, 0]]\n" AGENTS,
        ":3:15: obstacles[0].polyline: expected a list of at least 2 points");
  FAILS(WORLD "obstacles:\n  - polyline: [[0, 0], [1, 1], [1, 1]]\n" AGENTS,
        ":3:32: obstacles[0].polyline[2]: repeats the previous point [1, 1]");
  FAILS(WORLD "obstacles:\n  - polygon: [[0, 0], [1, 0], [1, 1], [0, 0]]\n" AGENTS,
        ":3:39: obstacles[0].polygon[3]: repeats the first point");
  FAILS(WORLD "obstacles:\n  - rect: {min: [0, 0], max: [0, 1]}\n" AGENTS,
        ":3:30: obstacles[0].rect: max [0, 1] must exceed min [0, 0] in each coordinate");
  FAILS(WORLD "obstacles:\n  - {segment: [[0, 0], [1, 0]], rect: {min: [0, 0], max: [1, 1]}}\n" AGENTS,
        ":3:33: obstacles[0]: 'segment' and 'rect' cannot be combined; give exactly one of segment, polyline, "
        "polygon, rect");
  FAILS(WORLD "obstacles:\n  - segment: [[0, 0], [1, abc]]\n" AGENTS,
        ":3:27: obstacles[0].segment[1][1]: expected a number, got \"abc\"");
}

THR_TEST(block_goal_errors) {
  FAILS(WORLD "agents:\n  - " GRID ", goal: {point: [1, 2], offset: [1, 1]}}\n",
        ":3:86: agents[0].goal: 'point' and 'offset' cannot be combined; give exactly one of point, offset, antipodal");
  FAILS(WORLD "agents:\n  - " GRID ", goal: []}\n",
        ":3:70: agents[0].goal: expected a goal name, a list of goal names, or a map");
  FAILS(WORLD "agents:\n  - " GRID ", goal: {jitter: 1}}\n",
        ":3:70: agents[0].goal: needs one of point, offset, antipodal");
  FAILS(WORLD "agents:\n  - " GRID ", goal: {point: [1, 2], jitter: -1}}\n",
        ":3:94: agents[0].goal.jitter: expected a number >= 0, got \"-1\"");
  FAILS(WORLD "agents:\n  - " GRID ", goal: }\n", ":3:70: agents[0].goal: expected a goal name");
}

THR_TEST(documented_ranges) {
  FAILS(WORLD "model: {alpha: 1.5}\n" AGENTS, ":2:16: model.alpha: expected a number in [0, 1], got \"1.5\"");
  FAILS(WORLD "model: {radius_scale: 0.9}\n" AGENTS, ":2:23: model.radius_scale: expected a number >= 1, got \"0.9\"");
  FAILS(WORLD "solver: {omega: 0}\n" AGENTS, ":2:17: solver.omega: expected a number > 0, got \"0\"");
  FAILS(WORLD "contact: {stiffness: 0}\n" AGENTS, ":2:22: contact.stiffness: expected a number in (0, 1], got \"0\"");
  FAILS(WORLD "walls: {stiffness: 1.5}\n" AGENTS, ":2:20: walls.stiffness: expected a number in (0, 1], got \"1.5\"");
  FAILS(WORLD "solver: {iterations: -1}\n" AGENTS, ":2:22: solver.iterations: expected an integer >= 0, got \"-1\"");
  FAILS(WORLD "seed: -1\n" AGENTS, ":2:7: seed: expected an integer >= 0, got \"-1\"");
  FAILS(WORLD "time: {steps: -5}\n" AGENTS, ":2:15: time.steps: expected an integer >= 0, got \"-5\"");
  FAILS(WORLD "output: {metrics_every: 99999999999}\n" AGENTS,
        ":2:25: output.metrics_every: expected an integer >= 0 (at most 2147483647), got \"99999999999\"");
  FAILS(WORLD "agents:\n  - " GRID ", group: -1}\n", ":3:71: agents[0].group: expected an integer >= 0, got \"-1\"");
  FAILS(WORLD "agents:\n  - " GRID ", jitter: -1}\n", ":3:72: agents[0].jitter: expected a number >= 0, got \"-1\"");
  FAILS(WORLD "agents:\n  - " GRID ", speed: {mean: 1, spread: 2}}\n",
        ":3:89: agents[0].speed.spread: must not exceed agents[0].speed.mean (1), or speeds would be negative");
  FAILS(WORLD "agents:\n  - {layout: ellipse, center: [1, 1], semi_axes: [2, 0], count: 5}\n",
        ":3:54: agents[0].semi_axes[1]: expected a number > 0, got \"0\"");
  FAILS(WORLD "name: ''\n" AGENTS, ":2:7: name: must not be empty");
  FAILS(WORLD "name: ../up\n" AGENTS, ":2:7: name: must not contain '/'");
  FAILS(WORLD "agents:\n  - {layout: random, min: [1, 1], max: [5, 5], count: 1e3}\n",
        ":3:55: agents[0].count: expected an integer > 0, got \"1e3\" (write whole numbers as plain digits)");
}

THR_TEST(empty_or_unreadable) {
  FAILS("", ":1:1: the file is empty; a scenario needs at least 'world' and 'agents'");
  FAILS("# only a comment\n", ":1:1: the file is empty");
  FAILS("- 1\n", ":1:1: expected a map of keys (name, world, agents, ...) at the top level, got a list of 1 item");
  thr_scenario sc;
  CHECK(thr_config_load("/nonexistent/dir/x.yaml", NULL, 0, &sc, g_err, sizeof g_err) == -1);
  CHECK(!strcmp(g_err, "/nonexistent/dir/x.yaml: cannot read the scenario file: No such file or directory"));
  CHECK(sc.blocks == NULL && sc.n_blocks == 0);
  CHECK(thr_config_load("/tmp", NULL, 0, &sc, g_err, sizeof g_err) == -1);
  CHECK(!strcmp(g_err, "/tmp: cannot read the scenario file: is a directory, not a regular file"));
  /* a tiny buffer truncates the message but never overflows */
  char small[8];
  CHECK(thr_config_load("/nonexistent/x.yaml", NULL, 0, &sc, small, sizeof small) == -1);
  CHECK(strlen(small) == 7);
}

/* ---- decomposition (several MPI ranks) ------------------------------------ */

THR_TEST(decomposition_keys) {
  thr_scenario sc;
  CHECK(load(WORLD AGENTS, &sc) == 0);
  CHECK(sc.balance_every == 50);
  CHECK_NEAR(sc.balance_threshold, 1.10, TOL);
  thr_scenario_free(&sc);
  CHECK(load(WORLD "decomposition: {balance_every: 7, balance_threshold: 1.25}\n" AGENTS, &sc) == 0);
  CHECK(sc.balance_every == 7);
  CHECK_NEAR(sc.balance_threshold, 1.25, TOL);
  thr_scenario_free(&sc);
  CHECK(load(WORLD "decomposition: {balance_every: 0, balance_threshold: 1}\n" AGENTS, &sc) == 0);
  CHECK(sc.balance_every == 0);
  CHECK(sc.balance_threshold == 1.0f);
  thr_scenario_free(&sc);
  const char *sets[] = {"decomposition.balance_every=3", "decomposition.balance_threshold=1.5"};
  CHECK(load_sets(WORLD AGENTS, sets, 2, &sc) == 0);
  CHECK(sc.balance_every == 3);
  CHECK_NEAR(sc.balance_threshold, 1.5, TOL);
  thr_scenario_free(&sc);
  FAILS(WORLD "decomposition: {balance_every: -1}\n" AGENTS,
        ":2:32: decomposition.balance_every: expected an integer >= 0, got \"-1\"");
  FAILS(WORLD "decomposition: {balance_every: 2.5}\n" AGENTS,
        ":2:32: decomposition.balance_every: expected an integer >= 0, got \"2.5\" (not a whole number)");
  FAILS(WORLD "decomposition: {balance_threshold: 0.9}\n" AGENTS,
        ":2:36: decomposition.balance_threshold: expected a number >= 1, got \"0.9\"");
  FAILS(WORLD "decomposition: {balance_treshold: 2}\n" AGENTS,
        ":2:17: decomposition: unknown key 'balance_treshold' (known keys here: balance_every, balance_threshold); "
        "did you mean 'balance_threshold'?");
  FAILS(WORLD "decomposition: 3\n" AGENTS,
        ":2:16: decomposition: expected a map with keys balance_every, balance_threshold, got \"3\"");
}

/* ---- evacuation: the walkable area, exits, stages, journeys, sources ------- */

/* The committed example, next to this file's directory (CMake compiles
 * with absolute source paths). */
static const char *full_example(char *buf, size_t len) {
  const char *file = __FILE__, *slash = strrchr(file, '/');
  snprintf(buf, len, "%.*s/../data/good/evacuation-full.yaml", slash ? (int)(slash - file) : 1, slash ? file : ".");
  return buf;
}

static void check_dist(thr_dist d, int kind, float a, float b, float lo, float hi) {
  CHECK(d.kind == kind);
  CHECK_NEAR(d.a, a, TOL);
  CHECK_NEAR(d.b, b, TOL);
  CHECK_NEAR(d.lo, lo, TOL);
  CHECK_NEAR(d.hi, hi, TOL);
}

/* Ring r of a polygon set against the points xy[0..2n). */
static void check_ring(const thr_polyset *s, int r, const float *xy, int n) {
  CHECK(s->ring_first[r + 1] - s->ring_first[r] == n);
  for (int k = 0; k < n && s->ring_first[r + 1] - s->ring_first[r] == n; ++k)
    check_vec(s->verts[s->ring_first[r] + k], xy[2 * k], xy[2 * k + 1]);
}

static void check_transition(const thr_scenario *sc, int journey, int stage, int kind, const int *items,
                             const float *weights, int n) {
  const thr_transition *t = &sc->transitions[journey * sc->n_stages + stage];
  CHECK(t->kind == kind && t->n == n);
  for (int k = 0; k < n && t->n == n; ++k) {
    CHECK(sc->trans_items[t->first + k] == items[k]);
    CHECK(sc->trans_weights[t->first + k] == weights[k]);
  }
}

THR_TEST(evacuation_full_example) {
  char path[1024], err[1024] = "";
  thr_scenario sc;
  int rc = thr_config_load(full_example(path, sizeof path), NULL, 0, &sc, err, sizeof err);
  if (rc) fprintf(stderr, "  %s\n", err);
  CHECK(rc == 0);
  if (rc) return;
  /* the walkable area: one polygon with a hole; the world around it */
  const thr_polyset *w = &sc.walkable;
  static const float outer[] = {0, 0, 60, 0, 60, 40, 0, 40}, pillar[] = {20, 10, 25, 10, 25, 15, 20, 15};
  CHECK(w->n_polys == 1 && w->n_rings == 2 && w->n_verts == 8 && w->poly_first[1] == 2 && w->poly_line[0] == 10);
  check_ring(w, 0, outer, 4);
  check_ring(w, 1, pillar, 4);
  check_vec(sc.world_min, -1, -1);
  check_vec(sc.world_max, 61, 41);
  /* exits: a polygon, and the strip 0.5 m deep inside the west wall */
  static const float east[] = {58, 18, 60, 18, 60, 22, 58, 22}, west[] = {0, 18, 0, 22, 0.5f, 22, 0.5f, 18};
  CHECK(sc.n_exits == 2 && !strcmp(sc.exit_names[0], "east") && !strcmp(sc.exit_names[1], "west"));
  CHECK(sc.exit_shapes.n_polys == 2 && sc.exit_shapes.poly_line[0] == 12 && sc.exit_shapes.poly_line[1] == 14);
  check_ring(&sc.exit_shapes, 0, east, 4);
  check_ring(&sc.exit_shapes, 1, west, 4);
  CHECK_NEAR(sc.route_cell, 0.2, TOL);
  CHECK(sc.route_clearance == 0.0f);
  /* stages */
  const thr_stage_def *st = sc.stages;
  CHECK(sc.n_stages == 5 && sc.n_slots == 5);
  CHECK(!strcmp(st[0].name, "hall") && st[0].kind == THR_STAGE_WAYPOINT && st[0].line == 19);
  check_vec(st[0].point, 30, 20);
  CHECK(st[0].distance == 1.0f);
  CHECK(st[1].kind == THR_STAGE_QUEUE && st[1].slot_first == 0 && st[1].n_slots == 3 && st[1].service == 2.0f);
  check_vec(sc.slots[0], 40, 20);
  check_vec(sc.slots[2], 40, 22);
  CHECK(st[2].kind == THR_STAGE_WAITING && st[2].slot_first == 3 && st[2].n_slots == 2 && st[2].until == 60.0f);
  check_vec(sc.slots[4], 11, 5);
  CHECK(st[3].kind == THR_STAGE_EXIT && st[3].exit == 0 && st[4].kind == THR_STAGE_EXIT && st[4].exit == 1);
  /* journeys: via_hall's own transitions, the defaults of direct */
  CHECK(sc.n_journeys == 2 && !strcmp(sc.journeys[0].name, "via_hall") && !strcmp(sc.journeys[1].name, "direct"));
  CHECK(sc.journeys[0].first_stage == 0 && sc.journeys[0].first_transition == 0 && sc.journeys[0].line == 25);
  CHECK(sc.journeys[1].first_stage == 0 && sc.journeys[1].first_transition == 5);
  static const int to_lounge[] = {2}, exits_items[] = {3, 4}, to_west[] = {4};
  static const float one[] = {1, 1}, rr[] = {2, 1};
  check_transition(&sc, 0, 0, THR_TRANSITION_FIXED, to_lounge, one, 1);
  check_transition(&sc, 0, 1, THR_TRANSITION_ROUND_ROBIN, exits_items, rr, 2);
  check_transition(&sc, 0, 2, THR_TRANSITION_LEAST_TARGETED, exits_items, one, 2);
  check_transition(&sc, 0, 3, THR_TRANSITION_FIXED, NULL, NULL, 0);
  check_transition(&sc, 1, 0, THR_TRANSITION_FIXED, to_west, one, 1);
  check_transition(&sc, 1, 1, THR_TRANSITION_FIXED, NULL, NULL, 0);
  check_transition(&sc, 1, 4, THR_TRANSITION_FIXED, NULL, NULL, 0);
  /* agent blocks: a spawn region by count, one by density, a grid; then the source's block */
  const thr_block *b = sc.blocks;
  CHECK(sc.n_blocks == 4 && sc.regions.n_polys == 3);
  CHECK(b[0].layout == THR_LAYOUT_POLYGON && b[0].region == 0 && b[0].count == 200 && b[0].source == 0);
  check_dist(b[0].premove, THR_DIST_NORMAL, 30, 10, 5, 60);
  check_dist(b[0].speed_dist, THR_DIST_NORMAL, 1.34f, 0.26f, 0.5f, 2.0f);
  check_dist(b[0].radius_dist, THR_DIST_NORMAL, 0.22f, 0.02f, 0.18f, 0.28f);
  CHECK_NEAR(b[0].speed_mean, 1.34, TOL);
  CHECK(b[0].speed_spread == 0.0f && b[0].radius_min == 0.18f && b[0].radius_max == 0.28f);
  CHECK(b[0].route_kind == THR_ROUTE_JOURNEY && b[0].route == 0);
  CHECK(b[1].layout == THR_LAYOUT_POLYGON && b[1].region == 1 && b[1].count == 0 && b[1].density == 0.5f);
  check_dist(b[1].premove, THR_DIST_UNIFORM, 10, 60, 10, 60);
  check_dist(b[1].speed_dist, THR_DIST_UNIFORM, 0.68f, 1.41f, 0.68f, 1.41f);
  CHECK_NEAR(b[1].speed_mean - b[1].speed_spread, 0.68, TOL);
  CHECK_NEAR(b[1].speed_mean + b[1].speed_spread, 1.41, TOL);
  CHECK(b[1].route_kind == THR_ROUTE_EXIT && b[1].route == 1);
  CHECK(b[2].layout == THR_LAYOUT_GRID && b[2].route_kind == THR_ROUTE_NEAREST_EXIT);
  check_dist(b[2].premove, THR_DIST_CONST, 5, 0, 5, 5);
  CHECK(b[2].speed_dist.kind == THR_DIST_NONE && b[2].radius_dist.kind == THR_DIST_NONE);
  /* the source and its block */
  const thr_source_def *src = sc.sources;
  CHECK(sc.n_sources == 1 && !strcmp(src->name, "gate") && src->region == 2 && src->block == 3);
  CHECK(src->rate == 2.0f && src->start == 0.0f && src->stop == 120.0f && src->count == 200);
  CHECK(b[3].source == 1 && !strcmp(b[3].name, "gate") && b[3].group == 9 && b[3].region == 2);
  CHECK_NEAR(b[3].speed_mean, 1.2, TOL);
  CHECK(b[3].mass_min == 70.0f && b[3].mass_max == 70.0f && b[3].speed_spread == 0.0f);
  CHECK_NEAR(b[3].radius_min, 0.2, TOL);
  CHECK_NEAR(b[3].radius_max, 0.25, TOL);
  check_dist(b[3].premove, THR_DIST_UNIFORM, 0, 5, 0, 5);
  CHECK(b[3].route_kind == THR_ROUTE_JOURNEY && b[3].route == 1);
  /* measurement */
  CHECK(sc.areas.n_polys == 1 && !strcmp(sc.area_names[0], "door"));
  CHECK(sc.n_lines == 1 && !strcmp(sc.lines[0].name, "gate_line"));
  check_vec(sc.lines[0].a, 30, 0);
  check_vec(sc.lines[0].b, 30, 10);
  CHECK(sc.map_cell == 1.0f && sc.map_every == 24);
  thr_scenario_free(&sc);
}

/* The outer ring becomes a polyline that closes on itself, each hole a
 * polygon; both after the file's own obstacles, with the walkable area's line. */
THR_TEST(walls_from_the_walkable_area) {
  thr_scenario sc;
  CHECK(load("geometry:\n"
             "  walkable: MULTIPOLYGON (((0 0, 10 0, 10 10, 0 10, 0 0), (4 4, 6 4, 6 6, 4 6, 4 4)),"
             " ((20 0, 30 0, 25 8, 20 0)))\n"
             "obstacles:\n"
             "  - segment: [[1, 1], [2, 1]]\n"
             "agents:\n  - {layout: grid, min: [1, 2], max: [3, 3], rows: 2, cols: 2}\n",
             &sc) == 0);
  CHECK(sc.walkable.n_polys == 2 && sc.walkable.n_rings == 3 && sc.walkable.n_verts == 11);
  check_vec(sc.world_min, -1, -1);
  check_vec(sc.world_max, 31, 11);
  CHECK(sc.n_obstacles == 4);
  static const int closed[] = {0, 0, 1, 0}, line[] = {4, 2, 2, 2}, vfirst[] = {0, 2, 7, 11, 15};
  for (int o = 0; o < 4; ++o)
    CHECK(sc.obs_closed[o] == closed[o] && sc.obs_line[o] == line[o] && sc.obs_vfirst[o] == vfirst[o]);
  CHECK(sc.obs_vfirst[4] == vfirst[4] && sc.n_verts == 15);
  check_vec(sc.verts[2], 0, 0); /* the outer ring: its first vertex again at the end */
  check_vec(sc.verts[6], 0, 0);
  check_vec(sc.verts[7], 4, 4); /* the hole: as it is */
  check_vec(sc.verts[10], 4, 6);
  check_vec(sc.verts[11], 20, 0);
  check_vec(sc.verts[14], 20, 0);
  CHECK(sc.blocks[0].route_kind == THR_ROUTE_GOALS); /* no exits: no default route */
  thr_scenario_free(&sc);
}

/* Without transitions each stage leads to the next; the last, and stages
 * the journey does not use, to none. */
THR_TEST(default_transitions) {
  thr_scenario sc;
  CHECK(load(WORLD "exits:\n  - {name: out, polygon: [[19, 9], [20, 9], [20, 11], [19, 11]]}\n"
                   "stages:\n"
                   "  - {name: a, waypoint: [5, 5]}\n"
                   "  - {name: b, waypoint: [10, 5], distance: 2}\n"
                   "  - {name: unused, waypoint: [10, 10]}\n"
                   "  - {name: leave, exit: out}\n"
                   "journeys:\n  - {name: j, stages: [b, a, leave]}\n" AGENTS,
             &sc) == 0);
  static const int to_a[] = {0}, to_leave[] = {3};
  static const float one[] = {1};
  CHECK(sc.n_journeys == 1 && sc.journeys[0].first_stage == 1);
  check_transition(&sc, 0, 1, THR_TRANSITION_FIXED, to_a, one, 1);
  check_transition(&sc, 0, 0, THR_TRANSITION_FIXED, to_leave, one, 1);
  check_transition(&sc, 0, 3, THR_TRANSITION_FIXED, NULL, NULL, 0);
  check_transition(&sc, 0, 2, THR_TRANSITION_FIXED, NULL, NULL, 0);
  CHECK(sc.stages[0].distance == 1.0f && sc.stages[1].distance == 2.0f); /* the default, and given */
  /* no walkable area: exits and stages lie in the world; the block goes to the nearest exit */
  CHECK(sc.walkable.n_polys == 0 && sc.n_obstacles == 0 && sc.blocks[0].route_kind == THR_ROUTE_NEAREST_EXIT);
  thr_scenario_free(&sc);
}

/* geometry.walkable_file: relative to the scenario file's directory. */
static int load_with_wkt_file(const char *yaml, const char *wkt, thr_scenario *sc) {
  char wkt_path[192];
  write_scenario(yaml);
  snprintf(wkt_path, sizeof wkt_path, "%s/plan.wkt", g_dir);
  FILE *f = fopen(wkt_path, "w");
  if (!f || fputs(wkt, f) < 0 || fclose(f)) {
    perror(wkt_path);
    exit(1);
  }
  g_err[0] = '\0';
  int rc = thr_config_load(g_path, NULL, 0, sc, g_err, sizeof g_err);
  remove(wkt_path);
  remove_scenario();
  return rc;
}

THR_TEST(walkable_file) {
  thr_scenario sc;
  const char *yaml =
      "geometry: {walkable_file: plan.wkt}\nagents:\n  - {layout: grid, min: [1, 1], max: [3, 3], "
      "rows: 2, cols: 2}\n";
  CHECK(load_with_wkt_file(yaml, "polygon ((0 0, 8 0, 8 6, 0 6, 0 0))\n", &sc) == 0);
  CHECK(sc.walkable.n_polys == 1 && sc.walkable.n_verts == 4 && sc.n_obstacles == 1);
  check_vec(sc.world_max, 9, 7);
  thr_scenario_free(&sc);
  /* a problem in the file: the scenario's line and key, then the file's line and column */
  CHECK(load_with_wkt_file(yaml, "POLYGON ((0 0, 8 0,\n  8 6, 0 6))\n", &sc) == -1);
  char want[512];
  snprintf(want, sizeof want,
           "%s:1:27: geometry.walkable_file: %s/plan.wkt:2:8: the ring is not closed: its last point (0 6) differs "
           "from its first (0 0)",
           g_path, g_dir);
  if (strcmp(g_err, want)) fprintf(stderr, "  expected %s\n  got      %s\n", want, g_err);
  CHECK(!strcmp(g_err, want));
  FAILS("geometry: {walkable_file: nowhere.wkt}\n" AGENTS, ":1:27: geometry.walkable_file: cannot read '");
}

/* ---- layout points and polygon lattices ----------------------------------- */

/* Loads yaml with a file `rel` (relative to the scenario file's directory,
 * in a subdirectory when it has a '/') holding `text`. */
static int load_with_file(const char *yaml, const char *rel, const char *text, thr_scenario *sc) {
  char file[256], sub[256];
  write_scenario(yaml);
  snprintf(file, sizeof file, "%s/%s", g_dir, rel);
  const char *slash = strrchr(rel, '/');
  snprintf(sub, sizeof sub, "%s/%.*s", g_dir, slash ? (int)(slash - rel) : 0, rel);
  if (slash && mkdir(sub, 0700)) perror(sub);
  FILE *f = fopen(file, "wb");
  if (!f || fputs(text, f) < 0 || fclose(f)) {
    perror(file);
    exit(1);
  }
  g_err[0] = '\0';
  int rc = thr_config_load(g_path, NULL, 0, sc, g_err, sizeof g_err);
  remove(file);
  if (slash) rmdir(sub);
  remove_scenario();
  return rc;
}

THR_TEST(layout_points_inline) {
  thr_scenario sc;
  CHECK(load(WORLD "agents:\n"
                   "  - {layout: points, points: [[2, 2], [4, 2.5], [3, -1.25]]}\n"
                   "  - {layout: points, points: [[1, 0]], scale: 2.5, offset: [10, 5], count: 1}\n",
             &sc) == 0);
  CHECK(sc.n_blocks == 2 && sc.n_layout_points == 4);
  const thr_block *b = sc.blocks;
  CHECK(b[0].layout == THR_LAYOUT_POINTS && b[0].points_first == 0 && b[0].n_points == 3 && b[0].count == 0);
  CHECK(b[0].points_scale == 1.0f && b[0].points_offset.x == 0.0f && b[0].points_offset.y == 0.0f);
  CHECK(b[1].points_first == 3 && b[1].n_points == 1 && b[1].count == 1);
  CHECK(b[1].points_scale == 2.5f);
  check_vec(b[1].points_offset, 10, 5);
  /* kept as given: populate applies scale and offset */
  CHECK(sc.layout_points[0].x == 2.0f && sc.layout_points[0].y == 2.0f);
  CHECK(sc.layout_points[1].x == 4.0f && sc.layout_points[1].y == 2.5f);
  CHECK(sc.layout_points[2].x == 3.0f && sc.layout_points[2].y == -1.25f);
  CHECK(sc.layout_points[3].x == 1.0f && sc.layout_points[3].y == 0.0f);
  thr_scenario_free(&sc);
}

THR_TEST(layout_points_file) {
  thr_scenario sc;
  const char *yaml = WORLD "agents:\n  - {layout: points, points_file: shapes/wedge.csv, scale: 2, offset: [10, 10]}\n";
  /* a header, comments, blank lines, spaces and CRLF line ends */
  CHECK(load_with_file(yaml, "shapes/wedge.csv",
                       "# a wedge\r\nx, y\r\n\r\n0,0\r\n -1.5 , -1.5  # left\r\n1.5,-1.5\n  # done\n3/4,1e-1",
                       &sc) == 0);
  CHECK(sc.n_blocks == 1 && sc.n_layout_points == 4 && sc.blocks[0].n_points == 4);
  CHECK(sc.blocks[0].points_scale == 2.0f);
  check_vec(sc.blocks[0].points_offset, 10, 10);
  CHECK(sc.layout_points[0].x == 0.0f && sc.layout_points[0].y == 0.0f);
  CHECK(sc.layout_points[1].x == -1.5f && sc.layout_points[1].y == -1.5f);
  CHECK(sc.layout_points[2].x == 1.5f && sc.layout_points[2].y == -1.5f);
  CHECK(sc.layout_points[3].x == 0.75f && sc.layout_points[3].y == 0.1f);
  thr_scenario_free(&sc);
  /* no header */
  CHECK(load_with_file(yaml, "shapes/wedge.csv", "1,2\n", &sc) == 0);
  CHECK(sc.n_layout_points == 1 && sc.layout_points[0].x == 1.0f && sc.layout_points[0].y == 2.0f);
  thr_scenario_free(&sc);
}

/* A bad points file: the scenario's line and key, then the file's line. */
static void points_file_fails(const char *text, const char *what) {
  thr_scenario sc;
  char want[512];
  const char *yaml = WORLD "agents:\n  - {layout: points, points_file: shapes/p.csv}\n";
  CHECK(load_with_file(yaml, "shapes/p.csv", text, &sc) == -1);
  snprintf(want, sizeof want, "%s:3:35: agents[0].points_file: %s/shapes/p.csv%s", g_path, g_dir, what);
  if (strcmp(g_err, want)) fprintf(stderr, "  expected %s\n  got      %s\n", want, g_err);
  CHECK(!strcmp(g_err, want) && sc.n_blocks == 0 && !sc.layout_points);
}

THR_TEST(layout_points_file_errors) {
  points_file_fails("x,y\n1,2\n\n3,abc\n", ":4: y 'abc' is not a number");
  points_file_fails("1,2\nx,y\n", ":2: x 'x' is not a number");
  points_file_fails("# points\n1,2\n3 4\n", ":3: expected two numbers 'x, y' separated by a comma, got 1 field");
  points_file_fails("1,2,3\n", ":1: expected two numbers 'x, y' separated by a comma, got 3 fields");
  points_file_fails("1,2\n1e39,0\n", ":2: x '1e39' is not a finite number");
  points_file_fails("# nothing\nx,y\n\n", " holds no point (a points file needs at least one line 'x, y')");
  FAILS(WORLD "agents:\n  - {layout: points, points_file: none.csv}\n",
        ":3:35: agents[0].points_file: cannot read '");
  FAILS(WORLD "agents:\n  - {layout: points, points_file: ''}\n", ":3:35: agents[0].points_file: must not be empty");
}

THR_TEST(layout_points_errors) {
  FAILS(WORLD "agents:\n  - {layout: points, points: [[1, 1], [3, 3]], count: 3}\n",
        ":3:55: agents[0].count: count 3 does not match the 2 points that points gives (leave count out, or "
        "give 2)");
  char yaml[256];
  snprintf(yaml, sizeof yaml, "%s", WORLD "agents:\n  - {layout: points, points_file: p.csv, count: 1}\n");
  thr_scenario sc;
  CHECK(load_with_file(yaml, "p.csv", "1,1\n3,3\n", &sc) == -1);
  CHECK(strstr(g_err, ":3:49: agents[0].count: count 1 does not match the 2 points that points_file gives") != NULL);
  FAILS(WORLD "agents:\n  - {layout: points}\n", ":3:5: agents[0]: needs one of points, points_file");
  FAILS(WORLD "agents:\n  - {layout: points, points: [[1, 1]], points_file: a.csv}\n",
        ":3:40: agents[0]: 'points' and 'points_file' cannot be combined; give exactly one of points, points_file");
  FAILS(WORLD "agents:\n  - {layout: points, points: []}\n",
        ":3:30: agents[0].points: expected a list of at least 1 point [[x, y], ...], got a list of 0 items");
  FAILS(WORLD "agents:\n  - {layout: points, points: [[1, 1], [1, x]]}\n",
        ":3:43: agents[0].points[1][1]: expected a number, got \"x\"");
  FAILS(WORLD "agents:\n  - {layout: points, points: [[1, 1]], scale: 0}\n",
        ":3:47: agents[0].scale: expected a number > 0, got \"0\"");
  FAILS(WORLD "agents:\n  - {layout: points, points: [[1, 1]], offset: 3}\n",
        ":3:48: agents[0].offset: expected a point [x, y], got \"3\"");
  FAILS(WORLD "agents:\n  - " GRID ", scale: 2}\n",
        ":3:64: agents[0]: key 'scale' does not apply to layout 'grid' (grid blocks take min, max, rows, cols, "
        "spacing, count)");
  FAILS(WORLD "agents:\n  - {layout: points, points: [[1, 1]], spacing: 1}\n",
        ":3:40: agents[0]: key 'spacing' does not apply to layout 'points' (points blocks take points, points_file, "
        "scale, offset, count)");
}

THR_TEST(polygon_spacing_keys) {
  thr_scenario sc;
  CHECK(load(WORLD "agents:\n"
                   "  - {layout: polygon, polygon: [[0, 0], [4, 0], [0, 4]], spacing: 1}\n"
                   "  - {layout: polygon, polygon: [[0, 0], [4, 0], [0, 4]], spacing: [1.5, 2], count: 2}\n",
             &sc) == 0);
  const thr_block *b = sc.blocks;
  CHECK(b[0].layout == THR_LAYOUT_POLYGON && b[0].spacing_x == 1.0f && b[0].spacing_y == 1.0f && b[0].count == 0);
  CHECK(b[1].spacing_x == 1.5f && b[1].spacing_y == 2.0f && b[1].count == 2 && b[1].region == 1);
  thr_scenario_free(&sc);
  FAILS(WORLD "agents:\n  - {layout: polygon, polygon: [[0, 0], [4, 0], [0, 4]], spacing: 1, density: 2}\n",
        ":3:70: agents[0]: density does not apply with spacing (the lattice decides how many agents fit); give "
        "spacing (and count, to take the first count lattice points) or density");
  FAILS(WORLD "agents:\n  - {layout: polygon, polygon: [[0, 0], [4, 0], [0, 4]], spacing: 0}\n",
        ":3:67: agents[0].spacing: expected a number > 0, got \"0\"");
}

THR_TEST(walkable_wkt_errors) {
  const char *agents = "agents:\n  - {layout: grid, min: [1, 1], max: [3, 3], rows: 2, cols: 2}\n";
  char yaml[512];
#define WKT_FAILS(wkt, want)                                                       \
  do {                                                                             \
    snprintf(yaml, sizeof yaml, "geometry:\n  walkable: \"%s\"\n%s", wkt, agents); \
    FAILS(yaml, want);                                                             \
  } while (0)
#define AT ":2:13: geometry.walkable: at character "
  WKT_FAILS("POLYGON ((0 0, 8 0, 8 6 0 6, 0 0))",
            AT "25 of the WKT: a point has two coordinates (x y); Z and M values are not supported");
  WKT_FAILS("POLYGON ((0 0, 8 0, 8 6, 0 6))",
            AT "26 of the WKT: the ring is not closed: its last point (0 6) differs from its first (0 0)");
  WKT_FAILS("POLYGON Z ((0 0 0, 8 0 0, 8 6 0, 0 0 0))", AT "9 of the WKT: Z and M coordinates are not supported");
  WKT_FAILS("POLYGON EMPTY", AT "9 of the WKT: an EMPTY geometry holds no walkable area");
  WKT_FAILS("LINESTRING (0 0, 1 1)", AT "1 of the WKT: expected POLYGON or MULTIPOLYGON, got 'LINESTRING'");
  WKT_FAILS("POLYGON ((0 0, 8 0, 8 6, 0 6, 0 0)) x", AT "37 of the WKT: unexpected text after the geometry: 'x'");
  WKT_FAILS("POLYGON ((0 0, 8 6, 8 0, 0 6, 0 0))",
            AT "21 of the WKT: the outer ring of polygon 1 intersects itself at (4 3)");
  WKT_FAILS("POLYGON ((0 0, 8 0, 8 6, 0 6, 0 0), (10 10, 11 10, 11 11, 10 10))",
            AT "38 of the WKT: hole 1 of polygon 1 is not inside its polygon's outer ring: (10 10) lies outside it");
  WKT_FAILS("POLYGON ((0 0, 8 0, 8 6, 0 6, 0 0), (1 1, 3 1, 3 3, 1 1), (2 1.5, 4 1.5, 4 2, 2 1.5))",
            AT "60 of the WKT: hole 2 of polygon 1 overlaps hole 1 of polygon 1 at (3 1.5)");
  WKT_FAILS("MULTIPOLYGON (((0 0, 8 0, 8 6, 0 6, 0 0)), ((4 4, 9 4, 9 9, 4 4)))",
            AT "46 of the WKT: polygons of a MULTIPOLYGON must not overlap: the outer ring of polygon 2 meets the "
               "outer ring of polygon 1 at (8 4)");
  WKT_FAILS("POLYGON ((0 0, 8 0, 16 0, 0 0))", AT "10 of the WKT: the outer ring of polygon 1 has zero area");
  WKT_FAILS("POLYGON ((0 0, 8 0, 0 0))",
            AT "10 of the WKT: the outer ring of polygon 1 has fewer than 3 distinct points");
#undef AT
#undef WKT_FAILS
}

THR_TEST(world_and_walkable_area) {
  const char *agents = "agents:\n  - {layout: grid, min: [1, 1], max: [3, 3], rows: 2, cols: 2}\n";
  char yaml[512];
  snprintf(yaml, sizeof yaml,
           "world: {min: [0, 0], max: [5, 5]}\ngeometry: {walkable: 'POLYGON ((0 0, 8 0, 8 6, 0 6, "
           "0 0))'}\n%s",
           agents);
  FAILS(yaml, ":1:8: world: the walkable area (line 2) reaches [8, 0], outside the world [0, 5] x [0, 5]");
  FAILS(agents,
        ":1:1: missing required key 'world' (a map {min: [x, y], max: [x, y]}), or the walkable area under "
        "'geometry'");
  FAILS(WORLD "geometry: {walkable: 'POLYGON ((0 0, 1 0, 1 1, 0 0))', walkable_file: a.wkt}\n" AGENTS,
        ":2:56: geometry: 'walkable' and 'walkable_file' cannot be combined; give exactly one of walkable, "
        "walkable_file");
  thr_scenario sc;
  snprintf(yaml, sizeof yaml,
           "world: {min: [-2, -2], max: [9, 9]}\ngeometry: {walkable: 'POLYGON ((0 0, 8 0, 8 6, "
           "0 6, 0 0))'}\n%s",
           agents);
  CHECK(load(yaml, &sc) == 0);
  check_vec(sc.world_min, -2, -2);
  thr_scenario_free(&sc);
}

/* A hall 20 x 10 m with a pillar at (8..10, 4..6), for the cases below. */
#define HALL "geometry: {walkable: 'POLYGON ((0 0, 20 0, 20 10, 0 10, 0 0), (8 4, 10 4, 10 6, 8 6, 8 4))'}\n"
#define HALL_AGENTS "agents:\n  - {layout: grid, min: [1, 1], max: [3, 3], rows: 2, cols: 2}\n"

THR_TEST(exit_errors) {
  FAILS(HALL "exits:\n  - {name: e, segment: [[19, 4], [20, 6]]}\n" HALL_AGENTS,
        ":3:24: exits[0].segment: [19, 4] to [20, 6] is not on the boundary of the walkable area (both ends must lie "
        "within 0.001 m of one of its edges)");
  FAILS(HALL "exits:\n  - {name: e, polygon: [[19, 4], [21, 4], [21, 6], [19, 6]]}\n" HALL_AGENTS,
        ":3:24: exits[0].polygon: the exit leaves the walkable area near [21, 4]");
  FAILS(HALL "exits:\n  - {name: e, segment: [[20, 4], [20, 6]], depth: 11}\n" HALL_AGENTS,
        ":3:51: exits[0].depth: the exit's strip leaves the walkable area near [9, 5]");
  FAILS(HALL "exits:\n  - {name: e, polygon: [[18, 4], [20, 4], [20, 6], [18, 6]], depth: 1}\n" HALL_AGENTS,
        ":3:62: exits[0]: key 'depth' goes with segment, not with polygon");
  FAILS(HALL "exits:\n  - {name: nearest, segment: [[20, 4], [20, 6]]}\n" HALL_AGENTS,
        ":3:12: exits[0].name: 'nearest' is not an exit name (agents[].exit: nearest means the closest exit)");
  FAILS(HALL
        "exits:\n  - {name: e, segment: [[20, 4], [20, 6]]}\n  - {name: e, segment: [[0, 4], [0, 6]]}\n" HALL_AGENTS,
        ":4:12: exits[1].name: duplicate exit name 'e' (first at line 3)");
  FAILS(HALL "exits:\n  - {name: e, polygon: [[18, 4], [20, 6], [20, 4], [18, 6]]}\n" HALL_AGENTS,
        ":3:43: exits[0].polygon[2]: the polygon intersects itself: the edge from point 0 to point 1 meets the edge "
        "from point 2 to point 3 at [19, 5]");
  FAILS(HALL "exits:\n  - {name: e}\n" HALL_AGENTS, ":3:5: exits[0]: needs one of polygon, segment");
  /* an exit on the pillar's side: the strip lies outside the pillar */
  thr_scenario sc;
  CHECK(load(HALL "exits:\n  - {name: e, segment: [[10, 4.5], [10, 5.5]], depth: 0.25}\n" HALL_AGENTS, &sc) == 0);
  static const float strip[] = {10, 4.5f, 10, 5.5f, 10.25f, 5.5f, 10.25f, 4.5f};
  check_ring(&sc.exit_shapes, 0, strip, 4);
  thr_scenario_free(&sc);
}

THR_TEST(stage_and_journey_errors) {
  const char *exits = "exits:\n  - {name: out, segment: [[20, 4], [20, 6]]}\n";
  char yaml[1024];
#define STAGES_FAIL(stages, want)                                        \
  do {                                                                   \
    snprintf(yaml, sizeof yaml, HALL "%s%s" HALL_AGENTS, exits, stages); \
    FAILS(yaml, want);                                                   \
  } while (0)
  STAGES_FAIL("stages:\n  - {name: a, waypoint: [9, 5]}\n",
              ":5:25: stages[0].waypoint: [9, 5] is not inside the walkable area");
  STAGES_FAIL("stages:\n  - {name: q, queue: [[1, 1], [25, 1]], service: 1}\n",
              ":5:31: stages[0].queue[1]: [25, 1] is not inside the walkable area");
  STAGES_FAIL("stages:\n  - {name: q, queue: [[1, 1]]}\n", ":5:5: stages[0]: missing required key 'service'");
  STAGES_FAIL("stages:\n  - {name: w, waiting: [[1, 1]]}\n",
              ":5:5: stages[0]: a waiting stage needs until or duration");
  STAGES_FAIL("stages:\n  - {name: w, waiting: [[1, 1]], until: 5, duration: 3}\n",
              ":5:44: stages[0]: give until or duration, not both");
  STAGES_FAIL("stages:\n  - {name: a, waypoint: [1, 1], service: 3}\n",
              ":5:33: stages[0]: key 'service' goes with queue, not with waypoint");
  STAGES_FAIL("stages:\n  - {name: x, exit: door}\n",
              ":5:21: stages[0].exit: unknown exit 'door' (exits defined: out)");
  STAGES_FAIL("stages:\n  - {name: a, waypoint: [1, 1]}\njourneys:\n  - {name: j, stages: [a, b]}\n",
              ":7:27: journeys[0].stages[1]: unknown stage 'b' (stages defined: a)");
  STAGES_FAIL("stages:\n  - {name: o, exit: out}\n  - {name: a, waypoint: [1, 1]}\n"
              "journeys:\n  - {name: j, stages: [o, a]}\n",
              ":8:24: journeys[0].stages[0]: stage 'o' is an exit: agents leave there, so it can only end the list");
  STAGES_FAIL("stages:\n  - {name: a, waypoint: [1, 1]}\njourneys:\n  - {name: j, stages: [a, a]}\n",
              ":7:27: journeys[0].stages[1]: stage 'a' is already in the list");
  STAGES_FAIL(
      "stages:\n  - {name: a, waypoint: [1, 1]}\n  - {name: b, waypoint: [2, 1]}\n  - {name: o, exit: out}\n"
      "journeys:\n  - name: j\n    stages: [a, o]\n    transitions:\n      - {from: b, to: o}\n",
      ":12:16: journeys[0].transitions[0].from: stage 'b' is not a stage of this journey (listed under "
      "stages, or a transition's target)");
  STAGES_FAIL(
      "stages:\n  - {name: a, waypoint: [1, 1]}\n  - {name: o, exit: out}\n"
      "journeys:\n  - name: j\n    stages: [a, o]\n    transitions:\n      - {from: o, to: a}\n",
      ":11:16: journeys[0].transitions[0].from: stage 'o' is an exit: agents leave there, and no transition "
      "follows");
  STAGES_FAIL(
      "stages:\n  - {name: a, waypoint: [1, 1]}\n  - {name: o, exit: out}\n"
      "journeys:\n  - name: j\n    stages: [a, o]\n    transitions:\n      - {from: a, to: o}\n"
      "      - {from: a, round_robin: {o: 1}}\n",
      ":12:16: journeys[0].transitions[1].from: a second transition from 'a' (the first at line 11)");
  STAGES_FAIL(
      "stages:\n  - {name: a, waypoint: [1, 1]}\n  - {name: o, exit: out}\n"
      "journeys:\n  - name: j\n    stages: [a, o]\n    transitions:\n      - {from: a, round_robin: {o: 0}}\n",
      ":11:36: journeys[0].transitions[0].round_robin.o: expected an integer > 0, got \"0\"");
  STAGES_FAIL(
      "stages:\n  - {name: a, waypoint: [1, 1]}\n  - {name: o, exit: out}\n"
      "journeys:\n  - name: j\n    stages: [a, o]\n    transitions:\n      - {from: a, round_robin: {p: 1}}\n",
      ":11:33: journeys[0].transitions[0].round_robin: unknown stage 'p' (stages defined: a, o)");
  STAGES_FAIL(
      "stages:\n  - {name: a, waypoint: [1, 1]}\n  - {name: o, exit: out}\n"
      "journeys:\n  - name: j\n    stages: [a, o]\n    transitions:\n      - {from: a, to: o, "
      "least_targeted: [o]}\n",
      ":11:26: journeys[0].transitions[0]: 'to' and 'least_targeted' cannot be combined; give exactly one of "
      "to, round_robin, least_targeted");
#undef STAGES_FAIL
}

THR_TEST(block_evacuation_keys) {
  const char *exits = "exits:\n  - {name: out, segment: [[20, 4], [20, 6]]}\n";
  char yaml[1024];
#define BLOCK_FAILS(block, want)                                           \
  do {                                                                     \
    snprintf(yaml, sizeof yaml, HALL "%sagents:\n  - %s\n", exits, block); \
    FAILS(yaml, want);                                                     \
  } while (0)
  BLOCK_FAILS("{layout: polygon, polygon: [[1, 1], [9, 1], [9, 9], [1, 9]], count: 5}",
              ":5:32: agents[0].polygon: the spawn region leaves the walkable area near [9, 5]");
  BLOCK_FAILS("{layout: polygon, polygon: [[1, 1], [4, 1], [4, 4]]}",
              ":5:5: agents[0]: layout 'polygon' needs count, density or spacing");
  BLOCK_FAILS("{layout: polygon, polygon: [[1, 1], [4, 1], [4, 4]], count: 3, density: 1}",
              ":5:68: agents[0]: give count or density, not both");
  BLOCK_FAILS("{layout: polygon, count: 3}", ":5:5: agents[0]: missing required key 'polygon'");
  BLOCK_FAILS("{layout: polygon, polygon: [[1, 1], [4, 1], [4, 4]], count: 3, rows: 2}",
              ":5:68: agents[0]: key 'rows' does not apply to layout 'polygon' (polygon blocks take polygon, spacing, "
              "count, density)");
  BLOCK_FAILS(GRID ", exit: door}", ":5:70: agents[0].exit: unknown exit 'door' (exits defined: out)");
  BLOCK_FAILS(GRID ", journey: j}",
              ":5:73: agents[0].journey: unknown journey 'j' (no journeys are defined; add them under 'journeys')");
  BLOCK_FAILS(GRID ", exit: out, journey: j}",
              ":5:75: agents[0]: 'exit' and 'journey' cannot be combined; give at most one of goal, exit, journey");
  BLOCK_FAILS(GRID ", speed: {mean: 1.3, sd: 0.2, min: 0.5}}",
              ":5:71: agents[0].speed: missing required key 'max' "
              "(the normal form {mean, sd, min, max})");
  BLOCK_FAILS(GRID ", speed: {mean: 3, sd: 0.2, min: 0.5, max: 2}}",
              ":5:78: agents[0].speed.mean: must lie in [min, max] = [0.5, 2], got 3");
  BLOCK_FAILS(GRID ", speed: {mean: 1, spread: 0.1, sd: 0.2, min: 0.5, max: 2}}",
              ":5:81: agents[0].speed: 'spread' does not go with the normal form: {mean, spread} is uniform, "
              "{mean, sd, min, max} normal");
  BLOCK_FAILS(GRID ", speed: {rimea: over_50, mean: 1}}",
              ":5:88: agents[0].speed: 'rimea' stands alone: {rimea: GROUP} sets the whole range");
  BLOCK_FAILS(GRID ", speed: {rimea: young}}",
              ":5:79: agents[0].speed.rimea: expected one of under_30, 30_to_50, over_50, impaired, got \"young\"");
  BLOCK_FAILS(GRID ", agent_radius: {mean: 0.2, sd: -1, min: 0.1, max: 0.3}}",
              ":5:94: agents[0].agent_radius.sd: expected a number >= 0, got \"-1\"");
  BLOCK_FAILS(GRID ", agent_radius: {mean: 0.2, sd: 0.1, min: 0, max: 0.3}}",
              ":5:104: agents[0].agent_radius.min: expected a number > 0, got \"0\"");
  BLOCK_FAILS(GRID ", premovement: {min: 10, max: 5}}",
              ":5:92: agents[0].premovement.max: must be >= agents[0].premovement.min (10), got 5");
  BLOCK_FAILS(GRID ", premovement: -1}", ":5:77: agents[0].premovement: expected a number >= 0, got \"-1\"");
#undef BLOCK_FAILS
  FAILS(WORLD "agents:\n  - " GRID ", exit: nearest}\n",
        ":3:70: agents[0].exit: there is no exit to be nearest (add exits under 'exits')");
}

THR_TEST(source_errors) {
  const char *exits = "exits:\n  - {name: out, segment: [[20, 4], [20, 6]]}\n";
  char yaml[1024];
#define SOURCE_FAILS(source, want)                                                          \
  do {                                                                                      \
    snprintf(yaml, sizeof yaml, HALL "%s" HALL_AGENTS "sources:\n  - %s\n", exits, source); \
    FAILS(yaml, want);                                                                      \
  } while (0)
  SOURCE_FAILS("{name: s, polygon: [[18, 1], [22, 1], [22, 3]], rate: 1}",
               ":7:24: sources[0].polygon: the source's region leaves the walkable area near [22, 1]");
  SOURCE_FAILS("{name: s, polygon: [[1, 1], [2, 1], [2, 2]], rate: 0}",
               ":7:56: sources[0].rate: expected a number > 0, got \"0\"");
  SOURCE_FAILS("{name: s, polygon: [[1, 1], [2, 1], [2, 2]], rate: 1, start: 10, stop: 5}",
               ":7:76: sources[0].stop: must not be before sources[0].start (10), got 5");
  SOURCE_FAILS("{name: s, polygon: [[1, 1], [2, 1], [2, 2]], rate: 1, agents: {layout: grid}}",
               ":7:68: sources[0].agents: unknown key 'layout' (known keys here: speed, agent_radius, mass, agility, group, "
               "goal, altitude, premovement, exit, journey)");
  SOURCE_FAILS("{name: s, polygon: [[1, 1], [2, 1], [2, 2]], rate: 1, agents: {speed: {mean: 1, sd: 1}}}",
               ":7:75: sources[0].agents.speed: missing required key 'min' (the normal form {mean, sd, min, max})");
  SOURCE_FAILS("{name: s, polygon: [[1, 1], [2, 1], [2, 2]]}", ":7:5: sources[0]: missing required key 'rate'");
#undef SOURCE_FAILS
  thr_scenario sc;
  snprintf(yaml, sizeof yaml,
           HALL "%s" HALL_AGENTS
                "sources:\n  - {name: s, polygon: [[1, 1], [2, 1], [2, 2]], rate: "
                "1.5}\n",
           exits);
  CHECK(load(yaml, &sc) == 0);
  const thr_block *b = &sc.blocks[1];
  CHECK(sc.n_blocks == 2 && b->source == 1 && !strcmp(b->name, "s") && b->group == 1);
  CHECK(b->route_kind == THR_ROUTE_NEAREST_EXIT && b->premove.kind == THR_DIST_NONE);
  CHECK(sc.sources[0].stop < 0 && sc.sources[0].count == 0 && sc.sources[0].start == 0.0f);
  thr_scenario_free(&sc);
}

THR_TEST(measurement_keys) {
  FAILS(WORLD
        "measurement: {areas: [{name: a, polygon: [[0, 0], [1, 0], [1, 1]]}, {name: a, polygon: [[0, 0], "
        "[1, 0], [1, 1]]}]}\n" AGENTS,
        ":2:76: measurement.areas[1].name: duplicate area name 'a' (first at line 2)");
  FAILS(WORLD "measurement: {lines: [{name: l, segment: [[0, 0]]}]}\n" AGENTS,
        ":2:42: measurement.lines[0].segment: expected a list of 2 points [[x1, y1], [x2, y2]], got a list of 1 item");
  FAILS(WORLD "measurement: {maps: {cell: 0}}\n" AGENTS,
        ":2:28: measurement.maps.cell: expected a number > 0, got \"0\"");
  FAILS(WORLD "measurement: {maps: 3}\n" AGENTS, ":2:21: measurement.maps: expected a map with keys cell, every, threshold");
  thr_scenario sc;
  CHECK(load(WORLD AGENTS, &sc) == 0);
  CHECK(sc.map_cell == 1.0f && sc.map_every == 0 && sc.n_lines == 0 && sc.areas.n_polys == 0);
  CHECK_NEAR(sc.route_cell, 0.2, TOL);
  thr_scenario_free(&sc);
}

/* catalyst: scripts beside the scenario file become absolute paths; the
 * default cadence; missing files, wrong types and too many scripts fail
 * with file, line and key. */
THR_TEST(catalyst_scripts_and_cadence) {
  thr_scenario sc;
  write_scenario(WORLD AGENTS "catalyst: {every: 12, scripts: [a.py, b.py]}\n");
  char a[160], b[160];
  snprintf(a, sizeof a, "%s/a.py", g_dir);
  snprintf(b, sizeof b, "%s/b.py", g_dir);
  FILE *fa = fopen(a, "w"), *fb = fopen(b, "w");
  CHECK(fa && fb);
  if (fa) fclose(fa);
  if (fb) fclose(fb);
  CHECK(thr_config_load(g_path, NULL, 0, &sc, g_err, sizeof g_err) == 0);
  CHECK(sc.n_catalyst_scripts == 2 && sc.catalyst_every == 12);
  char *ra = realpath(a, NULL);
  CHECK(ra && !strcmp(sc.catalyst_scripts[0], ra));
  CHECK(sc.catalyst_scripts[1][0] == '/' && strstr(sc.catalyst_scripts[1], "/b.py"));
  free(ra);
  thr_scenario_free(&sc);
  remove(a);
  remove(b);
  remove_scenario();

  CHECK(load(WORLD AGENTS, &sc) == 0);
  CHECK(sc.n_catalyst_scripts == 0 && sc.catalyst_every == 48);
  thr_scenario_free(&sc);

  FAILS(WORLD AGENTS "catalyst:\n  scripts: [missing.py]\n",
        ":5:13: catalyst.scripts[0]: cannot read the Catalyst script '");
  FAILS(WORLD AGENTS "catalyst: {scripts: x.py}\n",
        ":4:21: catalyst.scripts: expected a list of Catalyst Python scripts");
  FAILS(WORLD AGENTS "catalyst: {scripts: [a, b, c, d, e, f, g, h, i]}\n",
        ":4:21: catalyst.scripts: at most 8 scripts");
  FAILS(WORLD AGENTS "catalyst: {every: 0}\n", ":4:19: catalyst.every: expected");
  FAILS(WORLD AGENTS "catalyst: {cadence: 3}\n", ":4:12: catalyst: unknown key 'cadence'");
}
