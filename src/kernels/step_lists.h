/* The step's neighbour lists as a backend keeps them (host or device
 * memory): per owned agent the long-range and contact neighbours of
 * thr_agent_step_lists and their counts. Both backends build them at the
 * first solver pass of each part of a step, with the same per-agent
 * function, and bind them to the context of their solver passes. */
#ifndef THRONG_STEP_LISTS_H
#define THRONG_STEP_LISTS_H

#include <stddef.h>

#include "pass_parts.h"

typedef struct thr_step_lists {
  thr_list_entry *lr, *ct; /* [rows * THR_LR_CAP], [rows * THR_CT_CAP] (16-bit entries, grid_view.h) */
  int *count;     /* [rows] packed counts */
  size_t rows;    /* capacity in agents */
  int valid;      /* bit (1 << part): built for that part this step */
} thr_step_lists;

/* Bytes of list memory per agent of capacity. */
static inline size_t thr_lists_bytes_per_row(void) {
  return (THR_LR_CAP + THR_CT_CAP) * sizeof(thr_list_entry) + sizeof(int);
}

/* Does a pass read the lists? */
static inline int thr_lists_used_by(int kind, const thr_params *prm) {
  return kind == THR_PASS_LONG_RANGE || (kind == THR_PASS_CONTACT && prm->contact_on);
}

/* Must the lists be built before this pass of this part? */
static inline int thr_lists_due(const thr_step_lists *l, int kind, int part, const thr_params *prm) {
  return thr_lists_used_by(kind, prm) && !(l->valid & (1 << part));
}

/* Point a solver pass's context at the lists: `interleaved` (the GPU: entry
 * k of agent i at [k * rows + i], coalesced loads) or not (the CPU: an
 * agent's entries together, [i * cap + k]). */
static inline void thr_lists_bind(thr_ctx *c, const thr_step_lists *l, int interleaved) {
  c->lr_list = l->lr;
  c->ct_list = l->ct;
  c->list_count = l->count;
  c->lr_si = interleaved ? 1 : THR_LR_CAP;
  c->ct_si = interleaved ? 1 : THR_CT_CAP;
  c->list_sk = interleaved ? (int)l->rows : 1;
}

#endif
