/* Unit tests of the scenario parser (io/config.c, io/yamltree.c): defaults,
 * every documented key landing in its field, --set overrides, and the exact
 * error messages (FILE:LINE:COL: KEY: what is wrong) for bad input. Each case
 * writes its YAML to a fresh file under /tmp. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "io/config.h"

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
  FAILS_SET(base, "solvr.iterations=3",
            "--set solvr.iterations=3: unknown key 'solvr' (known keys here: name, description, seed, world, time, "
            "solver, model, contact, long_range, avoidance, walls, xsph, neighbors, decomposition, goals, obstacles, "
            "agents, "
            "output); did you mean 'solver'?");
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
        ":2:1: unknown key 'solvr' (known keys here: name, description, seed, world, time, solver, model, contact, "
        "long_range, avoidance, walls, xsph, neighbors, decomposition, goals, obstacles, agents, output); did you "
        "mean 'solver'?");
  FAILS(WORLD "solver: {iteratons: 3}\n" AGENTS,
        ":2:10: solver: unknown key 'iteratons' (known keys here: stability_iterations, iterations, omega); "
        "did you mean 'iterations'?");
  FAILS("world: {min: [0, 0], max: [1, 1], mid: 3}\n" AGENTS,
        ":1:35: world: unknown key 'mid' (known keys here: min, max)");
  FAILS(WORLD "output: {directory: x}\n" AGENTS,
        ":2:10: output: unknown key 'directory' (known keys here: dir, trajectory_every, metrics_every)");
  FAILS(WORLD "zzz: 1\n" AGENTS, ":2:1: unknown key 'zzz' (known keys here: name,");
}

THR_TEST(unknown_keys_nested) {
  FAILS(WORLD "agents:\n  - " GRID ", sped: 1}\n",
        ":3:64: agents[0]: unknown key 'sped' (known keys here: name, layout, min, max, center, radius, semi_axes, "
        "rows, cols, spacing, count, jitter, speed, agent_radius, mass, group, goal); did you mean 'speed'?");
  FAILS(WORLD "goals:\n  - {name: a, pont: [1, 2]}\n" AGENTS,
        ":3:15: goals[0]: unknown key 'pont' (known keys here: name, point, rect, disk); did you mean 'point'?");
  FAILS(WORLD "obstacles:\n  - segmnt: [[0, 0], [1, 1]]\n" AGENTS,
        ":3:5: obstacles[0]: unknown key 'segmnt' (known keys here: segment, polyline, polygon, rect)");
  FAILS(WORLD "agents:\n  - " GRID ", speed: {mean: 1, sprd: 0}}\n",
        ":3:81: agents[0].speed: unknown key 'sprd' (known keys here: mean, spread)");
  FAILS(WORLD "agents:\n  - " GRID ", goal: {pointt: [1, 2]}}\n",
        ":3:71: agents[0].goal: unknown key 'pointt' (known keys here: point, offset, antipodal, jitter)");
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
        ":3:5: agents[0]: missing required key 'layout' (one of grid, random, disk, ellipse, circle)");
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
        ":3:14: agents[0].layout: expected one of grid, random, disk, ellipse, circle, got \"grd\"");
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
  CHECK(!strcmp(g_err, "/tmp: cannot read the scenario file: Is a directory"));
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
