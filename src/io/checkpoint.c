#define _POSIX_C_SOURCE 200809L
#include "checkpoint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/blob.h"
#include "core/formations.h"
#include "build_info.h"
#include "core/evac.h"
#include "kernels/evac_agent.h"
#include "kernels/pass_list.h"
#include "input_file.h"
#include "models.h"
#include "schema.h"

#define CHECKPOINT_FORMAT "throng checkpoint"
/* 2: state/routing; 3: a checksum over every dataset and the root
 * attributes. Version 2 is still read, with a warning: its host state,
 * parameters and attributes are then only range-checked (decision 0005). */
enum { CHECKPOINT_VERSION = 3, CHECKPOINT_VERSION_UNCHECKED = 2 };
#define FNV_BASIS 0xcbf29ce484222325ull

int thr_checkpoint_available(void) {
#ifdef THRONG_HAVE_HDF5
  return 1;
#else
  return 0;
#endif
}

#ifdef THRONG_HAVE_HDF5

/* ---- what must match between a checkpoint and the scenario of a restart ---- */

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t k = 0; k < n; ++k) h = (h ^ c[k]) * 0x100000001b3ull;
  return h;
}

static uint64_t fnv_polyset(uint64_t h, const thr_polyset *ps) {
  h = fnv(h, &ps->n_polys, sizeof ps->n_polys);
  h = fnv(h, &ps->n_rings, sizeof ps->n_rings);
  if (ps->n_polys) h = fnv(h, ps->poly_first, (size_t)(ps->n_polys + 1) * sizeof *ps->poly_first);
  if (ps->n_rings) h = fnv(h, ps->ring_first, (size_t)(ps->n_rings + 1) * sizeof *ps->ring_first);
  if (ps->n_verts) h = fnv(h, ps->verts, (size_t)ps->n_verts * sizeof *ps->verts);
  return h;
}

/* The scenario's geometry and structure (walls, goals, exits, stages,
 * journeys, sources, measurement areas and lines). */
static uint64_t scenario_fingerprint(const thr_scenario *sc) {
  uint64_t h = FNV_BASIS;
  h = fnv(h, &sc->world_min, sizeof sc->world_min);
  h = fnv(h, &sc->world_max, sizeof sc->world_max);
  int counts[] = {sc->n_obstacles, sc->n_verts, sc->n_goals, sc->n_sets, sc->n_blocks, sc->n_exits,
                  sc->n_stages, sc->n_slots, sc->n_journeys, sc->n_sources, sc->n_lines, sc->map_every};
  h = fnv(h, counts, sizeof counts);
  if (sc->n_obstacles) h = fnv(h, sc->obs_vfirst, (size_t)(sc->n_obstacles + 1) * sizeof *sc->obs_vfirst);
  if (sc->n_verts) h = fnv(h, sc->verts, (size_t)sc->n_verts * sizeof *sc->verts);
  for (int g = 0; g < sc->n_goals; ++g) h = fnv(h, sc->goal_names[g], strlen(sc->goal_names[g]));
  if (sc->n_slots) h = fnv(h, sc->slots, (size_t)sc->n_slots * sizeof *sc->slots);
  h = fnv_polyset(h, &sc->walkable);
  h = fnv_polyset(h, &sc->exit_shapes);
  h = fnv_polyset(h, &sc->regions);
  h = fnv_polyset(h, &sc->areas);
  h = fnv(h, &sc->map_cell, sizeof sc->map_cell);
  h = fnv(h, &sc->route_cell, sizeof sc->route_cell);
  h = fnv(h, &sc->route_clearance, sizeof sc->route_clearance);
  float routing[] = {(float)sc->congestion_on, sc->congestion_every, sc->congestion_radius, sc->congestion_min_speed,
                     (float)sc->exit_choice, sc->queue_flow, sc->choice_hysteresis, sc->queue_relaxation,
                     sc->congestion_free_density, sc->queue_radius};
  h = fnv(h, routing, sizeof routing);
  if (sc->n_exits) h = fnv(h, sc->exit_width, (size_t)sc->n_exits * sizeof *sc->exit_width);
  return h;
}

/* The value of a thr_params key, as text that compares exactly. */
static int param_text(const thr_key *k, const thr_params *p, char *buf, size_t len) {
  /* another model's keys: not this run's (its member of the model union) */
  const thr_model_desc *owner = thr_model_owning(k->path);
  if (owner && owner->kind != p->model_kind) return 0;
  const char *at = (const char *)p + k->field.off;
  switch (k->field.ctype) {
  case THR_C_FLOAT: {
    float v;
    memcpy(&v, at, sizeof v);
    return snprintf(buf, len, "%.9g", (double)v) > 0;
  }
  case THR_C_INT: {
    int v;
    memcpy(&v, at, sizeof v);
    return snprintf(buf, len, "%d", v) > 0;
  }
  case THR_C_LONG: {
    long v;
    memcpy(&v, at, sizeof v);
    return snprintf(buf, len, "%ld", v) > 0;
  }
  case THR_C_VEC2: {
    thr_vec2 v;
    memcpy(&v, at, sizeof v);
    return snprintf(buf, len, "%.9g %.9g", (double)v.x, (double)v.y) > 0;
  }
  default:
    return 0;
  }
}

/* One FNV-1a hash per agent over its STATE fields, summed: the same sum
 * whatever order the rows are in and however they are split over ranks. */
static uint64_t agents_checksum(const thr_agents *a, size_t n) {
  uint64_t sum = 0;
  for (size_t i = 0; i < n; ++i) {
    uint64_t h = FNV_BASIS;
    for (int f = 0; f < THR_F_COUNT; ++f) {
      if (!thr_field_table[f].state) continue;
      size_t elem;
      const char *base = *thr_agents_field((thr_agents *)a, f, &elem);
      h = fnv(h, base + i * elem, elem);
    }
    sum += h;
  }
  return sum;
}

/* Per STATE field f, into sum[f]: the sum over agents of FNV-1a over (id,
 * the agent's value of f), the `checksum` of /agents/<f>. Like the agents'
 * checksum it does not depend on the rows' order or split over ranks; a
 * changed value, or a value moved to another agent, changes it, and it
 * names the dataset that changed. */
static void agent_field_checksums(const thr_agents *a, size_t n, uint64_t sum[THR_F_COUNT]) {
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (!thr_field_table[f].state) continue;
    size_t elem;
    const char *base = *thr_agents_field((thr_agents *)a, f, &elem);
    for (size_t i = 0; i < n; ++i) sum[f] += fnv(fnv(FNV_BASIS, &a->id[i], sizeof a->id[i]), base + i * elem, elem);
  }
}

#include "h5io.h"

/* ---- checksums of what the file holds (the writer reads its attributes back) ---- */

/* The root attributes, in this order, make up the root `checksum`: all of
 * them but `complete` (written after it, last) and `checksum` itself. */
static const struct {
  const char *name;
  char kind; /* 's' string, 'i' int64, 'f' double */
} root_attrs[] = {{"format", 's'},         {"version", 'i'},        {"throng_version", 's'},
                  {"build", 's'},          {"scenario", 's'},       {"scenario_file", 's'},
                  {"step", 'i'},           {"time", 'f'},           {"dt", 'f'},
                  {"seed", 'i'},           {"agents", 'i'},         {"agents_initial", 'i'},
                  {"agent_steps", 'f'},    {"ranks", 'i'},          {"backend", 's'},
                  {"fingerprint", 'i'},    {"agents_checksum", 'i'}, {"parameters_checksum", 'i'}};

/* Hash the name and value of attribute `name` of obj into *h (strings:
 * their bytes and a NUL; numbers: their 8 bytes). -1 when absent or of
 * another kind. */
static int hash_attr(hid_t obj, const char *name, char kind, uint64_t *h) {
  if (H5Aexists(obj, name) <= 0) return -1;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  if (a < 0) return -1;
  int rc = -1;
  if (kind == 's') {
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    char *v = NULL;
    if (H5Aread(a, t, &v) >= 0 && v) {
      *h = fnv(fnv(*h, name, strlen(name) + 1), v, strlen(v) + 1);
      rc = 0;
    }
    if (v) H5free_memory(v);
    H5Tclose(t);
  } else {
    unsigned char v[8];
    if (H5Aread(a, kind == 'f' ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64, v) >= 0) {
      *h = fnv(fnv(*h, name, strlen(name) + 1), v, sizeof v);
      rc = 0;
    }
  }
  H5Aclose(a);
  return rc;
}

/* The root attributes' checksum; -1 when one is missing or unreadable. */
static int root_checksum(hid_t file, uint64_t *sum) {
  uint64_t h = FNV_BASIS;
  for (size_t k = 0; k < sizeof root_attrs / sizeof root_attrs[0]; ++k)
    if (hash_attr(file, root_attrs[k].name, root_attrs[k].kind, &h)) return -1;
  *sum = h;
  return 0;
}

/* The checksum of /parameters: every parameter key of the schema that it
 * holds, in the schema's order (the root attribute parameters_checksum). */
static int parameters_checksum(hid_t file, uint64_t *sum) {
  hid_t g = H5Gopen2(file, "parameters", H5P_DEFAULT);
  if (g < 0) return -1;
  uint64_t h = FNV_BASIS;
  int rc = 0;
  for (size_t k = 0; k < thr_schema_len && !rc; ++k) {
    const thr_key *key = &thr_schema[k];
    if (key->field.at == THR_AT_PARAMS && H5Aexists(g, key->path) > 0) rc = hash_attr(g, key->path, 's', &h);
  }
  H5Gclose(g);
  *sum = h;
  return rc;
}

static hid_t scalar_type(char kind) {
  return kind == 'f' ? H5T_NATIVE_FLOAT : kind == 'i' ? H5T_NATIVE_INT32 : H5T_NATIVE_UINT32;
}
static hid_t file_type(char kind) {
  return kind == 'f' ? H5T_IEEE_F32LE : kind == 'i' ? H5T_STD_I32LE : H5T_STD_U32LE;
}

/* ---- writing ------------------------------------------------------------------------ */

/* The STATE fields of every agent, but those the run does not store
 * (absent: decision 0014, all blank), each with its `checksum`. The agents'
 * checksum covers every STATE field, blank ones included, as the reader
 * fills them in. */
static int write_agents(thr_h5 *h, const thr_agents *mine, thr_field_mask absent, uint64_t *checksum) {
  if (thr_h5_group(h, "agents")) return -1;
  uint64_t total = mine->n_owned, field_sum[THR_F_COUNT] = {0};
  if (h->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_UINT64_T, MPI_SUM, h->comm);
  agent_field_checksums(mine, mine->n_owned, field_sum);
  if (h->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, field_sum, THR_F_COUNT, MPI_UINT64_T, MPI_SUM, h->comm);
  hsize_t chunk = total < 1 ? 1 : total > (1 << 16) ? (1 << 16) : total; /* chunks are allocated whole */
  for (int f = 0; f < THR_F_COUNT; ++f) {
    const thr_field_info *fi = &thr_field_table[f];
    if (!fi->state || (absent & ((thr_field_mask)1 << f))) continue;
    char name[96];
    snprintf(name, sizeof name, "agents/%s", fi->name);
    int cols = fi->elem / 4 > 1 ? (int)(fi->elem / 4) : 0;
    hid_t d;
    if (thr_h5_table(h, name, file_type(fi->kind), cols, chunk, &d)) return -1;
    const void *data = *thr_agents_field((thr_agents *)mine, f, NULL);
    int rc = thr_h5_append(h, d, scalar_type(fi->kind), fi->elem, cols, mine->n_owned, data, NULL, NULL) ||
             thr_h5_attr_string(h, d, "description", fi->meaning) ||
             thr_h5_attr_i64(h, d, "checksum", (int64_t)field_sum[f]);
    thr_h5_close_dataset(&d);
    if (rc) return -1;
  }
  uint64_t sum = agents_checksum(mine, mine->n_owned);
  if (h->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_UINT64_T, MPI_SUM, h->comm);
  *checksum = sum;
  return 0;
}

static int write_parameters(thr_h5 *h, const thr_params *p) {
  if (thr_h5_group(h, "parameters")) return -1;
  hid_t g = h->writer ? H5Gopen2(h->file, "parameters", H5P_DEFAULT) : H5I_INVALID_HID;
  int rc = 0;
  for (size_t k = 0; k < thr_schema_len && !rc; ++k) {
    const thr_key *key = &thr_schema[k];
    char v[96];
    if (key->field.at != THR_AT_PARAMS || !param_text(key, p, v, sizeof v)) continue;
    rc = thr_h5_attr_string(h, g, key->path, v);
  }
  if (g >= 0) H5Gclose(g);
  return rc;
}

/* A checksum computed from the file being written (f reads attributes
 * back: every writing rank does, rank 0's result goes to every rank). */
static int written_checksum(thr_h5 *h, int (*f)(hid_t, uint64_t *), const char *what, uint64_t *sum) {
  *sum = 0;
  int rc = h->writer ? f(h->file, sum) : 0;
  if (rc) snprintf(h->err, h->errlen, "%s: cannot read back %s to checksum them", h->path, what);
  if (thr_h5_agree(h, rc)) return -1;
  if (h->nranks > 1) MPI_Bcast(sum, 1, MPI_UINT64_T, 0, h->comm);
  return 0;
}

/* /name: n bytes that rank 0 holds, with their `checksum` (FNV-1a 64 of
 * the bytes, the same on every rank). */
static int write_checked_bytes(thr_h5 *h, const char *name, const void *data, size_t n) {
  uint64_t sum = h->rank == 0 ? fnv(FNV_BASIS, data, n) : 0;
  if (h->nranks > 1) MPI_Bcast(&sum, 1, MPI_UINT64_T, 0, h->comm);
  if (thr_h5_bytes(h, name, data, n)) return -1;
  hid_t d = h->writer ? H5Dopen2(h->file, name, H5P_DEFAULT) : H5I_INVALID_HID;
  int rc = h->writer && d < 0 ? -1 : 0;
  if (rc) snprintf(h->err, h->errlen, "%s: cannot open %s to write its checksum", h->path, name);
  if (!thr_h5_agree(h, rc)) rc = thr_h5_attr_i64(h, d, "checksum", (int64_t)sum);
  if (d >= 0) H5Dclose(d);
  return rc ? -1 : 0;
}

/* The scenario file as it was when the run started (rank 0 reads it). */
static int write_scenario_text(thr_h5 *h, const thr_scenario *sc) {
  char *text = NULL;
  size_t n = 0;
  if (h->rank == 0) { /* gone or changed into a non-file since: the checkpoint stores none */
    char why[160];
    text = thr_input_read(sc->path, THR_INPUT_MAX_SCENARIO, &n, why, sizeof why);
    if (!text) n = 0;
  }
  int rc = write_checked_bytes(h, "scenario_text", text, n);
  free(text);
  return rc;
}

static int write_blob(thr_h5 *h, const char *name, thr_blob *b) {
  int rc = b->bad ? -1 : 0;
  if (rc) snprintf(h->err, h->errlen, "%s: out of memory packing %s", h->path, name);
  if (thr_h5_agree(h, rc)) return -1;
  return write_checked_bytes(h, name, b->data, b->n);
}

static int write_state(thr_h5 *h, thr_sim *s, thr_measure *m, const thr_evac_output *ev) {
  if (thr_h5_group(h, "state")) return -1;
  thr_blob b;
  thr_blob_init(&b);
  if (s->evac && s->rank == 0) thr_evac_pack(s->evac, &b);
  int rc = write_blob(h, "state/evacuation", &b);
  thr_blob_free(&b);
  if (rc) return -1;
  thr_blob_init(&b);
  if (s->rank == 0) thr_formations_pack(s->forms, &b);
  rc = write_blob(h, "state/formations", &b);
  thr_blob_free(&b);
  if (rc) return -1;
  thr_blob_init(&b);
  rc = thr_measure_pack(m, s, &b);
  if (rc) snprintf(h->err, h->errlen, "%s: out of memory packing the measurement sums", h->path);
  if (!thr_h5_agree(h, rc)) rc = write_blob(h, "state/measurement", &b);
  thr_blob_free(&b);
  if (rc) return -1;
  thr_blob_init(&b);
  if (ev && s->rank == 0) thr_evac_output_pack(ev, &b);
  rc = write_blob(h, "state/outputs", &b);
  thr_blob_free(&b);
  if (rc) return -1;
  thr_blob_init(&b);
  rc = s->rank == 0 && thr_routing_pack(&s->routing, s->be, &b) ? -1 : 0;
  if (rc) snprintf(h->err, h->errlen, "%s: out of memory packing the routing state", h->path);
  rc = thr_h5_agree(h, rc) ? -1 : write_blob(h, "state/routing", &b);
  thr_blob_free(&b);
  return rc;
}

int thr_checkpoint_write(const char *path, thr_sim *s, const thr_scenario *sc, thr_measure *m,
                         const thr_evac_output *ev, char *err, size_t errlen) {
  thr_agents mine;
  thr_agents_init(&mine);
  int rc = s->be->ops->get_agents(s->be, &mine);
  if (rc) snprintf(err, errlen, "%s: out of memory copying %zu agents from the backend", path, mine.n_owned);
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, s->comm);
  thr_h5 h;
  if (rc || thr_h5_create(&h, s->comm, path, 0, err, errlen)) {
    thr_agents_free(&mine);
    return -1;
  }
  uint64_t checksum = 0, params_sum = 0, root_sum = 0;
  rc = write_agents(&h, &mine, thr_fields_absent(&sc->prm), &checksum);
  thr_agents_free(&mine);
  const char *build = THRONG_BUILD_TYPE " " THRONG_C_COMPILER " cuda:" THRONG_FEATURE_CUDA
                      " strict-fp:" THRONG_FEATURE_STRICT_FP;
  rc = rc || write_parameters(&h, &sc->prm) || written_checksum(&h, parameters_checksum, "/parameters", &params_sum) ||
       write_state(&h, s, m, ev) || write_scenario_text(&h, sc) ||
       thr_h5_attr_string(&h, 0, "format", CHECKPOINT_FORMAT) ||
       thr_h5_attr_i64(&h, 0, "version", CHECKPOINT_VERSION) ||
       thr_h5_attr_string(&h, 0, "throng_version", THRONG_VERSION) || thr_h5_attr_string(&h, 0, "build", build) ||
       thr_h5_attr_string(&h, 0, "scenario", sc->name) || thr_h5_attr_string(&h, 0, "scenario_file", sc->path) ||
       thr_h5_attr_i64(&h, 0, "step", s->step) ||
       thr_h5_attr_f64(&h, 0, "time", (double)s->step * (double)s->prm.dt) ||
       thr_h5_attr_f64(&h, 0, "dt", (double)sc->prm.dt) || thr_h5_attr_i64(&h, 0, "seed", (int64_t)s->seed) ||
       thr_h5_attr_i64(&h, 0, "agents", s->n_global) || thr_h5_attr_i64(&h, 0, "agents_initial", s->n_initial) ||
       thr_h5_attr_f64(&h, 0, "agent_steps", s->agent_steps) || thr_h5_attr_i64(&h, 0, "ranks", s->nranks) ||
       thr_h5_attr_string(&h, 0, "backend", s->be->ops->name) ||
       thr_h5_attr_i64(&h, 0, "fingerprint", (int64_t)scenario_fingerprint(sc)) ||
       thr_h5_attr_i64(&h, 0, "agents_checksum", (int64_t)checksum) ||
       thr_h5_attr_i64(&h, 0, "parameters_checksum", (int64_t)params_sum) ||
       written_checksum(&h, root_checksum, "the root attributes", &root_sum) ||
       thr_h5_attr_i64(&h, 0, "checksum", (int64_t)root_sum) ||
       /* last: a file without it was cut short */
       thr_h5_attr_i64(&h, 0, "complete", 1);
  if (rc) {
    thr_h5_discard(&h);
    return -1;
  }
  return thr_h5_commit(&h);
}

/* ---- reading -------------------------------------------------------------------------- */

struct thr_checkpoint {
  hid_t file;
  char path[THR_PATH_MAX];
  MPI_Comm comm;
  int rank;
  long step, agents;
  double agent_steps;
  uint64_t checksum;
  thr_field_mask absent; /* fields the run does not store (may be missing from the file) */
  const thr_scenario *sc;
  int version;                         /* CHECKPOINT_VERSION, or _UNCHECKED: no checksums but the agents' */
  uint64_t field_sum[THR_F_COUNT];     /* /agents/<f>'s checksum attribute */
  unsigned char field_has[THR_F_COUNT]; /* ... when the file holds the field and has one */
};

/* A numeric attribute as `type` into v; -1 when absent or unreadable. */
static int read_attr(hid_t obj, const char *name, hid_t type, void *v) {
  if (H5Aexists(obj, name) <= 0) return -1;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  int rc = a >= 0 && H5Aread(a, type, v) >= 0 ? 0 : -1;
  if (a >= 0) H5Aclose(a);
  return rc;
}
static int read_attr_i64(hid_t obj, const char *name, int64_t *v) { return read_attr(obj, name, H5T_NATIVE_INT64, v); }
static int read_attr_f64(hid_t obj, const char *name, double *v) { return read_attr(obj, name, H5T_NATIVE_DOUBLE, v); }

/* A string attribute (variable length) into buf; -1 when absent. */
static int read_attr_string(hid_t obj, const char *name, char *buf, size_t len) {
  buf[0] = '\0';
  if (H5Aexists(obj, name) <= 0) return -1;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  char *s = NULL;
  int rc = a >= 0 && H5Aread(a, t, &s) >= 0 && s ? 0 : -1;
  if (!rc) snprintf(buf, len, "%s", s);
  if (s) H5free_memory(s);
  H5Tclose(t);
  if (a >= 0) H5Aclose(a);
  return rc;
}

/* "PATH: a damaged checkpoint: WHAT does not match its checksum". */
static int refuse_checksum(const thr_checkpoint *c, const char *what, char *err, size_t errlen) {
  snprintf(err, errlen,
           "%s: a damaged checkpoint: %s does not match its checksum (the file was changed after it was written); "
           "restart from an earlier checkpoint",
           c->path, what);
  return -1;
}

/* The bytes of /name into b (every rank reads), checked against the
 * dataset's `checksum` (version 3). */
static int read_blob(thr_checkpoint *c, const char *name, thr_blob *b, char *err, size_t errlen) {
  thr_blob_init(b);
  hid_t d = H5Dopen2(c->file, name, H5P_DEFAULT);
  hsize_t n = 0;
  int rc = d < 0 ? -1 : 0;
  if (!rc) {
    hid_t s = H5Dget_space(d);
    rc = H5Sget_simple_extent_ndims(s) == 1 && H5Sget_simple_extent_dims(s, &n, NULL) == 1 ? 0 : -1;
    H5Sclose(s);
  }
  if (!rc) {
    b->data = malloc((size_t)n + 1);
    b->n = b->cap = b->data ? (size_t)n : 0;
    rc = !b->data || H5Dread(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, b->data) < 0 ? -1 : 0;
  }
  int64_t want = 0;
  int unsummed = !rc && c->version == CHECKPOINT_VERSION && read_attr_i64(d, "checksum", &want);
  if (d >= 0) H5Dclose(d);
  if (rc || unsummed) {
    snprintf(err, errlen, "%s: a damaged checkpoint: cannot read %s%s", c->path, name,
             unsummed ? "'s checksum" : " (missing, or not a dataset of bytes)");
    return -1;
  }
  if (c->version == CHECKPOINT_VERSION && fnv(FNV_BASIS, b->data, b->n) != (uint64_t)want)
    return refuse_checksum(c, name, err, errlen);
  return 0;
}

/* Datasets of bytes: the scenario text and the packed host state. */
static const char *const byte_datasets[] = {"scenario_text",   "state/evacuation", "state/formations",
                                            "state/measurement", "state/outputs",  "state/routing"};

/* Version 3: the root attributes, /parameters and every dataset of bytes
 * against their checksums, and each agent field's checksum kept for
 * fill_agents, which checks the rows as it reads them. */
static int verify_checksums(thr_checkpoint *c, char *err, size_t errlen) {
  int64_t want;
  uint64_t sum;
  if (read_attr_i64(c->file, "checksum", &want) || root_checksum(c->file, &sum)) {
    snprintf(err, errlen, "%s: a damaged checkpoint: root attributes or their checksum missing or unreadable",
             c->path);
    return -1;
  }
  if (sum != (uint64_t)want)
    return refuse_checksum(c, "its root attributes (step, time, dt, seed, agents, fingerprint, ...)", err, errlen);
  if (read_attr_i64(c->file, "parameters_checksum", &want) || parameters_checksum(c->file, &sum) ||
      sum != (uint64_t)want)
    return refuse_checksum(c, "/parameters", err, errlen);
  for (size_t k = 0; k < sizeof byte_datasets / sizeof byte_datasets[0]; ++k) {
    thr_blob b;
    int rc = read_blob(c, byte_datasets[k], &b, err, errlen);
    thr_blob_free(&b);
    if (rc) return -1;
  }
  for (int f = 0; f < THR_F_COUNT; ++f) {
    char name[96];
    snprintf(name, sizeof name, "agents/%s", thr_field_table[f].name);
    if (!thr_field_table[f].state || H5Lexists(c->file, name, H5P_DEFAULT) <= 0) continue;
    hid_t d = H5Dopen2(c->file, name, H5P_DEFAULT);
    int rc = d < 0 || read_attr_i64(d, "checksum", &want) ? -1 : 0;
    if (d >= 0) H5Dclose(d);
    if (rc) {
      snprintf(err, errlen, "%s: a damaged checkpoint: cannot read %s's checksum", c->path, name);
      return -1;
    }
    c->field_sum[f] = (uint64_t)want;
    c->field_has[f] = 1;
  }
  return 0;
}

/* Does the checkpoint fit sc? 0, or -1 with what differs in err. */
static int check_fits(thr_checkpoint *c, const thr_scenario *sc, char *err, size_t errlen) {
  hid_t f = c->file;
  char text[1200], was[128] = "?", was_file[1024] = "?";
  int64_t v;
  if (read_attr_string(f, "format", text, sizeof text) || strcmp(text, CHECKPOINT_FORMAT)) {
    snprintf(err, errlen, "%s: not a throng checkpoint (an HDF5 file without format = \"%s\")", c->path,
             CHECKPOINT_FORMAT);
    return -1;
  }
  if (read_attr_i64(f, "complete", &v) || v != 1) {
    snprintf(err, errlen, "%s: an incomplete checkpoint (its writer stopped before the end); use an earlier one",
             c->path);
    return -1;
  }
  v = -1;
  if (read_attr_i64(f, "version", &v) || (v != CHECKPOINT_VERSION && v != CHECKPOINT_VERSION_UNCHECKED)) {
    snprintf(err, errlen, "%s: checkpoint format version %lld; this throng reads versions %d and %d", c->path,
             (long long)v, CHECKPOINT_VERSION_UNCHECKED, CHECKPOINT_VERSION);
    return -1;
  }
  c->version = (int)v;
  /* before anything in the file is believed: every checksum */
  if (c->version == CHECKPOINT_VERSION && verify_checksums(c, err, errlen)) return -1;
  if (read_attr_string(f, "throng_version", text, sizeof text) || strcmp(text, THRONG_VERSION)) {
    /* the packed host state is memory as this version lays it out */
    snprintf(err, errlen, "%s: written by throng %s; this is throng %s, which restarts only from its own checkpoints",
             c->path, text[0] ? text : "?", THRONG_VERSION);
    return -1;
  }
  read_attr_string(f, "scenario", was, sizeof was);
  read_attr_string(f, "scenario_file", was_file, sizeof was_file);
  double dt;
  if (read_attr_f64(f, "dt", &dt)) goto damaged;
  if (dt != (double)sc->prm.dt) {
    snprintf(err, errlen,
             "%s: written with time.dt = %.9g s, but %s has time.dt = %.9g s; a restart must keep the time step "
             "(the run would not continue as it began)",
             c->path, dt, sc->path, (double)sc->prm.dt);
    return -1;
  }
  int64_t fp;
  if (read_attr_i64(f, "fingerprint", &fp)) goto damaged;
  if ((uint64_t)fp != scenario_fingerprint(sc)) {
    snprintf(err, errlen,
             "%s: a checkpoint of scenario '%s' (%s), whose geometry, agents, exits or journeys differ from %s's; "
             "restart with the scenario it was written for",
             c->path, was, was_file, sc->path);
    return -1;
  }
  if (read_attr_i64(f, "seed", &v)) goto damaged;
  if ((uint64_t)v != sc->seed) {
    snprintf(err, errlen, "%s: written with seed %llu, but %s has seed %llu", c->path, (unsigned long long)v,
             sc->path, (unsigned long long)sc->seed);
    return -1;
  }
  hid_t g = H5Gopen2(f, "parameters", H5P_DEFAULT);
  if (g < 0) goto damaged;
  for (size_t k = 0; k < thr_schema_len; ++k) {
    const thr_key *key = &thr_schema[k];
    char now[96];
    if (key->field.at != THR_AT_PARAMS || !param_text(key, &sc->prm, now, sizeof now)) continue;
    if (read_attr_string(g, key->path, text, sizeof text)) {
      snprintf(err, errlen, "%s: written by a throng without the key %s (%s); restart with that throng", c->path,
               key->path, text);
      H5Gclose(g);
      return -1;
    }
    if (strcmp(text, now)) {
      snprintf(err, errlen, "%s: written with %s = %s, but %s has %s = %s; a restart must keep the model's parameters",
               c->path, key->path, text, sc->path, key->path, now);
      H5Gclose(g);
      return -1;
    }
  }
  H5Gclose(g);
  double steps;
  int64_t agents, checksum;
  if (read_attr_i64(f, "step", &v) || read_attr_i64(f, "agents", &agents) ||
      read_attr_f64(f, "agent_steps", &steps) || read_attr_i64(f, "agents_checksum", &checksum))
    goto damaged;
  c->step = (long)v;
  c->agents = (long)agents;
  c->agent_steps = steps;
  c->checksum = (uint64_t)checksum;
  return 0;
damaged:
  snprintf(err, errlen, "%s: a damaged checkpoint (attributes missing or unreadable)", c->path);
  return -1;
}

/* Does the file hold /agents/<field f>? */
static int has_field(hid_t file, int f) {
  char name[96];
  snprintf(name, sizeof name, "agents/%s", thr_field_table[f].name);
  return H5Lexists(file, name, H5P_DEFAULT) > 0;
}

/* Every STATE field the run stores is in the file. */
static int check_agent_fields(const thr_checkpoint *c, char *err, size_t errlen) {
  for (int f = 0; f < THR_F_COUNT; ++f)
    if (thr_field_table[f].state && !(c->absent & ((thr_field_mask)1 << f)) && !has_field(c->file, f)) {
      snprintf(err, errlen, "%s: a damaged checkpoint: agents/%s is missing", c->path, thr_field_table[f].name);
      return -1;
    }
  return 0;
}

int thr_checkpoint_open(thr_checkpoint **out, const char *path, const thr_scenario *sc, MPI_Comm comm, char *err,
                        size_t errlen) {
  *out = NULL;
  thr_checkpoint *c = calloc(1, sizeof *c);
  int rc = c ? 0 : -2;
  if (rc) snprintf(err, errlen, "out of memory opening %s", path);
  if (c) {
    c->comm = comm;
    MPI_Comm_rank(comm, &c->rank);
    snprintf(c->path, sizeof c->path, "%s", path);
    c->sc = sc;
    c->absent = thr_fields_absent(&sc->prm);
    thr_h5_quiet();
    c->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (c->file < 0) {
      struct stat st;
      H5Eclear2(H5E_DEFAULT);
      if (stat(path, &st))
        snprintf(err, errlen, "%s: cannot read it: %s", path, strerror(errno));
      else
        snprintf(err, errlen, "%s: not a readable HDF5 file (truncated, damaged or of another kind), so no checkpoint",
                 path);
      rc = -1;
    }
    if (!rc) rc = check_fits(c, sc, err, errlen);
    if (!rc) rc = check_agent_fields(c, err, errlen);
  }
  /* every rank reads the same file and so decides the same; the lowest
   * failing rank's message is the one said */
  int who = rc ? c ? c->rank : 0 : 1 << 30;
  MPI_Allreduce(MPI_IN_PLACE, &who, 1, MPI_INT, MPI_MIN, comm);
  if (who != 1 << 30) {
    MPI_Bcast(&rc, 1, MPI_INT, who, comm);
    MPI_Bcast(err, (int)errlen, MPI_CHAR, who, comm);
    thr_checkpoint_close(c);
    return rc ? rc : -1;
  }
  if (c->version == CHECKPOINT_VERSION_UNCHECKED && c->rank == 0)
    fprintf(stderr,
            "throng: warning: %s is a checkpoint of format version %d, which has no checksum but the agents': its "
            "host state, parameters and attributes are only checked for range, not for changes since it was "
            "written\n",
            c->path, CHECKPOINT_VERSION_UNCHECKED);
  *out = c;
  return 0;
}

long thr_checkpoint_step(const thr_checkpoint *c) { return c->step; }

/* Rows [at, at + n) of /agents/<field f> into a's field array. */
static int read_field_rows(hid_t file, int f, hsize_t at, hsize_t n, thr_agents *a) {
  const thr_field_info *fi = &thr_field_table[f];
  char name[96];
  snprintf(name, sizeof name, "agents/%s", fi->name);
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  if (d < 0) return -1;
  int cols = (int)(fi->elem / 4);
  int rank = cols > 1 ? 2 : 1;
  hsize_t start[2] = {at, 0}, count[2] = {n, (hsize_t)cols}, dims[2] = {0, 0};
  hid_t fs = H5Dget_space(d);
  int ok = H5Sget_simple_extent_ndims(fs) == rank && H5Sget_simple_extent_dims(fs, dims, NULL) >= 0 &&
           dims[0] >= at + n && (rank == 1 || dims[1] == (hsize_t)cols);
  if (ok) {
    hid_t ms = H5Screate_simple(rank, count, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    ok = H5Dread(d, scalar_type(fi->kind), ms, fs, H5P_DEFAULT, *thr_agents_field(a, f, NULL)) >= 0;
    H5Sclose(ms);
  }
  H5Sclose(fs);
  H5Dclose(d);
  return ok ? 0 : -1;
}

/* The index fields of rows [0, n) of a against the scenario: what the
 * stage model, the formations and the kernels index arrays with. 0, or -1
 * with the first row out of range in why (only the checksums stand before
 * a changed value otherwise: a version-2 file, or one whose checksums were
 * recomputed after the change). */
static int agent_indices_fit(const thr_checkpoint *c, const thr_agents *a, size_t n, char *why, size_t len) {
  const thr_scenario *sc = c->sc;
  int bstates = sc->prm.model_kind == THR_MODEL_ORCA && sc->prm.orca.n_bstates > 1 ? sc->prm.orca.n_bstates : 1;
  const struct {
    int f;
    const int32_t *v;
    int lo, hi; /* [lo, hi) */
    const char *of;
  } idx[] = {{THR_F_JOURNEY, a->journey, -1, sc->n_journeys, "journeys"},
             {THR_F_STAGE, a->stage, -1, sc->n_stages, "stages"},
             {THR_F_SLOT, a->slot, THR_SLOT_HOLD, sc->n_slots, "slots"},
             {THR_F_GOAL_SET, a->goal_set, THR_GOALSET_NONE, sc->n_sets, "goal sets"},
             {THR_F_FORMATION, a->formation, -1, sc->n_formations, "formations"},
             {THR_F_ROUTE, a->route, -1, THR_MAX_FIELDS, "distance fields at most"},
             {THR_F_BSTATE, a->bstate, 0, bstates, "behaviour states"}};
  for (size_t k = 0; k < sizeof idx / sizeof idx[0]; ++k) {
    if (c->absent & ((thr_field_mask)1 << idx[k].f)) continue; /* blank */
    for (size_t i = 0; i < n; ++i)
      if (idx[k].v[i] < idx[k].lo || idx[k].v[i] >= idx[k].hi) {
        snprintf(why, len, "agents/%s: agent %u has %d; the scenario has %d %s", thr_field_table[idx[k].f].name,
                 a->id[i], (int)idx[k].v[i], idx[k].hi, idx[k].of);
        return -1;
      }
  }
  /* 004's reaction per agent (-1: the formations' setting): the ghost layer
   * is as wide as the largest look-ahead a block gives (thr_world_init), so
   * an agent may look no further */
  int rings = -1;
  for (int b = 0; b < sc->n_blocks; ++b)
    if (sc->blocks[b].fm_rings > rings) rings = sc->blocks[b].fm_rings;
  for (size_t i = 0; !(c->absent & ((thr_field_mask)1 << THR_F_FRINGS)) && i < n; ++i) {
    if (a->frings[i] < -1 || a->frings[i] > rings) {
      snprintf(why, len, "agents/frings: agent %u has %d; the scenario's agents[].lookahead_rings reach %d "
               "(-1: the formations' setting)", a->id[i], (int)a->frings[i], rings);
      return -1;
    }
    if (a->fdelay[i] < -1) {
      snprintf(why, len, "agents/fdelay: agent %u has %d; a restore delay is -1 (the formations' setting) or "
               "0 and more steps", a->id[i], (int)a->fdelay[i]);
      return -1;
    }
  }
  return 0;
}

static int fill_agents(void *user, thr_keep_fn keep, void *k, thr_agents *owned, char *err, size_t errlen) {
  thr_checkpoint *c = user;
  const hsize_t block = 1 << 18;
  thr_agents buf;
  thr_agents_init(&buf);
  uint64_t sum = 0, field_sum[THR_F_COUNT] = {0};
  char bad_index[600] = ""; /* said after the checksums: a changed row is a damaged file first */
  hsize_t total = (hsize_t)c->agents;
  int rc = thr_agents_reserve(&buf, (size_t)(total < block ? total : block) + 1) ? -2 : 0;
  if (rc) snprintf(err, errlen, "out of memory reading %s", c->path);
  for (hsize_t at = 0; at < total && !rc; at += block) {
    hsize_t n = total - at < block ? total - at : block;
    for (int f = 0; f < THR_F_COUNT && !rc; ++f) {
      if (!thr_field_table[f].state) continue;
      if ((c->absent & ((thr_field_mask)1 << f)) && !has_field(c->file, f)) {
        thr_field_fill_blank(*thr_agents_field(&buf, f, NULL), f, 0, (size_t)n); /* not written: blank */
        continue;
      }
      if (read_field_rows(c->file, f, at, n, &buf)) {
        char why[400];
        thr_h5_reason(why, sizeof why);
        snprintf(err, errlen, "%s: a damaged checkpoint: cannot read agents/%s rows %llu-%llu (%s)", c->path,
                 thr_field_table[f].name, (unsigned long long)at, (unsigned long long)(at + n), why);
        rc = -1;
      }
    }
    if (rc) break;
    sum += agents_checksum(&buf, (size_t)n);
    agent_field_checksums(&buf, (size_t)n, field_sum);
    if (!bad_index[0]) agent_indices_fit(c, &buf, (size_t)n, bad_index, sizeof bad_index);
    for (size_t i = 0; i < (size_t)n; ++i) {
      if (!keep(buf.id[i], buf.x[i], k)) continue;
      if (owned->n == owned->cap && thr_agents_reserve(owned, owned->cap ? 2 * owned->cap : 1024)) {
        snprintf(err, errlen, "out of memory reading %s", c->path);
        rc = -2;
        break;
      }
      thr_agent_rec r;
      thr_agent_load(&buf, i, &r);
      thr_agent_store(owned, owned->n++, &r);
    }
  }
  owned->n_owned = owned->n;
  thr_agents_free(&buf);
  /* the ids first: every field's checksum pairs its values with them */
  for (int g = 0; g <= THR_F_COUNT && !rc; ++g) {
    int f = g == 0 ? THR_F_ID : g - 1;
    if (c->field_has[f] && field_sum[f] != c->field_sum[f]) {
      snprintf(err, errlen,
               "%s: a damaged checkpoint: agents/%s does not match its checksum (the agents' checksum does not "
               "match the one written: the file was changed after it was written)",
               c->path, thr_field_table[f].name);
      rc = -1;
    }
  }
  if (!rc && sum != c->checksum) {
    snprintf(err, errlen,
             "%s: a damaged checkpoint: the agents' checksum does not match the one written (the file was changed "
             "after it was written)",
             c->path);
    rc = -1;
  }
  if (!rc && bad_index[0]) {
    snprintf(err, errlen, "%s: a damaged checkpoint: %s", c->path, bad_index);
    rc = -1;
  }
  return rc;
}

thr_agent_source thr_checkpoint_agents(thr_checkpoint *c) {
  thr_agent_source src = {fill_agents, c, c->agents};
  return src;
}

/* "PATH: a damaged checkpoint: NAME: why" (why: what an unpack found). */
static int refuse_state(const thr_checkpoint *c, const char *name, const char *why, char *err, size_t errlen) {
  snprintf(err, errlen, "%s: a damaged checkpoint: %s: %s", c->path, name, why);
  return -1;
}

/* "N bytes, but the scenario has no NONE" into why when b holds any. */
static int expect_empty(const thr_blob *b, const char *none, char *why, size_t len) {
  if (!b->n) return 0;
  snprintf(why, len, "%zu bytes, but the scenario has no %s", b->n, none);
  return -1;
}

/* The measurement sums and the evacuation outputs' counts go into the
 * outputs of the restarted run (thr_checkpoint_restore_outputs, once they
 * are open); they are unpacked here once more, into scratch copies, so
 * that bytes that do not fit are refused before the run writes anything. */
static int check_output_state(thr_checkpoint *c, thr_sim *s, char *err, size_t errlen) {
  char why[1024] = "";
  thr_blob b;
  int rc = read_blob(c, "state/measurement", &b, err, errlen);
  if (!rc) {
    thr_measure *m = NULL;
    if (thr_measure_create(&m, s, why, sizeof why)) {
      snprintf(err, errlen, "%s", why);
      rc = -2;
    } else if (m ? thr_measure_unpack(m, s, &b, why, sizeof why)
                 : expect_empty(&b, "measurement areas, lines or maps", why, sizeof why)) {
      rc = refuse_state(c, "state/measurement", why, err, errlen);
    }
    thr_measure_free(m);
  }
  thr_blob_free(&b);
  if (rc) return rc;
  rc = read_blob(c, "state/outputs", &b, err, errlen);
  if (!rc && thr_evac_output_wanted(c->sc)) {
    thr_evac_output o;
    memset(&o, 0, sizeof o);
    o.sc = c->sc;
    o.exit_count = calloc((size_t)c->sc->n_exits + 1, sizeof *o.exit_count);
    o.last_crossings = calloc((size_t)c->sc->n_lines + 1, sizeof *o.last_crossings);
    if (!o.exit_count || !o.last_crossings) {
      snprintf(err, errlen, "out of memory reading %s", c->path);
      rc = -2;
    } else if (thr_evac_output_unpack(&o, &b, why, sizeof why)) {
      rc = refuse_state(c, "state/outputs", why, err, errlen);
    }
    free(o.exit_count);
    free(o.last_crossings);
    free(o.out_time);
  } else if (!rc && expect_empty(&b, "exits, measurement areas, lines or maps", why, sizeof why)) {
    rc = refuse_state(c, "state/outputs", why, err, errlen);
  }
  thr_blob_free(&b);
  return rc;
}

int thr_checkpoint_restore_sim(thr_checkpoint *c, thr_sim *s, char *err, size_t errlen) {
  s->step = c->step;
  s->agent_steps = c->agent_steps;
  char why[1024] = "";
  thr_blob b;
  int rc = read_blob(c, "state/evacuation", &b, err, errlen);
  if (!rc && (s->evac ? thr_evac_unpack(s->evac, &b, why, sizeof why)
                      : expect_empty(&b, "exits, stages or sources", why, sizeof why)))
    rc = refuse_state(c, "state/evacuation", why, err, errlen);
  thr_blob_free(&b);
  if (rc) return -1;
  rc = read_blob(c, "state/formations", &b, err, errlen);
  if (!rc && thr_formations_unpack(s->forms, &b, why, sizeof why)) /* forms NULL: a count of 0 */
    rc = refuse_state(c, "state/formations", why, err, errlen);
  thr_blob_free(&b);
  if (rc) return -1;
  rc = read_blob(c, "state/routing", &b, err, errlen);
  if (!rc && (s->routing.n_dynamic ? thr_routing_unpack(&s->routing, s->be, &b, why, sizeof why)
                                   : expect_empty(&b, "routing recomputed as the crowd moves", why, sizeof why)))
    rc = refuse_state(c, "state/routing", why, err, errlen);
  thr_blob_free(&b);
  if (rc) return -1;
  return check_output_state(c, s, err, errlen) ? -1 : 0;
}

int thr_checkpoint_restore_outputs(thr_checkpoint *c, thr_sim *s, thr_measure *m, thr_evac_output *ev, char *err,
                                   size_t errlen) {
  char why[1024] = "";
  thr_blob b;
  int rc = read_blob(c, "state/measurement", &b, err, errlen);
  if (!rc && thr_measure_unpack(m, s, &b, why, sizeof why)) rc = refuse_state(c, "state/measurement", why, err, errlen);
  thr_blob_free(&b);
  if (rc) return -1;
  if (ev) {
    rc = read_blob(c, "state/outputs", &b, err, errlen);
    if (!rc && thr_evac_output_unpack(ev, &b, why, sizeof why)) rc = refuse_state(c, "state/outputs", why, err, errlen);
    thr_blob_free(&b);
  }
  return rc;
}

void thr_checkpoint_close(thr_checkpoint *c) {
  if (!c) return;
  if (c->file >= 0) H5Fclose(c->file);
  free(c);
}

#else /* no HDF5 */

struct thr_checkpoint {
  int unused;
};

static const char no_hdf5[] =
    "this throng was built without HDF5 (THRONG_HDF5), which checkpoints need; install libhdf5-openmpi-dev and "
    "rebuild";

int thr_checkpoint_write(const char *path, thr_sim *s, const thr_scenario *sc, thr_measure *m,
                         const thr_evac_output *ev, char *err, size_t errlen) {
  (void)s, (void)sc, (void)m, (void)ev;
  snprintf(err, errlen, "%.900s: %s", path, no_hdf5);
  return -1;
}

int thr_checkpoint_open(thr_checkpoint **c, const char *path, const thr_scenario *sc, MPI_Comm comm, char *err,
                        size_t errlen) {
  (void)sc, (void)comm;
  *c = NULL;
  snprintf(err, errlen, "%.900s: %s", path, no_hdf5);
  return -1;
}

long thr_checkpoint_step(const thr_checkpoint *c) {
  (void)c;
  return 0;
}

thr_agent_source thr_checkpoint_agents(thr_checkpoint *c) {
  thr_agent_source src = {NULL, c, 0};
  return src;
}

int thr_checkpoint_restore_sim(thr_checkpoint *c, thr_sim *s, char *err, size_t errlen) {
  (void)c, (void)s, (void)err, (void)errlen;
  return -1;
}

int thr_checkpoint_restore_outputs(thr_checkpoint *c, thr_sim *s, thr_measure *m, thr_evac_output *ev, char *err,
                                   size_t errlen) {
  (void)c, (void)s, (void)m, (void)ev, (void)err, (void)errlen;
  return -1;
}

void thr_checkpoint_close(thr_checkpoint *c) { (void)c; }

#endif
