#define _XOPEN_SOURCE 700
#include "output.h"

#include "base/floors.h"

#include "core/formations.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- paths ------------------------------------------------------------------ */

/* dir/name into buf; -1 (errno ENAMETOOLONG) when it does not fit. */
static int join(char *buf, size_t size, const char *dir, const char *name) {
  int n = snprintf(buf, size, "%s/%s", dir, name);
  if (n < 0 || (size_t)n >= size) {
    errno = ENAMETOOLONG;
    return -1;
  }
  return 0;
}

static int fail_path(char *err, size_t errlen, const char *path, const char *what) {
  snprintf(err, errlen, "%.1100s: %s: %s", path, what, strerror(errno ? errno : EIO));
  return -1;
}

int thr_make_dirs(const char *path) {
  char buf[THR_PATH_MAX];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
    errno = ENAMETOOLONG;
    return -1;
  }
  for (char *q = buf + 1; *q; ++q) {
    if (*q != '/') continue;
    *q = '\0';
    if (mkdir(buf, 0775) && errno != EEXIST) return -1;
    *q = '/';
  }
  if (mkdir(buf, 0775) && errno != EEXIST) return -1;
  struct stat st;
  if (stat(buf, &st)) return -1;
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return -1;
  }
  return 0;
}

/* ---- the fault hook (tests) ------------------------------------------------- */

/* THRONG_FAULT_WRITE=NAME[:N]: the N-th write to a file called NAME fails. */
static int fault_injected(const char *path) {
  static long writes;
  const char *spec = getenv("THRONG_FAULT_WRITE");
  if (!spec || !*spec) return 0;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t len = strcspn(spec, ":");
  if (strlen(base) != len || strncmp(base, spec, len)) return 0;
  long nth = spec[len] == ':' ? atol(spec + len + 1) : 1;
  if (++writes < (nth > 0 ? nth : 1)) return 0;
  errno = ENOSPC;
  return 1;
}

int thr_fault_write(const char *path) { return fault_injected(path); }

/* Did the writes to f since the last check all succeed? */
static int wrote_ok(FILE *f, const char *path) {
  if (fflush(f) || ferror(f)) return 0;
  return !fault_injected(path);
}

/* What kind of file is at path: 'r' regular or none, 'c' a character
 * device (written in place), 'l' a symbolic link, 'p' a FIFO, 'o' other. */
static char file_kind(const char *path) {
  struct stat st;
  if (lstat(path, &st)) return 'r';
  return S_ISREG(st.st_mode) ? 'r' : S_ISCHR(st.st_mode) ? 'c' : S_ISLNK(st.st_mode) ? 'l' : S_ISFIFO(st.st_mode) ? 'p' : 'o';
}

static const char *kind_text(char kind) {
  return kind == 'l' ? "is a symbolic link, which writing the file would replace" : kind == 'p' ? "is a FIFO" : "is not a regular file";
}

/* Open for writing without following a symbolic link (one planted at
 * PATH.tmp would otherwise redirect the write). */
static FILE *open_nofollow(const char *path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (fd >= 0 && !f) close(fd);
  return f;
}

FILE *thr_file_begin(const char *path, char *tmp, size_t tmplen, char *err, size_t errlen) {
  char kind = file_kind(path);
  if (kind == 'c') { /* /dev/null: in place */
    tmp[0] = '\0';
    errno = 0;
    FILE *f = fopen(path, "w");
    if (!f) fail_path(err, errlen, path, "cannot write");
    return f;
  }
  if (kind != 'r') {
    snprintf(err, errlen, "%.1100s: %s; not written", path, kind_text(kind));
    return NULL;
  }
  if (snprintf(tmp, tmplen, "%s.tmp", path) >= (int)tmplen) {
    errno = ENAMETOOLONG;
    fail_path(err, errlen, path, "cannot write");
    return NULL;
  }
  errno = 0;
  FILE *f = open_nofollow(tmp);
  if (!f) fail_path(err, errlen, tmp, "cannot write");
  return f;
}

int thr_file_commit(FILE *f, const char *path, const char *tmp, char *err, size_t errlen) {
  errno = 0;
  int ok = wrote_ok(f, path);
  int saved = errno;
  if (fclose(f) && ok) {
    ok = 0;
    saved = errno;
  }
  if (!*tmp) return ok ? 0 : (errno = saved, fail_path(err, errlen, path, "write failed"));
  if (ok && rename(tmp, path)) {
    ok = 0;
    saved = errno;
  }
  if (ok) return 0;
  remove(tmp);
  errno = saved;
  return fail_path(err, errlen, path, "write failed");
}

int thr_stream_open(FILE **f, char *path, const char *dir, const char *name, char *err, size_t errlen) {
  errno = 0;
  if (join(path, THR_PATH_MAX, dir, name)) return fail_path(err, errlen, dir, name);
  *f = fopen(path, "w");
  return *f ? 0 : fail_path(err, errlen, path, "cannot write");
}

int thr_stream_check(FILE *f, const char *path, char *err, size_t errlen) {
  errno = 0;
  return wrote_ok(f, path) ? 0 : fail_path(err, errlen, path, "write failed");
}

int thr_stream_close(FILE **f, const char *path, char *err, size_t errlen) {
  if (!*f) return 0;
  errno = 0;
  int ok = wrote_ok(*f, path);
  if (fclose(*f)) ok = 0;
  *f = NULL;
  return ok ? 0 : fail_path(err, errlen, path, "write failed");
}

void thr_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; ++s) {
    if (*s == '"' || *s == '\\')
      fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      fprintf(f, "\\u%04x", (unsigned char)*s);
    else
      fputc(*s, f);
  }
  fputc('"', f);
}

void thr_csv_field(FILE *f, const char *s) {
  if (!s[strcspn(s, ",\"\r\n")]) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; ++s) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* ---- checks before a run ---------------------------------------------------- */

static int is_dir(const char *path) {
  struct stat st;
  return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Is path inside directory `dir` (or dir itself)? Both must exist. */
static int inside(const char *path, const char *dir) {
  char rp[PATH_MAX], rd[PATH_MAX];
  if (!realpath(path, rp) || !realpath(dir, rd)) return 0;
  size_t n = strlen(rd);
  return !strncmp(rp, rd, n) && (rp[n] == '\0' || rp[n] == '/' || !strcmp(rd, "/"));
}

int thr_output_check_final_state(const char *path, const char *dir, const char *scenario, char *err,
                                 size_t errlen) {
  if (strlen(path) + 8 >= THR_PATH_MAX) {
    errno = ENAMETOOLONG;
    return fail_path(err, errlen, path, "--final-state");
  }
  if (is_dir(path)) {
    snprintf(err, errlen, "--final-state %.1100s: is a directory; name a file", path);
    return -1;
  }
  char kind = file_kind(path);
  if (kind != 'r' && kind != 'c') {
    snprintf(err, errlen,
             "--final-state %.1100s: %s; name a regular file (or a character device such as /dev/null, written in "
             "place)",
             path, kind_text(kind));
    return -1;
  }
  char parent[THR_PATH_MAX];
  snprintf(parent, sizeof parent, "%s", path);
  char *slash = strrchr(parent, '/');
  if (!slash)
    strcpy(parent, ".");
  else if (slash == parent)
    parent[1] = '\0';
  else
    *slash = '\0';
  if (!is_dir(parent)) {
    snprintf(err, errlen, "--final-state %.1100s: the directory %.1100s does not exist", path, parent);
    return -1;
  }
  if (scenario && same_file(path, scenario)) {
    snprintf(err, errlen, "--final-state %.1100s: is the scenario file; name another file", path);
    return -1;
  }
  if (dir && is_dir(dir) && inside(parent, dir)) {
    snprintf(err, errlen,
             "--final-state %.1100s: lies in the output directory %.1100s, which the run writes; name a file "
             "outside it",
             path, dir);
    return -1;
  }
  return 0;
}

/* ---- the outputs of a run -------------------------------------------------- */

int thr_output_open(thr_output *o, const char *dir, int metrics, int trajectory, char *err, size_t errlen) {
  memset(o, 0, sizeof *o);
  snprintf(o->dir, sizeof o->dir, "%s", dir);
  errno = 0;
  if (thr_make_dirs(dir)) return fail_path(err, errlen, dir, "cannot create the output directory");
  if (metrics) {
    if (thr_stream_open(&o->metrics, o->metrics_path, dir, "metrics.csv", err, errlen)) return -1;
    fprintf(o->metrics,
            "step,time,agents,at_goal,mean_speed,overlap_pairs,max_overlap,max_overlap_ratio,"
            "wall_penetrations,max_wall_overlap,lp_fallbacks,forced\n");
    if (thr_stream_check(o->metrics, o->metrics_path, err, errlen)) return -1;
  }
  if (trajectory) {
    char path[THR_PATH_MAX];
    if (join(path, sizeof path, dir, "trajectory") || thr_make_dirs(path))
      return fail_path(err, errlen, path, "cannot create");
    o->trajectory = 1;
  }
  return 0;
}

int thr_output_metrics(thr_output *o, const thr_metrics *m, char *err, size_t errlen) {
  if (!o->metrics) return 0;
  errno = 0;
  fprintf(o->metrics, "%ld,%.6f,%ld,%ld,%.6f,%ld,%.6g,%.6g,%ld,%.6g,%ld,%ld\n", m->step, m->time, m->agents,
          m->at_goal, m->mean_speed, m->overlap_pairs, m->max_overlap, m->max_overlap_ratio,
          m->wall_penetrations, m->max_wall_overlap, m->lp_fallbacks, m->forced);
  return thr_stream_check(o->metrics, o->metrics_path, err, errlen);
}

/* ParaView's JSON file-series index, rewritten after every frame so that
 * it is valid whenever the run stops. */
static int write_series(thr_output *o, char *err, size_t errlen) {
  char path[THR_PATH_MAX], tmp[THR_PATH_MAX + 8];
  if (join(path, sizeof path, o->dir, "trajectory/trajectory.csv.series"))
    return fail_path(err, errlen, o->dir, "trajectory.csv.series");
  FILE *f = thr_file_begin(path, tmp, sizeof tmp, err, errlen);
  if (!f) return -1;
  fprintf(f, "{\n  \"file-series-version\" : \"1.0\",\n  \"files\" : [\n");
  for (long k = 0; k < o->n_frames; ++k)
    fprintf(f, "    { \"name\" : \"trajectory.%08ld.csv\", \"time\" : %.9g }%s\n", o->frame_step[k],
            o->frame_time[k], k + 1 < o->n_frames ? "," : "");
  fprintf(f, "  ]\n}\n");
  return thr_file_commit(f, path, tmp, err, errlen);
}

static int remember_frame(thr_output *o, long step, double time) {
  if (o->n_frames == o->frame_cap) {
    long cap = o->frame_cap ? 2 * o->frame_cap : 64;
    long *s = realloc(o->frame_step, (size_t)cap * sizeof(long));
    if (!s) return -1;
    o->frame_step = s;
    double *t = realloc(o->frame_time, (size_t)cap * sizeof(double));
    if (!t) return -1;
    o->frame_time = t;
    o->frame_cap = cap;
  }
  o->frame_step[o->n_frames] = step;
  o->frame_time[o->n_frames] = time;
  o->n_frames++;
  return 0;
}

int thr_output_trajectory(thr_output *o, long step, double time, const thr_agents *all, char *err, size_t errlen) {
  if (!o->trajectory) return 0;
  char name[64], path[THR_PATH_MAX], tmp[THR_PATH_MAX + 8];
  snprintf(name, sizeof name, "trajectory/trajectory.%08ld.csv", step);
  if (join(path, sizeof path, o->dir, name)) return fail_path(err, errlen, o->dir, name);
  FILE *f = thr_file_begin(path, tmp, sizeof tmp, err, errlen);
  if (!f) return -1;
  fprintf(f, o->dim3 || o->building ? "id,x,y,z,vx,vy,vz,radius,group\n" : "id,x,y,vx,vy,radius,group\n");
  for (size_t i = 0; i < all->n && o->building; ++i) {
    float z;
    thr_vec2 x = thr_building_point(o->building, all->x[i], &z);
    fprintf(f, "%u,%.9g,%.9g,%.9g,%.9g,%.9g,0,%.6g,%d\n", all->id[i], (double)x.x, (double)x.y, (double)z,
            (double)all->v[i].x, (double)all->v[i].y, (double)all->radius[i], all->group[i]);
  }
  for (size_t i = 0; i < all->n && o->dim3; ++i)
    fprintf(f, "%u,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.6g,%d\n", all->id[i], (double)all->x[i].x, (double)all->x[i].y,
            (double)all->z[i], (double)all->v[i].x, (double)all->v[i].y, (double)all->vz[i], (double)all->radius[i],
            all->group[i]);
  for (size_t i = 0; i < all->n && !o->dim3 && !o->building; ++i)
    fprintf(f, "%u,%.9g,%.9g,%.9g,%.9g,%.6g,%d\n", all->id[i], (double)all->x[i].x, (double)all->x[i].y,
            (double)all->v[i].x, (double)all->v[i].y, (double)all->radius[i], all->group[i]);
  if (thr_file_commit(f, path, tmp, err, errlen)) return -1;
  if (remember_frame(o, step, time)) {
    snprintf(err, errlen, "out of memory listing trajectory frames");
    return -1;
  }
  return write_series(o, err, errlen);
}

int thr_output_open_formations(thr_output *o, char *err, size_t errlen) {
  if (thr_stream_open(&o->formations, o->formations_path, o->dir, "formations.csv", err, errlen)) return -1;
  fprintf(o->formations, "step,time,formation,group,agents,rms_error,broken,waypoint,arrived,x,y\n");
  return thr_stream_check(o->formations, o->formations_path, err, errlen);
}

int thr_output_formations(thr_output *o, long step, double time, const thr_formations *fm, const int64_t *sq_q,
                          const int64_t *broken, char *err, size_t errlen) {
  if (!o->formations) return 0;
  errno = 0;
  for (int k = 0; k < fm->n; ++k) {
    double rms = fm->members[k] ? sqrt((double)sq_q[k] * THR_SPEED_QUANTUM / (double)fm->members[k]) : 0.0;
    fprintf(o->formations, "%ld,%.6f,%d,%d,%ld,%.6f,%lld,%d,%d,%.6f,%.6f\n", step, time, k, fm->group[k],
            fm->members[k], rms, (long long)broken[k], fm->path[k].waypoint, fm->path[k].arrived,
            (double)fm->state[k].pos.x, (double)fm->state[k].pos.y);
  }
  return thr_stream_check(o->formations, o->formations_path, err, errlen);
}

int thr_output_open_states(thr_output *o, int n, const char (*names)[64], char *err, size_t errlen) {
  if (thr_stream_open(&o->states, o->states_path, o->dir, "states.csv", err, errlen)) return -1;
  o->n_states = n;
  o->state_names = names;
  fprintf(o->states, "step,time,state,name,agents,share\n");
  return thr_stream_check(o->states, o->states_path, err, errlen);
}

int thr_output_states(thr_output *o, const thr_metrics *m, char *err, size_t errlen) {
  if (!o->states) return 0;
  errno = 0;
  for (int k = 0; k < o->n_states; ++k)
    fprintf(o->states, "%ld,%.6f,%d,%s,%ld,%.6f\n", m->step, m->time, k, o->state_names[k], m->in_state[k],
            m->agents ? (double)m->in_state[k] / (double)m->agents : 0.0);
  return thr_stream_check(o->states, o->states_path, err, errlen);
}

int thr_output_close(thr_output *o, char *err, size_t errlen) {
  int rc = thr_stream_close(&o->metrics, o->metrics_path, err, errlen);
  int frc = thr_stream_close(&o->formations, o->formations_path, rc ? NULL : err, rc ? 0 : errlen);
  rc = rc ? rc : frc;
  frc = thr_stream_close(&o->states, o->states_path, rc ? NULL : err, rc ? 0 : errlen);
  rc = rc ? rc : frc;
  free(o->frame_step);
  free(o->frame_time);
  memset(o, 0, sizeof *o);
  return rc;
}

int thr_write_final_state(const char *path, const thr_agents *all, int dim3, char *err, size_t errlen) {
  char tmp[THR_PATH_MAX + 8];
  FILE *f = thr_file_begin(path, tmp, sizeof tmp, err, errlen);
  if (!f) return -1;
  fprintf(f, dim3 ? "id,x,y,z,vx,vy,vz\n" : "id,x,y,vx,vy\n");
  for (size_t i = 0; i < all->n && dim3; ++i)
    fprintf(f, "%u,%a,%a,%a,%a,%a,%a\n", all->id[i], (double)all->x[i].x, (double)all->x[i].y, (double)all->z[i],
            (double)all->v[i].x, (double)all->v[i].y, (double)all->vz[i]);
  for (size_t i = 0; i < all->n && !dim3; ++i)
    fprintf(f, "%u,%a,%a,%a,%a\n", all->id[i], (double)all->x[i].x, (double)all->x[i].y, (double)all->v[i].x,
            (double)all->v[i].y);
  return thr_file_commit(f, path, tmp, err, errlen);
}
