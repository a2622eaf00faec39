/* Recursive coordinate bisection (RCB) of the global cell grid into one
 * rectangle of cells per rank. Pure computation, no MPI: every rank runs it
 * on the same global weights and gets the same partition.
 *
 * The grid may be coarsened into square bins of f x f cells so that the
 * weight histogram stays small on huge worlds; cuts lie on bin boundaries
 * (hence on cell boundaries) and every rank gets at least one bin. */
#ifndef THRONG_PARTITION_H
#define THRONG_PARTITION_H

#include <stdint.h>

#include "base/grid.h" /* thr_window */

/* Largest number of bins of the weight histogram (the grid is coarsened
 * beyond this). */
#define THR_PARTITION_MAX_BINS 262144

typedef struct thr_partition {
  int gnx, gny;      /* global grid in cells */
  int f;             /* bin side in cells */
  int bnx, bny;      /* bins */
  int nranks;
  thr_window *rect;  /* [nranks] owned cells of each rank */
  int *bin_owner;    /* [bnx * bny] rank owning each bin */
} thr_partition;

/* Set up an empty partition of a gnx x gny grid for nranks ranks; bins of
 * f x f cells, f the smallest side keeping bnx * bny <= max_bins. Returns 0,
 * or -1 when out of memory. */
int thr_partition_init(thr_partition *p, int gnx, int gny, int nranks, long max_bins);
void thr_partition_free(thr_partition *p);

/* Number of bins = the largest rank count RCB can serve. */
long thr_partition_max_ranks(const thr_partition *p);

/* Weight of every bin when each cell weighs 1 (a uniform-area partition). */
void thr_partition_area_weights(const thr_partition *p, int64_t *w);

/* Partition by the bin weights w[bnx * bny] (>= 0): rectangles and the bin
 * owner map. Returns 0, or -1 when nranks exceeds the number of bins (the
 * partition is left unchanged) or when out of memory. */
int thr_partition_rcb(thr_partition *p, const int64_t *w);

/* Sum of w over each rank's rectangle into out[nranks]. */
void thr_partition_loads(const thr_partition *p, const int64_t *w, int64_t *out);

/* Rank owning global cell (gx, gy) (clamped into the grid). */
static inline int thr_partition_owner(const thr_partition *p, int gx, int gy) {
  if (gx < 0) gx = 0;
  if (gy < 0) gy = 0;
  if (gx >= p->gnx) gx = p->gnx - 1;
  if (gy >= p->gny) gy = p->gny - 1;
  return p->bin_owner[(gy / p->f) * p->bnx + gx / p->f];
}

/* Bin index of global cell (gx, gy) (inside the grid). */
static inline int thr_partition_bin(const thr_partition *p, int gx, int gy) {
  return (gy / p->f) * p->bnx + gx / p->f;
}

/* Rectangle r grown by k cell rings on every side, clipped to the grid. */
thr_window thr_window_grow(thr_window r, int k, int gnx, int gny);
/* Intersection of two rectangles (nx or ny = 0 when empty). */
thr_window thr_window_meet(thr_window a, thr_window b);
static inline int thr_window_empty(thr_window a) { return a.nx <= 0 || a.ny <= 0; }

#endif
