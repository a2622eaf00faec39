/* Integers the backends hand the step driver, so that results do not
 * depend on the order of threads, blocks and ranks: the key of a
 * non-finite agent (a minimum picks the lowest id) and speeds in fixed
 * quanta (sums of integers). Shared by both backends and core/. */
#ifndef THRONG_KERNELS_QUANTA_H
#define THRONG_KERNELS_QUANTA_H

#include <stdint.h>

#include "base/hostdevice.h"

/* A non-finite agent as one integer, so that the agent reported is the one
 * with the lowest id whatever the order of threads, blocks and ranks (a
 * minimum); THR_ALL_FINITE when there is none. */
#define THR_ALL_FINITE UINT64_MAX
THR_HD uint64_t thr_nonfinite_key(uint32_t id, int field) { return ((uint64_t)id << 8) | (uint64_t)field; }

/* Speed in units of THR_SPEED_QUANTUM (1e-6 m/s) for the metrics' integer
 * sum, defined for every input: NaN counts 0, speeds above 1e6 m/s count as
 * 1e6 m/s (a diverging run is stopped by the health check, not here). */
#define THR_SPEED_QUANTUM 1e-6
THR_HD int64_t thr_speed_quanta(float speed) {
  double q = (double)speed / THR_SPEED_QUANTUM + 0.5;
  if (!(q >= 0.0)) return 0;
  return q < 1e12 ? (int64_t)q : (int64_t)1000000000000LL;
}

#endif
