/* Unit tests of goals and planning (section 4.1): kernels/goals.h and the
 * preferred velocity, blending (eq. 1) and prediction of kernels/physics.h,
 * against hand-computed results. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "kernels/goals.h"
#include "kernels/passes.h"
#include "kernels/physics.h"

#define TOL 1e-6

static thr_goal goal_point(float x, float y) {
  thr_goal g;
  memset(&g, 0, sizeof g);
  g.kind = THR_GOAL_POINT;
  g.ax = x;
  g.ay = y;
  return g;
}
static thr_goal goal_rect(float ax, float ay, float bx, float by) {
  thr_goal g = goal_point(ax, ay);
  g.kind = THR_GOAL_RECT;
  g.bx = bx;
  g.by = by;
  return g;
}
static thr_goal goal_disk(float cx, float cy, float r) {
  thr_goal g = goal_point(cx, cy);
  g.kind = THR_GOAL_DISK;
  g.r = r;
  return g;
}

/* ---- thr_goal_target ------------------------------------------------------ */

/* Point (1, 1), arrive radius 0.5: from (4, 5) target (1, 1), not inside
 * (distance 5); from (1.3, 1.3) (distance 0.424 <= 0.5) inside; from
 * (1.4, 1.4) (0.566 > 0.5) not inside; the target is always the point. */
THR_TEST(goal_point_target) {
  thr_goal g = goal_point(1.0f, 1.0f);
  int in = -1;
  thr_vec2 t = thr_goal_target(&g, v2(4.0f, 5.0f), 0.5f, &in);
  CHECK(t.x == 1.0f && t.y == 1.0f);
  CHECK(in == 0);
  t = thr_goal_target(&g, v2(1.3f, 1.3f), 0.5f, &in);
  CHECK(t.x == 1.0f && t.y == 1.0f);
  CHECK(in == 1);
  t = thr_goal_target(&g, v2(1.4f, 1.4f), 0.5f, &in);
  CHECK(in == 0);
  /* arrive radius 0: only the exact point */
  t = thr_goal_target(&g, v2(1.0f, 1.0f), 0.0f, &in);
  CHECK(in == 1);
}

/* Rect [1, 3] x [1, 2]: closest point is the clamp of x.
 * (0, 0) -> (1, 1) corner; (2, 5) -> (2, 2) top edge; (4, 1.5) -> (3, 1.5)
 * right edge; inside (2, 1.5) -> itself, inside; on the boundary (3, 2)
 * counts as inside. */
THR_TEST(goal_rect_target) {
  thr_goal g = goal_rect(1.0f, 1.0f, 3.0f, 2.0f);
  int in = -1;
  thr_vec2 t = thr_goal_target(&g, v2(0.0f, 0.0f), 0.5f, &in);
  CHECK(t.x == 1.0f && t.y == 1.0f && in == 0);
  t = thr_goal_target(&g, v2(2.0f, 5.0f), 0.5f, &in);
  CHECK(t.x == 2.0f && t.y == 2.0f && in == 0);
  t = thr_goal_target(&g, v2(4.0f, 1.5f), 0.5f, &in);
  CHECK(t.x == 3.0f && t.y == 1.5f && in == 0);
  t = thr_goal_target(&g, v2(2.0f, 1.5f), 0.5f, &in);
  CHECK(t.x == 2.0f && t.y == 1.5f && in == 1);
  t = thr_goal_target(&g, v2(3.0f, 2.0f), 0.5f, &in);
  CHECK(in == 1);
  /* the arrive radius does not apply to regions: (3.1, 1.5) is outside */
  t = thr_goal_target(&g, v2(3.1f, 1.5f), 0.5f, &in);
  CHECK(in == 0);
}

/* Disk centre (5, 5), r = 1: from (5, 8) (distance 3) -> (5, 6);
 * from (8, 9): d = (3, 4), |d| = 5 -> (5, 5) + (3, 4)/5 = (5.6, 5.8);
 * inside (5.5, 5) -> itself, inside. */
THR_TEST(goal_disk_target) {
  thr_goal g = goal_disk(5.0f, 5.0f, 1.0f);
  int in = -1;
  thr_vec2 t = thr_goal_target(&g, v2(5.0f, 8.0f), 0.5f, &in);
  CHECK_NEAR(t.x, 5.0, TOL);
  CHECK_NEAR(t.y, 6.0, TOL);
  CHECK(in == 0);
  t = thr_goal_target(&g, v2(8.0f, 9.0f), 0.5f, &in);
  CHECK_NEAR(t.x, 5.6, TOL);
  CHECK_NEAR(t.y, 5.8, TOL);
  CHECK(in == 0);
  t = thr_goal_target(&g, v2(5.5f, 5.0f), 0.5f, &in);
  CHECK(t.x == 5.5f && t.y == 5.0f && in == 1);
  t = thr_goal_target(&g, v2(5.0f, 5.0f), 0.5f, &in); /* the centre */
  CHECK(t.x == 5.0f && t.y == 5.0f && in == 1);
}

/* ---- thr_agent_target ----------------------------------------------------- */

/* goals: 0 point (10, 0); 1 rect [0, 2] x [5, 6]; 2 disk (-3, 0) r 1;
 *        3 point (2, 0); 4 point (-2, 0); 5 rect [-1, 1] x [-1, 1]
 * sets:  0 = {0, 1, 2}; 1 = {3, 4}; 2 = {4, 3}; 3 = {} ; 4 = {0, 5} */
static const int k_set_first[] = {0, 3, 5, 7, 7, 9};
static const int k_set_items[] = {0, 1, 2, 3, 4, 4, 3, 0, 5};

static thr_goal_view make_goals(thr_goal *goals) {
  goals[0] = goal_point(10.0f, 0.0f);
  goals[1] = goal_rect(0.0f, 5.0f, 2.0f, 6.0f);
  goals[2] = goal_disk(-3.0f, 0.0f, 1.0f);
  goals[3] = goal_point(2.0f, 0.0f);
  goals[4] = goal_point(-2.0f, 0.0f);
  goals[5] = goal_rect(-1.0f, -1.0f, 1.0f, 1.0f);
  thr_goal_view gv;
  gv.n_goals = 6;
  gv.n_sets = 5;
  gv.goals = goals;
  gv.set_first = k_set_first;
  gv.set_items = k_set_items;
  return gv;
}

/* From x = (0, 0), set 0: point (10, 0) at distance^2 100; rect closest
 * (0, 5) at 25; disk closest (-2, 0) at 4 -> the disk, target (-2, 0). */
THR_TEST(agent_target_closest) {
  thr_goal goals[6];
  thr_goal_view gv = make_goals(goals);
  thr_vec2 t = v2(99.0f, 99.0f);
  int in = -1;
  CHECK(thr_agent_target(&gv, 0, v2(0.0f, 0.0f), v2(0.0f, 0.0f), 0.5f, &t, &in) == 1);
  CHECK_NEAR(t.x, -2.0, TOL);
  CHECK_NEAR(t.y, 0.0, TOL);
  CHECK(in == 0);
  /* from (1, 4.5): rect closest (1, 5) at 0.25 wins */
  CHECK(thr_agent_target(&gv, 0, v2(0.0f, 0.0f), v2(1.0f, 4.5f), 0.5f, &t, &in) == 1);
  CHECK(t.x == 1.0f && t.y == 5.0f && in == 0);
  /* set 4 = {point (10, 0), rect [-1,1]^2}: from (0.5, 0.5), inside the rect:
   * target is x itself, inside = 1 (distance 0 beats 90.5) */
  CHECK(thr_agent_target(&gv, 4, v2(0.0f, 0.0f), v2(0.5f, 0.5f), 0.5f, &t, &in) == 1);
  CHECK(t.x == 0.5f && t.y == 0.5f && in == 1);
}

/* Ties: from (0, 0), points (2, 0) and (-2, 0) are both at distance 2; the
 * first listed wins, whichever order the set lists them in. */
THR_TEST(agent_target_tie_first) {
  thr_goal goals[6];
  thr_goal_view gv = make_goals(goals);
  thr_vec2 t = v2(0.0f, 0.0f);
  int in = 0;
  CHECK(thr_agent_target(&gv, 1, v2(0.0f, 0.0f), v2(0.0f, 0.0f), 0.5f, &t, &in) == 1);
  CHECK(t.x == 2.0f && t.y == 0.0f);
  CHECK(thr_agent_target(&gv, 2, v2(0.0f, 0.0f), v2(0.0f, 0.0f), 0.5f, &t, &in) == 1);
  CHECK(t.x == -2.0f && t.y == 0.0f);
}

/* Personal goal (set -1): the personal point, inside within the arrive
 * radius; no goal (set -2) and an empty set: return 0. */
THR_TEST(agent_target_personal_none) {
  thr_goal goals[6];
  thr_goal_view gv = make_goals(goals);
  thr_vec2 t = v2(0.0f, 0.0f);
  int in = -1;
  CHECK(thr_agent_target(&gv, THR_GOALSET_PERSONAL, v2(7.0f, -3.0f), v2(0.0f, 0.0f), 0.5f, &t,
                         &in) == 1);
  CHECK(t.x == 7.0f && t.y == -3.0f && in == 0);
  CHECK(thr_agent_target(&gv, THR_GOALSET_PERSONAL, v2(7.0f, -3.0f), v2(7.3f, -3.3f), 0.5f, &t,
                         &in) == 1);
  CHECK(in == 1); /* distance 0.424 <= 0.5 */
  t = v2(5.0f, 5.0f);
  CHECK(thr_agent_target(&gv, THR_GOALSET_NONE, v2(7.0f, -3.0f), v2(0.0f, 0.0f), 0.5f, &t, &in) ==
        0);
  CHECK(thr_agent_target(&gv, 3, v2(7.0f, -3.0f), v2(0.0f, 0.0f), 0.5f, &t, &in) == 0);
  CHECK(t.x == 5.0f && t.y == 5.0f); /* untouched */
}

/* ---- preferred velocity, blending, prediction ---------------------------- */

/* x = (0, 0), g = (3, 4), s = 1.5, dt = 0.5: |g - x| = 5, 5/0.5 = 10 > 1.5
 * -> v = 1.5 (0.6, 0.8) = (0.9, 1.2).
 * g = (0.3, 0.4): |.| = 0.5, 0.5/0.5 = 1.0 < 1.5 -> speed 1:
 * v = (0.6, 0.8), and x + dt v = (0.3, 0.4) = g exactly (no overshoot).
 * At the target: zero. */
THR_TEST(preferred_velocity) {
  thr_vec2 v = thr_preferred_velocity(v2(0.0f, 0.0f), v2(3.0f, 4.0f), 1.5f, 0.5f);
  CHECK_NEAR(v.x, 0.9, TOL);
  CHECK_NEAR(v.y, 1.2, TOL);
  CHECK_NEAR(v2_len(v), 1.5, TOL);
  v = thr_preferred_velocity(v2(0.0f, 0.0f), v2(0.3f, 0.4f), 1.5f, 0.5f);
  CHECK_NEAR(v.x, 0.6, TOL);
  CHECK_NEAR(v.y, 0.8, TOL);
  thr_vec2 x1 = thr_predict(v2(0.0f, 0.0f), v, 0.5f);
  CHECK_NEAR(x1.x, 0.3, TOL);
  CHECK_NEAR(x1.y, 0.4, TOL);
  v = thr_preferred_velocity(v2(2.0f, 2.0f), v2(2.0f, 2.0f), 1.5f, 0.5f);
  CHECK(v.x == 0.0f && v.y == 0.0f);
  /* from (1, 1) to (1, -2) at 1.4 m/s, dt 1/48: (0, -1.4) */
  v = thr_preferred_velocity(v2(1.0f, 1.0f), v2(1.0f, -2.0f), 1.4f, 1.0f / 48.0f);
  CHECK_NEAR(v.x, 0.0, TOL);
  CHECK_NEAR(v.y, -1.4, TOL);
}

/* Eq. (1): v = (1, 0), vp = (0, 2), alpha = 0.25 -> 0.75 (1, 0) + 0.25 (0, 2)
 * = (0.75, 0.5). alpha 0 -> v, 1 -> vp. The paper's alpha = 0.0385:
 * v = (1.4, 0), vp = (0, 1.4) -> (1.3461, 0.0539). */
THR_TEST(blend_velocity) {
  thr_vec2 b = thr_blend_velocity(v2(1.0f, 0.0f), v2(0.0f, 2.0f), 0.25f);
  CHECK_NEAR(b.x, 0.75, TOL);
  CHECK_NEAR(b.y, 0.5, TOL);
  b = thr_blend_velocity(v2(1.0f, 0.0f), v2(0.0f, 2.0f), 0.0f);
  CHECK(b.x == 1.0f && b.y == 0.0f);
  b = thr_blend_velocity(v2(1.0f, 0.0f), v2(0.0f, 2.0f), 1.0f);
  CHECK(b.x == 0.0f && b.y == 2.0f);
  b = thr_blend_velocity(v2(1.4f, 0.0f), v2(0.0f, 1.4f), 0.0385f);
  CHECK_NEAR(b.x, 1.3461, TOL); /* 0.9615 * 1.4 */
  CHECK_NEAR(b.y, 0.0539, TOL); /* 0.0385 * 1.4 */
}

/* x* = x + dt vb: (1, 2) + 0.5 (0.75, 0.5) = (1.375, 2.25). */
THR_TEST(predict) {
  thr_vec2 p = thr_predict(v2(1.0f, 2.0f), v2(0.75f, 0.5f), 0.5f);
  CHECK_NEAR(p.x, 1.375, TOL);
  CHECK_NEAR(p.y, 2.25, TOL);
}

/* The whole plan-and-predict pass of passes.h for one agent:
 * x = (0, 0), v = (1, 0), personal goal (0, 10) at 2 m/s, alpha 0.5,
 * dt 0.5: vp = (0, 2), vb = (0.5, 1), x* = (0.25, 0.5).
 * At goal (flag set): vp = 0, vb = (0.5, 0), x* = (0.25, 0).
 * Within the arrive radius: the same as at goal. */
/* One agent at x moving at v (speed 2 m/s) towards goal set gs / goal g. */
static thr_vec2 predict_one(const thr_ctx *c, thr_vec2 x, int gs, thr_vec2 g, uint32_t flags) {
  thr_agents a;
  thr_agents_init(&a);
  thr_agent_rec r;
  thr_agent_rec_blank(&r);
  r.x = x;
  r.p = x;
  r.v = v2(1.0f, 0.0f);
  r.pref_speed = 2.0f;
  r.goal_set = gs;
  r.goal = g;
  r.flags = flags;
  CHECK(thr_agents_push(&a, &r) == 0);
  thr_vec2 p = thr_agent_predict(c, &a, 0);
  thr_agents_free(&a);
  return p;
}

THR_TEST(agent_predict_pass) {
  thr_goal goals[6];
  thr_ctx c;
  memset(&c, 0, sizeof c);
  c.goals = make_goals(goals);
  c.prm.dt = 0.5f;
  c.prm.alpha = 0.5f;
  c.prm.arrive_radius = 0.5f;
  thr_vec2 p = predict_one(&c, v2(0.0f, 0.0f), THR_GOALSET_PERSONAL, v2(0.0f, 10.0f), 0u);
  CHECK_NEAR(p.x, 0.25, TOL);
  CHECK_NEAR(p.y, 0.5, TOL);
  p = predict_one(&c, v2(0.0f, 0.0f), THR_GOALSET_PERSONAL, v2(0.0f, 10.0f), THR_FLAG_AT_GOAL);
  CHECK_NEAR(p.x, 0.25, TOL);
  CHECK_NEAR(p.y, 0.0, TOL);
  p = predict_one(&c, v2(0.0f, 9.8f), THR_GOALSET_PERSONAL, v2(0.0f, 10.0f), 0u);
  CHECK_NEAR(p.x, 0.25, TOL);
  CHECK_NEAR(p.y, 9.8, TOL);
  /* set 0 from (0, 0): target (-2, 0) (disk), vp = (-2, 0),
   * vb = 0.5 (1, 0) + 0.5 (-2, 0) = (-0.5, 0), x* = (-0.25, 0) */
  p = predict_one(&c, v2(0.0f, 0.0f), 0, v2(0.0f, 0.0f), 0u);
  CHECK_NEAR(p.x, -0.25, TOL);
  CHECK_NEAR(p.y, 0.0, TOL);
  /* pre-movement: before its release time the agent does not plan (vp = 0) */
  c.ev.time = 1.0f;
  thr_agents a;
  thr_agents_init(&a);
  thr_agent_rec r;
  thr_agent_rec_blank(&r);
  r.v = v2(1.0f, 0.0f);
  r.pref_speed = 2.0f;
  r.goal_set = THR_GOALSET_PERSONAL;
  r.goal = v2(0.0f, 10.0f);
  r.release = 3.0f;
  CHECK(thr_agents_push(&a, &r) == 0);
  p = thr_agent_predict(&c, &a, 0); /* vb = 0.5 (1, 0): x* = (0.25, 0) */
  CHECK_NEAR(p.x, 0.25, TOL);
  CHECK_NEAR(p.y, 0.0, TOL);
  c.ev.time = 3.0f; /* released: as the first case */
  p = thr_agent_predict(&c, &a, 0);
  CHECK_NEAR(p.x, 0.25, TOL);
  CHECK_NEAR(p.y, 0.5, TOL);
  thr_agents_free(&a);
  c.ev.time = 0.0f;
  /* at-goal bookkeeping */
  CHECK(thr_agent_at_goal(&c, v2(0.0f, 9.8f), THR_GOALSET_PERSONAL, v2(0.0f, 10.0f)) == 1);
  CHECK(thr_agent_at_goal(&c, v2(0.0f, 9.0f), THR_GOALSET_PERSONAL, v2(0.0f, 10.0f)) == 0);
  CHECK(thr_agent_at_goal(&c, v2(0.5f, 0.5f), 4, v2(0.0f, 0.0f)) == 1);
  CHECK(thr_agent_at_goal(&c, v2(0.0f, 0.0f), THR_GOALSET_NONE, v2(0.0f, 0.0f)) == 0);
}
