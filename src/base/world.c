#include "world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floors.h"
#include "geometry.h"
#include "model_needs.h"
#include "polygon.h"

#define THR_PI 3.14159265358979323846

/* Copy of an array that may be absent (src NULL): zero-filled then. */
static void *dup_array(const void *src, size_t bytes) {
  void *d = calloc(1, bytes ? bytes : 1);
  if (d && bytes && src) memcpy(d, src, bytes);
  return d;
}

/* The outer rings of a polygon set as vertex chains (vfirst[n + 1]). */
static int outer_rings(const thr_polyset *ps, int **vfirst, thr_vec2 **verts) {
  int n = ps->n_polys, total = 0;
  for (int p = 0; p < n; ++p) {
    int r = ps->poly_first[p];
    total += ps->ring_first[r + 1] - ps->ring_first[r];
  }
  *vfirst = malloc((size_t)(n + 1) * sizeof(int));
  *verts = malloc((size_t)(total ? total : 1) * sizeof(thr_vec2));
  if (!*vfirst || !*verts) return -1;
  int k = 0;
  for (int p = 0; p < n; ++p) {
    int r = ps->poly_first[p];
    (*vfirst)[p] = k;
    for (int v = ps->ring_first[r]; v < ps->ring_first[r + 1]; ++v) (*verts)[k++] = ps->verts[v];
  }
  (*vfirst)[n] = k;
  return 0;
}

/* Exits, stages, slots, measurement lines and areas, map grid. */
static int copy_evacuation(thr_world *w, const thr_scenario *sc) {
  w->n_exits = sc->n_exits;
  w->n_areas = sc->areas.n_polys;
  if (outer_rings(&sc->exit_shapes, &w->exit_vfirst, &w->exit_verts) ||
      outer_rings(&sc->areas, &w->area_vfirst, &w->area_verts))
    return -1;
  w->nearest_field = -1;
  w->exit_field = malloc((size_t)(sc->n_exits + 1) * sizeof(int));
  if (!w->exit_field) return -1;
  for (int k = 0; k < sc->n_exits; ++k) w->exit_field[k] = -1;
  w->n_stages = sc->n_stages;
  w->stages = calloc((size_t)(sc->n_stages ? sc->n_stages : 1), sizeof *w->stages);
  w->n_slots = sc->n_slots;
  w->slots = dup_array(sc->slots, sizeof(thr_vec2) * (size_t)sc->n_slots);
  w->n_lines = sc->n_lines;
  w->lines = malloc((size_t)(2 * sc->n_lines + 1) * sizeof(thr_vec2));
  if (!w->stages || !w->slots || !w->lines) return -1;
  for (int s = 0; s < sc->n_stages; ++s) {
    const thr_stage_def *d = &sc->stages[s];
    w->stages[s].kind = d->kind;
    w->stages[s].field = -1; /* set with the distance fields (core) */
    w->stages[s].point = d->point;
    w->stages[s].distance = d->kind == THR_STAGE_WAYPOINT ? d->distance : THR_STAGE_AREA;
  }
  for (int k = 0; k < sc->n_lines; ++k) {
    w->lines[2 * k] = sc->lines[k].a;
    w->lines[2 * k + 1] = sc->lines[k].b;
  }
  if (sc->map_every > 0 && sc->map_cell > 0.0f) {
    w->map_cell = sc->map_cell;
    w->map_threshold = sc->map_threshold;
    w->map_ox = w->min.x;
    w->map_oy = w->min.y;
    w->map_nx = (int)ceil((double)(w->max.x - w->min.x) / sc->map_cell);
    w->map_ny = (int)ceil((double)(w->max.y - w->min.y) / sc->map_cell);
  }
  return 0;
}

int thr_world_init(thr_world *w, const thr_scenario *sc, thr_params *prm, float max_radius, char *err,
                   size_t errlen) {
  memset(w, 0, sizeof *w);
  w->min = sc->world_min;
  w->max = sc->world_max;
  w->max_radius = max_radius;

  double h = prm->xsph_h;
  prm->xsph_poly6 = (float)(315.0 / (64.0 * THR_PI * pow(h, 9.0)));

  float contact = 2.0f * max_radius * prm->radius_scale;
  float longrange = 0.0f;
  if (prm->longrange_on) longrange = prm->lr_radius;
  if (prm->avoidance_on && prm->av_radius > longrange) longrange = prm->av_radius;
  float xsph = prm->xsph_on ? prm->xsph_h : 0.0f;
  float headway = prm->headway_on ? prm->hw_range : 0.0f;
  if (!(prm->cell_size > 0.0f)) prm->cell_size = contact + prm->skin;
  w->cell = prm->cell_size;
  w->reach = fmaxf(fmaxf(contact, headway), fmaxf(longrange, xsph));

  double gx = ceil((double)(w->max.x - w->min.x) / w->cell);
  double gy = ceil((double)(w->max.y - w->min.y) / w->cell);
  if (!(gx >= 1)) gx = 1; /* also NaN: an infinite cell */
  if (!(gy >= 1)) gy = 1;
  if (gx * gy > 1.0e9) {
    snprintf(err, errlen,
             "%s: world: the world (%g x %g m) holds %.3g neighbour-grid cells of %g m, more than 1e9; raise "
             "neighbors.cell_size or shrink the world",
             sc->path, (double)(w->max.x - w->min.x), (double)(w->max.y - w->min.y), gx * gy, (double)w->cell);
    return -1;
  }
  w->gnx = (int)gx;
  w->gny = (int)gy;
  int most = w->gnx > w->gny ? w->gnx : w->gny;
  w->k_contact = thr_rings(contact, prm->skin, w->cell, most);
  w->k_longrange = thr_rings(longrange, prm->skin, w->cell, most);
  w->k_xsph = thr_rings(xsph, prm->skin, w->cell, most);
  w->k_headway = thr_rings(headway, prm->skin, w->cell, most);
  /* 3D auto plane choice: a smaller reach than long range's (at most av_radius) */
  w->k_plane = prm->dim3 && prm->av_plane == THR_PLANE_AUTO
                   ? thr_rings(prm->av_auto_radius, prm->skin, w->cell, most)
                   : 0;
  w->k_max = w->k_contact;
  if (prm->longrange_on || prm->avoidance_on) w->k_max = w->k_max > w->k_longrange ? w->k_max : w->k_longrange;
  if (prm->xsph_on) w->k_max = w->k_max > w->k_xsph ? w->k_max : w->k_xsph;
  if (prm->headway_on) w->k_max = w->k_max > w->k_headway ? w->k_max : w->k_headway;
  /* the model's parameters that need the world (ORCA: its forces' reach) */
  thr_model_derive(prm, max_radius);
  /* the model's own queries (model_list.h: ORCA's neighbours and forces,
   * the power law's neighbours); agents are binned at x^n */
  thr_model_needs model = thr_model_needs_of(prm, max_radius);
  for (int q = 0; q < 2; ++q) {
    float reach = model.reach[q];
    w->k_model[q] = reach > 0.0f ? thr_rings(reach, prm->skin, w->cell, most) : 0;
    if (w->k_model[q] > w->k_max) w->k_max = w->k_model[q];
  }
  /* the congestion test of formations reads whole cells: its rings as given */
  w->k_formation = prm->formation_on ? (prm->fm_lookahead < most ? prm->fm_lookahead : most) : 0;
  if (w->k_formation > w->k_max) w->k_max = w->k_formation;
  /* ... and the agents' own look-ahead (agents[].lookahead_rings): the ghosts must hold those cells too */
  for (int b = 0; prm->formation_on && b < sc->n_blocks; ++b) {
    int rings = sc->blocks[b].fm_rings < most ? sc->blocks[b].fm_rings : most;
    if (rings > w->k_max) w->k_max = rings;
  }

  w->n_obstacles = sc->n_obstacles;
  w->n_verts = sc->n_verts;
  w->obs_vfirst = dup_array(sc->obs_vfirst, sizeof(int) * (size_t)(sc->n_obstacles + 1));
  w->obs_closed = dup_array(sc->obs_closed, sizeof(int) * (size_t)sc->n_obstacles);
  w->verts = dup_array(sc->verts, sizeof(thr_vec2) * (size_t)sc->n_verts);
  w->n_goals = sc->n_goals;
  w->n_sets = sc->n_sets;
  w->goals = dup_array(sc->goals, sizeof(thr_goal) * (size_t)sc->n_goals);
  w->set_first = dup_array(sc->set_first, sizeof(int) * (size_t)(sc->n_sets + 1));
  w->set_items = dup_array(sc->set_items, sizeof(int) * (size_t)(sc->n_sets ? sc->set_first[sc->n_sets] : 0));
  w->bstates = dup_array(sc->bstates, sizeof sc->bstates);
  w->btrans = dup_array(sc->btrans, sizeof sc->btrans);
  if (!w->obs_vfirst || !w->obs_closed || !w->verts || !w->goals || !w->set_first || !w->set_items || !w->bstates ||
      !w->btrans) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  if (sc->n_obstacles == 0) w->obs_vfirst[0] = 0;
  if (sc->n_sets == 0) w->set_first[0] = 0;
  if (copy_evacuation(w, sc) || thr_world_building(w, sc)) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  thr_window all = {0, 0, w->gnx, w->gny};
  if (thr_world_set_window(w, all, prm)) {
    snprintf(err, errlen, "out of memory building the obstacle cell lists");
    return -1;
  }
  return 0;
}

/* Does segment [a, b] meet the rectangle [lo, hi]? (Liang-Barsky clipping) */
static int segment_meets_rect(thr_vec2 a, thr_vec2 b, double lox, double loy, double hix, double hiy) {
  double t0 = 0.0, t1 = 1.0;
  double dx = (double)b.x - a.x, dy = (double)b.y - a.y;
  double p[4] = {-dx, dx, -dy, dy};
  double q[4] = {a.x - lox, hix - a.x, a.y - loy, hiy - a.y};
  for (int k = 0; k < 4; ++k) {
    if (p[k] == 0.0) {
      if (q[k] < 0.0) return 0;
    } else {
      double t = q[k] / p[k];
      if (p[k] < 0.0) {
        if (t > t1) return 0;
        if (t > t0) t0 = t;
      } else {
        if (t < t0) return 0;
        if (t < t1) t1 = t;
      }
    }
  }
  return 1;
}

static int clamp_cell(double c, int n) { return c < 0.0 ? 0 : (c > n - 1 ? n - 1 : (int)c); }

/* Shapes with per-cell lists: obstacles (polylines and polygons) and exits
 * (polygons). */
typedef struct shape_set {
  int n;
  const int *vfirst; /* [n + 1] */
  const int *closed; /* [n]; NULL: every shape is a closed polygon */
  const thr_vec2 *verts;
} shape_set;

/* The window cells a shape may reach: its bounding box widened by the
 * margin, in window coordinates (agents outside the world are binned into
 * edge cells: widened to the edge). */
typedef struct cell_box {
  int x0, y0, x1, y1;
} cell_box;

static cell_box box_cells(const thr_world *w, double bx0, double by0, double bx1, double by1, float margin) {
  const thr_window *win = &w->window;
  cell_box r = {clamp_cell(floor((bx0 - margin - w->min.x) / w->cell), w->gnx) - win->x0,
                clamp_cell(floor((by0 - margin - w->min.y) / w->cell), w->gny) - win->y0,
                clamp_cell(floor((bx1 + margin - w->min.x) / w->cell), w->gnx) - win->x0,
                clamp_cell(floor((by1 + margin - w->min.y) / w->cell), w->gny) - win->y0};
  if (r.x0 < 0) r.x0 = 0;
  if (r.y0 < 0) r.y0 = 0;
  if (r.x1 >= win->nx) r.x1 = win->nx - 1;
  if (r.y1 >= win->ny) r.y1 = win->ny - 1;
  return r;
}

/* One cell's visit: mark it for shape o and count it, or append o to its list. */
static void take_cell(int c, int o, int *mark, int *count, int *fill, int *items) {
  mark[c] = o;
  if (items)
    items[fill[c]++] = o;
  else
    count[c]++;
}

/* Does segment [a, b] reach window cell (cx, cy) within margin? */
static int segment_reaches_cell(const thr_world *w, int cx, int cy, thr_vec2 a, thr_vec2 b, float margin) {
  int gx = cx + w->window.x0, gy = cy + w->window.y0;
  double lox = w->min.x + (double)gx * w->cell, loy = w->min.y + (double)gy * w->cell;
  double hix = lox + w->cell, hiy = loy + w->cell;
  /* edge cells also hold agents outside the world */
  if (gx == 0) lox = -INFINITY;
  if (gy == 0) loy = -INFINITY;
  if (gx == w->gnx - 1) hix = INFINITY;
  if (gy == w->gny - 1) hiy = INFINITY;
  return segment_meets_rect(a, b, lox - margin, loy - margin, hix + margin, hiy + margin);
}

/* The cells of `box` whose centre a closed shape holds (thr_polygon_contains,
 * row by row over each row's sorted crossings: thr_row_crossings), not yet
 * marked for o. -1 when out of memory. */
static int shape_inside_cells(const thr_world *w, const thr_vec2 *verts, int nv, cell_box box, int o, int *mark,
                              int *count, int *fill, int *items) {
  int ring[2] = {0, nv}, *first;
  float *xs = thr_row_crossings(verts, ring, 0, 1, w->min.y, w->cell, box.y0 + w->window.y0, box.y1 + w->window.y0,
                                &first);
  if (!xs) return -1;
  for (int cy = box.y0; cy <= box.y1; ++cy) {
    const float *row = xs + first[cy - box.y0];
    int n = first[cy - box.y0 + 1] - first[cy - box.y0], beyond = 0; /* crossings at or left of the centre */
    for (int cx = box.x0; cx <= box.x1; ++cx) {
      float xm = (float)(w->min.x + (cx + w->window.x0 + 0.5) * w->cell);
      while (beyond < n && !(xm < row[beyond])) ++beyond;
      int c = cy * w->window.nx + cx;
      /* inside: an odd number of crossings right of the centre */
      if (((n - beyond) & 1) && mark[c] != o) take_cell(c, o, mark, count, fill, items);
    }
  }
  free(xs);
  free(first);
  return 0;
}

/* Visit the window cells that shape o can reach within `margin` (a cell
 * that one of its segments reaches, or, for a closed shape, whose centre it
 * holds); each cell once per shape (mark[] remembers the last shape seen).
 * Each segment tests only the cells around itself. With items == NULL only
 * counts into count[cell]; otherwise appends o to the cell's list at
 * fill[cell]++. -1 when out of memory. */
static int shape_cells(const thr_world *w, const shape_set *set, int o, float margin, int *mark, int *count,
                       int *fill, int *items) {
  int v0 = set->vfirst[o], v1 = set->vfirst[o + 1];
  int closed = set->closed ? set->closed[o] : 1;
  int nseg = closed ? v1 - v0 : v1 - v0 - 1;
  const thr_vec2 *verts = set->verts;
  double bx0 = INFINITY, by0 = INFINITY, bx1 = -INFINITY, by1 = -INFINITY;
  for (int v = v0; v < v1; ++v) {
    bx0 = fmin(bx0, verts[v].x);
    by0 = fmin(by0, verts[v].y);
    bx1 = fmax(bx1, verts[v].x);
    by1 = fmax(by1, verts[v].y);
  }
  cell_box box = box_cells(w, bx0, by0, bx1, by1, margin);
  for (int sg = 0; sg < nseg; ++sg) {
    thr_vec2 a = verts[v0 + sg], b = verts[sg + 1 < v1 - v0 ? v0 + sg + 1 : v0];
    /* the segment's own cells, one more each side (the rectangle test
     * decides), within the shape's */
    cell_box sb = box_cells(w, fmin(a.x, b.x), fmin(a.y, b.y), fmax(a.x, b.x), fmax(a.y, b.y), margin);
    sb.x0 = sb.x0 - 1 > box.x0 ? sb.x0 - 1 : box.x0;
    sb.y0 = sb.y0 - 1 > box.y0 ? sb.y0 - 1 : box.y0;
    sb.x1 = sb.x1 + 1 < box.x1 ? sb.x1 + 1 : box.x1;
    sb.y1 = sb.y1 + 1 < box.y1 ? sb.y1 + 1 : box.y1;
    for (int cy = sb.y0; cy <= sb.y1; ++cy)
      for (int cx = sb.x0; cx <= sb.x1; ++cx) {
        int c = cy * w->window.nx + cx;
        if (mark[c] != o && segment_reaches_cell(w, cx, cy, a, b, margin)) take_cell(c, o, mark, count, fill, items);
      }
  }
  if (!closed || box.x0 > box.x1 || box.y0 > box.y1) return 0;
  return shape_inside_cells(w, verts + v0, v1 - v0, box, o, mark, count, fill, items);
}

/* The shapes that can touch each cell of the window (within `margin`), as
 * CSR lists with ascending shape ids. Returns -1 when out of memory. */
static int cell_lists(const thr_world *w, const shape_set *set, float margin, int **offset_out, int **items_out) {
  size_t ncell = (size_t)w->window.nx * (size_t)w->window.ny;
  int *count = calloc(ncell + 1, sizeof(int));
  int *mark = malloc((ncell ? ncell : 1) * sizeof(int));
  int *offset = malloc((ncell + 1) * sizeof(int));
  int *items = NULL;
  int rc = -1;
  if (!count || !mark || !offset) goto done;
  for (size_t c = 0; c < ncell; ++c) mark[c] = -1;
  for (int o = 0; o < set->n; ++o)
    if (shape_cells(w, set, o, margin, mark, count, NULL, NULL)) goto done;
  int total = 0; /* exclusive scan into offsets */
  for (size_t c = 0; c < ncell; ++c) {
    offset[c] = total;
    total += count[c];
  }
  offset[ncell] = total;
  items = malloc((size_t)(total ? total : 1) * sizeof(int));
  if (!items) goto done;
  memcpy(count, offset, ncell * sizeof(int)); /* reuse as fill cursors */
  for (size_t c = 0; c < ncell; ++c) mark[c] = -1;
  for (int o = 0; o < set->n; ++o)
    if (shape_cells(w, set, o, margin, mark, NULL, count, items)) goto done;
  *offset_out = offset;
  *items_out = items;
  offset = NULL;
  items = NULL;
  rc = 0;
done:
  free(count);
  free(mark);
  free(offset);
  free(items);
  return rc;
}

int thr_world_set_window(thr_world *w, thr_window win, const thr_params *prm) {
  free(w->obs_cell_offset);
  free(w->obs_cell_items);
  free(w->exit_cell_offset);
  free(w->exit_cell_items);
  w->obs_cell_offset = w->obs_cell_items = w->exit_cell_offset = w->exit_cell_items = NULL;
  w->window = win;
  shape_set obstacles = {w->n_obstacles, w->obs_vfirst, w->obs_closed, w->verts};
  float margin = w->max_radius * prm->radius_scale + (prm->dim3 ? 0.0f : prm->wall_clearance);
  /* the model's own reach (ORCA: the edges its obstacle half-planes
   * consider; the power law: walls within its range) */
  float model_walls = thr_model_needs_of(prm, w->max_radius).walls;
  if (model_walls > margin) margin = model_walls;
  if (cell_lists(w, &obstacles, margin + prm->skin, &w->obs_cell_offset, &w->obs_cell_items))
    return -1;
  if (!w->n_exits) return 0;
  /* an agent is in an exit when its centre is: no margin */
  shape_set exits = {w->n_exits, w->exit_vfirst, NULL, w->exit_verts};
  return cell_lists(w, &exits, w->max_radius, &w->exit_cell_offset, &w->exit_cell_items);
}

void thr_world_free(thr_world *w) {
  free(w->exit_vfirst);
  free(w->exit_verts);
  free(w->exit_cell_offset);
  free(w->exit_cell_items);
  free(w->stages);
  free(w->slots);
  free(w->lines);
  free(w->area_vfirst);
  free(w->area_verts);
  free(w->fields);
  free(w->ref_fields);
  free(w->field_kind);
  free(w->field_ref);
  free(w->exit_field);
  free(w->obs_vfirst);
  free(w->obs_closed);
  free(w->verts);
  free(w->obs_cell_offset);
  free(w->obs_cell_items);
  free(w->goals);
  free(w->set_first);
  free(w->set_items);
  free(w->bstates);
  free(w->btrans);
  free(w->seams);
  free(w->zones);
  free(w->zone_verts);
  memset(w, 0, sizeof *w);
}
