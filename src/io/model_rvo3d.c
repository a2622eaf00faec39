/* The 3D ORCA model (RVO2-3D's algorithm; model.kind rvo3d; docs/3d.md):
 * its summary, run.json object and keys (rvo3d). */
#include "models.h"

static void summary(FILE *f, const thr_scenario *sc, const thr_params *p) {
  (void)sc;
  fprintf(f, "  model      3D ORCA (RVO-3D, docs/3d.md): neighbours within %g m (3D), the nearest %d, time horizon %g s, "
             "responsibility %g, speed sphere %g m/s, floor and ceiling hard\n",
          (double)p->rvo3d.range, p->rvo3d.neighbors, (double)p->rvo3d.horizon, (double)p->rvo3d.share,
          (double)p->max_speed);
  fprintf(f, "  goals      arrive radius %g m\n", (double)p->arrive_radius);
}

static void json(FILE *f, const thr_params *p) {
  fprintf(f, "  \"model\": {\"kind\": \"rvo3d\", \"neighbor_dist\": %.9g, \"max_neighbors\": %d, \"time_horizon\": %.9g, "
             "\"responsibility\": %.9g},\n",
          p->rvo3d.range, p->rvo3d.neighbors, p->rvo3d.horizon, p->rvo3d.share);
}

/* What the key table cannot say: no obstacles, the neighbour list's
 * capacity. (Its 3D
 * scenario: the loader refuses a model whose plan has no form for the
 * scenario's dimension, io/config.c.) */
static int settle(thr_params *p, const thr_scenario *sc, thr_model_fault *f) {
  if (sc->n_obstacles > 0) { /* RVO2-3D has none; the prisms of 3D PBD are not half-spaces here */
    snprintf(f->why, sizeof f->why, "model.kind rvo3d has no obstacles (docs/3d.md): remove them or use model.kind pbd");
    f->section = "obstacles";
    f->name = NULL;
    return -1;
  }
  if (p->rvo3d.neighbors > THR_RVO3D_MAX_NEIGHBORS) {
    snprintf(f->why, sizeof f->why, "must be at most %d, got %d", THR_RVO3D_MAX_NEIGHBORS, p->rvo3d.neighbors);
    f->section = "rvo3d";
    f->name = "max_neighbors";
    return -1;
  }
  return 0;
}

static const char *const sections[] = {"rvo3d", NULL};

const thr_model_desc thr_model_rvo3d = {THR_MODEL_RVO3D, "rvo3d", "the radius of its velocity sphere", settle, summary,
                                        json, sections};
