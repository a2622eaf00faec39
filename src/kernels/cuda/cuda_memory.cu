/* Device memory of the CUDA backend: agent arrays (every field of the field
 * list, grown on demand), staging buffers, and moving fields by index. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_state.cuh"

void thr_cuda_fail(const cuda_state *s, cudaError_t e, const char *what, const char *file, int line) {
  thr_backend_fail(s ? s->self : NULL, "CUDA error %s at %s:%d (%s)", cudaGetErrorString(e), file, line, what);
}

/* Where a field of `elem` bytes is gathered to before the arrays swap
 * places: `slot` for 4-byte fields, else the scratch array of that size. */
static void **scratch_for(cuda_state *s, size_t elem) {
  if (elem == sizeof(int)) return (void **)&s->slot;
  for (int k = 0; k < THR_CUDA_WIDE_SIZES; ++k)
    if (!s->wide_elem[k] || s->wide_elem[k] == elem) {
      s->wide_elem[k] = elem;
      return &s->wide_scratch[k];
    }
  return NULL; /* more distinct field sizes than THR_CUDA_WIDE_SIZES: see agent_fields.h */
}

/* Per-agent arrays besides the agent fields: k < N_FIXED fixed ones, then
 * one scratch array per distinct field size other than 4 bytes. */
enum { N_FIXED = 7 };
static void **scratch_ptr(cuda_state *s, int k, size_t *elem) {
  switch (k) {
    case 0: *elem = sizeof(thr_vec2); return (void **)&s->p2;
    case 1: *elem = sizeof(thr_vec2); return (void **)&s->x2;
    case 2: *elem = sizeof(int); return (void **)&s->cell_of;
    case 3: *elem = sizeof(int); return (void **)&s->order;
    case 4: *elem = sizeof(int); return (void **)&s->slot;
    case 5: *elem = sizeof(float); return (void **)&s->pz2;
    case 6: *elem = sizeof(float); return (void **)&s->z2;
    default: *elem = s->wide_elem[k - N_FIXED]; return &s->wide_scratch[k - N_FIXED];
  }
}

/* The altitude scratch arrays only where the run stores altitudes. */
static int scratch_kept(const cuda_state *s, int k) {
  return !((k == 5 || k == 6) && (s->a.absent & THR_FIELD_BIT(Z)));
}

/* Scratch arrays for every field size (called once, at creation). */
void thr_cuda_plan_scratch(cuda_state *s) {
  s->per_field_gather = getenv("THRONG_CUDA_PER_FIELD_GATHER") != NULL; /* read once, not every step */
  for (int f = 0; f < THR_F_COUNT; ++f) scratch_for(s, thr_field_table[f].elem);
  s->n_scratch = N_FIXED;
  while (s->n_scratch - N_FIXED < THR_CUDA_WIDE_SIZES && s->wide_elem[s->n_scratch - N_FIXED]) s->n_scratch++;
}

size_t thr_cuda_bytes_per_agent(const cuda_state *s) {
  size_t bytes = 0;
  bytes += thr_fields_bytes(~s->a.absent);
  for (int k = 0; k < s->n_scratch; ++k) {
    size_t elem;
    scratch_ptr((cuda_state *)s, k, &elem);
    if (scratch_kept(s, k)) bytes += elem;
  }
  return bytes;
}

/* Grow a device array to `cap` elements keeping its first `keep`. */
static int grow(cuda_state *s, void **ptr, size_t elem, size_t cap, size_t keep) {
  void *q = NULL;
  if (cudaMalloc(&q, cap * elem) != cudaSuccess) {
    cudaGetLastError(); /* clear: the caller reports */
    return -1;
  }
  if (*ptr && keep) CUDA_CHECK(cudaMemcpy(q, *ptr, keep * elem, cudaMemcpyDeviceToDevice));
  if (*ptr) CUDA_CHECK(cudaFree(*ptr));
  *ptr = q;
  return 0;
}

int thr_cuda_reserve(cuda_state *s, size_t cap) {
  if (cap <= s->a.cap) return 0;
  size_t want = s->a.cap ? s->a.cap + s->a.cap / 4 : 1024; /* 1.25x: memory per agent matters */
  if (want < cap) want = cap;
  CUDA_CHECK(cudaStreamSynchronize(s->stream));
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (s->a.absent & ((thr_field_mask)1 << f)) continue;
    size_t elem;
    void **ptr = thr_agents_field(&s->a, f, &elem);
    if (grow(s, ptr, elem, want, s->a.n)) goto out_of_memory;
  }
  for (int k = 0; k < s->n_scratch; ++k) {
    size_t elem;
    void **ptr = scratch_ptr(s, k, &elem);
    if (scratch_kept(s, k) && grow(s, ptr, elem, want, s->a.n)) goto out_of_memory;
  }
  s->a.cap = want;
  return 0;
out_of_memory:
  return thr_backend_error(s->self, "out of GPU memory for %zu agents (%zu bytes each)", want,
                           thr_cuda_bytes_per_agent(s));
}

void thr_cuda_free_agents(cuda_state *s) {
  if (s->d_fused) cudaFree(s->d_fused);
  s->d_fused = NULL;
  s->fused_cap = 0;
  for (int f = 0; f < THR_F_COUNT; ++f) cudaFree(*thr_agents_field(&s->a, f, NULL));
  for (int k = 0; k < s->n_scratch; ++k) {
    size_t elem;
    cudaFree(*scratch_ptr(s, k, &elem));
  }
  thr_agents_init_without(&s->a, s->a.absent);
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

void *thr_cuda_stage2(cuda_state *s, size_t bytes) {
  if (bytes > s->stage2_cap) {
    CUDA_CHECK(cudaStreamSynchronize(s->stream));
    if (s->d_stage2) CUDA_CHECK(cudaFree(s->d_stage2));
    s->stage2_cap = bytes + bytes / 2 + 4096;
    CUDA_CHECK(cudaMalloc(&s->d_stage2, s->stage2_cap));
  }
  return s->d_stage2;
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

/* Element k of dst receives element idx[k] (or k without idx) of src; an
 * element is `words` 32-bit words (all fields are, agent_fields.h). */
__global__ void k_gather_u32(uint32_t *dst, const uint32_t *src, const int *idx, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) dst[k] = src[idx[k]];
}
__global__ void k_gather_u64(uint2 *dst, const uint2 *src, const int *idx, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) dst[k] = src[idx[k]];
}
__global__ void k_gather_words(uint32_t *dst, const uint32_t *src, const int *idx, int n, int words) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  for (int w = 0; w < words; ++w) dst[(size_t)k * words + w] = src[(size_t)idx[k] * words + w];
}

void thr_cuda_gather(cuda_state *s, void *dst, const void *src, const int *idx, size_t n, size_t elem) {
  if (n == 0) return;
  if (elem == 8)
    k_gather_u64<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((uint2 *)dst, (const uint2 *)src, idx, (int)n);
  else if (elem == 4)
    k_gather_u32<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((uint32_t *)dst, (const uint32_t *)src, idx,
                                                                   (int)n);
  else
    k_gather_words<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>((uint32_t *)dst, (const uint32_t *)src, idx,
                                                                     (int)n, (int)(elem / 4));
  CUDA_LAUNCHED("gather");
}

/* Agents [0, n): new slot k receives old agent perm[k], every STATE field
 * the run stores (thr_fields_absent: gathering the 3D fields of a 2D run,
 * all 0, was 1.5 % of a 2D step at 10^7 agents).
 * The gathered array swaps places with the scratch array of its size. */
/* Small crowds: every field in two launches (into a staging copy, then
 * back), not one launch per field; below this many agents the step time is
 * bounded by launches, not bytes. Pure data movement: the same bits. */
enum { THR_FUSED_GATHER_MAX = 1 << 17 };
typedef struct fused_fields {
  uint32_t *ptr[THR_F_COUNT];
  int words[THR_F_COUNT];
  int nf;
} fused_fields;

__global__ void k_gather_all(fused_fields t, const int *perm, int n, uint32_t *stage) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  size_t src = (size_t)perm[k], off = 0;
  for (int f = 0; f < t.nf; ++f) {
    int w = t.words[f];
    for (int j = 0; j < w; ++j) stage[off + (size_t)k * w + j] = t.ptr[f][src * w + j];
    off += (size_t)n * w;
  }
}

__global__ void k_copy_back(fused_fields t, int n, const uint32_t *stage) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  size_t off = 0;
  for (int f = 0; f < t.nf; ++f) {
    int w = t.words[f];
    for (int j = 0; j < w; ++j) t.ptr[f][(size_t)k * w + j] = stage[off + (size_t)k * w + j];
    off += (size_t)n * w;
  }
}

static void gather_fields_fused(cuda_state *s, const int *d_perm, size_t n) {
  fused_fields t;
  memset(&t, 0, sizeof t);
  size_t words = 0;
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (!thr_field_table[f].state || (s->a.absent & ((thr_field_mask)1 << f))) continue;
    size_t elem;
    t.ptr[t.nf] = *(uint32_t **)thr_agents_field(&s->a, f, &elem);
    t.words[t.nf++] = (int)(elem / 4);
    words += elem / 4;
  }
  if (words * n * 4 > s->fused_cap) {
    CUDA_CHECK(cudaStreamSynchronize(s->stream));
    if (s->d_fused) CUDA_CHECK(cudaFree(s->d_fused));
    s->fused_cap = words * (n + n / 4) * 4;
    CUDA_CHECK(cudaMalloc(&s->d_fused, s->fused_cap));
  }
  k_gather_all<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>(t, d_perm, (int)n, (uint32_t *)s->d_fused);
  k_copy_back<<<thr_blocks(n), THR_CUDA_BLOCK, 0, s->stream>>>(t, (int)n, (const uint32_t *)s->d_fused);
  CUDA_LAUNCHED("gather_all");
}

void thr_cuda_gather_fields(cuda_state *s, const int *d_perm, size_t n) {
  if (n == 0) return;
  if (n <= THR_FUSED_GATHER_MAX && !s->per_field_gather) {
    gather_fields_fused(s, d_perm, n);
    return;
  }
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (!thr_field_table[f].state) continue;
    if (s->a.absent & ((thr_field_mask)1 << f)) continue;
    size_t elem;
    void **ptr = thr_agents_field(&s->a, f, &elem);
    void **tmp = scratch_for(s, elem);
    thr_cuda_gather(s, *tmp, *ptr, d_perm, n, elem);
    void *t = *ptr;
    *ptr = *tmp;
    *tmp = t;
  }
}
