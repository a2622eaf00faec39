/* Single-rank decomposition: one rank owns the whole world and there are
 * no ghosts. (Several ranks: see the distributed-runs work.) */
#include "decomp.h"

#include <stdio.h>
#include <stdlib.h>

struct thr_decomp {
  MPI_Comm comm;
  int rank, nranks;
  thr_window window;
};

int thr_decomp_create(thr_decomp **d, MPI_Comm comm, const thr_world *w, const thr_params *prm, char *err,
                      size_t errlen) {
  (void)prm;
  thr_decomp *dc = calloc(1, sizeof *dc);
  if (!dc) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  dc->comm = comm;
  MPI_Comm_rank(comm, &dc->rank);
  MPI_Comm_size(comm, &dc->nranks);
  if (dc->nranks > 1) {
    snprintf(err, errlen, "this version runs on one MPI rank only (started on %d)", dc->nranks);
    free(dc);
    return -1;
  }
  dc->window = (thr_window){0, 0, w->gnx, w->gny};
  *d = dc;
  return 0;
}

void thr_decomp_free(thr_decomp *d) { free(d); }

thr_window thr_decomp_window(const thr_decomp *d) { return d->window; }

int thr_decomp_owns(const thr_decomp *d, thr_vec2 x) {
  (void)d;
  (void)x;
  return 1;
}

void thr_decomp_exchange(thr_decomp *d, thr_backend *b) {
  (void)d;
  (void)b;
}

void thr_decomp_forward(thr_decomp *d, thr_backend *b, int fields) {
  (void)d;
  (void)b;
  (void)fields;
}
