/* A Catalyst module without ParaView, for tests and for measuring throng's
 * side of a Catalyst call (the view of the agents, the channels): it
 * implements insitu_module.h and, for every call, appends one line to
 * $THRONG_NULL_MODULE_OUT.RANK:
 *   step n id_sum sum_x sum_y sum_speed geometry_shapes
 * Used through THRONG_CATALYST_MODULE (tests/catalyst/check_catalyst.py,
 * cases null_module_*; bench/gpu_catalyst.sh). */
#include <stdio.h>
#include <stdlib.h>

#include "insitu/insitu_module.h"

typedef struct null_state {
  FILE *f;
  int shapes;
} null_state;

static const char *null_description(void) { return "null module (tests/catalyst/null_module.c)"; }

static int null_open(void **impl, MPI_Comm comm, const char *const *scripts, int n_scripts, const char *workdir,
                     const thr_insitu_geometry *geometry, char *err, size_t errlen) {
  (void)scripts, (void)n_scripts, (void)workdir;
  const char *out = getenv("THRONG_NULL_MODULE_OUT");
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  char path[1100];
  snprintf(path, sizeof path, "%s.%d", out ? out : "", rank);
  null_state *s = calloc(1, sizeof *s);
  if (!s || !out || !(s->f = fopen(path, "w"))) {
    snprintf(err, errlen, "null module: cannot write %s (set THRONG_NULL_MODULE_OUT)", path);
    free(s);
    return -1;
  }
  s->shapes = geometry ? geometry->n_shapes : -1;
  *impl = s;
  return 0;
}

static int null_execute(void *impl, const thr_insitu_agents *a, char *err, size_t errlen) {
  null_state *s = impl;
  unsigned long long ids = 0;
  double sx = 0.0, sy = 0.0, sz = 0.0, sv = 0.0;
  for (size_t i = 0; i < a->n; ++i) {
    ids += a->id[i];
    sx += a->points[3 * i], sy += a->points[3 * i + 1], sz += a->points[3 * i + 2], sv += a->speed[i];
  }
  if (fprintf(s->f, "%ld %zu %llu %.9g %.9g %.9g %d %.9g\n", a->step, a->n, ids, sx, sy, sv, s->shapes, sz) < 0) {
    snprintf(err, errlen, "null module: write failed");
    return -1;
  }
  return 0;
}

static void null_close(void *impl) {
  null_state *s = impl;
  if (s && s->f) fclose(s->f);
  free(s);
}

static const thr_insitu_module table = {THR_INSITU_ABI, sizeof(thr_insitu_agents), sizeof(thr_insitu_geometry),
                                        null_description, null_open, null_execute, null_close};

const thr_insitu_module *thr_insitu_module_v1(void);
const thr_insitu_module *thr_insitu_module_v1(void) { return &table; }
