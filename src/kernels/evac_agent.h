/* Evacuation physics-side of an agent, shared by both backends: which exit
 * holds it, where its route leads (the distance fields of
 * kernels/field_sample.h), when it has reached its stage, and which
 * measurement lines its step crossed. The host side (stage bookkeeping,
 * sources, records) is core/evac.c; the model is
 * docs/decisions/0003-evacuation.md. */
#ifndef THRONG_KERNELS_EVAC_AGENT_H
#define THRONG_KERNELS_EVAC_AGENT_H

#include "base/agents.h"
#include "base/evacuation.h"
#include "base/hostdevice.h"
#include "base/polygon.h"
#include "base/vec2.h"
#include "eikonal.h"
#include "field_sample.h"
#include "physics.h"

/* agent flags (THR_FLAG_AT_GOAL = 1 is the goals' own) */
enum {
  THR_FLAG_EXITED = 2u,  /* inside an exit: removed at the end of the step */
  THR_FLAG_ARRIVED = 4u, /* reached its stage (waypoint, or the area of a queue or waiting stage) */
  THR_FLAG_SEATED = 8u   /* reached its slot at a queue or waiting stage */
};

/* agent slot values below zero */
enum { THR_SLOT_NONE = -1, THR_SLOT_HOLD = -2 };

typedef struct thr_evac_view {
  float time;   /* simulated time at the start of the step [s] */
  /* exits: closed polygons; per-cell lists over the rank's window */
  int n_exits;
  const int *exit_vfirst;     /* [n_exits + 1] */
  const thr_vec2 *exit_verts;
  const int *exit_cell_offset; /* [cells + 1]; NULL: no exits */
  const int *exit_cell_items;
  /* distance fields: n_fields arrays of nx * ny over one grid */
  int n_fields;
  float fox, foy, fh;
  int fnx, fny;
  const float *fields;
  /* congestion-aware routing: the same fields without the crowd (NULL: the
   * fields are static), on which agents rank each other (kernels/passes.h) */
  const float *ref_fields;
  /* stages and slots */
  const thr_stage_view *stages;
  const thr_vec2 *slots;
  /* measurement lines: segment k is lines[2k] .. lines[2k+1] */
  int n_lines;
  const thr_vec2 *lines;
  /* buildings (docs/floors.md): seams between floors' places, zones of
   * other walking speeds (stairs, speed zones) */
  int n_seams;
  const thr_seam *seams;
  int n_zones;
  const thr_zone *zones;
  const thr_vec2 *zone_verts;
} thr_evac_view;

/* The assignment of agent id in as[0..n) (sorted by id), or -1. */
THR_HD int thr_find_assign(const thr_stage_assign *as, int n, uint32_t id) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (as[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && as[lo].id == id ? lo : -1;
}

/* Agent i takes its assignment from as[0..n), if it has one. */
THR_HD void thr_agent_assign(const thr_agents *a, int i, const thr_stage_assign *as, int n) {
  int k = thr_find_assign(as, n, a->id[i]);
  if (k < 0) return;
  a->stage[i] = as[k].stage;
  a->route[i] = as[k].route;
  a->slot[i] = as[k].slot;
}

/* Slot distance at which an agent counts as in its slot, and the distance
 * from which it walks straight at the slot rather than down the field. */
#define THR_SLOT_REACHED 0.25f
#define THR_SLOT_DIRECT 2.0f

THR_HD thr_navfield_view thr_evac_field(const thr_evac_view *e, int k) {
  thr_navfield_view v;
  v.ox = e->fox;
  v.oy = e->foy;
  v.h = e->fh;
  v.nx = e->fnx;
  v.ny = e->fny;
  v.dist = e->fields + (size_t)k * (size_t)e->fnx * (size_t)e->fny;
  return v;
}

/* Field k without the crowd: the one the crowd-aware field k was computed
 * from (the same as field k where fields are static). */
THR_HD thr_navfield_view thr_evac_ref_field(const thr_evac_view *e, int k) {
  thr_navfield_view v = thr_evac_field(e, k);
  if (e->ref_fields) v.dist = e->ref_fields + (size_t)k * (size_t)e->fnx * (size_t)e->fny;
  return v;
}

/* Does the disk of radius r at x meet polygon v[0..n)? (centre inside, or
 * an edge closer than r) An agent leaves through an exit when its body
 * reaches the exit's area, so an exit works whatever the agents' radius:
 * the walls keep a centre r from the boundary, where a thin exit strip
 * may lie. */
THR_HD int thr_disk_meets_polygon(const thr_vec2 *v, int n, thr_vec2 x, float r) {
  if (thr_polygon_contains(v, n, x)) return 1;
  for (int k = 0; k < n; ++k) {
    thr_vec2 q = thr_closest_on_segment(x, v[k], v[k + 1 < n ? k + 1 : 0]);
    if (v2_len2(v2_sub(x, q)) < r * r) return 1;
  }
  return 0;
}

/* The exit that the disk (x, r) meets (lowest index), or -1. `cell` is x's
 * local grid cell, whose exit list covers every exit within the largest
 * radius of it. */
THR_HD int thr_evac_exit_at(const thr_evac_view *e, int cell, thr_vec2 x, float r) {
  if (!e->exit_cell_offset) return -1;
  for (int t = e->exit_cell_offset[cell]; t < e->exit_cell_offset[cell + 1]; ++t) {
    int k = e->exit_cell_items[t];
    if (thr_disk_meets_polygon(e->exit_verts + e->exit_vfirst[k], e->exit_vfirst[k + 1] - e->exit_vfirst[k], x, r))
      return k;
  }
  return -1;
}

/* Preferred velocity of an agent on a route (route >= 0): down its
 * distance field at its preferred speed; towards a slot of its stage
 * (slot >= 0) straight once it is within THR_SLOT_DIRECT of the slot or
 * inside the stage's area (the field of a queue or waiting stage leads to
 * its nearest slot, not to the one the agent was given), zero once there;
 * zero while holding position. */
THR_HD thr_vec2 thr_evac_preferred(const thr_evac_view *e, thr_vec2 x, float speed, int route, int stage, int slot,
                                   float dt) {
  if (slot == THR_SLOT_HOLD) return v2(0.0f, 0.0f);
  thr_navfield_view f = thr_evac_field(e, route);
  if (slot >= 0) {
    thr_vec2 s = e->slots[slot];
    float d = v2_len(v2_sub(s, x));
    if (d <= THR_SLOT_REACHED) return v2(0.0f, 0.0f);
    if (d <= THR_SLOT_DIRECT || (stage >= 0 && thr_navfield_value(&f, x) <= e->stages[stage].distance))
      return thr_preferred_velocity(x, s, speed, dt);
  }
  thr_vec2 dir;
  if (!thr_navfield_direction(&f, x, &dir)) return v2(0.0f, 0.0f);
  return v2_scale(dir, speed);
}

/* Stage events of an agent at its new position x: THR_FLAG_ARRIVED when it
 * has reached its stage (a waypoint within its distance; the area of a
 * queue or waiting stage, before it has a slot), THR_FLAG_SEATED when it
 * stands in its slot. 0 otherwise. */
THR_HD uint32_t thr_evac_stage_events(const thr_evac_view *e, thr_vec2 x, int stage, int slot) {
  if (stage < 0) return 0;
  const thr_stage_view *s = &e->stages[stage];
  if (s->kind == THR_STAGE_WAYPOINT)
    return v2_len2(v2_sub(x, s->point)) <= s->distance * s->distance ? (uint32_t)THR_FLAG_ARRIVED : 0u;
  if (s->kind != THR_STAGE_QUEUE && s->kind != THR_STAGE_WAITING) return 0;
  if (slot >= 0) return v2_len(v2_sub(e->slots[slot], x)) <= THR_SLOT_REACHED ? (uint32_t)THR_FLAG_SEATED : 0u;
  if (slot == THR_SLOT_HOLD) return 0;
  thr_navfield_view f = thr_evac_field(e, s->field);
  return thr_navfield_value(&f, x) <= s->distance ? (uint32_t)THR_FLAG_ARRIVED : 0u;
}

/* How much an agent congests the way along distance field k for the
 * fields that see congestion (core/congestion.c), in 1/THR_CROWD_QUANTA
 * of an agent: 1 for an agent standing, less for one walking along the
 * field's way (it makes room as fast as one follows it), more for one
 * walking against it (counterflow): 1 - u / THR_FREE_SPEED for u its
 * velocity along the field's direction at x, within [0, 2]. k < 0: every
 * agent counts 1 (plain counts). An integer, so that the sums over agents
 * are the same in any order. */
#define THR_CROWD_QUANTA 16
THR_HD int32_t thr_agent_crowd_weight(const thr_evac_view *e, int k, thr_vec2 x, thr_vec2 v) {
  if (k < 0) return THR_CROWD_QUANTA;
  thr_navfield_view f = thr_evac_field(e, k);
  thr_vec2 dir;
  float u = thr_navfield_direction(&f, x, &dir) ? v2_dot(v, dir) : 0.0f;
  float w = 1.0f - u / THR_FREE_SPEED;
  w = w < 0.0f ? 0.0f : (w > 2.0f ? 2.0f : w);
  return (int32_t)floorf(w * (float)THR_CROWD_QUANTA + 0.5f);
}

/* The cell of a map grid (origin, cell, nx x ny) holding x, or -1 (no
 * map, or outside it). */
THR_HD int thr_map_cell(float ox, float oy, float cell, int nx, int ny, thr_vec2 x) {
  if (nx <= 0) return -1;
  float fx = floorf((x.x - ox) / cell), fy = floorf((x.y - oy) / cell);
  if (!(fx >= 0.0f && fy >= 0.0f && fx < (float)nx && fy < (float)ny)) return -1;
  return (int)fy * nx + (int)fx;
}

/* How far beyond a seam an agent still passes through it [m]: further
 * than a step and the pushes of a solver can carry it (its floor's place
 * is empty there: the seam is an opening in its boundary). */
#define THR_SEAM_DEPTH 0.5f

/* Where an agent at x ends its step: at x, or, beyond a seam (it walked
 * off a stair's top, or down into one), at x moved into the other floor's
 * place. Where it is, not how it got there: the stability pass moves the
 * start of the step too. */
THR_HD thr_vec2 thr_evac_through_seams(const thr_evac_view *e, thr_vec2 x) {
  for (int k = 0; k < e->n_seams; ++k) {
    const thr_seam *s = &e->seams[k];
    thr_vec2 d = v2_sub(x, s->a), u = v2_sub(s->b, s->a);
    float across = v2_dot(d, s->n), along = v2_dot(d, u);
    if (across > 0.0f && across <= THR_SEAM_DEPTH && along >= 0.0f && along <= v2_dot(u, u))
      return v2(x.x + s->shift, x.y);
  }
  return x;
}

/* The walking speed at x over the agent's own, heading along dir: a
 * stair's up or down factor, a speed zone's, or 1 (the first zone that
 * holds x). */
THR_HD float thr_evac_zone_factor(const thr_evac_view *e, thr_vec2 x, thr_vec2 dir) {
  for (int k = 0; k < e->n_zones; ++k) {
    const thr_zone *z = &e->zones[k];
    if (x.x < z->lo.x || x.y < z->lo.y || x.x > z->hi.x || x.y > z->hi.y) continue;
    if (!thr_polygon_contains(e->zone_verts + z->v0, z->nv, x)) continue;
    return v2_dot(dir, z->up) > 0.0f ? z->f_up : z->f_down;
  }
  return 1.0f;
}

/* Does the step from a to b cross measurement line k? (proper crossing,
 * either direction; touching the line's ends counts once, on the far side) */
THR_HD int thr_evac_crosses(const thr_evac_view *e, int k, thr_vec2 a, thr_vec2 b) {
  return thr_path_crosses_wall(a, b, e->lines[2 * k], e->lines[2 * k + 1], 1);
}

#endif
