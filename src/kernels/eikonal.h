/* Travel-time fields that see the crowd (docs/routing.md, decision 0012),
 * shared by the host solver (kernels/cpu/cpu_eikonal.c) and the CUDA one
 * (kernels/cuda/cuda_eikonal.cu): the walking speed a crowd leaves in a
 * cell, and the tiled iterative eikonal solver both run with the same
 * schedule, so that both give the same bits (strict build) on any rank.
 *
 * The solver: the grid in tiles of THR_EIK_TILE^2 cells. Each round, every
 * active tile reads its cells and a one-cell halo from the values at the
 * start of the round, runs Jacobi sweeps of the first-order upwind update
 * inside the tile (values only go down) until one changes nothing or
 * THR_EIK_SWEEPS have run (the same values either way), and writes its
 * cells; the tiles still changing in their last sweep, and the neighbours
 * across the sides whose cells went down, are the next round's active
 * tiles, in index order. Rounds end when no tile changes: the
 * values are then a fixed point of the update, the discrete eikonal
 * solution that fast marching (behavior/navfield.c) computes in one pass. */
#ifndef THRONG_EIKONAL_H
#define THRONG_EIKONAL_H

#include <math.h>
#include <stdint.h>

#include "base/hostdevice.h"
#include "fpmath.h"

#define THR_EIK_TILE 8
#define THR_EIK_SWEEPS 32
#define THR_EIK_BUF ((THR_EIK_TILE + 2) * (THR_EIK_TILE + 2)) /* a tile with its halo */
#define THR_EIK_MAX_ROUNDS 100000
/* Most solves of one field in a building (its phantoms take their
 * partners' values after each; behavior/navfield.h) */
#define THR_SEAM_ROUNDS 1000

/* A source of a field: a cell, the value the field starts at there, and a
 * label that the cells its front reaches inherit (which exit they lead to). */
typedef struct thr_navsource {
  int32_t cell;
  float value;
  int32_t label;
} thr_navsource;

/* ---- the crowd's speed -------------------------------------------------- */

/* Free walking speed of Weidmann's relation [m/s]: converts the seconds of
 * a queue into the metres of a travel-time field (metres at free speed),
 * and is the speed at which an agent walking the field's way stops counting
 * as congestion (thr_agent_crowd_weight). */
#define THR_FREE_SPEED 1.34f

/* Weidmann (1993): v(rho) / v0 = 1 - exp(-1.913 (1/rho - 1/5.4)) at density
 * rho [1/m^2] (1 for rho <= 0). */
THR_HD float thr_weidmann_relative(float rho) {
  if (!(rho > 0.0f)) return 1.0f;
  float v = 1.0f - thr_expf(-1.913f * (1.0f / rho - 1.0f / 5.4f));
  return v > 0.0f ? v : 0.0f;
}

/* What slows a cell: how its effective density [1/m^2] turns into a speed
 * relative to the free one. Up to free_density the free speed; above it
 * Weidmann's speed relative to his speed there (free_speed, its
 * thr_weidmann_relative), never below min_speed. */
typedef struct thr_crowd_law {
  float free_density, free_speed, min_speed;
} thr_crowd_law;

THR_HD float thr_crowd_scale(const thr_crowd_law *law, float rho) {
  if (!(rho > law->free_density)) return 1.0f;
  float s = thr_weidmann_relative(rho) / law->free_speed;
  return s > law->min_speed ? (s < 1.0f ? s : 1.0f) : law->min_speed;
}

/* The effective density of a cell from the box sums around it: weighted
 * agents (units of per_agent) over the walkable cells (of area `area` each). */
THR_HD float thr_crowd_density(int32_t agents, int32_t walkable, int per_agent, float area) {
  if (walkable <= 0) return 0.0f;
  return (float)agents / ((float)per_agent * (float)walkable * area);
}

/* The density a body centred in cell (i, j) meets: the largest box density
 * (thr_crowd_density) of the cell and its 8 neighbours, since the body
 * spans about a cell either side of its centre. With a small box (one
 * cell either side, routing.congestion.radius 0.2 m at 0.2 m cells) the
 * map keeps a dense lane (along the inner wall of a corner) apart from the
 * free one beside it; the largest of the neighbours keeps two agents
 * standing either side of a narrow door from making its middle look denser
 * than the rows beside the posts, where the quickest path would then run
 * and no body fits (decision 0013). sums, walk: the box sums of the
 * weighted agents and of the walkable cells, nx x ny. */
THR_HD float thr_crowd_density_body(const int32_t *sums, const int32_t *walk, int nx, int ny, int i, int j,
                                    int per_agent, float area) {
  float m = 0.0f;
  for (int b = j - 1; b <= j + 1; ++b)
    for (int a = i - 1; a <= i + 1; ++a) {
      if (a < 0 || b < 0 || a >= nx || b >= ny) continue;
      size_t q = (size_t)b * (size_t)nx + (size_t)a;
      float rho = thr_crowd_density(sums[q], walk[q], per_agent, area);
      m = rho > m ? rho : m;
    }
  return m;
}

/* The running sums over [k - box, k + box] (clipped at the ends) of the n
 * integers in[0], in[stride], ... into out[0], out[stride], ...: one row
 * (stride 1) or one column (stride nx) of the box sums. Exact whatever the
 * order; the host and the CUDA backend (a thread per row, then per column)
 * run this one function. */
THR_HD void thr_route_box_line(int n, int box, size_t stride, const int32_t *in, int32_t *out) {
  int32_t sum = 0;
  for (int k = 0; k < box && k < n; ++k) sum += in[(size_t)k * stride];
  for (int k = 0; k < n; ++k) {
    if (k + box < n) sum += in[(size_t)(k + box) * stride];
    if (k - box - 1 >= 0) sum -= in[(size_t)(k - box - 1) * stride];
    out[(size_t)k * stride] = sum;
  }
}

/* The box sums of `in` over (2 box + 1)^2 cells (clipped at the grid's
 * edges) into out: along x into rows, then along y. Host code. */
static inline void thr_route_box_sums(int nx, int ny, int box, const int32_t *in, int32_t *rows, int32_t *out) {
  for (int j = 0; j < ny; ++j) thr_route_box_line(nx, box, 1, in + (size_t)j * nx, rows + (size_t)j * nx);
  for (int i = 0; i < nx; ++i) thr_route_box_line(ny, box, (size_t)nx, rows + i, out + i);
}

/* Does a cell belong to its exit's queue? Its value in the labelled field
 * (travel in metres at free speed, from the exit's offset on) is within
 * `radius` of the exit. Agents beyond, or held up at a bottleneck on the
 * way, are not (yet) waiting for this exit. */
THR_HD int thr_route_in_queue(float value, float offset, float radius) { return value - offset <= radius; }

/* ---- a building's phantom cells (behavior/navfield.h) -------------------- */

/* Phantom k (cell ph_cell[k]) as a source at its value, when reached: the
 * solve then runs on through the seam. Returns its cell, or -1. */
THR_HD int thr_eik_phantom_set(int k, const int32_t *ph_cell, const float *val, const int32_t *lab, float *T,
                               int32_t *L, unsigned char *fixed) {
  if (!(val[k] < HUGE_VALF)) return -1;
  int q = ph_cell[k];
  T[q] = val[k];
  fixed[q] = 1;
  if (L) L[q] = lab[k];
  return q;
}

/* Phantom k takes its partner's value and label after a solve; 1 when
 * either changed (the field is solved again). */
THR_HD int thr_eik_phantom_take(int k, const int32_t *ph_partner, const float *T, const int32_t *L, float *val,
                                int32_t *lab) {
  int p = ph_partner[k];
  int32_t l = L ? L[p] : -1;
  if (T[p] == val[k] && l == lab[k]) return 0;
  val[k] = T[p];
  lab[k] = l;
  return 1;
}

/* ---- the solver ---------------------------------------------------------- */

/* The grid: nx x ny cells in tiles (tnx x tny of them). cost[c] = h / speed
 * (+INFINITY where blocked); fixed[c] != 0 for a source (its value is
 * given and never changes). */
typedef struct thr_eik_grid {
  int nx, ny, tnx, tny;
  const float *cost;
  const unsigned char *fixed;
} thr_eik_grid;

THR_HD int thr_eik_tiles(int n) { return (n + THR_EIK_TILE - 1) / THR_EIK_TILE; }

/* Buffer slot k (0 .. THR_EIK_BUF-1) of tile t: its grid cell, or -1 when
 * the slot lies outside the grid. */
THR_HD int thr_eik_slot_cell(const thr_eik_grid *g, int t, int k) {
  int w = THR_EIK_TILE + 2;
  int i = (t % g->tnx) * THR_EIK_TILE + k % w - 1, j = (t / g->tnx) * THR_EIK_TILE + k / w - 1;
  return i < 0 || j < 0 || i >= g->nx || j >= g->ny ? -1 : j * g->nx + i;
}

/* The tile holding cell c. */
THR_HD int thr_eik_tile_of(const thr_eik_grid *g, int c) {
  return (c / g->nx / THR_EIK_TILE) * g->tnx + (c % g->nx) / THR_EIK_TILE;
}

/* What a round says of a tile (its flags): still changing in its last
 * sweep (not converged with its halo), and which of its sides' cells went
 * down in the round (the neighbour across that side has a new halo). */
enum { THR_EIK_BUSY = 1, THR_EIK_W = 2, THR_EIK_E = 4, THR_EIK_S = 8, THR_EIK_N = 16, THR_EIK_ALL = 31 };

/* The flags interior cell q of a tile contributes (OR over the cells):
 * final value fin, after the sweep before prev, at the round's start start. */
THR_HD unsigned thr_eik_cell_flags(int q, float fin, float prev, float start) {
  unsigned f = fin < prev ? (unsigned)THR_EIK_BUSY : 0u;
  if (fin < start) {
    int i = q % THR_EIK_TILE, j = q / THR_EIK_TILE;
    if (i == 0) f |= THR_EIK_W;
    if (i == THR_EIK_TILE - 1) f |= THR_EIK_E;
    if (j == 0) f |= THR_EIK_S;
    if (j == THR_EIK_TILE - 1) f |= THR_EIK_N;
  }
  return f;
}

/* Is tile t active in the next round: still changing itself, or a
 * neighbour's facing side went down (flags: the last round's, per tile). */
THR_HD int thr_eik_next_active(const thr_eik_grid *g, const unsigned char *flags, int t) {
  int ti = t % g->tnx, tj = t / g->tnx;
  return (flags[t] & THR_EIK_BUSY) || (ti > 0 && (flags[t - 1] & THR_EIK_E)) ||
         (ti + 1 < g->tnx && (flags[t + 1] & THR_EIK_W)) || (tj > 0 && (flags[t - g->tnx] & THR_EIK_N)) ||
         (tj + 1 < g->tny && (flags[t + g->tnx] & THR_EIK_S));
}

static inline void thr_eik_activate(const thr_eik_grid *g, const unsigned char *flags, unsigned char *active) {
  for (int t = 0; t < g->tnx * g->tny; ++t) active[t] = (unsigned char)thr_eik_next_active(g, flags, t);
}

/* Load slot k of tile t from the round's values (T, labels L may be NULL). */
THR_HD void thr_eik_load(const thr_eik_grid *g, const float *T, const int32_t *L, int t, int k, float *buf,
                         int32_t *lbuf) {
  int c = thr_eik_slot_cell(g, t, k);
  buf[k] = c < 0 ? HUGE_VALF : T[c];
  if (lbuf) lbuf[k] = c < 0 ? -1 : L[c];
}

/* The slot of interior cell q (0 .. TILE^2-1). */
THR_HD int thr_eik_slot(int q) { return (q / THR_EIK_TILE + 1) * (THR_EIK_TILE + 2) + q % THR_EIK_TILE + 1; }

/* First-order upwind update from the neighbours along x (l, r) and y (d, u)
 * at cost f = h / speed: the solution T of sum over axes of
 * max(T - a_axis, 0)^2 = f^2, a_axis the smaller neighbour of the axis.
 * *from: 0 when the smaller axis's neighbour is x's, 1 y's. */
THR_HD float thr_eik_update(float l, float r, float d, float u, float f, int *from_y) {
  float a = l < r ? l : r, b = d < u ? d : u;
  *from_y = b < a;
  if (b < a) {
    float s = a;
    a = b;
    b = s;
  }
  if (!(b - a < f)) return a + f; /* one axis only (also b infinite) */
  float dd = b - a;
  return 0.5f * (a + b + sqrtf(2.0f * f * f - dd * dd));
}

/* One Jacobi sweep for interior cell q of tile t: reads bin/lin (the tile
 * with its halo), writes bout/lout at q's slot. A blocked cell, a source, or
 * a cell the update does not lower keeps its value; a lowered cell takes
 * the label of the neighbour its value came from (the smaller along the
 * axis the update leaned on; equal: left before right, down before up).
 * Returns 1 when the cell's value went down. */
THR_HD int thr_eik_sweep_cell(const thr_eik_grid *g, int t, int q, const float *bin, const int32_t *lin,
                              float *bout, int32_t *lout) {
  int k = thr_eik_slot(q), w = THR_EIK_TILE + 2;
  float old = bin[k];
  bout[k] = old;
  if (lin) lout[k] = lin[k];
  int c = thr_eik_slot_cell(g, t, k);
  if (c < 0 || g->fixed[c] || !(g->cost[c] < HUGE_VALF)) return 0;
  int fy;
  float l = bin[k - 1], r = bin[k + 1], d = bin[k - w], u = bin[k + w];
  float v = thr_eik_update(l, r, d, u, g->cost[c], &fy);
  if (!(v < old)) return 0;
  bout[k] = v;
  if (lin) lout[k] = fy ? (d <= u ? lin[k - w] : lin[k + w]) : (l <= r ? lin[k - 1] : lin[k + 1]);
  return 1;
}

#endif
