/* Unit tests of the recursive coordinate bisection (decomp/partition.c):
 * every cell owned exactly once for any rank count, balance on skewed
 * weights, the limit of one bin per rank, coarsening, and windows
 * (rectangle + k rings clipped to the grid). No MPI needed. */
#include <stdint.h>

#include "check.h"
#include "decomp/partition.h"

/* A small deterministic generator (xorshift) for weights. */
static uint32_t g_rng = 12345u;
static uint32_t next_u32(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 17;
  g_rng ^= g_rng << 5;
  return g_rng;
}

/* Every cell lies in exactly one rectangle, rectangles are non-empty and lie
 * on bin boundaries, and the owner map agrees with the rectangles. */
static int check_cover(const thr_partition *p) {
  int ok = 1;
  int *seen = calloc((size_t)p->gnx * p->gny, sizeof *seen);
  for (int r = 0; r < p->nranks; ++r) {
    thr_window c = p->rect[r];
    if (thr_window_empty(c) || c.x0 < 0 || c.y0 < 0 || c.x0 + c.nx > p->gnx || c.y0 + c.ny > p->gny) ok = 0;
    if (c.x0 % p->f || c.y0 % p->f) ok = 0;
    if ((c.x0 + c.nx) % p->f && c.x0 + c.nx != p->gnx) ok = 0;
    if ((c.y0 + c.ny) % p->f && c.y0 + c.ny != p->gny) ok = 0;
    for (int y = c.y0; y < c.y0 + c.ny && ok; ++y)
      for (int x = c.x0; x < c.x0 + c.nx; ++x) seen[(size_t)y * p->gnx + x]++;
  }
  for (int y = 0; y < p->gny && ok; ++y) {
    for (int x = 0; x < p->gnx; ++x) {
      if (seen[(size_t)y * p->gnx + x] != 1) ok = 0;
      int r = thr_partition_owner(p, x, y);
      if (r < 0 || r >= p->nranks || !thr_window_contains(p->rect[r], x, y)) ok = 0;
    }
  }
  free(seen);
  return ok;
}

static double imbalance(const thr_partition *p, const int64_t *w) {
  int64_t *load = malloc((size_t)p->nranks * sizeof *load);
  thr_partition_loads(p, w, load);
  int64_t max = 0, sum = 0;
  for (int r = 0; r < p->nranks; ++r) {
    sum += load[r];
    if (load[r] > max) max = load[r];
  }
  free(load);
  return sum ? (double)max * p->nranks / (double)sum : 1.0;
}

/* Grids of several shapes, random weights, every P from 1 to 13. */
THR_TEST(every_cell_owned_once) {
  static const int shapes[][2] = {{17, 11}, {1, 20}, {30, 3}, {5, 5}, {40, 40}, {13, 1}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
    for (int P = 1; P <= 13; ++P) {
      thr_partition p;
      CHECK(thr_partition_init(&p, shapes[s][0], shapes[s][1], P, THR_PARTITION_MAX_BINS) == 0);
      int64_t *w = malloc((size_t)p.bnx * p.bny * sizeof *w);
      for (int k = 0; k < p.bnx * p.bny; ++k) w[k] = next_u32() % 4 == 0 ? 0 : next_u32() % 7;
      int rc = thr_partition_rcb(&p, w);
      if (P > shapes[s][0] * shapes[s][1]) {
        CHECK(rc == -1);
      } else {
        CHECK(rc == 0);
        if (!check_cover(&p)) {
          fprintf(stderr, "  grid %d x %d, %d ranks: cover broken\n", shapes[s][0], shapes[s][1], P);
          CHECK(0);
        }
      }
      free(w);
      thr_partition_free(&p);
    }
  }
}

/* Uniform-area weights: the start-up partition is close to equal area. */
THR_TEST(uniform_area) {
  for (int P = 1; P <= 13; ++P) {
    thr_partition p;
    CHECK(thr_partition_init(&p, 64, 48, P, THR_PARTITION_MAX_BINS) == 0);
    int64_t *w = malloc((size_t)p.bnx * p.bny * sizeof *w);
    thr_partition_area_weights(&p, w);
    CHECK(thr_partition_rcb(&p, w) == 0);
    CHECK(check_cover(&p));
    double imb = imbalance(&p, w);
    if (imb > 1.10) fprintf(stderr, "  %d ranks: area imbalance %.4f\n", P, imb);
    CHECK(imb <= 1.10);
    free(w);
    thr_partition_free(&p);
  }
}

/* Skewed weights (density falling off exponentially from one corner, as a
 * crowd at an exit): max/mean load stays within 10 % for every P. */
THR_TEST(balance_skewed) {
  int gnx = 80, gny = 60;
  for (int P = 1; P <= 13; ++P) {
    thr_partition p;
    CHECK(thr_partition_init(&p, gnx, gny, P, THR_PARTITION_MAX_BINS) == 0);
    int64_t *w = malloc((size_t)gnx * gny * sizeof *w);
    for (int y = 0; y < gny; ++y)
      for (int x = 0; x < gnx; ++x) w[y * gnx + x] = (int64_t)(40.0 * exp(-(x + 0.7 * y) / 25.0)) + 1;
    CHECK(thr_partition_rcb(&p, w) == 0);
    CHECK(check_cover(&p));
    double imb = imbalance(&p, w);
    if (imb > 1.10) fprintf(stderr, "  %d ranks: skewed imbalance %.4f\n", P, imb);
    CHECK(imb <= 1.10);
    /* an area partition of the same weights would be far worse */
    if (P == 8) {
      int64_t *area = malloc((size_t)gnx * gny * sizeof *area);
      thr_partition_area_weights(&p, area);
      thr_partition q;
      CHECK(thr_partition_init(&q, gnx, gny, P, THR_PARTITION_MAX_BINS) == 0);
      CHECK(thr_partition_rcb(&q, area) == 0);
      CHECK(imbalance(&q, w) > 2.0);
      thr_partition_free(&q);
      free(area);
    }
    free(w);
    thr_partition_free(&p);
  }
}

/* All the weight in a few cells, the rest empty: cuts through empty space
 * go half way, every rank still gets cells, and two equal blobs split
 * evenly between two ranks. */
THR_TEST(empty_space_and_blobs) {
  thr_partition p;
  CHECK(thr_partition_init(&p, 40, 10, 2, THR_PARTITION_MAX_BINS) == 0);
  int64_t w[400] = {0};
  w[5 * 40 + 3] = 100;  /* blob at x = 3 */
  w[5 * 40 + 36] = 100; /* blob at x = 36 */
  CHECK(thr_partition_rcb(&p, w) == 0);
  CHECK(check_cover(&p));
  /* any cut in [4, 36] splits 100/100; the middle of that range is 20 */
  CHECK(p.rect[0].x0 == 0 && p.rect[0].nx == 20);
  CHECK(imbalance(&p, w) == 1.0);
  thr_partition_free(&p);
  /* no weight at all: still a valid partition */
  int64_t z[400] = {0};
  for (int P = 1; P <= 13; ++P) {
    CHECK(thr_partition_init(&p, 40, 10, P, THR_PARTITION_MAX_BINS) == 0);
    CHECK(thr_partition_rcb(&p, z) == 0);
    CHECK(check_cover(&p));
    thr_partition_free(&p);
  }
}

/* One cell per rank is the limit: a 3 x 3 grid takes 1..9 ranks, even
 * where the even rank split cannot fit (9 ranks: 4 + 5 on a 3 x 3 grid). */
THR_TEST(rank_limit) {
  for (int P = 1; P <= 10; ++P) {
    thr_partition p;
    CHECK(thr_partition_init(&p, 3, 3, P, THR_PARTITION_MAX_BINS) == 0);
    CHECK(thr_partition_max_ranks(&p) == 9);
    int64_t w[9];
    thr_partition_area_weights(&p, w);
    int rc = thr_partition_rcb(&p, w);
    CHECK(rc == (P <= 9 ? 0 : -1));
    if (!rc) CHECK(check_cover(&p));
    if (P == 9)
      for (int r = 0; r < 9; ++r) CHECK(p.rect[r].nx == 1 && p.rect[r].ny == 1);
    thr_partition_free(&p);
  }
}

/* A huge grid is coarsened into f x f bins: at most max_bins bins, cuts on
 * multiples of f, and the last bins are partial. */
THR_TEST(coarsening) {
  thr_partition p;
  CHECK(thr_partition_init(&p, 1003, 517, 7, 1000) == 0);
  CHECK((long)p.bnx * p.bny <= 1000);
  CHECK(p.f > 1 && p.bnx == (1003 + p.f - 1) / p.f && p.bny == (517 + p.f - 1) / p.f);
  CHECK(thr_partition_max_ranks(&p) == (long)p.bnx * p.bny);
  int64_t *w = malloc((size_t)p.bnx * p.bny * sizeof *w);
  thr_partition_area_weights(&p, w);
  int64_t total = 0;
  for (int k = 0; k < p.bnx * p.bny; ++k) total += w[k];
  CHECK(total == 1003 * 517);
  CHECK(thr_partition_rcb(&p, w) == 0);
  CHECK(check_cover(&p));
  free(w);
  thr_partition_free(&p);
}

/* Window = rectangle + k rings, clipped to the grid; the "within k rings"
 * relation between rectangles is symmetric (which lets a rank receive
 * ghosts from exactly the ranks it sends ghosts to). */
THR_TEST(windows) {
  thr_window r = {2, 3, 4, 5};
  thr_window w = thr_window_grow(r, 3, 20, 20);
  CHECK(w.x0 == 0 && w.y0 == 0 && w.nx == 9 && w.ny == 11);
  w = thr_window_grow((thr_window){15, 15, 5, 5}, 2, 20, 20);
  CHECK(w.x0 == 13 && w.y0 == 13 && w.nx == 7 && w.ny == 7);
  w = thr_window_grow((thr_window){8, 8, 2, 2}, 1, 20, 20);
  CHECK(w.x0 == 7 && w.y0 == 7 && w.nx == 4 && w.ny == 4);
  CHECK(thr_window_empty(thr_window_meet((thr_window){0, 0, 2, 2}, (thr_window){2, 0, 2, 2})));
  thr_window m = thr_window_meet((thr_window){0, 0, 5, 5}, (thr_window){3, 1, 5, 2});
  CHECK(m.x0 == 3 && m.y0 == 1 && m.nx == 2 && m.ny == 2);
  for (int P = 2; P <= 13; ++P) {
    thr_partition p;
    CHECK(thr_partition_init(&p, 30, 3, P, THR_PARTITION_MAX_BINS) == 0);
    int64_t w3[90];
    for (int k = 0; k < 90; ++k) w3[k] = (k % 30 >= 10 && k % 30 < 20) ? 9 : 1;
    CHECK(thr_partition_rcb(&p, w3) == 0);
    for (int k = 1; k <= 3; ++k) {
      for (int a = 0; a < P; ++a) {
        thr_window wa = thr_window_grow(p.rect[a], k, 30, 3);
        /* every cell within k rings of a's rectangle is in a's window */
        thr_window ra = p.rect[a];
        for (int y = 0; y < 3; ++y)
          for (int x = 0; x < 30; ++x) {
            /* Chebyshev distance in cells from the rectangle */
            int dx = x < ra.x0 ? ra.x0 - x : (x >= ra.x0 + ra.nx ? x - (ra.x0 + ra.nx - 1) : 0);
            int dy = y < ra.y0 ? ra.y0 - y : (y >= ra.y0 + ra.ny ? y - (ra.y0 + ra.ny - 1) : 0);
            CHECK(thr_window_contains(wa, x, y) == (dx <= k && dy <= k));
          }
        for (int b = 0; b < P; ++b) {
          int ab = !thr_window_empty(thr_window_meet(wa, p.rect[b]));
          int ba = !thr_window_empty(thr_window_meet(thr_window_grow(p.rect[b], k, 30, 3), p.rect[a]));
          CHECK(ab == ba);
        }
      }
    }
    thr_partition_free(&p);
  }
}
