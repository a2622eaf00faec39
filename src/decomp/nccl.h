/* NCCL point-to-point messages as the halo transport (decision 0007): the
 * forwards of every pass go from device buffer to device buffer on a
 * stream of the backend, with no copy through the host and no host wait.
 * libnccl is loaded at run time (dlopen), so throng builds, links and runs
 * without it; the few declarations needed are written here, after NCCL's
 * own header (ABI of NCCL 2.x). */
#ifndef THRONG_NCCL_H
#define THRONG_NCCL_H

#include <mpi.h>
#include <stddef.h>

#include "plan.h"

typedef struct thr_nccl thr_nccl;

/* Load libnccl (`library`, else the path found at configure time, else the
 * loader's search for libnccl.so.2) and create a communicator over `comm`.
 * Collective; on failure every rank returns NULL, with the reason (this
 * rank's, or that another rank failed) in why. */
thr_nccl *thr_nccl_open(MPI_Comm comm, const char *library, char *why, size_t whylen);
void thr_nccl_close(thr_nccl *n);
/* "NCCL 2.x.y" */
const char *thr_nccl_name(const thr_nccl *n);

/* One forward: between begin and end, the plan's messages of each field
 * (items of elem bytes from send, into recv), queued on `stream` (a
 * cudaStream_t). end returns -1 with the reason in why on failure. */
void thr_nccl_begin(thr_nccl *n);
void thr_nccl_post(thr_nccl *n, const thr_comm_plan *p, const void *send, void *recv, size_t elem, void *stream);
int thr_nccl_end(thr_nccl *n, char *why, size_t whylen);

#endif
