/* The neighbour grid as kernels see it.
 *
 * One uniform grid covers the world; cell coordinates are global (relative
 * to the world's lower corner), so every rank assigns an agent to the same
 * cell. A rank stores only its local window of cells. Agents are listed in
 * (cell, global id) order: `order` maps a sorted slot to a storage index and
 * `offset[c] .. offset[c+1]` are the slots of local cell c (row-major).
 *
 * A query of radius R scans the cells within k = ceil((R + skin) / cell)
 * rings. Cells of one row are contiguous in the sorted order, so each of the
 * 2k+1 rows is one contiguous range, and every neighbour loop visits
 * candidates in the same canonical order on every backend and rank count. */
#ifndef THRONG_GRID_VIEW_H
#define THRONG_GRID_VIEW_H

#include "base/grid.h"
#include "base/hostdevice.h"
#include "base/vec2.h"

typedef struct thr_grid_view {
  float ox, oy;   /* world coordinates of the corner of global cell (0, 0) */
  float cell;     /* cell side [m] */
  int gnx, gny;   /* global grid size in cells */
  int lx0, ly0;   /* global coordinates of local cell (0, 0) */
  int nx, ny;     /* local grid size */
  const int *offset; /* [nx*ny + 1] */
  const int *order;  /* [number of local agents] sorted slot -> storage index */
  const int *cell_of; /* [number of local agents] storage index -> local cell */
} thr_grid_view;

/* Local cell index of position p (clamped into the local window). */
THR_HD int thr_local_cell(const thr_grid_view *g, thr_vec2 p) {
  int ix = thr_cell_coord(p.x, g->ox, g->cell, g->gnx) - g->lx0;
  int iy = thr_cell_coord(p.y, g->oy, g->cell, g->gny) - g->ly0;
  ix = ix < 0 ? 0 : (ix >= g->nx ? g->nx - 1 : ix);
  iy = iy < 0 ? 0 : (iy >= g->ny ? g->ny - 1 : iy);
  return iy * g->nx + ix;
}

/* Iterator over the candidates of a query centred on a cell, in canonical
 * order. Usage:
 *   thr_nbr_iter it; thr_nbr_begin(&it, g, cell, k);
 *   for (int j; (j = thr_nbr_next(&it, g)) >= 0;) { ... }  */
typedef struct thr_nbr_iter {
  int cx, cy, k, dy, t, e;
} thr_nbr_iter;

THR_HD void thr_nbr_begin(thr_nbr_iter *it, const thr_grid_view *g, int cell, int k) {
  it->cx = cell % g->nx;
  it->cy = cell / g->nx;
  it->k = k;
  it->dy = -k - 1;
  it->t = 0;
  it->e = 0;
}

THR_HD int thr_nbr_next(thr_nbr_iter *it, const thr_grid_view *g) {
  while (it->t >= it->e) {
    if (++it->dy > it->k) return -1;
    int cy = it->cy + it->dy;
    if (cy < 0 || cy >= g->ny) continue;
    int x0 = it->cx - it->k < 0 ? 0 : it->cx - it->k;
    int x1 = it->cx + it->k >= g->nx ? g->nx - 1 : it->cx + it->k;
    it->t = g->offset[cy * g->nx + x0];
    it->e = g->offset[cy * g->nx + x1 + 1];
  }
  return g->order[it->t++];
}

#endif
