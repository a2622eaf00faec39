#include "cell_sort.h"

#include <string.h>

void thr_cell_sort(const int *cell, const uint32_t *id, size_t n, size_t ncell, int *offset, int *order,
                   int *cursor) {
  memset(cursor, 0, ncell * sizeof(int));
  for (size_t k = 0; k < n; ++k) cursor[cell[k]]++;
  int total = 0;
  for (size_t c = 0; c < ncell; ++c) {
    offset[c] = total;
    total += cursor[c];
    cursor[c] = offset[c];
  }
  offset[ncell] = total;
  for (size_t k = 0; k < n; ++k) order[cursor[cell[k]]++] = (int)k;
  /* cells are independent: threads sort them by id (the result does not
   * depend on the thread count) */
  long nc = (long)ncell;
#pragma omp parallel for schedule(static, 4096)
  for (long c = 0; c < nc; ++c) {
    for (int t = offset[c] + 1; t < offset[c + 1]; ++t) {
      int item = order[t];
      uint32_t key = id[item];
      int s = t - 1;
      while (s >= offset[c] && id[order[s]] > key) {
        order[s + 1] = order[s];
        --s;
      }
      order[s + 1] = item;
    }
  }
}
