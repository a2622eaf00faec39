/* The ORCA model with force constraints (seed paper 002; docs/orca.md):
 * its summary, run.json object and keys (orca, forces, behaviors). */
#include "models.h"

#include <math.h>

#include "schema.h"

/* The ORCA model's settings, forces and behaviour states (docs/orca.md). */
static void summary(FILE *f, const thr_scenario *sc, const thr_params *p) {
  char push[32], speed[32], sign[32];
  fprintf(f, "  model      ORCA (docs/orca.md): neighbours within %g m, the nearest %d, time horizon %g s, "
         "responsibility %g, max speed %g m/s\n",
         (double)p->orca.range, p->orca.neighbors, (double)p->orca.horizon, (double)p->orca.share,
         (double)p->max_speed);
  if (p->orca.forces_on)
    fprintf(f, "  forces     collisions (restitution %g), pushes %s (gain %g 1/s, %s speed), inferred forces handed on "
           "(k_thresh %g, theta_d %g deg, theta_r %g deg, sign %s)\n",
           (double)p->orca.restitution, thr_key_choice(thr_schema_find("forces.push"), p->orca.push_mode, push, sizeof push),
           (double)p->orca.push_gain, thr_key_choice(thr_schema_find("forces.push_speed"), p->orca.push_speed, speed, sizeof speed),
           (double)p->orca.k_thresh, (double)p->orca.theta_d, (double)p->orca.theta_r,
           thr_key_choice(thr_schema_find("forces.inferred_sign"), p->orca.inferred_sign, sign, sizeof sign));
  else
    fprintf(f, "  forces     off (pure ORCA)\n");
  for (int k = 0; k < p->orca.n_bstates; ++k) {
    const thr_bstate *st = &sc->bstates[k];
    fprintf(f, "  behavior   %-12s goal %s, speed x%g, neighbours within %g m, time horizon %g s, push %s\n",
           sc->bstate_names[k],
           st->goal == THR_STATE_GOAL_KEEP ? "kept" : st->goal == THR_STATE_GOAL_STAND ? "none (stands)"
           : st->goal == THR_STATE_GOAL_CIRCULATE ? "circulate" : "a goal set",
           (double)st->speed, (double)st->range, (double)st->horizon,
           thr_key_choice(thr_schema_find("behaviors.states[].push"), st->push, push, sizeof push));
  }
  if (p->orca.n_btrans) fprintf(f, "  behavior   %d transition(s)\n", p->orca.n_btrans);
  fprintf(f, "  goals      arrive radius %g m\n", (double)p->arrive_radius);
}


static void json(FILE *f, const thr_params *p) {
  char push[32];
  fprintf(f, "  \"model\": {\"kind\": \"orca\", \"neighbor_dist\": %.9g, \"max_neighbors\": %d, \"time_horizon\": %.9g, "
             "\"responsibility\": %.9g, \"forces\": %s, \"push\": \"%s\", \"push_gain\": %.9g, \"k_thresh\": %.9g, "
             "\"behavior_states\": %d, \"behavior_transitions\": %d},\n",
          p->orca.range, p->orca.neighbors, p->orca.horizon, p->orca.share, p->orca.forces_on ? "true" : "false",
          thr_key_choice(thr_schema_find("forces.push"), p->orca.push_mode, push, sizeof push), p->orca.push_gain, p->orca.k_thresh,
          p->orca.n_bstates, p->orca.n_btrans);
}

static int refuse(thr_model_fault *f, const char *section, const char *name) {
  f->section = section;
  f->name = name;
  return -1;
}

/* The fastest preferred speed a block's agents can draw. */
static float block_top_speed(const thr_block *b) {
  if (b->speed_dist.kind == THR_DIST_NORMAL) return isfinite(b->speed_dist.hi) ? b->speed_dist.hi : b->speed_dist.a;
  return b->speed_mean + b->speed_spread;
}

/* The forces' limits the key table cannot say; the angles as cosines (once:
 * per-step code uses no trigonometry), slow_time in steps, the ghost rings'
 * range (the largest of any behaviour state). */
static int settle(thr_params *p, const thr_scenario *sc, thr_model_fault *f) {
  if (!(p->orca.k_thresh < 1.0f)) {
    snprintf(f->why, sizeof f->why, "must be below 1 (a handed-on force must fade), got %g", (double)p->orca.k_thresh);
    return refuse(f, "forces", "k_thresh");
  }
  if (p->orca.theta_d > 180.0f || p->orca.theta_r > 180.0f) {
    snprintf(f->why, sizeof f->why, "must be at most 180 degrees, got %g",
             (double)(p->orca.theta_d > 180.0f ? p->orca.theta_d : p->orca.theta_r));
    return refuse(f, "forces", p->orca.theta_d > 180.0f ? "theta_d" : "theta_r");
  }
  p->orca.cos_d = (float)cos((double)p->orca.theta_d * 3.14159265358979323846 / 180.0);
  p->orca.cos_r = (float)cos((double)p->orca.theta_r * 3.14159265358979323846 / 180.0);
  p->orca.slow_steps = (int)ceil((double)p->orca.slow_time / (double)p->dt - 1e-9);
  p->orca.rng_seed = (unsigned long long)sc->seed;
  p->orca.range_max = p->orca.range;
  for (int k = 0; k < p->orca.n_bstates; ++k)
    if (sc->bstates[k].range > p->orca.range_max) p->orca.range_max = sc->bstates[k].range;
  for (int b = 0; b < sc->n_blocks; ++b) {
    const thr_block *bk = &sc->blocks[b];
    float top = block_top_speed(bk) * (bk->bstate >= 0 && bk->bstate < p->orca.n_bstates ? sc->bstates[bk->bstate].speed : 1.0f);
    if (top > p->max_speed) {
      snprintf(f->why, sizeof f->why,
               "%g m/s is below the speed %g m/s of agents '%.40s' (line %d): ORCA velocities lie in a disc of "
               "this radius; raise it", (double)p->max_speed, (double)top, bk->name, bk->line);
      return refuse(f, "model", "max_speed");
    }
  }
  if (p->orca.neighbors > THR_ORCA_MAX_NEIGHBORS) {
    snprintf(f->why, sizeof f->why, "must be at most %d, got %d", THR_ORCA_MAX_NEIGHBORS, p->orca.neighbors);
    return refuse(f, "orca", "max_neighbors");
  }
  return 0;
}

static const char *const sections[] = {"orca", "forces", "behaviors", NULL};

const thr_model_desc thr_model_orca = {THR_MODEL_ORCA, "orca", "the radius of its velocity disc", settle,
                                       summary, json, sections};
