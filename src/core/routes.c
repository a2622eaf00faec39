#include "routes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "behavior/navfield.h"
#include "populate.h"

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

int thr_routes_build(thr_world *w, const thr_scenario *sc, char *err, size_t errlen) {
  field_list f;
  f.n = f.overflow = 0;
  if (plan_fields(w, sc, &f)) {
    snprintf(err, errlen, "%s: the scenario needs more than %d distance fields (exits and stages)", sc->path,
             THR_MAX_FIELDS);
    return -1;
  }
  if (!f.n) return 0;
  float clearance = sc->route_clearance > 0.0f ? sc->route_clearance : thr_scenario_max_radius(sc);
  thr_navgrid_spec spec = {w->min, w->max, sc->route_cell, clearance, SLOW_BAND};
  thr_navgrid g;
  if (thr_navgrid_init(&g, &spec, w, &sc->walkable, err, errlen)) return -1;
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
  thr_navgrid_free(&g);
  return rc;
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
  return (size_t)w->n_fields * (size_t)w->fnx * (size_t)w->fny * sizeof(float);
}
