/* Unit tests of the 3D physics (kernels/physics.h, physics_vec.h's 3D
 * instance and the separation plane of seed paper 003; docs/3d.md).
 * Expected values are worked out by hand in the comments; tolerances as in
 * test_physics.c. Label `3d` besides `unit`. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "kernels/physics.h"

#define TOL 1e-6

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Head-on along a 3D diagonal: xij = (-2, -4, -4) (|xij| = 6), vij = (1, 2, 2)
 * (|vij| = 3), rsum = 1.5: the gap 6 - 1.5 = 4.5 closes at 3 m/s, tau = 1.5.
 * a = 9, b = 2 + 8 + 8 = 18, c = 36 - 2.25 = 33.75, disc = 324 - 303.75 =
 * 20.25 = 4.5^2, tau = (18 - 4.5)/9 = 1.5. Receding (vij negated): none. */
THR_TEST(ttc_diagonal) {
  CHECK_NEAR(thr_time_to_collision3(v3(-2.0f, -4.0f, -4.0f), v3(1.0f, 2.0f, 2.0f), 1.5f), 1.5, TOL);
  CHECK(thr_time_to_collision3(v3(-2.0f, -4.0f, -4.0f), v3(-1.0f, -2.0f, -2.0f), 1.5f) == -1.0f);
  /* passing above: the same approach with 2 m of altitude between them
   * (> rsum) never touches: xij = (-6, 0, -2), vij = (1, 0, 0): a = 1,
   * b = 6, c = 40 - 2.25, disc = 36 - 37.75 < 0 */
  CHECK(thr_time_to_collision3(v3(-6.0f, 0.0f, -2.0f), v3(1.0f, 0.0f, 0.0f), 1.5f) == -1.0f);
}

/* A 3D pair whose z are all equal is the 2D pair, bit for bit: the time to
 * collision, the contact and the long-range prediction (z differences are
 * exact zeros). */
THR_TEST(flat_equals_2d_bitwise) {
  unsigned s = 12345u;
  int same = 1;
  for (int k = 0; k < 200; ++k) {
    float r[8];
    for (int m = 0; m < 8; ++m) {
      s = s * 1664525u + 1013904223u;
      r[m] = (float)(s >> 8) / (float)(1u << 24) * 4.0f - 2.0f;
    }
    float z = 7.25f;
    float t2 = thr_time_to_collision(v2(r[0], r[1]), v2(r[2], r[3]), 0.9f);
    float t3 = thr_time_to_collision3(v3(r[0], r[1], 0.0f), v3(r[2], r[3], 0.0f), 0.9f);
    same &= same_bits(t2, t3);
    thr_vec2 d2 = v2(0.0f, 0.0f), n2 = d2;
    thr_vec3 d3 = v3(0.0f, 0.0f, 0.0f), n3 = d3;
    float p2 = 0.0f, p3 = 0.0f;
    int c2 = thr_contact(v2(r[4], r[5]), v2(r[6], r[7]), 2.0f, 1.0f, 0.5f, 1.0f, 1.0f, &d2, &n2, &p2);
    int c3 = thr_contact3(v3(r[4], r[5], z), v3(r[6], r[7], z), 2.0f, 1.0f, 0.5f, 1.0f, 1.0f, &d3, &n3, &p3);
    same &= c2 == c3 && same_bits(d2.x, d3.x) && same_bits(d2.y, d3.y) && d3.z == 0.0f && same_bits(p2, p3);
    thr_lr_pred q2;
    memset(&q2, 0, sizeof q2);
    thr_lr_pred3 q3;
    memset(&q3, 0, sizeof q3);
    int l2 = thr_lr_predict(v2(r[0], r[1]), v2(r[0] + 0.03f, r[1]), v2(r[2], r[3]), v2(r[2] - 0.03f, r[3] + 0.01f),
                            0.9f, 1.0f, 1.0f, 0.02f, 20.0f, &q2);
    int l3 = thr_lr_predict3(v3(r[0], r[1], z), v3(r[0] + 0.03f, r[1], z), v3(r[2], r[3], z),
                             v3(r[2] - 0.03f, r[3] + 0.01f, z), 0.9f, 1.0f, 1.0f, 0.02f, 20.0f, &q3);
    same &= l2 == l3;
    if (l2 && l3)
      same &= same_bits(q2.tau, q3.tau) && same_bits(q2.c, q3.c) && same_bits(q2.n.x, q3.n.x) &&
              same_bits(q2.n.y, q3.n.y) && q3.n.z == 0.0f;
  }
  CHECK(same);
}

/* Spheres pi = (0, 0, 0), pj = (0, 0.6, 0.8), dmin = 1.2, equal masses:
 * |d| = 1, C = -0.2, n = (0, -0.6, -0.8), dxi = 0.1 n = (0, -0.06, -0.08). */
THR_TEST(contact_spheres) {
  thr_vec3 dx = v3(9.0f, 9.0f, 9.0f), n = dx;
  float pen = 0.0f;
  CHECK(thr_contact3(v3(0.0f, 0.0f, 0.0f), v3(0.0f, 0.6f, 0.8f), 1.2f, 1.0f, 1.0f, 1.0f, 1.0f, &dx, &n, &pen) == 1);
  CHECK_NEAR(pen, 0.2, TOL);
  CHECK_NEAR(dx.x, 0.0, TOL);
  CHECK_NEAR(dx.y, -0.06, TOL);
  CHECK_NEAR(dx.z, -0.08, TOL);
  CHECK_NEAR(n.z, -0.8, TOL);
}

/* The plane directions. n = (0.6, 0.8, 0): t_h = n x up = (0.8, -0.6, 0)
 * with z exactly 0; t_v = n x t_h = (0, 0, -(0.36 + 0.64)) = (0, 0, -1)
 * exactly; axis a = (0, 1, 0): n x a = (0, 0, 0.6)/0.6 = (0, 0, 1). A
 * vertical n has no horizontal normal: t_h = (1, 0, 0) by rule. An axis
 * parallel to n and the tangent mode give none. */
THR_TEST(plane_directions) {
  thr_vec3 t = v3(9.0f, 9.0f, 9.0f);
  thr_vec3 n = v3(0.6f, 0.8f, 0.0f), none = v3(0.0f, 0.0f, 0.0f);
  CHECK(thr_plane_direction3(n, THR_PLANE_HORIZONTAL, none, &t) == 1);
  CHECK(t.z == 0.0f);
  CHECK_NEAR(t.x, 0.8, TOL);
  CHECK_NEAR(t.y, -0.6, TOL);
  CHECK_NEAR(v3_dot(t, n), 0.0, TOL);
  CHECK(thr_plane_direction3(n, THR_PLANE_VERTICAL, none, &t) == 1);
  CHECK(t.x == 0.0f && t.y == 0.0f && t.z == -1.0f);
  CHECK(thr_plane_direction3(n, THR_PLANE_AXIS, v3(0.0f, 1.0f, 0.0f), &t) == 1);
  CHECK_NEAR(t.z, 1.0, TOL);
  CHECK(thr_plane_direction3(v3(0.0f, 0.0f, 1.0f), THR_PLANE_HORIZONTAL, none, &t) == 1);
  CHECK(t.x == 1.0f && t.y == 0.0f && t.z == 0.0f);
  CHECK(thr_plane_direction3(v3(0.0f, 0.0f, -1.0f), THR_PLANE_HORIZONTAL, none, &t) == 1);
  CHECK(t.x == 1.0f && t.y == 0.0f && t.z == 0.0f);
  t = v3(9.0f, 9.0f, 9.0f);
  CHECK(thr_plane_direction3(n, THR_PLANE_AXIS, v3(1.2f, 1.6f, 0.0f), &t) == 0);
  CHECK(thr_plane_direction3(n, THR_PLANE_TANGENT, none, &t) == 0);
  CHECK(t.x == 9.0f); /* untouched, no NaN */
}

/* Agent i's and agent j's responses, each computed as the receiving agent
 * (i_first from the ids), for a pair approaching on a 3D course. */
typedef struct pair3 {
  thr_vec3 xi, pi, xj, pj;
  float wi, wj;
} pair3;

static int respond(const pair3 *p, int plane, thr_vec3 axis, thr_vec3 *dxi, thr_vec3 *dxj, thr_vec3 *n) {
  const float dt = 0.25f, k = 0.7f, tau0 = 20.0f, rsum = 1.0f;
  thr_lr_pred3 qi, qj;
  if (!thr_lr_predict3(p->xi, p->pi, p->xj, p->pj, rsum, p->wi, p->wj, dt, tau0, &qi) ||
      !thr_lr_predict3(p->xj, p->pj, p->xi, p->pi, rsum, p->wj, p->wi, dt, tau0, &qj))
    return 0;
  float si = thr_lr_stiffness3(&qi, k, tau0), sj = thr_lr_stiffness3(&qj, k, tau0);
  *n = qi.n;
  /* i has the smaller id: it is first; the positions in canonical order */
  int ai = thr_lr_plane_avoidance3(&qi, 1, p->xi, p->xj, si, dt, THR_LR_PROJECTED, plane, axis, dxi);
  int aj = thr_lr_plane_avoidance3(&qj, 0, p->xi, p->xj, sj, dt, THR_LR_PROJECTED, plane, axis, dxj);
  return ai && aj;
}

/* Random approaching pairs in every plane mode: j's correction is exactly
 * i's reversed (equal masses) or reversed and scaled by w_j : w_i, and the
 * horizontal and vertical ones have no part along the normal. */
THR_TEST(antisymmetry_and_no_normal_push) {
  unsigned s = 777u;
  int pairs = 0, exact = 1, ratio = 1, normal = 1;
  for (int k = 0; k < 400; ++k) {
    float r[6];
    for (int m = 0; m < 6; ++m) {
      s = s * 1664525u + 1013904223u;
      r[m] = (float)(s >> 8) / (float)(1u << 24) * 2.0f - 1.0f;
    }
    pair3 p;
    p.xi = v3(0.0f, 0.0f, 5.0f);
    p.pi = v3(0.3f, 0.05f * r[0], 5.0f + 0.05f * r[1]);
    p.xj = v3(4.0f, r[2], 5.0f + r[3]);
    p.pj = v3(3.7f, r[2] + 0.05f * r[4], 5.0f + r[3] + 0.05f * r[5]);
    p.wi = 1.0f;
    p.wj = k % 2 ? 1.0f : 1.0f / 3.0f;
    for (int plane = THR_PLANE_TANGENT; plane <= THR_PLANE_AXIS; ++plane) {
      thr_vec3 dxi, dxj, n;
      if (!respond(&p, plane, v3(0.0f, 1.0f, 0.0f), &dxi, &dxj, &n)) continue;
      ++pairs;
      if (p.wj == 1.0f) {
        exact &= dxi.x == -dxj.x && dxi.y == -dxj.y && dxi.z == -dxj.z;
      } else {
        /* shares 3/4 and 1/4: dxi = -3 dxj */
        float li = v3_len(dxi);
        ratio &= fabsf(v3_len(v3_add(dxi, v3_scale(dxj, 3.0f)))) <= 1e-6f * li + 1e-12f;
      }
      if (plane == THR_PLANE_HORIZONTAL || plane == THR_PLANE_VERTICAL)
        normal &= fabsf(v3_dot(dxi, n)) <= 1e-5f * v3_len(dxi);
      if (plane == THR_PLANE_HORIZONTAL) normal &= dxi.z == 0.0f || fabsf(n.z) > 0.0f;
    }
  }
  CHECK(pairs > 400);
  CHECK(exact);
  CHECK(ratio);
  CHECK(normal);
}

/* The drift sign and the tie rule. A (id 0) at (0, 0, 5) walks +x, B (id 1)
 * at (4, 0.05, 5) walks -x, both level. Horizontal: each side-steps to its
 * own side, A towards -y, B towards +y, at their altitude (z parts 0).
 * Vertical: the drift has no vertical part, so the tie rule decides: the
 * first (lower id) agent goes along +t_v = (0, 0, -1): A passes under, B
 * over, with x and y parts exactly 0. */
THR_TEST(drift_sign_and_tie_rule) {
  pair3 p = {v3(0.0f, 0.0f, 5.0f), v3(0.25f, 0.0f, 5.0f), v3(4.0f, 0.05f, 5.0f), v3(3.75f, 0.05f, 5.0f), 1.0f, 1.0f};
  thr_vec3 da, db, n, none = v3(0.0f, 0.0f, 0.0f);
  CHECK(respond(&p, THR_PLANE_HORIZONTAL, none, &da, &db, &n));
  CHECK(da.y < 0.0f && db.y > 0.0f);
  CHECK(da.z == 0.0f && db.z == 0.0f);
  CHECK(respond(&p, THR_PLANE_VERTICAL, none, &da, &db, &n));
  CHECK(da.z < 0.0f && db.z > 0.0f);
  CHECK(da.x == 0.0f && da.y == 0.0f && db.x == 0.0f && db.y == 0.0f);
  /* exactly head-on: the tangent mode has no direction (as in 2D), the
   * plane modes still separate the pair */
  pair3 h = {v3(0.0f, 0.0f, 5.0f), v3(0.25f, 0.0f, 5.0f), v3(4.0f, 0.0f, 5.0f), v3(3.75f, 0.0f, 5.0f), 1.0f, 1.0f};
  CHECK(!respond(&h, THR_PLANE_TANGENT, none, &da, &db, &n));
  CHECK(respond(&h, THR_PLANE_HORIZONTAL, none, &da, &db, &n));
  CHECK(da.y != 0.0f && da.y == -db.y);
}

/* The magnitude is throng's avoidance magnitude: for the 2D worked example
 * of test_physics.c (avoidance_tangential, |dxi| = 0.00978378) lifted to
 * z = 3, every plane mode moves i by that length, and the tangent mode in
 * that direction. */
THR_TEST(magnitude_as_in_2d) {
  pair3 p = {v3(0.0f, 0.0f, 3.0f), v3(0.25f, 0.0f, 3.0f), v3(4.0f, 0.6f, 3.0f), v3(3.75f, 0.6f, 3.0f), 1.0f, 1.0f};
  thr_vec3 da, db, n, none = v3(0.0f, 0.0f, 0.0f);
  for (int plane = THR_PLANE_TANGENT; plane <= THR_PLANE_VERTICAL; ++plane) {
    CHECK(respond(&p, plane, none, &da, &db, &n));
    CHECK_NEAR(v3_len(da), 0.00978378, TOL);
  }
  CHECK(respond(&p, THR_PLANE_TANGENT, none, &da, &db, &n));
  CHECK_NEAR(da.x, 0.00751610, TOL);
  CHECK_NEAR(da.y, -0.00626342, TOL);
  CHECK(da.z == 0.0f);
}

/* The automatic choice: neighbours beside in the layer against those above
 * or below; vertical with at least two more beside, so that a lone pair
 * passing side by side (one beside) and ties stay horizontal. Census of neighbour positions for an
 * agent heading +x with radii sum 1: (0, 2, 0.5) beside, (3, 0.5, 0)
 * ahead, (0.5, 0.5, 1.2) above or below. */
THR_TEST(auto_choice) {
  thr_vec2 h = v2(1.0f, 0.0f);
  CHECK(thr_plane_census3(v3(0.0f, 2.0f, 0.5f), h, 1.0f) == 1);
  CHECK(thr_plane_census3(v3(0.0f, -2.0f, -0.5f), h, 1.0f) == 1);
  CHECK(thr_plane_census3(v3(3.0f, 0.5f, 0.0f), h, 1.0f) == 0);
  CHECK(thr_plane_census3(v3(0.5f, 0.5f, 1.2f), h, 1.0f) == 2);
  CHECK(thr_plane_census3(v3(0.5f, 0.5f, -1.0f), h, 1.0f) == 2);
  CHECK(thr_plane_choice3(4, 1) == THR_PLANE_VERTICAL);
  CHECK(thr_plane_choice3(2, 0) == THR_PLANE_VERTICAL);
  CHECK(thr_plane_choice3(1, 0) == THR_PLANE_HORIZONTAL);
  CHECK(thr_plane_choice3(3, 2) == THR_PLANE_HORIZONTAL);
  CHECK(thr_plane_choice3(1, 4) == THR_PLANE_HORIZONTAL);
  CHECK(thr_plane_choice3(2, 2) == THR_PLANE_HORIZONTAL);
  CHECK(thr_plane_choice3(0, 0) == THR_PLANE_HORIZONTAL);
}
