/* The once-per-step exchange packed by the CPU backend (backend_comm.h
 * exchange_*): the selection, grouping by box and removal of the CUDA
 * backend (cuda_exchange.cu), written over the backend's own operations, so
 * that the decomposition's backend-packed path runs, and is tested, on
 * every build. */
#ifndef THRONG_CPU_EXCHANGE_H
#define THRONG_CPU_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/backend_comm.h"

/* Scratch kept between steps (grown on demand). */
typedef struct thr_cpu_exchange {
  int *idx, *list;
  int32_t *cells;
  uint64_t *mask;
  thr_agent_rec *recs;
  size_t cap, list_cap;
} thr_cpu_exchange;

void thr_cpu_exchange_free(thr_cpu_exchange *x);
int thr_cpu_exchange_select(thr_backend *b, thr_cpu_exchange *x, int kind, thr_window skip, const thr_window *boxes,
                            int nbox, size_t *counts, uint64_t *sums);
int thr_cpu_exchange_copy_out(thr_backend *b, size_t first, size_t n, thr_agent_rec *recs);
int thr_cpu_exchange_receive(thr_backend *b, int kind, size_t n);

#endif
