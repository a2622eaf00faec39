/* The host side of evacuation, after every step (docs/decisions/0003):
 * agents that entered an exit are removed and recorded; journeys advance
 * (waypoints passed, queue and waiting slots given and released, the next
 * stage chosen by each transition); sources add agents. Every rank keeps
 * the same model of the stages, driven by the events of all ranks in id
 * order, so the result does not depend on the rank count. */
#ifndef THRONG_EVAC_CORE_H
#define THRONG_EVAC_CORE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "base/blob.h"
#include "base/scenario.h"
#include "base/world.h"
#include "kernels/backend.h"

struct thr_decomp;
typedef struct thr_evac thr_evac;

/* An agent that left: which exit, when, and what it did. */
typedef struct thr_exit_rec {
  uint32_t id;
  int32_t exit, group;
  double time; /* end of the step it left in [s] */
  float release, born, travel;
} thr_exit_rec;

/* Returns 0, or -1 out of memory (message in err). n_initial: agents the
 * scenario starts with (ids 0 .. n_initial - 1). Collective. */
int thr_evac_create(thr_evac **e, const thr_scenario *sc, const thr_world *w, MPI_Comm comm, long n_initial,
                    char *err, size_t errlen);
void thr_evac_free(thr_evac *e);

/* After the FINALIZE pass of a step ending at time_end: removals, stage
 * events, sources (see above). Returns the change of the global agent count
 * (added - removed); *changed = agents removed plus added over all ranks.
 * Collective. */
long thr_evac_after_step(thr_evac *e, thr_backend *b, struct thr_decomp *dc, double time_end, long *changed);

/* Keep the records of agents that left for thr_evac_gather_exits (off by
 * default: nothing reads them without an output directory). */
void thr_evac_keep_records(thr_evac *e, int on);

/* Keep, per rank, the state of each agent as it left (its place at the end
 * of the step it reached an exit in) for the trajectory, which shows it
 * there in the two frames after it left: a line at an exit then sees it
 * cross even in PedPy, which ignores the movement into an agent's last
 * frame (docs/output.md, "Agents that leave"). Off by default. */
void thr_evac_keep_leavers(thr_evac *e, int on);
/* Append this rank's leavers that are due in a frame (those that left since
 * the last thr_evac_leavers_done, then those shown once before) to `into`
 * as owned agents. 0, or -1 out of memory. */
int thr_evac_leavers(const thr_evac *e, thr_agents *into);
/* After a frame: the new leavers have been shown once, the others twice. */
void thr_evac_leavers_done(thr_evac *e);
/* Leavers still due in a frame on this rank. */
size_t thr_evac_leavers_due(const thr_evac *e);

/* The records of agents that left since the last call, from every rank, on
 * rank 0 (sorted by time, then id; n = 0 elsewhere); valid until the next
 * call. Collective. */
const thr_exit_rec *thr_evac_gather_exits(thr_evac *e, size_t *n);

/* Agents added by sources so far (every rank). */
long thr_evac_added(const thr_evac *e);

/* 1 when no source will add an agent after time t: each has reached its
 * count or its stop time (or never starts), and no spawn waits for room. */
int thr_evac_sources_done(const thr_evac *e, double t);

/* The host-side model (stages, round-robin counters, sources' progress,
 * spawns waiting for room, the next id) into b, for a checkpoint; the same
 * on every rank, so rank 0's copy is the one kept. Exit records not yet
 * gathered are not part of it: gather them first. */
void thr_evac_pack(const thr_evac *e, thr_blob *b);
/* ... and back, into an evac created for the same scenario (every rank).
 * 0, or -1 when the blob does not fit the scenario (message in err). */
int thr_evac_unpack(thr_evac *e, thr_blob *b, char *err, size_t errlen);

#endif
