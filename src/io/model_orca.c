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
         (double)p->orca_range, p->orca_neighbors, (double)p->orca_horizon, (double)p->orca_share,
         (double)p->max_speed);
  if (p->forces_on)
    fprintf(f, "  forces     collisions (restitution %g), pushes %s (gain %g 1/s, %s speed), inferred forces handed on "
           "(k_thresh %g, theta_d %g deg, theta_r %g deg, sign %s)\n",
           (double)p->restitution, thr_key_choice(thr_schema_find("forces.push"), p->push_mode, push, sizeof push),
           (double)p->push_gain, thr_key_choice(thr_schema_find("forces.push_speed"), p->push_speed, speed, sizeof speed),
           (double)p->k_thresh, (double)p->theta_d, (double)p->theta_r,
           thr_key_choice(thr_schema_find("forces.inferred_sign"), p->inferred_sign, sign, sizeof sign));
  else
    fprintf(f, "  forces     off (pure ORCA)\n");
  for (int k = 0; k < p->n_bstates; ++k) {
    const thr_bstate *st = &p->bstates[k];
    fprintf(f, "  behavior   %-12s goal %s, speed x%g, neighbours within %g m, time horizon %g s, push %s\n",
           sc->bstate_names[k],
           st->goal == THR_STATE_GOAL_KEEP ? "kept" : st->goal == THR_STATE_GOAL_STAND ? "none (stands)"
           : st->goal == THR_STATE_GOAL_CIRCULATE ? "circulate" : "a goal set",
           (double)st->speed, (double)st->range, (double)st->horizon,
           thr_key_choice(thr_schema_find("behaviors.states[].push"), st->push, push, sizeof push));
  }
  if (p->n_btrans) fprintf(f, "  behavior   %d transition(s)\n", p->n_btrans);
  fprintf(f, "  goals      arrive radius %g m\n", (double)p->arrive_radius);
}


static void json(FILE *f, const thr_params *p) {
  char push[32];
  fprintf(f, "  \"model\": {\"kind\": \"orca\", \"neighbor_dist\": %.9g, \"max_neighbors\": %d, \"time_horizon\": %.9g, "
             "\"responsibility\": %.9g, \"forces\": %s, \"push\": \"%s\", \"push_gain\": %.9g, \"k_thresh\": %.9g, "
             "\"behavior_states\": %d, \"behavior_transitions\": %d},\n",
          p->orca_range, p->orca_neighbors, p->orca_horizon, p->orca_share, p->forces_on ? "true" : "false",
          thr_key_choice(thr_schema_find("forces.push"), p->push_mode, push, sizeof push), p->push_gain, p->k_thresh,
          p->n_bstates, p->n_btrans);
}

static const char *keys_given(const thr_params *p, const thr_params *d) {
  if (p->orca_range != d->orca_range || p->orca_neighbors != d->orca_neighbors || p->orca_horizon != d->orca_horizon ||
      p->orca_share != d->orca_share || p->orca_horizon_obst != d->orca_horizon_obst)
    return "orca";
  if (p->forces_on != d->forces_on || p->restitution != d->restitution || p->push_mode != d->push_mode ||
      p->push_gain != d->push_gain || p->push_speed != d->push_speed || p->slow_speed != d->slow_speed ||
      p->slow_time != d->slow_time || p->k_thresh != d->k_thresh || p->theta_d != d->theta_d ||
      p->theta_r != d->theta_r || p->interact_margin != d->interact_margin ||
      p->contact_margin != d->contact_margin || p->inferred_sign != d->inferred_sign)
    return "forces";
  if (p->n_bstates) return "behaviors";
  return NULL;
}

static int refuse(thr_model_fault *f, const char *section, const char *name) {
  f->section = section;
  f->name = name;
  return -1;
}

/* The forces' limits the key table cannot say; the angles as cosines (once:
 * per-step code uses no trigonometry), slow_time in steps, the ghost rings'
 * range (the largest of any behaviour state). */
static int settle(thr_params *p, unsigned long long seed, thr_model_fault *f) {
  if (!(p->k_thresh < 1.0f)) {
    snprintf(f->why, sizeof f->why, "must be below 1 (a handed-on force must fade), got %g", (double)p->k_thresh);
    return refuse(f, "forces", "k_thresh");
  }
  if (p->theta_d > 180.0f || p->theta_r > 180.0f) {
    snprintf(f->why, sizeof f->why, "must be at most 180 degrees, got %g",
             (double)(p->theta_d > 180.0f ? p->theta_d : p->theta_r));
    return refuse(f, "forces", p->theta_d > 180.0f ? "theta_d" : "theta_r");
  }
  p->cos_d = (float)cos((double)p->theta_d * 3.14159265358979323846 / 180.0);
  p->cos_r = (float)cos((double)p->theta_r * 3.14159265358979323846 / 180.0);
  p->slow_steps = (int)ceil((double)p->slow_time / (double)p->dt - 1e-9);
  p->rng_seed = seed;
  p->orca_range_max = p->orca_range;
  for (int k = 0; k < p->n_bstates; ++k)
    if (p->bstates[k].range > p->orca_range_max) p->orca_range_max = p->bstates[k].range;
  if (p->orca_neighbors > THR_ORCA_MAX_NEIGHBORS) {
    snprintf(f->why, sizeof f->why, "must be at most %d, got %d", THR_ORCA_MAX_NEIGHBORS, p->orca_neighbors);
    return refuse(f, "orca", "max_neighbors");
  }
  return 0;
}

const thr_model_desc thr_model_orca = {THR_MODEL_ORCA, "orca", "the radius of its velocity disc", settle,
                                       summary, json, keys_given};
