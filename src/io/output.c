#define _POSIX_C_SOURCE 200809L
#include "output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int thr_make_dirs(const char *path) {
  char buf[1024];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return -1;
  for (char *q = buf + 1; *q; ++q) {
    if (*q != '/') continue;
    *q = '\0';
    if (mkdir(buf, 0775) && errno != EEXIST) return -1;
    *q = '/';
  }
  if (mkdir(buf, 0775) && errno != EEXIST) return -1;
  struct stat st;
  return (stat(buf, &st) == 0 && S_ISDIR(st.st_mode)) ? 0 : -1;
}

int thr_output_open(thr_output *o, const char *dir, int metrics, int trajectory, char *err, size_t errlen) {
  memset(o, 0, sizeof *o);
  snprintf(o->dir, sizeof o->dir, "%s", dir);
  if (thr_make_dirs(dir)) {
    snprintf(err, errlen, "cannot create output directory '%s': %s", dir, strerror(errno));
    return -1;
  }
  if (metrics) {
    char path[1100];
    snprintf(path, sizeof path, "%s/metrics.csv", dir);
    o->metrics = fopen(path, "w");
    if (!o->metrics) {
      snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
      return -1;
    }
    fprintf(o->metrics,
            "step,time,agents,at_goal,mean_speed,overlap_pairs,max_overlap,max_overlap_ratio,"
            "wall_penetrations,max_wall_overlap\n");
  }
  if (trajectory) {
    char path[1100];
    snprintf(path, sizeof path, "%s/trajectory", dir);
    if (thr_make_dirs(path)) {
      snprintf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
      return -1;
    }
    o->trajectory = 1;
  }
  return 0;
}

int thr_output_metrics(thr_output *o, const thr_metrics *m) {
  if (!o->metrics) return 0;
  fprintf(o->metrics, "%ld,%.6f,%ld,%ld,%.6f,%ld,%.6g,%.6g,%ld,%.6g\n", m->step, m->time, m->agents,
          m->at_goal, m->mean_speed, m->overlap_pairs, m->max_overlap, m->max_overlap_ratio,
          m->wall_penetrations, m->max_wall_overlap);
  return ferror(o->metrics) ? -1 : 0;
}

/* ParaView's JSON file-series index, rewritten after every frame so that
 * it is valid whenever the run stops. */
static int write_series(thr_output *o) {
  char path[1100], tmp[1110];
  snprintf(path, sizeof path, "%s/trajectory/trajectory.csv.series", o->dir);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return -1;
  fprintf(f, "{\n  \"file-series-version\" : \"1.0\",\n  \"files\" : [\n");
  for (long k = 0; k < o->n_frames; ++k)
    fprintf(f, "    { \"name\" : \"trajectory.%08ld.csv\", \"time\" : %.9g }%s\n", o->frame_step[k],
            o->frame_time[k], k + 1 < o->n_frames ? "," : "");
  fprintf(f, "  ]\n}\n");
  int bad = ferror(f);
  if (fclose(f) || bad) return -1;
  return rename(tmp, path);
}

int thr_output_trajectory(thr_output *o, long step, double time, const thr_agents *all) {
  if (!o->trajectory) return 0;
  char path[1100];
  snprintf(path, sizeof path, "%s/trajectory/trajectory.%08ld.csv", o->dir, step);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "id,x,y,vx,vy,radius,group\n");
  for (size_t i = 0; i < all->n; ++i)
    fprintf(f, "%u,%.9g,%.9g,%.9g,%.9g,%.6g,%d\n", all->id[i], (double)all->x[i].x, (double)all->x[i].y,
            (double)all->v[i].x, (double)all->v[i].y, (double)all->radius[i], all->group[i]);
  int bad = ferror(f);
  if (fclose(f) || bad) return -1;
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
  return write_series(o);
}

void thr_output_close(thr_output *o) {
  if (o->metrics) fclose(o->metrics);
  free(o->frame_step);
  free(o->frame_time);
  memset(o, 0, sizeof *o);
}

int thr_write_final_state(const char *path, const thr_agents *all, char *err, size_t errlen) {
  char tmp[1100];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    snprintf(err, errlen, "--final-state %s: cannot write: %s", path, strerror(errno));
    return -1;
  }
  fprintf(f, "id,x,y,vx,vy\n");
  for (size_t i = 0; i < all->n; ++i)
    fprintf(f, "%u,%a,%a,%a,%a\n", all->id[i], (double)all->x[i].x, (double)all->x[i].y, (double)all->v[i].x,
            (double)all->v[i].y);
  int bad = ferror(f);
  if (fclose(f) || bad || rename(tmp, path)) {
    snprintf(err, errlen, "--final-state %s: write failed: %s", path, strerror(errno));
    remove(tmp);
    return -1;
  }
  return 0;
}
