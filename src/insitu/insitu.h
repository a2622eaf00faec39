/* In-situ visualisation (docs/insitu.md): the simulation hands its state to
 * ParaView Catalyst every few steps; Python scripts chosen at run time
 * write extracts and images, or serve a live ParaView.
 *
 * What crosses this door is plain C: a struct of arrays per channel,
 * independent of VTK, so that another implementation (Catalyst 2's conduit
 * nodes, where libcatalyst exists) takes the same data. Two channels:
 *   agents    one vertex per owned agent of this rank (every rank hands its
 *             own piece), with velocity, speed, id, group, radius, state;
 *   geometry  walls, obstacles, exits, measurement areas and lines as
 *             polylines with a kind and an index; built once, handed with
 *             every call (rank 0 holds it, the other ranks hand empty pieces).
 * The implementation is a module loaded when a run asks for Catalyst
 * (insitu_loader.c: lib/throng/libthrong_catalyst.so beside the executable's
 * bin/, built from catalyst_adaptor.cxx on the legacy vtkCPProcessor API of
 * ParaView 5.11; docs/decisions/0006-catalyst-module.md says why a module):
 * throng and its library never link VTK or Python themselves. */
#ifndef THRONG_INSITU_H
#define THRONG_INSITU_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* only pointers to these cross the door: the header stays C++-clean */
struct thr_agents;
struct thr_scenario;

/* The agents channel: n owned agents of this rank. Positions and
 * velocities as 3-vectors (VTK's points are 3-D; z = 0 in the plane), so
 * that an implementation can wrap them without copying; id, group, radius
 * and state point into the backend's host arrays. */
typedef struct thr_insitu_agents {
  size_t n;
  long step;
  double time;
  const float *points;   /* [3n] x, y, z [m] */
  const float *velocity; /* [3n] [m/s] */
  const float *speed;    /* [n] |velocity| [m/s] */
  const uint32_t *id;
  const int32_t *group;
  const float *radius;   /* [m] */
  const uint32_t *state; /* THR_FLAG_* bits (docs/output.md) */
} thr_insitu_agents;

/* What a geometry shape is (cell data "kind": 0 wall, 1 obstacle, 2 exit, 3 area, 4 line). */
enum thr_insitu_kind { THR_INSITU_WALL, THR_INSITU_OBSTACLE, THR_INSITU_EXIT, THR_INSITU_AREA, THR_INSITU_LINE };

/* The geometry channel: n_shapes polylines (closed ones repeat no vertex). */
typedef struct thr_insitu_geometry {
  int n_shapes;
  int n_points;
  float *points; /* [3 n_points] */
  int *first;    /* [n_shapes + 1]: shape k is points first[k] .. first[k+1] */
  int *closed;   /* [n_shapes] */
  int *kind;     /* [n_shapes] enum thr_insitu_kind */
  int *index;    /* [n_shapes] its number among the shapes of its kind: exit k is the scenario's exits[k]
                    (names in the output directory's geometry.json; no strings in the channel, as VTK
                    9.2's .pvtp reader crashes on string arrays) */
} thr_insitu_geometry;


/* The scenario's shapes (walls of the walkable area, obstacles, exits,
 * measurement areas and lines). 0, or -1 when out of memory. */
int thr_insitu_geometry_build(thr_insitu_geometry *g, const struct thr_scenario *sc);
void thr_insitu_geometry_free(thr_insitu_geometry *g);

/* Reused buffers of the agents channel. */
typedef struct thr_insitu_buffers {
  size_t cap;
  float *points, *velocity, *speed;
} thr_insitu_buffers;

/* The channel over `owned` (its first n_owned agents, host memory): points,
 * velocity and speed computed into b (with z and vz when dim3), the rest
 * pointing into owned. 0, or -1 when out of memory. */
int thr_insitu_agents_fill(thr_insitu_agents *out, thr_insitu_buffers *b, const struct thr_agents *owned, int dim3,
                           long step, double time);
void thr_insitu_buffers_free(thr_insitu_buffers *b);

/* ---- the implementation -------------------------------------------------- */

typedef struct thr_insitu thr_insitu;

/* 1 when this build made the Catalyst module (THRONG_CATALYST), or
 * THRONG_CATALYST_MODULE names one. */
int thr_insitu_available(void);
/* Where the module is looked for: $THRONG_CATALYST_MODULE, else
 * <bin>/../lib/throng/libthrong_catalyst.so. */
const char *thr_insitu_module_path(char *buf, size_t len);

/* Load the module, start Catalyst on comm with the scripts (read,
 * compiled and initialised here: a Python error fails now). Extracts go under
 * workdir (NULL: the current directory). Collective; 0, or -1 with a message
 * naming the script on every rank. */
int thr_insitu_open(thr_insitu **out, MPI_Comm comm, const char *const *scripts, int n_scripts, const char *workdir,
                    const thr_insitu_geometry *geometry, char *err, size_t errlen);
/* What the module is ("ParaView 5.11.0 Catalyst (legacy API)"). */
const char *thr_insitu_description(const thr_insitu *c);
/* Hand this rank's piece of the agents (and the geometry) to the scripts.
 * Collective; 0, or -1 when a script failed (err says which step). */
int thr_insitu_execute(thr_insitu *c, const thr_insitu_agents *agents, char *err, size_t errlen);
/* Finalise Catalyst and free c (NULL is fine). Collective. */
void thr_insitu_close(thr_insitu *c);

#endif
