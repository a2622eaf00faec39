/* A scenario as the simulator needs it, independent of the file format:
 * world, parameters, obstacles, goals, agent blocks, output settings.
 * io/config.c fills it from YAML (docs/configuration.md); core/populate.c
 * turns the agent blocks into agents. */
#ifndef THRONG_SCENARIO_H
#define THRONG_SCENARIO_H

#include <stdint.h>
#include "evacuation.h"
#include "goal.h"
#include "params.h"
#include "vec2.h"

/* routing.exit_choice, in the schema's order */
enum thr_exit_choice { THR_EXIT_CHOICE_DISTANCE, THR_EXIT_CHOICE_TIME };

enum thr_layout {
  THR_LAYOUT_GRID,    /* lattice filling a rectangle */
  THR_LAYOUT_RANDOM,  /* uniform random, non-overlapping, in a rectangle */
  THR_LAYOUT_DISK,    /* lattice points inside a disk */
  THR_LAYOUT_ELLIPSE, /* lattice points inside an ellipse */
  THR_LAYOUT_CIRCLE,  /* evenly spaced on a circle */
  THR_LAYOUT_POLYGON, /* uniform random, non-overlapping, in a spawn region (polygon); with a
                         spacing, the lattice points inside it */
  THR_LAYOUT_POINTS   /* given points (a list or a CSV file), one agent each, in list order */
};

enum thr_block_goal {
  THR_BGOAL_NONE,      /* agents stand (no preferred velocity) */
  THR_BGOAL_SET,       /* closest goal of a set of named goals */
  THR_BGOAL_POINT,     /* one point for the whole block (+ jitter) */
  THR_BGOAL_OFFSET,    /* start position + offset (+ jitter) */
  THR_BGOAL_ANTIPODAL  /* start position mirrored through a centre */
};

typedef struct thr_block {
  char name[64];
  int line;        /* line of the block in the scenario file, for messages */
  int layout;      /* enum thr_layout */
  thr_vec2 min, max;    /* grid, random: the rectangle */
  thr_vec2 center;      /* disk, ellipse, circle */
  float rx, ry;         /* disk, circle: radius (rx = ry); ellipse: semi-axes */
  long count;           /* number of agents; 0 = all lattice points */
  float spacing_x, spacing_y; /* lattice spacing; 0 = derived from count/rows/cols */
  int rows, cols;       /* grid: explicit lattice size; 0 = derived */
  float jitter;         /* each coordinate displaced by U(-jitter, jitter) [m] */
  float speed_mean, speed_spread; /* preferred speed U(mean - spread, mean + spread) */
  float radius_min, radius_max;   /* radius U(min, max) */
  float mass_min, mass_max;       /* mass U(min, max) */
  float agility;                  /* factor on the agent's own long-range correction (formations; 004) */
  int fm_rings, fm_delay;         /* 004's reaction: own look-ahead rings, restore delay; -1: the formations' */
  int group;
  int goal_kind;        /* enum thr_block_goal */
  int goal_set;         /* THR_BGOAL_SET: index into the scenario's goal sets */
  thr_vec2 goal_point;  /* POINT: the point; OFFSET: the offset; ANTIPODAL: the centre */
  float goal_jitter;    /* goal displaced by U(-goal_jitter, goal_jitter) per coordinate */
  float goal_altitude;  /* 3D: the goal's altitude; NaN: the agent's own */
  float altitude_min, altitude_max; /* 3D: altitude U(min, max) */

  /* evacuation (base/evacuation.h) */
  int source;           /* 1: the properties of a source's agents (sources[].block), no agents at the start */
  thr_dist speed_dist;  /* NORMAL: speed drawn from it instead of U(mean - spread, mean + spread) */
  thr_dist radius_dist; /* NORMAL: radius drawn from it instead of U(radius_min, radius_max) */
  thr_dist premove;     /* pre-movement time [s]: the agent stands until then (NONE: 0) */
  int route_kind;       /* enum thr_route_kind */
  int bstate;           /* ORCA: behaviour state the agents start in (behaviors.states index) */
  int laps;             /* ORCA: circuits the agents have completed at the start */
  int route;            /* THR_ROUTE_EXIT: exit index; THR_ROUTE_JOURNEY: journey index */
  int region;           /* layout polygon: polygon index in the scenario's regions */
  float density;        /* layout polygon: agents per m^2 of the region (count 0) */
  int points_first;     /* layout points: the scenario's layout_points[points_first .. + n_points) */
  int n_points;
  float points_scale;   /* layout points: point p places an agent at points_offset + points_scale p */
  thr_vec2 points_offset;
} thr_block;

/* A formation (formations.groups[]): the agents of one group walk its path
 * holding their start positions' shape (seed paper 004). */
typedef struct thr_formation_def {
  int group;             /* agents with this group form it */
  int line;              /* line of the item in the scenario file */
  float speed;           /* group speed omega [m/s] */
  float speed_weight;    /* 004's weight: omega / (1 + w rms_error); 0: constant omega [1/m] */
  float min_spacing;     /* path resampling [m] */
  float waypoint_radius; /* waypoint switch [m] */
  int n_path;
  thr_vec2 *path;        /* the drawn path; the last point is the destination */
} thr_formation_def;

/* Most Catalyst scripts of one run (catalyst.scripts and --catalyst together). */
#define THR_MAX_CATALYST_SCRIPTS 8

/* output.trajectory_format */
enum thr_trajectory_format { THR_TRAJ_AUTO, THR_TRAJ_HDF5, THR_TRAJ_CSV };

/* A floor of a building (floors[]): its walkable area lies at an elevation.
 * Inside, floor k is laid out beside the others, shifted by `shift` along
 * x (decision 0019): the plane holds every floor apart, so agents on
 * different floors never meet, and everything given on a floor (exits,
 * obstacles, agents, ...) is moved with it. */
typedef struct thr_floor_def {
  char name[64];
  int line;
  float elevation; /* [m] */
  float shift;     /* x of the floor's place inside minus its x as given [m] */
  int poly_first, n_polys; /* its polygons in the scenario's walkable area (moved by shift) */
} thr_floor_def;

/* stairs[].kind */
enum thr_stair_kind { THR_STAIR_STAIR, THR_STAIR_RAMP };

/* A stair or ramp (stairs[]) from a lower floor to an upper one. Its
 * footprint (polygon `shape` of the scenario's stair_shapes, inside floor
 * `from`'s walkable area) is walked on floor `from`'s place, from the
 * bottom landing up to the top one; the top landing is an opening in both
 * floors' boundaries, where an agent passes from one floor's place to the
 * other's (a seam). Speeds on it are the level speed times factor_up or
 * factor_down. */
typedef struct thr_stair_def {
  char name[64];
  int line;
  int kind;                /* enum thr_stair_kind */
  int from, to;            /* floor indices, from below to */
  int shape;               /* polygon of stair_shapes (inside coordinates) */
  thr_vec2 bottom[2], top[2]; /* landings, as given (floor coordinates) */
  float riser, tread;      /* [m]; 0: a ramp */
  float factor_up, factor_down; /* walking speed on it over the level speed */
} thr_stair_def;

/* An area where agents walk at `factor` times their speed (speed_zones[]):
 * an escalator taken as a moving walk, a slope, an area that slows. */
typedef struct thr_zone_def {
  char name[64];
  int line;
  int floor;
  int shape;    /* polygon of the scenario's zone_shapes (inside coordinates) */
  float factor;
} thr_zone_def;

typedef struct thr_scenario {
  char name[128];
  char description[512];
  char path[1024]; /* file the scenario came from */
  uint64_t seed;
  thr_vec2 world_min, world_max;
  thr_params prm;
  int preset; /* model.preset: enum thr_preset of io/schema.h */
  long steps; /* default run length (time.steps) */

  /* obstacles: obstacle o has vertices verts[vfirst[o] .. vfirst[o+1]);
   * the walls of the walkable area (one per ring of `walkable`) come last */
  int n_obstacles;
  int n_user_obstacles; /* the first ones: those the scenario gives (the walls of the walkable area follow) */
  int *obs_vfirst;  /* [n_obstacles + 1] */
  int *obs_closed;  /* [n_obstacles] polygon (1) or open polyline (0) */
  int *obs_line;    /* [n_obstacles] source line */
  int n_verts;
  thr_vec2 *verts;

  /* goals and goal sets (CSR) */
  int n_goals;
  thr_goal *goals;
  char (*goal_names)[64];
  int *goal_line;
  /* behaviour states and transitions of ORCA agents (their counts are in
   * prm.orca) */
  thr_bstate bstates[THR_MAX_BSTATES];
  thr_btrans btrans[THR_MAX_BTRANS];
  char bstate_names[THR_MAX_BSTATES][64];
  int bstate_line[THR_MAX_BSTATES];
  int n_sets;
  int *set_first; /* [n_sets + 1] */
  int *set_items;

  int n_blocks;
  thr_block *blocks;

  /* evacuation (base/evacuation.h; docs/decisions/0003-evacuation.md) */
  thr_polyset walkable;      /* n_polys 0: none given (the world rectangle and the obstacles) */
  int n_exits;
  char (*exit_names)[64];
  thr_polyset exit_shapes;   /* one polygon (no holes) per exit */
  float route_cell;          /* routing.cell: distance-field grid cell [m] */
  float route_clearance;     /* routing.clearance: walls inflated by this [m]; 0: the largest agent radius */
  int congestion_on;         /* routing.congestion.enabled: exit fields are travel-time fields */
  float congestion_every;    /* routing.congestion.every [s] */
  float congestion_radius;   /* routing.congestion.radius [m] */
  float congestion_min_speed; /* routing.congestion.min_speed (relative) */
  float congestion_free_density; /* routing.congestion.free_density [1/m^2] */
  int exit_choice;           /* routing.exit_choice: enum thr_exit_choice */
  float queue_flow;          /* routing.queue_flow [persons/(m s)] */
  float choice_hysteresis;   /* routing.hysteresis [s] */
  float queue_relaxation;    /* routing.queue_relaxation [s] */
  float queue_radius;        /* routing.queue_radius [m] */
  float *exit_width;         /* [n_exits] exits[].width, or derived from the shape [m] */
  int n_stages;
  thr_stage_def *stages;
  int n_slots;
  thr_vec2 *slots;           /* queue and waiting slots of all stages */
  int n_journeys;
  thr_journey_def *journeys;
  thr_transition *transitions; /* n_journeys * n_stages */
  int n_trans_items;
  int *trans_items;          /* stage indices */
  float *trans_weights;      /* round robin weights */
  thr_polyset regions;       /* spawn regions (layout polygon) and source regions */
  int n_layout_points;
  thr_vec2 *layout_points;   /* the points of all blocks of layout points, as given (before scale, offset) */
  int n_sources;
  thr_source_def *sources;
  thr_polyset areas;         /* measurement areas */
  char (*area_names)[64];
  int n_lines;
  thr_measure_line *lines;   /* measurement lines */
  float map_cell;            /* measurement.maps.cell [m] */
  int map_every;             /* measurement.maps.every [steps]; 0: no maps */
  float map_threshold;       /* measurement.maps.threshold [1/m^2]: the time_above map counts from it */

  /* buildings (docs/floors.md): floors, stairs, speed zones; without floors
   * n_floors is 0 and the walkable area is the one of `geometry` */
  int n_floors;
  thr_floor_def *floors;
  float floor_x0, floor_width, floor_pitch; /* the floors' extent in x as given, and the distance between
                                               their places inside: place k spans x0 + k pitch + [0, width] */
  int n_stairs;
  thr_stair_def *stairs;
  thr_polyset stair_shapes;
  int n_zones;
  thr_zone_def *zones;
  thr_polyset zone_shapes;

  /* group formations (docs/formations.md) */
  int n_formations;
  thr_formation_def *formations;

  /* domain decomposition (several MPI ranks) */
  int balance_every;       /* load-balance check every K steps; 0 = only at start-up */
  float balance_threshold; /* re-partition above this max/mean owned agents */

  /* output */
  char out_dir[1024];   /* output.dir; empty = out/<name> */
  int trajectory_every; /* write agent positions every K steps; 0 = never */
  int metrics_every;    /* write a metrics row every K steps; 0 = never */
  int trajectory_format; /* enum thr_trajectory_format */
  int compression;       /* trajectory.h5 deflate level; 0 = none */
  int checkpoint_every;  /* checkpoint every K steps; 0 = only on SIGTERM/SIGUSR1 */
  int checkpoint_keep;   /* checkpoints kept */

  /* in situ visualisation (docs/insitu.md) */
  int n_catalyst_scripts;
  char catalyst_scripts[THR_MAX_CATALYST_SCRIPTS][1024]; /* catalyst.scripts, relative to the working directory */
  int catalyst_every;    /* hand the state to Catalyst every K steps */
} thr_scenario;

/* Largest agent radius any block can draw. */
float thr_scenario_max_radius(const thr_scenario *sc);
void thr_scenario_free(thr_scenario *sc);
void thr_polyset_free(thr_polyset *p);

#endif
