#include "support.h"

#include <stdarg.h>
#include <stdlib.h>

void thr_decomp_fatal(thr_decomp *d, const char *fmt, ...) {
  /* one write, so that the lines of ranks failing together do not mix */
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "throng: rank %d: %s\n", d->rank, msg);
  fflush(stderr);
  MPI_Abort(d->comm, 1);
  abort(); /* not reached */
}

void thr_decomp_backend_failed(thr_decomp *d, thr_backend *b, const char *op) {
  (void)d;
  thr_backend_fail(b, "%s: %s", op, b->error[0] ? b->error : "failed");
}

void thr_decomp_grow(thr_decomp *d, void **p, size_t *cap, size_t n, size_t elem) {
  if (n <= *cap && *p) return;
  size_t want = *cap ? *cap : 64;
  while (want < n) want *= 2;
  void *q = realloc(*p, want * elem);
  if (!q) thr_decomp_fatal(d, "out of memory (decomposition buffers for %zu items)", n);
  *p = q;
  *cap = want;
}

MPI_Request *thr_decomp_requests(thr_decomp *d, size_t n) {
  thr_decomp_grow(d, (void **)&d->req, &d->req_cap, n, sizeof *d->req);
  return d->req;
}
