/* Unit tests of the ORCA core (kernels/orca.h; seed paper 002, spec
 * seed-002-orca-forces.md §5.1 items 1-6 and 12): the half-plane geometry
 * against the velocity obstacle it bounds, the outward normal, the overlap
 * branch, the force line, and the linear programs against brute force. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "kernels/orca.h"

/* The smallest centre distance of two discs moving apart by relative
 * velocity vr from relative position p over t in [0, tau] (exact, double). */
static double closest(thr_vec2 p, thr_vec2 vr, double tau) {
  double a = (double)vr.x * vr.x + (double)vr.y * vr.y, b = (double)p.x * vr.x + (double)p.y * vr.y;
  double t = a > 0.0 ? b / a : 0.0;
  t = t < 0.0 ? 0.0 : (t > tau ? tau : t);
  return hypot(t * vr.x - p.x, t * vr.y - p.y);
}

/* Leg case: A at 0 moving (1, 0), B at (4, 0.5) moving (-1, 0), radii 0.5,
 * tau 2: v_rel = (2, 0) lies inside the velocity obstacle (they would
 * touch). The line passes through v_A + u/2, v_rel + u lies on the
 * obstacle's boundary (the discs just touch, closest distance R), a step
 * along the normal leaves the obstacle and one against it enters it. */
THR_TEST(agent_line_leg) {
  thr_vec2 pa = v2(0.0f, 0.0f), va = v2(1.0f, 0.0f), pb = v2(4.0f, 0.5f), vb = v2(-1.0f, 0.0f);
  thr_orca_line l = thr_orca_agent_line(pa, va, 0.5f, pb, vb, 0.5f, 2.0f, 0.1f, 0.5f);
  CHECK_NEAR(v2_len(l.d), 1.0, 1e-6);
  thr_vec2 n = v2(-l.d.y, l.d.x); /* feasible side: left of d */
  thr_vec2 u = v2_scale(v2_sub(l.q, va), 2.0f);
  thr_vec2 vr = v2_add(v2(2.0f, 0.0f), u), p = v2_sub(pb, pa);
  CHECK(closest(p, v2(2.0f, 0.0f), 2.0) < 1.0); /* inside before */
  CHECK_NEAR(closest(p, vr, 1e9), 1.0, 1e-5); /* on a leg: tangent, whatever the time */
  CHECK(closest(p, v2_add(vr, v2_scale(n, 0.01f)), 1e9) > 1.0);
  CHECK(closest(p, v2_sub(vr, v2_scale(n, 0.01f)), 1e9) < 1.0);
  CHECK(thr_orca_violation(&l, va) > 0.0f); /* A's own velocity is cut off */
  /* B is above: A must turn right (down) or slow, the normal points down-left */
  CHECK(n.y < 0.0f);
}

/* Cut-off arc: B 4 m straight ahead, v_rel = (1.8, 0), tau = 2: w = v_rel -
 * p/tau = (-0.2, 0), on the arc: u = (R/tau - |w|) w^ = (-0.3, 0), so
 * v_rel + u = (1.5, 0) touches exactly at t = tau: |2 * 1.5 - 4| = 1 = R. */
THR_TEST(agent_line_cutoff) {
  thr_orca_line l = thr_orca_agent_line(v2(0.0f, 0.0f), v2(0.9f, 0.0f), 0.5f, v2(4.0f, 0.0f), v2(-0.9f, 0.0f), 0.5f,
                                        2.0f, 0.1f, 0.5f);
  CHECK_NEAR(l.q.x, 0.9 - 0.15, 1e-6);
  CHECK_NEAR(l.q.y, 0.0, 1e-6);
  CHECK_NEAR(l.d.x, 0.0, 1e-6); /* normal (-1, 0): d = (n.y, -n.x) = (0, 1) */
  CHECK_NEAR(l.d.y, 1.0, 1e-6);
  CHECK_NEAR(closest(v2(4.0f, 0.0f), v2(1.5f, 0.0f), 2.0), 1.0, 1e-6);
}

/* The outward normal (not u^, which 002 prints): with v_rel outside the
 * obstacle (B moving away faster than A follows) A's velocity is feasible
 * and so are small changes of it; u^ would cut it off. */
THR_TEST(outward_normal_keeps_a_free_velocity) {
  thr_vec2 va = v2(1.0f, 0.0f);
  thr_orca_line l = thr_orca_agent_line(v2(0.0f, 0.0f), va, 0.5f, v2(3.0f, 0.2f), v2(1.5f, 0.0f), 0.5f, 2.0f, 0.1f,
                                        0.5f);
  CHECK(thr_orca_violation(&l, va) <= 0.0f);
  /* a sideways pass: v_rel = (1, 0) past a neighbour 2 m to the side */
  l = thr_orca_agent_line(v2(0.0f, 0.0f), va, 0.5f, v2(0.0f, 2.0f), v2(0.0f, 0.0f), 0.5f, 2.0f, 0.1f, 0.5f);
  CHECK(thr_orca_violation(&l, va) <= 0.0f);
}

/* Overlapping discs (0.8 m apart, R = 1) at rest, both choosing with their
 * lines (lambda 1/2) and v_pref = 0: after one step they are R apart. */
THR_TEST(overlap_separates_in_one_step) {
  const float dt = 0.1f;
  thr_vec2 pa = v2(0.0f, 0.0f), pb = v2(0.6f, 0.53f), z = v2(0.0f, 0.0f);
  thr_orca_line la = thr_orca_agent_line(pa, z, 0.5f, pb, z, 0.5f, 2.0f, dt, 0.5f);
  thr_orca_line lb = thr_orca_agent_line(pb, z, 0.5f, pa, z, 0.5f, 2.0f, dt, 0.5f);
  thr_orca_line scratch[2];
  thr_vec2 va, vb;
  CHECK(thr_orca_solve(&la, 1, 0, 10.0f, z, scratch, &va) == 1);
  CHECK(thr_orca_solve(&lb, 1, 0, 10.0f, z, scratch, &vb) == 1);
  thr_vec2 qa = v2_add(pa, v2_scale(va, dt)), qb = v2_add(pb, v2_scale(vb, dt));
  CHECK(v2_len(v2_sub(pa, pb)) < 0.81f);
  CHECK_NEAR(v2_len(v2_sub(qa, qb)), 1.0, 1e-5);
  CHECK(va.x == -vb.x && va.y == -vb.y); /* mirror images */
}

/* An exactly head-on pair: both take the right leg and pass on their right,
 * bit for bit mirror images. */
THR_TEST(head_on_pair_passes_on_the_right) {
  thr_vec2 pa = v2(0.0f, 0.0f), va = v2(1.0f, 0.0f), pb = v2(4.0f, 0.0f), vb = v2(-1.0f, 0.0f);
  thr_orca_line la = thr_orca_agent_line(pa, va, 0.5f, pb, vb, 0.5f, 3.0f, 0.1f, 0.5f);
  thr_orca_line lb = thr_orca_agent_line(pb, vb, 0.5f, pa, va, 0.5f, 3.0f, 0.1f, 0.5f);
  thr_orca_line scratch[1];
  thr_vec2 na, nb;
  CHECK(thr_orca_solve(&la, 1, 0, 2.0f, va, scratch, &na) == 1);
  CHECK(thr_orca_solve(&lb, 1, 0, 2.0f, vb, scratch, &nb) == 1);
  CHECK(na.y < 0.0f && nb.y > 0.0f); /* A (eastbound) to its right (-y), B (westbound) to +y */
  CHECK(na.x == -nb.x && na.y == -nb.y);
}

/* The force line: v_f lies on it, v_f + s f^ is feasible, v_f - s f^ not. */
THR_TEST(force_line) {
  thr_orca_line l;
  thr_vec2 vf = v2(0.3f, -0.2f), f = v2(30.0f, 40.0f), fh = v2(0.6f, 0.8f);
  CHECK(thr_orca_force_line(vf, v2(0.0f, 0.0f), 2.0f, &l) == 0);
  CHECK(thr_orca_force_line(vf, f, 2.0f, &l) == 1);
  CHECK_NEAR(thr_orca_violation(&l, vf), 0.0, 1e-7);
  CHECK(thr_orca_violation(&l, v2_add(vf, v2_scale(fh, 0.1f))) < 0.0f);
  CHECK(thr_orca_violation(&l, v2_sub(vf, v2_scale(fh, 0.1f))) > 0.0f);
  CHECK_NEAR(thr_orca_violation(&l, v2_add(vf, v2(0.8f, -0.6f))), 0.0, 1e-6); /* along the line: on it */
}

/* A force that demands more than the disc holds: v_f . f^ = 3 m/s against
 * a 2 m/s disc. The bound moves back to 0.99 * 2 = 1.98 m/s along f^, so
 * the disc keeps a feasible sliver (2 f^ is feasible, 1.97 f^ is not) and
 * the tangential part of v_f stays on the line. */
THR_TEST(force_line_held_in_the_disc) {
  thr_orca_line l;
  thr_vec2 fh = v2(0.6f, 0.8f), t = v2(0.8f, -0.6f);
  thr_vec2 vf = v2_add(v2_scale(fh, 3.0f), v2_scale(t, 0.5f));
  CHECK(thr_orca_force_line(vf, v2_scale(fh, 50.0f), 2.0f, &l) == 1);
  CHECK_NEAR(thr_orca_violation(&l, v2_add(v2_scale(fh, 1.98f), v2_scale(t, 0.5f))), 0.0, 1e-6);
  CHECK(thr_orca_violation(&l, v2_scale(fh, 2.0f)) < 0.0f);
  CHECK(thr_orca_violation(&l, v2_scale(fh, 1.97f)) > 0.0f);
  thr_vec2 v;
  thr_orca_line scratch[1];
  CHECK(thr_orca_solve(&l, 1, 0, 2.0f, v2(0.0f, 0.0f), scratch, &v) == 1); /* feasible inside the disc */
  CHECK(v2_len(v) <= 2.0f + 1e-6f);
  CHECK_NEAR(v2_dot(v, fh), 1.98, 1e-5);
}

/* ---- the linear programs against brute force ------------------------------- */

static unsigned lcg(unsigned *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}
static float uni(unsigned *s, float lo, float hi) { return lo + (hi - lo) * (float)lcg(s) / (float)(1u << 24); }

static void random_lines(unsigned *s, thr_orca_line *l, int n, float spread) {
  for (int k = 0; k < n; ++k) {
    float a = uni(s, 0.0f, 6.2831853f);
    l[k].q = v2(uni(s, -spread, spread), uni(s, -spread, spread));
    l[k].d = v2(cosf(a), sinf(a));
  }
}

static float max_violation(const thr_orca_line *l, int from, int n, thr_vec2 v) {
  float h = -INFINITY;
  for (int k = from; k < n; ++k) {
    float x = thr_orca_violation(&l[k], v);
    h = x > h ? x : h;
  }
  return h;
}

/* The candidates of the optimum closest to t: t clipped to the disc, its
 * projections on every line, pairwise intersections, line-circle points. */
static int candidates(const thr_orca_line *l, int n, float R, thr_vec2 t, thr_vec2 *c) {
  int m = 0;
  c[m++] = v2_len(t) > R ? v2_scale(t, R / v2_len(t)) : t;
  for (int i = 0; i < n; ++i) {
    c[m++] = v2_add(l[i].q, v2_scale(l[i].d, v2_dot(l[i].d, v2_sub(t, l[i].q))));
    float b = v2_dot(l[i].q, l[i].d), disc = b * b + R * R - v2_len2(l[i].q);
    if (disc >= 0.0f) {
      c[m++] = v2_add(l[i].q, v2_scale(l[i].d, -b - sqrtf(disc)));
      c[m++] = v2_add(l[i].q, v2_scale(l[i].d, -b + sqrtf(disc)));
    }
    for (int j = 0; j < i; ++j) {
      float den = thr_det(l[i].d, l[j].d);
      if (fabsf(den) < 1e-6f) continue;
      c[m++] = v2_add(l[i].q, v2_scale(l[i].d, thr_det(l[j].d, v2_sub(l[i].q, l[j].q)) / den));
    }
  }
  return m;
}

/* LP2 against brute force over 3000 random sets of 1-20 lines: a success is
 * feasible (no line violated by 1e-5, inside the disc) and no feasible
 * candidate is closer to v_pref; a set with a strictly feasible candidate
 * is never reported infeasible. */
THR_TEST(lp2_is_optimal) {
  unsigned s = 99u;
  int solved = 0, infeasible = 0, bad_feasible = 0, bad_optimal = 0, missed = 0;
  static thr_vec2 c[1 + 20 * 3 + 20 * 20];
  for (int trial = 0; trial < 3000; ++trial) {
    thr_orca_line l[20];
    int n = 1 + (int)(lcg(&s) % 20);
    random_lines(&s, l, n, 1.5f);
    float R = uni(&s, 0.5f, 3.0f);
    thr_vec2 t = v2(uni(&s, -3.0f, 3.0f), uni(&s, -3.0f, 3.0f)), v;
    int ok = thr_orca_lp2(l, n, R, t, 0, &v) == n;
    int m = candidates(l, n, R, t, c);
    float best = INFINITY, margin = -INFINITY;
    for (int k = 0; k < m; ++k) {
      if (v2_len(c[k]) > R + 1e-5f || max_violation(l, 0, n, c[k]) > 1e-5f) continue;
      float d = v2_len(v2_sub(c[k], t));
      best = d < best ? d : best;
    }
    for (int k = 0; k < m; ++k) {
      float h = max_violation(l, 0, n, c[k]);
      if (v2_len(c[k]) < R - 1e-3f && -h > margin) margin = -h;
    }
    if (ok) {
      ++solved;
      bad_feasible += max_violation(l, 0, n, v) > 1e-5f || v2_len(v) > R + 1e-5f;
      bad_optimal += v2_len(v2_sub(v, t)) > best + 1e-4f;
    } else {
      ++infeasible;
      missed += margin > 1e-3f;
    }
  }
  CHECK(solved > 300 && infeasible > 300);
  CHECK(bad_feasible == 0);
  CHECK(bad_optimal == 0);
  CHECK(missed == 0);
  if (bad_feasible || bad_optimal || missed)
    fprintf(stderr, "  %d solved, %d infeasible: %d infeasible results, %d not optimal, %d feasible sets missed\n",
            solved, infeasible, bad_feasible, bad_optimal, missed);
}

/* LP3 on infeasible random sets: the hard lines hold (when a grid point
 * satisfies them) and the largest violation of the others is no worse
 * than the best of a 401 x 401 grid over the disc. */
THR_TEST(lp3_minimises_the_largest_violation) {
  unsigned s = 7u;
  int cases = 0, worse = 0, hard_broken = 0;
  thr_orca_line scratch[12];
  for (int trial = 0; trial < 400 && cases < 60; ++trial) {
    thr_orca_line l[12];
    int n = 3 + (int)(lcg(&s) % 9), hard = (int)(lcg(&s) % 3);
    random_lines(&s, l, n, 2.0f);
    float R = uni(&s, 0.5f, 2.0f);
    thr_vec2 t = v2(uni(&s, -2.0f, 2.0f), uni(&s, -2.0f, 2.0f)), v;
    if (thr_orca_solve(l, n, hard, R, t, scratch, &v)) continue; /* feasible: not a case */
    float best = INFINITY;
    int any_hard = 0;
    for (int a = 0; a <= 400; ++a)
      for (int b = 0; b <= 400; ++b) {
        thr_vec2 g = v2(-R + 2.0f * R * (float)a / 400.0f, -R + 2.0f * R * (float)b / 400.0f);
        if (v2_len(g) > R || (hard && max_violation(l, 0, hard, g) > 0.0f)) continue;
        any_hard = 1;
        float h = max_violation(l, hard, n, g);
        best = h < best ? h : best;
      }
    if (!any_hard) continue;
    ++cases;
    if (hard) hard_broken += max_violation(l, 0, hard, v) > 1e-4f;
    worse += max_violation(l, hard, n, v) > best + 1e-4f;
  }
  CHECK(cases >= 30);
  CHECK(hard_broken == 0);
  CHECK(worse == 0);
  if (worse || hard_broken) fprintf(stderr, "  %d cases: %d worse than the grid, %d broke a hard line\n", cases, worse,
                                    hard_broken);
}

/* The same lines in the same order give the same bits (the order is the
 * caller's: results depend on it only in rounding). */
THR_TEST(lp_is_deterministic_and_order_robust) {
  unsigned s = 5u;
  int same = 1, close = 1;
  for (int trial = 0; trial < 500; ++trial) {
    thr_orca_line l[8], r[8], scratch[8];
    random_lines(&s, l, 8, 0.6f);
    thr_vec2 t = v2(uni(&s, -2.0f, 2.0f), uni(&s, -2.0f, 2.0f)), v1, v2r, v3r;
    int ok = thr_orca_solve(l, 8, 0, 2.0f, t, scratch, &v1);
    thr_orca_solve(l, 8, 0, 2.0f, t, scratch, &v2r);
    same &= memcmp(&v1, &v2r, sizeof v1) == 0;
    for (int k = 0; k < 8; ++k) r[k] = l[7 - k];
    if (ok && thr_orca_solve(r, 8, 0, 2.0f, t, scratch, &v3r)) close &= v2_len(v2_sub(v1, v3r)) < 1e-4f;
  }
  CHECK(same);
  CHECK(close);
}

/* ---- obstacle half-planes (spec §6.3) --------------------------------------- */

static thr_orca_edge wall_edge(thr_vec2 a, thr_vec2 b) {
  thr_orca_edge e;
  e.p1 = a, e.p2 = b;
  e.d1 = v2_scale(v2_sub(b, a), 1.0f / v2_len(v2_sub(b, a)));
  e.d2 = e.dprev = v2_scale(e.d1, -1.0f);
  e.convex1 = e.convex2 = 1;
  return e;
}

/* A wall x = 0 (its face towards -x: the edge from (0, 12) down to
 * (0, 0.6)), an agent of radius 0.25 at (-1, 3), tau_o = 1: it may close
 * the 0.75 m gap within 1 s, no faster: v.x <= 0.75; moving along the wall
 * is free. Touching it (0.2 m away), it may not move in at all: v.x <= 0. */
THR_TEST(obstacle_line_of_a_wall) {
  thr_orca_edge e = wall_edge(v2(0.0f, 12.0f), v2(0.0f, 0.6f));
  thr_orca_line l = {{0.0f, 0.0f}, {1.0f, 0.0f}};
  CHECK(thr_orca_obstacle_line(&l, 0, &e, v2(-1.0f, 3.0f), v2(1.4f, 0.0f), 0.25f, 1.0f, &l) == 1);
  CHECK_NEAR(thr_orca_violation(&l, v2(1.4f, 0.0f)), 0.65, 1e-5);
  CHECK_NEAR(thr_orca_violation(&l, v2(0.75f, 0.0f)), 0.0, 1e-5);
  CHECK(thr_orca_violation(&l, v2(0.5f, 1.0f)) < 0.0f && thr_orca_violation(&l, v2(0.5f, -1.0f)) < 0.0f);
  CHECK(thr_orca_obstacle_line(&l, 0, &e, v2(-0.2f, 3.0f), v2(1.4f, 0.0f), 0.25f, 1.0f, &l) == 1);
  CHECK(thr_orca_violation(&l, v2(0.1f, 0.0f)) > 0.0f && !(thr_orca_violation(&l, v2(-0.1f, 2.0f)) > 0.0f));
  /* an edge already covered by a half-plane adds none */
  thr_orca_line first = l;
  CHECK(thr_orca_obstacle_line(&first, 0, &e, v2(-1.0f, 3.0f), v2(1.4f, 0.0f), 0.25f, 1.0f, &first) == 1);
  thr_orca_edge further = wall_edge(v2(0.5f, 12.0f), v2(0.5f, 0.6f));
  CHECK(thr_orca_obstacle_line(&first, 1, &further, v2(-1.0f, 3.0f), v2(1.4f, 0.0f), 0.25f, 1.0f, &l) == 0);
}

/* Past the end of a wall, the tip alone shapes the obstacle: an agent at
 * (-1, 0) heading (1, 0) at the tip (0, 0.3) of a wall going up passes
 * below it: its velocity stays feasible unless it aims at the tip. */
THR_TEST(obstacle_line_of_a_wall_end) {
  thr_orca_edge e = wall_edge(v2(0.0f, 12.0f), v2(0.0f, 0.3f));
  thr_orca_line l = {{0.0f, 0.0f}, {1.0f, 0.0f}};
  int got = thr_orca_obstacle_line(&l, 0, &e, v2(-1.0f, -0.5f), v2(1.0f, 0.0f), 0.25f, 1.0f, &l);
  CHECK(!got || thr_orca_violation(&l, v2(1.0f, 0.0f)) <= 0.0f); /* passing 0.8 m below the tip: free */
  got = thr_orca_obstacle_line(&l, 0, &e, v2(-1.0f, 0.3f), v2(1.0f, 0.0f), 0.25f, 1.0f, &l);
  CHECK(got && thr_orca_violation(&l, v2(1.0f, 0.0f)) > 0.0f); /* straight at the tip: cut */
}

/* ---- the forces of 002 (spec §5.1 items 8-11) ------------------------------- */

/* Equal masses 70 kg (w = 1/70), approaching at 1 m/s along n, e = 0,
 * dt = 0.1: J = 1 / (2/70) = 35 N s, f = 350 N along +n for i, exactly
 * the negative for k; nothing when separating or sliding past. */
THR_TEST(collision_force) {
  float w = 1.0f / 70.0f;
  thr_vec2 fi = thr_orca_collision_force(v2(0.0f, 0.0f), v2(0.5f, 0.0f), w, v2(0.55f, 0.0f), v2(-0.5f, 0.0f), w,
                                         0.0f, 0.1f, 1.0f);
  thr_vec2 fk = thr_orca_collision_force(v2(0.55f, 0.0f), v2(-0.5f, 0.0f), w, v2(0.0f, 0.0f), v2(0.5f, 0.0f), w,
                                         0.0f, 0.1f, -1.0f);
  CHECK_NEAR(fi.x, -350.0, 1e-2); /* n from k to i: -x */
  CHECK_NEAR(fi.y, 0.0, 1e-6);
  CHECK(fk.x == -fi.x && fk.y == -fi.y);
  thr_vec2 z = thr_orca_collision_force(v2(0.0f, 0.0f), v2(-0.5f, 0.0f), w, v2(0.55f, 0.0f), v2(0.5f, 0.0f), w,
                                        0.0f, 0.1f, 1.0f);
  CHECK(z.x == 0.0f && z.y == 0.0f);
  z = thr_orca_collision_force(v2(0.0f, 0.0f), v2(0.0f, 1.0f), w, v2(0.55f, 0.0f), v2(0.0f, -1.0f), w, 0.0f, 0.1f,
                               1.0f);
  CHECK(z.x == 0.0f && z.y == 0.0f); /* tangential */
  /* restitution 1 doubles it */
  fi = thr_orca_collision_force(v2(0.0f, 0.0f), v2(0.5f, 0.0f), w, v2(0.55f, 0.0f), v2(-0.5f, 0.0f), w, 1.0f, 0.1f,
                                1.0f);
  CHECK_NEAR(fi.x, -700.0, 2e-2);
}

/* A pusher at the origin moving (1, 0) (dt 0.1: next position (0.1, 0))
 * touching three agents: each gets f_p/3 along its own direction from that
 * point; the magnitudes sum to f_p; at rest or without a push: nothing. */
THR_TEST(push_shares) {
  thr_vec2 k[3] = {{0.6f, 0.0f}, {0.1f, 0.5f}, {0.1f, -0.5f}};
  float sum = 0.0f;
  for (int j = 0; j < 3; ++j) {
    thr_vec2 f = thr_orca_push_force(v2(0.0f, 0.0f), v2(1.0f, 0.0f), 196.0f, 3, k[j], 0.1f);
    sum += v2_len(f);
    thr_vec2 d = v2_sub(k[j], v2(0.1f, 0.0f));
    CHECK_NEAR(thr_det(f, d), 0.0, 1e-3); /* along its own direction */
    CHECK(v2_dot(f, d) > 0.0f);
  }
  CHECK_NEAR(sum, 196.0, 1e-3);
  thr_vec2 z = thr_orca_push_force(v2(0.0f, 0.0f), v2(0.0f, 0.0f), 196.0f, 3, v2(0.0f, 0.0f), 0.1f);
  CHECK(z.x == 0.0f && z.y == 0.0f);
  z = thr_orca_push_force(v2(0.0f, 0.0f), v2(1.0f, 0.0f), 0.0f, 3, k[0], 0.1f);
  CHECK(z.x == 0.0f && z.y == 0.0f);
}

/* Deceleration: dv exactly backwards -> k m dv/dt; 1 degree outside the
 * cone (theta_d = 30 degrees, dv at 31 degrees from backwards) -> none;
 * with an external force that step -> none (resistance instead). */
THR_TEST(deceleration_trigger) {
  float cos30 = 0.86602540f;
  thr_vec2 f = thr_orca_deceleration_force(v2(0.5f, 0.0f), v2(1.5f, 0.0f), 70.0f, 0.5f, cos30, 0.1f, 0);
  CHECK_NEAR(f.x, 0.5 * 70.0 * -1.0 / 0.1, 1e-3);
  /* dv = (-cos 31, sin 31) */
  thr_vec2 dv = v2(-0.85716730f, 0.51503807f);
  f = thr_orca_deceleration_force(v2_add(v2(1.5f, 0.0f), dv), v2(1.5f, 0.0f), 70.0f, 0.5f, cos30, 0.1f, 0);
  CHECK(f.x == 0.0f && f.y == 0.0f);
  dv = v2(-0.87461971f, 0.48480962f); /* 29 degrees: inside */
  f = thr_orca_deceleration_force(v2_add(v2(1.5f, 0.0f), dv), v2(1.5f, 0.0f), 70.0f, 0.5f, cos30, 0.1f, 0);
  CHECK(f.x < 0.0f);
  f = thr_orca_deceleration_force(v2(0.5f, 0.0f), v2(1.5f, 0.0f), 70.0f, 0.5f, cos30, 0.1f, 1);
  CHECK(f.x == 0.0f && f.y == 0.0f);
  thr_vec2 r = thr_orca_resistive_force(v2(0.5f, 0.0f), v2(1.0f, 0.2f), 70.0f, 0.5f, 0.1f, 1);
  CHECK_NEAR(r.x, 0.5 * 70.0 * -0.5 / 0.1, 1e-3);
  CHECK_NEAR(r.y, 0.5 * 70.0 * -0.2 / 0.1, 1e-3);
  r = thr_orca_resistive_force(v2(0.5f, 0.0f), v2(1.0f, 0.2f), 70.0f, 0.5f, 0.1f, 0);
  CHECK(r.x == 0.0f && r.y == 0.0f);
}

/* The cone predicate (one function, evaluated from the sender's view by the
 * sender's count and the recipient's test): by hand straight ahead inside,
 * 90 degrees outside, too far outside; over random pairs it agrees with the
 * angle and distance in double precision away from the boundaries. */
THR_TEST(cone_membership) {
  float cos45 = 0.70710678f;
  CHECK(thr_orca_in_cone(v2(1.0f, 0.0f), v2(0.6f, 0.0f), 0.6f, 0.1f, cos45));
  CHECK(!thr_orca_in_cone(v2(1.0f, 0.0f), v2(0.0f, 0.6f), 0.6f, 0.1f, cos45));
  CHECK(!thr_orca_in_cone(v2(1.0f, 0.0f), v2(0.8f, 0.0f), 0.6f, 0.1f, cos45));
  unsigned s = 3u;
  int agree = 1, inside = 0;
  for (int t = 0; t < 2000; ++t) {
    thr_vec2 d = v2(uni(&s, -1.0f, 1.0f), uni(&s, -1.0f, 1.0f));
    float ang = uni(&s, 0.0f, 6.2831853f);
    thr_vec2 a = v2(cosf(ang), sinf(ang));
    double l = hypot(d.x, d.y), c = ((double)a.x * d.x + (double)a.y * d.y) / l;
    if (fabs(l - 0.7) < 1e-4 || fabs(c - 0.70710678) < 1e-4) continue;
    int want = l < 0.7 && c >= 0.70710678;
    inside += want;
    agree &= thr_orca_in_cone(a, d, 0.6f, 0.1f, cos45) == want;
  }
  CHECK(agree);
  CHECK(inside > 50);
}
