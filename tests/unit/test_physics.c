/* Unit tests of kernels/physics.h against hand-computed results.
 *
 * Every expected value below is a literal worked out by hand (or in Python
 * double precision from the paper's equations); the comment next to it shows
 * the arithmetic. Single precision: tolerances are 1e-6 absolute for O(1)
 * values unless a comment says otherwise. */
#include <math.h>

#include "check.h"
#include "kernels/physics.h"

#define TOL 1e-6

/* ---- section 4.2: contact ---------------------------------------------- */

/* Equal masses, stiffness 1: pi = (1, 1), pj = (1.48, 1.64), dmin = 1.
 * pi - pj = (-0.48, -0.64), |.| = 0.8, n = (-0.6, -0.8), C = 0.8 - 1 = -0.2,
 * each agent takes half of the 0.2 gap: dxi = 0.1 n = (-0.06, -0.08),
 * dxj = (+0.06, +0.08); afterwards the distance is exactly dmin. */
THR_TEST(contact_equal_masses) {
  thr_vec2 pi = v2(1.0f, 1.0f), pj = v2(1.48f, 1.64f);
  thr_vec2 dxi = v2(9.0f, 9.0f), dxj = v2(9.0f, 9.0f), ni = v2(0.0f, 0.0f), nj = v2(0.0f, 0.0f);
  float peni = -1.0f, penj = -1.0f;
  CHECK(thr_contact(pi, pj, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, &dxi, &ni, &peni) == 1);
  CHECK(thr_contact(pj, pi, 1.0f, 1.0f, 1.0f, 1.0f, -1.0f, &dxj, &nj, &penj) == 1);
  CHECK_NEAR(ni.x, -0.6, TOL);
  CHECK_NEAR(ni.y, -0.8, TOL);
  CHECK_NEAR(nj.x, 0.6, TOL);
  CHECK_NEAR(nj.y, 0.8, TOL);
  CHECK_NEAR(peni, 0.2, TOL);
  CHECK_NEAR(penj, 0.2, TOL);
  CHECK_NEAR(dxi.x, -0.06, TOL);
  CHECK_NEAR(dxi.y, -0.08, TOL);
  CHECK_NEAR(dxj.x, 0.06, TOL);
  CHECK_NEAR(dxj.y, 0.08, TOL);
  /* equal and opposite */
  CHECK_NEAR(dxi.x + dxj.x, 0.0, 1e-7);
  CHECK_NEAR(dxi.y + dxj.y, 0.0, 1e-7);
  /* the gap is closed exactly: |(pi + dxi) - (pj + dxj)| = 1 */
  CHECK_NEAR(v2_len(v2_sub(v2_add(pi, dxi), v2_add(pj, dxj))), 1.0, TOL);
}

/* Stiffness scales the correction linearly: same pair, stiffness 0.5 ->
 * dxi = 0.5 * 0.1 * n = (-0.03, -0.04); the depth is still 0.2. */
THR_TEST(contact_stiffness) {
  thr_vec2 dxi = v2(0.0f, 0.0f), n = v2(0.0f, 0.0f);
  float pen = 0.0f;
  CHECK(thr_contact(v2(1.0f, 1.0f), v2(1.48f, 1.64f), 1.0f, 1.0f, 1.0f, 0.5f, 1.0f, &dxi, &n,
                    &pen) == 1);
  CHECK_NEAR(dxi.x, -0.03, TOL);
  CHECK_NEAR(dxi.y, -0.04, TOL);
  CHECK_NEAR(pen, 0.2, TOL);
}

/* Masses 1 and 3 -> w = 1 and 1/3, wsum = 4/3. pi = (0, 0), pj = (0.8, 0),
 * dmin = 1: gap 0.2, n = (-1, 0). i (light) moves 0.2 * 1/(4/3) = 0.15,
 * j (heavy) moves 0.2 * (1/3)/(4/3) = 0.05: ratio 3:1, sum = the gap. */
THR_TEST(contact_unequal_masses) {
  thr_vec2 pi = v2(0.0f, 0.0f), pj = v2(0.8f, 0.0f), dxi = v2(0.0f, 0.0f), dxj = v2(0.0f, 0.0f),
           n = v2(0.0f, 0.0f);
  float pen = 0.0f;
  const float wi = 1.0f, wj = 1.0f / 3.0f;
  CHECK(thr_contact(pi, pj, 1.0f, wi, wj, 1.0f, 1.0f, &dxi, &n, &pen) == 1);
  CHECK(thr_contact(pj, pi, 1.0f, wj, wi, 1.0f, -1.0f, &dxj, &n, &pen) == 1);
  CHECK_NEAR(dxi.x, -0.15, TOL);
  CHECK_NEAR(dxi.y, 0.0, TOL);
  CHECK_NEAR(dxj.x, 0.05, TOL);
  CHECK_NEAR(dxj.y, 0.0, TOL);
  CHECK_NEAR(dxi.x / dxj.x, -3.0, 1e-5);
  CHECK_NEAR(dxj.x - dxi.x, 0.2, TOL); /* together they close the gap */
  CHECK_NEAR((pj.x + dxj.x) - (pi.x + dxi.x), 1.0, TOL);
}

/* Infinite mass partner (w = 0): i takes the whole gap; the static agent
 * gets nothing; two static agents produce no constraint. */
THR_TEST(contact_static_partner) {
  thr_vec2 dx = v2(0.0f, 0.0f), n = v2(0.0f, 0.0f);
  float pen = 0.0f;
  CHECK(thr_contact(v2(0.0f, 0.0f), v2(0.0f, 0.7f), 1.0f, 1.0f, 0.0f, 1.0f, 1.0f, &dx, &n, &pen));
  CHECK_NEAR(dx.x, 0.0, TOL);
  CHECK_NEAR(dx.y, -0.3, TOL); /* 0.7 - 1 = -0.3, n = (0, -1) */
  CHECK(thr_contact(v2(0.0f, 0.7f), v2(0.0f, 0.0f), 1.0f, 0.0f, 1.0f, 1.0f, -1.0f, &dx, &n, &pen));
  CHECK_NEAR(dx.x, 0.0, TOL);
  CHECK_NEAR(dx.y, 0.0, TOL);
  CHECK(thr_contact(v2(0.0f, 0.0f), v2(0.0f, 0.7f), 1.0f, 0.0f, 0.0f, 1.0f, 1.0f, &dx, &n, &pen) ==
        0);
}

/* Separated (1.5 > 1) and exactly touching (|d| = 1 = dmin, C = 0 >= 0) are
 * not violations; outputs untouched. */
THR_TEST(contact_separated) {
  thr_vec2 dx = v2(7.0f, 7.0f), n = v2(7.0f, 7.0f);
  float pen = 7.0f;
  CHECK(thr_contact(v2(0.0f, 0.0f), v2(1.5f, 0.0f), 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, &dx, &n, &pen) ==
        0);
  CHECK(thr_contact(v2(0.0f, 0.0f), v2(0.0f, 1.0f), 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, &dx, &n, &pen) ==
        0);
  CHECK(thr_contact(v2(0.0f, 0.0f), v2(-3.0f, 4.0f), 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, &dx, &n, &pen) ==
        0);
  CHECK(dx.x == 7.0f && dx.y == 7.0f && n.x == 7.0f && n.y == 7.0f && pen == 7.0f);
}

/* Radius scale (section 5.1: +5%): r = 0.5 + 0.5, distance 1.02.
 * Unscaled dmin = 1: separated. dmin = 1 * 1.05 = 1.05: pen = 0.03, each
 * agent moves 0.015 along the normal (here +x for i at (1.02, 0)). */
THR_TEST(contact_radius_scale) {
  thr_vec2 pi = v2(1.02f, 0.0f), pj = v2(0.0f, 0.0f), dx = v2(0.0f, 0.0f), n = v2(0.0f, 0.0f);
  float pen = 0.0f;
  const float ri = 0.5f, rj = 0.5f, scale = 1.05f;
  CHECK(thr_contact(pi, pj, ri + rj, 1.0f, 1.0f, 1.0f, 1.0f, &dx, &n, &pen) == 0);
  CHECK(thr_contact(pi, pj, (ri + rj) * scale, 1.0f, 1.0f, 1.0f, 1.0f, &dx, &n, &pen) == 1);
  CHECK_NEAR(pen, 0.03, TOL);
  CHECK_NEAR(n.x, 1.0, TOL);
  CHECK_NEAR(n.y, 0.0, TOL);
  CHECK_NEAR(dx.x, 0.015, TOL);
  CHECK_NEAR(dx.y, 0.0, TOL);
}

/* Coincident disks: normal (tie, 0). With dmin 1 and equal masses, i
 * (tie +1) moves +0.5 x, j (tie -1) moves -0.5 x: separated by exactly 1. */
THR_TEST(contact_coincident_tie) {
  thr_vec2 p = v2(2.0f, 3.0f), dxi = v2(0.0f, 0.0f), dxj = v2(0.0f, 0.0f), ni = v2(0.0f, 0.0f),
           nj = v2(0.0f, 0.0f);
  float peni = 0.0f, penj = 0.0f;
  CHECK(thr_contact(p, p, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, &dxi, &ni, &peni) == 1);
  CHECK(thr_contact(p, p, 1.0f, 1.0f, 1.0f, 1.0f, -1.0f, &dxj, &nj, &penj) == 1);
  CHECK(ni.x == 1.0f && ni.y == 0.0f);
  CHECK(nj.x == -1.0f && nj.y == 0.0f);
  CHECK_NEAR(peni, 1.0, TOL);
  CHECK_NEAR(dxi.x, 0.5, TOL);
  CHECK_NEAR(dxi.y, 0.0, TOL);
  CHECK_NEAR(dxj.x, -0.5, TOL);
  CHECK_NEAR(dxj.y, 0.0, TOL);
}

/* ---- friction (Macklin et al. 2014, eq. 24) ----------------------------- */

/* n = (1, 0) (from j to i), pen = 0.1, masses 1 and 3 (w = 1, 1/3).
 * disp_i = (0.3, 0.01), disp_j = (-0.2, -0.005): relative (0.5, 0.015),
 * tangential part (0, 0.015), |.| = 0.015 < mu_s pen = 0.21 * 0.1 = 0.021
 * -> static: the whole 0.015 is removed, 3/4 by i, 1/4 by j (kinetic
 * friction with mu_k = 0.1 would remove only mu_k pen = 0.01):
 * dxi = -(1/(4/3)) (0, 0.015) = (0, -0.01125), dxj = +(1/4)(0, 0.015)
 * = (0, 0.00375). Normal components are untouched (x = 0). */
THR_TEST(friction_static) {
  thr_vec2 n = v2(1.0f, 0.0f), di = v2(0.3f, 0.01f), dj = v2(-0.2f, -0.005f);
  const float wi = 1.0f, wj = 1.0f / 3.0f, pen = 0.1f, mus = 0.21f, muk = 0.1f;
  thr_vec2 fi = thr_friction(di, dj, n, pen, wi, wj, mus, muk);
  thr_vec2 fj = thr_friction(dj, di, v2(-1.0f, 0.0f), pen, wj, wi, mus, muk);
  CHECK_NEAR(fi.x, 0.0, 1e-7);
  CHECK_NEAR(fi.y, -0.01125, TOL);
  CHECK_NEAR(fj.x, 0.0, 1e-7);
  CHECK_NEAR(fj.y, 0.00375, TOL);
  /* shares sum to the removal: relative tangential displacement afterwards */
  float rel_t = (di.y + fi.y) - (dj.y + fj.y); /* 0.015 - 0.01125 - 0.00375 */
  CHECK_NEAR(rel_t, 0.0, 1e-7);
  CHECK_NEAR(fi.y / fj.y, -3.0, 1e-5); /* mass weighted: w_i : w_j = 3 : 1 */
}

/* Kinetic: same setup but disp_i = (0.3, 0.04), disp_j = (-0.2, -0.01):
 * tangential relative (0, 0.05), 0.05 >= 0.021 -> kinetic. Coulomb: the
 * relative tangential displacement is reduced BY mu_k pen = 0.15 * 0.1 =
 * 0.015 (to 0.05 - 0.015 = 0.035). dxi = -(3/4) 0.015 (0,1) = (0, -0.01125),
 * dxj = +(1/4) 0.015 (0,1) = (0, 0.00375). */
THR_TEST(friction_kinetic) {
  thr_vec2 n = v2(1.0f, 0.0f), di = v2(0.3f, 0.04f), dj = v2(-0.2f, -0.01f);
  const float wi = 1.0f, wj = 1.0f / 3.0f, pen = 0.1f, mus = 0.21f, muk = 0.15f;
  thr_vec2 fi = thr_friction(di, dj, n, pen, wi, wj, mus, muk);
  thr_vec2 fj = thr_friction(dj, di, v2(-1.0f, 0.0f), pen, wj, wi, mus, muk);
  CHECK_NEAR(fi.x, 0.0, 1e-7);
  CHECK_NEAR(fi.y, -0.01125, TOL);
  CHECK_NEAR(fj.x, 0.0, 1e-7);
  CHECK_NEAR(fj.y, 0.00375, TOL);
  CHECK_NEAR(fj.y - fi.y, 0.015, TOL); /* removed = mu_k pen exactly */
  float rel_t = (di.y + fi.y) - (dj.y + fj.y);
  CHECK_NEAR(rel_t, 0.035, TOL);
  /* diagonal normal: n = (0.6, 0.8), tangent t = (-0.8, 0.6); relative
   * displacement 0.2 t + 0.3 n, pen 0.5, mu_s 0.3 (0.2 >= 0.15: kinetic),
   * mu_k 0.1 -> removes 0.05 along t, equal masses -> dxi = -0.025 t
   * = (0.02, -0.015). */
  thr_vec2 t = v2(-0.8f, 0.6f), nn = v2(0.6f, 0.8f);
  thr_vec2 d = v2_add(v2_scale(t, 0.2f), v2_scale(nn, 0.3f));
  thr_vec2 g = thr_friction(d, v2(0.0f, 0.0f), nn, 0.5f, 1.0f, 1.0f, 0.3f, 0.1f);
  CHECK_NEAR(g.x, 0.02, TOL);
  CHECK_NEAR(g.y, -0.015, TOL);
}

/* mu_k pen larger than the tangential motion: clamped to a full removal
 * (min(mu_k d/|dx|, 1)). Also no tangential motion -> zero. */
THR_TEST(friction_kinetic_clamp_and_zero) {
  thr_vec2 n = v2(0.0f, 1.0f);
  /* tangential (0.02, 0), pen 0.1, mu_s 0.1 -> 0.02 >= 0.01 kinetic;
   * mu_k 0.5 -> 0.05 > 0.02 -> keep = 1: dxi = -(1/2)(0.02, 0) */
  thr_vec2 f = thr_friction(v2(0.02f, 0.3f), v2(0.0f, 0.0f), n, 0.1f, 1.0f, 1.0f, 0.1f, 0.5f);
  CHECK_NEAR(f.x, -0.01, TOL);
  CHECK_NEAR(f.y, 0.0, 1e-7);
  /* purely normal relative motion */
  f = thr_friction(v2(0.0f, 0.3f), v2(0.0f, -0.1f), n, 0.1f, 1.0f, 1.0f, 0.5f, 0.4f);
  CHECK(f.x == 0.0f && f.y == 0.0f);
  /* both static */
  f = thr_friction(v2(0.02f, 0.0f), v2(0.0f, 0.0f), n, 0.1f, 0.0f, 0.0f, 0.5f, 0.4f);
  CHECK(f.x == 0.0f && f.y == 0.0f);
}

/* ---- eqs. (4)-(7): time to collision ------------------------------------ */

/* Head-on: xi = (0, 0), xj = (5, 0), vi = (1, 0), vj = (-1.5, 0), rsum = 1.
 * xij = (-5, 0), vij = (2.5, 0): a = 6.25, b = -xij.vij = 12.5,
 * c = 25 - 1 = 24, b^2 - ac = 156.25 - 150 = 6.25, sqrt = 2.5,
 * tau = (12.5 - 2.5) / 6.25 = 1.6 (gap 5 - 1 = 4 closed at 2.5/s). */
THR_TEST(ttc_head_on) {
  float tau = thr_time_to_collision(v2(-5.0f, 0.0f), v2(2.5f, 0.0f), 1.0f);
  CHECK_NEAR(tau, 1.6, TOL);
  /* symmetric: j's view (xji = -xij, vji = -vij) gives the same tau */
  CHECK_NEAR(thr_time_to_collision(v2(5.0f, 0.0f), v2(-2.5f, 0.0f), 1.0f), 1.6, TOL);
}

/* Offset: xij = (-4, -0.6), vij = (2, 0), rsum = 1: a = 4, b = 8,
 * c = 16 + 0.36 - 1 = 15.36, disc = 64 - 61.44 = 2.56, sqrt = 1.6,
 * tau = (8 - 1.6)/4 = 1.6. Check: (-4 + 2*1.6)^2 + 0.36 = 0.64 + 0.36 = 1.
 * Diagonal: xij = (-3, -4), vij = (1, 1), rsum = 1.5: a = 2, b = 7,
 * c = 25 - 2.25 = 22.75, disc = 49 - 45.5 = 3.5,
 * tau = (7 - sqrt(3.5))/2 = (7 - 1.8708287)/2 = 2.5645857. */
THR_TEST(ttc_offset) {
  CHECK_NEAR(thr_time_to_collision(v2(-4.0f, -0.6f), v2(2.0f, 0.0f), 1.0f), 1.6, 2e-6);
  float tau = thr_time_to_collision(v2(-3.0f, -4.0f), v2(1.0f, 1.0f), 1.5f);
  CHECK_NEAR(tau, 2.5645857, 2e-6);
  /* at tau the distance is rsum: |(-3 + tau, -4 + tau)| = 1.5 */
  CHECK_NEAR(sqrt((tau - 3.0) * (tau - 3.0) + (tau - 4.0) * (tau - 4.0)), 1.5, 2e-6);
}

/* Invalid cases: no future contact must give a non-positive time. */
THR_TEST(ttc_invalid) {
  /* diverging: xij = (2, 0), vij = (1, 0): b = -2 < 0; both roots
   * (-2 -+ 1)/1 = -3, -1 lie in the past -> no future contact. */
  CHECK(!(thr_time_to_collision(v2(2.0f, 0.0f), v2(1.0f, 0.0f), 1.0f) > 0.0f));
  /* already overlapping: |xij| = 0.5 < 1 -> c < 0 -> -1 */
  CHECK(thr_time_to_collision(v2(0.5f, 0.0f), v2(-1.0f, 0.0f), 1.0f) == -1.0f);
  /* missing each other: xij = (-4, 2), vij = (1, 0): a = 1, b = 4,
   * c = 20 - 1 = 19, disc = 16 - 19 = -3 < 0 -> -1 */
  CHECK(thr_time_to_collision(v2(-4.0f, 2.0f), v2(1.0f, 0.0f), 1.0f) == -1.0f);
  /* grazing exactly (offset = rsum = 1): disc = 16 - 16 = 0 -> -1 */
  CHECK(thr_time_to_collision(v2(-4.0f, 1.0f), v2(1.0f, 0.0f), 1.0f) == -1.0f);
  /* no relative motion */
  CHECK(thr_time_to_collision(v2(-4.0f, 0.0f), v2(0.0f, 0.0f), 1.0f) == -1.0f);
}

/* ---- section 4.4: long-range collision ---------------------------------- */

/* Worked example (equal masses, dt = 0.25, k = 0.7, tau0 = 20, rsum = 1):
 * xi = (0, 0), pi = (0.25, 0)    -> vi = (1, 0)
 * xj = (4, 0.6), pj = (3.75, 0.6) -> vj = (-1, 0)
 * tau = 1.6 (ttc_offset); tau_hat = 0.25 floor(6.4) = 1.5; tau_tilde = 1.75.
 * x~i = (1.75, 0), x~j = (4 - 1.75, 0.6) = (2.25, 0.6),
 * d = (-0.5, -0.6), |d| = sqrt(0.61) = 0.78102497, C = -0.21897503,
 * n = (-0.5, -0.6)/0.78102497 = (-0.64018440, -0.76822128),
 * s = 0.7 exp(-1.5^2/20) = 0.7 exp(-0.1125) = 0.62551814,
 * projection onto x* (dx~/dx* = tau_tilde/dt = 7): lever dt/tau_tilde = 1/7,
 * dxi = -s (1/2) C (1/7) n = (-0.00626342, -0.00751610); dxj = -dxi. */
THR_TEST(longrange_collision_worked) {
  thr_vec2 xi = v2(0.0f, 0.0f), pi = v2(0.25f, 0.0f), xj = v2(4.0f, 0.6f), pj = v2(3.75f, 0.6f);
  thr_vec2 dxi = v2(0.0f, 0.0f), dxj = v2(0.0f, 0.0f);
  CHECK(thr_long_range(xi, pi, xj, pj, 1.0f, 1.0f, 1.0f, 0.25f, 0.7f, 20.0f, THR_LR_COLLISION, THR_LR_PROJECTED,
                       &dxi) == 1);
  CHECK(thr_long_range(xj, pj, xi, pi, 1.0f, 1.0f, 1.0f, 0.25f, 0.7f, 20.0f, THR_LR_COLLISION, THR_LR_PROJECTED,
                       &dxj) == 1);
  CHECK_NEAR(dxi.x, -0.00626342, TOL);
  CHECK_NEAR(dxi.y, -0.00751610, TOL);
  CHECK_NEAR(dxj.x, 0.00626342, TOL);
  CHECK_NEAR(dxj.y, 0.00751610, TOL);
  /* direction: along -n of x~ (away from j's predicted colliding spot) */
  CHECK_NEAR(dxi.x * 0.6f - dxi.y * 0.5f, 0.0, 1e-7); /* parallel to (-0.5, -0.6) */
  /* a different stiffness pair: k = 2, tau0 = 5: s = 2 exp(-2.25/5)
   * = 1.27525630, dxi = (-0.01276936, -0.01532323). Using tau (1.6)
   * instead of tau_hat would give 2 exp(-2.56/5) = 1.198..., and the
   * geometry at tau_tilde = tau + dt would differ: this pins eq. (9)-(10). */
  CHECK(thr_long_range(xi, pi, xj, pj, 1.0f, 1.0f, 1.0f, 0.25f, 2.0f, 5.0f, THR_LR_COLLISION, THR_LR_PROJECTED,
                       &dxi) == 1);
  CHECK_NEAR(dxi.x, -0.01276936, TOL);
  CHECK_NEAR(dxi.y, -0.01532323, TOL);
}

/* The same pair with the paper's direct response (long_range.response:
 * direct): x~'s correction applied to x* as is, without the lever
 * dt/tau_tilde = 1/7: dxi = -s (1/2) C n = (-0.04384394, -0.05261270), 7x
 * the projected one; the avoidance response likewise 7x its projected
 * worked value (avoidance_tangential): (0.05261270, -0.04384394). */
THR_TEST(longrange_direct_response_worked) {
  thr_vec2 xi = v2(0.0f, 0.0f), pi = v2(0.25f, 0.0f), xj = v2(4.0f, 0.6f), pj = v2(3.75f, 0.6f);
  thr_vec2 d = v2(0.0f, 0.0f);
  CHECK(thr_long_range(xi, pi, xj, pj, 1.0f, 1.0f, 1.0f, 0.25f, 0.7f, 20.0f, THR_LR_COLLISION, THR_LR_DIRECT,
                       &d) == 1);
  CHECK_NEAR(d.x, -0.04384394, TOL);
  CHECK_NEAR(d.y, -0.05261270, TOL);
  CHECK(thr_long_range(xi, pi, xj, pj, 1.0f, 1.0f, 1.0f, 0.25f, 0.7f, 20.0f, THR_LR_AVOIDANCE, THR_LR_DIRECT,
                       &d) == 1);
  CHECK_NEAR(d.x, 0.05261270, TOL);
  CHECK_NEAR(d.y, -0.04384394, TOL);
}

/* Same geometry with masses 1 and 3 (w = 1, 1/3): ai = 3/4, aj = 1/4.
 * dxi = -s (3/4) C (1/7) n = (-0.00939513, -0.01127416),
 * dxj = +s (1/4) C (1/7) ... = (0.00313171, 0.00375805). */
THR_TEST(longrange_collision_unequal_masses) {
  thr_vec2 xi = v2(0.0f, 0.0f), pi = v2(0.25f, 0.0f), xj = v2(4.0f, 0.6f), pj = v2(3.75f, 0.6f);
  thr_vec2 dxi = v2(0.0f, 0.0f), dxj = v2(0.0f, 0.0f);
  const float wi = 1.0f, wj = 1.0f / 3.0f;
  CHECK(thr_long_range(xi, pi, xj, pj, 1.0f, wi, wj, 0.25f, 0.7f, 20.0f, THR_LR_COLLISION, THR_LR_PROJECTED, &dxi));
  CHECK(thr_long_range(xj, pj, xi, pi, 1.0f, wj, wi, 0.25f, 0.7f, 20.0f, THR_LR_COLLISION, THR_LR_PROJECTED, &dxj));
  CHECK_NEAR(dxi.x, -0.00939513, TOL);
  CHECK_NEAR(dxi.y, -0.01127416, TOL);
  CHECK_NEAR(dxj.x, 0.00313171, TOL);
  CHECK_NEAR(dxj.y, 0.00375805, TOL);
}

/* tau < dt: tau_hat = 0, tau_tilde = dt, stiffness k exp(0) = k exactly.
 * xi = (0, 0) -> pi = (0.25, 0); xj = (1.2, 0) -> pj = (0.95, 0), dt 0.25:
 * vij = (2, 0), gap 0.2 -> tau = 0.1. x~ = x* : d = (-0.7, 0), C = -0.3,
 * n = (-1, 0), k = 0.8: dxi = -0.8 (1/2)(-0.3)(-1, 0) = (-0.12, 0). This is
 * an ordinary contact on x* with stiffness k. */
THR_TEST(longrange_tau_hat_zero) {
  thr_vec2 dx = v2(0.0f, 0.0f);
  CHECK(thr_long_range(v2(0.0f, 0.0f), v2(0.25f, 0.0f), v2(1.2f, 0.0f), v2(0.95f, 0.0f), 1.0f, 1.0f,
                       1.0f, 0.25f, 0.8f, 20.0f, THR_LR_COLLISION, THR_LR_PROJECTED, &dx) == 1);
  CHECK_NEAR(dx.x, -0.12, TOL);
  CHECK_NEAR(dx.y, 0.0, TOL);
}

/* Only 0 < tau < tau0 is valid. */
THR_TEST(longrange_invalid) {
  thr_vec2 xi = v2(0.0f, 0.0f), pi = v2(0.25f, 0.0f), xj = v2(4.0f, 0.6f), pj = v2(3.75f, 0.6f);
  thr_vec2 dx = v2(5.0f, 5.0f);
  /* tau = 1.6 >= tau0 = 1.5 */
  CHECK(thr_long_range(xi, pi, xj, pj, 1.0f, 1.0f, 1.0f, 0.25f, 0.7f, 1.5f, THR_LR_COLLISION, THR_LR_PROJECTED,
                       &dx) == 0);
  CHECK(thr_long_range(xi, pi, xj, pj, 1.0f, 1.0f, 1.0f, 0.25f, 0.7f, 1.5f, THR_LR_AVOIDANCE, THR_LR_PROJECTED,
                       &dx) == 0);
  /* tau0 = 1.7 > 1.6: active */
  CHECK(thr_long_range(xi, pi, xj, pj, 1.0f, 1.0f, 1.0f, 0.25f, 0.7f, 1.7f, THR_LR_COLLISION, THR_LR_PROJECTED,
                       &dx) == 1);
  dx = v2(5.0f, 5.0f);
  /* diverging: i moves to -x, j to +x */
  CHECK(thr_long_range(xi, v2(-0.25f, 0.0f), xj, v2(4.25f, 0.6f), 1.0f, 1.0f, 1.0f, 0.25f, 0.7f,
                       20.0f, THR_LR_COLLISION, THR_LR_PROJECTED, &dx) == 0);
  /* both standing still */
  CHECK(thr_long_range(xi, xi, xj, xj, 1.0f, 1.0f, 1.0f, 0.25f, 0.7f, 20.0f, THR_LR_COLLISION, THR_LR_PROJECTED,
                       &dx) == 0);
  /* passing wide (offset 2 > rsum 1) */
  CHECK(thr_long_range(xi, pi, v2(4.0f, 2.0f), v2(3.75f, 2.0f), 1.0f, 1.0f, 1.0f, 0.25f, 0.7f,
                       20.0f, THR_LR_AVOIDANCE, THR_LR_PROJECTED, &dx) == 0);
  /* already overlapping at x^n: tau invalid (contact handles it) */
  CHECK(thr_long_range(xi, pi, v2(0.5f, 0.0f), v2(0.25f, 0.0f), 1.0f, 1.0f, 1.0f, 0.25f, 0.7f,
                       20.0f, THR_LR_COLLISION, THR_LR_PROJECTED, &dx) == 0);
  /* two static (infinite-mass) agents */
  CHECK(thr_long_range(xi, pi, xj, pj, 1.0f, 0.0f, 0.0f, 0.25f, 0.7f, 20.0f, THR_LR_COLLISION, THR_LR_PROJECTED,
                       &dx) == 0);
  CHECK(dx.x == 5.0f && dx.y == 5.0f); /* untouched when inactive */
}

/* ---- section 4.5: avoidance ---------------------------------------------- */

/* Same worked example, THR_LR_AVOIDANCE (projected), equal masses, k = 0.7, tau0 = 20.
 * Projected x~: ci = x~i - (1/2) C n = (1.67990780, -0.08411064),
 *               cj = x~j + (1/2) C n = (2.32009220, 0.68411064);
 * x^i = xi + 1.5 vi = (1.5, 0), x^j = (2.5, 0.6);
 * d = (ci - x^i) - (cj - x^j) = (0.35981560, -0.16822128) (eq. 11);
 * nc = (ci - cj)/|ci - cj| = (-5, -6)/sqrt(61) (= n; |ci - cj| = rsum = 1);
 * d.nc = 0.25 (vi - vj).n - C = -0.32009220 + 0.21897503 = -0.10111717;
 * d_t = d - (d.nc) nc = 0.25 [(2, 0) - (-10/sqrt61)(-5, -6)/sqrt61]
 *     = 0.25 (72/61, -60/61) = (18/61, -15/61)
 *     = (0.29508197, -0.24590164) (eqs. 12-13), direction (18, -15)/sqrt(549);
 * the correction has the long-range magnitude s (1/2) |C| (1/7) = 0.00978378
 * in that direction: dxi = (0.00751610, -0.00626342). */
THR_TEST(avoidance_tangential) {
  thr_vec2 xi = v2(0.0f, 0.0f), pi = v2(0.25f, 0.0f), xj = v2(4.0f, 0.6f), pj = v2(3.75f, 0.6f);
  thr_vec2 dxi = v2(0.0f, 0.0f), dxj = v2(0.0f, 0.0f);
  CHECK(thr_long_range(xi, pi, xj, pj, 1.0f, 1.0f, 1.0f, 0.25f, 0.7f, 20.0f, THR_LR_AVOIDANCE, THR_LR_PROJECTED,
                       &dxi) == 1);
  CHECK(thr_long_range(xj, pj, xi, pi, 1.0f, 1.0f, 1.0f, 0.25f, 0.7f, 20.0f, THR_LR_AVOIDANCE, THR_LR_PROJECTED,
                       &dxj) == 1);
  CHECK_NEAR(dxi.x, 0.00751610, TOL);
  CHECK_NEAR(dxi.y, -0.00626342, TOL);
  CHECK_NEAR(dxj.x, -0.00751610, TOL);
  CHECK_NEAR(dxj.y, 0.00626342, TOL);
  /* nonzero, same magnitude as the long-range response */
  CHECK_NEAR(v2_len(dxi), 0.00978378, TOL);
  /* no component along the contact normal of the corrected colliding
   * positions, nc = (-0.64018440, -0.76822128) */
  CHECK_NEAR(dxi.x * -0.64018440 + dxi.y * -0.76822128, 0.0, 1e-7);
  /* i is pushed sideways away from j (j is above, at y = 0.6) */
  CHECK(dxi.y < 0.0f);
  /* masses 1 and 3: magnitude s (3/4) |C| / 7 = 0.01467566: (0.01127416, -0.00939513) */
  CHECK(thr_long_range(xi, pi, xj, pj, 1.0f, 1.0f, 1.0f / 3.0f, 0.25f, 0.7f, 20.0f,
                       THR_LR_AVOIDANCE, THR_LR_PROJECTED, &dxi) == 1);
  CHECK_NEAR(dxi.x, 0.01127416, TOL);
  CHECK_NEAR(dxi.y, -0.00939513, TOL);
}

/* Perfectly head-on and symmetric: the relative displacement lies along the
 * normal, the tangential part is zero and no avoidance constraint is active
 * (so it does not dilute the Jacobi average either). xi = (0, 0),
 * xj = (4, 0), vi = (1, 0), vj = (-1, 0), dt = 0.25: tau = (4-1)/2 = 1.5. */
THR_TEST(avoidance_head_on_zero) {
  thr_vec2 dxi = v2(9.0f, 9.0f);
  CHECK(thr_long_range(v2(0.0f, 0.0f), v2(0.25f, 0.0f), v2(4.0f, 0.0f), v2(3.75f, 0.0f), 1.0f, 1.0f,
                       1.0f, 0.25f, 0.7f, 20.0f, THR_LR_AVOIDANCE, THR_LR_PROJECTED, &dxi) == 0);
  CHECK(dxi.x == 9.0f && dxi.y == 9.0f); /* untouched */
  /* the collision response of the same pair is not zero */
  CHECK(thr_long_range(v2(0.0f, 0.0f), v2(0.25f, 0.0f), v2(4.0f, 0.0f), v2(3.75f, 0.0f), 1.0f, 1.0f,
                       1.0f, 0.25f, 0.7f, 20.0f, THR_LR_COLLISION, THR_LR_PROJECTED, &dxi) == 1);
  CHECK(dxi.x < -0.01f);
}

/* ---- section 4.3: poly6 and XSPH ---------------------------------------- */

/* h = 2 (h^2 = 4), coef = 315/(64 pi 2^9) = 0.0030599247.
 * r = 0:   coef (4 - 0)^3 = 64 coef = 0.19583518
 * r = h/2: coef (4 - 1)^3 = 27 coef = 0.08261797 (= 27/64 W(0))
 * r >= h:  0. */
THR_TEST(poly6_values) {
  const float coef = 0.0030599247f;
  CHECK_NEAR(thr_poly6(0.0f, 4.0f, coef), 0.19583518, TOL);
  CHECK_NEAR(thr_poly6(1.0f, 4.0f, coef), 0.08261797, TOL);
  CHECK(thr_poly6(4.0f, 4.0f, coef) == 0.0f);
  CHECK(thr_poly6(9.0f, 4.0f, coef) == 0.0f);
  /* r^2 = 3.99 just inside: coef * 0.01^3 = 3.06e-9 > 0 */
  CHECK_NEAR(thr_poly6(3.99f, 4.0f, coef), 3.0599247e-9, 1e-12);
  CHECK(thr_poly6(NAN, 4.0f, coef) == 0.0f);
}

/* One XSPH term (v_j - v_i) W: vi = (1, 2), vj = (4, -2), W = 0.5
 * -> (3, -4) * 0.5 = (1.5, -2) (pulls v_i toward v_j). */
THR_TEST(xsph_term) {
  thr_vec2 t = thr_xsph_term(v2(1.0f, 2.0f), v2(4.0f, -2.0f), 0.5f);
  CHECK_NEAR(t.x, 1.5, TOL);
  CHECK_NEAR(t.y, -2.0, TOL);
  t = thr_xsph_term(v2(1.0f, 2.0f), v2(1.0f, 2.0f), 0.7f);
  CHECK(t.x == 0.0f && t.y == 0.0f);
}

/* ---- section 4.6: clamps ------------------------------------------------- */

/* v_old = (1, 0), v = (4, 4), dt = 0.5.
 * accel only (max_accel 2 -> |dv| <= 1): dv = (3, 4), |dv| = 5,
 *   v = (1, 0) + (3, 4)/5 = (1.6, 0.8).
 * speed only (max 2): |(4, 4)| = 5.6568542 -> (4, 4) * 2/5.6568542
 *   = (1.41421356, 1.41421356).
 * both (accel 2, speed 1): (1.6, 0.8)/|(1.6, 0.8)| = (1.6, 0.8)/1.78885438
 *   = (0.89442719, 0.44721360).
 * disabled (0, 0): unchanged. */
THR_TEST(clamp_velocity) {
  thr_vec2 vo = v2(1.0f, 0.0f), v = v2(4.0f, 4.0f), r = v2(0.0f, 0.0f);
  r = thr_clamp_velocity(v, vo, 0.5f, 0.0f, 2.0f);
  CHECK_NEAR(r.x, 1.6, TOL);
  CHECK_NEAR(r.y, 0.8, TOL);
  r = thr_clamp_velocity(v, vo, 0.5f, 2.0f, 0.0f);
  CHECK_NEAR(r.x, 1.41421356, TOL);
  CHECK_NEAR(r.y, 1.41421356, TOL);
  r = thr_clamp_velocity(v, vo, 0.5f, 1.0f, 2.0f);
  CHECK_NEAR(r.x, 0.89442719, TOL);
  CHECK_NEAR(r.y, 0.44721360, TOL);
  r = thr_clamp_velocity(v, vo, 0.5f, 0.0f, 0.0f);
  CHECK(r.x == 4.0f && r.y == 4.0f);
  /* within both limits: unchanged */
  r = thr_clamp_velocity(v2(1.2f, 0.1f), vo, 0.5f, 2.0f, 2.0f);
  CHECK(r.x == 1.2f && r.y == 0.1f);
}

/* Jacobi average: n = 0 -> 0; n = 3, omega = 1.2, sum (3, -6)
 * -> 1.2/3 (3, -6) = (1.2, -2.4). */
THR_TEST(jacobi_average) {
  thr_vec2 r = thr_jacobi_average(v2(5.0f, 5.0f), 0, 1.2f);
  CHECK(r.x == 0.0f && r.y == 0.0f);
  r = thr_jacobi_average(v2(3.0f, -6.0f), 3, 1.2f);
  CHECK_NEAR(r.x, 1.2, TOL);
  CHECK_NEAR(r.y, -2.4, TOL);
  r = thr_jacobi_average(v2(3.0f, -6.0f), 1, 1.0f);
  CHECK(r.x == 3.0f && r.y == -6.0f);
}

/* ---- speed-density relation ---------------------------------------------- */

/* A neighbour straight ahead: the gap is the distance between the bodies. */
THR_TEST(headway_gap_straight_ahead) {
  CHECK_NEAR(thr_headway_gap(v2(1, 0), v2(1.5f, 0), 0.45f, 1.0f), 1.05, TOL);
  CHECK_NEAR(thr_headway_gap(v2(0, -1), v2(0, -0.6f), 0.4f, 0.7f), 0.2, TOL);
  /* overlapping already: negative */
  CHECK_NEAR(thr_headway_gap(v2(1, 0), v2(0.3f, 0), 0.4f, 1.0f), -0.1, TOL);
}

/* Off the path's centreline: the body touches after along - sqrt(R^2 - lat^2)
 * (3-4-5: along 2, lat 0.3, R 0.5 -> 2 - 0.4); outside width * R or behind:
 * no gap. */
THR_TEST(headway_gap_off_axis_and_behind) {
  CHECK_NEAR(thr_headway_gap(v2(1, 0), v2(2.0f, 0.3f), 0.5f, 1.0f), 1.6, TOL);
  CHECK_NEAR(thr_headway_gap(v2(1, 0), v2(2.0f, -0.3f), 0.5f, 0.7f), 1.6, TOL);
  CHECK(thr_headway_gap(v2(1, 0), v2(2.0f, 0.4f), 0.5f, 0.7f) == HUGE_VALF); /* 0.4 > 0.35 */
  CHECK(thr_headway_gap(v2(1, 0), v2(-0.5f, 0.0f), 0.5f, 1.0f) == HUGE_VALF);
  CHECK(thr_headway_gap(v2(1, 0), v2(0.0f, 0.3f), 0.5f, 1.0f) == HUGE_VALF); /* beside */
  /* a rotated frame gives the same numbers */
  float c = 0.6f, s = 0.8f;
  thr_vec2 e = v2(c, s), d = v2(2.0f * c - 0.3f * s, 2.0f * s + 0.3f * c);
  CHECK_NEAR(thr_headway_gap(e, d, 0.5f, 1.0f), 1.6, 1e-5);
}

/* v = v0 (1 - exp(-(gap - g0) / (v0 T))), 0 below g0, v0 far away. */
THR_TEST(headway_speed_law) {
  /* gap - g0 = v0 T ln 2: half the free speed */
  float v0 = 1.34f, T = 0.5f, g = 0.1f + v0 * T * 0.69314718f;
  CHECK_NEAR(thr_headway_speed(v0, g, 0.1f, T), 0.67, 1e-5);
  /* gap - g0 = v0 T ln 4: three quarters */
  CHECK_NEAR(thr_headway_speed(v0, v0 * T * 1.38629436f, 0.0f, T), 1.005, 1e-5);
  /* close behind: the time-gap law's slope 1/T */
  CHECK_NEAR(thr_headway_speed(v0, 0.101f, 0.1f, T), 0.002, 1e-5);
  CHECK(thr_headway_speed(v0, 2.0f, 0.0f, T) < v0 && thr_headway_speed(v0, 2.0f, 0.0f, T) > 0.94f * v0); /* 1 - e^-3 */
  CHECK(thr_headway_speed(v0, HUGE_VALF, 0.0f, T) == v0);
  CHECK(thr_headway_speed(v0, -0.2f, 0.0f, T) == 0.0f);
  CHECK(thr_headway_speed(v0, 0.05f, 0.1f, T) == 0.0f);
  CHECK(thr_headway_speed(v0, 0.1f, 0.1f, T) == 0.0f);
}
