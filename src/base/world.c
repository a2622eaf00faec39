#include "world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polygon.h"

#define THR_PI 3.14159265358979323846

/* Copy of an array that may be absent (src NULL): zero-filled then. */
static void *dup_array(const void *src, size_t bytes) {
  void *d = calloc(1, bytes ? bytes : 1);
  if (d && bytes && src) memcpy(d, src, bytes);
  return d;
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
  if (!(prm->cell_size > 0.0f)) prm->cell_size = contact + prm->skin;
  w->cell = prm->cell_size;
  w->reach = fmaxf(contact, fmaxf(longrange, xsph));

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
  w->k_max = w->k_contact;
  if (prm->longrange_on || prm->avoidance_on) w->k_max = w->k_max > w->k_longrange ? w->k_max : w->k_longrange;
  if (prm->xsph_on) w->k_max = w->k_max > w->k_xsph ? w->k_max : w->k_xsph;

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
  if (!w->obs_vfirst || !w->obs_closed || !w->verts || !w->goals || !w->set_first || !w->set_items) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  if (sc->n_obstacles == 0) w->obs_vfirst[0] = 0;
  if (sc->n_sets == 0) w->set_first[0] = 0;
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

/* Visit the window cells that obstacle o can reach within `margin`; each
 * cell once per obstacle (mark[] remembers the last obstacle seen). With
 * items == NULL only counts into count[cell]; otherwise appends o to the
 * cell's list at fill[cell]++. */
static void obstacle_cells(const thr_world *w, int o, float margin, int *mark, int *count, int *fill,
                           int *items) {
  const thr_window *win = &w->window;
  int v0 = w->obs_vfirst[o], v1 = w->obs_vfirst[o + 1];
  int closed = w->obs_closed[o];
  int nseg = closed ? v1 - v0 : v1 - v0 - 1;
  double bx0 = INFINITY, by0 = INFINITY, bx1 = -INFINITY, by1 = -INFINITY;
  for (int v = v0; v < v1; ++v) {
    bx0 = fmin(bx0, w->verts[v].x);
    by0 = fmin(by0, w->verts[v].y);
    bx1 = fmax(bx1, w->verts[v].x);
    by1 = fmax(by1, w->verts[v].y);
  }
  int cx0 = clamp_cell(floor((bx0 - margin - w->min.x) / w->cell), w->gnx) - win->x0;
  int cx1 = clamp_cell(floor((bx1 + margin - w->min.x) / w->cell), w->gnx) - win->x0;
  int cy0 = clamp_cell(floor((by0 - margin - w->min.y) / w->cell), w->gny) - win->y0;
  int cy1 = clamp_cell(floor((by1 + margin - w->min.y) / w->cell), w->gny) - win->y0;
  /* agents outside the world are binned into edge cells: widen to the edge */
  if (cx0 < 0) cx0 = 0;
  if (cy0 < 0) cy0 = 0;
  if (cx1 >= win->nx) cx1 = win->nx - 1;
  if (cy1 >= win->ny) cy1 = win->ny - 1;
  for (int cy = cy0; cy <= cy1; ++cy) {
    for (int cx = cx0; cx <= cx1; ++cx) {
      int c = cy * win->nx + cx;
      if (mark[c] == o) continue;
      int gx = cx + win->x0, gy = cy + win->y0;
      double lox = w->min.x + (double)gx * w->cell, loy = w->min.y + (double)gy * w->cell;
      double hix = lox + w->cell, hiy = loy + w->cell;
      /* edge cells also hold agents outside the world */
      if (gx == 0) lox = -INFINITY;
      if (gy == 0) loy = -INFINITY;
      if (gx == w->gnx - 1) hix = INFINITY;
      if (gy == w->gny - 1) hiy = INFINITY;
      int hit = 0;
      for (int s = 0; s < nseg && !hit; ++s) {
        thr_vec2 a = w->verts[v0 + s];
        thr_vec2 b = w->verts[s + 1 < v1 - v0 ? v0 + s + 1 : v0];
        hit = segment_meets_rect(a, b, lox - margin, loy - margin, hix + margin, hiy + margin);
      }
      if (!hit && closed) {
        thr_vec2 mid = {(float)(w->min.x + (gx + 0.5) * w->cell), (float)(w->min.y + (gy + 0.5) * w->cell)};
        hit = thr_polygon_contains(w->verts + v0, v1 - v0, mid);
      }
      if (!hit) continue;
      mark[c] = o;
      if (items)
        items[fill[c]++] = o;
      else
        count[c]++;
    }
  }
}

int thr_world_set_window(thr_world *w, thr_window win, const thr_params *prm) {
  free(w->obs_cell_offset);
  free(w->obs_cell_items);
  w->obs_cell_offset = NULL;
  w->obs_cell_items = NULL;
  w->window = win;
  size_t ncell = (size_t)win.nx * (size_t)win.ny;
  float margin = w->max_radius * prm->radius_scale + prm->skin;
  int *count = calloc(ncell + 1, sizeof(int));
  int *mark = malloc(ncell * sizeof(int));
  if (!count || !mark) {
    free(count);
    free(mark);
    return -1;
  }
  for (size_t c = 0; c < ncell; ++c) mark[c] = -1;
  for (int o = 0; o < w->n_obstacles; ++o) obstacle_cells(w, o, margin, mark, count, NULL, NULL);
  /* exclusive scan into offsets */
  int *offset = malloc((ncell + 1) * sizeof(int));
  if (!offset) {
    free(count);
    free(mark);
    return -1;
  }
  int total = 0;
  for (size_t c = 0; c < ncell; ++c) {
    offset[c] = total;
    total += count[c];
  }
  offset[ncell] = total;
  int *items = malloc((size_t)(total ? total : 1) * sizeof(int));
  if (!items) {
    free(count);
    free(mark);
    free(offset);
    return -1;
  }
  memcpy(count, offset, ncell * sizeof(int)); /* reuse as fill cursors */
  for (size_t c = 0; c < ncell; ++c) mark[c] = -1;
  for (int o = 0; o < w->n_obstacles; ++o) obstacle_cells(w, o, margin, mark, NULL, count, items);
  free(count);
  free(mark);
  w->obs_cell_offset = offset;
  w->obs_cell_items = items;
  return 0;
}

void thr_world_free(thr_world *w) {
  free(w->obs_vfirst);
  free(w->obs_closed);
  free(w->verts);
  free(w->obs_cell_offset);
  free(w->obs_cell_items);
  free(w->goals);
  free(w->set_first);
  free(w->set_items);
  memset(w, 0, sizeof *w);
}
