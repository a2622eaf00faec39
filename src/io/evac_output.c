#include "evac_output.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int thr_evac_output_wanted(const thr_scenario *sc) {
  return sc->n_exits > 0 || sc->areas.n_polys > 0 || sc->n_lines > 0 || sc->map_every > 0;
}

/* ---- geometry.json ------------------------------------------------------------ */

/* {"name": width [m], ...}: each exit's door width (exits[].width). */
static void json_exit_widths(FILE *f, const thr_scenario *sc) {
  fputc('{', f);
  for (int k = 0; k < sc->n_exits; ++k) {
    fputs(k ? ", " : "", f);
    thr_json_string(f, sc->exit_names[k]);
    fprintf(f, ": %.6g", (double)sc->exit_width[k]);
  }
  fputc('}', f);
}

static void json_point(FILE *f, thr_vec2 p) { fprintf(f, "[%.9g, %.9g]", (double)p.x, (double)p.y); }

static void json_ring(FILE *f, const thr_vec2 *v, int n, int close) {
  fputc('[', f);
  for (int k = 0; k < n; ++k) {
    if (k) fputs(", ", f);
    json_point(f, v[k]);
  }
  if (close && n > 0) {
    fputs(", ", f);
    json_point(f, v[0]);
  }
  fputc(']', f);
}

/* Polygon p of ps as a list of rings. */
static void json_polygon(FILE *f, const thr_polyset *ps, int p) {
  fputc('[', f);
  for (int r = ps->poly_first[p]; r < ps->poly_first[p + 1]; ++r) {
    if (r > ps->poly_first[p]) fputs(", ", f);
    json_ring(f, ps->verts + ps->ring_first[r], ps->ring_first[r + 1] - ps->ring_first[r], 0);
  }
  fputc(']', f);
}

/* name: outer ring of polygon p, for each polygon of ps */
static void json_named_outer(FILE *f, const thr_polyset *ps, const char (*names)[64]) {
  fputc('{', f);
  for (int p = 0; p < ps->n_polys; ++p) {
    int r = ps->poly_first[p];
    fputs(p ? ", " : "", f);
    thr_json_string(f, names[p]);
    fputs(": ", f);
    json_ring(f, ps->verts + ps->ring_first[r], ps->ring_first[r + 1] - ps->ring_first[r], 0);
  }
  fputc('}', f);
}

static int write_geometry(const char *dir, const thr_scenario *sc, const thr_world *w, char *err, size_t errlen) {
  char path[THR_PATH_MAX], tmp[THR_PATH_MAX + 8];
  if (snprintf(path, sizeof path, "%s/geometry.json", dir) >= (int)sizeof path) {
    snprintf(err, errlen, "%.1000s/geometry.json: the path is too long", dir);
    return -1;
  }
  FILE *f = thr_file_begin(path, tmp, sizeof tmp, err, errlen);
  if (!f) return -1;
  fputs("{\n  \"world\": [", f);
  json_point(f, w->min);
  fputs(", ", f);
  json_point(f, w->max);
  fputs("],\n  \"walkable\": [", f);
  for (int p = 0; p < sc->walkable.n_polys; ++p) {
    fputs(p ? ",\n    " : "\n    ", f);
    json_polygon(f, &sc->walkable, p);
  }
  fputs("],\n  \"obstacles\": [", f);
  /* the scenario's own obstacles; the walkable area's walls (last) are drawn with it */
  int n_obs = sc->n_obstacles - sc->walkable.n_rings;
  for (int o = 0; o < n_obs; ++o) {
    fputs(o ? ",\n    " : "\n    ", f);
    json_ring(f, sc->verts + sc->obs_vfirst[o], sc->obs_vfirst[o + 1] - sc->obs_vfirst[o], sc->obs_closed[o]);
  }
  fputs("],\n  \"exits\": ", f);
  json_named_outer(f, &sc->exit_shapes, (const char(*)[64])sc->exit_names);
  fputs(",\n  \"exit_widths\": ", f);
  json_exit_widths(f, sc);
  fputs(",\n  \"areas\": ", f);
  json_named_outer(f, &sc->areas, (const char(*)[64])sc->area_names);
  fputs(",\n  \"lines\": {", f);
  for (int k = 0; k < sc->n_lines; ++k) {
    fputs(k ? ", " : "", f);
    thr_json_string(f, sc->lines[k].name);
    fputs(": [", f);
    json_point(f, sc->lines[k].a);
    fputs(", ", f);
    json_point(f, sc->lines[k].b);
    fputc(']', f);
  }
  fputs("}\n}\n", f);
  return thr_file_commit(f, path, tmp, err, errlen);
}

/* ---- the row files ------------------------------------------------------------- */

int thr_evac_output_open(thr_evac_output *o, const char *dir, const thr_scenario *sc, const thr_world *w, char *err,
                         size_t errlen) {
  memset(o, 0, sizeof *o);
  o->sc = sc;
  snprintf(o->dir, sizeof o->dir, "%s", dir);
  o->exit_count = calloc((size_t)sc->n_exits + 1, sizeof *o->exit_count);
  o->last_crossings = calloc((size_t)sc->n_lines + 1, sizeof *o->last_crossings);
  if (!o->exit_count || !o->last_crossings) {
    snprintf(err, errlen, "out of memory for the evacuation outputs");
    return -1;
  }
  if (write_geometry(dir, sc, w, err, errlen)) return -1;
  if (sc->n_exits) {
    if (thr_stream_open(&o->exits, o->exits_path, dir, "exits.csv", err, errlen)) return -1;
    fputs("step,time", o->exits);
    for (int k = 0; k < sc->n_exits; ++k) {
      fputc(',', o->exits);
      thr_csv_field(o->exits, sc->exit_names[k]);
    }
    fputc('\n', o->exits);
    if (thr_stream_check(o->exits, o->exits_path, err, errlen)) return -1;
    if (thr_stream_open(&o->evacuated, o->evacuated_path, dir, "evacuated.csv", err, errlen)) return -1;
    fputs("id,exit,time,release,born,travel_time,distance,group\n", o->evacuated);
    if (thr_stream_check(o->evacuated, o->evacuated_path, err, errlen)) return -1;
  }
  if (sc->areas.n_polys) {
    if (thr_stream_open(&o->areas, o->areas_path, dir, "areas.csv", err, errlen)) return -1;
    fputs("step,time,area,agents,density,mean_speed\n", o->areas);
    if (thr_stream_check(o->areas, o->areas_path, err, errlen)) return -1;
  }
  if (sc->n_lines) {
    if (thr_stream_open(&o->lines, o->lines_path, dir, "lines.csv", err, errlen)) return -1;
    fputs("step,time,line,crossings,flow\n", o->lines);
    if (thr_stream_check(o->lines, o->lines_path, err, errlen)) return -1;
  }
  return 0;
}

int thr_evac_output_exited(thr_evac_output *o, const thr_exit_rec *r, size_t n, char *err, size_t errlen) {
  if (!o->evacuated || !n) return 0;
  if (o->n_out + n > o->out_cap) {
    size_t cap = o->out_cap ? o->out_cap : 1024;
    while (cap < o->n_out + n) cap *= 2;
    double *t = realloc(o->out_time, cap * sizeof *t);
    if (!t) {
      snprintf(err, errlen, "out of memory recording %zu evacuated agents", o->n_out + n);
      return -1;
    }
    o->out_time = t;
    o->out_cap = cap;
  }
  for (size_t k = 0; k < n; ++k) {
    const thr_exit_rec *e = &r[k];
    fprintf(o->evacuated, "%u,", e->id);
    thr_csv_field(o->evacuated, o->sc->exit_names[e->exit]);
    fprintf(o->evacuated, ",%.6f,%.6f,%.6f,%.6f,%.6f,%d\n", e->time, (double)e->release, (double)e->born,
            e->time - (double)e->born, (double)e->travel, e->group);
    o->exit_count[e->exit]++;
    o->out_time[o->n_out++] = e->time;
  }
  return thr_stream_check(o->evacuated, o->evacuated_path, err, errlen);
}

int thr_evac_output_row(thr_evac_output *o, long step, double time, const thr_area_sample *areas,
                        const int64_t *crossings, char *err, size_t errlen) {
  const thr_scenario *sc = o->sc;
  if (o->exits) {
    fprintf(o->exits, "%ld,%.6f", step, time);
    for (int k = 0; k < sc->n_exits; ++k) fprintf(o->exits, ",%ld", o->exit_count[k]);
    fputc('\n', o->exits);
    if (thr_stream_check(o->exits, o->exits_path, err, errlen)) return -1;
  }
  if (o->areas) {
    for (int k = 0; k < sc->areas.n_polys; ++k) {
      fprintf(o->areas, "%ld,%.6f,", step, time);
      thr_csv_field(o->areas, sc->area_names[k]);
      if (isnan(areas[k].mean_speed))
        fprintf(o->areas, ",%ld,%.6g,nan\n", areas[k].agents, areas[k].density);
      else
        fprintf(o->areas, ",%ld,%.6g,%.6g\n", areas[k].agents, areas[k].density, areas[k].mean_speed);
    }
    if (thr_stream_check(o->areas, o->areas_path, err, errlen)) return -1;
  }
  if (o->lines) {
    double dt = time - o->last_time;
    for (int k = 0; k < sc->n_lines; ++k) {
      int64_t d = crossings[k] - o->last_crossings[k];
      fprintf(o->lines, "%ld,%.6f,", step, time);
      thr_csv_field(o->lines, sc->lines[k].name);
      fprintf(o->lines, ",%lld,%.6g\n", (long long)crossings[k], o->rows && dt > 0.0 ? (double)d / dt : 0.0);
      o->last_crossings[k] = crossings[k];
    }
    if (thr_stream_check(o->lines, o->lines_path, err, errlen)) return -1;
  }
  o->last_time = time;
  o->rows++;
  return 0;
}

/* ---- maps ----------------------------------------------------------------------- */

/* nx x ny values of v, rows `stride` apart. */
static int map_csv(const char *dir, const char *name, double x0, double y0, double cell, int nx, int ny,
                   const double *v, size_t stride, char *err, size_t errlen) {
  char path[THR_PATH_MAX], tmp[THR_PATH_MAX + 8];
  if (snprintf(path, sizeof path, "%s/maps/%s", dir, name) >= (int)sizeof path) {
    snprintf(err, errlen, "%.1000s/maps/%s: the path is too long", dir, name);
    return -1;
  }
  FILE *f = thr_file_begin(path, tmp, sizeof tmp, err, errlen);
  if (!f) return -1;
  fprintf(f, "# x0,y0,cell,nx,ny\n%.9g,%.9g,%.9g,%d,%d\n", x0, y0, cell, nx, ny);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      double x = v[(size_t)j * stride + (size_t)i];
      if (isnan(x))
        fputs("nan", f);
      else
        fprintf(f, "%.6g", x);
      fputc(i + 1 < nx ? ',' : '\n', f);
    }
  return thr_file_commit(f, path, tmp, err, errlen);
}

/* Base64 of n bytes (VTK's "binary" format). */
static void base64(FILE *f, const unsigned char *p, size_t n) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t k = 0; k < n; k += 3) {
    unsigned v = (unsigned)p[k] << 16;
    if (k + 1 < n) v |= (unsigned)p[k + 1] << 8;
    if (k + 2 < n) v |= p[k + 2];
    fputc(tab[v >> 18 & 63], f);
    fputc(tab[v >> 12 & 63], f);
    fputc(k + 1 < n ? tab[v >> 6 & 63] : '=', f);
    fputc(k + 2 < n ? tab[v & 63] : '=', f);
  }
}

/* One VTK DataArray: a UInt32 byte count, then the doubles, base64 as one
 * block. */
static int vti_array(FILE *f, const char *name, const double *v, size_t n) {
  size_t bytes = n * sizeof(double);
  unsigned char *buf = malloc(4 + bytes);
  if (!buf) return -1;
  uint32_t len = (uint32_t)bytes;
  memcpy(buf, &len, 4);
  memcpy(buf + 4, v, bytes);
  fprintf(f, "      <DataArray type=\"Float64\" Name=\"%s\" format=\"binary\">\n        ", name);
  base64(f, buf, 4 + bytes);
  fputs("\n      </DataArray>\n", f);
  free(buf);
  return 0;
}

static const char *const map_names[THR_N_MAPS] = {
#define THR_X(ID, name, doc) name,
    THR_MAPS(THR_X)
#undef THR_X
};

static int map_vti(const char *dir, double x0, double y0, double cell, int nx, int ny,
                   const double *const maps[THR_N_MAPS], char *err, size_t errlen) {
  char path[THR_PATH_MAX], tmp[THR_PATH_MAX + 8];
  if (snprintf(path, sizeof path, "%s/maps/maps.vti", dir) >= (int)sizeof path) {
    snprintf(err, errlen, "%.1000s/maps/maps.vti: the path is too long", dir);
    return -1;
  }
  size_t n = (size_t)nx * (size_t)ny;
  if (n * sizeof(double) > 0xfffffff0u) return 0; /* too large for one block: the CSV files only */
  FILE *f = thr_file_begin(path, tmp, sizeof tmp, err, errlen);
  if (!f) return -1;
  const uint16_t one = 1;
  unsigned char little;
  memcpy(&little, &one, 1);
  fprintf(f,
          "<?xml version=\"1.0\"?>\n<VTKFile type=\"ImageData\" version=\"0.1\" byte_order=\"%s\">\n"
          "  <ImageData WholeExtent=\"0 %d 0 %d 0 0\" Origin=\"%.9g %.9g 0\" Spacing=\"%.9g %.9g 1\">\n"
          "    <Piece Extent=\"0 %d 0 %d 0 0\">\n    <CellData Scalars=\"density\">\n",
          little ? "LittleEndian" : "BigEndian", nx, ny, x0, y0, cell, cell, nx, ny);
  int rc = 0;
  for (int k = 0; k < THR_N_MAPS && !rc; ++k) rc = vti_array(f, map_names[k], maps[k], n);
  fputs("    </CellData>\n    </Piece>\n  </ImageData>\n</VTKFile>\n", f);
  if (rc) {
    fclose(f);
    remove(tmp);
    snprintf(err, errlen, "%.1000s: out of memory", path);
    return -1;
  }
  return thr_file_commit(f, path, tmp, err, errlen);
}

/* A building: NAME-floorK.csv of each map, the columns of floor K's place
 * (its shift on, the floors' width and the world's 1 m margins), their
 * origin in the floor's own coordinates (docs/floors.md). */
static int map_floors(thr_evac_output *o, double x0, double y0, double cell, int nx, int ny,
                      const double *const maps[THR_N_MAPS], char *err, size_t errlen) {
  const thr_scenario *sc = o->sc;
  if (sc->n_floors < 1) return 0;
  /* a floor's place and the 1 m the world reaches beyond the floors */
  double left = (double)sc->floor_x0 - 1.0, width = (double)sc->floor_width + 2.0;
  for (int k = 0; k < sc->n_floors; ++k) {
    double shift = (double)sc->floors[k].shift;
    int i0 = (int)floor((left + shift - x0) / cell + 1e-9);
    int i1 = (int)ceil((left + shift + width - x0) / cell - 1e-9);
    if (i0 < 0) i0 = 0;
    if (i1 > nx) i1 = nx;
    if (i1 <= i0) continue;
    char name[64];
    double fx = x0 + i0 * cell - shift;
    for (int m = 0; m < THR_N_MAPS; ++m) {
      snprintf(name, sizeof name, "%s-floor%d.csv", map_names[m], k);
      if (map_csv(o->dir, name, fx, y0, cell, i1 - i0, ny, maps[m] + i0, (size_t)nx, err, errlen)) return -1;
    }
  }
  return 0;
}

int thr_evac_output_maps(thr_evac_output *o, double x0, double y0, double cell, int nx, int ny,
                         const double *const maps[THR_N_MAPS], long samples, char *err, size_t errlen) {
  if (samples <= 0) return 0;
  char path[THR_PATH_MAX];
  errno = 0;
  if (snprintf(path, sizeof path, "%s/maps", o->dir) >= (int)sizeof path || thr_make_dirs(path)) {
    snprintf(err, errlen, "%.1000s/maps: cannot create: %s", o->dir, strerror(errno ? errno : ENAMETOOLONG));
    return -1;
  }
  for (int k = 0; k < THR_N_MAPS; ++k) {
    char name[64];
    snprintf(name, sizeof name, "%s.csv", map_names[k]);
    if (map_csv(o->dir, name, x0, y0, cell, nx, ny, maps[k], (size_t)nx, err, errlen)) return -1;
  }
  if (map_floors(o, x0, y0, cell, nx, ny, maps, err, errlen)) return -1;
  return map_vti(o->dir, x0, y0, cell, nx, ny, maps, err, errlen);
}

/* ---- summary.json ---------------------------------------------------------------- */

static void json_time_or_null(FILE *f, int known, double t) {
  if (known)
    fprintf(f, "%.6f", t);
  else
    fputs("null", f);
}

int thr_evac_output_summary(thr_evac_output *o, const thr_evac_summary *s, char *err, size_t errlen) {
  const thr_scenario *sc = o->sc;
  char path[THR_PATH_MAX], tmp[THR_PATH_MAX + 8];
  if (snprintf(path, sizeof path, "%s/summary.json", o->dir) >= (int)sizeof path) {
    snprintf(err, errlen, "%.1000s/summary.json: the path is too long", o->dir);
    return -1;
  }
  FILE *f = thr_file_begin(path, tmp, sizeof tmp, err, errlen);
  if (!f) return -1;
  long total = s->agents_initial + s->agents_added;
  size_t need = total > 0 ? (size_t)ceil(0.95 * (double)total - 1e-9) : 0;
  fputs("{\n  \"scenario\": ", f);
  thr_json_string(f, sc->name);
  fprintf(f, ",\n  \"state\": \"%s\",\n", s->state);
  fprintf(f, "  \"agents_initial\": %ld,\n  \"agents_added\": %ld,\n  \"evacuated\": %zu,\n  \"remaining\": %ld,\n",
          s->agents_initial, s->agents_added, o->n_out, s->remaining);
  fputs("  \"evacuation_time\": ", f);
  json_time_or_null(f, s->remaining == 0 && o->n_out > 0, o->n_out ? o->out_time[o->n_out - 1] : 0.0);
  fputs(",\n  \"t95\": ", f);
  json_time_or_null(f, need > 0 && o->n_out >= need, need > 0 && o->n_out >= need ? o->out_time[need - 1] : 0);
  fputs(",\n  \"exits\": {", f);
  for (int k = 0; k < sc->n_exits; ++k) {
    fputs(k ? ", " : "", f);
    thr_json_string(f, sc->exit_names[k]);
    fprintf(f, ": %ld", o->exit_count[k]);
  }
  fputs("},\n  \"exit_widths\": ", f);
  json_exit_widths(f, sc);
  fprintf(f,
          ",\n  \"steps\": %ld,\n  \"time\": %.6f,\n  \"wall_seconds\": %.6f,\n  \"agent_steps_per_second\": "
          "%.6g\n}\n",
          s->steps, s->time, s->wall_seconds, s->agent_steps_per_second);
  return thr_file_commit(f, path, tmp, err, errlen);
}

void thr_evac_output_pack(const thr_evac_output *o, thr_blob *b) {
  thr_blob_put_i64(b, o->sc->n_exits);
  thr_blob_put_i64(b, o->sc->n_lines);
  thr_blob_put(b, o->exit_count, (size_t)o->sc->n_exits * sizeof *o->exit_count);
  thr_blob_put(b, o->last_crossings, (size_t)o->sc->n_lines * sizeof *o->last_crossings);
  thr_blob_put_i64(b, (int64_t)o->n_out);
  thr_blob_put(b, o->out_time, o->n_out * sizeof *o->out_time);
  thr_blob_put_f64(b, o->last_time);
  thr_blob_put_i64(b, o->rows);
}

/* The counts as read against what they count: every agent out is counted
 * at one exit and has its leaving time, in order; nothing is negative. */
static int evac_output_counts_fit(const thr_evac_output *o, char *err, size_t errlen) {
  const thr_scenario *sc = o->sc;
  long out = 0;
  for (int k = 0; k < sc->n_exits; ++k) {
    if (o->exit_count[k] < 0 || o->exit_count[k] > (long)o->n_out) {
      snprintf(err, errlen, "exit '%s': %ld agents out (of %zu)", sc->exit_names[k], o->exit_count[k], o->n_out);
      return -1;
    }
    out += o->exit_count[k];
  }
  if (out != (long)o->n_out) {
    snprintf(err, errlen, "%ld agents out through the exits, but %zu leaving times", out, o->n_out);
    return -1;
  }
  for (int k = 0; k < sc->n_lines; ++k)
    if (o->last_crossings[k] < 0) {
      snprintf(err, errlen, "line '%s': %lld crossings at the last row (negative)", sc->lines[k].name,
               (long long)o->last_crossings[k]);
      return -1;
    }
  for (size_t k = 0; k < o->n_out; ++k)
    if (!isfinite(o->out_time[k]) || o->out_time[k] < 0.0 || (k && o->out_time[k] < o->out_time[k - 1])) {
      snprintf(err, errlen, "leaving time %zu: %g s (times are finite, >= 0 and in order)", k, o->out_time[k]);
      return -1;
    }
  if (!isfinite(o->last_time) || o->rows < 0) {
    snprintf(err, errlen, "the last row: time %g s, %d rows", o->last_time, o->rows);
    return -1;
  }
  return 0;
}

int thr_evac_output_unpack(thr_evac_output *o, thr_blob *b, char *err, size_t errlen) {
  size_t ne = thr_blob_get_count(b, THR_MAX_LINES + (size_t)o->sc->n_exits);
  size_t nl = thr_blob_get_count(b, THR_MAX_LINES);
  if (!b->bad && (ne != (size_t)o->sc->n_exits || nl != (size_t)o->sc->n_lines)) {
    snprintf(err, errlen, "counts of %zu exits and %zu lines; the scenario has %d exits and %d lines", ne, nl,
             o->sc->n_exits, o->sc->n_lines);
    return -1;
  }
  thr_blob_get(b, o->exit_count, b->bad ? 0 : ne * sizeof *o->exit_count);
  thr_blob_get(b, o->last_crossings, b->bad ? 0 : nl * sizeof *o->last_crossings);
  size_t n = thr_blob_get_count(b, thr_blob_left(b) / sizeof(double));
  if (!b->bad && n + 1 > o->out_cap) {
    double *t = realloc(o->out_time, (n + 1) * sizeof *t);
    if (!t) {
      snprintf(err, errlen, "out of memory restoring %zu leaving times", n);
      return -1;
    }
    o->out_time = t;
    o->out_cap = n + 1;
  }
  o->n_out = b->bad ? 0 : n;
  thr_blob_get(b, o->out_time, o->n_out * sizeof *o->out_time);
  o->last_time = thr_blob_get_f64(b);
  int64_t rows = thr_blob_get_i64(b);
  o->rows = rows < 0 || rows > 0x7fffffff ? -1 : (int)rows; /* -1: refused below */
  if (b->bad || thr_blob_left(b)) {
    snprintf(err, errlen, "%zu bytes that do not hold the counts of the scenario's exits and lines (cut short, a "
             "count past the end, or bytes left over)", b->n);
    return -1;
  }
  return evac_output_counts_fit(o, err, errlen);
}

int thr_evac_output_close(thr_evac_output *o, char *err, size_t errlen) {
  int rc = 0;
  rc |= thr_stream_close(&o->exits, o->exits_path, err, errlen);
  rc |= thr_stream_close(&o->evacuated, o->evacuated_path, err, errlen);
  rc |= thr_stream_close(&o->areas, o->areas_path, err, errlen);
  rc |= thr_stream_close(&o->lines, o->lines_path, err, errlen);
  free(o->exit_count);
  free(o->out_time);
  free(o->last_crossings);
  o->exit_count = NULL;
  o->out_time = NULL;
  o->last_crossings = NULL;
  return rc ? -1 : 0;
}
