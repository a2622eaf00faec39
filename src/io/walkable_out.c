#include "walkable_out.h"

#include <stdlib.h>
#include <string.h>

#include "base/geometry.h"
#include "wkt.h"

#ifdef THRONG_HAVE_GEOS
#include <geos_c.h>

int thr_walkable_cuts_obstacles(void) { return 1; }

/* Points v[0..n) moved by -dx as a coordinate sequence, closed when `close`. */
static GEOSCoordSequence *coords(GEOSContextHandle_t h, const thr_vec2 *v, int n, float dx, int close) {
  GEOSCoordSequence *s = GEOSCoordSeq_create_r(h, (unsigned)(n + close), 2);
  for (int k = 0; s && k <= n - 1 + close; ++k) {
    thr_vec2 p = v[k % n];
    GEOSCoordSeq_setXY_r(h, s, (unsigned)k, (double)p.x - dx, (double)p.y);
  }
  return s;
}

static GEOSGeometry *ring(GEOSContextHandle_t h, const thr_vec2 *v, int n, float dx) {
  GEOSCoordSequence *s = coords(h, v, n, dx, 1);
  return s ? GEOSGeom_createLinearRing_r(h, s) : NULL;
}

/* Polygons [p0, p1) of ps as one geometry. */
static GEOSGeometry *area(GEOSContextHandle_t h, const thr_polyset *ps, int p0, int p1) {
  const float dx = 0.0f;
  int n = p1 - p0;
  GEOSGeometry **polys = calloc((size_t)(n ? n : 1), sizeof *polys);
  if (!polys) return NULL;
  for (int p = p0; p < p1; ++p) {
    int r0 = ps->poly_first[p], r1 = ps->poly_first[p + 1];
    GEOSGeometry *shell = ring(h, thr_ring_verts(ps, r0), thr_ring_len(ps, r0), dx);
    GEOSGeometry **holes = calloc((size_t)(r1 - r0 > 1 ? r1 - r0 - 1 : 1), sizeof *holes);
    for (int r = r0 + 1; holes && r < r1; ++r) holes[r - r0 - 1] = ring(h, thr_ring_verts(ps, r), thr_ring_len(ps, r), dx);
    polys[p - p0] = shell && holes ? GEOSGeom_createPolygon_r(h, shell, holes, (unsigned)(r1 - r0 - 1)) : NULL;
    free(holes);
  }
  return GEOSGeom_createCollection_r(h, GEOS_MULTIPOLYGON, polys, (unsigned)n);
}

/* The scenario's own obstacles: closed ones as polygons, walls as strips. */
static GEOSGeometry *obstacles(GEOSContextHandle_t h, const thr_scenario *sc, float dx) {
  int n = sc->n_user_obstacles;
  GEOSGeometry **parts = calloc((size_t)(n ? n : 1), sizeof *parts);
  if (!parts) return NULL;
  int m = 0;
  for (int o = 0; o < n; ++o) {
    const thr_vec2 *v = sc->verts + sc->obs_vfirst[o];
    int nv = sc->obs_vfirst[o + 1] - sc->obs_vfirst[o];
    GEOSGeometry *g = NULL;
    if (sc->obs_closed[o] && nv >= 3) {
      GEOSGeometry *shell = ring(h, v, nv, dx);
      g = shell ? GEOSGeom_createPolygon_r(h, shell, NULL, 0) : NULL;
    } else if (nv >= 2) {
      GEOSCoordSequence *s = coords(h, v, nv, dx, 0);
      GEOSGeometry *line = s ? GEOSGeom_createLineString_r(h, s) : NULL;
      g = line ? GEOSBufferWithStyle_r(h, line, THR_WALL_CUT / 2, 2, GEOSBUF_CAP_FLAT, GEOSBUF_JOIN_MITRE, 2.0)
               : NULL;
      if (line) GEOSGeom_destroy_r(h, line);
    }
    if (g) parts[m++] = g;
  }
  GEOSGeometry *all = GEOSGeom_createCollection_r(h, GEOS_GEOMETRYCOLLECTION, parts, (unsigned)m);
  free(parts);
  if (!all) return NULL;
  GEOSGeometry *u = GEOSUnaryUnion_r(h, all);
  GEOSGeom_destroy_r(h, all);
  return u;
}

/* The walkable area less the obstacles as WKT (NULL: GEOS failed or nothing
 * is left; the caller writes the area as given). */
static char *cut(const thr_scenario *sc, const thr_polyset *ps, int p0, int p1, float dx) {
  GEOSContextHandle_t h = GEOS_init_r();
  if (!h) return NULL;
  char *out = NULL;
  GEOSGeometry *a = area(h, ps, p0, p1), *o = obstacles(h, sc, dx);
  GEOSGeometry *d = a && o ? GEOSDifference_r(h, a, o) : NULL;
  if (d && !GEOSisEmpty_r(h, d)) {
    GEOSWKTWriter *w = GEOSWKTWriter_create_r(h);
    if (w) {
      GEOSWKTWriter_setTrim_r(h, w, 1);
      GEOSWKTWriter_setRoundingPrecision_r(h, w, 6);
      char *text = GEOSWKTWriter_write_r(h, w, d);
      if (text) {
        size_t n = strlen(text) + 1;
        if ((out = malloc(n))) memcpy(out, text, n);
        GEOSFree_r(h, text);
      }
      GEOSWKTWriter_destroy_r(h, w);
    }
  }
  if (d) GEOSGeom_destroy_r(h, d);
  if (o) GEOSGeom_destroy_r(h, o);
  if (a) GEOSGeom_destroy_r(h, a);
  GEOS_finish_r(h);
  return out;
}
#else
int thr_walkable_cuts_obstacles(void) { return 0; }
#endif

char *thr_walkable_wkt(const thr_scenario *sc, const thr_polyset *ps, float dx) {
  thr_polyset area = *ps;
  thr_vec2 lo = sc->world_min, hi = sc->world_max;
  thr_vec2 box[4] = {lo, v2(hi.x, lo.y), hi, v2(lo.x, hi.y)};
  int pf[2] = {0, 1}, rf[2] = {0, 4};
  if (ps->n_polys == 0) area = (thr_polyset){1, 1, 4, pf, rf, box, NULL}; /* the world */
#ifdef THRONG_HAVE_GEOS
  if (sc->n_user_obstacles > 0) {
    char *wkt = cut(sc, &area, 0, area.n_polys, dx);
    if (wkt) return wkt;
  }
#else
  (void)dx, (void)area; /* only the cut with GEOS reads the area */
#endif
  return thr_wkt_format(ps, lo, hi);
}
