/* Evacuation measurements (docs/user-guide.md, "Outputs"): agents, density
 * and mean speed inside each measurement area, crossings of each
 * measurement line, and the time-averaged density and speed maps. Counts are
 * integers (speeds in THR_SPEED_QUANTUM), summed over ranks, so every figure
 * is the same whatever the rank count. */
#ifndef THRONG_MEASURE_H
#define THRONG_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "base/blob.h"
#include "base/maps.h"
#include "sim.h"

typedef struct thr_measure thr_measure;

/* Measurement line k of sc as a flow counter: the distance from each of its
 * ends to the nearest wall or obstacle (the walkable area's boundary among
 * them) into gap[2], 0 for an end inside a wall or beyond the boundary. A
 * line whose end stands in the open (more than a body from any wall) can be
 * walked round, and its count misses those who do: `throng check` says so. */
void thr_measure_line_gaps(const thr_scenario *sc, int k, double gap[2]);

/* Nothing to measure (no areas, lines or maps): *m = NULL and 0.
 * Returns -1 when out of memory (message in err). */
int thr_measure_create(thr_measure **m, const thr_sim *s, char *err, size_t errlen);
void thr_measure_free(thr_measure *m);

/* One measurement area's figures at one step. */
typedef struct thr_area_sample {
  long agents;
  double density;    /* agents per m^2 of the area */
  double mean_speed; /* NaN when the area is empty */
} thr_area_sample;

/* Area counts of the current state and the line crossings up to now, on
 * rank 0 (areas[n_areas], crossings[n_lines] cumulative since the start).
 * Collective. */
void thr_measure_sample(thr_measure *m, thr_sim *s, thr_area_sample *areas, int64_t *crossings);

/* Add the current state to the maps (each rank its own agents). */
void thr_measure_map_sample(thr_measure *m, thr_sim *s);

/* The maps (base/maps.h) over all ranks, on rank 0, into maps[k][c] for
 * the nx * ny cells (row j = 0 lowest): the time-averaged density, the mean
 * speed of the agents seen, the highest density of one sample, the time at
 * or above the threshold (samples there x sample_seconds), the time of the
 * last sample with an agent; NaN in a cell no agent was ever counted in.
 * Returns the number of samples (0: no maps). Collective. */
long thr_measure_maps(thr_measure *m, thr_sim *s, double sample_seconds, double *const maps[THR_N_MAPS]);

/* For a checkpoint: the line crossings and map sums so far, summed over
 * ranks, packed into b on rank 0 (the crossings the backend still holds are
 * taken first). Collective; -1 out of memory (every rank). */
int thr_measure_pack(thr_measure *m, thr_sim *s, thr_blob *b);
/* ... and back: rank 0 holds the sums, the other ranks start from zero
 * (only the sum over ranks is ever read). b is read on rank 0 only. 0, or
 * -1 when b does not fit the scenario's lines and maps (every rank; message
 * in err). Collective. */
int thr_measure_unpack(thr_measure *m, thr_sim *s, thr_blob *b, char *err, size_t errlen);

#endif
