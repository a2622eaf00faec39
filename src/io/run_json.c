#include "run_json.h"

#include <stdio.h>

#include "build_info.h"
#include "decomp/decomp.h"
#include "models.h"
#include "output.h"
#include "schema.h"

/* A CHOICE parameter's word, as the scenario spells it. */
static const char *response_name(const char *key, int value, char buf[32]) {
  return thr_key_choice(thr_schema_find(key), value, buf, 32);
}

static void write_params(FILE *f, const thr_params *p) {
  char lr[32], av[32], plane[32];
  fprintf(f,
          "  \"parameters\": {\"dt\": %.9g, \"alpha\": %.9g, \"omega\": %.9g, \"stability_iterations\": %d, "
          "\"solver_iterations\": %d, \"radius_scale\": %.9g,\n"
          "    \"contact\": {\"enabled\": %d, \"stiffness\": %.9g, \"friction\": %d, \"static_friction\": %.9g, "
          "\"kinetic_friction\": %.9g},\n"
          "    \"long_range\": {\"enabled\": %d, \"stiffness\": %.9g, \"tau0\": %.9g, \"radius\": %.9g, "
          "\"response\": \"%s\"},\n"
          "    \"avoidance\": {\"enabled\": %d, \"stiffness\": %.9g, \"tau0\": %.9g, \"radius\": %.9g, "
          "\"response\": \"%s\", \"plane\": \"%s\", \"auto_radius\": %.9g},\n"
          "    \"walls\": {\"enabled\": %d, \"stiffness\": %.9g},\n"
          "    \"xsph\": {\"enabled\": %d, \"c\": %.9g, \"h\": %.9g},\n"
          "    \"max_speed\": %.9g, \"max_acceleration\": %.9g, \"arrive_radius\": %.9g, \"cell_size\": %.9g, "
          "\"skin\": %.9g},\n",
          p->dt, p->alpha, p->omega, p->stability_iterations, p->solver_iterations, p->radius_scale, p->contact_on,
          p->contact_stiffness, p->friction_on, p->mu_static, p->mu_kinetic, p->longrange_on, p->lr_stiffness,
          p->lr_tau0, p->lr_radius, response_name("long_range.response", p->lr_response, lr),
          p->avoidance_on, p->av_stiffness, p->av_tau0, p->av_radius,
          response_name("avoidance.response", p->av_response, av), response_name("avoidance.plane", p->av_plane, plane),
          p->av_auto_radius, p->walls_on,
          p->wall_stiffness, p->xsph_on, p->xsph_c, p->xsph_h, p->max_speed, p->max_accel, p->arrive_radius,
          p->cell_size, p->skin);
  thr_model_of(p->model_kind)->json(f, p);
  /* 3D scenarios (docs/3d.md): floor and ceiling */
  if (p->dim3)
    fprintf(f, "  \"dimensions\": 3, \"world_z\": {\"min\": %.9g, \"max\": %.9g},\n", p->z_min, p->z_max);
  else
    fprintf(f, "  \"dimensions\": 2, \"world_z\": null,\n");
}

const char *thr_run_state_name(int state) {
  static const char *const names[] = {"running", "complete", "failed", "diverged", "interrupted", "checkpointed"};
  return state >= 0 && state <= THR_RUN_CHECKPOINTED ? names[state] : "?";
}

/* A building's floors (their places inside: x + shift) and stairs with
 * the speeds they were given or derived (docs/floors.md). */
static void write_building(FILE *f, const thr_scenario *sc) {
  if (!sc->n_floors) return;
  fprintf(f, "  \"floors\": [");
  for (int k = 0; k < sc->n_floors; ++k) {
    fprintf(f, "%s{\"name\": ", k ? ", " : "");
    thr_json_string(f, sc->floors[k].name);
    fprintf(f, ", \"elevation\": %.9g, \"shift\": %.9g}", (double)sc->floors[k].elevation, (double)sc->floors[k].shift);
  }
  fprintf(f, "],\n  \"stairs\": [");
  for (int k = 0; k < sc->n_stairs; ++k) {
    const thr_stair_def *st = &sc->stairs[k];
    fprintf(f, "%s{\"name\": ", k ? ", " : "");
    thr_json_string(f, st->name);
    fprintf(f, ", \"from\": ");
    thr_json_string(f, sc->floors[st->from].name);
    fprintf(f, ", \"to\": ");
    thr_json_string(f, sc->floors[st->to].name);
    fprintf(f, ", \"kind\": \"%s\", \"riser\": %.9g, \"tread\": %.9g, \"speed_up\": %.9g, \"speed_down\": %.9g}",
            st->kind == THR_STAIR_RAMP ? "ramp" : "stair", (double)st->riser, (double)st->tread, (double)st->factor_up,
            (double)st->factor_down);
  }
  fprintf(f, "],\n");
}

int thr_write_run_json(const char *dir, const thr_scenario *sc, const thr_sim *s, long steps, double agent_steps,
                       double wall, int state, const char *reason, const thr_run_io *io, char *err,
                       size_t errlen) {
  char path[THR_PATH_MAX], tmp[THR_PATH_MAX + 8];
  if (snprintf(path, sizeof path, "%s/run.json", dir) >= (int)sizeof path) {
    snprintf(err, errlen, "%.1000s/run.json: the path is too long", dir);
    return -1;
  }
  FILE *f = thr_file_begin(path, tmp, sizeof tmp, err, errlen);
  if (!f) return -1;
  fprintf(f, "{\n  \"throng_version\": \"%s\",\n  \"complete\": %s,\n  \"state\": \"%s\",\n", THRONG_VERSION,
          state == THR_RUN_COMPLETE ? "true" : "false", thr_run_state_name(state));
  if (reason && *reason) {
    fprintf(f, "  \"reason\": ");
    thr_json_string(f, reason);
    fprintf(f, ",\n");
  }
  if (io && io->restarted_from) {
    fprintf(f, "  \"restarted_from\": ");
    thr_json_string(f, io->restarted_from);
    fprintf(f, ",\n  \"restart_step\": %ld,\n", io->restart_step);
  }
  if (io && io->checkpoint) {
    fprintf(f, "  \"checkpoint\": ");
    thr_json_string(f, io->checkpoint);
    fprintf(f, ",\n");
  }
  fprintf(f, "  \"scenario\": ");
  thr_json_string(f, sc->name);
  fprintf(f, ",\n  \"scenario_file\": ");
  thr_json_string(f, sc->path);
  fprintf(f, ",\n  \"seed\": %llu,\n  \"agents\": %ld,\n  \"ranks\": %d,\n  \"backend\": \"%s\",\n",
          (unsigned long long)sc->seed, s->n_global, s->nranks, s->be->ops->name);
  fprintf(f, "  \"halo_transport\": ");
  thr_json_string(f, thr_decomp_halo_transport(s->dc));
  fprintf(f, ",\n");
  fprintf(f,
          "  \"build\": {\"type\": \"%s\", \"compiler\": \"%s\", \"cuda\": \"%s\", \"openmp\": \"%s\", "
          "\"strict_fp\": \"%s\"},\n",
          THRONG_BUILD_TYPE, THRONG_C_COMPILER, THRONG_FEATURE_CUDA, THRONG_FEATURE_OPENMP,
          THRONG_FEATURE_STRICT_FP);
  write_params(f, &s->prm);
  fprintf(f, "  \"grid\": {\"cell\": %.9g, \"cells_x\": %d, \"cells_y\": %d},\n", s->world.cell, s->world.gnx,
          s->world.gny);
  write_building(f, sc);
  if (s->world.map_nx > 0)
    fprintf(f, "  \"measurement\": {\"maps\": {\"cell\": %.9g, \"every\": %d, \"threshold\": %.9g}},\n",
            (double)sc->map_cell, sc->map_every, (double)sc->map_threshold);
  fprintf(f, "  \"steps\": %ld,\n  \"last_step\": %ld,\n  \"wall_seconds\": %.6f,\n  \"agent_steps_per_second\": %.6g,\n",
          steps, s->step, wall, wall > 0.0 ? agent_steps / wall : 0.0);
  if (io) {
    /* what the files hold and how often: frame interval and rate in simulated time */
    double dt = (double)s->prm.dt, every = io->trajectory_format ? (double)io->trajectory_every : 0.0;
    fprintf(f, "  \"output\": {\"trajectory\": ");
    if (io->trajectory_format)
      thr_json_string(f, io->trajectory_format);
    else
      fprintf(f, "null");
    fprintf(f,
            ", \"trajectory_every\": %d, \"frame_interval_seconds\": %.9g, \"frames_per_second\": %.9g, "
            "\"metrics_every\": %d, \"metrics_interval_seconds\": %.9g, \"map_every\": %d, "
            "\"checkpoint_every\": %d, \"catalyst_every\": %d},\n",
            io->trajectory_format ? io->trajectory_every : 0, every * dt, every > 0.0 ? 1.0 / (every * dt) : 0.0,
            io->metrics_every, (double)io->metrics_every * dt, io->map_every, io->checkpoint_every,
            io->catalyst_every);
  }
  if (io)
    fprintf(f,
            "  \"output_seconds\": {\"trajectory\": %.6f, \"trajectory_frames\": %ld, \"checkpoints\": %.6f, "
            "\"checkpoint_count\": %ld, \"catalyst\": %.6f, \"catalyst_first_call\": %.6f, "
            "\"catalyst_calls\": %ld},\n",
            io->trajectory_seconds, io->trajectory_frames, io->checkpoint_seconds, io->checkpoints,
            io->catalyst_seconds, io->catalyst_first, io->catalyst_calls);
  if (sc->n_catalyst_scripts > 0) {
    fprintf(f, "  \"catalyst\": {\"every\": %d, \"scripts\": [", sc->catalyst_every);
    for (int k = 0; k < sc->n_catalyst_scripts; ++k) {
      fprintf(f, "%s", k ? ", " : "");
      thr_json_string(f, sc->catalyst_scripts[k]);
    }
    fprintf(f, "]},\n");
  }
  fprintf(f, "  \"phase_seconds_rank0\": {");
  for (int k = 0; k < THR_PHASE_COUNT; ++k)
    fprintf(f, "%s\"%s\": %.6f", k ? ", " : "", thr_phase_name(k), s->timers.t[k]);
  fprintf(f, "}\n}\n");
  return thr_file_commit(f, path, tmp, err, errlen);
}
