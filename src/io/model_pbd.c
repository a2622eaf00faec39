/* The PBD model (Weiss et al. 2017; the default): its summary and run.json
 * object. Its keys (solver, contact, long_range, avoidance, xsph, headway,
 * walls) are refused by the other models' loader (io/config.c). */
#include "models.h"

#include "schema.h"

/* The PBD model's settings, as `throng check` prints them. */
static void summary(FILE *f, const thr_scenario *sc, const thr_params *p) {
  char preset[32];
  fprintf(f, "  model      preset %s\n", thr_key_choice(thr_schema_find("model.preset"), sc->preset, preset, sizeof preset));
  fprintf(f, "  headway    %s (time gap %g s, min gap %g m, anticipation %g s, width %g, range %g m, sidestep %g m)\n",
         p->headway_on ? "on" : "off", (double)p->hw_time_gap, (double)p->hw_min_gap, (double)p->hw_anticipation,
         (double)p->hw_width, (double)p->hw_range, (double)p->hw_sidestep);
  fprintf(f, "  solver     %d stability + %d iterations, omega %g, radius scale %g\n", p->stability_iterations,
         p->solver_iterations, (double)p->omega, (double)p->radius_scale);
  fprintf(f, "  contact    %s, friction %s (mu_s %g, mu_k %g)\n", p->contact_on ? "on" : "off",
         p->friction_on ? "on" : "off", (double)p->mu_static, (double)p->mu_kinetic);
  char lr_resp[32], av_resp[32];
  thr_key_choice(thr_schema_find("long_range.response"), p->lr_response, lr_resp, sizeof lr_resp);
  thr_key_choice(thr_schema_find("avoidance.response"), p->av_response, av_resp, sizeof av_resp);
  fprintf(f, "  long range %s (k %g, tau0 %g s, radius %g m, response %s)\n", p->longrange_on ? "on" : "off",
         (double)p->lr_stiffness, (double)p->lr_tau0, (double)p->lr_radius, lr_resp);
  fprintf(f, "  avoidance  %s (k %g, tau0 %g s, radius %g m, response %s)\n", p->avoidance_on ? "on" : "off",
         (double)p->av_stiffness, (double)p->av_tau0, (double)p->av_radius, av_resp);
  fprintf(f, "  walls      %s (stiffness %g)\n", p->walls_on ? "on" : "off", (double)p->wall_stiffness);
  fprintf(f, "  xsph       %s (c %g, h %g m)\n", p->xsph_on ? "on" : "off", (double)p->xsph_c, (double)p->xsph_h);
  fprintf(f, "  clamps     max speed %g m/s, max acceleration %g m/s^2 (0 = off)\n", (double)p->max_speed,
         (double)p->max_accel);
  fprintf(f, "  blending   alpha %g, arrive radius %g m\n", (double)p->alpha, (double)p->arrive_radius);
}


static void json(FILE *f, const thr_params *p) {
  (void)p;
  fprintf(f, "  \"model\": {\"kind\": \"pbd\"},\n");
}

static const char *const sections[] = {NULL}; /* its keys are the ones every model shares */

const thr_model_desc thr_model_pbd = {THR_MODEL_PBD, "pbd", NULL, NULL, summary, json, sections};
