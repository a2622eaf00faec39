/* The distance fields a scenario's agents follow (docs/routing.md): which
 * it needs (an exit's, the nearest exit's, a stage's), computed with
 * behavior/navfield identically on every rank, and stored in the world for
 * the backends. */
#ifndef THRONG_ROUTES_H
#define THRONG_ROUTES_H

#include <stddef.h>

#include "base/scenario.h"
#include "base/world.h"

/* Compute the fields the scenario uses into w (nothing when it uses none).
 * Returns 0; -1 with a message (bad input: a grid too large for
 * routing.cell, an exit or stage with no walkable cell); -2 out of memory. */
int thr_routes_build(thr_world *w, const thr_scenario *sc, char *err, size_t errlen);

/* Can an agent at x follow field k to its end (a finite distance)? */
int thr_route_reachable(const thr_world *w, int k, thr_vec2 x);

/* "exit 'east'", "the nearest exit", "stage 'ticket'" into buf. */
const char *thr_route_name(const thr_scenario *sc, const thr_world *w, int k, char *buf, size_t len);

/* Bytes the fields take (each rank holds them all). */
size_t thr_routes_bytes(const thr_world *w);

#endif
