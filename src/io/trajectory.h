/* trajectory.h5: the agents at every output step in the layout of the
 * Jülich Pedestrian Dynamics Data Archive (what PedPy's
 * load_trajectory_from_ped_data_archive_hdf5 and JuPedSim read), with more
 * per-agent datasets beside it and trajectory.xdmf, through which ParaView
 * opens the same file as points over time (docs/output.md has the layout).
 *
 * Every rank hands its own agents; with a parallel HDF5 every rank writes
 * its rows itself. The file is trajectory.h5.tmp while the run goes on
 * (flushed after every frame, so a killed run leaves its frames readable)
 * and becomes trajectory.h5 when the run ends. Collective throughout;
 * returns 0, or -1 with "PATH: what: why" in err on every rank. */
#ifndef THRONG_TRAJECTORY_H
#define THRONG_TRAJECTORY_H

#include <mpi.h>
#include <stddef.h>

#include "base/agents.h"
#include "base/scenario.h"

typedef struct thr_trajectory thr_trajectory;

typedef struct thr_trajectory_info {
  const char *wkt;      /* walkable area (root attribute wkt_geometry) */
  const char *scenario; /* its name */
  double dt;            /* time step [s] */
  int every;            /* a frame every this many steps */
  int deflate;          /* 0: no compression; 1-9: shuffle + deflate */
  int dim3;             /* 3D agents: z and vz from the altitude fields (else 0) */
  const thr_scenario *building; /* a scenario with floors: x, y in the floors' own coordinates, z the
                                   elevation (base/floors.h); NULL: as stored */
} thr_trajectory_info;

/* 1 when this build writes HDF5 (THRONG_HDF5); without, open fails saying so. */
int thr_trajectory_available(void);

int thr_trajectory_open(thr_trajectory **t, MPI_Comm comm, const char *dir, const thr_trajectory_info *info,
                        char *err, size_t errlen);
/* One frame: this rank's agents (mine->n_owned of them) at `step`. */
int thr_trajectory_frame(thr_trajectory *t, long step, const thr_agents *mine, char *err, size_t errlen);
/* Write trajectory.xdmf, close and rename; frees t (also on failure). */
int thr_trajectory_close(thr_trajectory *t, char *err, size_t errlen);

#endif
