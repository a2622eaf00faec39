/* A few hand-placed agents in a 6 x 6 grid of 1 m cells with everything a
 * pass reads (tests of the per-agent functions of kernels/passes.h):
 * scene_init, add, then bind before calling a pass function. Optional
 * obstacles: scene_walls lists them for every cell. */
#ifndef THRONG_TEST_SCENE_H
#define THRONG_TEST_SCENE_H

#include <stdint.h>

#include "io/config.h"
#include "kernels/cpu/cell_sort.h"
#include "kernels/passes.h"

enum { MAXN = 8 };

/* Up to MAXN agents in a 6 x 6 grid of 1 m cells; formations on. */
typedef struct scene {
  int n;
  thr_vec2 x[MAXN], p[MAXN], v[MAXN], srd[MAXN];
  uint32_t id[MAXN];
  float radius[MAXN], inv_mass[MAXN], speed[MAXN];
  int32_t formation[MAXN], fclear[MAXN], frings[MAXN], fdelay[MAXN];
  int cell[MAXN], order[MAXN], offset[37], cursor[36];
  thr_formation_state forms[2];
  int wall_offset[37], wall_items[36 * 4];
  thr_ctx c;
} scene;

static inline void scene_init(scene *s) {
  memset(s, 0, sizeof *s);
  thr_ctx *c = &s->c;
  thr_params_defaults(&c->prm);
  c->prm.formation_on = 1;
  c->prm.walls_on = 0;
  c->prm.fm_k_it = thr_formation_iteration_stiffness(c->prm.fm_stiffness, c->prm.solver_iterations);
  c->grid.cell = 1.0f;
  c->grid.gnx = c->grid.gny = c->grid.nx = c->grid.ny = 6;
  c->k_contact = c->k_xsph = 1;
  c->k_longrange = 3;
  c->k_formation = 1;
  double h = c->prm.xsph_h; /* as thr_world_init derives it */
  c->prm.xsph_poly6 = (float)(315.0 / (64.0 * 3.14159265358979 * pow(h, 9.0)));
}

static inline int add(scene *s, float x, float y, int formation) {
  int i = s->n++;
  s->x[i] = s->p[i] = v2(x, y);
  s->id[i] = (uint32_t)i;
  s->radius[i] = 0.25f;
  s->inv_mass[i] = 1.0f;
  s->speed[i] = 1.4f;
  s->formation[i] = formation;
  s->fclear[i] = THR_FCLEAR_MAX;
  s->frings[i] = s->fdelay[i] = -1; /* the formations' look-ahead and delay */
  return i;
}

/* The neighbour index over x* and the context's pointers. */
static inline const thr_ctx *bind(scene *s) {
  thr_ctx *c = &s->c;
  for (int i = 0; i < s->n; ++i) s->cell[i] = thr_local_cell(&c->grid, s->p[i]);
  thr_cell_sort(s->cell, s->id, (size_t)s->n, 36, s->offset, s->order, s->cursor);
  c->grid.offset = s->offset;
  c->grid.order = s->order;
  c->grid.cell_of = s->cell;
  c->id = s->id;
  c->radius = s->radius;
  c->inv_mass = s->inv_mass;
  c->x = s->x;
  c->p = s->p;
  c->v = s->v;
  c->formation = s->formation;
  c->fclear = s->fclear;
  c->frings = s->frings;
  c->fdelay = s->fdelay;
  c->srd = s->srd;
  c->pref_speed = s->speed;
  c->forms = s->forms;
  return c;
}

/* Obstacles o of (vfirst, closed, verts), n of them (at most 4), listed
 * for every cell. */
static inline void scene_walls(scene *s, int n, const int *vfirst, const int *closed, const thr_vec2 *verts) {
  for (int cell = 0; cell <= 36; ++cell) s->wall_offset[cell] = cell * n;
  for (int cell = 0; cell < 36; ++cell)
    for (int o = 0; o < n; ++o) s->wall_items[cell * n + o] = o;
  thr_obstacle_view ov = {n, vfirst, closed, verts, s->wall_offset, s->wall_items};
  s->c.obs = ov;
  s->c.prm.walls_on = 1;
}

#endif
