/* The static world on the host: the global neighbour grid geometry, the
 * obstacles, the goals, and the per-cell obstacle lists of a rank's window
 * of cells. Backends copy these into their own memory once; kernels see
 * them through the views of kernels/context.h. */
#ifndef THRONG_WORLD_H
#define THRONG_WORLD_H

#include <stddef.h>

#include "goal.h"
#include "grid.h"
#include "params.h"
#include "scenario.h"
#include "vec2.h"

typedef struct thr_world {
  thr_vec2 min, max; /* world rectangle */
  float cell;        /* grid cell side */
  int gnx, gny;      /* global grid size */
  float max_radius;  /* largest agent radius */
  float reach;       /* largest interaction distance (contact, long range, XSPH) */
  int k_contact, k_longrange, k_xsph, k_max; /* cell rings of each query */

  /* obstacles (copied from the scenario) */
  int n_obstacles, n_verts;
  int *obs_vfirst, *obs_closed;
  thr_vec2 *verts;
  /* obstacle lists per cell of `window` */
  thr_window window;
  int *obs_cell_offset, *obs_cell_items;

  /* goals */
  int n_goals, n_sets;
  thr_goal *goals;
  int *set_first, *set_items;
} thr_world;

/* Derive the grid from the scenario and the largest agent radius; fills the
 * derived parameters (XSPH coefficient, cell size) in *prm. Returns 0, or -1
 * when out of memory or when the grid would be unreasonably large (message
 * in err). */
int thr_world_init(thr_world *w, const thr_scenario *sc, thr_params *prm, float max_radius, char *err,
                   size_t errlen);
/* (Re)build the per-cell obstacle lists for a window of cells. */
int thr_world_set_window(thr_world *w, thr_window win, const thr_params *prm);
void thr_world_free(thr_world *w);

#endif
