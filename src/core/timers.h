/* Wall-clock time spent in each phase of the step (seconds, this rank). */
#ifndef THRONG_TIMERS_H
#define THRONG_TIMERS_H

enum thr_phase {
  THR_PHASE_PREDICT,
  THR_PHASE_GRID, /* cell assignment, sorting, neighbour index */
  THR_PHASE_STABILITY,
  THR_PHASE_LONG_RANGE,
  THR_PHASE_CONTACT,
  THR_PHASE_VELOCITY,
  THR_PHASE_XSPH, /* XSPH, clamps, commit, goals */
  THR_PHASE_HALO, /* ghost forwarding */
  THR_PHASE_MIGRATE, /* migration, ghost selection, load balance */
  THR_PHASE_METRICS,
  THR_PHASE_COUNT
};

typedef struct thr_timers {
  double t[THR_PHASE_COUNT];
  long steps;
} thr_timers;

/* Names as used in CSV headers. */
const char *thr_phase_name(int phase);

#endif
