/* THE physics of throng: every constraint and update of Algorithm 1
 * (Weiss et al. 2017) as a small inline function compiled by both the C
 * compiler (CPU backend) and nvcc (CUDA backend). Never duplicate an
 * equation outside this file; docs/paper-map.md maps each function to the
 * paper's equations.
 *
 * Conventions: every pair function returns agent i's share of a pairwise
 * constraint (gather form: agent j computes its own share from the same
 * inputs), so no atomics are needed. w = inverse mass. */
#ifndef THRONG_PHYSICS_H
#define THRONG_PHYSICS_H

#include "fpmath.h"
#include "base/hostdevice.h"
#include "base/vec2.h"

/* ---- section 4.1: planning, blending, prediction ------------------------ */

/* Preferred velocity towards target point g at preferred speed s; slows so
 * that it does not overshoot the target within one step. */
THR_HD thr_vec2 thr_preferred_velocity(thr_vec2 x, thr_vec2 g, float s, float dt) {
  thr_vec2 d = v2_sub(g, x);
  float len = v2_len(d);
  if (!(len > 0.0f)) return v2(0.0f, 0.0f);
  float speed = len / dt < s ? len / dt : s;
  return v2_scale(d, speed / len);
}

/* Eq. (1): v_b = (1 - alpha) v + alpha v_p. */
THR_HD thr_vec2 thr_blend_velocity(thr_vec2 v, thr_vec2 vp, float alpha) {
  return v2_add(v2_scale(v, 1.0f - alpha), v2_scale(vp, alpha));
}

/* Algorithm 1 line 4: x* = x + dt v_b. */
THR_HD thr_vec2 thr_predict(thr_vec2 x, thr_vec2 vb, float dt) {
  return v2_add(x, v2_scale(vb, dt));
}

/* ---- speed-density relation (throng's addition to section 4.1) ---------- */

/* How far agent i can walk straight along unit direction e before its body
 * touches neighbour j's, for j at relative position d = x_j - x_i and the
 * sum R of the two radii. Only neighbours ahead whose centre lies within
 * width * R of i's path count (width in (0, 1]: a neighbour that only
 * grazes i's shoulder is passed, not followed; contact keeps them apart);
 * HUGE_VALF for the others. Negative when they already overlap. */
THR_HD float thr_headway_gap(thr_vec2 e, thr_vec2 d, float R, float width) {
  float along = v2_dot(e, d);
  float lat = v2_cross(e, d);
  float band = width * R;
  if (!(along > 0.0f) || !(lat * lat < band * band)) return HUGE_VALF;
  return along - sqrtf(R * R - lat * lat);
}

/* The speed an agent may walk at with a free gap ahead: the optimal-velocity
 * function of Newell (1961), v = v0 (1 - exp(-(gap - g0) / (v0 T))), 0 for
 * gap <= g0. Close behind someone it is the time-gap law of Tordeux,
 * Chraibi and Seyfried (2016), v = (gap - g0) / T; with more room it
 * approaches v0 gradually, as Weidmann's fundamental diagram does, instead
 * of reaching it at a gap of g0 + v0 T (docs/decisions/0004). */
THR_HD float thr_headway_speed(float v0, float gap, float min_gap, float time_gap) {
  float u = (gap - min_gap) / time_gap;
  if (!(u > 0.0f)) return 0.0f;
  if (!(u < 30.0f * v0)) return v0;
  return v0 * (1.0f - thr_expf(-u / v0));
}

/* ---- section 4.2: frictional contact ------------------------------------ */

/* Eq. (2) for disks i, j at positions pi, pj: C = |pi - pj| - dmin >= 0,
 * dmin = (ri + rj) * radius_scale. On violation writes i's correction
 * (weighted by inverse masses, times stiffness), the contact normal n (from j
 * to i) and the penetration depth, and returns 1. `tie` (+1 or -1, from the
 * order of the two ids) separates coincident disks deterministically. */
THR_HD int thr_contact(thr_vec2 pi, thr_vec2 pj, float dmin, float wi, float wj, float stiffness,
                       float tie, thr_vec2 *dxi, thr_vec2 *n, float *pen) {
  float wsum = wi + wj;
  if (!(wsum > 0.0f)) return 0;
  thr_vec2 d = v2_sub(pi, pj);
  float len2 = v2_len2(d);
  if (len2 >= dmin * dmin) return 0;
  float len = sqrtf(len2);
  *n = len > 0.0f ? v2_scale(d, 1.0f / len) : v2(tie, 0.0f);
  float c = len - dmin; /* negative */
  *pen = -c;
  *dxi = v2_scale(*n, -stiffness * (wi / wsum) * c);
  return 1;
}

/* Static and kinetic friction (Macklin et al. 2014, section 6.1): the
 * relative tangential displacement of the pair over the step is removed
 * entirely when small (static), else reduced by mu_k * pen (kinetic).
 * disp_i = x*_i - x_i, disp_j = x*_j - x_j. Returns i's correction. */
THR_HD thr_vec2 thr_friction(thr_vec2 disp_i, thr_vec2 disp_j, thr_vec2 n, float pen, float wi,
                             float wj, float mu_s, float mu_k) {
  float wsum = wi + wj;
  thr_vec2 d = v2_sub(disp_i, disp_j);
  thr_vec2 dt = v2_sub(d, v2_scale(n, v2_dot(d, n)));
  float len = v2_len(dt);
  if (!(len > 0.0f) || !(wsum > 0.0f)) return v2(0.0f, 0.0f);
  float f = -(wi / wsum);
  if (len < mu_s * pen) return v2_scale(dt, f);
  float removed = mu_k * pen / len; /* fraction of D_t removed: mu_k pen of it */
  if (removed > 1.0f) removed = 1.0f;
  return v2_scale(dt, f * removed);
}

/* ---- section 4.4: long-range collision ---------------------------------- */

/* Eqs. (4)-(7): time until disks with relative position xij = xi - xj and
 * relative velocity vij touch (distance rsum). Returns -1 when they never
 * touch, are not approaching, or already overlap. */
THR_HD float thr_time_to_collision(thr_vec2 xij, thr_vec2 vij, float rsum) {
  float a = v2_dot(vij, vij);
  float b = -v2_dot(xij, vij);
  float c = v2_dot(xij, xij) - rsum * rsum;
  if (!(a > 1e-12f) || !(b > 0.0f) || !(c > 0.0f)) return -1.0f;
  float disc = b * b - a * c;
  if (!(disc > 0.0f)) return -1.0f;
  return (b - sqrtf(disc)) / a;
}

/* Which anticipatory response a long-range pair produces. */
enum { THR_LR_COLLISION = 0, THR_LR_AVOIDANCE = 1 };

/* How the correction of the colliding positions x~ reaches x*
 * (`long_range.response`, `avoidance.response`; docs/paper-map.md): as it
 * is (the paper, the WebGPU port), or projected through dx~/dx* =
 * tau_tilde/dt, i.e. scaled by dt/tau_tilde. The order is the schema's
 * choices. */
enum thr_lr_response { THR_LR_DIRECT = 0, THR_LR_PROJECTED = 1 };

/* The predicted collision of a pair (sections 4.4, 4.5), shared by the
 * long-range and the avoidance responses so that a pair is predicted once. */
typedef struct thr_lr_pred {
  float tau;                /* time to collision, eqs. (4)-(7) */
  float tau_hat, tau_tilde; /* eq. (9), (10) */
  float c;                  /* C(x~) < 0: overlap of the colliding positions */
  float ai, aj;             /* inverse-mass shares */
  thr_vec2 n;               /* unit normal of x~_i - x~_j */
  thr_vec2 ti, tj;          /* colliding positions x~ */
  thr_vec2 vi, vj;          /* velocities (x* - x)/dt */
} thr_lr_pred;

/* xi, xj: positions at the start of the step; pi, pj: current predicted
 * positions x*. v = (x* - x)/dt. With a valid time to collision
 * 0 < tau < tau0: tau_hat = dt floor(tau/dt) (eq. 9), tau_tilde = tau_hat + dt
 * (eq. 10), and the colliding positions x~ = x + tau_tilde v overlap by C.
 * Returns 0 when there is no such collision. */
THR_HD int thr_lr_predict(thr_vec2 xi, thr_vec2 pi, thr_vec2 xj, thr_vec2 pj, float rsum, float wi, float wj,
                          float dt, float tau0, thr_lr_pred *q) {
  float wsum = wi + wj;
  if (!(wsum > 0.0f)) return 0;
  q->vi = v2_scale(v2_sub(pi, xi), 1.0f / dt);
  q->vj = v2_scale(v2_sub(pj, xj), 1.0f / dt);
  float tau = thr_time_to_collision(v2_sub(xi, xj), v2_sub(q->vi, q->vj), rsum);
  if (!(tau > 0.0f) || !(tau < tau0)) return 0;
  q->tau = tau;
  q->tau_hat = dt * floorf(tau / dt);
  q->tau_tilde = q->tau_hat + dt;
  q->ti = v2_add(xi, v2_scale(q->vi, q->tau_tilde));
  q->tj = v2_add(xj, v2_scale(q->vj, q->tau_tilde));
  thr_vec2 d = v2_sub(q->ti, q->tj);
  float len = v2_len(d);
  q->c = len - rsum;
  if (!(q->c < 0.0f) || !(len > 0.0f)) return 0;
  q->n = v2_scale(d, 1.0f / len);
  q->ai = wi / wsum;
  q->aj = wj / wsum;
  return 1;
}

/* Is the predicted collision within a mode's horizon tau0? */
THR_HD int thr_lr_valid(const thr_lr_pred *q, float tau0) { return q->tau < tau0; }

/* Stiffness of a predicted collision: k exp(-tau_hat^2/tau0). */
THR_HD float thr_lr_stiffness(const thr_lr_pred *q, float k, float tau0) {
  return k * thr_expf(-(q->tau_hat * q->tau_hat) / tau0);
}

/* Size of i's response with stiffness s (negative; i moves along +n). The
 * paper corrects x~ by s w_i/(w_i+w_j) C and applies that to x*, "still a
 * constraint on x*" (THR_LR_DIRECT). x~ depends on x* through v
 * (dx~/dx* = tau_tilde/dt), so the PBD projection onto x* (gradient over
 * squared gradient norm) scales it by dt/tau_tilde (THR_LR_PROJECTED): the
 * move that makes the predicted trajectories just touch at tau_tilde. */
THR_HD float thr_lr_magnitude(const thr_lr_pred *q, float s, float dt, int response) {
  float m = s * q->ai * q->c;
  return response == THR_LR_PROJECTED ? m * (dt / q->tau_tilde) : m;
}

/* Section 4.4: i's share of the long-range collision response. */
THR_HD thr_vec2 thr_lr_collision(const thr_lr_pred *q, float s, float dt, int response) {
  return v2_scale(q->n, -thr_lr_magnitude(q, s, dt, response));
}

/* Section 4.5: the same response turned into the tangential direction of
 * the relative displacement d from x^ = x + tau_hat v to the projected x~
 * (eqs. 11-13), so that the pair slides past instead of braking. Returns 0
 * when d has no tangential part (an exactly head-on pair). */
THR_HD int thr_lr_avoidance(const thr_lr_pred *q, thr_vec2 xi, thr_vec2 xj, float s, float dt, int response,
                            thr_vec2 *dxi) {
  thr_vec2 ci = v2_sub(q->ti, v2_scale(q->n, q->ai * q->c));
  thr_vec2 cj = v2_add(q->tj, v2_scale(q->n, q->aj * q->c));
  thr_vec2 hi = v2_add(xi, v2_scale(q->vi, q->tau_hat));
  thr_vec2 hj = v2_add(xj, v2_scale(q->vj, q->tau_hat));
  thr_vec2 dd = v2_sub(v2_sub(ci, hi), v2_sub(cj, hj));
  thr_vec2 nc = v2_sub(ci, cj);
  float nlen = v2_len(nc);
  if (!(nlen > 0.0f)) return 0;
  nc = v2_scale(nc, 1.0f / nlen);
  thr_vec2 dtan = v2_sub(dd, v2_scale(nc, v2_dot(dd, nc)));
  float tlen = v2_len(dtan);
  if (!(tlen > 0.0f)) return 0;
  *dxi = v2_scale(dtan, -thr_lr_magnitude(q, s, dt, response) / tlen);
  return 1;
}

/* One pair, one mode, one response (tests and simple callers). Returns 1
 * and writes *dxi when the constraint is active. */
THR_HD int thr_long_range(thr_vec2 xi, thr_vec2 pi, thr_vec2 xj, thr_vec2 pj, float rsum, float wi,
                          float wj, float dt, float k, float tau0, int mode, int response, thr_vec2 *dxi) {
  thr_lr_pred q;
  if (!thr_lr_predict(xi, pi, xj, pj, rsum, wi, wj, dt, tau0, &q)) return 0;
  float s = thr_lr_stiffness(&q, k, tau0);
  if (mode == THR_LR_COLLISION) {
    *dxi = thr_lr_collision(&q, s, dt, response);
    return 1;
  }
  return thr_lr_avoidance(&q, xi, xj, s, dt, response, dxi);
}

/* ---- section 4.7: walls and obstacles ----------------------------------- */

/* Closest point to p on segment [a, b]. */
THR_HD thr_vec2 thr_closest_on_segment(thr_vec2 p, thr_vec2 a, thr_vec2 b) {
  thr_vec2 ab = v2_sub(b, a);
  float l2 = v2_len2(ab);
  if (!(l2 > 0.0f)) return a;
  float t = v2_dot(v2_sub(p, a), ab) / l2;
  t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  return v2_add(a, v2_scale(ab, t));
}

/* Does the path of an agent centre from q to p cross wall segment [a, b]?
 * Strict crossings, plus paths through the segment's start point a (and its
 * end point b when `include_end`): consecutive segments of a polyline then
 * count a path through their shared vertex exactly once. */
THR_HD int thr_path_crosses_wall(thr_vec2 q, thr_vec2 p, thr_vec2 a, thr_vec2 b, int include_end) {
  float d1 = v2_cross(v2_sub(b, a), v2_sub(q, a));
  float d2 = v2_cross(v2_sub(b, a), v2_sub(p, a));
  if (!((d1 > 0.0f && d2 < 0.0f) || (d1 < 0.0f && d2 > 0.0f))) return 0;
  float d3 = v2_cross(v2_sub(p, q), v2_sub(a, q));
  float d4 = v2_cross(v2_sub(p, q), v2_sub(b, q));
  if ((d3 > 0.0f && d4 < 0.0f) || (d3 < 0.0f && d4 > 0.0f)) return 1;
  return d3 == 0.0f || (include_end && d4 == 0.0f);
}

/* Contact with a static obstacle of infinite mass: the agent (radius rr,
 * already scaled) at signed distance `dist` along unit normal n (pointing
 * from the obstacle into free space) is pushed out. Returns 1 if active. */
THR_HD int thr_wall_contact(float dist, thr_vec2 n, float rr, float stiffness, thr_vec2 *dx) {
  float c = dist - rr;
  if (!(c < 0.0f)) return 0;
  *dx = v2_scale(n, -stiffness * c);
  return 1;
}

/* ---- section 4.3: XSPH cohesion ----------------------------------------- */

/* Poly6 kernel W(r, h) = 315/(64 pi h^9) (h^2 - r^2)^3 for r < h, given
 * r^2, h^2 and the precomputed coefficient. */
THR_HD float thr_poly6(float r2, float h2, float coef) {
  if (!(r2 < h2)) return 0.0f;
  float d = h2 - r2;
  return coef * d * d * d;
}

/* One term of eq. (3): (v_j - v_i) W. The paper prints (v_i - v_j), which
 * amplifies velocity differences; XSPH viscosity (Macklin and Mueller 2013)
 * uses v_j - v_i. See docs/paper-map.md. */
THR_HD thr_vec2 thr_xsph_term(thr_vec2 vi, thr_vec2 vj, float w) {
  return v2_scale(v2_sub(vj, vi), w);
}

/* ---- section 4.6: speed and acceleration limits ------------------------- */

/* Clamp the change of velocity to max_accel * dt, then the speed to
 * max_speed (a limit of 0 disables it). */
THR_HD thr_vec2 thr_clamp_velocity(thr_vec2 v, thr_vec2 v_old, float dt, float max_speed,
                                   float max_accel) {
  if (max_accel > 0.0f) {
    thr_vec2 dv = v2_sub(v, v_old);
    float l = v2_len(dv);
    float lim = max_accel * dt;
    if (l > lim) v = v2_add(v_old, v2_scale(dv, lim / l));
  }
  if (max_speed > 0.0f) {
    float s = v2_len(v);
    if (s > max_speed) v = v2_scale(v, max_speed / s);
  }
  return v;
}

/* Jacobi averaging: delta = omega / n * sum (n active constraints). */
THR_HD thr_vec2 thr_jacobi_average(thr_vec2 sum, int n, float omega) {
  if (n <= 0) return v2(0.0f, 0.0f);
  return v2_scale(sum, omega / (float)n);
}

#endif
