/* Point in polygon, shared by the world's cell lists (host) and the wall
 * constraint (kernels/obstacles_view.h, host and device). */
#ifndef THRONG_POLYGON_H
#define THRONG_POLYGON_H

#include "hostdevice.h"
#include "vec2.h"

/* Is p inside the closed polygon verts[0..n)? Crossing number with
 * half-open edges, so a point on a shared edge counts for one side only. */
THR_HD int thr_polygon_contains(const thr_vec2 *verts, int n, thr_vec2 p) {
  int inside = 0;
  for (int a = 0, b = n - 1; a < n; b = a++) {
    thr_vec2 A = verts[a], B = verts[b];
    if ((A.y > p.y) != (B.y > p.y)) {
      float xc = (B.x - A.x) * (p.y - A.y) / (B.y - A.y) + A.x;
      if (p.x < xc) inside = !inside;
    }
  }
  return inside;
}

#endif
