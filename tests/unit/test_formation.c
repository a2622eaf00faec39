/* Formations with Short Range Destinations (seed paper 004): the
 * congestion code of eq. 9, the formation constraint of eq. 8, the steering
 * of eq. 10 and the group path of eq. 3, on hand-computed cases (spec
 * §5.1 of ../shared/reference/seed-004-srd-formations.md). */
#include "behavior/group_path.h"
#include "check.h"
#include "kernels/formation.h"

/* eq. 9: empty -2, one group its id, two or more groups -1, whatever the
 * order the agents are folded in. */
THR_TEST(congestion_codes) {
  CHECK(THR_CELL_EMPTY == -2 && THR_CELL_MIXED == -1);
  int code = THR_CELL_EMPTY;
  CHECK(code == -2);
  code = thr_congestion_add(code, 3);
  CHECK(code == 3);
  code = thr_congestion_add(code, 3);
  CHECK(code == 3);
  code = thr_congestion_add(code, 5);
  CHECK(code == -1);
  CHECK(thr_congestion_add(code, 3) == -1); /* stays mixed */
  CHECK(thr_congestion_add(THR_CELL_EMPTY, 0) == 0); /* group 0 is a group */
  int orders[3][3] = {{3, 5, 3}, {5, 3, 3}, {3, 3, 5}};
  for (int k = 0; k < 3; ++k) {
    int c = THR_CELL_EMPTY;
    for (int j = 0; j < 3; ++j) c = thr_congestion_add(c, orders[k][j]);
    CHECK(c == THR_CELL_MIXED);
  }
}

/* eq. 8: only the agent moves; the literal projection (stiffness 1, no cap)
 * lands on the SRD; the cap limits the step; no correction and no NaN at
 * the SRD. */
THR_TEST(formation_correction) {
  thr_vec2 s = v2(2.0f, 1.0f), p = v2(12.0f, 1.0f);
  thr_vec2 d = thr_formation_correction(p, s, 1.0f, 0.0f);
  CHECK(d.x == -10.0f && d.y == 0.0f); /* lands exactly on s */
  float kappa = 1.4f, dt = 1.0f / 48.0f;
  int n = 6;
  d = thr_formation_correction(p, s, 0.5f, kappa * dt / (float)n);
  CHECK_NEAR(v2_len(d), kappa * dt / n, 1e-7);
  CHECK(d.x < 0.0f && d.y == 0.0f);
  d = thr_formation_correction(s, s, 0.5f, 1.0f);
  CHECK(d.x == 0.0f && d.y == 0.0f);
  d = thr_formation_correction(v2(2.0f + 5e-7f, 1.0f), s, 1.0f, 0.0f);
  CHECK(d.x == 0.0f && d.y == 0.0f); /* gap below 1e-6 m */
  /* uncapped, half stiffness: half the gap (3, 4) -> (1.5, 2) */
  d = thr_formation_correction(v2(0.0f, 0.0f), v2(3.0f, 4.0f), 0.5f, 0.0f);
  CHECK(d.x == 1.5f && d.y == 2.0f);
}

/* With no other constraint, N iterations of the per-iteration stiffness
 * close the fraction k_f of the gap per step, for any N. */
THR_TEST(stiffness_independent_of_iterations) {
  float kf = 0.5f;
  int ns[] = {1, 6, 10};
  for (int k = 0; k < 3; ++k) {
    float kit = thr_formation_iteration_stiffness(kf, ns[k]);
    thr_vec2 p = v2(10.0f, 0.0f), s = v2(0.0f, 0.0f);
    for (int it = 0; it < ns[k]; ++it) p = v2_add(p, thr_formation_correction(p, s, kit, 0.0f));
    CHECK_NEAR(p.x, 10.0f * (1.0f - kf), 1e-5);
  }
  CHECK(thr_formation_iteration_stiffness(1.0f, 6) == 1.0f);
  CHECK(thr_formation_iteration_stiffness(0.0f, 6) == 0.0f);
  CHECK_NEAR(thr_formation_iteration_stiffness(0.75f, 2), 0.5f, 1e-7); /* 1 - sqrt(0.25) */
}

/* Pursuit steering: an agent on its SRD with the group moving keeps the
 * group's velocity exactly (feed-forward); the change per step is at most
 * max_accel dt; the desired speed at most kappa. Literal: kappa towards the
 * SRD (the paper's sign fixed). */
THR_TEST(steering) {
  float dt = 1.0f / 48.0f, kappa = 1.4f, amax = 3.0f, ts = 0.5f;
  thr_vec2 gv = v2(1.2f, 0.0f), x = v2(5.0f, 5.0f);
  thr_vec2 v = thr_steer_pursuit(gv, x, x, gv, ts, kappa, amax, dt);
  CHECK(v.x == gv.x && v.y == gv.y);
  /* standing agent 10 m behind: desired kappa forward, change capped */
  v = thr_steer_pursuit(v2(0.0f, 0.0f), v2(0.0f, 0.0f), v2(10.0f, 0.0f), gv, ts, kappa, amax, dt);
  CHECK_NEAR(v2_len(v), amax * dt, 1e-6);
  CHECK(v.x > 0.0f && v.y == 0.0f);
  /* many steps: the velocity converges to the capped desired velocity */
  thr_vec2 u = v2(0.0f, 0.0f);
  for (int k = 0; k < 200; ++k) u = thr_steer_pursuit(u, v2(0.0f, 0.0f), v2(10.0f, 0.0f), gv, ts, kappa, amax, dt);
  CHECK_NEAR(u.x, kappa, 1e-5);
  v = thr_steer_literal(v2(0.3f, 0.0f), v2(0.0f, 0.0f), v2(0.0f, -2.0f), kappa);
  CHECK(v.x == 0.0f && v.y == -kappa);
  v = thr_steer_literal(v2(0.3f, 0.0f), v2(1.0f, 1.0f), v2(1.0f, 1.0f), kappa);
  CHECK(v.x == 0.3f && v.y == 0.0f);
}

/* eq. 3 on a straight path: |V| = speed dt every step, waypoints advance
 * monotonically, the group stops exactly on the last point, V = 0 after;
 * resampling drops points closer than min_spacing and keeps the ends. */
/* 004's weight on the group speed: omega / (1 + w e); weight 0 gives omega
 * bit for bit, whatever the error. */
THR_TEST(weighted_group_speed) {
  CHECK(thr_formation_weighted_speed(1.2f, 0.0f, 3.0) == 1.2f);
  CHECK(thr_formation_weighted_speed(1.2f, 2.0f, 0.0) == 1.2f);
  CHECK_NEAR(thr_formation_weighted_speed(1.2f, 2.0f, 0.5), 0.6, 1e-7);
  CHECK(thr_formation_weighted_speed(1.2f, 1.0f, 1.0) > thr_formation_weighted_speed(1.2f, 1.0f, 2.0));
}

THR_TEST(group_path) {
  thr_vec2 drawn[] = {{0.0f, 0.0f}, {0.2f, 0.0f}, {1.0f, 0.0f}, {5.0f, 0.0f}, {5.3f, 0.0f}};
  thr_vec2 kept[5];
  int m = thr_path_resample(drawn, 5, 0.5f, kept);
  CHECK(m == 3); /* (0,0), (1,0), then (5,0) replaced by the destination (5.3,0) */
  CHECK(kept[0].x == 0.0f && kept[1].x == 1.0f && kept[2].x == 5.3f);
  thr_group_path g;
  CHECK(thr_group_path_init(&g, drawn, 5, 0.5f, v2(0.1f, 0.0f)) == 0);
  CHECK(g.n == 3 && g.waypoint == 0);
  float speed = 1.2f, dt = 1.0f / 48.0f;
  int last_wp = 0, steps = 0, monotone = 1, exact = 1, no_jump = 1;
  while (!g.arrived && steps < 1000) {
    thr_vec2 before = g.pos;
    thr_vec2 V = thr_group_path_step(&g, speed, dt, 0.5f);
    if (g.waypoint < last_wp) monotone = 0;
    last_wp = g.waypoint;
    if (!g.arrived && fabsf(v2_len(V) - speed * dt) > 1e-6f) exact = 0;
    /* the position moved by V (up to the rounding of positions near 5 m) */
    if (v2_len(v2_sub(g.pos, before)) > speed * dt + 1e-5f) no_jump = 0;
    steps++;
  }
  CHECK(monotone && exact && no_jump);
  CHECK(g.arrived && g.pos.x == 5.3f && g.pos.y == 0.0f);
  CHECK(steps >= 208 && steps <= 212); /* 5.2 m at 1.2 m/s: 4.33 s = 208 steps */
  thr_vec2 V = thr_group_path_step(&g, speed, dt, 0.5f);
  CHECK(V.x == 0.0f && V.y == 0.0f && g.pos.x == 5.3f);
  thr_group_path_free(&g);
}

/* A 90-degree turn: the group goes round the corner and ends on the last
 * point; the SRDs (P + o) translate rigidly, the offsets never change. */
THR_TEST(group_path_turn) {
  thr_vec2 drawn[] = {{0.0f, 0.0f}, {10.0f, 0.0f}, {10.0f, 10.0f}};
  thr_group_path g;
  CHECK(thr_group_path_init(&g, drawn, 3, 0.5f, v2(0.0f, 0.0f)) == 0);
  thr_vec2 o = v2(-1.3f, 0.65f), s0 = v2_add(g.pos, o);
  float max_off_path = 0.0f;
  int steps = 0;
  while (!g.arrived && steps < 2000) {
    thr_group_path_step(&g, 1.2f, 1.0f / 48.0f, 0.5f);
    /* distance from the two legs of the path */
    float off = g.pos.x <= 10.0f - 0.5f ? fabsf(g.pos.y) : fabsf(g.pos.x - 10.0f);
    if (g.pos.x > 9.5f && g.pos.y < 0.5f) off = 0.0f; /* the corner cut within the waypoint radius */
    if (off > max_off_path) max_off_path = off;
    steps++;
  }
  CHECK(g.arrived && g.pos.x == 10.0f && g.pos.y == 10.0f);
  CHECK(max_off_path < 0.5f);
  thr_vec2 s = v2_add(g.pos, o);
  CHECK(s.x == 10.0f + o.x && s.y == 10.0f + o.y); /* the shape is not rotated */
  CHECK(s0.x == o.x && s0.y == o.y);
  thr_group_path_free(&g);
}
