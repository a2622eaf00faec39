#include "floors.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geometry.h"
#include "polygon.h"

/* The unit normal of segment a-b that points away from point inside. */
static thr_vec2 normal_away(thr_vec2 a, thr_vec2 b, thr_vec2 inside) {
  thr_vec2 d = v2_sub(b, a);
  float len = v2_len(d);
  thr_vec2 n = len > 0.0f ? v2(d.y / len, -d.x / len) : v2(0.0f, 0.0f);
  thr_vec2 mid = v2_scale(v2_add(a, b), 0.5f);
  return v2_dot(n, v2_sub(inside, mid)) > 0.0f ? v2_scale(n, -1.0f) : n;
}

static thr_vec2 moved(thr_vec2 p, float dx) { return v2(p.x + dx, p.y); }

/* The middle of a landing (two points). */
static thr_vec2 landing_mid(const thr_vec2 l[2]) { return v2_scale(v2_add(l[0], l[1]), 0.5f); }

/* The middle between the landings' middles: a point inside the stair's
 * footprint that says which side of the top landing the stair lies on. */
static thr_vec2 stair_inside(const thr_stair_def *st) {
  return v2_scale(v2_add(landing_mid(st->bottom), landing_mid(st->top)), 0.5f);
}

/* The unit vector from the bottom landing's middle to the top's. */
static thr_vec2 stair_uphill(const thr_stair_def *st) {
  thr_vec2 d = v2_sub(landing_mid(st->top), landing_mid(st->bottom));
  float len = v2_len(d);
  return len > 0.0f ? v2_scale(d, 1.0f / len) : v2(0.0f, 0.0f);
}

static void add_zone(thr_world *w, const thr_polyset *ps, int poly, thr_vec2 up, float f_up, float f_down,
                     int *nverts) {
  int r = ps->poly_first[poly];
  thr_zone *z = &w->zones[w->n_zones++];
  z->v0 = *nverts;
  z->nv = thr_ring_len(ps, r);
  const thr_vec2 *v = thr_ring_verts(ps, r);
  z->lo = z->hi = v[0];
  for (int k = 0; k < z->nv; ++k) {
    w->zone_verts[(*nverts)++] = v[k];
    z->lo = v2(fminf(z->lo.x, v[k].x), fminf(z->lo.y, v[k].y));
    z->hi = v2(fmaxf(z->hi.x, v[k].x), fmaxf(z->hi.y, v[k].y));
  }
  z->up = up;
  z->f_up = f_up;
  z->f_down = f_down;
}

int thr_world_building(thr_world *w, const thr_scenario *sc) {
  int nz = sc->n_stairs + sc->n_zones;
  w->n_seams = 0;
  w->n_zones = 0;
  w->seams = calloc((size_t)(2 * sc->n_stairs + 1), sizeof *w->seams);
  w->zones = calloc((size_t)(nz + 1), sizeof *w->zones);
  w->zone_verts = calloc((size_t)(sc->stair_shapes.n_verts + sc->zone_shapes.n_verts + 1), sizeof *w->zone_verts);
  if (!w->seams || !w->zones || !w->zone_verts) return -1;
  for (int s = 0; s < sc->n_stairs; ++s) {
    const thr_stair_def *st = &sc->stairs[s];
    float lo = sc->floors[st->from].shift, hi = sc->floors[st->to].shift;
    thr_vec2 out = normal_away(st->top[0], st->top[1], stair_inside(st)); /* uphill, off the stair */
    /* up: leaving the stair's top in the lower floor's place; down: entering it from the upper floor's */
    w->seams[w->n_seams++] = (thr_seam){moved(st->top[0], lo), moved(st->top[1], lo), out, hi - lo};
    w->seams[w->n_seams++] = (thr_seam){moved(st->top[0], hi), moved(st->top[1], hi), v2_scale(out, -1.0f), lo - hi};
  }
  int nv = 0;
  for (int s = 0; s < sc->n_stairs; ++s) {
    const thr_stair_def *st = &sc->stairs[s];
    add_zone(w, &sc->stair_shapes, st->shape, stair_uphill(st), st->factor_up, st->factor_down, &nv);
  }
  for (int k = 0; k < sc->n_zones; ++k)
    add_zone(w, &sc->zone_shapes, sc->zones[k].shape, v2(0.0f, 0.0f), sc->zones[k].factor, sc->zones[k].factor,
             &nv);
  return 0;
}

int thr_floor_at(const thr_scenario *sc, thr_vec2 x) {
  if (sc->n_floors < 2) return 0;
  /* place f spans [x0 + f pitch, x0 + f pitch + width] (io/config.c); the
   * gaps between places are split in the middle */
  float pitch = sc->floor_pitch, x0 = sc->floor_x0, width = sc->floor_width;
  int f = (int)floorf((x.x - x0 + 0.5f * (pitch - width)) / pitch);
  return f < 0 ? 0 : (f >= sc->n_floors ? sc->n_floors - 1 : f);
}

thr_vec2 thr_building_point(const thr_scenario *sc, thr_vec2 x, float *elevation) {
  *elevation = 0.0f;
  if (!sc->n_floors) return x;
  int f = thr_floor_at(sc, x);
  const thr_floor_def *fl = &sc->floors[f];
  *elevation = fl->elevation;
  for (int s = 0; s < sc->n_stairs; ++s) {
    const thr_stair_def *st = &sc->stairs[s];
    if (st->from != f) continue;
    int r = sc->stair_shapes.poly_first[st->shape];
    if (!thr_polygon_contains(thr_ring_verts(&sc->stair_shapes, r), thr_ring_len(&sc->stair_shapes, r), x)) continue;
    /* along the stair from its bottom landing's middle to its top's */
    thr_vec2 bm = landing_mid(st->bottom), up = stair_uphill(st), p = v2(x.x - fl->shift, x.y);
    float run = v2_len(v2_sub(landing_mid(st->top), bm)), t = run > 0.0f ? v2_dot(v2_sub(p, bm), up) / run : 0.0f;
    t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
    *elevation = fl->elevation + t * (sc->floors[st->to].elevation - fl->elevation);
    break;
  }
  return v2(x.x - fl->shift, x.y);
}

int thr_floor_walkable(const thr_scenario *sc, int f, thr_polyset *out) {
  const thr_polyset *w = &sc->walkable;
  const thr_floor_def *fl = &sc->floors[f];
  int p0 = fl->poly_first, p1 = fl->poly_first + fl->n_polys;
  int r0 = w->poly_first[p0], r1 = w->poly_first[p1];
  int v0 = w->ring_first[r0], v1 = w->ring_first[r1];
  memset(out, 0, sizeof *out);
  out->n_polys = p1 - p0, out->n_rings = r1 - r0, out->n_verts = v1 - v0;
  out->poly_first = malloc((size_t)(out->n_polys + 1) * sizeof *out->poly_first);
  out->ring_first = malloc((size_t)(out->n_rings + 1) * sizeof *out->ring_first);
  out->verts = malloc((size_t)(out->n_verts ? out->n_verts : 1) * sizeof *out->verts);
  out->poly_line = malloc((size_t)(out->n_polys ? out->n_polys : 1) * sizeof *out->poly_line);
  if (!out->poly_first || !out->ring_first || !out->verts || !out->poly_line) {
    thr_polyset_free(out);
    return -1;
  }
  for (int p = p0; p <= p1; ++p) out->poly_first[p - p0] = w->poly_first[p] - r0;
  for (int r = r0; r <= r1; ++r) out->ring_first[r - r0] = w->ring_first[r] - v0;
  for (int v = v0; v < v1; ++v) out->verts[v - v0] = v2(w->verts[v].x - fl->shift, w->verts[v].y);
  for (int p = p0; p < p1; ++p) out->poly_line[p - p0] = w->poly_line ? w->poly_line[p] : 0;
  return 0;
}
