/* The host side of congestion-aware routing (kernels/eikonal.h): counting
 * agents per cell, the crowd's speed, the exits' basins and the tiled
 * eikonal solver, on host arrays. The CPU backend's route_* operations are
 * this engine over its own agents and the world's fields; the CUDA backend
 * runs the same steps on the device, with the same functions. */
#ifndef THRONG_ROUTE_ENGINE_H
#define THRONG_ROUTE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/backend.h"
#include "kernels/evac_agent.h"

typedef struct thr_route_engine {
  thr_route_setup rs;          /* the setup; its arrays copied below */
  size_t cells;
  int tiles;                   /* tnx x tny */
  int tnx, tny;
  float *base_cost;            /* [cells] */
  int32_t *walk_box;           /* [cells] */
  int *count_field, *field, *weights_of, *labelled; /* copies */
  thr_navsource **src;
  long *n_src;
  int32_t *counts;             /* [n_counts x cells] */
  float *cost;                 /* [cells] this solve's cost */
  unsigned char *fixed;        /* [cells] this solve's sources */
  int32_t *box_rows, *box_sums; /* [cells] scratch of the box sums */
  int32_t *label;              /* [cells] labels of the labelled field (-1 none) */
  float *t_next;               /* [cells] the round's new values */
  int32_t *l_next;             /* [cells] ... labels */
  unsigned char *active, *changed; /* [tiles] */
  int *list;                   /* [tiles] the active tiles, in index order */
  float *offset;               /* [n_exits] the exits' offsets in the last solve */
  int labelled_field;          /* the world field holding the exits' basins, -1: none */
  int32_t *ph_cell, *ph_partner; /* [rs.n_phantom] copies */
  float *ph_val;               /* [rs.n_phantom] the phantoms' values and labels in this solve */
  int32_t *ph_lab;
  size_t bytes;                /* what the arrays above take */
} thr_route_engine;

/* Copy the setup; 0, or -1 out of memory. */
int thr_route_engine_init(thr_route_engine *e, const thr_route_setup *rs);
void thr_route_engine_free(thr_route_engine *e);

/* Zero the counts and count the n agents at x with velocities v
 * (thr_agent_crowd_weight over the fields of ev). */
void thr_route_engine_count(thr_route_engine *e, const thr_evac_view *ev, const thr_vec2 *x, const thr_vec2 *v,
                            size_t n);

/* Add each exit's counts (array queue_counts, in THR_CROWD_QUANTA) over its
 * queue (thr_route_in_queue; the last solve's labels and values in fields). */
void thr_route_engine_basins(const thr_route_engine *e, const float *fields, int64_t *basins);

/* Recompute the dynamic fields into fields (the world's layout: field k at
 * k x cells); returns the solver's rounds summed over the fields. */
long thr_route_engine_solve(thr_route_engine *e, const float *exit_offset, float *fields);

/* The tiled solver over one field: T holds +INFINITY and the sources'
 * values on entry (fixed marks the sources), the solution on return; labels
 * L likewise (NULL: none). Returns the rounds. */
long thr_route_eikonal(thr_route_engine *e, const thr_eik_grid *g, float *T, int32_t *L);

#endif
