/* The scene's geometry beside a run's outputs, for viewers and analysis
 * tools that do not read the scenario: geometry.vtp (VTK XML PolyData that
 * ParaView opens beside the agents) and geometry.wkt (the walkable area,
 * e.g. for PedPy's WalkableArea). docs/output.md describes both. */
#ifndef THRONG_GEOMETRY_OUT_H
#define THRONG_GEOMETRY_OUT_H

#include <stddef.h>

#include "base/scenario.h"
#include "base/world.h"

/* What each cell of geometry.vtp is (its cell array `kind`). */
enum {
  THR_GEOM_WALL = 1,      /* an obstacle: a wall polyline, a closed polygon, the walkable area's boundary */
  THR_GEOM_EXIT = 2,      /* an exit's polygon */
  THR_GEOM_GOAL = 3,      /* a goal: rectangle, disk (as 32 segments), point (a vertex) */
  THR_GEOM_LINE = 4,      /* a measurement line */
  THR_GEOM_AREA = 5,      /* a measurement area */
  THR_GEOM_SLOT = 6       /* a queue or waiting slot (a vertex) */
};

/* DIR/geometry.vtp and DIR/geometry.wkt, each written whole or not at all.
 * Returns 0, or -1 with "PATH: reason" in err. */
int thr_write_geometry(const char *dir, const thr_scenario *sc, const thr_world *w, char *err, size_t errlen);

#endif
