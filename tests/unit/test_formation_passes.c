/* The formation parts of the passes (kernels/passes.h) on hand-placed
 * agents: the per-agent congestion test (eq. 9), the formation group
 * (eq. 8), no avoidance and no friction within a formation while contact
 * acts between all, XSPH within a formation only, and the steering's
 * feed-forward (spec §5.1 of ../shared/reference/seed-004-srd-formations.md). */
#include "check.h"
#include "scene.h"

/* eq. 9 per agent: another formation (or an agent in none) within the
 * look-ahead rings drops the count to 0; the agent's own formation does not. */
THR_TEST(congestion_per_agent) {
  scene s;
  scene_init(&s);
  int a = add(&s, 2.5f, 2.5f, 0);
  add(&s, 2.7f, 2.4f, 0);           /* same formation, same cell */
  int far = add(&s, 4.5f, 2.5f, 1); /* another formation two cells away */
  s.fclear[a] = 7;
  const thr_ctx *c = bind(&s);
  CHECK(thr_agent_formation_clear(c, a) == 8); /* one ring: clear */
  s.c.k_formation = 2;
  CHECK(thr_agent_formation_clear(c, a) == 0); /* two rings: congested */
  s.c.k_formation = 0;
  s.p[far] = s.x[far] = v2(2.9f, 2.9f); /* into a's own cell */
  c = bind(&s);
  CHECK(thr_agent_formation_clear(c, a) == 0);
  s.formation[far] = -1; /* an agent in no formation is another group too */
  CHECK(thr_agent_formation_clear(c, a) == 0);
  s.formation[far] = 0;
  CHECK(thr_agent_formation_clear(c, a) == 8);
  /* saturates, and agents outside formations keep their count */
  s.fclear[a] = THR_FCLEAR_MAX;
  CHECK(thr_agent_formation_clear(c, a) == THR_FCLEAR_MAX);
  s.fclear[far] = 5;
  s.formation[far] = -1;
  CHECK(thr_agent_formation_clear(c, far) == 5);
}

/* 004's reaction per agent: its own look-ahead rings and restore delay
 * replace the formations' (-1: theirs); formations.break false never
 * congests. */
THR_TEST(reaction_per_agent_and_no_break) {
  scene s;
  scene_init(&s);
  int a = add(&s, 2.5f, 2.5f, 0);
  int b = add(&s, 2.6f, 3.5f, 0);
  add(&s, 4.5f, 2.5f, 1); /* another formation two cells from a and b */
  s.fclear[a] = s.fclear[b] = 7;
  const thr_ctx *c = bind(&s);
  CHECK(thr_agent_lookahead(c, a) == 1 && thr_agent_formation_clear(c, a) == 8);
  s.frings[a] = 2; /* a sees further: congested; b (the formations' 1 ring) not */
  CHECK(thr_agent_lookahead(c, a) == 2 && thr_agent_formation_clear(c, a) == 0);
  CHECK(thr_agent_formation_clear(c, b) == 8);
  s.c.k_formation = 3; /* the global setting no longer reaches a, whose own is 2 */
  s.frings[a] = 0;
  CHECK(thr_agent_formation_clear(c, a) == 8 && thr_agent_formation_clear(c, b) == 0);
  s.c.prm.fm_break = 0; /* never congested */
  CHECK(thr_agent_formation_clear(c, b) == 8);
  /* restore delay: the formations' 5 steps, a's own 1 */
  s.c.prm.fm_restore_delay = 5;
  s.fdelay[a] = 1;
  s.fclear[a] = s.fclear[b] = 2;
  CHECK(thr_agent_formation_holds(c, a) && !thr_agent_formation_holds(c, b));
  s.fdelay[a] = -1;
  CHECK(!thr_agent_formation_holds(c, a));
}

/* eq. 8: a holding agent moves towards its SRD (P + offset) by k_it, capped
 * at speed dt / N; a broken one (count <= restore_delay) does not move. */
THR_TEST(formation_pass_moves_holding_agents_only) {
  scene s;
  scene_init(&s);
  int a = add(&s, 1.0f, 1.0f, 0);
  s.forms[0].pos = v2(1.0f, 1.0f);
  s.srd[a] = v2(0.0f, 0.03f); /* SRD 3 cm above: below the cap */
  const thr_ctx *c = bind(&s);
  thr_vec2 q = thr_agent_formation(c, a);
  CHECK_NEAR(q.x, 1.0, 0.0);
  CHECK_NEAR(q.y, 1.0 + 0.03 * s.c.prm.fm_k_it, 1e-6);
  s.srd[a] = v2(10.0f, 0.0f); /* 10 m away: the cap */
  q = thr_agent_formation(c, a);
  CHECK_NEAR(q.x - 1.0, 1.4 * s.c.prm.dt / s.c.prm.solver_iterations, 1e-6);
  s.c.prm.fm_restore_delay = 3;
  s.fclear[a] = 3; /* clear for 3 steps, delay 3: not yet */
  q = thr_agent_formation(c, a);
  CHECK(q.x == 1.0f && q.y == 1.0f);
  s.fclear[a] = 4;
  CHECK(thr_agent_formation(c, a).x > 1.0f);
  s.formation[a] = -1; /* not in a formation */
  CHECK(thr_agent_formation(c, a).x == 1.0f);
}

/* Agents 0 (formation 0) and 1 (formation fb) on a head-on course, each a
 * step along it. */
static void head_on_pair(scene *s, int fb) {
  scene_init(s);
  add(s, 1.0f, 2.5f, 0);
  add(s, 3.0f, 2.52f, fb);
  s->p[0] = v2(1.03f, 2.5f);
  s->p[1] = v2(2.97f, 2.52f);
}

/* Two agents on a head-on course: the long-range group corrects them when
 * they are in different formations (or formations are off), not when they
 * are in the same one. */
THR_TEST(same_formation_pairs_do_not_avoid) {
  scene s;
  head_on_pair(&s, 0);
  int a = 0, b = 1;
  const thr_ctx *c = bind(&s);
  thr_vec2 qa = thr_agent_long_range(c, a), qb = thr_agent_long_range(c, b);
  CHECK(qa.x == s.p[a].x && qa.y == s.p[a].y && qb.x == s.p[b].x && qb.y == s.p[b].y);
  s.formation[b] = 1;
  qa = thr_agent_long_range(c, a);
  CHECK(v2_len(v2_sub(qa, s.p[a])) > 1e-4f);
  s.formation[b] = 0;
  s.c.prm.formation_on = 0; /* formations off: the formation field is ignored */
  qa = thr_agent_long_range(c, a);
  CHECK(v2_len(v2_sub(qa, s.p[a])) > 1e-4f);
}

/* 004's agility: an agent's own long-range correction times its agility
 * (to the rounding of x* + dx* - x*); agility 1 and no agility array
 * (formations off in the store) give the same correction. */
THR_TEST(agility_scales_the_own_correction) {
  scene s;
  head_on_pair(&s, 1);
  int a = 0, b = 1;
  float agility[2] = {1.0f, 1.0f};
  thr_ctx *c = (thr_ctx *)bind(&s);
  thr_vec2 none = v2_sub(thr_agent_long_range(c, a), s.p[a]);
  c->agility = agility;
  thr_vec2 one = v2_sub(thr_agent_long_range(c, a), s.p[a]);
  CHECK(v2_len(none) > 1e-4f && one.x == none.x && one.y == none.y);
  agility[a] = 0.5f;
  thr_vec2 half = v2_sub(thr_agent_long_range(c, a), s.p[a]);
  /* (p + dp) - p rounds at the last bit of p (about 2.4e-7 at 2.5 m) */
  CHECK_NEAR(half.x, 0.5 * none.x, 5e-7);
  CHECK_NEAR(half.y, 0.5 * none.y, 5e-7);
  agility[a] = 2.0f;
  thr_vec2 twice = v2_sub(thr_agent_long_range(c, a), s.p[a]);
  CHECK_NEAR(twice.x, 2.0 * none.x, 5e-7);
  CHECK_NEAR(twice.y, 2.0 * none.y, 5e-7);
  CHECK(fabsf(twice.x) > 1.9f * fabsf(none.x) && fabsf(half.x) < 0.51f * fabsf(none.x));
  /* only its own: b's correction does not depend on a's agility */
  thr_vec2 qb = thr_agent_long_range(c, b);
  agility[a] = 1.0f;
  thr_vec2 qb1 = thr_agent_long_range(c, b);
  CHECK(qb.x == qb1.x && qb.y == qb1.y);
}

/* Contact separates every overlapping pair; within a formation without
 * friction (the result equals a frictionless run), between formations
 * with it. */
THR_TEST(contact_for_all_friction_between_formations_only) {
  scene s;
  scene_init(&s);
  int a = add(&s, 2.0f, 2.0f, 0), b = add(&s, 2.45f, 2.0f, 0);
  s.p[a] = v2(2.0f, 2.05f); /* a slid sideways along b this step */
  const thr_ctx *c = bind(&s);
  thr_vec2 same = thr_agent_contact(c, a);
  CHECK(same.x < s.p[a].x); /* pushed apart */
  s.c.prm.friction_on = 0;
  thr_vec2 none = thr_agent_contact(c, a);
  CHECK(same.x == none.x && same.y == none.y);
  s.c.prm.friction_on = 1;
  s.formation[b] = 1;
  thr_vec2 other = thr_agent_contact(c, a);
  CHECK(other.x < s.p[a].x);
  CHECK(fabsf(other.y - none.y) > 1e-5f); /* friction acted on the sliding */
}

/* XSPH smooths a formation agent's velocity over its own formation only;
 * the steering's feed-forward keeps an agent on its SRD at the group's
 * velocity. */
THR_TEST(xsph_within_formation_and_feed_forward) {
  scene s;
  scene_init(&s);
  s.c.prm.max_speed = 0.0f;
  s.c.prm.steer_mode = THR_STEER_OFF;
  int a = add(&s, 2.0f, 2.0f, 0), b = add(&s, 3.0f, 2.0f, 1);
  s.v[a] = v2(1.0f, 0.0f);
  s.v[b] = v2(-1.0f, 0.0f);
  const thr_ctx *c = bind(&s);
  thr_vec2 va = thr_agent_xsph_clamp(c, a, s.v[a]);
  CHECK(va.x == 1.0f && va.y == 0.0f); /* b is in another formation */
  s.formation[b] = 0;
  va = thr_agent_xsph_clamp(c, a, s.v[a]);
  CHECK(va.x < 1.0f); /* now smoothed towards b */
  /* on its SRD, moving with the group: pursuit keeps the velocity exactly */
  s.formation[b] = 1;
  s.c.prm.steer_mode = THR_STEER_PURSUIT;
  s.c.prm.xsph_on = 0;
  s.forms[0].pos = s.p[a];
  s.forms[0].vel = v2(1.2f, 0.0f);
  s.v[a] = v2(1.2f, 0.0f);
  va = thr_agent_xsph_clamp(c, a, s.v[a]);
  CHECK(va.x == 1.2f && va.y == 0.0f);
  /* standing, 0.5 m behind its SRD: turns towards it by at most a_s dt */
  s.srd[a] = v2(0.5f, 0.0f);
  s.v[a] = v2(0.0f, 0.0f);
  va = thr_agent_xsph_clamp(c, a, s.v[a]);
  CHECK_NEAR(v2_len(va), s.c.prm.steer_accel * s.c.prm.dt, 1e-6);
  CHECK(va.x > 0.0f && va.y == 0.0f);
}
