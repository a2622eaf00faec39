/* Who is where: adopting a partition (this rank's rectangle and window, the
 * neighbour ranks), and the cells of this rank's owned agents. */
#ifndef THRONG_TOPOLOGY_H
#define THRONG_TOPOLOGY_H

#include "decomp_state.h"

/* Adopt d->part: rectangle, window, neighbours; with b, also rebuild the
 * world's obstacle lists for a changed window and hand the world to the
 * backend again. */
void thr_topology_apply(thr_decomp *d, thr_backend *b);
/* Owned cells (gx, gy) of the current storage order, cached until the
 * owned agents change (cells_valid). */
const int32_t *thr_topology_cells(thr_decomp *d, thr_backend *b);

#endif
