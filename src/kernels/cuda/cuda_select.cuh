/* Selections by global cell for the decomposition, shared by the kernels
 * that move agents (cuda_transfer.cu) and the exchange kept on the device
 * (cuda_exchange.cu). */
#ifndef THRONG_CUDA_SELECT_CUH
#define THRONG_CUDA_SELECT_CUH

#include <string.h>

#include "cuda_state.cuh"

/* Up to 64 rectangles of cells, passed to a kernel by value. */
typedef struct thr_box_set {
  thr_window w[64];
} thr_box_set;

static inline thr_box_set thr_box_set_of(const thr_window *boxes, int nbox) {
  thr_box_set bs;
  memset(&bs, 0, sizeof bs);
  for (int k = 0; k < nbox && k < 64; ++k) bs.w[k] = boxes[k];
  return bs;
}

/* Bit k set when box k holds global cell (gx, gy). */
static __device__ inline unsigned long long thr_box_mask(const thr_box_set &boxes, int nbox, int gx, int gy) {
  unsigned long long m = 0;
  for (int k = 0; k < nbox; ++k)
    if (thr_window_contains(boxes.w[k], gx, gy)) m |= 1ull << k;
  return m;
}

/* flag[i] = 1 when owned agent i's cell (from x*) lies outside `skip`. */
static __global__ void k_outside_flags(int n, thr_grid_view g, const thr_vec2 *p, thr_window skip, int *flag) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int gx = thr_cell_coord(p[i].x, g.ox, g.cell, g.gnx);
  int gy = thr_cell_coord(p[i].y, g.oy, g.cell, g.gny);
  flag[i] = !thr_window_contains(skip, gx, gy);
}

#endif
