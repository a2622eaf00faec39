#include "geometry_out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "output.h"
#include "wkt.h"

/* Segments of a disk goal drawn as a polygon. */
#define DISK_SEGMENTS 32

/* The cells of geometry.vtp, in two passes: counting (f NULL), then
 * writing each section. A cell is a polyline (`lines`) or one vertex
 * (`verts`); closed shapes repeat their first point. */
typedef struct geom_pass {
  FILE *f;
  int section;          /* which list is written now */
  long n_points, n_lines, n_line_refs, n_verts;
  long point;           /* next point index (connectivity) */
} geom_pass;

enum { SEC_POINTS, SEC_LINE_CONN, SEC_LINE_OFFS, SEC_LINE_KIND, SEC_VERT_CONN, SEC_VERT_OFFS, SEC_VERT_KIND };

/* One polyline of n points (closed: back to the first). */
static void polyline(geom_pass *g, const thr_vec2 *p, int n, int closed, int kind) {
  int m = n + (closed && n > 2);
  if (n < 2) return;
  FILE *f = g->f;
  if (!f) {
    g->n_points += m, g->n_lines++, g->n_line_refs += m;
    return;
  }
  switch (g->section) {
    case SEC_POINTS:
      for (int k = 0; k < m; ++k) fprintf(f, "%.9g %.9g 0\n", (double)p[k % n].x, (double)p[k % n].y);
      break;
    case SEC_LINE_CONN:
      for (int k = 0; k < m; ++k) fprintf(f, "%ld%c", g->point + k, k + 1 < m ? ' ' : '\n');
      break;
    case SEC_LINE_OFFS:
      g->n_line_refs += m;
      fprintf(f, "%ld\n", g->n_line_refs);
      break;
    case SEC_LINE_KIND:
      fprintf(f, "%d\n", kind);
      break;
    default:
      break;
  }
  g->point += m;
}

/* One vertex (a point goal, a slot). */
static void vertex(geom_pass *g, thr_vec2 p, int kind) {
  FILE *f = g->f;
  if (!f) {
    g->n_points++, g->n_verts++;
    return;
  }
  switch (g->section) {
    case SEC_POINTS:
      fprintf(f, "%.9g %.9g 0\n", (double)p.x, (double)p.y);
      break;
    case SEC_VERT_CONN:
      fprintf(f, "%ld\n", g->point);
      break;
    case SEC_VERT_OFFS:
      g->n_verts++;
      fprintf(f, "%ld\n", g->n_verts);
      break;
    case SEC_VERT_KIND:
      fprintf(f, "%d\n", kind);
      break;
    default:
      break;
  }
  g->point++;
}

/* Every shape of the scene, in one fixed order: obstacles, exits, goals,
 * measurement lines and areas (polylines), then point goals and slots
 * (vertices). Point numbers run over both, polylines first. */
static void shapes(geom_pass *g, const thr_world *w, int polylines) {
  if (polylines) {
    for (int o = 0; o < w->n_obstacles; ++o)
      polyline(g, w->verts + w->obs_vfirst[o], w->obs_vfirst[o + 1] - w->obs_vfirst[o], w->obs_closed[o],
               THR_GEOM_WALL);
    for (int e = 0; e < w->n_exits; ++e)
      polyline(g, w->exit_verts + w->exit_vfirst[e], w->exit_vfirst[e + 1] - w->exit_vfirst[e], 1, THR_GEOM_EXIT);
    for (int k = 0; k < w->n_goals; ++k) {
      const thr_goal *q = &w->goals[k];
      thr_vec2 ring[DISK_SEGMENTS];
      if (q->kind == THR_GOAL_RECT) {
        thr_vec2 r[4] = {{q->ax, q->ay}, {q->bx, q->ay}, {q->bx, q->by}, {q->ax, q->by}};
        polyline(g, r, 4, 1, THR_GEOM_GOAL);
      } else if (q->kind == THR_GOAL_DISK) {
        for (int s = 0; s < DISK_SEGMENTS; ++s) {
          double a = 2.0 * 3.14159265358979323846 * s / DISK_SEGMENTS;
          ring[s].x = q->ax + q->r * (float)cos(a);
          ring[s].y = q->ay + q->r * (float)sin(a);
        }
        polyline(g, ring, DISK_SEGMENTS, 1, THR_GEOM_GOAL);
      }
    }
    for (int k = 0; k < w->n_lines; ++k) polyline(g, w->lines + 2 * k, 2, 0, THR_GEOM_LINE);
    for (int k = 0; k < w->n_areas; ++k)
      polyline(g, w->area_verts + w->area_vfirst[k], w->area_vfirst[k + 1] - w->area_vfirst[k], 1, THR_GEOM_AREA);
  } else {
    for (int k = 0; k < w->n_goals; ++k)
      if (w->goals[k].kind == THR_GOAL_POINT) {
        thr_vec2 p = {w->goals[k].ax, w->goals[k].ay};
        vertex(g, p, THR_GEOM_GOAL);
      }
    for (int k = 0; k < w->n_slots; ++k) vertex(g, w->slots[k], THR_GEOM_SLOT);
  }
}

/* Write section `sec` of every shape. */
static void section(geom_pass *g, int sec) {
  g->section = sec;
  g->point = 0;
  g->n_line_refs = 0;
  g->n_verts = 0;
}

static void write_vtp(FILE *f, const thr_world *w, const geom_pass *count) {
  geom_pass g = {f, 0, 0, 0, 0, 0, 0};
  fprintf(f,
          "<?xml version=\"1.0\"?>\n"
          "<!-- throng: the scene's geometry (docs/output.md); cell array kind: 1 wall or obstacle, 2 exit,\n"
          "     3 goal, 4 measurement line, 5 measurement area, 6 stage slot -->\n"
          "<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n<PolyData>\n"
          "<Piece NumberOfPoints=\"%ld\" NumberOfVerts=\"%ld\" NumberOfLines=\"%ld\" NumberOfStrips=\"0\" "
          "NumberOfPolys=\"0\">\n",
          count->n_points, count->n_verts, count->n_lines);
  fprintf(f, "<Points>\n<DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">\n");
  section(&g, SEC_POINTS);
  shapes(&g, w, 1);
  shapes(&g, w, 0);
  fprintf(f, "</DataArray>\n</Points>\n<Verts>\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
  section(&g, SEC_VERT_CONN);
  g.point = count->n_points - count->n_verts; /* vertices come after the polylines' points */
  shapes(&g, w, 0);
  fprintf(f, "</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
  section(&g, SEC_VERT_OFFS);
  shapes(&g, w, 0);
  fprintf(f, "</DataArray>\n</Verts>\n<Lines>\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
  section(&g, SEC_LINE_CONN);
  shapes(&g, w, 1);
  fprintf(f, "</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
  section(&g, SEC_LINE_OFFS);
  shapes(&g, w, 1);
  /* cell data: verts first, then lines (VTK's order of cell types) */
  fprintf(f, "</DataArray>\n</Lines>\n<CellData Scalars=\"kind\">\n"
             "<DataArray type=\"Int32\" Name=\"kind\" format=\"ascii\">\n");
  section(&g, SEC_VERT_KIND);
  shapes(&g, w, 0);
  section(&g, SEC_LINE_KIND);
  shapes(&g, w, 1);
  fprintf(f, "</DataArray>\n</CellData>\n</Piece>\n</PolyData>\n</VTKFile>\n");
}

int thr_write_geometry(const char *dir, const thr_scenario *sc, const thr_world *w, char *err, size_t errlen) {
  char path[THR_PATH_MAX + 16], tmp[THR_PATH_MAX + 24];
  geom_pass count = {NULL, 0, 0, 0, 0, 0, 0};
  shapes(&count, w, 1);
  shapes(&count, w, 0);
  snprintf(path, sizeof path, "%s/geometry.vtp", dir);
  FILE *f = thr_file_begin(path, tmp, sizeof tmp, err, errlen);
  if (!f) return -1;
  write_vtp(f, w, &count);
  if (thr_file_commit(f, path, tmp, err, errlen)) return -1;

  char *wkt = thr_wkt_format(&sc->walkable, sc->world_min, sc->world_max);
  if (!wkt) {
    snprintf(err, errlen, "%s/geometry.wkt: out of memory", dir);
    return -1;
  }
  snprintf(path, sizeof path, "%s/geometry.wkt", dir);
  f = thr_file_begin(path, tmp, sizeof tmp, err, errlen);
  if (f) fprintf(f, "%s\n", wkt);
  free(wkt);
  return f ? thr_file_commit(f, path, tmp, err, errlen) : -1;
}
