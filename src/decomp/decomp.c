/* The decomposition's glue: creation (uniform-area start-up partition),
 * partition changes, and the once-per-step exchange that runs migration,
 * the conservation check, load balancing and the ghost exchange in order
 * (docs/architecture.md). */
#include "decomp_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support */
#endif

/* Can MPI take device pointers? THRONG_CUDA_AWARE_MPI=0/1 overrides the
 * library's own answer (Open MPI's MPIX_Query_cuda_support). */
static int mpi_cuda_aware(void) {
  const char *env = getenv("THRONG_CUDA_AWARE_MPI");
  if (env && *env) return atoi(env) != 0;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support();
#else
  return 0;
#endif
}

/* Once: device-memory halo buffers when MPI and the backend both can, on
 * every rank or on none. */
static void choose_halo_memory(thr_decomp *d, thr_backend *b) {
  int want = mpi_cuda_aware();
  MPI_Allreduce(MPI_IN_PLACE, &want, 1, MPI_INT, MPI_MIN, d->comm);
  int got = want ? b->ops->halo_device_mode(b, 1) : 0;
  MPI_Allreduce(MPI_IN_PLACE, &got, 1, MPI_INT, MPI_MIN, d->comm);
  if (want && !got) b->ops->halo_device_mode(b, 0);
  d->device_halo = got;
  if (d->verbose && d->rank == 0)
    fprintf(stderr, "throng: halo buffers in %s memory\n", got ? "device" : "host");
}

void thr_decomp_fatal(thr_decomp *d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "throng: rank %d: ", d->rank);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  fflush(stderr);
  MPI_Abort(d->comm, 1);
  abort(); /* not reached */
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

const int32_t *thr_decomp_cells(thr_decomp *d, thr_backend *b) {
  if (d->cells_valid) return d->cells;
  size_t n = b->ops->n_owned(b);
  thr_decomp_grow(d, (void **)&d->cells, &d->cells_cap, 2 * n + 2, sizeof *d->cells);
  if (n && b->ops->owned_cells(b, d->cells)) thr_decomp_fatal(d, "backend %s: owned_cells failed", b->ops->name);
  d->cells_valid = 1;
  return d->cells;
}

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

void thr_decomp_apply_partition(thr_decomp *d, thr_backend *b) {
  print_partition(d);
  d->rect = d->part.rect[d->rank];
  thr_window old = d->window;
  d->window = thr_window_grow(d->rect, d->k, d->world->gnx, d->world->gny);
  thr_halo_neighbours(d);
  if (!b || !memcmp(&old, &d->window, sizeof old)) return;
  if (thr_world_set_window(d->world, d->window, d->prm))
    thr_decomp_fatal(d, "out of memory building the obstacle lists of the window");
  if (b->ops->set_world(b, d->world, d->prm)) thr_decomp_fatal(d, "backend %s: set_world failed", b->ops->name);
}

static int make_type(size_t bytes, MPI_Datatype *t) {
  if (MPI_Type_contiguous((int)bytes, MPI_BYTE, t) != MPI_SUCCESS) return -1;
  return MPI_Type_commit(t) == MPI_SUCCESS ? 0 : -1;
}

int thr_decomp_create(thr_decomp **out, MPI_Comm comm, thr_world *w, const thr_params *prm,
                      const thr_decomp_opts *opts, char *err, size_t errlen) {
  *out = NULL;
  thr_decomp *d = calloc(1, sizeof *d);
  if (!d) {
    snprintf(err, errlen, "out of memory");
    return -2;
  }
  d->comm = comm;
  MPI_Comm_rank(comm, &d->rank);
  MPI_Comm_size(comm, &d->nranks);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, d->rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &d->local_rank);
  MPI_Comm_free(&node);
  d->world = w;
  d->prm = prm;
  d->opts = *opts;
  d->k = w->k_max;
  d->verbose = getenv("THRONG_DECOMP_VERBOSE") != NULL;
  const char *fault = getenv("THRONG_DECOMP_FAULT");
  d->fault_step = fault && *fault ? atol(fault) : -1;
  d->t_agent = d->t_ghost = d->t_vec2 = MPI_DATATYPE_NULL;
  if (thr_partition_init(&d->part, w->gnx, w->gny, d->nranks, THR_PARTITION_MAX_BINS)) {
    snprintf(err, errlen, "out of memory");
    thr_decomp_free(d);
    return -2;
  }
  long most = thr_partition_max_ranks(&d->part);
  if (d->nranks > most) {
    char bins[160] = "";
    if (d->part.f > 1)
      snprintf(bins, sizeof bins, ", coarsened to %d x %d bins of %d x %d cells for partitioning", d->part.bnx,
               d->part.bny, d->part.f, d->part.f);
    snprintf(err, errlen,
             "started on %d MPI ranks, but the domain decomposition gives every rank at least one cell of the "
             "%d x %d neighbour grid (cells of %g m%s); the largest rank count this scenario admits is %ld",
             d->nranks, w->gnx, w->gny, (double)w->cell, bins, most);
    thr_decomp_free(d);
    return -1;
  }
  size_t P = (size_t)d->nranks;
  d->nbr = malloc(P * sizeof *d->nbr);
  d->nbr_send = malloc(P * sizeof *d->nbr_send);
  d->req = malloc(6 * P * sizeof *d->req); /* halo: up to 3 fields, send + receive, per neighbour */
  d->scount = calloc(P, sizeof(int));
  d->rcount = calloc(P, sizeof(int));
  d->sdispl = calloc(P, sizeof(int));
  d->rdispl = calloc(P, sizeof(int));
  d->send_cnt = calloc(P, sizeof(int));
  d->send_off = calloc(P, sizeof(int));
  d->recv_cnt = calloc(P, sizeof(int));
  d->recv_off = calloc(P, sizeof(int));
  d->hist = malloc((size_t)thr_partition_max_ranks(&d->part) * sizeof *d->hist);
  if (!d->nbr || !d->nbr_send || !d->req || !d->scount || !d->rcount || !d->sdispl || !d->rdispl || !d->send_cnt ||
      !d->send_off || !d->recv_cnt || !d->recv_off || !d->hist || make_type(sizeof(thr_agent_rec), &d->t_agent) ||
      make_type(sizeof(thr_ghost_rec), &d->t_ghost) || make_type(sizeof(thr_vec2), &d->t_vec2)) {
    snprintf(err, errlen, "out of memory");
    thr_decomp_free(d);
    return -2;
  }
  /* start-up: uniform area; the first exchange re-balances by agent counts */
  thr_partition_area_weights(&d->part, d->hist);
  if (thr_partition_rcb(&d->part, d->hist)) {
    snprintf(err, errlen, "out of memory");
    thr_decomp_free(d);
    return -2;
  }
  d->window = (thr_window){0, 0, 0, 0};
  thr_decomp_apply_partition(d, NULL);
  *out = d;
  return 0;
}

void thr_decomp_free(thr_decomp *d) {
  if (!d) return;
  thr_partition_free(&d->part);
  if (d->t_agent != MPI_DATATYPE_NULL) MPI_Type_free(&d->t_agent);
  if (d->t_ghost != MPI_DATATYPE_NULL) MPI_Type_free(&d->t_ghost);
  if (d->t_vec2 != MPI_DATATYPE_NULL) MPI_Type_free(&d->t_vec2);
  free(d->nbr);
  free(d->nbr_send);
  free(d->req);
  free(d->cells);
  free(d->bnd_idx);
  free(d->bnd_mask);
  free(d->mig_idx);
  free(d->mig_dest);
  free(d->mig_out);
  free(d->mig_in);
  free(d->scount);
  free(d->rcount);
  free(d->sdispl);
  free(d->rdispl);
  free(d->send_idx);
  free(d->send_cnt);
  free(d->send_off);
  free(d->recv_cnt);
  free(d->recv_off);
  free(d->gsend);
  free(d->grecv);
  free(d->hist);
  thr_balance_log_free(d);
  free(d);
}

thr_window thr_decomp_window(const thr_decomp *d) { return d->window; }

int thr_decomp_local_rank(const thr_decomp *d) { return d->local_rank; }

int thr_decomp_owns(const thr_decomp *d, thr_vec2 x) {
  const thr_world *w = d->world;
  int gx = thr_cell_coord(x.x, w->min.x, w->cell, w->gnx);
  int gy = thr_cell_coord(x.y, w->min.y, w->cell, w->gny);
  return thr_window_contains(d->rect, gx, gy);
}

void thr_decomp_exchange(thr_decomp *d, thr_backend *b) {
  long step = d->step++;
  d->cells_valid = 0; /* x* changed since the last exchange */
  if (d->nranks == 1) return;
  if (step == 0) {
    choose_halo_memory(d, b);
    thr_conservation_init(d, b);
  }
  d->step_sent = d->step_recv = 0;
  d->step_before = (long)b->ops->n_owned(b);
  thr_migrate(d, b);
  int due = step == 0 || (d->opts.balance_every > 0 && step % d->opts.balance_every == 0);
  if (due) thr_balance(d, b);
  thr_conservation_check(d, b, due || step % THR_DECOMP_VERIFY_EVERY == 0);
  thr_halo_plan(d, b);
}
