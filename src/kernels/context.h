/* Host-side builders of what kernels read: the views of the world (grid
 * geometry of the rank's window, obstacles, goals) and the kernel context of
 * a pass. Both backends use them, the CUDA one with device pointers. */
#ifndef THRONG_CONTEXT_H
#define THRONG_CONTEXT_H

#include <string.h>

#include "base/agents.h"
#include "base/world.h"
#include "passes.h"

static inline thr_obstacle_view thr_world_obstacle_view(const thr_world *w) {
  thr_obstacle_view v;
  v.n = w->n_obstacles;
  v.vfirst = w->obs_vfirst;
  v.closed = w->obs_closed;
  v.verts = w->verts;
  v.cell_offset = w->obs_cell_offset;
  v.cell_items = w->obs_cell_items;
  return v;
}

static inline thr_goal_view thr_world_goal_view(const thr_world *w) {
  thr_goal_view v;
  v.n_goals = w->n_goals;
  v.n_sets = w->n_sets;
  v.goals = w->goals;
  v.set_first = w->set_first;
  v.set_items = w->set_items;
  return v;
}

/* Grid view geometry of the world's window (arrays left NULL). */
static inline thr_grid_view thr_world_grid_geometry(const thr_world *w) {
  thr_grid_view g;
  memset(&g, 0, sizeof g);
  g.ox = w->min.x;
  g.oy = w->min.y;
  g.cell = w->cell;
  g.gnx = w->gnx;
  g.gny = w->gny;
  g.lx0 = w->window.x0;
  g.ly0 = w->window.y0;
  g.nx = w->window.nx;
  g.ny = w->window.ny;
  return g;
}

/* The static part of a kernel context: parameters, the grid geometry of the
 * rank's window, cell rings (obstacles and goals are set by the backend,
 * which holds them in its own memory). */
static inline thr_ctx thr_ctx_static(const thr_world *w, const thr_params *prm) {
  thr_ctx c;
  memset(&c, 0, sizeof c);
  c.prm = *prm;
  c.grid = thr_world_grid_geometry(w);
  c.k_contact = w->k_contact;
  c.k_longrange = w->k_longrange;
  c.k_xsph = w->k_xsph;
  c.k_headway = w->k_headway;
  c.k_formation = w->k_formation;
  c.k_plane = w->k_plane;
  c.k_model[0] = w->k_model[0];
  c.k_model[1] = w->k_model[1];
  c.bstates = w->bstates; /* host copies: a GPU backend replaces them with its own */
  c.btrans = w->btrans;
  return c;
}

/* The evacuation view of the world (host pointers; a GPU backend replaces
 * them with its copies). */
static inline thr_evac_view thr_world_evac_view(const thr_world *w) {
  thr_evac_view e;
  memset(&e, 0, sizeof e);
  e.n_exits = w->n_exits;
  e.exit_vfirst = w->exit_vfirst;
  e.exit_verts = w->exit_verts;
  e.exit_cell_offset = w->n_exits ? w->exit_cell_offset : NULL;
  e.exit_cell_items = w->exit_cell_items;
  e.n_fields = w->n_fields;
  e.fox = w->fox;
  e.foy = w->foy;
  e.fh = w->fh;
  e.fnx = w->fnx;
  e.fny = w->fny;
  e.fields = w->fields;
  e.ref_fields = w->ref_fields;
  e.stages = w->stages;
  e.slots = w->slots;
  e.n_lines = w->n_lines;
  e.lines = w->lines;
  e.n_seams = w->n_seams;
  e.seams = w->seams;
  e.n_zones = w->n_zones;
  e.zones = w->zones;
  e.zone_verts = w->zone_verts;
  return e;
}

/* Is the world's evacuation part used at all (exits, stages, lines)? */
static inline int thr_world_has_evacuation(const thr_world *w) {
  return w->n_exits > 0 || w->n_stages > 0 || w->n_lines > 0 || w->n_areas > 0 || w->map_nx > 0 || w->n_seams > 0 ||
         w->n_zones > 0;
}

/* Point a kernel context at a backend's current arrays (host or device
 * pointers): the agent fields and the neighbour index. */
static inline void thr_ctx_bind(thr_ctx *c, const thr_agents *a, const int *offset, const int *order,
                                const int *cell_of) {
  c->grid.offset = offset;
  c->grid.order = order;
  c->grid.cell_of = cell_of;
  c->id = a->id;
  c->radius = a->radius;
  c->inv_mass = a->inv_mass;
  c->x = a->x;
  c->p = a->p;
  c->v = a->v;
  c->z = a->z;
  c->pz = a->pz;
  c->vz = a->vz;
  c->plane = a->plane;
  c->formation = a->formation;
  c->fclear = a->fclear;
  c->srd = a->srd;
  c->agility = a->agility;
  c->frings = a->frings;
  c->fdelay = a->fdelay;
  c->pref_speed = a->pref_speed;
}

#endif
