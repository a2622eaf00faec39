/* Releasing a scenario's arrays (filled by io/config.c). */
#include "scenario.h"

#include <stdlib.h>
#include <string.h>

void thr_scenario_free(thr_scenario *sc) {
  if (!sc) return;
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
  memset(sc, 0, sizeof *sc);
}
