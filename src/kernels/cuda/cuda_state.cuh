/* State of the CUDA backend, shared by its translation units: device
 * copies of the world, the local agents (owned first, then ghosts) as
 * structure of arrays, and per-step scratch. */
#ifndef THRONG_CUDA_STATE_CUH
#define THRONG_CUDA_STATE_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {
#include "kernels/backend_comm.h"
#include "kernels/context.h"
#include "kernels/pass_table.h"
#include "kernels/pass_parts.h"
#include "kernels/step_lists.h"
}

struct cuda_state;
/* A CUDA failure (a runtime failure, never bad input) goes to the driver's
 * handler (thr_backend_fail), which reports it and aborts the run. */
void thr_cuda_fail(const struct cuda_state *s, cudaError_t e, const char *what, const char *file, int line);
/* Both expect the backend state `s` in scope. */
#define CUDA_CHECK(call)                                                     \
  do {                                                                       \
    cudaError_t e_ = (call);                                                 \
    if (e_ != cudaSuccess) thr_cuda_fail(s, e_, #call, __FILE__, __LINE__);  \
  } while (0)
#define CUDA_LAUNCHED(what) CUDA_CHECK(cudaGetLastError())

enum { THR_CUDA_BLOCK = 256, THR_CUDA_WIDE_SIZES = 4, THR_CUDA_XCH_BUFS = 8 };
static inline unsigned thr_blocks(size_t n) { return (unsigned)((n + THR_CUDA_BLOCK - 1) / THR_CUDA_BLOCK); }

/* Congestion-aware routing on the device (cuda_route.cu): the setup's
 * arrays and the solver's scratch. */
typedef struct thr_cuda_route {
  int on;
  thr_route_setup rs; /* its host arrays are not kept: see the copies below */
  size_t cells;
  int tnx, tny, tiles;
  int *count_field, *field, *weights_of, *labelled; /* host copies */
  long *src_first;                                  /* [n_dynamic + 1] offsets into src_all */
  float *base_cost, *cost, *t_next, *offset; /* offset: the exits' offsets in the last solve */
  int labelled_field; /* the world field holding the exits' basins, -1: none */
  int32_t *walk_box, *counts, *box_rows, *box_sums, *label, *l_next;
  unsigned char *fixed, *changed, *active;
  int *list, *n_list, *src_min, *tile_ids;
  unsigned long long *basins;
  thr_navsource *src_all;
  int32_t *ph_cell, *ph_partner, *ph_lab; /* a building's phantom cells (rs.n_phantom) */
  float *ph_val;
  int *ph_moved;
  void *cub_tmp;
  size_t cub_bytes;
} thr_cuda_route;

typedef struct cuda_state {
  thr_backend *self; /* for errors */
  int device;
  cudaStream_t stream;
  thr_ctx base; /* parameters, window geometry, rings; device obstacles and goals */
  float max_radius; /* the world's largest agent radius (probe_free) */

  /* world on the device */
  int n_obstacles;
  int *d_vfirst, *d_closed, *d_obs_offset, *d_obs_items;
  size_t obs_items;
  thr_vec2 *d_verts;
  int n_goals, n_sets;
  thr_goal *d_goals;
  int *d_set_first, *d_set_items;
  thr_bstate *d_bstates; /* ORCA's behaviour tables (world.h) */
  thr_btrans *d_btrans;

  /* neighbour grid */
  size_t ncell;
  int *d_offset; /* [ncell + 1] */
  int *d_count;  /* [ncell + 1] histogram */
  void *d_scan_tmp;
  size_t scan_tmp_bytes;

  /* agents: device pointers laid out like thr_agents (same field table) */
  thr_agents a; /* a.n, a.n_owned, a.cap describe the device arrays */
  thr_vec2 *p2, *x2; /* the second buffers of x* and x^n (thr_pass_commit) */
  float *pz2, *z2;   /* ... of their altitudes (3D) */
  int *cell_of, *order, *slot;
  /* permutation scratch for fields wider than 4 bytes, one per size */
  void *wide_scratch[THR_CUDA_WIDE_SIZES];
  size_t wide_elem[THR_CUDA_WIDE_SIZES];
  int n_scratch; /* per-agent arrays besides the fields (cuda_memory.cu) */
  void *d_fused;  /* small crowds: staging of the one-launch field gather */
  int per_field_gather; /* THRONG_CUDA_PER_FIELD_GATHER set: no fused gather */
  size_t fused_cap;
  int order_is_identity; /* owned sorted, no ghosts: order[k] == k */

  /* the step's neighbour lists, built at the first solver pass of each
   * part: entry k of agent i at [k * rows + i] (coalesced) */
  thr_step_lists lists;

  thr_parts parts; /* interior, then boundary agents (set_interior); device list */

  int device_halo; /* halo buffers in device memory (CUDA-aware MPI, NCCL) */
  int stream_halo; /* stream-ordered transport: pack_halo does not wait */
  cudaStream_t comm_stream; /* its messages' stream, and the events ordering it */
  cudaEvent_t comm_ready, comm_done;
  void *d_halo[2];
  size_t d_halo_cap[2];

  /* the formations' state of this step (set_formations) */
  thr_formation_state *d_forms;
  int forms_cap;

  /* metrics accumulator */
  void *d_metrics;

  /* evacuation: device copies of the world's parts, counters, host buffers
   * of the last evac_collect (cuda_evac.cu) */
  struct {
    int on;
    int *exit_vfirst, *exit_offset, *exit_items, *area_vfirst;
    thr_vec2 *exit_verts, *slots, *lines, *area_verts;
    thr_stage_view *stages;
    thr_seam *seams;
    thr_zone *zones;
    thr_vec2 *zone_verts;
    float *fields, *ref_fields;
    unsigned long long *line_cross; /* [THR_MAX_LINES] since the last measure */
    unsigned long long *counts;     /* measure scratch */
    size_t counts_cap;
    int n_areas, map_nx, map_ny;
    float map_ox, map_oy, map_cell;
    thr_agent_rec *exited;
    thr_stage_event *events;
    size_t exited_cap, events_cap;
  } ev;
  void *d_stage2; /* a second device staging buffer */
  size_t stage2_cap;

  /* health of the last FINALIZE passes (thr_cuda_health_post): the device
   * key, two page-locked copies and their events */
  void *d_health;
  uint64_t *h_health; /* [2] */
  cudaEvent_t health_event[2];
  int health_posted[2], health_last, health_next;

  /* the once-per-step exchange on the device: scratch arrays (grown on
   * demand, cuda_exchange.cu) */
  void *xch[THR_CUDA_XCH_BUFS];
  size_t xch_cap[THR_CUDA_XCH_BUFS];

  /* decomposition: halo send list and staging */
  int *d_send_idx;
  size_t n_send, send_cap;
  void *d_stage;     /* device staging for packs */
  size_t stage_cap;
  void *h_stage;     /* pinned host staging */
  size_t h_stage_cap;
  void *h_halo[2];   /* pinned halo message buffers (send, receive) */
  /* host views (view_begin/view_end): pinned copies of some fields */
  void *h_view;
  size_t h_view_cap;
  thr_field_mask view_mask;
  size_t view_n;
  cudaEvent_t view_event;
  size_t h_halo_cap[2];
  thr_cuda_route route; /* congestion-aware routing (cuda_route.cu) */
} cuda_state;

/* Memory (cuda_memory.cu) */
int thr_cuda_reserve(cuda_state *s, size_t cap); /* -1: out of device memory (message in b->error) */
void thr_cuda_free_agents(cuda_state *s);
void *thr_cuda_stage(cuda_state *s, size_t bytes);
void *thr_cuda_stage2(cuda_state *s, size_t bytes);
void *thr_cuda_host_stage(cuda_state *s, size_t bytes);
int thr_cuda_view_begin(cuda_state *s, thr_field_mask mask);
int thr_cuda_view_end(cuda_state *s, thr_agents *view);
void thr_cuda_gather_fields(cuda_state *s, const int *d_perm, size_t n);
/* dst[k] = src[idx[k]] for k < n, elements of `elem` bytes (a multiple of 4) */
void thr_cuda_gather(cuda_state *s, void *dst, const void *src, const int *idx, size_t n, size_t elem);
void thr_cuda_plan_scratch(cuda_state *s);
size_t thr_cuda_bytes_per_agent(const cuda_state *s);

/* Grid (cuda_grid.cu) */
void thr_cuda_assign_cells(cuda_state *s, size_t from, size_t to);
void thr_cuda_cell_sort(cuda_state *s, size_t n);

/* Passes (cuda_passes.cu) */
thr_ctx thr_cuda_ctx(const cuda_state *s);
void thr_cuda_predict(cuda_state *s, float time);
void thr_cuda_pass(cuda_state *s, int kind, int part);
int thr_cuda_set_interior(cuda_state *s, thr_window interior);
void thr_cuda_measure(cuda_state *s, thr_metrics_partial *out);
int thr_cuda_formation_measure(cuda_state *s, int nf, int64_t *sq_q, int64_t *broken);
void thr_cuda_health_post(cuda_state *s);
uint64_t thr_cuda_health(cuda_state *s, int wait, int *late);

/* Evacuation (cuda_evac.cu) */
void thr_cuda_evac_set_world(cuda_state *s, const thr_world *w);
void thr_cuda_evac_free(cuda_state *s);
int thr_cuda_evac_collect(cuda_state *s, thr_evac_collect *out);
int thr_cuda_evac_assign(cuda_state *s, const thr_stage_assign *as, size_t n);
int thr_cuda_probe_free(cuda_state *s, const thr_vec2 *pts, const float *radius, size_t n, unsigned char *out);
int thr_cuda_evac_measure(cuda_state *s, thr_evac_counts *out);

/* Congestion-aware routing (cuda_route.cu): the backend's route_* operations */
void thr_cuda_route_free(cuda_state *s);
int thr_cuda_route_setup(cuda_state *s, const thr_route_setup *rs);
int thr_cuda_route_count(cuda_state *s, int32_t *host);
int thr_cuda_route_count_get(cuda_state *s, int32_t *host);
int thr_cuda_route_set_counts(cuda_state *s, const int32_t *host);
int thr_cuda_route_basins(cuda_state *s, int64_t *basins);
int thr_cuda_route_solve(cuda_state *s, const float *exit_offset, long *rounds);

/* Moving agents and ghosts (cuda_transfer.cu) */
void thr_cuda_exclusive_scan(cuda_state *s, const int *in, int *out, size_t n);
int thr_cuda_upload_owned(cuda_state *s, const thr_agents *owned);
int thr_cuda_download_owned(cuda_state *s, thr_agents *owned);
int thr_cuda_copy_out(cuda_state *s, thr_agents *all, thr_field_mask mask);
int thr_cuda_owned_cells(cuda_state *s, int32_t *cells);
size_t thr_cuda_select_outside(cuda_state *s, thr_window skip, const thr_window *boxes, int nbox, int *idx,
                               int32_t *cells, uint64_t *mask);
void thr_cuda_id_checksum(cuda_state *s, uint64_t *sum, uint64_t *sq);
int thr_cuda_extract_owned(cuda_state *s, const int *idx, size_t n, thr_agent_rec *recs);
int thr_cuda_append_owned(cuda_state *s, const thr_agent_rec *recs, size_t n);
int thr_cuda_pack_ghosts(cuda_state *s, const int *idx, size_t n, thr_ghost_rec *out);
int thr_cuda_set_ghosts(cuda_state *s, const thr_ghost_rec *g, size_t n);
int thr_cuda_set_halo_send(cuda_state *s, const int *idx, size_t n);
void thr_cuda_pack_halo(cuda_state *s, thr_field_mask mask, void *buf);
void thr_cuda_unpack_halo(cuda_state *s, thr_field_mask mask, const void *buf);
/* Halo message buffer `which` (0 send, 1 receive) of at least `bytes`:
 * device memory in device mode, else page-locked; NULL when out of memory. */
void *thr_cuda_halo_buffer(cuda_state *s, int which, size_t bytes);
int thr_cuda_append_device(cuda_state *s, const thr_agent_rec *d, size_t n);
int thr_cuda_set_ghosts_device(cuda_state *s, const thr_ghost_rec *d, size_t n);

/* The once-per-step exchange on the device (cuda_exchange.cu) */
/* Remove the owned agents d_idx[0..n) (device list, ascending): the last
 * owned agents that stay fill their slots, so only O(n) records move. */
void thr_cuda_remove_owned(cuda_state *s, const int *d_idx, size_t n);
int thr_cuda_exchange_select(cuda_state *s, int kind, thr_window skip, const thr_window *boxes, int nbox,
                             size_t *counts, uint64_t *sums);
int thr_cuda_exchange_copy_out(cuda_state *s, size_t first, size_t n, thr_agent_rec *recs);
int thr_cuda_exchange_receive(cuda_state *s, int kind, size_t n);
void thr_cuda_exchange_free(cuda_state *s);
size_t thr_cuda_exchange_bytes(const cuda_state *s);

#endif
