/* The power-law model's interaction (Karamouzas, Skinner & Guy 2014,
 * "Universal power law governing pedestrian interactions", PRL 113,
 * 238701; the comparison of seed paper 000, section 5.3 and Fig. 11;
 * docs/powerlaw.md). Two agents interact through the energy
 *   E(tau) = k / tau^2 exp(-tau / tau0)
 * of their time to collision tau, the same function the PBD long-range
 * constraint uses (physics_vec.h, eqs. 4-7 of 000). The force on agent i is
 * -grad E with respect to the relative position w = x_i - x_j:
 *   tau solves |w + v tau| = R (v = v_i - v_j, R = r_i + r_j), so
 *   grad_w tau = (w + v tau) / sqrt(disc), sqrt(disc) = b - a tau
 *   (a = v.v, b = -w.v), and
 *   F = k exp(-tau/tau0) / tau^2 (2/tau + 1/tau0) (w + v tau) / sqrt(disc):
 * along the relative position at the moment of contact, away from it.
 * Forces are per unit mass (the 2014 agents have unit mass: k = 1.5 m^2/s^2). */
#ifndef THRONG_POWERLAW_H
#define THRONG_POWERLAW_H

#include "base/hostdevice.h"
#include "base/vec2.h"
#include "fpmath.h"
#include "physics.h"

/* The interaction of agent i with a disc at relative position w = x_i - x_j
 * moving at relative velocity v = v_i - v_j, radii sum R: zero unless they
 * are approaching and would touch. Discs that already overlap interact as
 * if their radii summed to 99 % of their distance (a choice: the 2014
 * energy is infinite at contact; docs/powerlaw.md). */
THR_HD thr_vec2 thr_powerlaw_force(thr_vec2 w, thr_vec2 v, float R, float k, float tau0) {
  float d2 = v2_len2(w);
  if (!(d2 > R * R)) R = 0.99f * sqrtf(d2);
  float tau = thr_time_to_collision(w, v, R);
  if (!(tau > 0.0f)) return v2(0.0f, 0.0f);
  float sq = -v2_dot(w, v) - v2_dot(v, v) * tau; /* sqrt(b^2 - a c) */
  if (!(sq > 0.0f)) return v2(0.0f, 0.0f);
  float mag = k * thr_expf(-tau / tau0) / (tau * tau) * (2.0f / tau + 1.0f / tau0) / sq;
  return v2_scale(v2_add(w, v2_scale(v, tau)), mag);
}

/* The driving force (v_pref - v) / xi, per unit mass. */
THR_HD thr_vec2 thr_powerlaw_driving(thr_vec2 v_pref, thr_vec2 v, float xi) {
  return v2_scale(v2_sub(v_pref, v), 1.0f / xi);
}

/* a scaled down to at most cap in magnitude (cap 0: no cap). */
THR_HD thr_vec2 thr_powerlaw_cap(thr_vec2 a, float cap) {
  float l = v2_len(a);
  return cap > 0.0f && l > cap ? v2_scale(a, cap / l) : a;
}

#endif
