/* Wall-clock time spent in each phase of the step (seconds, this rank):
 * prediction, the neighbour grid, one phase per pass of the pass table,
 * halo forwarding, migration, metrics. */
#ifndef THRONG_TIMERS_H
#define THRONG_TIMERS_H

#include "kernels/pass_list.h"

enum thr_phase {
  THR_PHASE_PREDICT,
  THR_PHASE_GRID, /* cell assignment, sorting, neighbour index */
#define THR_X(NAME, label, stage, fn, fn3, on, fwd) THR_PHASE_##NAME,
  THR_PASSES(THR_X) /* THR_PHASE_STABILITY ... THR_PHASE_FINALIZE, in pass order */
#undef THR_X
  THR_PHASE_EVACUATION, /* exits, journeys, sources (core/evac.c) */
  THR_PHASE_ROUTING, /* recomputing the fields that see congestion (core/congestion.c) */
  THR_PHASE_HALO,    /* ghost forwarding */
  THR_PHASE_MIGRATE, /* migration, ghost selection, load balance */
  THR_PHASE_METRICS,
  THR_PHASE_COUNT
};

/* The phase of pass `kind`. */
static inline int thr_pass_phase(int kind) { return THR_PHASE_GRID + 1 + kind; }

typedef struct thr_timers {
  double t[THR_PHASE_COUNT];
  long steps;
} thr_timers;

/* Names as used in CSV headers. */
const char *thr_phase_name(int phase);

#endif
