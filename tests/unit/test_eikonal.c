/* Congestion-aware routing's pieces (kernels/eikonal.h and the host engine
 * kernels/cpu/route_engine.c): the tiled eikonal solver against fast
 * marching (behavior/navfield.c) on the same grid, its labels, its
 * independence of the thread count; box sums against brute force; the
 * crowd's speed law and the agents' weights by hand. */
#include "behavior/navfield.h"
#include "check.h"
#include "kernels/cpu/route_engine.h"
#include "kernels/evac_agent.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* A grid of nx x ny cells of 0.2 m: a wall across it (x = 30) with a gap
 * of rows 20..27, the rest free, a slow band (speed 0.1) beside the wall. */
typedef struct scene {
  thr_navgrid g;
  unsigned char kind[80 * 60];
  float cost[80 * 60];
} scene;

static void scene_init(scene *s) {
  s->g.lo = v2(0.0f, 0.0f);
  s->g.h = 0.2f;
  s->g.nx = 80;
  s->g.ny = 60;
  s->g.slow = 0.1f;
  s->g.kind = s->kind;
  for (int j = 0; j < 60; ++j)
    for (int i = 0; i < 80; ++i) {
      unsigned char k = THR_NAV_FREE;
      if (i == 30 && (j < 20 || j > 27)) k = THR_NAV_BLOCKED;
      else if (i == 29 || i == 31) k = THR_NAV_SLOW;
      s->kind[j * 80 + i] = k;
    }
  for (int c = 0; c < 80 * 60; ++c) {
    float sp = thr_navgrid_speed(&s->g, (size_t)c);
    s->cost[c] = sp > 0.0f ? s->g.h / sp : HUGE_VALF;
  }
}

/* An engine for one labelled field over the scene with sources src. */
static void engine(thr_route_engine *e, const scene *s, const thr_navsource *src, long n) {
  static int32_t walk[80 * 60], rows[80 * 60], box[80 * 60];
  for (int c = 0; c < 80 * 60; ++c) walk[c] = s->kind[c] != THR_NAV_BLOCKED;
  thr_route_box_sums(80, 60, 1, walk, rows, box);
  static const int zero = 0, minus = -1, one = 1;
  static const thr_navsource *srcs[1];
  static long ns[1];
  srcs[0] = src;
  ns[0] = n;
  thr_route_setup rs = {80, 60, 0.2f, s->cost, box, 1, {1.0f, 0.79f, 0.1f}, 1, &minus, 0, 1, &zero, &minus, &one,
                        srcs, ns, 2, 15.0f, 0, NULL, NULL};
  CHECK(thr_route_engine_init(e, &rs) == 0);
}

/* The tiled solver reaches the fixed point that fast marching computes
 * (first-order, 4 neighbours): every value within float rounding (the
 * marching works in double), and every cell led to the same exit. */
THR_TEST(tiles_equal_marching) {
  scene s;
  scene_init(&s);
  /* labelled: each source starts at its exit's offset (exit 0: 0, exit 1: 3 m) */
  thr_navsource src[3] = {{10 * 80 + 75, 0.0f, 0}, {50 * 80 + 75, 3.0f, 1}, {5 * 80 + 5, 0.0f, 0}};
  float fmm[80 * 60], tiles[80 * 60];
  int32_t lfmm[80 * 60];
  CHECK(thr_navfield_march(&s.g, NULL, src, 3, fmm, lfmm, NULL) == 3);
  thr_route_engine e;
  engine(&e, &s, src, 3);
  float offset[2] = {0.0f, 3.0f};
  long rounds = thr_route_engine_solve(&e, offset, tiles);
  printf("tiles: %ld rounds over %d tiles\n", rounds, e.tiles);
  CHECK(rounds > 0 && rounds < 1000);
  double worst = 0.0;
  int label_diff = 0, finite = 0, off = 0;
  for (int c = 0; c < 80 * 60; ++c) {
    if (!(fmm[c] < HUGE_VALF)) {
      off += tiles[c] < HUGE_VALF;
      continue;
    }
    ++finite;
    double d = fabs((double)tiles[c] - (double)fmm[c]);
    worst = d > worst ? d : worst;
    off += !(d <= 1e-4 * fmm[c] + 1e-5);
    label_diff += e.label[c] != lfmm[c];
  }
  CHECK(off == 0);
  printf("largest difference %.3g m over %d finite cells; %d cells labelled otherwise\n", worst, finite, label_diff);
  /* cells on the border between two exits may go either way by an ulp */
  CHECK(label_diff <= finite / 100);
  CHECK(e.label[10 * 80 + 60] == 0 && e.label[50 * 80 + 60] == 1 && e.label[30 * 80 + 2] == 0);
  thr_route_engine_free(&e);
}

/* The same bits with one thread or several (the rounds read only the values
 * at their start). */
THR_TEST(tiles_independent_of_threads) {
  scene s;
  scene_init(&s);
  thr_navsource src[2] = {{10 * 80 + 75, 0.0f, 0}, {50 * 80 + 75, 3.0f, 1}};
  float a[80 * 60], b[80 * 60];
  float offset[2] = {0.0f, 3.0f};
  thr_route_engine e;
  engine(&e, &s, src, 2);
#ifdef _OPENMP
  int was = omp_get_max_threads();
  omp_set_num_threads(1);
#endif
  thr_route_engine_solve(&e, offset, a);
#ifdef _OPENMP
  omp_set_num_threads(4);
#endif
  thr_route_engine_solve(&e, offset, b);
#ifdef _OPENMP
  omp_set_num_threads(was);
#endif
  CHECK(memcmp(a, b, sizeof a) == 0);
  thr_route_engine_free(&e);
}

/* Box sums against adding up each box. */
THR_TEST(box_sums_brute_force) {
  enum { NX = 23, NY = 17 };
  int32_t in[NX * NY], rows[NX * NY], out[NX * NY];
  uint32_t r = 12345u;
  for (int c = 0; c < NX * NY; ++c) {
    r = r * 1664525u + 1013904223u;
    in[c] = (int32_t)(r >> 28);
  }
  for (int box = 1; box <= 4; ++box) {
    thr_route_box_sums(NX, NY, box, in, rows, out);
    int bad = 0;
    for (int j = 0; j < NY; ++j)
      for (int i = 0; i < NX; ++i) {
        int32_t sum = 0;
        for (int jj = j - box; jj <= j + box; ++jj)
          for (int ii = i - box; ii <= i + box; ++ii)
            if (ii >= 0 && jj >= 0 && ii < NX && jj < NY) sum += in[jj * NX + ii];
        bad += sum != out[j * NX + i];
      }
    CHECK(bad == 0);
  }
}

/* Weidmann's relation and the crowd's speed law, by hand. */
THR_TEST(crowd_law_by_hand) {
  /* v(rho)/v0 = 1 - exp(-1.913 (1/rho - 1/5.4)): 0.790 at 1, 0.452 at 2, 0.116 at 4 (validation.md) */
  CHECK_NEAR(thr_weidmann_relative(1.0f), 1.058 / 1.34, 0.002);
  CHECK_NEAR(thr_weidmann_relative(2.0f), 0.606 / 1.34, 0.002);
  CHECK_NEAR(thr_weidmann_relative(4.0f), 0.156 / 1.34, 0.002);
  CHECK(thr_weidmann_relative(0.0f) == 1.0f && thr_weidmann_relative(6.0f) == 0.0f);
  thr_crowd_law law = {1.0f, thr_weidmann_relative(1.0f), 0.3f};
  CHECK(thr_crowd_scale(&law, 0.5f) == 1.0f && thr_crowd_scale(&law, 1.0f) == 1.0f);
  CHECK_NEAR(thr_crowd_scale(&law, 2.0f), 0.606 / 1.058, 0.003);
  CHECK(thr_crowd_scale(&law, 4.0f) == 0.3f); /* 0.147 clamped */
  /* 3 agents (16 units each) over 9 walkable cells of 0.04 m^2 */
  CHECK_NEAR(thr_crowd_density(48, 9, 16, 0.04f), 3.0 / 0.36, 1e-4);
  CHECK(thr_crowd_density(48, 0, 16, 0.04f) == 0.0f);
}

/* The density a body meets: the largest box density of a cell and its 8
 * neighbours. A door 3 cells wide (rows 1..3 of a 5 x 5 grid; the posts are
 * cells (3, 0) and (3, 4)), one standing agent in front of it at each side
 * (cells (2, 1) and (2, 3)), box radius 1: the box density counts both
 * agents only in the door's middle row, so the rows beside the posts look
 * emptier and the quickest path would run along the posts; the body
 * density is the same in all three rows. */
THR_TEST(body_density_flat_across_a_door) {
  enum { N = 5 };
  int32_t walk[N * N], counts[N * N] = {0}, rows[N * N], wbox[N * N], sums[N * N];
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < N; ++i) walk[j * N + i] = !(i == 3 && (j == 0 || j == 4));
  counts[1 * N + 2] = THR_CROWD_QUANTA;
  counts[3 * N + 2] = THR_CROWD_QUANTA;
  thr_route_box_sums(N, N, 1, walk, rows, wbox);
  thr_route_box_sums(N, N, 1, counts, rows, sums);
  float area = 0.04f, box[3], body[3];
  for (int r = 1; r <= 3; ++r) {
    box[r - 1] = thr_crowd_density(sums[r * N + 3], wbox[r * N + 3], THR_CROWD_QUANTA, area);
    body[r - 1] = thr_crowd_density_body(sums, wbox, N, N, 3, r, THR_CROWD_QUANTA, area);
    printf("door row %d: box %.3f, body %.3f /m^2\n", r, box[r - 1], body[r - 1]);
  }
  /* by hand: beside a post one agent over 8 walkable cells (1 / 0.32 m^2), in the middle both over 9 */
  CHECK_NEAR(box[0], 1.0 / 0.32, 1e-4);
  CHECK_NEAR(box[1], 2.0 / 0.36, 1e-4);
  CHECK_NEAR(box[2], 1.0 / 0.32, 1e-4);
  CHECK(body[0] == body[1] && body[1] == body[2]);
  CHECK_NEAR(body[0], 2.0 / 0.36, 1e-4);
  /* a corner cell takes its in-grid neighbours only: the densest is (1, 0), agent (2, 1) over the 6 cells
   * of its box clipped by the grid's edge */
  CHECK_NEAR(thr_crowd_density_body(sums, wbox, N, N, 0, 0, THR_CROWD_QUANTA, area), 1.0 / (6 * 0.04), 1e-4);
}

/* An agent counts by how little it moves along the field: 16 standing, 0
 * walking its way at the free speed, up to 32 walking against it. */
THR_TEST(crowd_weight_by_hand) {
  float f[9] = {2.0f, 1.0f, 0.0f, 2.0f, 1.0f, 0.0f, 2.0f, 1.0f, 0.0f}; /* descends along +x */
  thr_evac_view e;
  memset(&e, 0, sizeof e);
  e.fox = 0.0f;
  e.foy = 0.0f;
  e.fh = 1.0f;
  e.fnx = 3;
  e.fny = 3;
  e.n_fields = 1;
  e.fields = f;
  thr_vec2 x = v2(1.2f, 1.3f);
  CHECK(thr_agent_crowd_weight(&e, -1, x, v2(1.0f, 0.0f)) == THR_CROWD_QUANTA);
  CHECK(thr_agent_crowd_weight(&e, 0, x, v2(0.0f, 0.0f)) == THR_CROWD_QUANTA);
  CHECK(thr_agent_crowd_weight(&e, 0, x, v2(THR_FREE_SPEED, 0.0f)) == 0);
  CHECK(thr_agent_crowd_weight(&e, 0, x, v2(0.67f, 0.0f)) == 8);
  CHECK(thr_agent_crowd_weight(&e, 0, x, v2(-3.0f, 0.0f)) == 2 * THR_CROWD_QUANTA);
  CHECK(thr_agent_crowd_weight(&e, 0, x, v2(0.0f, 1.0f)) == THR_CROWD_QUANTA); /* across: no progress */
}
