/* Buildings (base/floors.c, kernels/evac_agent.h; docs/floors.md): the
 * seams between floors' places, the stairs' speeds, where a point inside
 * lies in the building, the walls left open at a stair's top, and what the
 * loader derives (each floor's shift, SFPE's stair speeds). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/floors.h"
#include "base/world.h"
#include "check.h"
#include "io/config.h"
#include "kernels/evac_agent.h"

/* Two floors 3 m apart joined by one stair (x 20-26 going east, y 0-2), the
 * door downstairs; the upper floor x 26-40. */
static const char *TWO =
    "floors:\n"
    "  - {name: ground, elevation: 0, walkable: 'POLYGON ((0 0, 26 0, 26 2, 20 2, 20 10, 0 10, 0 0))'}\n"
    "  - {name: first, elevation: 3, walkable: 'POLYGON ((26 0, 40 0, 40 10, 26 10, 26 0))'}\n"
    "stairs:\n"
    "  - {name: s, from: ground, to: first, polygon: [[20, 0], [26, 0], [26, 2], [20, 2]],\n"
    "     bottom: [[20, 0], [20, 2]], top: [[26, 0], [26, 2]]}\n"
    "speed_zones:\n"
    "  - {name: slow, floor: first, polygon: [[30, 4], [34, 4], [34, 8], [30, 8]], factor: 0.5}\n"
    "exits:\n"
    "  - {name: door, segment: [[0, 4], [0, 6]]}\n"
    "agents:\n"
    "  - {floor: first, layout: grid, min: [30, 2], max: [32, 4], rows: 2, cols: 2, exit: door}\n";

static int load(const char *yaml, thr_scenario *sc) {
  char dir[] = "/tmp/thr_floors_XXXXXX", path[64], err[512] = "";
  if (!mkdtemp(dir)) return -1;
  snprintf(path, sizeof path, "%s/b.yaml", dir);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs(yaml, f);
  fclose(f);
  int rc = thr_config_load(path, NULL, 0, sc, err, sizeof err);
  if (rc) fprintf(stderr, "%s\n", err);
  remove(path);
  rmdir(dir);
  return rc;
}

/* The loader: floors side by side (the first in place), shifts whole
 * routing cells; SFPE's speeds for the default 178/279 mm stair. */
THR_TEST(floors_are_laid_side_by_side) {
  thr_scenario sc;
  CHECK(load(TWO, &sc) == 0);
  CHECK(sc.n_floors == 2 && sc.n_stairs == 1 && sc.n_zones == 1);
  CHECK(sc.floors[0].shift == 0.0f);
  /* 40 m wide + 10 m apart, in whole 0.2 m cells */
  CHECK_NEAR(sc.floors[1].shift, 50.0f, 1e-4f);
  /* k = 1.08 at slope 178/279: 0.856 x 1.08 x cos(atan(0.638)) / 1.34 */
  double slope = 0.178 / 0.279, down = 0.856 * 1.08 * cos(atan(slope)) / 1.34;
  CHECK_NEAR(sc.stairs[0].factor_down, (float)down, 1e-4f);
  CHECK_NEAR(sc.stairs[0].factor_up, (float)(0.85 * down), 1e-4f);
  CHECK_NEAR(sc.stairs[0].factor_down * 1.34f, 0.779f, 0.002f); /* m/s: in Fruin's 0.6-0.8 down */
  CHECK_NEAR(sc.stairs[0].factor_up * 1.34f, 0.662f, 0.002f);   /* and 0.5-0.7 up */
  /* the block upstairs stands in the upper floor's place */
  CHECK_NEAR(sc.blocks[0].min.x, 80.0f, 1e-4f);
  /* the walls: the stair's top is open in both places (no wall crosses x = 26 or 76 for 0 < y < 2) */
  for (int o = 0; o < sc.n_obstacles; ++o)
    for (int v = sc.obs_vfirst[o]; v + 1 < sc.obs_vfirst[o + 1]; ++v) {
      thr_vec2 a = sc.verts[v], b = sc.verts[v + 1];
      for (int k = 0; k < 2; ++k) {
        float x = k ? 76.0f : 26.0f;
        CHECK(!thr_path_crosses_wall(v2(x - 0.1f, 1.0f), v2(x + 0.1f, 1.0f), a, b, 1));
      }
    }
  thr_scenario_free(&sc);
}

/* Seams and zones as the world holds them, and what the kernels make of
 * them: an agent just beyond a seam moves to the other floor's place; the
 * stair's speed depends on the way the agent heads. */
THR_TEST(seams_move_agents_and_stairs_slow_them) {
  thr_scenario sc;
  thr_world w;
  thr_params prm;
  char err[256];
  CHECK(load(TWO, &sc) == 0);
  prm = sc.prm;
  CHECK(thr_world_init(&w, &sc, &prm, 0.25f, err, sizeof err) == 0);
  CHECK(w.n_seams == 2 && w.n_zones == 2);
  thr_evac_view e;
  memset(&e, 0, sizeof e);
  e.n_seams = w.n_seams, e.seams = w.seams, e.n_zones = w.n_zones, e.zones = w.zones, e.zone_verts = w.zone_verts;
  /* off the stair's top (x 26) going up: into the upper floor's place, 50 m on */
  thr_vec2 p = thr_evac_through_seams(&e, v2(26.2f, 1.0f));
  CHECK_NEAR(p.x, 76.2f, 1e-5f);
  CHECK(p.y == 1.0f);
  CHECK(thr_evac_through_seams(&e, v2(25.9f, 1.0f)).x == 25.9f);  /* still on the stair */
  CHECK(thr_evac_through_seams(&e, v2(26.7f, 1.0f)).x == 26.7f);  /* deeper than THR_SEAM_DEPTH: not a step's end */
  CHECK(thr_evac_through_seams(&e, v2(26.2f, 2.5f)).x == 26.2f);  /* beside the opening */
  /* from the upper floor down into the stair's top */
  p = thr_evac_through_seams(&e, v2(75.8f, 0.5f));
  CHECK_NEAR(p.x, 25.8f, 1e-5f);
  CHECK(p.y == 0.5f);
  CHECK(thr_evac_through_seams(&e, v2(76.1f, 0.5f)).x == 76.1f);
  /* on the stair: up (east) the up factor, down the down factor; off it 1; the speed zone upstairs */
  CHECK(thr_evac_zone_factor(&e, v2(23.0f, 1.0f), v2(1.0f, 0.0f)) == sc.stairs[0].factor_up);
  CHECK(thr_evac_zone_factor(&e, v2(23.0f, 1.0f), v2(-1.0f, 0.2f)) == sc.stairs[0].factor_down);
  CHECK(thr_evac_zone_factor(&e, v2(10.0f, 1.0f), v2(1.0f, 0.0f)) == 1.0f);
  CHECK(thr_evac_zone_factor(&e, v2(82.0f, 6.0f), v2(0.0f, 1.0f)) == 0.5f);
  CHECK(thr_evac_zone_factor(&e, v2(32.0f, 6.0f), v2(0.0f, 1.0f)) == 1.0f); /* that place is the ground floor's */
  thr_world_free(&w);
  thr_scenario_free(&sc);
}

/* Where a point inside lies in the building: the floor's own coordinates
 * and the elevation, interpolated along the stair. */
THR_TEST(building_points_and_elevations) {
  thr_scenario sc;
  CHECK(load(TWO, &sc) == 0);
  float z;
  thr_vec2 p = thr_building_point(&sc, v2(10.0f, 5.0f), &z);
  CHECK(p.x == 10.0f && p.y == 5.0f && z == 0.0f);
  p = thr_building_point(&sc, v2(85.0f, 5.0f), &z);
  CHECK(p.x == 35.0f && z == 3.0f && thr_floor_at(&sc, v2(85.0f, 5.0f)) == 1);
  p = thr_building_point(&sc, v2(23.0f, 1.0f), &z); /* half way up */
  CHECK(p.x == 23.0f);
  CHECK_NEAR(z, 1.5f, 1e-5f);
  thr_building_point(&sc, v2(20.0f, 1.0f), &z);
  CHECK_NEAR(z, 0.0f, 1e-6f);
  thr_building_point(&sc, v2(25.9f, 1.0f), &z);
  CHECK_NEAR(z, 2.95f, 1e-4f);
  /* each floor's walkable area back in its own coordinates */
  thr_polyset ps;
  CHECK(thr_floor_walkable(&sc, 1, &ps) == 0);
  CHECK(ps.n_polys == 1 && ps.n_verts == 4 && ps.verts[0].x == 26.0f);
  thr_polyset_free(&ps);
  thr_scenario_free(&sc);
}
