#include "routes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "behavior/navfield.h"

/* Speed of the band within the clearance of a wall (docs/routing.md). */
#define SLOW_BAND 0.1f
/* Slots are targets within this radius [m]. */
#define SLOT_TARGET 0.3f

typedef struct field_list {
  int n, overflow;
  int kind[THR_MAX_FIELDS], ref[THR_MAX_FIELDS];
} field_list;

static int add_field(field_list *f, int kind, int ref) {
  if (f->n == THR_MAX_FIELDS) {
    f->overflow = 1;
    return -1;
  }
  f->kind[f->n] = kind;
  f->ref[f->n] = ref;
  return f->n++;
}

/* Which fields are used: exits named by a block or an exit stage, the
 * nearest exit when a block asks for it, every stage that is not an exit.
 * Sets the world's exit_field, nearest_field and stage fields. */
static int plan_fields(thr_world *w, const thr_scenario *sc, field_list *f) {
  int nearest = 0;
  for (int b = 0; b < sc->n_blocks; ++b) {
    const thr_block *bk = &sc->blocks[b];
    if (bk->route_kind == THR_ROUTE_NEAREST_EXIT) nearest = 1;
    if (bk->route_kind == THR_ROUTE_EXIT && w->exit_field[bk->route] < 0)
      w->exit_field[bk->route] = add_field(f, THR_FIELD_EXIT, bk->route);
  }
  for (int s = 0; s < sc->n_stages; ++s) {
    const thr_stage_def *d = &sc->stages[s];
    if (d->kind == THR_STAGE_EXIT) {
      if (w->exit_field[d->exit] < 0) w->exit_field[d->exit] = add_field(f, THR_FIELD_EXIT, d->exit);
      w->stages[s].field = w->exit_field[d->exit];
    } else {
      w->stages[s].field = add_field(f, THR_FIELD_STAGE, s);
    }
  }
  if (nearest) w->nearest_field = add_field(f, THR_FIELD_NEAREST_EXIT, -1);
  return f->overflow ? -1 : 0;
}

/* The target mask of field k. Returns the cells set, -1 out of memory. */
static long targets(const thr_navgrid *g, const thr_scenario *sc, const field_list *f, int k, unsigned char *t) {
  memset(t, 0, thr_navgrid_cells(g));
  if (f->kind[k] == THR_FIELD_EXIT) return thr_navtarget_polygon(g, &sc->exit_shapes, f->ref[k], t);
  if (f->kind[k] == THR_FIELD_NEAREST_EXIT) {
    long n = 0;
    for (int e = 0; e < sc->n_exits; ++e) {
      long m = thr_navtarget_polygon(g, &sc->exit_shapes, e, t);
      if (m < 0) return -1;
      n += m;
    }
    return n;
  }
  const thr_stage_def *d = &sc->stages[f->ref[k]];
  if (d->kind == THR_STAGE_WAYPOINT) return thr_navtarget_disk(g, d->point, d->distance, t);
  return thr_navtarget_points(g, sc->slots + d->slot_first, d->n_slots, SLOT_TARGET, t);
}

/* Which fields are recomputed as the crowd moves: with congestion, every
 * exit field; with exit choice by time, the nearest-exit field. Stage
 * fields stay distances (their stages compare distances). */
static int field_is_dynamic(const thr_scenario *sc, int kind) {
  if (kind == THR_FIELD_STAGE) return 0;
  return sc->congestion_on || (kind == THR_FIELD_NEAREST_EXIT && sc->exit_choice == THR_EXIT_CHOICE_TIME);
}

/* The sources of field k: its target cells at 0; for the nearest-exit
 * field, each exit's cells labelled with the exit's index (its queue time
 * is added at each solve). Returns the count, -1 out of memory. */
static long field_sources(const thr_navgrid *g, const thr_scenario *sc, const field_list *f, int k, unsigned char *t,
                          thr_navsource **src, long *cap) {
  long n = 0;
  if (f->kind[k] != THR_FIELD_NEAREST_EXIT) {
    if (targets(g, sc, f, k, t) < 0) return -1;
    return thr_navtarget_sources(g, t, 0.0f, -1, src, &n, cap) < 0 ? -1 : n;
  }
  for (int e = 0; e < sc->n_exits; ++e) {
    memset(t, 0, thr_navgrid_cells(g));
    if (thr_navtarget_polygon(g, &sc->exit_shapes, e, t) < 0 || thr_navtarget_sources(g, t, 0.0f, e, src, &n, cap) < 0)
      return -1;
  }
  return n;
}

/* Keep what recomputing the dynamic fields needs: the backend's setup
 * (each cell's cost without the crowd, the walkable cells of each density
 * box, the sources of each dynamic field, the count arrays) and the
 * exit-choice state. */
static int routing_keep(thr_routing *r, const thr_navgrid *g, const thr_scenario *sc, const thr_params *prm,
                        const field_list *f, int w_nearest) {
  memset(r, 0, sizeof *r);
  size_t cells = thr_navgrid_cells(g);
  unsigned char *t = malloc(cells ? cells : 1);
  int rc = t ? 0 : -1;
  for (int k = 0; k < f->n && !rc; ++k) {
    if (!field_is_dynamic(sc, f->kind[k])) continue;
    int d = r->n_dynamic++;
    long cap = 0;
    r->field[d] = k;
    r->labelled[d] = f->kind[k] == THR_FIELD_NEAREST_EXIT && sc->exit_choice == THR_EXIT_CHOICE_TIME;
    r->n_src[d] = field_sources(g, sc, f, k, t, &r->src[d], &cap);
    r->src_c[d] = r->src[d];
    if (r->n_src[d] < 0) rc = -1;
  }
  free(t);
  if (rc || !r->n_dynamic) return rc;
  long steps = lroundf(sc->congestion_every / prm->dt);
  r->every = steps > 0 ? steps : 1;
  r->choice = sc->exit_choice == THR_EXIT_CHOICE_TIME && w_nearest >= 0;
  r->hysteresis = sc->choice_hysteresis;
  r->relax = sc->queue_relaxation > 0.0f ? (float)r->every * prm->dt / sc->queue_relaxation : 1.0f;
  if (r->relax > 1.0f) r->relax = 1.0f;
  r->n_exits = sc->n_exits;
  thr_route_setup *rs = &r->setup;
  rs->nx = g->nx;
  rs->ny = g->ny;
  rs->h = g->h;
  int k = (int)floorf(sc->congestion_radius / g->h + 0.5f);
  rs->box = k < 1 ? 1 : k;
  rs->law.free_density = sc->congestion_free_density;
  rs->law.free_speed = thr_weidmann_relative(sc->congestion_free_density);
  rs->law.min_speed = sc->congestion_min_speed;
  /* an exit's queue: every agent of its basin near it (plain counts) */
  rs->queue_counts = -1;
  if (r->choice) r->count_field[rs->queue_counts = rs->n_counts++] = -1;
  for (int d = 0; d < r->n_dynamic; ++d) {
    r->weights_of[d] = -1;
    if (sc->congestion_on) r->count_field[r->weights_of[d] = rs->n_counts++] = r->field[d];
  }
  rs->count_field = r->count_field;
  rs->n_dynamic = r->n_dynamic;
  rs->field = r->field;
  rs->weights_of = r->weights_of;
  rs->labelled = r->labelled;
  rs->src = r->src_c;
  rs->n_src = r->n_src;
  rs->n_exits = sc->n_exits;
  rs->queue_radius = sc->queue_radius;
  r->base_cost = malloc((cells ? cells : 1) * sizeof *r->base_cost);
  r->walk_box = malloc((cells ? cells : 1) * sizeof *r->walk_box);
  int32_t *walk = malloc((cells ? cells : 1) * sizeof *walk), *rows = malloc((cells ? cells : 1) * sizeof *rows);
  r->queue = calloc((size_t)sc->n_exits + 1, sizeof *r->queue);
  r->offset = calloc((size_t)sc->n_exits + 1, sizeof *r->offset);
  r->capacity = calloc((size_t)sc->n_exits + 1, sizeof *r->capacity);
  r->basin = calloc((size_t)sc->n_exits + 1, sizeof *r->basin);
  rc = !r->base_cost || !r->walk_box || !walk || !rows || !r->queue || !r->offset || !r->capacity || !r->basin;
  if (!rc) {
    for (size_t c = 0; c < cells; ++c) {
      float speed = thr_navgrid_speed(g, c);
      r->base_cost[c] = speed > 0.0f ? g->h / speed : HUGE_VALF;
      walk[c] = g->kind[c] != THR_NAV_BLOCKED;
    }
    thr_route_box_sums(g->nx, g->ny, rs->box, walk, rows, r->walk_box);
    for (int e = 0; e < sc->n_exits; ++e) r->capacity[e] = sc->queue_flow * sc->exit_width[e];
  }
  free(walk);
  free(rows);
  rs->base_cost = r->base_cost;
  rs->walk_box = r->walk_box;
  if (!rc && g->n_phantom) {
    size_t bytes = (size_t)g->n_phantom * sizeof(int32_t);
    r->ph_cell = malloc(bytes);
    r->ph_partner = malloc(bytes);
    rc = !r->ph_cell || !r->ph_partner;
    if (!rc) {
      memcpy(r->ph_cell, g->ph_cell, bytes);
      memcpy(r->ph_partner, g->ph_partner, bytes);
      rs->n_phantom = g->n_phantom;
      rs->ph_cell = r->ph_cell;
      rs->ph_partner = r->ph_partner;
    }
  }
  return rc ? -1 : 0;
}

int thr_routes_build(thr_world *w, const thr_scenario *sc, const thr_params *prm, thr_routing *r, char *err,
                     size_t errlen) {
  field_list f;
  f.n = f.overflow = 0;
  if (r) memset(r, 0, sizeof *r);
  if (plan_fields(w, sc, &f)) {
    snprintf(err, errlen, "%s: the scenario needs more than %d distance fields (exits and stages)", sc->path,
             THR_MAX_FIELDS);
    return -1;
  }
  if (!f.n) return 0;
  float clearance = sc->route_clearance > 0.0f ? sc->route_clearance : thr_scenario_max_radius(sc);
  thr_navgrid_spec spec = {w->min, w->max, sc->route_cell, clearance, SLOW_BAND, sc->n_floors == 0};
  thr_navgrid g;
  if (thr_navgrid_init(&g, &spec, w, &sc->walkable, err, errlen)) return -1;
  if (thr_navgrid_seams(&g, w->seams, w->n_seams) < 0 || thr_navgrid_zones(&g, w->zones, w->zone_verts, w->n_zones)) {
    thr_navgrid_free(&g);
    snprintf(err, errlen, "out of memory for the seams of the distance-field grid");
    return -2;
  }
  size_t cells = thr_navgrid_cells(&g);
  w->fields = malloc((size_t)f.n * cells * sizeof(float));
  w->field_kind = malloc((size_t)f.n * sizeof(int));
  w->field_ref = malloc((size_t)f.n * sizeof(int));
  unsigned char *t = malloc(cells ? cells : 1);
  int rc = (!w->fields || !w->field_kind || !w->field_ref || !t) ? -2 : 0;
  for (int k = 0; k < f.n && !rc; ++k) {
    w->field_kind[k] = f.kind[k];
    w->field_ref[k] = f.ref[k];
    long n = targets(&g, sc, &f, k, t);
    long sources = n < 0 ? -1 : thr_navfield_solve(&g, t, w->fields + (size_t)k * cells);
    if (n < 0 || sources < 0) {
      rc = -2;
    } else if (sources == 0) {
      char name[160];
      w->n_fields = k + 1; /* for the name */
      snprintf(err, errlen, "%s: %s has no walkable cell of the routing grid (cells of %g m; walls widened by "
               "%g m): enlarge it or lower routing.cell",
               sc->path, thr_route_name(sc, w, k, name, sizeof name), (double)spec.cell, (double)clearance);
      rc = -1;
    }
  }
  free(t);
  if (rc == -2) snprintf(err, errlen, "out of memory for %d distance fields of %zu cells", f.n, cells);
  w->n_fields = rc ? 0 : f.n;
  w->fox = g.lo.x;
  w->foy = g.lo.y;
  w->fh = g.h;
  w->fnx = g.nx;
  w->fny = g.ny;
  if (!rc && r && routing_keep(r, &g, sc, prm, &f, w->nearest_field)) {
    snprintf(err, errlen, "out of memory for recomputing %d distance fields of %zu cells", f.n, cells);
    rc = -2;
  }
  if (!rc && r && r->n_dynamic && sc->congestion_on) {
    /* the fields without the crowd: agents rank each other on them (kernels/passes.h) */
    w->ref_fields = malloc((size_t)f.n * cells * sizeof(float));
    if (!w->ref_fields) {
      snprintf(err, errlen, "out of memory for %d distance fields of %zu cells", f.n, cells);
      rc = -2;
    } else {
      memcpy(w->ref_fields, w->fields, (size_t)f.n * cells * sizeof(float));
    }
  }
  thr_navgrid_free(&g);
  return rc;
}

void thr_routing_free(thr_routing *r) {
  if (!r) return;
  for (int d = 0; d < r->n_dynamic; ++d) free(r->src[d]);
  free(r->base_cost);
  free(r->walk_box);
  free(r->ph_cell);
  free(r->ph_partner);
  free(r->queue);
  free(r->offset);
  free(r->capacity);
  free(r->basin);
  memset(r, 0, sizeof *r);
}

int thr_route_reachable(const thr_world *w, int k, thr_vec2 x) {
  if (k < 0 || k >= w->n_fields) return 0;
  thr_navfield_view v = {w->fox, w->foy, w->fh, w->fnx, w->fny, w->fields + (size_t)k * w->fnx * w->fny};
  if (isfinite(thr_navfield_value(&v, x))) return 1;
  /* beside a wall some of the four nodes around x are blocked: the agent
   * then steps towards the best finite cell around it (thr_navfield_direction) */
  thr_vec2 dir;
  return thr_navfield_direction(&v, x, &dir);
}

int thr_route_nearest_reached(const thr_world *w, int k, thr_vec2 x, thr_vec2 *at) {
  if (k < 0 || k >= w->n_fields) return 0;
  const float *f = w->fields + (size_t)k * w->fnx * w->fny;
  double best = INFINITY;
  for (int j = 0; j < w->fny; ++j)
    for (int i = 0; i < w->fnx; ++i) {
      if (!isfinite(f[(size_t)j * w->fnx + i])) continue;
      double cx = w->fox + (i + 0.5) * (double)w->fh, cy = w->foy + (j + 0.5) * (double)w->fh;
      double d = (cx - x.x) * (cx - x.x) + (cy - x.y) * (cy - x.y);
      if (d < best) best = d, *at = v2((float)cx, (float)cy);
    }
  return isfinite(best);
}

const char *thr_route_name(const thr_scenario *sc, const thr_world *w, int k, char *buf, size_t len) {
  if (k < 0 || k >= w->n_fields)
    snprintf(buf, len, "route %d", k);
  else if (w->field_kind[k] == THR_FIELD_EXIT)
    snprintf(buf, len, "exit '%s'", sc->exit_names[w->field_ref[k]]);
  else if (w->field_kind[k] == THR_FIELD_NEAREST_EXIT)
    snprintf(buf, len, "any exit");
  else
    snprintf(buf, len, "stage '%s'", sc->stages[w->field_ref[k]].name);
  return buf;
}

size_t thr_routes_bytes(const thr_world *w) {
  /* the fields, and their copies without the crowd when the fields see it */
  return (w->ref_fields ? 2u : 1u) * (size_t)w->n_fields * (size_t)w->fnx * (size_t)w->fny * sizeof(float);
}
