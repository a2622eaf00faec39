/* Buildings (docs/floors.md, decision 0019): the world's seams between the
 * floors' places and its zones of other walking speeds, built from the
 * scenario's floors, stairs and speed zones; and where a point of the
 * plane inside lies in the building (floor, plan position, elevation),
 * which the outputs write. */
#ifndef THRONG_FLOORS_H
#define THRONG_FLOORS_H

#include "scenario.h"
#include "vec2.h"
#include "world.h"

/* Fill w's seams and zones from sc (none without floors and zones).
 * Returns 0, or -1 when out of memory. */
int thr_world_building(thr_world *w, const thr_scenario *sc);

/* The floor whose place holds x (0 without floors). */
int thr_floor_at(const thr_scenario *sc, thr_vec2 x);

/* Where x (inside) is in the building: its position in the floors' own
 * coordinates, and its elevation (the floor's, or on a stair interpolated
 * between its landings). Without floors: x itself at elevation 0. */
thr_vec2 thr_building_point(const thr_scenario *sc, thr_vec2 x, float *elevation);

/* Floor f's walkable area in its own coordinates, into *out (a new polygon
 * set the caller frees with thr_polyset_free). Returns 0, or -1 when out of
 * memory. */
int thr_floor_walkable(const thr_scenario *sc, int f, thr_polyset *out);

#endif
