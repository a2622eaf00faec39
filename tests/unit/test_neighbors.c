/* The neighbour grid (cell sort + ring queries) against brute force on
 * random agent sets, and its canonical (cell, id) order. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "kernels/cpu/cell_sort.h"
#include "kernels/grid_view.h"
#include "kernels/rng.h"

typedef struct cloud {
  int n;
  thr_vec2 *p;
  uint32_t *id;
  int *cell, *order, *offset, *cursor;
  thr_grid_view g;
} cloud;

/* n agents uniformly in [0, w] x [0, h] (some outside, to exercise
 * clamping), ids a random permutation, grid of cell side `cell`. */
static void cloud_make(cloud *c, int n, float w, float h, float cell, uint64_t seed) {
  c->n = n;
  c->p = malloc((size_t)n * sizeof(thr_vec2));
  c->id = malloc((size_t)n * sizeof(uint32_t));
  c->cell = malloc((size_t)n * sizeof(int));
  c->order = malloc((size_t)n * sizeof(int));
  for (int i = 0; i < n; ++i) {
    c->p[i].x = -1.0f + (w + 2.0f) * thr_rng_uniform(seed, (uint64_t)i, 0, 1);
    c->p[i].y = -1.0f + (h + 2.0f) * thr_rng_uniform(seed, (uint64_t)i, 0, 2);
    c->id[i] = (uint32_t)i;
  }
  for (int i = n - 1; i > 0; --i) { /* shuffle ids */
    int j = (int)(thr_rng_u64(seed, (uint64_t)i, 0, 3) % (uint64_t)(i + 1));
    uint32_t t = c->id[i];
    c->id[i] = c->id[j];
    c->id[j] = t;
  }
  c->g.ox = 0.0f;
  c->g.oy = 0.0f;
  c->g.cell = cell;
  c->g.gnx = (int)ceilf(w / cell);
  c->g.gny = (int)ceilf(h / cell);
  c->g.lx0 = c->g.ly0 = 0;
  c->g.nx = c->g.gnx;
  c->g.ny = c->g.gny;
  size_t ncell = (size_t)c->g.nx * (size_t)c->g.ny;
  c->offset = malloc((ncell + 1) * sizeof(int));
  c->cursor = malloc(ncell * sizeof(int));
  for (int i = 0; i < n; ++i) c->cell[i] = thr_local_cell(&c->g, c->p[i]);
  thr_cell_sort(c->cell, c->id, (size_t)n, ncell, c->offset, c->order, c->cursor);
  c->g.offset = c->offset;
  c->g.order = c->order;
  c->g.cell_of = c->cell;
}

static void cloud_free(cloud *c) {
  free(c->p);
  free(c->id);
  free(c->cell);
  free(c->order);
  free(c->offset);
  free(c->cursor);
}

/* Every pair within radius r is found by the ring query, none twice. */
static void check_against_brute_force(int n, float w, float h, float cell, float r, uint64_t seed) {
  cloud c;
  cloud_make(&c, n, w, h, cell, seed);
  int k = thr_rings(r, 0.0f, cell, 1 << 20);
  char *seen = calloc((size_t)n, 1);
  long found = 0, expected = 0, missing = 0, dup = 0;
  for (int i = 0; i < n; ++i) {
    thr_nbr_iter it;
    thr_nbr_begin(&it, &c.g, c.cell[i], k);
    for (int j; (j = thr_nbr_next(&it, &c.g)) >= 0;) {
      if (j == i || v2_len2(v2_sub(c.p[i], c.p[j])) > r * r) continue;
      if (seen[j]) dup++;
      seen[j] = 1;
      found++;
    }
    for (int j = 0; j < n; ++j) {
      if (j == i || v2_len2(v2_sub(c.p[i], c.p[j])) > r * r) continue;
      expected++;
      if (!seen[j]) missing++;
    }
    for (int j = 0; j < n; ++j) seen[j] = 0;
  }
  CHECK(expected > n); /* the test exercises real neighbourhoods */
  CHECK(missing == 0);
  CHECK(dup == 0);
  CHECK(found == expected);
  free(seen);
  cloud_free(&c);
}

THR_TEST(grid_matches_brute_force_contact_radius) { check_against_brute_force(2000, 40.0f, 30.0f, 1.35f, 1.05f, 11); }

THR_TEST(grid_matches_brute_force_long_radius) { check_against_brute_force(1500, 35.0f, 50.0f, 1.35f, 3.3f, 12); }

THR_TEST(grid_matches_brute_force_dense) { check_against_brute_force(3000, 20.0f, 20.0f, 0.7f, 2.0f, 13); }

/* Sorted slots run through cells in row-major order, ids ascending inside a
 * cell, and the result does not depend on the input order. */
THR_TEST(cell_sort_is_canonical) {
  cloud a;
  cloud_make(&a, 1000, 25.0f, 25.0f, 1.0f, 21);
  int bad = 0;
  for (int t = 1; t < a.n; ++t) {
    int i = a.order[t - 1], j = a.order[t];
    if (a.cell[i] > a.cell[j] || (a.cell[i] == a.cell[j] && a.id[i] >= a.id[j])) bad++;
  }
  CHECK(bad == 0);
  for (int c = 0; c < a.g.nx * a.g.ny; ++c)
    for (int t = a.offset[c]; t < a.offset[c + 1]; ++t) CHECK(a.cell[a.order[t]] == c);
  /* reverse the storage order: the sorted id sequence must be the same */
  cloud b = a;
  b.p = malloc((size_t)a.n * sizeof(thr_vec2));
  b.id = malloc((size_t)a.n * sizeof(uint32_t));
  b.cell = malloc((size_t)a.n * sizeof(int));
  b.order = malloc((size_t)a.n * sizeof(int));
  b.offset = malloc(((size_t)a.g.nx * a.g.ny + 1) * sizeof(int));
  b.cursor = malloc((size_t)a.g.nx * a.g.ny * sizeof(int));
  for (int i = 0; i < a.n; ++i) {
    b.p[i] = a.p[a.n - 1 - i];
    b.id[i] = a.id[a.n - 1 - i];
    b.cell[i] = a.cell[a.n - 1 - i];
  }
  thr_cell_sort(b.cell, b.id, (size_t)b.n, (size_t)a.g.nx * a.g.ny, b.offset, b.order, b.cursor);
  int differ = 0;
  for (int t = 0; t < a.n; ++t) differ += a.id[a.order[t]] != b.id[b.order[t]];
  CHECK(differ == 0);
  cloud_free(&a);
  cloud_free(&b);
}
