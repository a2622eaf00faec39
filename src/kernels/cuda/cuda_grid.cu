/* The neighbour grid on the GPU: a counting sort by cell (atomic histogram,
 * CUB exclusive scan, scatter) followed by an insertion sort by global id
 * inside each cell. The atomics make the order inside a cell arbitrary;
 * the id sort makes the final order the canonical (cell, id) one, exactly
 * as thr_cell_sort does on the CPU. */
#include <cub/device/device_scan.cuh>

#include "cuda_state.cuh"

__global__ void k_assign_cells(int from, int to, thr_grid_view g, const thr_vec2 *p, int *cell_of) {
  int i = from + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < to) cell_of[i] = thr_local_cell(&g, p[i]);
}

__global__ void k_histogram(int n, const int *cell_of, int *count, int *slot) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) slot[i] = atomicAdd(&count[cell_of[i]], 1);
}

__global__ void k_scatter(int n, const int *cell_of, const int *slot, const int *offset, int *order) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) order[offset[cell_of[i]] + slot[i]] = i;
}

/* One thread per cell: cells hold a handful of agents. */
__global__ void k_sort_cells(int ncell, const int *offset, const uint32_t *id, int *order) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= ncell) return;
  int lo = offset[c], hi = offset[c + 1];
  for (int t = lo + 1; t < hi; ++t) {
    int item = order[t];
    uint32_t key = id[item];
    int u = t - 1;
    while (u >= lo && id[order[u]] > key) {
      order[u + 1] = order[u];
      --u;
    }
    order[u + 1] = item;
  }
}

void thr_cuda_assign_cells(cuda_state *s, size_t from, size_t to) {
  if (to <= from) return;
  k_assign_cells<<<thr_blocks(to - from), THR_CUDA_BLOCK, 0, s->stream>>>((int)from, (int)to, s->base.grid, s->a.p,
                                                                          s->cell_of);
  CUDA_LAUNCHED("assign_cells");
}

/* Sort agents [0, n) by (cell_of, id): d_offset, order. */
void thr_cuda_cell_sort(cuda_state *s, size_t n) {
  int nc = (int)s->ncell;
  CUDA_CHECK(cudaMemsetAsync(s->d_count, 0, (s->ncell + 1) * sizeof(int), s->stream));
  if (n) {
    k_histogram<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, s->cell_of, s->d_count, s->slot);
    CUDA_LAUNCHED("histogram");
  }
  size_t bytes = 0;
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, bytes, s->d_count, s->d_offset, nc + 1, s->stream));
  if (bytes > s->scan_tmp_bytes) {
    CUDA_CHECK(cudaStreamSynchronize(s->stream));
    if (s->d_scan_tmp) CUDA_CHECK(cudaFree(s->d_scan_tmp));
    CUDA_CHECK(cudaMalloc(&s->d_scan_tmp, bytes));
    s->scan_tmp_bytes = bytes;
  }
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(s->d_scan_tmp, bytes, s->d_count, s->d_offset, nc + 1, s->stream));
  if (n) {
    k_scatter<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((int)n, s->cell_of, s->slot, s->d_offset,
                                                                s->order);
    CUDA_LAUNCHED("scatter");
  }
  k_sort_cells<<<thr_blocks(s->ncell), THR_CUDA_BLOCK, 0, s->stream>>>(nc, s->d_offset, s->a.id, s->order);
  CUDA_LAUNCHED("sort_cells");
}
