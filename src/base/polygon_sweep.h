/* Validation of a polygon set in O(n log n) for n vertices (host code). It
 * reaches the verdict of the pairwise check (thr_polyset_check_pairwise,
 * geometry.h) on every input: the same fault on the same ring, or on the
 * same rings, found by sweeping a line over the edges. Where several pairs
 * of edges or several sample points are at fault, it may name another of
 * them than the pairwise order would; what it names is at fault. */
#ifndef THRONG_POLYGON_SWEEP_H
#define THRONG_POLYGON_SWEEP_H

#include "geometry.h"

/* Polygons [first, end) of s, as thr_polyset_check_pairwise(s, first, end, r).
 * Returns the fault (0 when none), with *r telling where. Without the
 * memory it needs it checks pairwise. */
int thr_polyset_sweep_check(const thr_polyset *s, int first, int end, thr_shape_report *r);

/* How often the sweep has handed over to the pairwise check since the
 * program started (out of memory, or an inconsistency that must not
 * happen): for tests. */
long thr_polygon_sweep_fallbacks(void);

#endif
