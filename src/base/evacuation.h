/* The evacuation parts of a scenario, as plain data (io/config.c fills
 * them; docs/configuration.md documents the keys): the walkable area, exits,
 * routing, stages and journeys, sources, measurement. See
 * docs/decisions/0003-evacuation.md for the model. */
#ifndef THRONG_EVACUATION_H
#define THRONG_EVACUATION_H

#include <stdint.h>

#include "vec2.h"

/* Polygons as vertex chains. Ring r has the vertices verts[ring_first[r] ..
 * ring_first[r+1]) in order, the first not repeated at the end; polygon p
 * has the rings ring_first-indices poly_first[p] .. poly_first[p+1]): its
 * first ring is the outer boundary, the others are holes. Orientation is
 * free (the code never relies on it). */
typedef struct thr_polyset {
  int n_polys, n_rings, n_verts;
  int *poly_first; /* [n_polys + 1] */
  int *ring_first; /* [n_rings + 1] */
  thr_vec2 *verts; /* [n_verts] */
  int *poly_line;  /* [n_polys] source line of each polygon (messages) */
} thr_polyset;

/* A distribution of a per-agent value (pre-movement time, speed, radius),
 * drawn with the counter-based RNG keyed by (seed, agent id). */
enum thr_dist_kind {
  THR_DIST_NONE = 0, /* not given: the caller's default applies */
  THR_DIST_CONST,    /* a */
  THR_DIST_UNIFORM,  /* uniform in [a, b] */
  THR_DIST_NORMAL    /* normal, mean a, standard deviation b, truncated to [lo, hi] */
};
typedef struct thr_dist {
  int kind;
  float a, b;
  float lo, hi;
} thr_dist;

/* Where a block's or source's agents go. */
enum thr_route_kind {
  THR_ROUTE_GOALS = 0,    /* the block's goal (the paper's planner; no distance field) */
  THR_ROUTE_NEAREST_EXIT, /* the exit closest by travel distance */
  THR_ROUTE_EXIT,         /* one exit (route = exit index) */
  THR_ROUTE_JOURNEY       /* a journey (route = journey index) */
};

/* Stages of journeys, as in JuPedSim. */
enum thr_stage_kind {
  THR_STAGE_WAYPOINT, /* reached within `distance` of `point` */
  THR_STAGE_EXIT,     /* leave through exit `exit` (agents inside any exit are removed) */
  THR_STAGE_QUEUE,    /* line up on the slots, front first; the front leaves every `service` s */
  THR_STAGE_WAITING   /* take a free slot; leave at time `until`, or `duration` s after arriving */
};

typedef struct thr_stage_def {
  char name[64];
  int line;
  int kind;          /* enum thr_stage_kind */
  thr_vec2 point;    /* waypoint */
  float distance;    /* waypoint: reached within this distance [m] */
  int exit;          /* exit stage: index into the exits */
  int slot_first;    /* queue, waiting: slots[slot_first .. slot_first + n_slots) */
  int n_slots;
  float service;     /* queue: seconds between departures of the front agent */
  float until;       /* waiting: release time [s]; < 0: use duration */
  float duration;    /* waiting: seconds each agent waits after taking its slot */
} thr_stage_def;

/* A stage as the step sees it (the world holds them; kernels/evac_agent.h reads
 * them). */
typedef struct thr_stage_view {
  int kind;       /* enum thr_stage_kind */
  int field;      /* its distance field (waypoint: to the point; queue, waiting: to the slots; exit: the exit's) */
  thr_vec2 point; /* waypoint */
  float distance; /* waypoint: reached within this distance [m]; queue, waiting: the stage's area is
                     within this travel distance of a slot */
} thr_stage_view;

/* How a journey chooses the stage after one of its stages. */
enum thr_transition_kind {
  THR_TRANSITION_FIXED,         /* items[0] */
  THR_TRANSITION_ROUND_ROBIN,   /* items in turn, item k taken weights[k] times per round */
  THR_TRANSITION_LEAST_TARGETED /* the item that the fewest agents head for now */
};

typedef struct thr_transition {
  int kind;  /* enum thr_transition_kind */
  int first; /* candidates: stage indices trans_items[first .. first + n), weights trans_weights[...] */
  int n;
} thr_transition;

typedef struct thr_journey_def {
  char name[64];
  int line;
  int first_stage; /* the stage agents start with (stage index) */
  /* transition after each stage s of the scenario (index s): journey_transition[first_transition + s]
   * (n_stages entries per journey; kind FIXED with n = 0 where the journey does not use s) */
  int first_transition;
} thr_journey_def;

/* Where and when a source adds agents; their properties come from `agents`,
 * an agent block of the scenario's block table (layout unused). */
typedef struct thr_source_def {
  char name[64];
  int line;
  int region;     /* polygon of the scenario's source_regions */
  float rate;     /* agents per second */
  float start;    /* first agent at this time [s] */
  float stop;     /* none after this time [s]; < 0: no end */
  long count;     /* at most this many in all; 0: no limit */
  int block;      /* index into the scenario's blocks (properties, route) */
} thr_source_def;

/* Measurement lines: a segment each; flow = agents crossing it. At most
 * THR_MAX_LINES (the backends count crossings in fixed arrays). */
#define THR_MAX_LINES 64
typedef struct thr_measure_line {
  char name[64];
  int line;
  thr_vec2 a, b;
} thr_measure_line;

/* Where an agent passes from one floor's place to another's (docs/floors.md):
 * a step that crosses segment a-b moving along n (a unit normal) goes on
 * `shift` metres along x, in the other floor's place. */
typedef struct thr_seam {
  thr_vec2 a, b, n;
  float shift;
} thr_seam;

/* An area of another walking speed: a stair (up: unit vector uphill; the
 * speed factor is f_up walking up it, f_down otherwise) or a speed zone
 * (up zero, f_up = f_down). Its polygon is verts[v0 .. v0 + nv) of the
 * zones' vertex array; lo, hi its bounding box. */
typedef struct thr_zone {
  int v0, nv;
  thr_vec2 lo, hi, up;
  float f_up, f_down;
} thr_zone;

/* New stage, route and slot of agent `id`. */
typedef struct thr_stage_assign {
  uint32_t id;
  int32_t stage, route, slot;
} thr_stage_assign;

#endif
