/* Checkpoints (docs/output.md, docs/decisions/0005): one HDF5 file with the
 * whole state of a run at a step boundary, from which `throng run SCENARIO
 * --restart FILE` continues on any rank count, bit for bit as if the run had
 * not stopped.
 *
 * It holds every STATE field of every agent (/agents/<field>, in no
 * particular order, with a checksum), the step, the work done, the seed and
 * every parameter (/parameters, one attribute per key), a fingerprint of the
 * scenario's geometry, the host-side state that has no per-agent field
 * (/state: the stage model of journeys, sources, measurement sums, the
 * evacuation counts so far, packed), the scenario text and the build.
 * Every dataset and the root attributes carry a checksum (format version
 * 3), checked before anything is used; what the packed state says is then
 * checked against the scenario as it is unpacked. A restart refuses a
 * checkpoint of another scenario, with another time step or parameter,
 * written by another version of throng, truncated, damaged (a checksum, or
 * an index or count the scenario does not have) or incomplete, with a
 * message naming the file and the dataset or what differs (bad input: exit
 * status 2). */
#ifndef THRONG_CHECKPOINT_H
#define THRONG_CHECKPOINT_H

#include <mpi.h>
#include <stddef.h>

#include "base/scenario.h"
#include "core/measure.h"
#include "core/sim.h"
#include "evac_output.h"

/* 1 when this build has checkpoints (HDF5). */
int thr_checkpoint_available(void);

/* Write the state of s to `path` (as path.tmp, renamed when complete).
 * m: the measurement sums (NULL: none); ev: rank 0's evacuation outputs
 * (NULL: none). Exit records not yet written must have been gathered.
 * Collective; 0, or -1 with "PATH: what: why" in err on every rank. */
int thr_checkpoint_write(const char *path, thr_sim *s, const thr_scenario *sc, thr_measure *m,
                         const thr_evac_output *ev, char *err, size_t errlen);

typedef struct thr_checkpoint thr_checkpoint;

/* Open `path` for a restart of sc and check that it fits (see above).
 * Collective; 0, -1 bad input (message in err: exit 2), -2 other failure. */
int thr_checkpoint_open(thr_checkpoint **c, const char *path, const thr_scenario *sc, MPI_Comm comm, char *err,
                        size_t errlen);
/* The step it was written at and the agents it holds. */
long thr_checkpoint_step(const thr_checkpoint *c);
/* The agents, for thr_sim_init_from (each rank reads every row and keeps
 * its own; the checksum is checked on the way). */
thr_agent_source thr_checkpoint_agents(thr_checkpoint *c);
/* After thr_sim_init_from: the step, the work done so far, the evacuation
 * model, the formations and the routing state; the measurement sums and
 * the outputs' counts are checked here too (unpacked into scratch copies),
 * so that a damaged checkpoint is refused before the run writes anything.
 * Collective; 0 or -1 (message in err: exit 2). */
int thr_checkpoint_restore_sim(thr_checkpoint *c, thr_sim *s, char *err, size_t errlen);
/* The measurement sums and (rank 0) the evacuation counts, into outputs
 * opened for the restarted run (either may be NULL). Collective. */
int thr_checkpoint_restore_outputs(thr_checkpoint *c, thr_sim *s, thr_measure *m, thr_evac_output *ev, char *err,
                                   size_t errlen);
void thr_checkpoint_close(thr_checkpoint *c);

#endif
