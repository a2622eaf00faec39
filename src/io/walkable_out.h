/* The walkable area as the outputs write it (geometry.wkt, geometry-floorK.wkt,
 * trajectory.h5's wkt_geometry; docs/output.md): the area less the obstacles
 * the scenario gives, closed ones as holes and walls as cut-outs
 * THR_WALL_CUT wide, so that PedPy's WalkableArea leaves them out. GEOS does
 * the geometry (THRONG_GEOS); a build without it writes the area as given. */
#ifndef THRONG_WALKABLE_OUT_H
#define THRONG_WALKABLE_OUT_H

#include "base/scenario.h"

/* The width of a wall's cut-out [m]. */
#define THR_WALL_CUT 0.05

/* WKT of the polygons of ps (the world's rectangle when it has none) less
 * the scenario's own obstacles, those moved by -dx along x first (a
 * building's floor: ps in the floor's own coordinates, dx its shift); a
 * malloc'd string, NULL when out of memory. */
char *thr_walkable_wkt(const thr_scenario *sc, const thr_polyset *ps, float dx);

/* 1 when this build cuts the obstacles out (GEOS). */
int thr_walkable_cuts_obstacles(void);

#endif
