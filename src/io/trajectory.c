#define _POSIX_C_SOURCE 200809L
#include "trajectory.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "base/floors.h"
#include "build_info.h"
#include "output.h"

/* Rows of /trajectory as the archive defines them. */
typedef struct traj_row {
  uint32_t frame, id;
  double x, y, z;
} traj_row;

#ifdef THRONG_HAVE_HDF5

#include "h5io.h"

/* Where agent i of a is, as the outputs say it: in a building, in its
 * floor's own coordinates at its elevation (*z); a 3D agent at its
 * altitude; else at z = 0. */
static thr_vec2 output_place(const thr_scenario *building, int dim3, const thr_agents *a, size_t i, float *z) {
  if (building) return thr_building_point(building, a->x[i], z);
  *z = dim3 ? a->z[i] : 0.0f;
  return a->x[i];
}

enum { TABLE_TRAJ, TABLE_POINTS, TABLE_VELOCITY, TABLE_RADIUS, TABLE_GROUP, TABLE_STATE, TABLE_STAGE, TABLE_FRAMES, N_TABLES };

typedef struct frame_row {
  uint32_t frame;
  int64_t step;
  double time;
  uint64_t first, rows;
} frame_row;

struct thr_trajectory {
  thr_h5 h;
  char dir[THR_PATH_MAX];
  thr_trajectory_info info;
  hid_t d[N_TABLES];   /* the frames on the trajectory_every clock */
  hid_t fin[N_TABLES]; /* /final: the last step off that clock (TABLE_TRAJ is /final/id; no TABLE_FRAMES) */
  frame_row final_row; /* rows: 0 and no grid when none */
  int has_final;
  hid_t row_file, row_mem, frame_file, frame_mem;
  frame_row *frames; /* rank 0 */
  size_t n_frames, cap;
  traj_row *rows;    /* scratch, this rank's agents */
  float *vec;
  size_t scratch;
  int created; /* the tables exist (made at the first frame, sized by it) */
  hsize_t chunk_rows;
  int failed;  /* a frame failed: the tables end with a part of it */
  uint64_t good_rows; /* rows of the frames that were written whole */
  uint64_t good_frames;
};

int thr_trajectory_available(void) { return 1; }

static hid_t row_type(int file) {
  hid_t t = H5Tcreate(H5T_COMPOUND, file ? 32 : sizeof(traj_row));
  H5Tinsert(t, "frame", file ? 0 : offsetof(traj_row, frame), file ? H5T_STD_U32LE : H5T_NATIVE_UINT32);
  H5Tinsert(t, "id", file ? 4 : offsetof(traj_row, id), file ? H5T_STD_U32LE : H5T_NATIVE_UINT32);
  H5Tinsert(t, "x", file ? 8 : offsetof(traj_row, x), file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE);
  H5Tinsert(t, "y", file ? 16 : offsetof(traj_row, y), file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE);
  H5Tinsert(t, "z", file ? 24 : offsetof(traj_row, z), file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE);
  return t;
}

static hid_t frame_type(int file) {
  hid_t t = H5Tcreate(H5T_COMPOUND, file ? 36 : sizeof(frame_row));
  H5Tinsert(t, "frame", file ? 0 : offsetof(frame_row, frame), file ? H5T_STD_U32LE : H5T_NATIVE_UINT32);
  H5Tinsert(t, "step", file ? 4 : offsetof(frame_row, step), file ? H5T_STD_I64LE : H5T_NATIVE_INT64);
  H5Tinsert(t, "time", file ? 12 : offsetof(frame_row, time), file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE);
  H5Tinsert(t, "first_row", file ? 20 : offsetof(frame_row, first), file ? H5T_STD_U64LE : H5T_NATIVE_UINT64);
  H5Tinsert(t, "rows", file ? 28 : offsetof(frame_row, rows), file ? H5T_STD_U64LE : H5T_NATIVE_UINT64);
  return t;
}

static void close_tables(thr_trajectory *t) {
  for (int k = 0; k < N_TABLES; ++k) {
    thr_h5_close_dataset(&t->d[k]);
    thr_h5_close_dataset(&t->fin[k]);
  }
}

static void release(thr_trajectory *t) {
  close_tables(t);
  H5Tclose(t->row_file);
  H5Tclose(t->row_mem);
  H5Tclose(t->frame_file);
  H5Tclose(t->frame_mem);
  free(t->frames);
  free(t->rows);
  free(t->vec);
  free(t);
}

/* Attributes that say what a dataset holds (units, meaning). */
static int describe(thr_trajectory *t, int k, const char *what) {
  return thr_h5_attr_string(&t->h, t->d[k], "description", what);
}

/* /frames: tiny and written by rank 0 alone, so never filtered (parallel
 * HDF5 1.10 refuses a filtered write that only one rank makes). */
static int frames_table(thr_trajectory *t) {
  int deflate = t->h.deflate;
  t->h.deflate = 0;
  int rc = thr_h5_table(&t->h, "frames", t->frame_file, 0, 1024, &t->d[TABLE_FRAMES]);
  t->h.deflate = deflate;
  return rc;
}

/* The tables, in chunks of chunk_rows rows (chunks are allocated whole:
 * small for small crowds, up to 2 MiB of /trajectory for large ones). */
static int create_tables(thr_trajectory *t, hsize_t chunk) {
  thr_h5 *h = &t->h;
  t->created = 1;
  const thr_trajectory_info *info = &t->info;
  int rc = thr_h5_table(h, "trajectory", t->row_file, 0, chunk, &t->d[TABLE_TRAJ]) ||
           thr_h5_table(h, "points", H5T_IEEE_F32LE, 3, chunk, &t->d[TABLE_POINTS]) ||
           thr_h5_table(h, "velocity", H5T_IEEE_F32LE, 3, chunk, &t->d[TABLE_VELOCITY]) ||
           thr_h5_table(h, "radius", H5T_IEEE_F32LE, 0, chunk, &t->d[TABLE_RADIUS]) ||
           thr_h5_table(h, "group", H5T_STD_I32LE, 0, chunk, &t->d[TABLE_GROUP]) ||
           thr_h5_table(h, "state", H5T_STD_U32LE, 0, chunk, &t->d[TABLE_STATE]) ||
           thr_h5_table(h, "stage", H5T_STD_I32LE, 0, chunk, &t->d[TABLE_STAGE]) ||
           frames_table(t) ||
           thr_h5_attr_f64(h, t->d[TABLE_TRAJ], "fps", 1.0 / (info->dt * info->every)) ||
           describe(t, TABLE_TRAJ, "frame, id, x, y, z [m] of every agent at every frame (Pedestrian Dynamics Data "
                                   "Archive layout); frame = step / every") ||
           describe(t, TABLE_POINTS, "x, y, z [m] as float32, row for row with /trajectory (for ParaView, "
                                     "trajectory.xdmf)") ||
           describe(t, TABLE_VELOCITY, "vx, vy, 0 [m/s], row for row with /trajectory") ||
           describe(t, TABLE_RADIUS, "disk radius [m], row for row with /trajectory") ||
           describe(t, TABLE_GROUP, "group number from the scenario, row for row with /trajectory") ||
           describe(t, TABLE_STATE, "flag bits: 1 at its goal, 2 inside an exit, 4 arrived at its stage, 8 seated "
                                    "at its slot; row for row with /trajectory") ||
           describe(t, TABLE_STAGE, "journey stage followed, -1 none; row for row with /trajectory") ||
           describe(t, TABLE_FRAMES, "one row per frame: frame, step, time [s], first_row and rows of its agents in "
                                     "the tables above");
  return rc;
}

int thr_trajectory_open(thr_trajectory **out, MPI_Comm comm, const char *dir, const thr_trajectory_info *info,
                        char *err, size_t errlen) {
  *out = NULL;
  thr_trajectory *t = calloc(1, sizeof *t);
  int rc = t ? 0 : -1;
  int nranks;
  MPI_Comm_size(comm, &nranks);
  if (nranks > 1) MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, comm);
  if (rc) {
    free(t);
    snprintf(err, errlen, "out of memory opening the trajectory");
    return -1;
  }
  for (int k = 0; k < N_TABLES; ++k) t->d[k] = t->fin[k] = H5I_INVALID_HID;
  t->info = *info;
  snprintf(t->dir, sizeof t->dir, "%s", dir);
  t->row_file = row_type(1);
  t->row_mem = row_type(0);
  t->frame_file = frame_type(1);
  t->frame_mem = frame_type(0);
  char path[THR_PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/trajectory.h5", dir);
  if (thr_h5_create(&t->h, comm, path, info->deflate, err, errlen)) {
    release(t);
    return -1;
  }
  thr_h5 *h = &t->h;
  rc = thr_h5_attr_string(h, 0, "wkt_geometry", info->wkt ? info->wkt : "") ||
       thr_h5_attr_string(h, 0, "scenario", info->scenario ? info->scenario : "") ||
       thr_h5_attr_string(h, 0, "producer", "throng " THRONG_VERSION) || thr_h5_attr_f64(h, 0, "dt", info->dt) ||
       thr_h5_attr_i64(h, 0, "every", info->every);
  if (rc) {
    thr_h5_discard(&t->h);
    release(t);
    return -1;
  }
  *out = t;
  return 0;
}

static int scratch(thr_trajectory *t, size_t n) {
  if (n <= t->scratch && t->rows) return 0;
  free(t->rows);
  free(t->vec);
  t->rows = malloc((n + 1) * sizeof *t->rows);
  t->vec = malloc((n + 1) * 3 * sizeof *t->vec);
  t->scratch = t->rows && t->vec ? n : 0;
  return t->scratch == n ? 0 : -1;
}

static int write_frame(thr_trajectory *t, long step, const thr_agents *a);
static int write_final(thr_trajectory *t, long step, const thr_agents *a);

/* Bytes a frame of n agents adds at most: its rows in every table, a new
 * chunk of each, and room for the metadata. */
static double frame_bytes(const thr_trajectory *t, uint64_t n) {
  double row = 32.0 + 2 * 3 * 4 + 4 * 4; /* trajectory, points, velocity; radius, group, state, stage */
  return (double)(n + t->chunk_rows) * row + (256 << 10);
}

/* Does the disk have room for the frame? A frame that would fill it is not
 * begun, so that the file ends with complete frames and closes cleanly
 * (HDF5 cannot always cut back a table whose last write failed). Rank 0
 * looks; every rank learns. */
static int room_for_frame(thr_trajectory *t, long step, uint64_t n) {
  thr_h5 *h = &t->h;
  int rc = 0;
  struct statvfs fs;
  if (h->rank == 0 && !statvfs(t->dir, &fs)) {
    double free_bytes = (double)fs.f_bavail * (double)fs.f_frsize, need = frame_bytes(t, n);
    if (free_bytes < need) {
      snprintf(h->err, h->errlen,
               "%s: cannot write the frame of step %ld: %s (it needs about %.3g MB, %.3g MB are free); the file "
               "keeps its %llu complete frame(s)",
               h->path, step, strerror(ENOSPC), need / 1e6, free_bytes / 1e6, (unsigned long long)t->good_frames);
      rc = -1;
    }
  }
  return thr_h5_agree(h, rc);
}

int thr_trajectory_frame(thr_trajectory *t, long step, const thr_agents *a, char *err, size_t errlen) {
  thr_h5 *h = &t->h;
  h->err = err;
  h->errlen = errlen;
  int rc = scratch(t, a->n_owned);
  if (rc) snprintf(err, errlen, "%s: out of memory for a frame of %zu agents", h->path, a->n_owned);
  if (thr_h5_agree(h, rc)) return -1;
  uint64_t all = a->n_owned;
  if (h->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_UINT64_T, MPI_SUM, h->comm);
  if (!t->created) {
    t->chunk_rows = all < 1024 ? 1024 : all > 65536 ? 65536 : all;
    if (create_tables(t, t->chunk_rows)) return (t->failed = 1), -1;
  }
  if (room_for_frame(t, step, all)) return -1; /* nothing written: the file stays whole */
  /* a step off the clock would share its frame number with the frame
   * before (PedPy would see each agent twice in one frame) */
  rc = step % t->info.every ? write_final(t, step, a) : write_frame(t, step, a);
  if (rc) t->failed = 1;
  return rc;
}

/* x, y, z; velocity; radius, group, state, stage of this rank's agents,
 * appended to the tables d. */
static int append_agents(thr_trajectory *t, hid_t *d, const thr_agents *a) {
  thr_h5 *h = &t->h;
  size_t n = a->n_owned;
  for (size_t i = 0; i < n; ++i) {
    float z;
    thr_vec2 x = output_place(t->info.building, t->info.dim3, a, i, &z);
    t->vec[3 * i] = x.x;
    t->vec[3 * i + 1] = x.y;
    t->vec[3 * i + 2] = z;
  }
  if (thr_h5_append(h, d[TABLE_POINTS], H5T_NATIVE_FLOAT, 3 * sizeof(float), 3, n, t->vec, NULL, NULL)) return -1;
  for (size_t i = 0; i < n; ++i) {
    t->vec[3 * i] = a->v[i].x;
    t->vec[3 * i + 1] = a->v[i].y;
    t->vec[3 * i + 2] = t->info.dim3 ? a->vz[i] : 0.0f;
  }
  return thr_h5_append(h, d[TABLE_VELOCITY], H5T_NATIVE_FLOAT, 3 * sizeof(float), 3, n, t->vec, NULL, NULL) ||
         thr_h5_append(h, d[TABLE_RADIUS], H5T_NATIVE_FLOAT, 4, 0, n, a->radius, NULL, NULL) ||
         thr_h5_append(h, d[TABLE_GROUP], H5T_NATIVE_INT32, 4, 0, n, a->group, NULL, NULL) ||
         thr_h5_append(h, d[TABLE_STATE], H5T_NATIVE_UINT32, 4, 0, n, a->flags, NULL, NULL) ||
         thr_h5_append(h, d[TABLE_STAGE], H5T_NATIVE_INT32, 4, 0, n, a->stage, NULL, NULL);
}

static int write_frame(thr_trajectory *t, long step, const thr_agents *a) {
  thr_h5 *h = &t->h;
  size_t n = a->n_owned;
  uint32_t frame = (uint32_t)(step / t->info.every);
  for (size_t i = 0; i < n; ++i) {
    float z;
    thr_vec2 x = output_place(t->info.building, t->info.dim3, a, i, &z);
    traj_row r = {frame, a->id[i], (double)x.x, (double)x.y, (double)z};
    t->rows[i] = r;
  }
  uint64_t first = 0, total = 0;
  if (thr_h5_append(h, t->d[TABLE_TRAJ], t->row_mem, sizeof *t->rows, 0, n, t->rows, &first, &total) ||
      append_agents(t, t->d, a))
    return -1;
  frame_row fr = {frame, step, (double)step * t->info.dt, first, total};
  int rc = 0;
  if (h->rank == 0) {
    if (t->n_frames == t->cap) {
      size_t cap = t->cap ? 2 * t->cap : 64;
      frame_row *q = realloc(t->frames, cap * sizeof *q);
      if (q) {
        t->frames = q;
        t->cap = cap;
      }
    }
    if (t->n_frames < t->cap)
      t->frames[t->n_frames++] = fr;
    else
      snprintf(h->err, h->errlen, "%s: out of memory listing frames", h->path), rc = -1;
  }
  if (thr_h5_agree(h, rc)) return -1;
  if (thr_h5_append(h, t->d[TABLE_FRAMES], t->frame_mem, sizeof fr, 0, h->rank == 0 ? 1 : 0, &fr, NULL, NULL) ||
      thr_h5_flush(h))
    return -1;
  t->good_rows = first + total;
  t->good_frames++;
  return 0;
}

/* /final: the agents at the run's last step when it is not a multiple of
 * trajectory_every, the same tables (ids in /final/id), step and time as
 * attributes of the group. Written once, at the end. */
static int write_final(thr_trajectory *t, long step, const thr_agents *a) {
  thr_h5 *h = &t->h;
  if (t->has_final) {
    snprintf(h->err, h->errlen, "%s: a second last-step frame (step %ld)", h->path, step);
    return -1;
  }
  uint64_t all = a->n_owned;
  if (h->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_UINT64_T, MPI_SUM, h->comm);
  hsize_t chunk = all < 1 ? 1 : all > 65536 ? 65536 : all;
  hid_t *d = t->fin;
  double time = (double)step * t->info.dt;
  if (thr_h5_group(h, "final") || thr_h5_table(h, "final/id", H5T_STD_U32LE, 0, chunk, &d[TABLE_TRAJ]) ||
      thr_h5_table(h, "final/points", H5T_IEEE_F32LE, 3, chunk, &d[TABLE_POINTS]) ||
      thr_h5_table(h, "final/velocity", H5T_IEEE_F32LE, 3, chunk, &d[TABLE_VELOCITY]) ||
      thr_h5_table(h, "final/radius", H5T_IEEE_F32LE, 0, chunk, &d[TABLE_RADIUS]) ||
      thr_h5_table(h, "final/group", H5T_STD_I32LE, 0, chunk, &d[TABLE_GROUP]) ||
      thr_h5_table(h, "final/state", H5T_STD_U32LE, 0, chunk, &d[TABLE_STATE]) ||
      thr_h5_table(h, "final/stage", H5T_STD_I32LE, 0, chunk, &d[TABLE_STAGE]))
    return -1;
  hid_t g = h->writer ? H5Gopen2(h->file, "final", H5P_DEFAULT) : H5I_INVALID_HID;
  int rc = thr_h5_attr_i64(h, g, "step", step) || thr_h5_attr_f64(h, g, "time", time) ||
           thr_h5_attr_string(h, g, "description",
                              "the agents at the run's last step, which is not a multiple of trajectory_every: "
                              "id, points, velocity, radius, group, state, stage as in the root tables; not in "
                              "/trajectory, whose frame numbers are step / every");
  if (g >= 0) H5Gclose(g);
  uint64_t first = 0, total = 0;
  if (rc || thr_h5_append(h, d[TABLE_TRAJ], H5T_NATIVE_UINT32, 4, 0, a->n_owned, a->id, &first, &total) ||
      append_agents(t, d, a) || thr_h5_flush(h))
    return -1;
  frame_row fr = {0, step, time, 0, total};
  t->final_row = fr;
  t->has_final = 1;
  return 0;
}

/* After a failed frame: every table cut back to the frames written whole,
 * so that the file holds complete frames only. */
static int cut_to_good_frames(thr_trajectory *t) {
  thr_h5 *h = &t->h;
  int rc = 0;
  if (h->writer) {
    for (int k = 0; k < N_TABLES && !rc; ++k) {
      hsize_t dims[2] = {k == TABLE_FRAMES ? t->good_frames : t->good_rows, 3};
      if (t->d[k] >= 0 && H5Dset_extent(t->d[k], dims) < 0) rc = -1;
    }
    /* a last-step frame that failed half-way goes whole */
    for (int k = 0; k < N_TABLES; ++k) thr_h5_close_dataset(&t->fin[k]);
    if (!rc && !t->has_final && H5Lexists(h->file, "final", H5P_DEFAULT) > 0 &&
        H5Ldelete(h->file, "final", H5P_DEFAULT) < 0)
      rc = -1;
    if (rc) {
      char why[512];
      thr_h5_reason(why, sizeof why);
      snprintf(h->err, h->errlen, "%s: cannot cut the file back to its complete frames: %s", h->path, why);
    }
  }
  if (h->rank == 0 && t->n_frames > t->good_frames) t->n_frames = (size_t)t->good_frames;
  return thr_h5_agree(h, rc);
}

/* ---- trajectory.xdmf ---------------------------------------------------------------- */

/* A HyperSlab of rows [first, first + n) of a (total x cols) dataset. */
static void xdmf_slab(FILE *f, const frame_row *fr, uint64_t total, int cols, const char *type, int prec,
                      const char *dataset) {
  const char *ind = "          ";
  if (cols)
    fprintf(f, "%s<DataItem ItemType=\"HyperSlab\" Dimensions=\"%llu %d\" Type=\"HyperSlab\">\n", ind,
            (unsigned long long)fr->rows, cols);
  else
    fprintf(f, "%s<DataItem ItemType=\"HyperSlab\" Dimensions=\"%llu\" Type=\"HyperSlab\">\n", ind,
            (unsigned long long)fr->rows);
  if (cols)
    fprintf(f, "%s  <DataItem Dimensions=\"3 2\" Format=\"XML\">%llu 0 1 1 %llu %d</DataItem>\n", ind,
            (unsigned long long)fr->first, (unsigned long long)fr->rows, cols);
  else
    fprintf(f, "%s  <DataItem Dimensions=\"3 1\" Format=\"XML\">%llu 1 %llu</DataItem>\n", ind,
            (unsigned long long)fr->first, (unsigned long long)fr->rows);
  if (cols)
    fprintf(f, "%s  <DataItem Dimensions=\"%llu %d\" NumberType=\"%s\" Precision=\"%d\" Format=\"HDF\">", ind,
            (unsigned long long)total, cols, type, prec);
  else
    fprintf(f, "%s  <DataItem Dimensions=\"%llu\" NumberType=\"%s\" Precision=\"%d\" Format=\"HDF\">", ind,
            (unsigned long long)total, type, prec);
  fprintf(f, "trajectory.h5:/%s</DataItem>\n%s</DataItem>\n", dataset, ind);
}

/* One frame's grid: its rows of the tables under `group` ("" or "final/"),
 * which have `total` rows. */
static void xdmf_grid(FILE *f, const char *name, const frame_row *fr, uint64_t total, const char *group) {
  static const struct {
    const char *name, *dataset, *type;
    int cols, center_vector;
  } attrs[] = {{"velocity", "velocity", "Float", 3, 1},
               {"radius", "radius", "Float", 0, 0},
               {"group", "group", "Int", 0, 0},
               {"state", "state", "UInt", 0, 0},
               {"stage", "stage", "Int", 0, 0}};
  char dataset[64];
  fprintf(f,
          "      <Grid Name=\"%s\" GridType=\"Uniform\">\n        <Time Value=\"%.9g\"/>\n"
          "        <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%llu\" NodesPerElement=\"1\"/>\n"
          "        <Geometry GeometryType=\"XYZ\">\n",
          name, fr->time, (unsigned long long)fr->rows);
  snprintf(dataset, sizeof dataset, "%spoints", group);
  xdmf_slab(f, fr, total, 3, "Float", 4, dataset);
  fprintf(f, "        </Geometry>\n");
  for (size_t a = 0; a < sizeof attrs / sizeof attrs[0]; ++a) {
    fprintf(f, "        <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Node\">\n", attrs[a].name,
            attrs[a].center_vector ? "Vector" : "Scalar");
    snprintf(dataset, sizeof dataset, "%s%s", group, attrs[a].dataset);
    xdmf_slab(f, fr, total, attrs[a].cols, attrs[a].type, 4, dataset);
    fprintf(f, "        </Attribute>\n");
  }
  fprintf(f, "      </Grid>\n");
}

static int write_xdmf(thr_trajectory *t, char *err, size_t errlen) {
  char path[THR_PATH_MAX + 32], tmp[THR_PATH_MAX + 48], name[64];
  snprintf(path, sizeof path, "%s/trajectory.xdmf", t->dir);
  FILE *f = thr_file_begin(path, tmp, sizeof tmp, err, errlen);
  if (!f) return -1;
  uint64_t total = 0;
  for (size_t k = 0; k < t->n_frames; ++k) total += t->frames[k].rows;
  fprintf(f, "<?xml version=\"1.0\" ?>\n<!-- throng trajectory: open this file in ParaView (points over time; "
             "the data are in trajectory.h5) -->\n<Xdmf Version=\"2.0\">\n  <Domain>\n"
             "    <Grid Name=\"agents\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
  for (size_t k = 0; k < t->n_frames; ++k) {
    if (!t->frames[k].rows) continue; /* an empty frame has no points to show */
    /* the leavers' frame after /final: /final shows them at its own time */
    if (t->has_final && t->frames[k].step > t->final_row.step) continue;
    snprintf(name, sizeof name, "frame %u", t->frames[k].frame);
    xdmf_grid(f, name, &t->frames[k], total, "");
  }
  if (t->has_final && t->final_row.rows) {
    snprintf(name, sizeof name, "final step %lld", (long long)t->final_row.step);
    xdmf_grid(f, name, &t->final_row, t->final_row.rows, "final/");
  }
  fprintf(f, "    </Grid>\n  </Domain>\n</Xdmf>\n");
  return thr_file_commit(f, path, tmp, err, errlen);
}

int thr_trajectory_close(thr_trajectory *t, char *err, size_t errlen) {
  if (!t) return 0;
  thr_h5 *h = &t->h;
  h->err = err;
  h->errlen = errlen;
  thr_h5_release_reserve(h); /* room to close, after a full disk */
  int rc = t->created ? 0 : create_tables(t, 1024); /* no frame: the tables, empty */
  if (!rc && t->failed) rc = cut_to_good_frames(t);
  close_tables(t);
  rc = rc ? (thr_h5_discard(h), -1) : thr_h5_commit(h);
  if (!rc) {
    int xrc = h->rank == 0 ? write_xdmf(t, err, errlen) : 0;
    rc = thr_h5_agree(h, xrc);
  }
  release(t);
  return rc;
}

#else /* no HDF5 */

struct thr_trajectory {
  int unused;
};

int thr_trajectory_available(void) { return 0; }

int thr_trajectory_open(thr_trajectory **t, MPI_Comm comm, const char *dir, const thr_trajectory_info *info,
                        char *err, size_t errlen) {
  (void)comm;
  (void)info;
  *t = NULL;
  snprintf(err, errlen,
           "%.900s/trajectory.h5: this throng was built without HDF5 (THRONG_HDF5); install libhdf5-openmpi-dev "
           "and rebuild, or set output.trajectory_format: csv",
           dir);
  return -1;
}

int thr_trajectory_frame(thr_trajectory *t, long step, const thr_agents *mine, char *err, size_t errlen) {
  (void)t, (void)step, (void)mine, (void)err, (void)errlen;
  return -1;
}

int thr_trajectory_close(thr_trajectory *t, char *err, size_t errlen) {
  (void)t, (void)err, (void)errlen;
  return 0;
}

#endif
