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
  float reach;       /* largest interaction distance (contact, long range, XSPH, headway) */
  int k_contact, k_longrange, k_xsph, k_headway, k_formation, k_plane, k_model[2], k_max; /* cell rings of each query (k_model: the model's own, model_list.h) */

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
  /* ORCA's behaviour states and transitions (the scenario's tables, whole;
   * prm.orca holds their counts) */
  thr_bstate *bstates;
  thr_btrans *btrans;

  /* evacuation (base/evacuation.h): exits (outer rings) with their lists per
   * cell of `window`, stages, slots, measurement lines (2 points each) and
   * areas (outer rings), the grid of the density and speed maps */
  int n_exits;
  int *exit_vfirst;
  thr_vec2 *exit_verts;
  int *exit_cell_offset, *exit_cell_items; /* NULL without exits */
  int n_stages;
  thr_stage_view *stages; /* field indices set by the core with the fields */
  int n_slots;
  thr_vec2 *slots;
  int n_lines;
  thr_vec2 *lines;
  int n_areas;
  int *area_vfirst;
  thr_vec2 *area_verts;
  float map_ox, map_oy, map_cell, map_threshold;
  int map_nx, map_ny; /* 0: no maps */
  /* buildings (docs/floors.md): the seams between floors' places (2 per
   * stair), the zones of other walking speeds (stairs, then speed zones) */
  int n_seams;
  thr_seam *seams;
  int n_zones;
  thr_zone *zones;
  thr_vec2 *zone_verts;
  /* distance fields (computed by the core: behavior/navfield), n_fields
   * arrays of fnx * fny floats over one grid */
  int n_fields;
  float fox, foy, fh;
  int fnx, fny;
  float *fields;
  float *ref_fields;           /* fields recomputed with the crowd: the same without it (NULL: none) */
  int *field_kind, *field_ref; /* what field k leads to: THR_FIELD_* and the exit or stage index */
  int *exit_field;             /* [n_exits] field of each exit, -1 when unused */
  int nearest_field;           /* the field to the nearest exit, -1 when unused */
} thr_world;

/* Most distance fields a scenario may need (exits and stages). */
#define THR_MAX_FIELDS 256

/* What a distance field leads to. */
enum { THR_FIELD_EXIT, THR_FIELD_NEAREST_EXIT, THR_FIELD_STAGE };

/* Queue and waiting stages: an agent has reached the stage's area within
 * this travel distance of a slot [m]. */
#define THR_STAGE_AREA 1.5f

/* Derive the grid from the scenario and the largest agent radius; fills the
 * derived parameters (XSPH coefficient, cell size) in *prm. Returns 0, or -1
 * when out of memory or when the grid would be unreasonably large (message
 * in err). */
int thr_world_init(thr_world *w, const thr_scenario *sc, thr_params *prm, float max_radius, char *err,
                   size_t errlen);
/* (Re)build the per-cell obstacle and exit lists for a window of cells. */
int thr_world_set_window(thr_world *w, thr_window win, const thr_params *prm);
void thr_world_free(thr_world *w);

#endif
