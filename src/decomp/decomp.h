/* Spatial domain decomposition: which rank owns which part of the world,
 * ghost (halo) selection and forwarding, migration, load balancing. The
 * only place in throng that calls MPI point-to-point (docs/architecture.md). */
#ifndef THRONG_DECOMP_H
#define THRONG_DECOMP_H

#include <mpi.h>
#include <stddef.h>

#include "../core/world.h"
#include "../kernels/backend.h"

typedef struct thr_decomp thr_decomp;

int thr_decomp_create(thr_decomp **d, MPI_Comm comm, const thr_world *w, const thr_params *prm, char *err,
                      size_t errlen);
void thr_decomp_free(thr_decomp *d);
/* The cells this rank stores: its owned cells plus the ghost rings. */
thr_window thr_decomp_window(const thr_decomp *d);
/* Does this rank own an agent at x? */
int thr_decomp_owns(const thr_decomp *d, thr_vec2 x);
/* Once per step, after sort_owned: migration and ghost exchange. */
void thr_decomp_exchange(thr_decomp *d, thr_backend *b);
/* After a pass: forward the changed fields of owned agents to their ghosts. */
void thr_decomp_forward(thr_decomp *d, thr_backend *b, int fields);

#endif
