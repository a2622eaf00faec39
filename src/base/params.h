/* Model and solver parameters as the kernels see them: plain data, passed by
 * value to device kernels. The scenario parser (io/) fills this from YAML;
 * defaults are the paper's (docs/configuration.md lists every key). */
#ifndef THRONG_PARAMS_H
#define THRONG_PARAMS_H

#include "model_list.h"
#include "vec2.h"

/* How a 3D avoidance response chooses its direction (`avoidance.plane`;
 * the order is the schema's choices): along d_t itself (000's section 4.5
 * in 3D), or across a separation plane that contains the pair's normal n
 * and the up axis (horizontal: the pair side-steps at its altitude), the
 * horizontal axis perpendicular to n (vertical: one passes over the other),
 * or a user axis (tests only; no scenario key yet); auto picks horizontal
 * or vertical per agent from where its neighbours are (thr_plane_choice3). */
enum thr_av_plane { THR_PLANE_TANGENT = 0, THR_PLANE_HORIZONTAL = 1, THR_PLANE_VERTICAL = 2, THR_PLANE_AUTO = 3,
                    THR_PLANE_AXIS = 4 };

/* The crowd model (`model.kind`): THR_MODEL_PBD, _ORCA, _POWERLAW, in the
 * order of the model list (model_list.h), which is the schema's. */
enum thr_model_kind {
#define THR_X(KIND, name, own_plan, groups, reach0, reach1, walls) THR_MODEL_##KIND,
  THR_MODELS(THR_X)
#undef THR_X
  THR_MODEL_COUNT
};

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

typedef struct thr_params {
  /* time integration (Algorithm 1, section 4.1) */
  float dt;          /* time step [s] */
  float alpha;       /* velocity blending factor, eq. (1) */
  float omega;       /* Jacobi delta-averaging coefficient */
  int stability_iterations;
  int solver_iterations;
  float radius_scale; /* collision radii are expanded by this factor (1.05) */

  /* frictional contact (section 4.2) */
  int contact_on;
  int friction_on;
  float contact_stiffness;
  float mu_static;
  float mu_kinetic;

  /* long-range collision (section 4.4) */
  int longrange_on;
  float lr_stiffness; /* k */
  float lr_tau0;      /* valid 0 < tau < tau0 [s] */
  float lr_radius;    /* neighbour search radius [m] */
  int lr_response;    /* enum thr_lr_response: x~'s correction applied to x* as is or projected */

  /* avoidance model (section 4.5) */
  int avoidance_on;
  float av_stiffness;
  float av_tau0;
  float av_radius;
  int av_response;    /* enum thr_lr_response */

  /* speed-density relation: a time-gap (headway) law in the planning of
   * Algorithm 1 (docs/decisions/0004-pedestrian-model.md) */
  int headway_on;
  float hw_time_gap; /* T: speed v0 (1 - exp(-(gap - g0) / (v0 T))), (gap - g0)/T close up [s] */
  float hw_min_gap;  /* g0: the gap at which an agent stands still [m] */
  float hw_anticipation; /* neighbours are taken where they will be this much later [s] */
  float hw_turn_anticipation; /* ... more so the more their way turns from the agent's [s] */
  float hw_cross_width; /* a neighbour heading across the agent's way counts within this share of width */
  float hw_width;    /* neighbours within width * (ri + rj) of the path count */
  float hw_range;    /* neighbours further than this (centre distance) never slow an agent [m] */
  float hw_sidestep; /* a held-up agent steps 30 deg aside where the way is clear this far [m]; 0: never */

  /* walls and obstacles (section 4.7) */
  int walls_on;
  float wall_stiffness;
  float wall_clearance; /* agents keep this much room between body and wall [m] (2D) */

  /* XSPH cohesion (section 4.3), Poly6 kernel */
  int xsph_on;
  float xsph_c;
  float xsph_h;
  float xsph_poly6; /* 315 / (64 pi h^9), precomputed on the host */

  /* clamps (section 4.6); 0 disables */
  float max_speed;
  float max_accel;

  /* goals */
  float arrive_radius; /* a point goal is reached within this distance [m] */

  /* group formations (seed paper 004, docs/formations.md) */
  int formation_on;      /* the scenario has formations */
  float fm_stiffness;    /* k_f: fraction of the gap to the SRD closed per step */
  float fm_k_it;         /* per-iteration stiffness from k_f and N (set on the host) */
  int fm_cap;            /* pull at most the agent's speed x dt per step */
  int fm_lookahead;      /* cell rings of the congestion test */
  int fm_restore_delay;  /* steps clear before the formation is taken back */
  int steer_mode;        /* enum thr_steer_mode */
  float steer_time;      /* T_s [s] */
  float steer_accel;     /* a_s [m/s^2] */

  /* 3D agents (seed paper 003, docs/3d.md): altitude fields z, pz, vz;
   * the grid and the decomposition stay on (x, y) */
  int dim3;             /* the scenario is 3D (world.z given) */
  float z_min, z_max;   /* floor and ceiling: agents' spheres stay between [m] */
  int av_plane;         /* enum thr_av_plane: direction of the 3D avoidance response */
  float av_auto_radius; /* neighbours within this (3D) distance decide the plane in auto mode [m] */

  /* the ORCA model (seed paper 002, model.kind orca; docs/orca.md) */
  int model_kind;         /* enum thr_model_kind */
  float orca_range;       /* neighbours closer than this count [m] */
  int orca_neighbors;     /* the nearest this many, at most THR_ORCA_MAX_NEIGHBORS */
  float orca_horizon;     /* time horizon tau of the half-planes [s] */
  float orca_horizon_obst; /* ... of the obstacles' half-planes [s] */
  float orca_share;       /* each agent's share of the avoidance (1/2: reciprocal) */
  float orca_range_max;   /* the largest neighbour range of any behaviour state [m] (ghost rings) */
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
  float orca_reach;       /* pushes, collisions and inferred forces act within this centre distance
                             (derived: 2 r_max + the larger margin + 2 max_speed dt) [m] */
  /* the power-law model (Karamouzas et al. 2014; model.kind powerlaw; docs/powerlaw.md) */
  float pl_k;             /* energy scale k [m^2/s^2, per unit mass] */
  float pl_tau0;          /* interaction time horizon tau0 [s] */
  float pl_xi;            /* relaxation time of the driving force [s] */
  float pl_range;         /* neighbours and walls within this distance interact [m] */
  float pl_max_accel;     /* cap on |acceleration| [m/s^2]; 0: none */
  /* behaviour state machines (behaviors.*) */
  int n_bstates, n_btrans;
  thr_bstate bstates[THR_MAX_BSTATES];
  thr_btrans btrans[THR_MAX_BTRANS];
  thr_vec2 circ_center;   /* behaviors.center: circulation centre [m] */
  thr_vec2 circ_start;    /* behaviors.start: the lap line runs from the centre through it [m] */
  float circ_inward;      /* behaviors.inward: weight of the pull towards circ_radius */
  float circ_radius;      /* behaviors.radius: preferred circulation radius (0: none) [m] */
  unsigned long long rng_seed; /* the scenario's seed (random transitions) */

  /* neighbour grid */
  float cell_size; /* side of a grid cell [m] */
  float skin;      /* extra search distance covering motion within a step [m] */
} thr_params;

#endif
