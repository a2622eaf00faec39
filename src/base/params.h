/* Model and solver parameters as the kernels see them: plain data, passed by
 * value to device kernels. The scenario parser (io/) fills this from YAML;
 * defaults are the paper's (docs/configuration.md lists every key). */
#ifndef THRONG_PARAMS_H
#define THRONG_PARAMS_H

#include "model_list.h"
#include "params_orca.h"
#include "params_powerlaw.h"
#include "params_rvo3d.h"
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

/* The crowd model (`model.kind`): THR_MODEL_PBD, _ORCA, _POWERLAW, _RVO3D, in the
 * order of the model list (model_list.h), which is the schema's. */
enum thr_model_kind {
#define THR_X(KIND, name, own_plan, groups, reach0, reach1, walls, derive) THR_MODEL_##KIND,
  THR_MODELS(THR_X)
#undef THR_X
  THR_MODEL_COUNT
};


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
  int fm_break;          /* 0: the formation is never dropped (no congestion test; 004 Fig. 20's comparison) */
  int steer_mode;        /* enum thr_steer_mode */
  float steer_time;      /* T_s [s] */
  float steer_accel;     /* a_s [m/s^2] */

  /* 3D agents (seed paper 003, docs/3d.md): altitude fields z, pz, vz;
   * the grid and the decomposition stay on (x, y) */
  int dim3;             /* the scenario is 3D (world.z given) */
  float z_min, z_max;   /* floor and ceiling: agents' spheres stay between [m] */
  int av_plane;         /* enum thr_av_plane: direction of the 3D avoidance response */
  float av_auto_radius; /* neighbours within this (3D) distance decide the plane in auto mode [m] */

  /* the crowd model (model_list.h) and its own parameters: only the run's
   * model's member of the union holds values (io/config.c applies its
   * keys' defaults once model.kind is read; another model's keys are
   * refused), so thr_params grows with the largest model, not with each */
  int model_kind; /* enum thr_model_kind */
  union {
    thr_orca_params orca;         /* model.kind orca (params_orca.h) */
    thr_powerlaw_params powerlaw; /* model.kind powerlaw (params_powerlaw.h) */
    thr_rvo3d_params rvo3d;       /* model.kind rvo3d (params_rvo3d.h) */
  };
  /* neighbour grid */
  float cell_size; /* side of a grid cell [m] */
  float skin;      /* extra search distance covering motion within a step [m] */
} thr_params;

#endif
