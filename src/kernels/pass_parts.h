/* Which owned agents a pass computes, and when its output becomes its input:
 * written once for both backends (the CUDA one keeps its lists in device
 * memory and uses the same selection on the host).
 *
 * Interior agents (cells more than the ghost width inside the rank's
 * rectangle) read no ghost, so they can be computed while the previous
 * pass's halo messages are in flight; the boundary agents follow once the
 * ghosts have arrived. Without a split every agent is a boundary agent. */
#ifndef THRONG_PASS_PARTS_H
#define THRONG_PASS_PARTS_H

#include <stddef.h>

#include "base/agents.h"
#include "pass_list.h"

enum { THR_PART_ALL = 0, THR_PART_INTERIOR = 1, THR_PART_BOUNDARY = 2 };

/* A backend's split of its owned agents: list[0, n_interior) interior,
 * list[n_interior, n_owned) boundary, each in storage order. */
typedef struct thr_parts {
  int *list; /* backend memory (host or device) */
  size_t cap;
  size_t n_interior;
  int valid; /* the split matches the current owned agents */
} thr_parts;

/* The agents of one part: agent t of the part is list[t], or t without a
 * list. */
typedef struct thr_part_range {
  const int *list;
  long n;
} thr_part_range;
#define THR_PART_AGENT(r, t) ((r).list ? (long)(r).list[t] : (long)(t))

static inline thr_part_range thr_parts_select(const thr_parts *pp, size_t n_owned, int part) {
  thr_part_range r = {NULL, (long)n_owned};
  if (part == THR_PART_ALL) return r;
  if (!pp->valid) {
    if (part == THR_PART_INTERIOR) r.n = 0;
    return r;
  }
  if (part == THR_PART_INTERIOR) {
    r.list = pp->list;
    r.n = (long)pp->n_interior;
  } else {
    r.list = pp->list + pp->n_interior;
    r.n = (long)(n_owned - pp->n_interior);
  }
  return r;
}

/* A pass writes its new x* (and x^n; in 3D their altitudes too) into the
 * second buffers; once the part that completes it has run (ALL or
 * BOUNDARY), they become the store's. */
static inline void thr_swap_buffers(void **a, void **b) {
  void *t = *a;
  *a = *b;
  *b = t;
}
static inline void thr_pass_commit(thr_agents *a, thr_vec2 **x_out, thr_vec2 **p_out, float **z_out, float **pz_out,
                                   int dim3, int kind, int part) {
  if (part == THR_PART_INTERIOR) return;
  int stage = thr_pass_stage(kind);
  if (stage == THR_STAGE_PLAN || stage == THR_STAGE_STABILITY || stage == THR_STAGE_SOLVER) {
    thr_swap_buffers((void **)&a->p, (void **)p_out);
    if (dim3) thr_swap_buffers((void **)&a->pz, (void **)pz_out);
  }
  if (stage == THR_STAGE_STABILITY) {
    thr_swap_buffers((void **)&a->x, (void **)x_out);
    if (dim3) thr_swap_buffers((void **)&a->z, (void **)z_out);
  }
}

#endif
