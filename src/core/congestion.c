/* Recomputing the exit fields as the crowd moves (docs/routing.md,
 * docs/decisions/0012-congestion-routing.md): the backend counts its
 * agents per cell and solves quickest-path fields whose cells slow down
 * with the crowd (kernels/eikonal.h); here, the counts are summed over
 * ranks and, for exit choice by time, each exit's queue time is revised:
 * the nearest-exit field's sources start at those times. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cpu/route_engine.h"
#include "kernels/evac_agent.h"
#include "routes.h"

int thr_routing_setup(thr_routing *r, thr_backend *b) {
  if (!r->n_dynamic) return 0;
  return b->ops->route_setup(b, &r->setup);
}

/* The queue times the people queueing for each exit imply (route_basins: its
 * basin's agents within the queue radius, in THR_CROWD_QUANTA): people /
 * capacity.
 * A queue time moves a share `relax` of the way towards that (agents near a
 * basin's edge change exits gradually, and the basins settle instead of
 * swinging: all of them at once would empty the queue they fled), and only
 * when it is off by more than the hysteresis. */
static void revise_queues(thr_routing *r) {
  for (int e = 0; e < r->n_exits; ++e) {
    float people = (float)r->basin[e] / (float)THR_CROWD_QUANTA;
    float q = r->capacity[e] > 0.0f ? people / r->capacity[e] : 0.0f;
    float dq = q - r->queue[e];
    if (dq > r->hysteresis || -dq > r->hysteresis) r->queue[e] += r->relax * dq;
  }
}

static int solve(thr_routing *r, thr_backend *b) {
  for (int e = 0; e < r->n_exits; ++e) r->offset[e] = r->queue[e] * THR_FREE_SPEED;
  long rounds = 0;
  if (b->ops->route_solve(b, r->choice ? r->offset : NULL, &rounds)) return -1;
  r->rounds += rounds;
  if (r->choice) r->labelled_once = 1;
  return 0;
}

int thr_routing_update(thr_routing *r, thr_backend *b, MPI_Comm comm, int nranks, int32_t *counts) {
  if (!r || !r->n_dynamic) return 0;
  size_t n = (size_t)r->setup.n_counts * (size_t)r->setup.nx * (size_t)r->setup.ny;
  if (b->ops->route_count(b, nranks > 1 ? counts : NULL)) return -1;
  if (nranks > 1) {
    /* integers: the same sums on every rank, whatever the order */
    for (size_t at = 0; at < n;) {
      int chunk = n - at > (size_t)1 << 30 ? 1 << 30 : (int)(n - at);
      MPI_Allreduce(MPI_IN_PLACE, counts + at, chunk, MPI_INT32_T, MPI_SUM, comm);
      at += (size_t)chunk;
    }
    if (b->ops->route_set_counts(b, counts)) return -1;
  }
  if (r->choice) {
    if (!r->labelled_once && solve(r, b)) return -1; /* the first time: the basins without queues */
    memset(r->basin, 0, (size_t)r->n_exits * sizeof *r->basin);
    if (b->ops->route_basins(b, r->basin)) return -1;
    revise_queues(r);
  }
  if (solve(r, b)) return -1;
  r->updates++;
  return 0;
}

int thr_routing_pack(const thr_routing *r, thr_backend *b, thr_blob *blob) {
  if (!r || !r->n_dynamic) return 0;
  size_t n = (size_t)r->setup.n_counts * (size_t)r->setup.nx * (size_t)r->setup.ny;
  int32_t *counts = malloc((n ? n : 1) * sizeof *counts);
  if (!counts) return -1;
  int rc = b->ops->route_count_get(b, counts);
  thr_blob_put_i64(blob, (int64_t)n);
  thr_blob_put_i64(blob, r->n_exits);
  thr_blob_put_i64(blob, r->updates > 0);
  thr_blob_put(blob, counts, n * sizeof *counts);
  thr_blob_put(blob, r->queue, (size_t)r->n_exits * sizeof *r->queue);
  free(counts);
  return rc;
}

/* The counts and queue times as read: agents per cell (weighted, in
 * quanta) and seconds of queue are never negative, nor NaN. */
static int routing_state_fits(const thr_routing *r, const int32_t *counts, size_t n, char *err, size_t errlen) {
  for (size_t c = 0; c < n; ++c)
    if (counts[c] < 0) {
      snprintf(err, errlen, "routing count %zu (of %zu): %d (negative)", c, n, counts[c]);
      return -1;
    }
  for (int e = 0; e < r->n_exits; ++e)
    if (!(r->queue[e] >= 0.0f) || !isfinite(r->queue[e])) {
      snprintf(err, errlen, "exit %d: a queue time of %g s (not a time)", e, (double)r->queue[e]);
      return -1;
    }
  return 0;
}

int thr_routing_unpack(thr_routing *r, thr_backend *b, thr_blob *blob, char *err, size_t errlen) {
  if (!r || !r->n_dynamic) return 0;
  size_t n = (size_t)r->setup.n_counts * (size_t)r->setup.nx * (size_t)r->setup.ny;
  int64_t nb = thr_blob_get_i64(blob), ne = thr_blob_get_i64(blob), updated = thr_blob_get_i64(blob);
  if (blob->bad || nb < 0 || (uint64_t)nb != n || ne != r->n_exits || (updated != 0 && updated != 1)) {
    snprintf(err, errlen,
             "%lld counts, %lld exits and recomputed flag %lld; this scenario's routing grid has %zu counts and %d "
             "exits (flag 0 or 1)",
             (long long)nb, (long long)ne, (long long)updated, n, r->n_exits);
    return -1;
  }
  int32_t *counts = malloc((n ? n : 1) * sizeof *counts);
  if (!counts) {
    snprintf(err, errlen, "out of memory for the routing state");
    return -1;
  }
  thr_blob_get(blob, counts, n * sizeof *counts);
  thr_blob_get(blob, r->queue, (size_t)r->n_exits * sizeof *r->queue);
  int rc = 0;
  if (blob->bad || thr_blob_left(blob)) {
    snprintf(err, errlen, "%zu bytes that do not hold %zu counts and %d queue times (cut short or bytes left over)",
             blob->n, n, r->n_exits);
    rc = -1;
  } else if (routing_state_fits(r, counts, n, err, errlen)) {
    rc = -1;
  } else if (updated) { /* before the first recomputation the fields are the static ones */
    if (b->ops->route_set_counts(b, counts) || solve(r, b)) {
      snprintf(err, errlen, "%s", b->error);
      rc = -1;
    }
    r->updates = 1;
  }
  free(counts);
  return rc;
}

int thr_routing_probe(const thr_routing *r, const thr_world *w, size_t *bytes, double *seconds, long *rounds) {
  size_t cells = (size_t)r->setup.nx * (size_t)r->setup.ny;
  *bytes = 0;
  *seconds = 0.0;
  *rounds = 0;
  size_t all = (size_t)w->n_fields * cells;
  float *fields = malloc((all ? all : 1) * sizeof *fields);
  thr_route_engine e;
  if (!fields || thr_route_engine_init(&e, &r->setup)) {
    free(fields);
    return -1;
  }
  memcpy(fields, w->fields, all * sizeof *fields);
  double t0 = MPI_Wtime();
  *rounds = thr_route_engine_solve(&e, r->choice ? r->offset : NULL, fields);
  *seconds = MPI_Wtime() - t0;
  *bytes = e.bytes;
  thr_route_engine_free(&e);
  free(fields);
  return 0;
}
