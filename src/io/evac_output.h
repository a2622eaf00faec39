/* The evacuation outputs of a run (docs/user-guide.md, "Outputs"), written
 * by rank 0: exits.csv (agents out through each exit so far, one row per
 * metrics step), evacuated.csv (one row per agent that left), areas.csv and
 * lines.csv (measurement areas and lines, one row each per metrics step),
 * maps/density.csv, maps/speed.csv and maps/maps.vti (at the end),
 * geometry.json (the floor plan, at the start) and summary.json (at the
 * end). Rows are flushed as they are written, so an interrupted run leaves
 * files that end with its last completed step; the JSON files and the maps
 * are complete or absent. */
#ifndef THRONG_EVAC_OUTPUT_H
#define THRONG_EVAC_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/blob.h"
#include "base/maps.h"
#include "base/scenario.h"
#include "core/evac.h"
#include "core/measure.h"
#include "output.h"

typedef struct thr_evac_output {
  const thr_scenario *sc;
  char dir[THR_PATH_MAX];
  FILE *exits, *evacuated, *areas, *lines;
  char exits_path[THR_PATH_MAX], evacuated_path[THR_PATH_MAX], areas_path[THR_PATH_MAX],
      lines_path[THR_PATH_MAX];
  long *exit_count;      /* [n_exits] agents out so far */
  double *out_time;      /* leaving times so far, in order */
  size_t n_out, out_cap;
  int64_t *last_crossings; /* [n_lines] at the previous row */
  double last_time;
  int rows;
} thr_evac_output;

/* Does the scenario have evacuation outputs (exits, areas, lines, maps)? */
int thr_evac_output_wanted(const thr_scenario *sc);

/* Open the row files of what the scenario has and write geometry.json
 * (world: the world rectangle; obstacles: every wall of the world). */
int thr_evac_output_open(thr_evac_output *o, const char *dir, const thr_scenario *sc, const thr_world *w, char *err,
                         size_t errlen);

/* Agents that left (sorted by time, then id): rows of evacuated.csv. */
int thr_evac_output_exited(thr_evac_output *o, const thr_exit_rec *r, size_t n, char *err, size_t errlen);

/* One row of exits.csv and of each area and line at (step, time). */
int thr_evac_output_row(thr_evac_output *o, long step, double time, const thr_area_sample *areas,
                        const int64_t *crossings, char *err, size_t errlen);

/* maps/NAME.csv of each map (base/maps.h) and maps/maps.vti with all of
 * them, of an nx x ny grid of cell side `cell` from (x0, y0); NaN cells had
 * no agent. A building also gets NAME-floorK.csv per floor. */
int thr_evac_output_maps(thr_evac_output *o, double x0, double y0, double cell, int nx, int ny,
                         const double *const maps[THR_N_MAPS], long samples, char *err, size_t errlen);

/* What summary.json records. */
typedef struct thr_evac_summary {
  long agents_initial, agents_added, remaining, steps;
  double time, wall_seconds, agent_steps_per_second;
  const char *state; /* run.json's state */
} thr_evac_summary;

int thr_evac_output_summary(thr_evac_output *o, const thr_evac_summary *s, char *err, size_t errlen);

/* For a checkpoint: what the outputs counted so far (agents out per exit,
 * leaving times, line crossings at the last row), so that a restarted run
 * goes on counting from there. unpack: 0, or -1 when b does not fit the
 * scenario (message in err). */
void thr_evac_output_pack(const thr_evac_output *o, thr_blob *b);
int thr_evac_output_unpack(thr_evac_output *o, thr_blob *b, char *err, size_t errlen);

/* Close the row files (checked) and free; safe on a zeroed struct. */
int thr_evac_output_close(thr_evac_output *o, char *err, size_t errlen);

#endif
