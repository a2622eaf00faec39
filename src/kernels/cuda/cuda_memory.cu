/* Device memory of the CUDA backend: agent arrays (grown on demand),
 * staging buffers, and the permutation of all agent fields. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "cuda_state.cuh"

void thr_cuda_fail(cudaError_t e, const char *what, const char *file, int line) {
  fprintf(stderr, "throng: CUDA error %s at %s:%d (%s)\n", cudaGetErrorString(e), file, line, what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Per-agent scratch arrays besides the agent fields. */
static void **scratch_ptr(cuda_state *s, int k, size_t *elem) {
  switch (k) {
    case 0: *elem = sizeof(thr_vec2); return (void **)&s->p2;
    case 1: *elem = sizeof(thr_vec2); return (void **)&s->x2;
    case 2: *elem = sizeof(thr_vec2); return (void **)&s->vnew;
    case 3: *elem = sizeof(thr_vec2); return (void **)&s->scratch8;
    case 4: *elem = sizeof(int); return (void **)&s->cell_of;
    case 5: *elem = sizeof(int); return (void **)&s->order;
    default: *elem = sizeof(int); return (void **)&s->slot;
  }
}
enum { N_SCRATCH = 7 };

/* Grow a device array to `cap` elements keeping its first `keep`. */
static int grow(void **ptr, size_t elem, size_t cap, size_t keep) {
  void *q = NULL;
  if (cudaMalloc(&q, cap * elem) != cudaSuccess) return -1;
  if (*ptr && keep) CUDA_CHECK(cudaMemcpy(q, *ptr, keep * elem, cudaMemcpyDeviceToDevice));
  if (*ptr) CUDA_CHECK(cudaFree(*ptr));
  *ptr = q;
  return 0;
}

int thr_cuda_reserve(cuda_state *s, size_t cap) {
  if (cap <= s->a.cap) return 0;
  size_t want = s->a.cap ? s->a.cap + s->a.cap / 2 : 1024;
  if (want < cap) want = cap;
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  for (int f = 0; f < THR_F_COUNT; ++f) {
    size_t elem;
    void **ptr = thr_agents_field(&s->a, f, &elem);
    if (grow(ptr, elem, want, s->a.n)) return -1;
  }
  for (int k = 0; k < N_SCRATCH; ++k) {
    size_t elem;
    void **ptr = scratch_ptr(s, k, &elem);
    if (grow(ptr, elem, want, s->a.n)) return -1;
  }
  s->a.cap = want;
  return 0;
}

void thr_cuda_free_agents(cuda_state *s) {
  for (int f = 0; f < THR_F_COUNT; ++f) cudaFree(*thr_agents_field(&s->a, f, NULL));
  for (int k = 0; k < N_SCRATCH; ++k) {
    size_t elem;
    cudaFree(*scratch_ptr(s, k, &elem));
  }
  memset(&s->a, 0, sizeof s->a);
}

void *thr_cuda_stage(cuda_state *s, size_t bytes) {
  if (bytes > s->stage_cap) {
    CUDA_CHECK(cudaStreamSynchronize(s->stream));
    if (s->d_stage) CUDA_CHECK(cudaFree(s->d_stage));
    s->stage_cap = bytes + bytes / 2 + 4096;
    CUDA_CHECK(cudaMalloc(&s->d_stage, s->stage_cap));
  }
  return s->d_stage;
}

void *thr_cuda_host_stage(cuda_state *s, size_t bytes) {
  if (bytes > s->h_stage_cap) {
    CUDA_CHECK(cudaStreamSynchronize(s->stream));
    if (s->h_stage) CUDA_CHECK(cudaFreeHost(s->h_stage));
    s->h_stage_cap = bytes + bytes / 2 + 4096;
    CUDA_CHECK(cudaMallocHost(&s->h_stage, s->h_stage_cap));
  }
  return s->h_stage;
}

__global__ void k_gather4(uint32_t *dst, const uint32_t *src, const int *perm, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) dst[k] = src[perm[k]];
}

__global__ void k_gather8(uint2 *dst, const uint2 *src, const int *perm, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) dst[k] = src[perm[k]];
}

/* Agents [0, n): new slot k receives old agent perm[k], every field. The
 * gathered array swaps places with a scratch array of the same size. */
void thr_cuda_gather_fields(cuda_state *s, const int *d_perm, size_t n) {
  if (n == 0) return;
  for (int f = 0; f < THR_F_COUNT; ++f) {
    size_t elem;
    void **ptr = thr_agents_field(&s->a, f, &elem);
    void **tmp = elem == 8 ? (void **)&s->scratch8 : (void **)&s->slot;
    if (elem == 8)
      k_gather8<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((uint2 *)*tmp, (const uint2 *)*ptr, d_perm,
                                                                  (int)n);
    else
      k_gather4<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((uint32_t *)*tmp, (const uint32_t *)*ptr,
                                                                  d_perm, (int)n);
    CUDA_LAUNCHED("gather");
    void *t = *ptr;
    *ptr = *tmp;
    *tmp = t;
  }
}
