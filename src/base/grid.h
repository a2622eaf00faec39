/* The global neighbour grid as every layer sees it: one uniform grid of
 * square cells over the world, with cell coordinates relative to the
 * world's lower corner, so that every rank and backend puts an agent in the
 * same cell; windows (rectangles of cells) of it; and how many rings of
 * cells a query of a given radius scans. */
#ifndef THRONG_GRID_H
#define THRONG_GRID_H

#include <math.h>
#include "hostdevice.h"

/* Global cell coordinate along one axis, clamped to the grid (NaN -> 0). */
THR_HD int thr_cell_coord(float p, float origin, float cell, int n) {
  float f = floorf((p - origin) / cell);
  if (!(f >= 0.0f)) return 0;
  if (f > (float)(n - 1)) return n - 1;
  return (int)f;
}

/* Number of cell rings a query of radius r needs, at least 1 and at most
 * `limit` (the grid's larger side: more rings hold no more cells; also
 * where r is so large, or the cell so small, that the count is no number). */
THR_HD int thr_rings(float r, float skin, float cell, int limit) {
  float k = ceilf((r + skin) / cell);
  if (!(k < (float)limit)) return limit;
  return k < 1.0f ? 1 : (int)k;
}

/* Global cells [x0, x0+nx) x [y0, y0+ny). */
typedef struct thr_window {
  int x0, y0, nx, ny;
} thr_window;

/* Does window w contain global cell (gx, gy)? (host and device) */
THR_HD int thr_window_contains(thr_window w, int gx, int gy) {
  return gx >= w.x0 && gx < w.x0 + w.nx && gy >= w.y0 && gy < w.y0 + w.ny;
}

#endif
