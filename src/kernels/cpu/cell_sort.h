/* Canonical (cell, global id) ordering on the CPU: a stable counting sort by
 * cell, then an insertion sort by id inside each cell (cells hold few agents
 * and arrive mostly sorted from the previous step, so this is linear in
 * practice). The result does not depend on the input order. */
#ifndef THRONG_CELL_SORT_H
#define THRONG_CELL_SORT_H

#include <stddef.h>
#include <stdint.h>

/* cell[k] in [0, ncell) for items k < n. Writes offset[0..ncell] (items of
 * cell c are order[offset[c] .. offset[c+1])) and order[0..n). cursor is
 * scratch of ncell ints. */
void thr_cell_sort(const int *cell, const uint32_t *id, size_t n, size_t ncell, int *offset, int *order,
                   int *cursor);

#endif
