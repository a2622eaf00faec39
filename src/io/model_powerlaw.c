/* The power-law model (Karamouzas et al. 2014; docs/powerlaw.md): its
 * summary, run.json object and keys (powerlaw). */
#include "models.h"

static void summary(FILE *f, const thr_scenario *sc, const thr_params *p) {
  (void)sc;
  fprintf(f, "  model      power law (docs/powerlaw.md): E = k/tau^2 exp(-tau/tau0), k %g m^2/s^2, tau0 %g s, driving "
         "xi %g s, range %g m, acceleration cap %g m/s^2, speed clamp %g m/s\n",
         (double)p->powerlaw.k, (double)p->powerlaw.tau0, (double)p->powerlaw.xi, (double)p->powerlaw.range, (double)p->powerlaw.max_accel,
         (double)p->max_speed);
  fprintf(f, "  goals      arrive radius %g m\n", (double)p->arrive_radius);
}

static void json(FILE *f, const thr_params *p) {
  fprintf(f, "  \"model\": {\"kind\": \"powerlaw\", \"k\": %.9g, \"tau0\": %.9g, \"xi\": %.9g, \"range\": %.9g, "
             "\"max_accel\": %.9g},\n",
          p->powerlaw.k, p->powerlaw.tau0, p->powerlaw.xi, p->powerlaw.range, p->powerlaw.max_accel);
}

static const char *const sections[] = {"powerlaw", NULL};

const thr_model_desc thr_model_powerlaw = {THR_MODEL_POWERLAW, "powerlaw", "its speed clamp", NULL, summary,
                                         json, sections};
