#include "balance.h"

#include <stdlib.h>
#include <string.h>

#include "migrate.h"
#include "support.h"
#include "topology.h"

static void write_row(FILE *f, int nranks, const thr_balance_row *r) {
  fprintf(f, "%ld,%d,%.6f,%.6f,%ld,%.3f,%d\n", r->step, nranks, r->before, r->after, r->max_owned, r->mean_owned,
          r->repartitioned);
}

static void log_row(thr_decomp *d, const thr_balance_row *row) {
  if (d->rank != 0) return;
  if (d->n_rows == d->rows_cap) {
    size_t cap = d->rows_cap ? 2 * d->rows_cap : 16;
    thr_balance_row *g = realloc(d->rows, cap * sizeof *g);
    if (!g) return; /* the log is informative; never stop a run for it */
    d->rows = g;
    d->rows_cap = cap;
  }
  d->rows[d->n_rows++] = *row;
  if (d->log) {
    write_row(d->log, d->nranks, row);
    fflush(d->log);
  }
}

void thr_decomp_set_log(thr_decomp *d, FILE *f) {
  d->log = f;
  if (!f || d->rank != 0) return;
  fprintf(f, "step,ranks,imbalance_before,imbalance_after,max_owned,mean_owned,repartitioned\n");
  for (size_t k = 0; k < d->n_rows; ++k) write_row(f, d->nranks, &d->rows[k]);
  fflush(f);
}

void thr_balance_log_free(thr_decomp *d) {
  free(d->rows);
  d->rows = NULL;
  d->n_rows = d->rows_cap = 0;
}

void thr_balance(thr_decomp *d, thr_backend *b) {
  int P = d->nranks;
  long n = (long)b->ops->n_owned(b), max = n, sum = n;
  MPI_Allreduce(MPI_IN_PLACE, &max, 1, MPI_LONG, MPI_MAX, d->comm);
  MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_LONG, MPI_SUM, d->comm);
  double mean = (double)sum / P;
  thr_balance_row row = {d->step - 1, 1.0, 1.0, max, mean, 0};
  row.before = row.after = sum > 0 ? (double)max / mean : 1.0;
  if (row.before > d->opts.balance_threshold) {
    /* global histogram of owned agents per bin */
    size_t nbins = (size_t)thr_partition_max_ranks(&d->part);
    memset(d->hist, 0, nbins * sizeof *d->hist);
    const int32_t *cells = thr_topology_cells(d, b);
    for (long i = 0; i < n; ++i) d->hist[thr_partition_bin(&d->part, cells[2 * i], cells[2 * i + 1])]++;
    MPI_Allreduce(MPI_IN_PLACE, d->hist, (int)nbins, MPI_INT64_T, MPI_SUM, d->comm);
    thr_partition next;
    int64_t *loads = malloc((size_t)P * sizeof *loads);
    if (!loads || thr_partition_init(&next, d->part.gnx, d->part.gny, P, THR_PARTITION_MAX_BINS) ||
        thr_partition_rcb(&next, d->hist))
      thr_decomp_fatal(d, "out of memory re-partitioning");
    thr_partition_loads(&next, d->hist, loads);
    int64_t most = 0;
    for (int r = 0; r < P; ++r) most = loads[r] > most ? loads[r] : most;
    free(loads);
    double after = sum > 0 ? (double)most / mean : 1.0;
    if (after < row.before) {
      /* every rank takes the same decision: the histogram is global */
      thr_partition_free(&d->part);
      d->part = next;
      thr_topology_apply(d, b);
      thr_migrate(d, b, THR_MIGRATE_ALL_RANKS);
      row.after = after;
      row.max_owned = (long)most;
      row.repartitioned = 1;
    } else {
      thr_partition_free(&next);
    }
  }
  log_row(d, &row);
}
