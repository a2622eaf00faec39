/* The decomposition's top: creation (uniform-area start-up partition) and
 * the once-per-step exchange that runs migration, load balancing, the
 * conservation check and the ghost exchange in order (docs/architecture.md). */
#include <stdlib.h>
#include <string.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support */
#endif

#include "balance.h"
#include "halo.h"
#include "migrate.h"
#include "nccl.h"
#include "support.h"
#include "topology.h"

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

enum { THR_TRANSPORT_AUTO, THR_TRANSPORT_NCCL, THR_TRANSPORT_MPI };

/* THRONG_HALO_TRANSPORT: auto (default), nccl or mpi; -1 when invalid. */
static int transport_asked(void) {
  const char *env = getenv("THRONG_HALO_TRANSPORT");
  if (!env || !*env || !strcmp(env, "auto")) return THR_TRANSPORT_AUTO;
  if (!strcmp(env, "nccl")) return THR_TRANSPORT_NCCL;
  if (!strcmp(env, "mpi")) return THR_TRANSPORT_MPI;
  return -1;
}

/* Do the ranks of each node use distinct devices (NCCL needs one rank per
 * device)? Collective. */
static int devices_distinct(thr_decomp *d, const unsigned char uuid[16]) {
  MPI_Comm node;
  MPI_Comm_split_type(d->comm, MPI_COMM_TYPE_SHARED, d->rank, MPI_INFO_NULL, &node);
  int n;
  MPI_Comm_size(node, &n);
  unsigned char *all = malloc((size_t)n * 16);
  int distinct = all != NULL;
  MPI_Allreduce(MPI_IN_PLACE, &distinct, 1, MPI_INT, MPI_MIN, node);
  if (distinct) {
    MPI_Allgather(uuid, 16, MPI_BYTE, all, 16, MPI_BYTE, node);
    for (int i = 0; i < n && distinct; ++i)
      for (int j = 0; j < i && distinct; ++j)
        if (!memcmp(all + 16 * i, all + 16 * j, 16)) distinct = 0;
  }
  free(all);
  MPI_Comm_free(&node);
  MPI_Allreduce(MPI_IN_PLACE, &distinct, 1, MPI_INT, MPI_MIN, d->comm);
  return distinct;
}

/* NCCL when asked or (auto) when every rank can: a backend with a
 * stream-ordered device mode, one device per rank, libnccl loaded. Returns
 * whether it is in use; fatal when asked for and impossible. */
static int choose_nccl(thr_decomp *d, thr_backend *b) {
  char why[256] = "";
  unsigned char uuid[16] = {0};
  int can = b->comm->halo_stream_mode && b->comm->halo_stream_mode(b, 1, uuid);
  MPI_Allreduce(MPI_IN_PLACE, &can, 1, MPI_INT, MPI_MIN, d->comm);
  if (!can)
    snprintf(why, sizeof why, "the %s backend has no device buffers for it", b->ops->name);
  else if (!devices_distinct(d, uuid))
    snprintf(why, sizeof why, "ranks share a GPU (NCCL needs one rank per GPU)");
  else
    d->nccl = thr_nccl_open(d->comm, getenv("THRONG_NCCL_LIBRARY"), why, sizeof why);
  if (d->nccl) {
    d->device_halo = 1;
    snprintf(d->transport_name, sizeof d->transport_name, "nccl (%s)", thr_nccl_name(d->nccl));
    return 1;
  }
  if (b->comm->halo_stream_mode) b->comm->halo_stream_mode(b, 0, uuid);
  if (d->transport == THR_TRANSPORT_NCCL)
    thr_decomp_fatal(d, "THRONG_HALO_TRANSPORT=nccl, but NCCL cannot carry the halo: %s", why);
  if (d->verbose && d->rank == 0) fprintf(stderr, "throng: no NCCL halo transport: %s\n", why);
  return 0;
}

/* Does the backend pack the once-per-step exchange itself (decision 0018)?
 * THRONG_DEVICE_EXCHANGE=0 keeps it on the host path. */
static int backend_packs_exchange(const thr_backend *b) {
  const char *dx = getenv("THRONG_DEVICE_EXCHANGE");
  return b->comm->exchange_select && !(dx && *dx && atoi(dx) == 0);
}

/* Once: NCCL (decision 0007), else device-memory halo buffers when MPI and
 * the backend both can, on every rank or on none. */
static void choose_halo_memory(thr_decomp *d, thr_backend *b) {
  d->device_exchange = backend_packs_exchange(b);
  MPI_Allreduce(MPI_IN_PLACE, &d->device_exchange, 1, MPI_INT, MPI_MIN, d->comm);
  if (d->transport != THR_TRANSPORT_MPI && choose_nccl(d, b)) {
    /* the split into interior and boundary parts cost more than running
     * the interior beside the NCCL messages saved (2 x H100, 2e6 agents
     * per GPU: 0.24 ms per step on average; docs/performance.md) */
    if (d->overlap < 0) d->overlap = 0;
    if (d->verbose && d->rank == 0)
      fprintf(stderr, "throng: halo transport %s, interior overlap %s, migration and ghosts %s\n", d->transport_name,
              d->overlap ? "on" : "off", d->device_exchange ? "in device memory" : "through the host");
    return;
  }
  if (d->overlap < 0) d->overlap = 1;
  int want = mpi_cuda_aware();
  MPI_Allreduce(MPI_IN_PLACE, &want, 1, MPI_INT, MPI_MIN, d->comm);
  int got = want ? b->comm->halo_device_mode(b, 1) : 0;
  MPI_Allreduce(MPI_IN_PLACE, &got, 1, MPI_INT, MPI_MIN, d->comm);
  if (want && !got) b->comm->halo_device_mode(b, 0);
  d->device_halo = got;
  snprintf(d->transport_name, sizeof d->transport_name, "mpi, %s buffers", got ? "device" : "host");
  if (d->verbose && d->rank == 0)
    fprintf(stderr, "throng: halo buffers in %s memory, migration and ghosts %s\n", got ? "device" : "host",
            !d->device_exchange ? "through the host" : got ? "in device memory" : "packed by the backend");
}

static int make_type(size_t bytes, MPI_Datatype *t) {
  if (MPI_Type_contiguous((int)bytes, MPI_BYTE, t) != MPI_SUCCESS) return -1;
  return MPI_Type_commit(t) == MPI_SUCCESS ? 0 : -1;
}

/* A record type that carries only the fields the run stores (decision
 * 0014): the bytes of the absent ones stay home, and the receiving store
 * drops them anyway. Its extent is the whole record, so arrays of records
 * go as they are. */
static int make_record_type(const long *offset, size_t rec_bytes, thr_field_mask absent, MPI_Datatype *t) {
  int len[THR_F_COUNT];
  MPI_Aint disp[THR_F_COUNT];
  MPI_Datatype types[THR_F_COUNT];
  int n = 0;
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (offset[f] < 0 || (absent & ((thr_field_mask)1 << f))) continue;
    len[n] = (int)thr_field_table[f].elem;
    disp[n] = (MPI_Aint)offset[f];
    types[n++] = MPI_BYTE;
  }
  MPI_Datatype s;
  if (MPI_Type_create_struct(n, len, disp, types, &s) != MPI_SUCCESS) return -1;
  int rc = MPI_Type_create_resized(s, 0, (MPI_Aint)rec_bytes, t) == MPI_SUCCESS ? 0 : -1;
  MPI_Type_free(&s);
  return rc || MPI_Type_commit(t) != MPI_SUCCESS ? -1 : 0;
}

static int make_types(thr_decomp *d) {
  thr_field_mask absent = thr_fields_absent(d->prm);
  if (make_record_type(thr_rec_offset, sizeof(thr_agent_rec), absent, &d->t_agent) ||
      make_record_type(thr_ghost_rec_offset, sizeof(thr_ghost_rec), absent, &d->t_ghost))
    return -1;
  for (int f = 0; f < THR_F_COUNT; ++f)
    if (make_type(thr_field_table[f].elem, &d->t_field[f])) return -1;
  return 0;
}

static void free_types(thr_decomp *d) {
  if (d->t_agent != MPI_DATATYPE_NULL) MPI_Type_free(&d->t_agent);
  if (d->t_ghost != MPI_DATATYPE_NULL) MPI_Type_free(&d->t_ghost);
  for (int f = 0; f < THR_F_COUNT; ++f)
    if (d->t_field[f] != MPI_DATATYPE_NULL) MPI_Type_free(&d->t_field[f]);
}

static void fail_create(thr_decomp *d, char *err, size_t errlen) {
  snprintf(err, errlen, "out of memory");
  thr_decomp_free(d);
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
  d->transport = transport_asked();
  const char *overlap = getenv("THRONG_HALO_OVERLAP");
  d->overlap = overlap && *overlap ? atoi(overlap) != 0 : -1; /* -1: by transport (choose_halo_memory) */
  snprintf(d->transport_name, sizeof d->transport_name, "none");
  if (d->transport < 0) {
    snprintf(err, errlen, "environment variable THRONG_HALO_TRANSPORT: '%s' is not one of auto, nccl, mpi",
             getenv("THRONG_HALO_TRANSPORT"));
    free(d);
    return -1;
  }
  const char *fault = getenv("THRONG_DECOMP_FAULT");
  d->fault_step = fault && *fault ? atol(fault) : -1;
  d->t_agent = d->t_ghost = MPI_DATATYPE_NULL;
  for (int f = 0; f < THR_F_COUNT; ++f) d->t_field[f] = MPI_DATATYPE_NULL;
  thr_plan_init(&d->mig);
  thr_plan_init(&d->halo);
  if (thr_partition_init(&d->part, w->gnx, w->gny, d->nranks, THR_PARTITION_MAX_BINS)) {
    fail_create(d, err, errlen);
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
  d->hist = malloc((size_t)most * sizeof *d->hist);
  if (!d->nbr || !d->nbr_send || !d->hist || make_types(d)) {
    fail_create(d, err, errlen);
    return -2;
  }
  /* start-up: uniform area; the first exchange re-balances by agent counts */
  thr_partition_area_weights(&d->part, d->hist);
  if (thr_partition_rcb(&d->part, d->hist)) {
    fail_create(d, err, errlen);
    return -2;
  }
  d->window = (thr_window){0, 0, 0, 0};
  thr_topology_apply(d, NULL);
  *out = d;
  return 0;
}

void thr_decomp_free(thr_decomp *d) {
  if (!d) return;
  thr_partition_free(&d->part);
  thr_nccl_close(d->nccl);
  free_types(d);
  thr_plan_free(&d->mig);
  thr_plan_free(&d->halo);
  void *bufs[] = {d->nbr,      d->nbr_send, d->req,      d->cand,    d->cand_mask, d->cells,
                  d->mig_dest, d->mig_recs, d->mig_send, d->mig_recv, d->pending,
                  d->gsend,    d->grecv,    d->hist};
  for (size_t k = 0; k < sizeof bufs / sizeof bufs[0]; ++k) free(bufs[k]);
  thr_balance_log_free(d);
  free(d);
}

thr_window thr_decomp_window(const thr_decomp *d) { return d->window; }

const char *thr_decomp_halo_transport(const thr_decomp *d) { return d->transport_name; }

int thr_decomp_local_rank(const thr_decomp *d) { return d->local_rank; }

int thr_decomp_owns(const thr_decomp *d, thr_vec2 x) {
  const thr_world *w = d->world;
  int gx = thr_cell_coord(x.x, w->min.x, w->cell, w->gnx);
  int gy = thr_cell_coord(x.y, w->min.y, w->cell, w->gny);
  return thr_window_contains(d->rect, gx, gy);
}

/* Migration, balancing when `balance`, the conservation check, the ghost
 * exchange. */
static void exchange(thr_decomp *d, thr_backend *b, long step, int balance) {
  d->cells_valid = 0; /* x* changed since the last exchange */
  if (d->nranks == 1) return;
  if (step == 0) {
    choose_halo_memory(d, b);
    thr_conservation_init(d, b);
  }
  d->step_sent = d->step_recv = 0;
  d->step_before = (long)b->ops->n_owned(b) + (long)d->n_pending;
  thr_migrate(d, b, THR_MIGRATE_NEIGHBOURS);
  int due = balance && (step == 0 || (d->opts.balance_every > 0 && step % d->opts.balance_every == 0));
  if (due) thr_balance(d, b);
  /* one small collective a step: the conservation check, which also tells
   * every rank whether agents moved too far for a neighbour exchange */
  if (thr_conservation_check(d, b, due || (balance && step % THR_DECOMP_VERIFY_EVERY == 0)))
    thr_migrate(d, b, THR_MIGRATE_ALL_RANKS);
  thr_halo_plan(d, b);
}

void thr_decomp_exchange(thr_decomp *d, thr_backend *b) { exchange(d, b, d->step++, 1); }

void thr_decomp_reindex(thr_decomp *d, thr_backend *b) {
  if (d->step > 0) exchange(d, b, d->step, 0);
}
