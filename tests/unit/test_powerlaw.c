/* Unit tests of the power-law interaction (kernels/powerlaw.h; Karamouzas
 * et al. 2014, the comparison of seed paper 000 section 5.3): the force of
 * a head-on pair computed by hand, the force against a numerical gradient
 * of the energy over random pairs, no force for pairs that do not collide,
 * overlapping pairs, the driving force and the cap. */
#include <math.h>

#include "check.h"
#include "kernels/powerlaw.h"
#include "kernels/rng.h"

/* i at the origin moving +1 m/s, j 4 m ahead moving -1 m/s, radii sum 1:
 * w = (-4, 0), v = (2, 0), tau = (4 - 1)/2 = 1.5 s; a = 4, b = 8, c = 15,
 * sqrt(b^2 - ac) = 2; w + v tau = (-1, 0);
 * |F| = 1.5 e^(-0.5) / 2.25 (2/1.5 + 1/3) / 2 = 0.336960... along -x. */
THR_TEST(head_on_pair_by_hand) {
  thr_vec2 f = thr_powerlaw_force(v2(-4.0f, 0.0f), v2(2.0f, 0.0f), 1.0f, 1.5f, 3.0f);
  double want = 1.5 * exp(-0.5) / 2.25 * (2.0 / 1.5 + 1.0 / 3.0) / 2.0;
  CHECK_NEAR(f.x, -want, 2e-6);
  CHECK(f.y == 0.0f);
  /* j's force is the opposite (w and v both flip) */
  thr_vec2 g = thr_powerlaw_force(v2(4.0f, 0.0f), v2(-2.0f, 0.0f), 1.0f, 1.5f, 3.0f);
  CHECK(g.x == -f.x && g.y == -f.y);
}

static double energy(double wx, double wy, double vx, double vy, double R, double k, double tau0) {
  double a = vx * vx + vy * vy, b = -(wx * vx + wy * vy), c = wx * wx + wy * wy - R * R;
  double disc = b * b - a * c;
  if (a <= 0 || b <= 0 || c <= 0 || disc <= 0) return 0.0;
  double tau = (b - sqrt(disc)) / a;
  return k / (tau * tau) * exp(-tau / tau0);
}

/* F = -grad_w E(tau(w)): over 2,000 random approaching pairs that would
 * touch, the closed form against central differences of the energy (double
 * precision), within 1e-3 relative. */
THR_TEST(force_is_minus_the_energy_gradient) {
  int checked = 0, bad = 0;
  for (uint32_t s = 0; s < 20000 && checked < 2000; ++s) {
    double wx = -1.0 - 6.0 * thr_rng_uniform(7, s, 0, 0), wy = 3.0 * (thr_rng_uniform(7, s, 0, 1) - 0.5);
    double vx = 0.5 + 2.5 * thr_rng_uniform(7, s, 0, 2), vy = 1.0 * (thr_rng_uniform(7, s, 0, 3) - 0.5);
    double R = 0.6 + 0.6 * thr_rng_uniform(7, s, 0, 4);
    if (energy(wx, wy, vx, vy, R, 1.5, 3.0) == 0.0) continue;
    /* away from the grazing edge, where the gradient is singular */
    double a = vx * vx + vy * vy, b = -(wx * vx + wy * vy), c = wx * wx + wy * wy - R * R;
    if (b * b - a * c < 0.05 * b * b) continue;
    double h = 1e-6, gx = -(energy(wx + h, wy, vx, vy, R, 1.5, 3.0) - energy(wx - h, wy, vx, vy, R, 1.5, 3.0)) / (2 * h);
    double gy = -(energy(wx, wy + h, vx, vy, R, 1.5, 3.0) - energy(wx, wy - h, vx, vy, R, 1.5, 3.0)) / (2 * h);
    thr_vec2 f = thr_powerlaw_force(v2((float)wx, (float)wy), v2((float)vx, (float)vy), (float)R, 1.5f, 3.0f);
    double err = hypot(f.x - gx, f.y - gy), scale = hypot(gx, gy);
    bad += err > 1e-3 * scale + 1e-6;
    ++checked;
  }
  CHECK(checked == 2000);
  CHECK(bad == 0);
}

/* No collision, no force: separating, passing wide, at rest together. */
THR_TEST(no_force_without_a_collision) {
  thr_vec2 f = thr_powerlaw_force(v2(-4.0f, 0.0f), v2(-1.0f, 0.0f), 1.0f, 1.5f, 3.0f); /* separating */
  CHECK(f.x == 0.0f && f.y == 0.0f);
  f = thr_powerlaw_force(v2(-4.0f, -2.0f), v2(1.0f, 0.0f), 1.0f, 1.5f, 3.0f); /* passes 2 m apart */
  CHECK(f.x == 0.0f && f.y == 0.0f);
  f = thr_powerlaw_force(v2(-4.0f, 0.0f), v2(0.0f, 0.0f), 1.0f, 1.5f, 3.0f); /* both at rest */
  CHECK(f.x == 0.0f && f.y == 0.0f);
}

/* Overlapping discs (distance 0.8 < R = 1) approaching at 1 m/s interact
 * as if R were 0.792: tau = 0.008 s, a large force pushing them apart;
 * separating, none. */
THR_TEST(overlapping_pairs) {
  thr_vec2 f = thr_powerlaw_force(v2(-0.8f, 0.0f), v2(1.0f, 0.0f), 1.0f, 1.5f, 3.0f);
  thr_vec2 g = thr_powerlaw_force(v2(-0.8f, 0.0f), v2(1.0f, 0.0f), 0.792f, 1.5f, 3.0f);
  CHECK(f.x < -1e4f && f.x == g.x && f.y == 0.0f);
  f = thr_powerlaw_force(v2(-0.8f, 0.0f), v2(-1.0f, 0.0f), 1.0f, 1.5f, 3.0f);
  CHECK(f.x == 0.0f && f.y == 0.0f);
}

/* Driving force (v_pref - v)/xi, and the cap on the total. */
THR_TEST(driving_and_cap) {
  thr_vec2 d = thr_powerlaw_driving(v2(1.4f, 0.0f), v2(0.86f, 0.0f), 0.54f);
  CHECK_NEAR(d.x, 1.0, 1e-6);
  thr_vec2 c = thr_powerlaw_cap(v2(30.0f, 40.0f), 20.0f);
  CHECK_NEAR(c.x, 12.0, 1e-5);
  CHECK_NEAR(c.y, 16.0, 1e-5);
  c = thr_powerlaw_cap(v2(3.0f, 4.0f), 20.0f);
  CHECK(c.x == 3.0f && c.y == 4.0f);
  c = thr_powerlaw_cap(v2(300.0f, 400.0f), 0.0f);
  CHECK(c.x == 300.0f);
}
