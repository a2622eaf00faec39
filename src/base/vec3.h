/* 3D vector in single precision, shared by host and device code: the
 * geometry of 3D agents (seed paper 003; docs/3d.md). Agents keep their
 * (x, y) in thr_vec2 fields and their altitude in separate float fields;
 * a pass assembles thr_vec3 values from both. The operations are those of
 * vec2.h, with the same arithmetic order, so that a 3D value whose z is 0
 * gives the 2D result bit for bit. */
#ifndef THRONG_VEC3_H
#define THRONG_VEC3_H

#include <math.h>
#include "hostdevice.h"

typedef struct thr_vec3 {
  float x, y, z;
} thr_vec3;

THR_HD thr_vec3 v3(float x, float y, float z) {
  thr_vec3 r;
  r.x = x;
  r.y = y;
  r.z = z;
  return r;
}
THR_HD thr_vec3 v3_zero(void) { return v3(0.0f, 0.0f, 0.0f); }
/* s along the first axis (a deterministic direction where none is defined) */
THR_HD thr_vec3 v3_e1(float s) { return v3(s, 0.0f, 0.0f); }
THR_HD thr_vec3 v3_add(thr_vec3 a, thr_vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
THR_HD thr_vec3 v3_sub(thr_vec3 a, thr_vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
THR_HD thr_vec3 v3_scale(thr_vec3 a, float s) { return v3(a.x * s, a.y * s, a.z * s); }
THR_HD float v3_dot(thr_vec3 a, thr_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
THR_HD thr_vec3 v3_cross(thr_vec3 a, thr_vec3 b) {
  return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
THR_HD float v3_len2(thr_vec3 a) { return v3_dot(a, a); }
THR_HD float v3_len(thr_vec3 a) { return sqrtf(v3_dot(a, a)); }

#endif
