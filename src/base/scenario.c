/* Releasing a scenario's arrays (filled by io/config.c). */
#include "scenario.h"

#include <stdlib.h>
#include <string.h>

void thr_polyset_free(thr_polyset *p) {
  free(p->poly_first);
  free(p->ring_first);
  free(p->verts);
  free(p->poly_line);
  memset(p, 0, sizeof *p);
}

void thr_scenario_free(thr_scenario *sc) {
  if (!sc) return;
  thr_polyset_free(&sc->walkable);
  thr_polyset_free(&sc->exit_shapes);
  thr_polyset_free(&sc->regions);
  thr_polyset_free(&sc->areas);
  thr_polyset_free(&sc->stair_shapes);
  thr_polyset_free(&sc->zone_shapes);
  free(sc->floors);
  free(sc->stairs);
  free(sc->zones);
  free(sc->exit_names);
  free(sc->exit_width);
  free(sc->stages);
  free(sc->slots);
  free(sc->journeys);
  free(sc->transitions);
  free(sc->trans_items);
  free(sc->trans_weights);
  free(sc->sources);
  free(sc->area_names);
  free(sc->lines);
  free(sc->obs_vfirst);
  free(sc->obs_closed);
  free(sc->obs_line);
  free(sc->verts);
  free(sc->goals);
  free(sc->goal_names);
  free(sc->goal_line);
  free(sc->set_first);
  free(sc->set_items);
  free(sc->blocks);
  free(sc->layout_points);
  for (int f = 0; f < sc->n_formations; ++f) free(sc->formations[f].path);
  free(sc->formations);
  memset(sc, 0, sizeof *sc);
}

float thr_scenario_max_radius(const thr_scenario *sc) {
  float r = 0.0f;
  for (int b = 0; b < sc->n_blocks; ++b)
    if (sc->blocks[b].radius_max > r) r = sc->blocks[b].radius_max;
  return r;
}
