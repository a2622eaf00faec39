/* The ORCA model's parameters (seed paper 002, model.kind orca;
 * docs/orca.md): its keys orca.*, forces.*, behaviors.* and what is derived
 * from them. A member of thr_params's model union (params.h): only an ORCA
 * run holds them. */
#ifndef THRONG_PARAMS_ORCA_H
#define THRONG_PARAMS_ORCA_H

#include "vec2.h"

/* Neighbours an ORCA agent takes into its linear program, at most. */
enum { THR_ORCA_MAX_NEIGHBORS = 16 };
/* Obstacle edges an ORCA agent takes into its linear program, at most (the
 * nearest). */
enum { THR_ORCA_MAX_EDGES = 32 };

/* When an ORCA agent pushes (`forces.push`, a behaviour state's `push`;
 * the schema's choices' order). */
enum thr_push_mode { THR_PUSH_NEVER = 0, THR_PUSH_ALWAYS = 1, THR_PUSH_WHEN_SLOW = 2 };

/* Behaviour state machines (002 section 4; `behaviors`, docs/orca.md):
 * at most this many states and transitions. */
enum { THR_MAX_BSTATES = 8, THR_MAX_BTRANS = 16 };
/* A state's target: a goal set (>= 0), or one of these. */
enum { THR_STATE_GOAL_KEEP = -1, THR_STATE_GOAL_STAND = -2, THR_STATE_GOAL_CIRCULATE = -3 };
/* What fires a transition. */
enum thr_btrans_kind { THR_BT_AFTER = 0, THR_BT_ARRIVED = 1, THR_BT_REGION = 2, THR_BT_LAPS = 3, THR_BT_LAP = 4,
                       THR_BT_RANDOM = 5, THR_BT_SLOW = 6 };

/* One behaviour state: a parameter set (002 Table 1). */
typedef struct thr_bstate {
  int goal;      /* a goal set, or THR_BGOAL_* */
  float speed;   /* factor on the agent's preferred speed */
  float range;   /* orca.neighbor_dist in this state [m] */
  float horizon; /* orca.time_horizon in this state [s] */
  int push;      /* enum thr_push_mode */
  float radius;  /* circulating: the radius drawn towards (0: behaviors.radius) [m] */
  float push_gain; /* forces.push_gain in this state: "rude" agents push harder [1/s] */
  float share;     /* orca.responsibility in this state: its share of the avoidance (0.5 reciprocal) */
} thr_bstate;

/* One transition: from -> to when its condition holds (the first that
 * holds, in the file's order, at most one a step). */
typedef struct thr_btrans {
  int from, to, kind; /* kind: enum thr_btrans_kind */
  int steps;          /* AFTER: steps in the state */
  int laps;           /* LAPS: circuits completed */
  float chance;       /* RANDOM: probability per step */
  float box[4];       /* REGION: x0, y0, x1, y1 */
} thr_btrans;

typedef struct thr_orca_params {
  float range;        /* orca.neighbor_dist: neighbours closer than this count [m] */
  int neighbors;      /* the nearest this many, at most THR_ORCA_MAX_NEIGHBORS */
  float horizon;      /* time horizon tau of the half-planes [s] */
  float horizon_obst; /* ... of the obstacles' half-planes [s] */
  float share;        /* each agent's share of the avoidance (1/2: reciprocal) */
  float range_max;    /* the largest neighbour range of any behaviour state [m] (ghost rings; derived) */
  /* its physical forces (002 section 3.3; forces.*) */
  int forces_on;          /* collision, push and inferred forces and the force constraint */
  float restitution;      /* coefficient of restitution of eq. 6 */
  float push_gain;        /* f_p = push_gain m |v| [1/s] */
  int push_speed;         /* 0: |v| (current), 1: |v_pref| (preferred) */
  int push_mode;          /* enum thr_push_mode when no behaviour state says */
  float slow_speed;       /* when_slow: slower than this [m/s] ... */
  float slow_time;        /* ... for this long [s] */
  int slow_steps;         /* slow_time in steps (derived) */
  float k_thresh;         /* share of an inferred force handed on */
  float theta_d, theta_r; /* deceleration and resistive angles [degrees] */
  float cos_d, cos_r;     /* their cosines (derived on the host) */
  float interact_margin;  /* pushing and inferred forces reach this far beyond contact [m] */
  float contact_margin;   /* collisions count this far beyond contact [m] */
  int inferred_sign;      /* 0: neighbours get the reaction -F/N, 1: literal +F/N */
  float reach;            /* pushes, collisions and inferred forces act within this centre distance
                             (derived: 2 r_max + the larger margin + 2 max_speed dt) [m] */
  /* behaviour state machines (behaviors.*): their counts; the tables are
   * the scenario's and the world's (thr_ctx.bstates, .btrans), so that
   * they do not travel by value with every kernel's context */
  int n_bstates, n_btrans;
  thr_vec2 circ_center;   /* behaviors.center: circulation centre [m] */
  thr_vec2 circ_start;    /* behaviors.start: the lap line runs from the centre through it [m] */
  float circ_inward;      /* behaviors.inward: weight of the pull towards circ_radius */
  float circ_radius;      /* behaviors.radius: preferred circulation radius (0: none) [m] */
  unsigned long long rng_seed; /* the scenario's seed (random transitions) */
} thr_orca_params;

#endif
