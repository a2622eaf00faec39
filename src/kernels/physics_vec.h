/* The physics of throng that holds in any dimension, written once and
 * compiled twice by physics.h (no include guard on purpose): for 2D agents
 * (thr_vec2, the names as they read) and for 3D agents (thr_vec3, the same
 * names with a 3 appended: thr_contact3, thr_lr_predict3, ...). Before
 * each inclusion physics.h defines
 *   THR_V        the vector type,
 *   THR_VOP(op)  its operation op (v2_add, v3_add, ...),
 *   THR_FN(name) the name of a function or type for that dimension.
 * The 2D instance is the arithmetic of the 2D engine, bit for bit; a 3D
 * value with z = 0 gives the 2D result bit for bit too (vec3.h). */

/* ---- section 4.1: planning, blending, prediction ------------------------ */

/* Preferred velocity towards target point g at preferred speed s; slows so
 * that it does not overshoot the target within one step. */
THR_HD THR_V THR_FN(thr_preferred_velocity)(THR_V x, THR_V g, float s, float dt) {
  THR_V d = THR_VOP(sub)(g, x);
  float len = THR_VOP(len)(d);
  if (!(len > 0.0f)) return THR_VOP(zero)();
  float speed = len / dt < s ? len / dt : s;
  return THR_VOP(scale)(d, speed / len);
}

/* Eq. (1): v_b = (1 - alpha) v + alpha v_p. */
THR_HD THR_V THR_FN(thr_blend_velocity)(THR_V v, THR_V vp, float alpha) {
  return THR_VOP(add)(THR_VOP(scale)(v, 1.0f - alpha), THR_VOP(scale)(vp, alpha));
}

/* Algorithm 1 line 4: x* = x + dt v_b. */
THR_HD THR_V THR_FN(thr_predict)(THR_V x, THR_V vb, float dt) {
  return THR_VOP(add)(x, THR_VOP(scale)(vb, dt));
}

/* ---- section 4.2: frictional contact ------------------------------------ */

/* Eq. (2) for disks i, j at positions pi, pj: C = |pi - pj| - dmin >= 0,
 * dmin = (ri + rj) * radius_scale. On violation writes i's correction
 * (weighted by inverse masses, times stiffness), the contact normal n (from j
 * to i) and the penetration depth, and returns 1. `tie` (+1 or -1, from the
 * order of the two ids) separates coincident disks deterministically. */
THR_HD int THR_FN(thr_contact)(THR_V pi, THR_V pj, float dmin, float wi, float wj, float stiffness,
                       float tie, THR_V *dxi, THR_V *n, float *pen) {
  float wsum = wi + wj;
  if (!(wsum > 0.0f)) return 0;
  THR_V d = THR_VOP(sub)(pi, pj);
  float len2 = THR_VOP(len2)(d);
  if (len2 >= dmin * dmin) return 0;
  float len = sqrtf(len2);
  *n = len > 0.0f ? THR_VOP(scale)(d, 1.0f / len) : THR_VOP(e1)(tie);
  float c = len - dmin; /* negative */
  *pen = -c;
  *dxi = THR_VOP(scale)(*n, -stiffness * (wi / wsum) * c);
  return 1;
}

/* Static and kinetic friction (Macklin et al. 2014, section 6.1): the
 * relative tangential displacement of the pair over the step is removed
 * entirely when small (static), else reduced by mu_k * pen (kinetic).
 * disp_i = x*_i - x_i, disp_j = x*_j - x_j. Returns i's correction. */
THR_HD THR_V THR_FN(thr_friction)(THR_V disp_i, THR_V disp_j, THR_V n, float pen, float wi,
                             float wj, float mu_s, float mu_k) {
  float wsum = wi + wj;
  THR_V d = THR_VOP(sub)(disp_i, disp_j);
  THR_V dt = THR_VOP(sub)(d, THR_VOP(scale)(n, THR_VOP(dot)(d, n)));
  float len = THR_VOP(len)(dt);
  if (!(len > 0.0f) || !(wsum > 0.0f)) return THR_VOP(zero)();
  float f = -(wi / wsum);
  if (len < mu_s * pen) return THR_VOP(scale)(dt, f);
  float removed = mu_k * pen / len; /* fraction of D_t removed: mu_k pen of it */
  if (removed > 1.0f) removed = 1.0f;
  return THR_VOP(scale)(dt, f * removed);
}

/* ---- section 4.4: long-range collision ---------------------------------- */

/* Eqs. (4)-(7): time until disks with relative position xij = xi - xj and
 * relative velocity vij touch (distance rsum). Returns -1 when they never
 * touch, are not approaching, or already overlap. */
THR_HD float THR_FN(thr_time_to_collision)(THR_V xij, THR_V vij, float rsum) {
  float a = THR_VOP(dot)(vij, vij);
  float b = -THR_VOP(dot)(xij, vij);
  float c = THR_VOP(dot)(xij, xij) - rsum * rsum;
  if (!(a > 1e-12f) || !(b > 0.0f) || !(c > 0.0f)) return -1.0f;
  float disc = b * b - a * c;
  if (!(disc > 0.0f)) return -1.0f;
  return (b - sqrtf(disc)) / a;
}

/* The predicted collision of a pair (sections 4.4, 4.5), shared by the
 * long-range and the avoidance responses so that a pair is predicted once. */
typedef struct THR_FN(thr_lr_pred) {
  float tau;                /* time to collision, eqs. (4)-(7) */
  float tau_hat, tau_tilde; /* eq. (9), (10) */
  float c;                  /* C(x~) < 0: overlap of the colliding positions */
  float ai, aj;             /* inverse-mass shares */
  THR_V n;               /* unit normal of x~_i - x~_j */
  THR_V ti, tj;          /* colliding positions x~ */
  THR_V vi, vj;          /* velocities (x* - x)/dt */
} THR_FN(thr_lr_pred);

/* xi, xj: positions at the start of the step; pi, pj: current predicted
 * positions x*. v = (x* - x)/dt. With a valid time to collision
 * 0 < tau < tau0: tau_hat = dt floor(tau/dt) (eq. 9), tau_tilde = tau_hat + dt
 * (eq. 10), and the colliding positions x~ = x + tau_tilde v overlap by C.
 * Returns 0 when there is no such collision. */
THR_HD int THR_FN(thr_lr_predict)(THR_V xi, THR_V pi, THR_V xj, THR_V pj, float rsum, float wi, float wj,
                          float dt, float tau0, THR_FN(thr_lr_pred) *q) {
  float wsum = wi + wj;
  if (!(wsum > 0.0f)) return 0;
  q->vi = THR_VOP(scale)(THR_VOP(sub)(pi, xi), 1.0f / dt);
  q->vj = THR_VOP(scale)(THR_VOP(sub)(pj, xj), 1.0f / dt);
  float tau = THR_FN(thr_time_to_collision)(THR_VOP(sub)(xi, xj), THR_VOP(sub)(q->vi, q->vj), rsum);
  if (!(tau > 0.0f) || !(tau < tau0)) return 0;
  q->tau = tau;
  q->tau_hat = dt * floorf(tau / dt);
  q->tau_tilde = q->tau_hat + dt;
  q->ti = THR_VOP(add)(xi, THR_VOP(scale)(q->vi, q->tau_tilde));
  q->tj = THR_VOP(add)(xj, THR_VOP(scale)(q->vj, q->tau_tilde));
  THR_V d = THR_VOP(sub)(q->ti, q->tj);
  float len = THR_VOP(len)(d);
  q->c = len - rsum;
  if (!(q->c < 0.0f) || !(len > 0.0f)) return 0;
  q->n = THR_VOP(scale)(d, 1.0f / len);
  q->ai = wi / wsum;
  q->aj = wj / wsum;
  return 1;
}

/* Is the predicted collision within a mode's horizon tau0? */
THR_HD int THR_FN(thr_lr_valid)(const THR_FN(thr_lr_pred) *q, float tau0) { return q->tau < tau0; }

/* Stiffness of a predicted collision: k exp(-tau_hat^2/tau0). */
THR_HD float THR_FN(thr_lr_stiffness)(const THR_FN(thr_lr_pred) *q, float k, float tau0) {
  return k * thr_expf(-(q->tau_hat * q->tau_hat) / tau0);
}

/* Size of i's response with stiffness s (negative; i moves along +n). The
 * paper corrects x~ by s w_i/(w_i+w_j) C, "still a constraint on x*": x~
 * depends on x* through v (dx~/dx* = tau_tilde/dt), so PBD's projection
 * onto x* (gradient over squared gradient norm) scales the correction by
 * dt/tau_tilde (THR_LR_PROJECTED, what the paper's equations give: the
 * move that makes the predicted trajectories just touch at tau_tilde).
 * THR_LR_DIRECT applies the correction of x~ to x* as it is (the WebGPU
 * port's reading, the default by measurement: docs/paper-map.md). */
THR_HD float THR_FN(thr_lr_magnitude)(const THR_FN(thr_lr_pred) *q, float s, float dt, int response) {
  float m = s * q->ai * q->c;
  return response == THR_LR_PROJECTED ? m * (dt / q->tau_tilde) : m;
}

/* Section 4.4: i's share of the long-range collision response. */
THR_HD THR_V THR_FN(thr_lr_collision)(const THR_FN(thr_lr_pred) *q, float s, float dt, int response) {
  return THR_VOP(scale)(q->n, -THR_FN(thr_lr_magnitude)(q, s, dt, response));
}

/* Section 4.5: the same response turned into the tangential direction of
 * the relative displacement d from x^ = x + tau_hat v to the projected x~
 * (eqs. 11-13), so that the pair slides past instead of braking. Returns 0
 * when d has no tangential part (an exactly head-on pair). */
THR_HD int THR_FN(thr_lr_avoidance)(const THR_FN(thr_lr_pred) *q, THR_V xi, THR_V xj, float s, float dt, int response,
                            THR_V *dxi) {
  THR_V ci = THR_VOP(sub)(q->ti, THR_VOP(scale)(q->n, q->ai * q->c));
  THR_V cj = THR_VOP(add)(q->tj, THR_VOP(scale)(q->n, q->aj * q->c));
  THR_V hi = THR_VOP(add)(xi, THR_VOP(scale)(q->vi, q->tau_hat));
  THR_V hj = THR_VOP(add)(xj, THR_VOP(scale)(q->vj, q->tau_hat));
  THR_V dd = THR_VOP(sub)(THR_VOP(sub)(ci, hi), THR_VOP(sub)(cj, hj));
  THR_V nc = THR_VOP(sub)(ci, cj);
  float nlen = THR_VOP(len)(nc);
  if (!(nlen > 0.0f)) return 0;
  nc = THR_VOP(scale)(nc, 1.0f / nlen);
  THR_V dtan = THR_VOP(sub)(dd, THR_VOP(scale)(nc, THR_VOP(dot)(dd, nc)));
  float tlen = THR_VOP(len)(dtan);
  if (!(tlen > 0.0f)) return 0;
  *dxi = THR_VOP(scale)(dtan, -THR_FN(thr_lr_magnitude)(q, s, dt, response) / tlen);
  return 1;
}

/* One pair, one mode, one response (tests and simple callers). Returns 1
 * and writes *dxi when the constraint is active. */
THR_HD int THR_FN(thr_long_range)(THR_V xi, THR_V pi, THR_V xj, THR_V pj, float rsum, float wi,
                          float wj, float dt, float k, float tau0, int mode, int response, THR_V *dxi) {
  THR_FN(thr_lr_pred) q;
  if (!THR_FN(thr_lr_predict)(xi, pi, xj, pj, rsum, wi, wj, dt, tau0, &q)) return 0;
  float s = THR_FN(thr_lr_stiffness)(&q, k, tau0);
  if (mode == THR_LR_COLLISION) {
    *dxi = THR_FN(thr_lr_collision)(&q, s, dt, response);
    return 1;
  }
  return THR_FN(thr_lr_avoidance)(&q, xi, xj, s, dt, response, dxi);
}

/* The long-range group's pair response (sections 4.4, 4.5), the part both
 * dimensions share: the collision response of predicted pair q into *sum
 * when `lr` applies, and the avoidance stiffness when `av` applies (the
 * usual case, equal parameters: one exponential for both; >= 0), else -1. */
THR_HD float THR_FN(thr_lr_respond)(const thr_params *prm, const THR_FN(thr_lr_pred) *q, int lr, int av, THR_V *sum,
                                     int *n) {
  float s_lr = 0.0f;
  int have_lr = 0;
  if (lr && THR_FN(thr_lr_valid)(q, prm->lr_tau0)) {
    have_lr = 1;
    s_lr = THR_FN(thr_lr_stiffness)(q, prm->lr_stiffness, prm->lr_tau0);
    *sum = THR_VOP(add)(*sum, THR_FN(thr_lr_collision)(q, s_lr, prm->dt, prm->lr_response));
    ++*n;
  }
  if (!(av && THR_FN(thr_lr_valid)(q, prm->av_tau0))) return -1.0f;
  return have_lr && prm->av_stiffness == prm->lr_stiffness && prm->av_tau0 == prm->lr_tau0
             ? s_lr
             : THR_FN(thr_lr_stiffness)(q, prm->av_stiffness, prm->av_tau0);
}


/* One term of eq. (3): (v_j - v_i) W. The paper prints (v_i - v_j), which
 * amplifies velocity differences; XSPH viscosity (Macklin and Mueller 2013)
 * uses v_j - v_i. See docs/paper-map.md. */
THR_HD THR_V THR_FN(thr_xsph_term)(THR_V vi, THR_V vj, float w) {
  return THR_VOP(scale)(THR_VOP(sub)(vj, vi), w);
}

/* ---- section 4.6: speed and acceleration limits ------------------------- */

/* Clamp the change of velocity to max_accel * dt, then the speed to
 * max_speed (a limit of 0 disables it). */
THR_HD THR_V THR_FN(thr_clamp_velocity)(THR_V v, THR_V v_old, float dt, float max_speed,
                                   float max_accel) {
  if (max_accel > 0.0f) {
    THR_V dv = THR_VOP(sub)(v, v_old);
    float l = THR_VOP(len)(dv);
    float lim = max_accel * dt;
    if (l > lim) v = THR_VOP(add)(v_old, THR_VOP(scale)(dv, lim / l));
  }
  if (max_speed > 0.0f) {
    float s = THR_VOP(len)(v);
    if (s > max_speed) v = THR_VOP(scale)(v, max_speed / s);
  }
  return v;
}

/* Jacobi averaging: delta = omega / n * sum (n active constraints). */
THR_HD THR_V THR_FN(thr_jacobi_average)(THR_V sum, int n, float omega) {
  if (n <= 0) return THR_VOP(zero)();
  return THR_VOP(scale)(sum, omega / (float)n);
}
