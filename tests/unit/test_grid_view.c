/* Unit tests of kernels/grid_view.h: cell coordinates, ring counts and the
 * canonical-order neighbour iterator, on a hand-built grid. */
#include <math.h>

#include "check.h"
#include "kernels/grid_view.h"

/* ---- cell coordinates ----------------------------------------------------- */

/* origin 0, cell 1, 4 cells: 2.5 -> 2; 0 -> 0; 1.0 (a boundary) -> 1;
 * 3.999 -> 3; 4.0 -> floor 4 clamped to 3; 7 -> 3; -0.1 -> floor -1
 * clamped to 0; NaN -> 0; +inf -> 3; -inf -> 0.
 * origin -10, cell 2.5, 8 cells: -2.6 -> floor(7.4 / 2.5) = floor(2.96) = 2;
 * 0 -> floor(4) = 4; 9.9 -> floor(7.96) = 7; 10 -> 8 clamped to 7. */
THR_TEST(cell_coord) {
  CHECK(thr_cell_coord(2.5f, 0.0f, 1.0f, 4) == 2);
  CHECK(thr_cell_coord(0.0f, 0.0f, 1.0f, 4) == 0);
  CHECK(thr_cell_coord(1.0f, 0.0f, 1.0f, 4) == 1);
  CHECK(thr_cell_coord(3.999f, 0.0f, 1.0f, 4) == 3);
  CHECK(thr_cell_coord(4.0f, 0.0f, 1.0f, 4) == 3);
  CHECK(thr_cell_coord(7.0f, 0.0f, 1.0f, 4) == 3);
  CHECK(thr_cell_coord(-0.1f, 0.0f, 1.0f, 4) == 0);
  CHECK(thr_cell_coord(-1e30f, 0.0f, 1.0f, 4) == 0);
  CHECK(thr_cell_coord(1e30f, 0.0f, 1.0f, 4) == 3);
  CHECK(thr_cell_coord(NAN, 0.0f, 1.0f, 4) == 0);
  CHECK(thr_cell_coord(INFINITY, 0.0f, 1.0f, 4) == 3);
  CHECK(thr_cell_coord(-INFINITY, 0.0f, 1.0f, 4) == 0);
  CHECK(thr_cell_coord(-2.6f, -10.0f, 2.5f, 8) == 2);
  CHECK(thr_cell_coord(0.0f, -10.0f, 2.5f, 8) == 4);
  CHECK(thr_cell_coord(9.9f, -10.0f, 2.5f, 8) == 7);
  CHECK(thr_cell_coord(10.0f, -10.0f, 2.5f, 8) == 7);
  /* a 1-cell axis: everything is cell 0 */
  CHECK(thr_cell_coord(123.0f, 0.0f, 1.0f, 1) == 0);
}

/* Local cell of a window: global grid 10 x 10 of 1 m cells from (0, 0), the
 * window starts at global (4, 2) and is 3 x 2. p = (5.5, 3.5) -> global
 * (5, 3) -> local (1, 1) -> index 1*3 + 1 = 4. Outside the window it is
 * clamped: (0.5, 0.5) -> local (-4, -2) -> (0, 0) -> 0; (9.5, 9.5) ->
 * local (5, 7) -> (2, 1) -> 5. */
THR_TEST(local_cell) {
  thr_grid_view g;
  g.ox = 0.0f;
  g.oy = 0.0f;
  g.cell = 1.0f;
  g.gnx = 10;
  g.gny = 10;
  g.lx0 = 4;
  g.ly0 = 2;
  g.nx = 3;
  g.ny = 2;
  g.offset = 0;
  g.order = 0;
  g.cell_of = 0;
  CHECK(thr_local_cell(&g, v2(5.5f, 3.5f)) == 4);
  CHECK(thr_local_cell(&g, v2(4.0f, 2.0f)) == 0);
  CHECK(thr_local_cell(&g, v2(6.9f, 2.1f)) == 2);
  CHECK(thr_local_cell(&g, v2(0.5f, 0.5f)) == 0);
  CHECK(thr_local_cell(&g, v2(9.5f, 9.5f)) == 5);
}

/* k = ceil((r + skin) / cell), at least 1:
 * (1.5 + 0.2)/1 = 1.7 -> 2; 0.5/1 -> 1; 0 -> 0 -> 1; 2/1 = 2 -> 2 (exact);
 * (7 + 0.5)/2 = 3.75 -> 4; (0.4 + 0.1)/0.25 = 2 -> 2 (0.5/0.25 exact). */
THR_TEST(rings) {
  CHECK(thr_rings(1.5f, 0.2f, 1.0f, 1000) == 2);
  CHECK(thr_rings(0.5f, 0.0f, 1.0f, 1000) == 1);
  CHECK(thr_rings(0.0f, 0.0f, 1.0f, 1000) == 1);
  CHECK(thr_rings(2.0f, 0.0f, 1.0f, 1000) == 2);
  CHECK(thr_rings(2.0f, 0.001f, 1.0f, 1000) == 3);
  CHECK(thr_rings(7.0f, 0.5f, 2.0f, 1000) == 4);
  CHECK(thr_rings(0.25f, 0.25f, 0.25f, 1000) == 2);
  /* beyond the grid, or no number at all: the whole grid */
  CHECK(thr_rings(1e10f, 0.3f, 1.35f, 40) == 40);
  CHECK(thr_rings(INFINITY, 0.3f, 1.35f, 40) == 40);
  CHECK(thr_rings(INFINITY, 0.3f, INFINITY, 40) == 40);
  CHECK(thr_rings(39.0f, 0.0f, 1.0f, 40) == 39);
}

/* ---- neighbour iterator ---------------------------------------------------- */

/* A 4 x 3 grid (cells numbered row-major: c = cy * 4 + cx):
 *
 *   cy=2 |  8: -        |  9: {8}     | 10: {6}  | 11: {10}
 *   cy=1 |  4: {3}      |  5: {9, 1}  |  6: -    |  7: {4}
 *   cy=0 |  0: {5}      |  1: -       |  2: {2, 7} | 3: {0}
 *
 * (storage indices, in the given (sorted) order within each cell).
 * Slots: 0:5 | 1:2 2:7 | 3:0 | 4:3 | 5:9 6:1 | 7:4 | 8:8 | 9:6 | 10:10 */
static const int k_offset[13] = {0, 1, 1, 3, 4, 5, 7, 7, 8, 8, 9, 10, 11};
static const int k_order[11] = {5, 2, 7, 0, 3, 9, 1, 4, 8, 6, 10};

static thr_grid_view make_grid(void) {
  thr_grid_view g;
  g.ox = 0.0f;
  g.oy = 0.0f;
  g.cell = 1.0f;
  g.gnx = 4;
  g.gny = 3;
  g.lx0 = 0;
  g.ly0 = 0;
  g.nx = 4;
  g.ny = 3;
  g.offset = k_offset;
  g.order = k_order;
  g.cell_of = 0;
  return g;
}

/* Runs the iterator; returns the count, writes at most cap indices. */
static int collect(const thr_grid_view *g, int cell, int k, int *out, int cap) {
  thr_nbr_iter it;
  thr_nbr_begin(&it, g, cell, k);
  int n = 0;
  for (int j; (j = thr_nbr_next(&it, g)) >= 0;) {
    if (n < cap) out[n] = j;
    ++n;
    if (n > 100) break; /* runaway guard */
  }
  /* exhausted iterators stay exhausted */
  CHECK(thr_nbr_next(&it, g) == -1);
  CHECK(thr_nbr_next(&it, g) == -1);
  return n;
}

static int same(const int *a, const int *b, int n) {
  for (int i = 0; i < n; ++i)
    if (a[i] != b[i]) return 0;
  return 1;
}

/* Centre cell 5 = (1, 1), k = 1: rows 0..2, columns 0..2, cells
 * 0 1 2 | 4 5 6 | 8 9 10 -> 5 | 2 7 | 3 | 9 1 | 8 | 6. */
THR_TEST(nbr_interior) {
  thr_grid_view g = make_grid();
  int got[32];
  static const int want[] = {5, 2, 7, 3, 9, 1, 8, 6};
  int n = collect(&g, 5, 1, got, 32);
  CHECK(n == 8);
  CHECK(n == 8 && same(got, want, 8));
  /* k = 0: the cell itself, in its own order */
  static const int want0[] = {9, 1};
  n = collect(&g, 5, 0, got, 32);
  CHECK(n == 2 && same(got, want0, 2));
}

/* Clipped at the grid border.
 * Corner cell 0 = (0, 0), k = 1: rows 0..1, columns 0..1: cells 0 1 | 4 5
 *   -> 5 | 3 | 9 1.
 * Corner cell 11 = (3, 2), k = 1: rows 1..2, columns 2..3: cells 6 7 | 10 11
 *   -> 4 | 6 | 10.
 * Edge cell 7 = (3, 1), k = 1: rows 0..2, columns 2..3: 2 3 | 6 7 | 10 11
 *   -> 2 7 0 | 4 | 6 10.
 * Cell 0, k = 2: rows 0..2, columns 0..2 -> same as cell 5, k = 1.
 * k = 5 covers everything: the order array itself. */
THR_TEST(nbr_clipped) {
  thr_grid_view g = make_grid();
  int got[32];
  static const int w0[] = {5, 3, 9, 1};
  static const int w11[] = {4, 6, 10};
  static const int w7[] = {2, 7, 0, 4, 6, 10};
  static const int w0k2[] = {5, 2, 7, 3, 9, 1, 8, 6};
  int n = collect(&g, 0, 1, got, 32);
  CHECK(n == 4 && same(got, w0, 4));
  n = collect(&g, 11, 1, got, 32);
  CHECK(n == 3 && same(got, w11, 3));
  n = collect(&g, 7, 1, got, 32);
  CHECK(n == 6 && same(got, w7, 6));
  n = collect(&g, 0, 2, got, 32);
  CHECK(n == 8 && same(got, w0k2, 8));
  n = collect(&g, 6, 5, got, 32);
  CHECK(n == 11 && same(got, k_order, 11));
}

/* Empty neighbourhoods: cell 1, k = 0 (empty cell) yields nothing at once;
 * cell 8 = (0, 2), k = 0 too. Cell 6, k = 0 is empty; k = 1 around cell 6
 * = (2, 1): rows 0..2, columns 1..3: 1 2 3 | 5 6 7 | 9 10 11
 *   -> 2 7 0 | 9 1 4 | 8 6 10. */
THR_TEST(nbr_empty_cells) {
  thr_grid_view g = make_grid();
  int got[32];
  CHECK(collect(&g, 1, 0, got, 32) == 0);
  CHECK(collect(&g, 8, 0, got, 32) == 0);
  CHECK(collect(&g, 6, 0, got, 32) == 0);
  static const int w6[] = {2, 7, 0, 9, 1, 4, 8, 6, 10};
  int n = collect(&g, 6, 1, got, 32);
  CHECK(n == 9 && same(got, w6, 9));
  /* a grid with no agents at all */
  static const int zero_off[13] = {0};
  thr_grid_view e = make_grid();
  e.offset = zero_off;
  CHECK(collect(&e, 5, 3, got, 32) == 0);
}

/* Brute force cross-check on the same grid: for every cell and k = 0..3 the
 * iterator visits exactly the slots of cells with |dx| <= k and |dy| <= k in
 * row-major cell order. */
THR_TEST(nbr_bruteforce) {
  thr_grid_view g = make_grid();
  for (int cell = 0; cell < 12; ++cell) {
    for (int k = 0; k <= 3; ++k) {
      int want[32], nw = 0;
      for (int c = 0; c < 12; ++c) {
        int dx = c % 4 - cell % 4, dy = c / 4 - cell / 4;
        if (dx < -k || dx > k || dy < -k || dy > k) continue;
        for (int s = k_offset[c]; s < k_offset[c + 1]; ++s) want[nw++] = k_order[s];
      }
      int got[32];
      int n = collect(&g, cell, k, got, 32);
      CHECK(n == nw);
      CHECK(n == nw && same(got, want, nw));
    }
  }
}
