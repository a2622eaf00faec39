#include "geometry_out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/floors.h"
#include "output.h"
#include "walkable_out.h"
#include "wkt.h"

/* Segments of a disk goal drawn as a polygon. */
#define DISK_SEGMENTS 32

/* The scene as cells of points: a polyline (closed shapes repeat their
 * first point) or a single vertex, each with its kind. */
typedef struct geom_cell {
  int first, n, kind, vert;
} geom_cell;

typedef struct geom {
  thr_vec2 *pts;
  geom_cell *cells;
  int n_pts, cap_pts, n_cells, cap_cells;
  int failed;
} geom;

/* p with room for `need` elements (doubling); sets *failed when out of memory. */
static void *grow(void *p, int *cap, int need, size_t elem, int *failed) {
  if (need <= *cap) return p;
  int c = *cap ? *cap : 64;
  while (c < need) c *= 2;
  void *q = realloc(p, (size_t)c * elem);
  if (!q) {
    *failed = 1;
    return p;
  }
  *cap = c;
  return q;
}

static void add_cell(geom *g, const thr_vec2 *p, int n, int closed, int vert, int kind) {
  int m = n + (closed && n > 2);
  if ((!vert && n < 2) || g->failed) return;
  g->cells = grow(g->cells, &g->cap_cells, g->n_cells + 1, sizeof *g->cells, &g->failed);
  g->pts = grow(g->pts, &g->cap_pts, g->n_pts + m, sizeof *g->pts, &g->failed);
  if (g->failed) return;
  geom_cell c = {g->n_pts, m, kind, vert};
  g->cells[g->n_cells++] = c;
  for (int k = 0; k < m; ++k) g->pts[g->n_pts++] = p[k % n];
}

/* Every shape of the scene: obstacles, exits, goals, measurement lines and
 * areas, slots. */
static void collect(geom *g, const thr_world *w) {
  for (int o = 0; o < w->n_obstacles; ++o)
    add_cell(g, w->verts + w->obs_vfirst[o], w->obs_vfirst[o + 1] - w->obs_vfirst[o], w->obs_closed[o], 0,
             THR_GEOM_WALL);
  for (int e = 0; e < w->n_exits; ++e)
    add_cell(g, w->exit_verts + w->exit_vfirst[e], w->exit_vfirst[e + 1] - w->exit_vfirst[e], 1, 0, THR_GEOM_EXIT);
  for (int k = 0; k < w->n_goals; ++k) {
    const thr_goal *q = &w->goals[k];
    thr_vec2 ring[DISK_SEGMENTS];
    if (q->kind == THR_GOAL_POINT) {
      ring[0].x = q->ax, ring[0].y = q->ay;
      add_cell(g, ring, 1, 0, 1, THR_GEOM_GOAL);
    } else if (q->kind == THR_GOAL_RECT) {
      thr_vec2 r[4] = {{q->ax, q->ay}, {q->bx, q->ay}, {q->bx, q->by}, {q->ax, q->by}};
      add_cell(g, r, 4, 1, 0, THR_GEOM_GOAL);
    } else if (q->kind == THR_GOAL_DISK) {
      for (int s = 0; s < DISK_SEGMENTS; ++s) {
        double a = 2.0 * 3.14159265358979323846 * s / DISK_SEGMENTS;
        ring[s].x = q->ax + q->r * (float)cos(a);
        ring[s].y = q->ay + q->r * (float)sin(a);
      }
      add_cell(g, ring, DISK_SEGMENTS, 1, 0, THR_GEOM_GOAL);
    }
  }
  for (int k = 0; k < w->n_lines; ++k) add_cell(g, w->lines + 2 * k, 2, 0, 0, THR_GEOM_LINE);
  for (int k = 0; k < w->n_areas; ++k)
    add_cell(g, w->area_verts + w->area_vfirst[k], w->area_vfirst[k + 1] - w->area_vfirst[k], 1, 0, THR_GEOM_AREA);
  for (int k = 0; k < w->n_slots; ++k) add_cell(g, &w->slots[k], 1, 0, 1, THR_GEOM_SLOT);
}

/* Connectivity and offsets of the vertex cells (vert 1) or the polylines. */
static void write_cells(FILE *f, const geom *g, int vert) {
  fprintf(f, "<%s>\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n", vert ? "Verts" : "Lines");
  for (int c = 0; c < g->n_cells; ++c) {
    const geom_cell *gc = &g->cells[c];
    if (gc->vert != vert) continue;
    for (int k = 0; k < gc->n; ++k) fprintf(f, "%d%c", gc->first + k, k + 1 < gc->n ? ' ' : '\n');
  }
  fprintf(f, "</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
  long end = 0;
  for (int c = 0; c < g->n_cells; ++c)
    if (g->cells[c].vert == vert) fprintf(f, "%ld\n", end += g->cells[c].n);
  fprintf(f, "</DataArray>\n</%s>\n", vert ? "Verts" : "Lines");
}

/* A building's points in their floors' own coordinates at their elevations. */
static void write_vtp(FILE *f, const geom *g, const thr_scenario *building) {
  int n_verts = 0;
  for (int c = 0; c < g->n_cells; ++c) n_verts += g->cells[c].vert;
  fprintf(f,
          "<?xml version=\"1.0\"?>\n"
          "<!-- throng: the scene's geometry (docs/output.md); cell array kind: 1 wall or obstacle, 2 exit,\n"
          "     3 goal, 4 measurement line, 5 measurement area, 6 stage slot -->\n"
          "<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n<PolyData>\n"
          "<Piece NumberOfPoints=\"%d\" NumberOfVerts=\"%d\" NumberOfLines=\"%d\" NumberOfStrips=\"0\" "
          "NumberOfPolys=\"0\">\n",
          g->n_pts, n_verts, g->n_cells - n_verts);
  fprintf(f, "<Points>\n<DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">\n");
  for (int k = 0; k < g->n_pts; ++k) {
    float z = 0.0f;
    thr_vec2 p = building ? thr_building_point(building, g->pts[k], &z) : g->pts[k];
    fprintf(f, "%.9g %.9g %.9g\n", (double)p.x, (double)p.y, (double)z);
  }
  fprintf(f, "</DataArray>\n</Points>\n");
  write_cells(f, g, 1);
  write_cells(f, g, 0);
  /* cell data: vertices first, then lines (VTK's order of cell types) */
  fprintf(f, "<CellData Scalars=\"kind\">\n<DataArray type=\"Int32\" Name=\"kind\" format=\"ascii\">\n");
  for (int vert = 1; vert >= 0; --vert)
    for (int c = 0; c < g->n_cells; ++c)
      if (g->cells[c].vert == vert) fprintf(f, "%d\n", g->cells[c].kind);
  fprintf(f, "</DataArray>\n</CellData>\n</Piece>\n</PolyData>\n</VTKFile>\n");
}

/* DIR/NAME: the WKT of ps less the obstacles (moved by -dx; walkable_out.h). */
static int write_wkt(const char *dir, const char *name, const thr_polyset *ps, const thr_scenario *sc, float dx,
                     char *err, size_t errlen) {
  char path[THR_PATH_MAX + 64], tmp[THR_PATH_MAX + 72];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *wkt = thr_walkable_wkt(sc, ps, dx);
  if (!wkt) {
    snprintf(err, errlen, "%s: out of memory", path);
    return -1;
  }
  FILE *f = thr_file_begin(path, tmp, sizeof tmp, err, errlen);
  if (f) fprintf(f, "%s\n", wkt);
  free(wkt);
  return f ? thr_file_commit(f, path, tmp, err, errlen) : -1;
}

/* A building: geometry-floorK.wkt for each floor (its own coordinates),
 * geometry.wkt the first floor's, and floors.csv naming them. */
static int write_floors(const char *dir, const thr_scenario *sc, char *err, size_t errlen) {
  char path[THR_PATH_MAX + 16], tmp[THR_PATH_MAX + 24], name[64];
  snprintf(path, sizeof path, "%s/floors.csv", dir);
  FILE *f = thr_file_begin(path, tmp, sizeof tmp, err, errlen);
  if (!f) return -1;
  fprintf(f, "floor,name,elevation,walkable\n");
  int rc = 0;
  for (int k = 0; k < sc->n_floors && !rc; ++k) {
    thr_polyset ps;
    snprintf(name, sizeof name, "geometry-floor%d.wkt", k);
    fprintf(f, "%d,", k);
    thr_csv_field(f, sc->floors[k].name);
    fprintf(f, ",%.9g,%s\n", (double)sc->floors[k].elevation, name);
    if (thr_floor_walkable(sc, k, &ps)) {
      snprintf(err, errlen, "%s/%s: out of memory", dir, name);
      rc = -1;
      break;
    }
    float dx = sc->floors[k].shift;
    rc = write_wkt(dir, name, &ps, sc, dx, err, errlen) ||
         (k == 0 && write_wkt(dir, "geometry.wkt", &ps, sc, dx, err, errlen));
    thr_polyset_free(&ps);
  }
  if (rc) {
    fclose(f);
    remove(tmp);
    return -1;
  }
  return thr_file_commit(f, path, tmp, err, errlen);
}

int thr_write_geometry(const char *dir, const thr_scenario *sc, const thr_world *w, char *err, size_t errlen) {
  char path[THR_PATH_MAX + 16], tmp[THR_PATH_MAX + 24];
  snprintf(path, sizeof path, "%s/geometry.vtp", dir);
  geom g = {0};
  collect(&g, w);
  FILE *f = g.failed ? NULL : thr_file_begin(path, tmp, sizeof tmp, err, errlen);
  if (g.failed) snprintf(err, errlen, "%s: out of memory", path);
  if (f) write_vtp(f, &g, sc->n_floors ? sc : NULL);
  free(g.pts);
  free(g.cells);
  if (!f || thr_file_commit(f, path, tmp, err, errlen)) return -1;

  if (sc->n_floors) return write_floors(dir, sc, err, errlen);
  return write_wkt(dir, "geometry.wkt", &sc->walkable, sc, 0.0f, err, errlen);
}
