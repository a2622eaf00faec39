#include "route_engine.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/evac_agent.h"

static void *dup_array(const void *p, size_t n, size_t elem) {
  void *q = malloc((n ? n : 1) * elem);
  if (q && n && p) memcpy(q, p, n * elem);
  return q;
}

int thr_route_engine_init(thr_route_engine *e, const thr_route_setup *rs) {
  memset(e, 0, sizeof *e);
  e->rs = *rs;
  e->cells = (size_t)rs->nx * (size_t)rs->ny;
  e->tnx = thr_eik_tiles(rs->nx);
  e->tny = thr_eik_tiles(rs->ny);
  e->tiles = e->tnx * e->tny;
  size_t cells = e->cells, nd = (size_t)rs->n_dynamic;
  e->base_cost = dup_array(rs->base_cost, cells, sizeof *e->base_cost);
  e->walk_box = dup_array(rs->walk_box, cells, sizeof *e->walk_box);
  e->count_field = dup_array(rs->count_field, (size_t)rs->n_counts, sizeof *e->count_field);
  e->field = dup_array(rs->field, nd, sizeof *e->field);
  e->weights_of = dup_array(rs->weights_of, nd, sizeof *e->weights_of);
  e->labelled = dup_array(rs->labelled, nd, sizeof *e->labelled);
  e->n_src = dup_array(rs->n_src, nd, sizeof *e->n_src);
  e->src = calloc(nd ? nd : 1, sizeof *e->src);
  e->counts = calloc(((size_t)rs->n_counts ? (size_t)rs->n_counts : 1) * cells, sizeof *e->counts);
  e->cost = malloc((cells ? cells : 1) * sizeof *e->cost);
  e->fixed = malloc(cells ? cells : 1);
  e->box_rows = malloc((cells ? cells : 1) * sizeof *e->box_rows);
  e->box_sums = malloc((cells ? cells : 1) * sizeof *e->box_sums);
  e->label = malloc((cells ? cells : 1) * sizeof *e->label);
  e->t_next = malloc((cells ? cells : 1) * sizeof *e->t_next);
  e->l_next = malloc((cells ? cells : 1) * sizeof *e->l_next);
  e->active = malloc((size_t)e->tiles + 1);
  e->changed = malloc((size_t)e->tiles + 1);
  e->list = malloc(((size_t)e->tiles + 1) * sizeof *e->list);
  e->offset = calloc((size_t)rs->n_exits + 1, sizeof *e->offset);
  size_t np = (size_t)rs->n_phantom;
  e->ph_cell = dup_array(rs->ph_cell, np, sizeof *e->ph_cell);
  e->ph_partner = dup_array(rs->ph_partner, np, sizeof *e->ph_partner);
  e->ph_val = malloc((np ? np : 1) * sizeof *e->ph_val);
  e->ph_lab = malloc((np ? np : 1) * sizeof *e->ph_lab);
  int bad = !e->ph_cell || !e->ph_partner || !e->ph_val || !e->ph_lab || !e->base_cost || !e->walk_box || !e->count_field || !e->field || !e->weights_of || !e->labelled ||
            !e->n_src || !e->src || !e->counts || !e->cost || !e->fixed || !e->box_rows || !e->box_sums || !e->label || !e->t_next ||
            !e->l_next || !e->active || !e->changed || !e->list || !e->offset;
  for (size_t d = 0; d < nd && !bad; ++d)
    bad = !(e->src[d] = dup_array(rs->src[d], (size_t)rs->n_src[d], sizeof *e->src[d]));
  if (bad) {
    thr_route_engine_free(e);
    return -1;
  }
  for (size_t c = 0; c < cells; ++c) e->label[c] = -1;
  /* per cell: base_cost, cost, t_next (float); walk_box, box_rows, box_sums, label, l_next and the
   * counts (int32); fixed (a byte); per tile: active, changed and the list */
  e->bytes = cells * (3 * sizeof(float) + (5 + (size_t)rs->n_counts) * sizeof(int32_t) + 1) +
             (size_t)e->tiles * (2 + sizeof *e->list);
  e->labelled_field = -1;
  for (size_t d = 0; d < nd; ++d)
    if (rs->labelled[d]) e->labelled_field = rs->field[d];
  return 0;
}

void thr_route_engine_free(thr_route_engine *e) {
  for (int d = 0; e->src && d < e->rs.n_dynamic; ++d) free(e->src[d]);
  free(e->src);
  free(e->base_cost);
  free(e->walk_box);
  free(e->count_field);
  free(e->field);
  free(e->weights_of);
  free(e->labelled);
  free(e->n_src);
  free(e->counts);
  free(e->cost);
  free(e->fixed);
  free(e->box_rows);
  free(e->box_sums);
  free(e->label);
  free(e->t_next);
  free(e->l_next);
  free(e->active);
  free(e->changed);
  free(e->list);
  free(e->offset);
  free(e->ph_cell);
  free(e->ph_partner);
  free(e->ph_val);
  free(e->ph_lab);
  memset(e, 0, sizeof *e);
}

void thr_route_engine_count(thr_route_engine *e, const thr_evac_view *ev, const thr_vec2 *x, const thr_vec2 *v,
                            size_t n) {
  const thr_route_setup *rs = &e->rs;
  memset(e->counts, 0, (size_t)rs->n_counts * e->cells * sizeof *e->counts);
  for (int k = 0; k < rs->n_counts; ++k) {
    int32_t *out = e->counts + (size_t)k * e->cells;
    for (size_t i = 0; i < n; ++i) {
      int c = thr_map_cell(ev->fox, ev->foy, ev->fh, ev->fnx, ev->fny, x[i]);
      if (c >= 0) out[c] += thr_agent_crowd_weight(ev, e->count_field[k], x[i], v[i]);
    }
  }
}

void thr_route_engine_basins(const thr_route_engine *e, const float *fields, int64_t *basins) {
  if (e->rs.queue_counts < 0 || e->labelled_field < 0) return;
  const int32_t *counts = e->counts + (size_t)e->rs.queue_counts * e->cells;
  const float *T = fields + (size_t)e->labelled_field * e->cells;
  for (size_t c = 0; c < e->cells; ++c) {
    int l = e->label[c];
    if (counts[c] && l >= 0 && thr_route_in_queue(T[c], e->offset[l], e->rs.queue_radius)) basins[l] += counts[c];
  }
}

/* The cost of every cell this solve: without the crowd, or divided by the
 * speed the crowd of count array `k` leaves. */
static void crowd_cost(thr_route_engine *e, int k) {
  const thr_route_setup *rs = &e->rs;
  if (k < 0) {
    memcpy(e->cost, e->base_cost, e->cells * sizeof *e->cost);
    return;
  }
  int32_t *sums = e->box_sums;
  thr_route_box_sums(rs->nx, rs->ny, rs->box, e->counts + (size_t)k * e->cells, e->box_rows, sums);
  float area = rs->h * rs->h;
#pragma omp parallel for schedule(static)
  for (int j = 0; j < rs->ny; ++j)
    for (int i = 0; i < rs->nx; ++i) {
      size_t c = (size_t)j * (size_t)rs->nx + (size_t)i;
      float rho = thr_crowd_density_body(sums, e->walk_box, rs->nx, rs->ny, i, j, THR_CROWD_QUANTA, area);
      e->cost[c] = e->base_cost[c] / thr_crowd_scale(&rs->law, rho);
    }
}

/* One active tile of a round: its cells from T (start of the round) into
 * t_next / l_next; its flags (thr_eik_cell_flags) into changed[t]. */
static void solve_tile(thr_route_engine *e, const thr_eik_grid *g, const float *T, const int32_t *L, int t) {
  float buf[2][THR_EIK_BUF];
  int32_t lbuf[2][THR_EIK_BUF] = {{0}};
  int lab = L != NULL;
  for (int k = 0; k < THR_EIK_BUF; ++k) {
    thr_eik_load(g, T, L, t, k, buf[0], lab ? lbuf[0] : NULL);
    buf[1][k] = buf[0][k];
    if (lab) lbuf[1][k] = lbuf[0][k];
  }
  int s = 0, lowered = 1;
  for (; s < THR_EIK_SWEEPS && lowered; ++s) {
    lowered = 0;
    for (int q = 0; q < THR_EIK_TILE * THR_EIK_TILE; ++q)
      lowered |= thr_eik_sweep_cell(g, t, q, buf[s & 1], lab ? lbuf[s & 1] : NULL, buf[(s + 1) & 1],
                                    lab ? lbuf[(s + 1) & 1] : NULL);
  }
  const float *fin = buf[s & 1], *prev = buf[(s + 1) & 1];
  const int32_t *lfin = lbuf[s & 1];
  unsigned flags = 0;
  for (int q = 0; q < THR_EIK_TILE * THR_EIK_TILE; ++q) {
    int k = thr_eik_slot(q), c = thr_eik_slot_cell(g, t, k);
    if (c < 0) continue;
    e->t_next[c] = fin[k];
    if (lab) e->l_next[c] = lfin[k];
    flags |= thr_eik_cell_flags(q, fin[k], prev[k], T[c]);
  }
  e->changed[t] = (unsigned char)flags;
}

long thr_route_eikonal(thr_route_engine *e, const thr_eik_grid *g, float *T, int32_t *L) {
  int tiles = e->tiles, n = 0;
  /* the first round: the tiles holding a source, and their neighbours (a
   * source's neighbours may lie in the next tile) */
  memset(e->changed, 0, (size_t)tiles);
  for (size_t c = 0; c < e->cells; ++c)
    if (g->fixed[c]) e->changed[thr_eik_tile_of(g, (int)c)] = THR_EIK_ALL;
  thr_eik_activate(g, e->changed, e->active);
  for (int t = 0; t < tiles; ++t)
    if (e->active[t]) e->list[n++] = t;
  long rounds = 0;
  while (n > 0 && rounds < THR_EIK_MAX_ROUNDS) {
    ++rounds;
#pragma omp parallel for schedule(dynamic, 16)
    for (int k = 0; k < n; ++k) solve_tile(e, g, T, L, e->list[k]);
    /* the new values of the active tiles become the values of the next round */
    for (int k = 0; k < n; ++k) {
      int t = e->list[k], i0 = (t % g->tnx) * THR_EIK_TILE, j0 = (t / g->tnx) * THR_EIK_TILE;
      for (int j = j0; j < j0 + THR_EIK_TILE && j < g->ny; ++j)
        for (int i = i0; i < i0 + THR_EIK_TILE && i < g->nx; ++i) {
          size_t c = (size_t)j * g->nx + i;
          T[c] = e->t_next[c];
          if (L) L[c] = e->l_next[c];
        }
    }
    /* next: the tiles still changing, and the neighbours across the sides that went down */
    thr_eik_activate(g, e->changed, e->active);
    memset(e->changed, 0, (size_t)tiles);
    n = 0;
    for (int t = 0; t < tiles; ++t)
      if (e->active[t]) e->list[n++] = t;
  }
  return rounds;
}

long thr_route_engine_solve(thr_route_engine *e, const float *exit_offset, float *fields) {
  const thr_route_setup *rs = &e->rs;
  long rounds = 0;
  if (exit_offset) memcpy(e->offset, exit_offset, (size_t)rs->n_exits * sizeof *e->offset);
  for (int d = 0; d < rs->n_dynamic; ++d) {
    float *T = fields + (size_t)e->field[d] * e->cells;
    int32_t *L = e->labelled[d] ? e->label : NULL;
    crowd_cost(e, e->weights_of[d]);
    for (int k = 0; k < rs->n_phantom; ++k) e->ph_val[k] = HUGE_VALF, e->ph_lab[k] = -1;
    for (int round = 0;; ++round) {
      memset(e->fixed, 0, e->cells);
      for (size_t c = 0; c < e->cells; ++c) T[c] = HUGE_VALF;
      if (L)
        for (size_t c = 0; c < e->cells; ++c) L[c] = -1;
      for (long k = 0; k < e->n_src[d]; ++k) {
        const thr_navsource *s = &e->src[d][k];
        float v = L && exit_offset ? exit_offset[s->label] : s->value;
        if (!(e->cost[s->cell] < HUGE_VALF) || (e->fixed[s->cell] && !(v < T[s->cell]))) continue;
        T[s->cell] = v;
        e->fixed[s->cell] = 1;
        if (L) L[s->cell] = s->label;
      }
      for (int k = 0; k < rs->n_phantom; ++k) thr_eik_phantom_set(k, e->ph_cell, e->ph_val, e->ph_lab, T, L, e->fixed);
      thr_eik_grid g = {rs->nx, rs->ny, e->tnx, e->tny, e->cost, e->fixed};
      rounds += thr_route_eikonal(e, &g, T, L);
      /* a building: again until the phantoms hold their partners' values */
      int moved = 0;
      for (int k = 0; k < rs->n_phantom; ++k) moved |= thr_eik_phantom_take(k, e->ph_partner, T, L, e->ph_val, e->ph_lab);
      if (!moved || round == THR_SEAM_ROUNDS) break;
    }
  }
  return rounds;
}
