/* libFuzzer target: a scenario that loads (fuzz_input.h) is then laid out
 * as `throng run` does: the world and its grid (thr_world_init), the agent
 * count (thr_scenario_count) and the agents (thr_populate). Finds crashes,
 * leaks, undefined behaviour and hangs in placement, and a count that
 * disagrees with the agents created.
 *
 * Every input that loads is sized (thr_scenario_count refuses absurd
 * sizes by itself, in bounded time, with a message); only those that stay
 * within the limits below are laid out, so that executions stay fast. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/agents.h"
#include "base/world.h"
#include "core/populate.h"
#include "fuzz_input.h"

#define MAX_POINTS 2.0e4 /* lattice points or random agents, all blocks together */
#define MAX_CELLS 1.0e6  /* cells of the neighbour grid or of a random layout's grid */
#define MAX_RINGS 1.0e3  /* rings of cells a neighbour query spans */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Points of a lattice of spacing (sx, sy) over w x h, and then some. */
static double lattice(double w, double h, double sx, double sy) {
  return (w / sx + 2.0) * (h / sy + 2.0);
}

/* At least as many as the lattice points a block's layout lays out. */
static double block_points(const thr_block *b, float radius_scale, double *random_cells) {
  double w = (double)b->max.x - b->min.x, h = (double)b->max.y - b->min.y;
  switch (b->layout) {
    case THR_LAYOUT_GRID:
      return b->rows > 0 ? (double)b->rows * b->cols : lattice(w, h, b->spacing_x, b->spacing_y);
    case THR_LAYOUT_RANDOM: {
      double side = 2.0 * b->radius_max * radius_scale;
      *random_cells += lattice(w, h, side, side);
      return (double)b->count;
    }
    case THR_LAYOUT_CIRCLE:
      return (double)b->count;
    default: { /* disk, ellipse: as given, or the spacing populate.c starts from */
      double sx = b->spacing_x > 0.0f ? b->spacing_x : sqrt(3.14159265358979 * b->rx * b->ry / (double)b->count);
      double sy = b->spacing_x > 0.0f ? b->spacing_y : sx;
      return lattice(2.0 * b->rx, 2.0 * b->ry, sx, sy) + (double)b->count;
    }
  }
}

/* Whether placing sc stays within the limits above (NaN: no). */
static int is_bounded(const thr_scenario *sc) {
  const thr_params *p = &sc->prm;
  double points = 0.0, random_cells = 0.0;
  for (int b = 0; b < sc->n_blocks; ++b) points += block_points(&sc->blocks[b], p->radius_scale, &random_cells);
  double contact = 2.0 * thr_scenario_max_radius(sc) * p->radius_scale;
  double cell = p->cell_size > 0.0f ? p->cell_size : contact + p->skin;
  double w = (double)sc->world_max.x - sc->world_min.x, h = (double)sc->world_max.y - sc->world_min.y;
  double reach = fmax(fmax(contact, p->xsph_h), fmax(p->lr_radius, p->av_radius)) + p->skin;
  return points <= MAX_POINTS && random_cells <= MAX_CELLS && lattice(w, h, cell, cell) <= MAX_CELLS &&
         reach / cell <= MAX_RINGS;
}

static void place(const thr_scenario *sc) {
  char err[2048] = "";
  thr_params prm = sc->prm;
  thr_world w;
  thr_agents agents;
  thr_agents_init(&agents);
  int rc = thr_world_init(&w, sc, &prm, thr_scenario_max_radius(sc), err, sizeof err);
  long n = rc ? -1 : thr_scenario_count(sc, err, sizeof err);
  if (n >= 0) rc = thr_populate(sc, &w, &prm, NULL, NULL, &agents, err, sizeof err);
  if ((rc || n < 0) && !err[0]) thr_fuzz_fail("placement failed without a message", "");
  if (!rc && n >= 0 && (long)agents.n != n)
    thr_fuzz_fail("thr_scenario_count disagrees with thr_populate", sc->path);
  thr_agents_free(&agents);
  thr_world_free(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  thr_scenario sc;
  if (!thr_fuzz_load(data, size, &sc)) {
    /* sizing is bounded for every input (it refuses absurd sizes itself);
     * laying out is fuzzed at sizes that keep executions fast */
    char err[2048] = "";
    if (thr_scenario_count(&sc, err, sizeof err) < 0 && !err[0])
      thr_fuzz_fail("sizing failed without a message", "");
    if (is_bounded(&sc)) place(&sc);
  }
  thr_scenario_free(&sc);
  return 0;
}
