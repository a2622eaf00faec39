/* Point in polygon, shared by the world's cell lists (host) and the wall
 * constraint (kernels/obstacles_view.h, host and device). */
#ifndef THRONG_POLYGON_H
#define THRONG_POLYGON_H

#include "hostdevice.h"
#include "vec2.h"

/* Where edge (A, B) crosses the horizontal line at height y, when it does
 * (exactly one end strictly above y, so shared vertices count once): its x
 * into *xc. The one formula of the crossing-number tests below and of the
 * world's row scans (world.c). */
THR_HD int thr_edge_crosses_row(thr_vec2 A, thr_vec2 B, float y, float *xc) {
  if ((A.y > y) == (B.y > y)) return 0;
  *xc = (B.x - A.x) * (y - A.y) / (B.y - A.y) + A.x;
  return 1;
}

/* Is p inside the closed polygon verts[0..n)? Crossing number with
 * half-open edges, so a point on a shared edge counts for one side only. */
THR_HD int thr_polygon_contains(const thr_vec2 *verts, int n, thr_vec2 p) {
  int inside = 0;
  for (int a = 0, b = n - 1; a < n; b = a++) {
    float xc;
    if (thr_edge_crosses_row(verts[a], verts[b], p.y, &xc) && p.x < xc) inside = !inside;
  }
  return inside;
}

#endif
