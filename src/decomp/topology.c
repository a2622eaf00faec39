#include "topology.h"

#include <string.h>

#include "support.h"

/* THRONG_DECOMP_VERBOSE: every partition on rank 0's stderr. */
static void print_partition(const thr_decomp *d) {
  if (!d->verbose || d->rank != 0) return;
  for (int r = 0; r < d->nranks; ++r) {
    thr_window c = d->part.rect[r];
    fprintf(stderr,
            "throng: decomposition step %ld: rank %d owns cells [%d, %d) x [%d, %d) (%d x %d), ghost rings %d\n",
            d->step > 0 ? d->step - 1 : 0, r, c.x0, c.x0 + c.nx, c.y0, c.y0 + c.ny, c.nx, c.ny, d->k);
  }
  fflush(stderr);
}

/* The ranks this rank exchanges ghosts with: those whose window meets its
 * rectangle. "Within k rings" is symmetric, so they are also the ranks
 * whose rectangle meets its window (it receives ghosts from them). */
static void find_neighbours(thr_decomp *d) {
  d->n_nbr = 0;
  for (int r = 0; r < d->nranks; ++r) {
    if (r == d->rank) continue;
    thr_window s = thr_window_meet(thr_window_grow(d->part.rect[r], d->k, d->part.gnx, d->part.gny), d->rect);
    if (thr_window_empty(s)) continue;
    d->nbr[d->n_nbr] = r;
    d->nbr_send[d->n_nbr] = s;
    d->n_nbr++;
  }
  if (d->verbose) {
    char list[256] = "";
    size_t used = 0;
    for (int j = 0; j < d->n_nbr && used + 12 < sizeof list; ++j)
      used += (size_t)snprintf(list + used, sizeof list - used, " %d", d->nbr[j]);
    fprintf(stderr, "throng: decomposition step %ld: rank %d exchanges ghosts with %d ranks:%s\n",
            d->step > 0 ? d->step - 1 : 0, d->rank, d->n_nbr, list);
  }
}

void thr_topology_apply(thr_decomp *d, thr_backend *b) {
  print_partition(d);
  d->rect = d->part.rect[d->rank];
  thr_window old = d->window;
  d->window = thr_window_grow(d->rect, d->k, d->world->gnx, d->world->gny);
  find_neighbours(d);
  if (!b || !memcmp(&old, &d->window, sizeof old)) return;
  if (thr_world_set_window(d->world, d->window, d->prm))
    thr_decomp_fatal(d, "out of memory building the obstacle lists of the window");
  if (b->ops->set_world(b, d->world, d->prm)) thr_decomp_backend_failed(d, b, "set_world");
}

const int32_t *thr_topology_cells(thr_decomp *d, thr_backend *b) {
  if (d->cells_valid) return d->cells;
  size_t n = b->ops->n_owned(b);
  thr_decomp_grow(d, (void **)&d->cells, &d->cells_cap, 2 * n + 2, sizeof *d->cells);
  if (n && b->comm->owned_cells(b, d->cells)) thr_decomp_backend_failed(d, b, "owned_cells");
  d->cells_valid = 1;
  return d->cells;
}
