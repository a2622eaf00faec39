/* Group formations (seed paper 004, docs/formations.md): the host side.
 * Every rank holds every formation's path and state and advances them
 * identically once per step (the group position is virtual, eq. 3), so
 * the state the kernels read needs no communication. At start-up the
 * formations attach their agents: formation index, the clear-step count,
 * and the SRD offset from the group's start position (eq. 2, the centroid,
 * summed as integers so that it is the same on any rank count). */
#ifndef THRONG_CORE_FORMATIONS_H
#define THRONG_CORE_FORMATIONS_H

#include <mpi.h>
#include <stdint.h>

#include "base/agents.h"
#include "base/blob.h"
#include "base/scenario.h"
#include "behavior/group_path.h"
#include "kernels/formation.h"

typedef struct thr_formations {
  int n;
  int *group;           /* [n] group number */
  float *speed, *wp_radius;
  float *weight;        /* [n] speed_weight (004's weight on omega) */
  int weighted;         /* some weight > 0: the step measures the errors first */
  double *rms;          /* [n] rms_error the weights act on (thr_formations_set_errors) */
  long *members;        /* [n] agents at the start (all ranks) */
  thr_group_path *path; /* [n] */
  thr_formation_state *state; /* [n] this step's position and velocity */
} thr_formations;

/* The scenario's formations; with `owned` (the rank's agents from the
 * scenario; NULL for agents from a checkpoint, which carry theirs) attach
 * those agents. Collective. Returns 0; -1 bad input (a formation without
 * agents), -2 out of memory; message in err. *out is NULL without
 * formations. */
int thr_formations_create(thr_formations **out, const thr_scenario *sc, thr_agents *owned, MPI_Comm comm,
                          char *err, size_t errlen);
void thr_formations_free(thr_formations *f);

/* One step of every group path (eq. 3) at time step dt: state = (P, V/dt),
 * at the group speed its weight leaves of omega (f->rms: the errors of the
 * step before). */
void thr_formations_advance(thr_formations *f, float dt);

/* The formations' rms_error from the quantised sums of squares
 * (thr_sim_measure_formations), the same bits on every rank. */
void thr_formations_set_errors(thr_formations *f, const int64_t *sq_q);

/* Checkpoints: the paths' state. */
void thr_formations_pack(const thr_formations *f, thr_blob *b);
int thr_formations_unpack(thr_formations *f, thr_blob *b, char *err, size_t errlen);

#endif
