/* Goals: where agents want to go (the paper's planner: the preferred
 * velocity points at the closest user-scripted goal). Shared by host and
 * device code. A goal set is a list of goal shapes; an agent heads for the
 * closest shape of its set, or for its personal goal point. */
#ifndef THRONG_GOALS_H
#define THRONG_GOALS_H

#include "base/goal.h"
#include "base/hostdevice.h"
#include "base/vec2.h"

/* Goal sets as CSR: set s holds goals ids[first[s] .. first[s+1]). */
typedef struct thr_goal_view {
  int n_goals;
  int n_sets;
  const thr_goal *goals;
  const int *set_first;
  const int *set_items;
} thr_goal_view;

/* Closest point of goal g to x; *inside is set when x already lies in it
 * (regions) or within arrive_radius (points). */
THR_HD thr_vec2 thr_goal_target(const thr_goal *g, thr_vec2 x, float arrive_radius, int *inside) {
  thr_vec2 t;
  if (g->kind == THR_GOAL_RECT) {
    t.x = x.x < g->ax ? g->ax : (x.x > g->bx ? g->bx : x.x);
    t.y = x.y < g->ay ? g->ay : (x.y > g->by ? g->by : x.y);
    *inside = (t.x == x.x && t.y == x.y);
    return t;
  }
  if (g->kind == THR_GOAL_DISK) {
    thr_vec2 c = v2(g->ax, g->ay);
    thr_vec2 d = v2_sub(x, c);
    float l = v2_len(d);
    *inside = l <= g->r;
    if (*inside) return x;
    return v2_add(c, v2_scale(d, g->r / l));
  }
  t = v2(g->ax, g->ay);
  *inside = v2_len2(v2_sub(t, x)) <= arrive_radius * arrive_radius;
  return t;
}

/* The target of an agent at x: the closest point of the closest goal of its
 * set (ties: the first goal listed), or its personal goal. Returns 0 when
 * the agent has no goal. */
THR_HD int thr_agent_target(const thr_goal_view *gv, int set, thr_vec2 personal, thr_vec2 x,
                            float arrive_radius, thr_vec2 *target, int *inside) {
  if (set == THR_GOALSET_NONE) return 0;
  if (set == THR_GOALSET_PERSONAL) {
    *target = personal;
    *inside = v2_len2(v2_sub(personal, x)) <= arrive_radius * arrive_radius;
    return 1;
  }
  float best = -1.0f;
  for (int k = gv->set_first[set]; k < gv->set_first[set + 1]; ++k) {
    int in = 0;
    thr_vec2 t = thr_goal_target(&gv->goals[gv->set_items[k]], x, arrive_radius, &in);
    float d2 = v2_len2(v2_sub(t, x));
    if (best < 0.0f || d2 < best) {
      best = d2;
      *target = t;
      *inside = in;
    }
  }
  return best >= 0.0f;
}

#endif
