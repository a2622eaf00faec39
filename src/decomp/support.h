/* What every file of the decomposition needs: stopping the run, growing
 * buffers, requests. */
#ifndef THRONG_DECOMP_SUPPORT_H
#define THRONG_DECOMP_SUPPORT_H

#include <stddef.h>

#include "decomp_state.h"

/* Print "throng: rank R: <message>" and abort the simulation's
 * communicator. For the decomposition's own failures (out of memory). */
void thr_decomp_fatal(thr_decomp *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;
/* A backend operation returned an error: to the driver's handler, which
 * reports it with the backend's message and aborts. */
void thr_decomp_backend_failed(thr_decomp *d, thr_backend *b, const char *op)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;
/* Grow *p (capacity *cap elements of elem bytes) to hold n; aborts when out
 * of memory. */
void thr_decomp_grow(thr_decomp *d, void **p, size_t *cap, size_t n, size_t elem);
/* At least n requests. */
MPI_Request *thr_decomp_requests(thr_decomp *d, size_t n);

#endif
