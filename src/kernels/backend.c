/* Errors of backends (backend.h): messages kept for the caller, and the
 * driver's handler for failures inside operations. */
#include "backend.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int thr_backend_error(thr_backend *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b->error, sizeof b->error, fmt, ap);
  va_end(ap);
  return -1;
}

void thr_backend_fail(thr_backend *b, const char *fmt, ...) {
  char msg[sizeof b->error];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (b && b->on_fail) b->on_fail(b->fail_ctx, b, msg);
  /* no handler, or one that returned: nothing sensible can go on */
  fprintf(stderr, "throng: backend %s: %s\n", b && b->ops ? b->ops->name : "?", msg);
  fflush(stderr);
  abort();
}
