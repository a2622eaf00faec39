/* 2D vector in single precision, shared by host and device code.
 * 8-byte alignment lets a GPU thread load a position in one transaction. */
#ifndef THRONG_VEC2_H
#define THRONG_VEC2_H

#include <math.h>
#include "hostdevice.h"

#if defined(__CUDACC__)
typedef struct __align__(8) thr_vec2 {
  float x, y;
} thr_vec2;
#else
typedef struct thr_vec2 {
  _Alignas(8) float x;
  float y;
} thr_vec2;
#endif

THR_HD thr_vec2 v2(float x, float y) {
  thr_vec2 r;
  r.x = x;
  r.y = y;
  return r;
}
THR_HD thr_vec2 v2_zero(void) { return v2(0.0f, 0.0f); }
/* s along the first axis (a deterministic direction where none is defined) */
THR_HD thr_vec2 v2_e1(float s) { return v2(s, 0.0f); }
THR_HD thr_vec2 v2_add(thr_vec2 a, thr_vec2 b) { return v2(a.x + b.x, a.y + b.y); }
THR_HD thr_vec2 v2_sub(thr_vec2 a, thr_vec2 b) { return v2(a.x - b.x, a.y - b.y); }
THR_HD thr_vec2 v2_scale(thr_vec2 a, float s) { return v2(a.x * s, a.y * s); }
THR_HD float v2_dot(thr_vec2 a, thr_vec2 b) { return a.x * b.x + a.y * b.y; }
THR_HD float v2_cross(thr_vec2 a, thr_vec2 b) { return a.x * b.y - a.y * b.x; }
THR_HD float v2_len2(thr_vec2 a) { return v2_dot(a, a); }
THR_HD float v2_len(thr_vec2 a) { return sqrtf(v2_dot(a, a)); }

#endif
