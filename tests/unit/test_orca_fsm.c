/* Unit tests of the ORCA agents' behaviour state machines (kernels/
 * passes_orca.h, thr_agent_behavior; seed paper 002 section 4, spec 3.6):
 * each transition kind fires exactly when its condition first holds, the
 * first transition in the file's order wins, one a step, a state's goal
 * replaces the agent's goal and route, laps are counted from sign changes
 * only, and random transitions are the counter-based draws (the same
 * whatever the order or the rank that computes them). */
#include <math.h>
#include <string.h>

#include "check.h"
#include "io/config.h"
#include "kernels/pass_table.h"

typedef struct fsm {
  thr_ctx c;
  thr_agents a;
  thr_bstate states[THR_MAX_BSTATES]; /* the world's tables the context points at */
  thr_btrans trans[THR_MAX_BTRANS];
} fsm;

/* n agents at the origin, at rest, in state 0; states: 0 "a" (keeps its
 * goal), 1 "b" (goal set 3), 2 "c" (stands), 3 "d" (circulates). */
static void fsm_init(fsm *f, int n) {
  memset(f, 0, sizeof *f);
  thr_params_defaults_of(&f->c.prm, THR_MODEL_ORCA);
  thr_params *prm = &f->c.prm;
  f->c.bstates = f->states;
  f->c.btrans = f->trans;
  prm->dt = 0.1f;
  prm->orca.n_bstates = 4;
  for (int k = 0; k < 4; ++k)
    f->states[k] = (thr_bstate){THR_STATE_GOAL_KEEP, 1.0f, 3.0f, 2.0f, THR_PUSH_NEVER, 0.0f, prm->orca.push_gain, prm->orca.share};
  f->states[1].goal = 3;
  f->states[2].goal = THR_STATE_GOAL_STAND;
  f->states[3].goal = THR_STATE_GOAL_CIRCULATE;
  prm->orca.circ_center = v2(0.0f, 0.0f);
  prm->orca.circ_start = v2(1.0f, 0.0f);
  prm->orca.slow_speed = 0.3f;
  prm->orca.slow_steps = 10;
  prm->orca.rng_seed = 12345;
  thr_agents_init(&f->a);
  for (int i = 0; i < n; ++i) {
    thr_agent_rec r;
    thr_agent_rec_blank(&r);
    r.id = (uint32_t)i;
    r.goal_set = 0;
    r.route = 2;
    thr_agents_push(&f->a, &r);
  }
  f->a.n_owned = f->a.n;
}

static void add_trans(fsm *f, int from, int to, int kind) {
  thr_btrans *t = &f->trans[f->c.prm.orca.n_btrans++];
  memset(t, 0, sizeof *t);
  t->from = from, t->to = to, t->kind = kind;
}

/* One step of the behaviour pass for every agent; time advances. */
static void step(fsm *f, int s) {
  f->c.ev.time = (float)s * f->c.prm.dt;
  for (int i = 0; i < (int)f->a.n; ++i) thr_agent_behavior(&f->c, &f->a, i);
}

/* after 2 s at dt 0.1: the 20th step in the state, not the 19th; the new
 * state's goal set replaces the agent's, its route and arrival are gone. */
THR_TEST(after_fires_on_its_step) {
  fsm f;
  fsm_init(&f, 1);
  add_trans(&f, 0, 1, THR_BT_AFTER);
  f.trans[0].steps = 20;
  f.a.flags[0] = THR_FLAG_AT_GOAL;
  for (int s = 0; s < 19; ++s) step(&f, s);
  CHECK(f.a.bstate[0] == 0 && f.a.btime[0] == 19);
  step(&f, 19);
  CHECK(f.a.bstate[0] == 1 && f.a.btime[0] == 0);
  CHECK(f.a.goal_set[0] == 3 && f.a.route[0] == -1 && !(f.a.flags[0] & THR_FLAG_AT_GOAL));
  thr_agents_free(&f.a);
}

/* arrived: not before the goal flag; a state without a goal keeps the
 * agent's goal and route; standing clears the goal set. */
THR_TEST(arrived_and_goals) {
  fsm f;
  fsm_init(&f, 1);
  add_trans(&f, 0, 2, THR_BT_ARRIVED);
  add_trans(&f, 2, 0, THR_BT_AFTER);
  f.trans[1].steps = 5;
  for (int s = 0; s < 50; ++s) step(&f, s);
  CHECK(f.a.bstate[0] == 0);
  f.a.flags[0] |= THR_FLAG_AT_GOAL;
  step(&f, 50);
  CHECK(f.a.bstate[0] == 2 && f.a.goal_set[0] == THR_GOALSET_NONE && f.a.route[0] == -1);
  for (int s = 51; s < 55; ++s) step(&f, s);
  CHECK(f.a.bstate[0] == 2);
  step(&f, 55);
  CHECK(f.a.bstate[0] == 0 && f.a.goal_set[0] == THR_GOALSET_NONE); /* "a" keeps what it has */
  thr_agents_free(&f.a);
}

/* region: inside the rectangle (edges included) only; the first
 * transition of the file that holds wins, and one a step: a -> b and b -> c
 * both hold, the agent is in b after the first step, in c after the next. */
THR_TEST(region_order_and_one_a_step) {
  fsm f;
  fsm_init(&f, 2);
  add_trans(&f, 0, 2, THR_BT_REGION);
  add_trans(&f, 0, 1, THR_BT_AFTER); /* holds at once (steps 0), but listed second */
  add_trans(&f, 1, 2, THR_BT_AFTER);
  thr_btrans *r = &f.trans[0];
  r->box[0] = 1.0f, r->box[1] = 1.0f, r->box[2] = 2.0f, r->box[3] = 2.0f;
  f.a.x[0] = v2(2.0f, 1.0f); /* on the edge: inside */
  f.a.x[1] = v2(2.001f, 1.5f);
  step(&f, 0);
  CHECK(f.a.bstate[0] == 2 && f.a.bstate[1] == 1);
  step(&f, 1);
  CHECK(f.a.bstate[0] == 2 && f.a.bstate[1] == 2);
  thr_agents_free(&f.a);
}

/* Laps: an agent walked around the centre counter-clockwise on a circle of
 * radius 5 in 100 steps a circuit closes exactly one lap per circuit, at the
 * step it crosses the ray through behaviors.start; clockwise closes none,
 * nor does an agent pushed back and forth over the start line (a circuit
 * needs the opposite ray passed first); `lap` fires that step, `laps` once
 * the count is reached. */
/* Agent k at step s of a walk around the origin on a circle of radius 5,
 * 100 steps a circuit (sign 1: counter-clockwise), its velocity the last
 * step's move. */
static void on_circle(fsm *f, int k, int s, double sign) {
  const double two_pi = 6.283185307179586;
  double ang = sign * two_pi * (s + 0.5) / 100.0, prev = sign * two_pi * (s - 0.5) / 100.0;
  thr_vec2 x = v2((float)(5.0 * cos(ang)), (float)(5.0 * sin(ang)));
  thr_vec2 xp = v2((float)(5.0 * cos(prev)), (float)(5.0 * sin(prev)));
  f->a.x[k] = x;
  f->a.v[k] = v2_scale(v2_sub(x, xp), 1.0f / f->c.prm.dt);
}

THR_TEST(laps_counted_by_crossings) {
  fsm f;
  fsm_init(&f, 3);
  add_trans(&f, 3, 2, THR_BT_LAPS);
  f.trans[0].laps = 3;
  add_trans(&f, 3, 3, THR_BT_LAP); /* re-enters: the timer restarts at each lap */
  f.a.bstate[0] = f.a.bstate[1] = f.a.bstate[2] = 3;
  int laps_seen = 0, lap_steps = 0;
  for (int s = 1; s <= 250; ++s) {
    on_circle(&f, 0, s, 1.0);
    on_circle(&f, 1, s, -1.0);
    /* agent 2 jitters over the start line at (5, +-0.05), counter-clockwise every other step */
    f.a.x[2] = v2(5.0f, (s & 1) ? 0.05f : -0.05f);
    f.a.v[2] = v2(0.0f, ((s & 1) ? 0.1f : -0.1f) / f.c.prm.dt);
    int before = f.a.laps[0];
    step(&f, s);
    if (f.a.laps[0] != before) ++laps_seen, lap_steps += (f.a.btime[0] == 0);
  }
  CHECK(f.a.laps[0] == 2 && laps_seen == 2 && lap_steps == 2); /* crossings at s = 100, 200 */
  CHECK(f.a.laps[1] == 0 && f.a.bstate[1] == 3);
  CHECK(f.a.laps[2] == 0);
  CHECK(f.a.bstate[0] == 3);
  for (int s = 251; s <= 300; ++s) {
    on_circle(&f, 0, s, 1.0);
    step(&f, s);
  }
  CHECK(f.a.laps[0] == 3 && f.a.bstate[0] == 2);
  thr_agents_free(&f.a);
}

/* slow: after slow_steps steps below slow_speed; a faster step restarts
 * the count. */
THR_TEST(slow_counts_steps) {
  fsm f;
  fsm_init(&f, 1);
  add_trans(&f, 0, 1, THR_BT_SLOW);
  f.a.v[0] = v2(0.29f, 0.0f);
  for (int s = 0; s < 9; ++s) step(&f, s);
  f.a.v[0] = v2(0.31f, 0.0f);
  step(&f, 9);
  CHECK(f.a.bslow[0] == 0 && f.a.bstate[0] == 0);
  f.a.v[0] = v2(0.0f, 0.2f);
  for (int s = 10; s < 19; ++s) step(&f, s);
  CHECK(f.a.bstate[0] == 0 && f.a.bslow[0] == 9);
  step(&f, 19);
  CHECK(f.a.bstate[0] == 1);
  thr_agents_free(&f.a);
}

/* chance 0.5 per second at dt 0.1 (0.05 a step): over 20,000 agents the
 * share that left after one step is within 4 sigma of 0.05, after 20 steps
 * of 1 - 0.95^20; an agent's draw depends on (seed, id, step) only: the
 * agents taken in reverse order do the same, another seed does not. */
THR_TEST(random_is_counter_based) {
  enum { N = 20000 };
  static fsm f, g, h;
  fsm_init(&f, N);
  add_trans(&f, 0, 1, THR_BT_RANDOM);
  f.trans[0].chance = 0.5f * f.c.prm.dt;
  fsm_init(&g, N);
  g.c.prm = f.c.prm;
  memcpy(g.trans, f.trans, sizeof f.trans); /* the tables live beside the parameters */
  fsm_init(&h, N);
  h.c.prm = f.c.prm;
  memcpy(h.trans, f.trans, sizeof f.trans);
  h.c.prm.orca.rng_seed = 54321;
  int left1 = 0;
  for (int s = 0; s < 20; ++s) {
    step(&f, s);
    step(&h, s);
    g.c.ev.time = (float)s * g.c.prm.dt;
    for (int i = N - 1; i >= 0; --i) thr_agent_behavior(&g.c, &g.a, i);
    if (s == 0)
      for (int i = 0; i < N; ++i) left1 += f.a.bstate[i] == 1;
  }
  double p = 0.05, sd1 = sqrt(N * p * (1 - p));
  CHECK(fabs(left1 - N * p) < 4.0 * sd1);
  int left = 0, same = 1, differ = 0;
  for (int i = 0; i < N; ++i) {
    left += f.a.bstate[i] == 1;
    same &= f.a.bstate[i] == g.a.bstate[i];
    differ += f.a.bstate[i] != h.a.bstate[i];
  }
  double q = 1.0 - pow(0.95, 20.0), sd = sqrt(N * q * (1 - q));
  CHECK(fabs(left - N * q) < 4.0 * sd);
  CHECK(same);
  CHECK(differ > N / 10);
  thr_agents_free(&f.a);
  thr_agents_free(&g.a);
  thr_agents_free(&h.a);
}

/* The preferred velocity of a circulating agent: counter-clockwise tangent
 * at its preferred speed; with behaviors.radius, turned towards it. */
THR_TEST(circulate_direction) {
  fsm f;
  fsm_init(&f, 1);
  f.a.bstate[0] = 3;
  f.a.pref_speed[0] = 1.2f;
  f.a.x[0] = v2(5.0f, 0.0f);
  thr_bstate st = f.states[3];
  thr_vec2 vp = thr_orca_preferred(&f.c, &f.a, 0, &st);
  CHECK_NEAR(vp.x, 0.0, 1e-7);
  CHECK_NEAR(vp.y, 1.2, 1e-6);
  f.c.prm.orca.circ_radius = 4.0f;
  f.c.prm.orca.circ_inward = 0.5f;
  vp = thr_orca_preferred(&f.c, &f.a, 0, &st);
  CHECK_NEAR(v2_len(vp), 1.2, 1e-6);
  CHECK_NEAR(vp.x / vp.y, -0.5, 1e-6); /* 0.5 per metre, 1 m outside: inward half the tangent */
  f.a.x[0] = v2(10.0f, 0.0f);
  vp = thr_orca_preferred(&f.c, &f.a, 0, &st);
  CHECK_NEAR(vp.x / vp.y, -0.5, 1e-6); /* 6 m outside: still 1 m's worth */
  f.a.x[0] = v2(3.5f, 0.0f);
  vp = thr_orca_preferred(&f.c, &f.a, 0, &st);
  CHECK_NEAR(vp.x / vp.y, 0.25, 1e-6); /* 0.5 m inside: outward a quarter */
  st.radius = 12.0f; /* the state's own radius wins: 2 m inside, outward by half */
  vp = thr_orca_preferred(&f.c, &f.a, 0, &st);
  CHECK_NEAR(vp.x / vp.y, 0.5, 1e-6);
  thr_agents_free(&f.a);
}
