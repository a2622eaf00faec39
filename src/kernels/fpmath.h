/* The project's own elementary functions.
 *
 * Library exp() differs between glibc and CUDA's libdevice in the last bit,
 * which would break bit-for-bit agreement of the CPU and CUDA backends. This
 * exp uses only +, -, *, floor and ldexp, all exactly rounded on both sides,
 * so with FMA contraction off (THRONG_STRICT_FP) both produce the same bits.
 * Accuracy: about 2 ulp over the range the model uses ([-tau0, 0]). */
#ifndef THRONG_FPMATH_H
#define THRONG_FPMATH_H

#include <math.h>
#include "base/hostdevice.h"

THR_HD float thr_expf(float x) {
  if (x != x) return x; /* NaN */
  if (x < -87.0f) return 0.0f;
  if (x > 88.0f) return HUGE_VALF;
  /* x = k ln2 + r with |r| <= ln2/2; ln2 split in two (Cody-Waite). */
  const float log2e = 1.44269504088896341f;
  const float ln2_hi = 0.693145751953125f;
  const float ln2_lo = 1.42860682030941723212e-6f;
  float kf = floorf(x * log2e + 0.5f);
  float r = (x - kf * ln2_hi) - kf * ln2_lo;
  /* Taylor polynomial to degree 7 (error below 1.5e-8 relative on |r| <= 0.35). */
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return ldexpf(p, (int)kf);
}

#endif
