/* The power-law model's parameters (Karamouzas et al. 2014; model.kind
 * powerlaw; docs/powerlaw.md): its keys powerlaw.*. A member of
 * thr_params's model union (params.h): only a power-law run holds them. */
#ifndef THRONG_PARAMS_POWERLAW_H
#define THRONG_PARAMS_POWERLAW_H

typedef struct thr_powerlaw_params {
  float k;         /* energy scale k [m^2/s^2, per unit mass] */
  float tau0;      /* interaction time horizon tau0 [s] */
  float xi;        /* relaxation time of the driving force [s] */
  float range;     /* neighbours and walls within this distance interact [m] */
  float max_accel; /* cap on |acceleration| [m/s^2]; 0: none */
} thr_powerlaw_params;

#endif
