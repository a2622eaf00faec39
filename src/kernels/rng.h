/* Counter-based random numbers: a draw is a pure function of
 * (seed, global id, step, stream), never of the rank, the thread or the
 * order of calls, so runs are reproducible on any rank count and backend.
 * The mixer is SplitMix64's finaliser applied to a combined key. */
#ifndef THRONG_RNG_H
#define THRONG_RNG_H

#include <stdint.h>
#include "base/hostdevice.h"

THR_HD uint64_t thr_mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* 64 random bits for (seed, id, step, stream). */
THR_HD uint64_t thr_rng_u64(uint64_t seed, uint64_t id, uint64_t step, uint32_t stream) {
  uint64_t h = thr_mix64(seed ^ thr_mix64(id + 0x632BE59BD9B4E019ull));
  h = thr_mix64(h ^ thr_mix64(step * 0x8CB92BA72F3D8DD7ull + stream));
  return h;
}

/* Uniform float in [0, 1) with 24 random bits. */
THR_HD float thr_rng_uniform(uint64_t seed, uint64_t id, uint64_t step, uint32_t stream) {
  return (float)(thr_rng_u64(seed, id, step, stream) >> 40) * (1.0f / 16777216.0f);
}

#endif
