/* Distance fields (behavior/navfield.c) and their sampling
 * (kernels/field_sample.h): accuracy against exact distances, walls, holes,
 * unreachable places, the clearance band, targets, determinism, limits. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <time.h>

#include "base/polygon.h"
#include "behavior/navfield.h"
#include "check.h"

/* ---- scenes ------------------------------------------------------------ */

/* Obstacles as thr_world holds them. */
typedef struct walls {
  thr_world w;
  int vfirst[9], closed[8];
  thr_vec2 verts[64];
} walls;

static void walls_init(walls *s) {
  memset(s, 0, sizeof *s);
  s->w.obs_vfirst = s->vfirst;
  s->w.obs_closed = s->closed;
  s->w.verts = s->verts;
}

static void walls_add(walls *s, const thr_vec2 *v, int n, int closed) {
  thr_world *w = &s->w;
  memcpy(s->verts + w->n_verts, v, sizeof *v * (size_t)n);
  w->n_verts += n;
  s->closed[w->n_obstacles] = closed;
  s->vfirst[++w->n_obstacles] = w->n_verts;
}

/* Polygons with holes as a thr_polyset. */
typedef struct polys {
  thr_polyset ps;
  int poly_first[9], ring_first[17];
  thr_vec2 verts[64];
} polys;

static void polys_init(polys *p) {
  memset(p, 0, sizeof *p);
  p->ps.poly_first = p->poly_first;
  p->ps.ring_first = p->ring_first;
  p->ps.verts = p->verts;
}

/* Add a ring to the last polygon, or start a new polygon with it. */
static void polys_ring(polys *p, const thr_vec2 *v, int n, int new_polygon) {
  thr_polyset *s = &p->ps;
  memcpy(p->verts + s->n_verts, v, sizeof *v * (size_t)n);
  s->n_verts += n;
  s->ring_first[++s->n_rings] = s->n_verts;
  if (new_polygon) s->n_polys++;
  p->poly_first[s->n_polys] = s->n_rings;
}

static void rect(thr_vec2 *v, float x0, float y0, float x1, float y1) {
  v[0] = v2(x0, y0);
  v[1] = v2(x1, y0);
  v[2] = v2(x1, y1);
  v[3] = v2(x0, y1);
}

/* A grid over [0, size]^2. */
static thr_navgrid grid(float size, float cell, const thr_world *w, const thr_polyset *walkable, float clearance) {
  thr_navgrid g;
  thr_navgrid_spec spec = {v2(0.0f, 0.0f), v2(size, size), cell, clearance, 0.1f, 1};
  char err[256] = "";
  if (thr_navgrid_init(&g, &spec, w, walkable, err, sizeof err)) {
    fprintf(stderr, "thr_navgrid_init: %s\n", err);
    exit(1);
  }
  return g;
}

/* The field of g towards the cells within r of p (a fresh array). */
static float *solve_disk(const thr_navgrid *g, thr_vec2 p, float r) {
  size_t n = thr_navgrid_cells(g);
  unsigned char *target = calloc(n, 1);
  float *t = malloc(n * sizeof *t);
  CHECK(target && t);
  CHECK(thr_navtarget_disk(g, p, r, target) > 0);
  CHECK(thr_navfield_solve(g, target, t) > 0);
  free(target);
  return t;
}

static float at(const thr_navgrid *g, const float *t, thr_vec2 x) {
  thr_navfield_view v = thr_navgrid_view(g, t);
  return thr_navfield_value(&v, x);
}

static thr_vec2 direction(const thr_navgrid *g, const float *t, thr_vec2 x) {
  thr_navfield_view v = thr_navgrid_view(g, t);
  thr_vec2 d = v2(0.0f, 0.0f);
  CHECK(thr_navfield_direction(&v, x, &d));
  return d;
}

static float dist(thr_vec2 a, thr_vec2 b) { return v2_len(v2_sub(a, b)); }

static thr_vec2 unit_to(thr_vec2 from, thr_vec2 to) {
  thr_vec2 d = v2_sub(to, from);
  return v2_scale(d, 1.0f / v2_len(d));
}

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Fails cells whose |T - |x - p|| exceeds rel * |x - p| + abs_tol; prints
 * the largest error, and the largest and mean relative error beyond 1 m. */
static void check_euclidean(const thr_navgrid *g, const float *t, thr_vec2 p, double rel, double abs_tol,
                            const char *what) {
  double worst_abs = 0.0, worst_rel = 0.0, worst_far = 0.0, sum_rel = 0.0;
  long bad = 0, n_rel = 0;
  for (int j = 0; j < g->ny; ++j) {
    for (int i = 0; i < g->nx; ++i) {
      double d = dist(thr_navgrid_centre(g, i, j), p), e = fabs(t[(size_t)j * g->nx + i] - d);
      worst_abs = fmax(worst_abs, e);
      if (d > 1.0) {
        worst_rel = fmax(worst_rel, e / d);
        sum_rel += e / d;
        ++n_rel;
      }
      if (d > 5.0) worst_far = fmax(worst_far, e / d);
      if (!(e <= rel * d + abs_tol)) ++bad;
    }
  }
  printf("%s, cells of %g m: largest error %.3f m; relative beyond 1 m: largest %.2f %%, mean %.2f %%; "
         "beyond 5 m: largest %.2f %%\n",
         what, (double)g->h, worst_abs, 100.0 * worst_rel, 100.0 * sum_rel / (double)n_rel, 100.0 * worst_far);
  CHECK(bad == 0);
}

/* ---- accuracy -------------------------------------------------------------- */

static const float cell_sizes[3] = {0.2f, 0.1f, 0.05f};

/* An empty 20 m box, a target point at a cell centre: the field is the
 * Euclidean distance within 3 % + one cell everywhere, at every cell size. */
THR_TEST(empty_box_is_euclidean) {
  for (int k = 0; k < 3; ++k) {
    thr_navgrid g = grid(20.0f, cell_sizes[k], NULL, NULL, 0.0f);
    int i = (int)(7.0f / g.h), j = (int)(9.0f / g.h);
    thr_vec2 p = thr_navgrid_centre(&g, i, j);
    float *t = solve_disk(&g, p, 0.0f);
    CHECK(t[j * g.nx + i] == 0.0f);
    check_euclidean(&g, t, p, 0.03, g.h, "empty box");
    free(t);
    thr_navgrid_free(&g);
  }
}

/* A wall across the middle with one gap [8, 10]: behind the wall the value
 * is the path round the gap's near end within 3 % + 3 cells (printed: the
 * largest and mean error over a lattice of points behind the wall), and
 * the direction leads to that end, not through the wall. */
THR_TEST(wall_with_gap_goes_round) {
  walls s;
  walls_init(&s);
  thr_vec2 left[2] = {{0.0f, 10.0f}, {8.0f, 10.0f}}, right[2] = {{10.0f, 10.0f}, {20.0f, 10.0f}};
  walls_add(&s, left, 2, 0);
  walls_add(&s, right, 2, 0);
  thr_vec2 p = v2(4.0f, 4.0f), corner = v2(8.0f, 10.0f);
  for (int k = 0; k < 3; ++k) {
    thr_navgrid g = grid(20.0f, cell_sizes[k], &s.w, NULL, 0.0f);
    float *t = solve_disk(&g, p, 0.0f);
    double worst = 0.0, sum = 0.0;
    int n = 0;
    for (float y = 11.0f; y < 20.0f; y += 0.5f) {
      for (float x = 0.5f; x < 7.9f; x += 0.5f, ++n) {
        thr_vec2 q = v2(x, y);
        float path = dist(p, corner) + dist(corner, q), err = at(&g, t, q) - path;
        CHECK(fabsf(err) <= 0.03f * path + 3.0f * g.h);
        worst = fmax(worst, fabs(err) / path);
        sum += fabs(err) / path;
      }
    }
    printf("behind the wall, cells of %g m: largest error %.2f %% of the path round the gap end, mean %.2f %% "
           "(%d points)\n", (double)g.h, 100.0 * worst, 100.0 * sum / n, n);
    thr_vec2 probes[3] = {{4.0f, 16.0f}, {1.0f, 11.0f}, {6.0f, 18.0f}};
    for (int m = 0; m < 3; ++m) CHECK(v2_dot(direction(&g, t, probes[m]), unit_to(probes[m], corner)) > 0.99f);
    free(t);
    thr_navgrid_free(&g);
  }
}

/* A solid obstacle and a hole in the walkable area are +inf inside (exactly
 * the cells whose centre the polygon contains), and the walkable area's
 * islands out of reach are +inf too. */
THR_TEST(holes_and_islands_are_infinite) {
  polys area;
  polys_init(&area);
  thr_vec2 outer[4], hole[4], island[4];
  rect(outer, 0.0f, 0.0f, 12.0f, 20.0f);
  rect(hole, 4.0f, 4.0f, 8.0f, 8.0f);
  rect(island, 14.0f, 2.0f, 19.0f, 18.0f);
  polys_ring(&area, outer, 4, 1);
  polys_ring(&area, hole, 4, 0);
  polys_ring(&area, island, 4, 1);
  walls s;
  walls_init(&s);
  thr_vec2 tri[3] = {{2.0f, 12.0f}, {9.0f, 13.0f}, {5.0f, 17.5f}};
  walls_add(&s, tri, 3, 1);
  thr_navgrid g = grid(20.0f, 0.1f, &s.w, &area.ps, 0.0f);
  float *t = solve_disk(&g, v2(1.0f, 1.0f), 0.3f);
  long in_hole = 0, in_tri = 0, on_island = 0, wrong = 0;
  for (int j = 0; j < g.ny; ++j) {
    for (int i = 0; i < g.nx; ++i) {
      thr_vec2 c = thr_navgrid_centre(&g, i, j);
      float v = t[(size_t)j * g.nx + i];
      int h = thr_polygon_contains(hole, 4, c), o = thr_polygon_contains(tri, 3, c);
      int isl = thr_polygon_contains(island, 4, c), out = !thr_polygon_contains(outer, 4, c);
      in_hole += h;
      in_tri += o;
      on_island += isl;
      /* walls touch the cells along the triangle's edges as well */
      if (h || o || isl || out)
        wrong += v != INFINITY;
      else if (v == INFINITY && dist(c, tri[0]) > 0.2f && dist(c, tri[1]) > 0.2f && dist(c, tri[2]) > 0.2f &&
               g.kind[(size_t)j * g.nx + i] != THR_NAV_BLOCKED)
        wrong++;
    }
  }
  CHECK(in_hole == 40 * 40 && in_tri > 1000 && on_island > 7000);
  CHECK(wrong == 0);
  CHECK(at(&g, t, v2(6.0f, 6.0f)) == INFINITY);
  CHECK(at(&g, t, v2(16.0f, 10.0f)) == INFINITY);
  /* beyond the hole: the path round its corner */
  thr_vec2 q = v2(7.0f, 11.0f), corner = v2(4.0f, 8.0f);
  float path = dist(v2(1.0f, 1.0f), corner) + dist(corner, q) - 0.3f;
  CHECK_NEAR(at(&g, t, q), path, 0.03f * path + 2.0f * g.h);
  free(t);
  thr_navgrid_free(&g);
}

/* A closed room without a door (a diamond of walls, so that the walls run
 * diagonally through the cells) is unreachable from outside. */
THR_TEST(closed_room_is_unreachable) {
  walls s;
  walls_init(&s);
  thr_vec2 room[5] = {{14.0f, 9.0f}, {18.03f, 13.0f}, {14.0f, 17.01f}, {9.97f, 13.0f}, {14.0f, 9.0f}};
  walls_add(&s, room, 5, 0);
  thr_navgrid g = grid(20.0f, 0.1f, &s.w, NULL, 0.0f);
  float *t = solve_disk(&g, v2(2.0f, 2.0f), 0.5f);
  long inside = 0, leaked = 0, outside_finite = 0;
  for (int j = 0; j < g.ny; ++j) {
    for (int i = 0; i < g.nx; ++i) {
      size_t c = (size_t)j * g.nx + i;
      if (g.kind[c] == THR_NAV_BLOCKED) continue;
      if (thr_polygon_contains(room, 4, thr_navgrid_centre(&g, i, j))) {
        inside++;
        leaked += t[c] != INFINITY;
      } else {
        outside_finite += t[c] != INFINITY;
      }
    }
  }
  CHECK(inside > 2500 && leaked == 0);
  CHECK(outside_finite > 30000);
  thr_navfield_view v = thr_navgrid_view(&g, t);
  thr_vec2 d;
  CHECK(thr_navfield_direction(&v, v2(14.0f, 13.0f), &d) == 0);
  free(t);
  thr_navgrid_free(&g);
}

/* A wall along a cell edge blocks the one row of cells above it (squares
 * are half-open), and nothing passes it. */
THR_TEST(wall_on_a_cell_edge_blocks_one_row) {
  walls s;
  walls_init(&s);
  thr_vec2 wall[2] = {{0.0f, 2.0f}, {4.0f, 2.0f}};
  walls_add(&s, wall, 2, 0);
  thr_navgrid g = grid(4.0f, 0.5f, &s.w, NULL, 0.0f); /* rows 3 (y 1.5 .. 2) and 4 (y 2 .. 2.5) */
  float *t = solve_disk(&g, v2(0.25f, 0.25f), 0.0f);
  for (int i = 0; i < 8; ++i) {
    CHECK(g.kind[3 * 8 + i] == THR_NAV_FREE && g.kind[4 * 8 + i] == THR_NAV_BLOCKED);
    CHECK(t[3 * 8 + i] < INFINITY && t[5 * 8 + i] == INFINITY);
  }
  free(t);
  thr_navgrid_free(&g);
}

/* The walkable area's edges (holes included) have a clearance band too. */
THR_TEST(walkable_edges_have_a_clearance_band) {
  polys area;
  polys_init(&area);
  thr_vec2 outer[4], hole[4];
  rect(outer, 0.0f, 0.0f, 10.0f, 10.0f);
  rect(hole, 4.0f, 4.0f, 6.0f, 6.0f);
  polys_ring(&area, outer, 4, 1);
  polys_ring(&area, hole, 4, 0);
  thr_navgrid g = grid(10.0f, 0.1f, NULL, &area.ps, 0.3f);
  CHECK(g.kind[50 * 100 + 1] == THR_NAV_SLOW && g.kind[50 * 100 + 2] == THR_NAV_SLOW);  /* x 0.15, 0.25 */
  CHECK(g.kind[50 * 100 + 3] == THR_NAV_FREE);                                          /* x 0.35 */
  CHECK(g.kind[50 * 100 + 38] == THR_NAV_SLOW && g.kind[50 * 100 + 36] == THR_NAV_FREE); /* x 3.85, 3.65 */
  CHECK(g.kind[50 * 100 + 45] == THR_NAV_BLOCKED);                                       /* in the hole */
  thr_navgrid_free(&g);
}

/* Within the clearance of a wall cells are slow but reachable, and the
 * direction there leads out of the band, away from the wall. */
THR_TEST(clearance_band_leads_away_from_walls) {
  walls s;
  walls_init(&s);
  thr_vec2 wall[2] = {{5.0f, 10.0f}, {15.0f, 10.0f}};
  walls_add(&s, wall, 2, 0);
  thr_navgrid g = grid(20.0f, 0.1f, &s.w, NULL, 0.5f);
  float *t = solve_disk(&g, v2(10.0f, 4.0f), 0.5f);
  long slow = 0, infinite = 0;
  for (int j = 0; j < g.ny; ++j) {
    for (int i = 0; i < g.nx; ++i) {
      size_t c = (size_t)j * g.nx + i;
      double d = fabs(thr_navgrid_centre(&g, i, j).y - 10.0);
      thr_vec2 x = thr_navgrid_centre(&g, i, j);
      int near = x.x > 5.0f && x.x < 15.0f && d < 0.5;
      if (g.kind[c] == THR_NAV_SLOW) {
        slow++;
        CHECK(dist(x, v2(fminf(fmaxf(x.x, 5.0f), 15.0f), 10.0f)) < 0.5f);
      }
      if (near && g.kind[c] != THR_NAV_BLOCKED) CHECK(g.kind[c] == THR_NAV_SLOW);
      if (g.kind[c] != THR_NAV_BLOCKED) infinite += t[c] == INFINITY;
    }
  }
  CHECK(slow > 8 * 100 && infinite == 0);
  /* in the band on either side, away from the ends: out of the band first */
  for (float x = 6.5f; x < 14.0f; x += 0.77f) {
    thr_vec2 above = direction(&g, t, v2(x, 10.3f)), below = direction(&g, t, v2(x, 9.72f));
    CHECK(above.y > 0.9f);
    CHECK(below.y < -0.9f);
  }
  /* next to the wall, where the four nodes around x are not all finite */
  CHECK(direction(&g, t, v2(9.0f, 10.02f)).y > 0.7f);
  free(t);
  thr_navgrid_free(&g);
}

/* ---- targets ------------------------------------------------------------------ */

/* A polygon holding cell centres marks exactly those; one thinner than a
 * cell (between two rows of centres) marks the cells it overlaps. A disk
 * holding no centre marks the cell holding its point. */
THR_TEST(targets_thinner_than_a_cell) {
  thr_navgrid g = grid(4.0f, 0.5f, NULL, NULL, 0.0f); /* 8 x 8, centres at 0.25 + 0.5 k */
  size_t n = thr_navgrid_cells(&g);
  unsigned char *m = calloc(n, 1);
  polys ps;
  polys_init(&ps);
  thr_vec2 wide[4], thin[4];
  rect(wide, 0.1f, 0.1f, 1.3f, 0.8f);   /* centres x 0.25 .. 1.25, y 0.25, 0.75 */
  rect(thin, 1.6f, 2.55f, 3.1f, 2.70f); /* between rows 2.25 and 2.75; columns of x 1.5 .. 3.5 */
  polys_ring(&ps, wide, 4, 1);
  polys_ring(&ps, thin, 4, 1);
  CHECK(thr_navtarget_polygon(&g, &ps.ps, 0, m) == 6);
  long marked = 0;
  for (size_t c = 0; c < n; ++c) marked += m[c];
  CHECK(marked == 6 && m[0] && m[2] && m[8 + 2] && !m[3]);
  memset(m, 0, n);
  CHECK(thr_navtarget_polygon(&g, &ps.ps, 1, m) > 0);
  for (int i = 0; i < 8; ++i) CHECK(m[5 * 8 + i] == (i >= 3 && i <= 6));
  for (int j = 0; j < 8; ++j)
    if (j != 5) CHECK(m[j * 8 + 4] == 0);
  memset(m, 0, n);
  CHECK(thr_navtarget_disk(&g, v2(1.1f, 3.4f), 0.1f, m) == 1 && m[6 * 8 + 2] == 1);
  CHECK(thr_navtarget_disk(&g, v2(9.0f, 3.4f), 0.1f, m) == 0); /* outside the grid */
  memset(m, 0, n);
  thr_vec2 slots[2] = {{0.25f, 0.25f}, {3.0f, 3.0f}};
  CHECK(thr_navtarget_points(&g, slots, 2, 0.5f, m) == 3 + 4);
  float *t = malloc(n * sizeof *t);
  CHECK(thr_navfield_solve(&g, m, t) == 7);
  CHECK(t[0] == 0.0f && t[5 * 8 + 5] == 0.0f && t[2] == 0.5f);
  free(t);
  free(m);
  thr_navgrid_free(&g);
}

/* Targets on blocked cells are no sources; with none, the field is +inf. */
THR_TEST(blocked_targets_are_no_sources) {
  walls s;
  walls_init(&s);
  thr_vec2 box[4];
  rect(box, 1.0f, 1.0f, 3.0f, 3.0f);
  walls_add(&s, box, 4, 1);
  thr_navgrid g = grid(4.0f, 0.5f, &s.w, NULL, 0.0f);
  size_t n = thr_navgrid_cells(&g);
  unsigned char *m = calloc(n, 1);
  float *t = malloc(n * sizeof *t);
  CHECK(thr_navtarget_disk(&g, v2(2.0f, 2.0f), 0.5f, m) == 4);
  CHECK(thr_navfield_solve(&g, m, t) == 0);
  for (size_t c = 0; c < n; ++c) CHECK(t[c] == INFINITY);
  free(t);
  free(m);
  thr_navgrid_free(&g);
}

/* ---- determinism -------------------------------------------------------------- */

THR_TEST(two_solves_are_byte_identical) {
  walls s;
  walls_init(&s);
  thr_vec2 zig[4] = {{2.0f, 3.0f}, {11.0f, 7.3f}, {4.0f, 12.0f}, {17.0f, 14.0f}};
  walls_add(&s, zig, 4, 0);
  thr_navgrid g = grid(20.0f, 0.1f, &s.w, NULL, 0.3f);
  size_t n = thr_navgrid_cells(&g);
  unsigned char *m = calloc(n, 1);
  thr_vec2 slots[3] = {{18.0f, 18.0f}, {1.0f, 18.0f}, {10.0f, 1.0f}};
  CHECK(thr_navtarget_points(&g, slots, 3, 0.4f, m) > 0);
  float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  CHECK(thr_navfield_solve(&g, m, a) > 0);
  CHECK(thr_navfield_solve(&g, m, b) > 0);
  CHECK(memcmp(a, b, n * sizeof *a) == 0);
  free(a);
  free(b);
  free(m);
  thr_navgrid_free(&g);
}

/* ---- sampling ---------------------------------------------------------------- */

/* A 3 x 3 field of a plane: bilinear interpolation reproduces it, and the
 * direction is exactly minus its gradient. */
THR_TEST(direction_of_a_plane) {
  float d[9];
  thr_navfield_view v = {1.0f, 2.0f, 0.5f, 3, 3, d};
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 3; ++i) d[j * 3 + i] = 10.0f + 2.0f * (float)i - 1.5f * (float)j;
  thr_vec2 xs[4] = {{1.25f, 2.25f}, {1.9f, 2.6f}, {2.2f, 3.2f}, {1.7f, 3.1f}};
  for (int k = 0; k < 4; ++k) {
    thr_vec2 dir;
    CHECK(thr_navfield_direction(&v, xs[k], &dir) == 1);
    CHECK_NEAR(dir.x, -0.8, 1e-6);
    CHECK_NEAR(dir.y, 0.6, 1e-6);
    float u = (xs[k].x - 1.25f) / 0.5f, w = (xs[k].y - 2.25f) / 0.5f;
    CHECK_NEAR(thr_navfield_value(&v, xs[k]), 10.0f + 2.0f * u - 1.5f * w, 1e-5);
  }
}

/* Where the four nodes around x are not all finite (beside a wall): the
 * gradient of the finite pairs of the quad (here x: 5 -> 4 along the bottom
 * row, y: 5 -> 6 along the left column; the pairs through the blocked node
 * are cut), worked by hand; where no pair of the quad is finite, towards the
 * centre of the smallest finite cell among x's cell and its 8 neighbours;
 * nothing where all are infinite or x's cell is the smallest (a target). */
THR_TEST(direction_fallback) {
  const float inf = INFINITY;
  float d[9] = {5.0f, 4.0f, inf,  /* row 0 */
                6.0f, inf, 3.5f,  /* row 1 */
                inf, 2.0f, 7.0f}; /* row 2: node (1, 2) is the smallest */
  thr_navfield_view v = {0.0f, 0.0f, 1.0f, 3, 3, d};
  thr_vec2 x = v2(1.3f, 1.4f), dir;
  CHECK(thr_navfield_value(&v, x) == INFINITY);
  CHECK(thr_navfield_direction(&v, x, &dir) == 1);
  /* descent (-(4 - 5), -(6 - 5)) */
  CHECK_NEAR(dir.x, 0.70710678, 1e-6);
  CHECK_NEAR(dir.y, -0.70710678, 1e-6);
  /* a quad with one finite node (3), in a corner of two walls: the pair just
   * beyond it on the open side, 3 -> 2 upwards */
  float c[9] = {inf, inf, inf, inf, 3.0f, inf, inf, 2.0f, inf};
  thr_navfield_view vc = {0.0f, 0.0f, 1.0f, 3, 3, c};
  CHECK(thr_navfield_direction(&vc, v2(1.3f, 1.2f), &dir) == 1);
  CHECK(dir.x == 0.0f && dir.y == 1.0f);
  /* no finite pair anywhere near: towards the centre of the smallest finite cell */
  float f1[9] = {inf, inf, inf, inf, 3.0f, inf, 2.0f, inf, inf};
  thr_navfield_view vf = {0.0f, 0.0f, 1.0f, 3, 3, f1};
  thr_vec2 xf = v2(1.3f, 1.2f), want = unit_to(xf, v2(0.5f, 2.5f));
  CHECK(thr_navfield_direction(&vf, xf, &dir) == 1);
  CHECK_NEAR(dir.x, want.x, 1e-6);
  CHECK_NEAR(dir.y, want.y, 1e-6);
  /* outside the grid: from the nearest edge cell's neighbourhood */
  CHECK(thr_navfield_direction(&v, v2(-3.0f, 0.2f), &dir) == 1);
  want = unit_to(v2(-3.0f, 0.2f), v2(1.5f, 0.5f));
  CHECK_NEAR(dir.x, want.x, 1e-6);
  CHECK_NEAR(dir.y, want.y, 1e-6);
  /* a target cell (no smaller neighbour) where the quad has no finite pair: no direction */
  float z[9] = {inf, 1.0f, inf, 1.0f, 0.0f, inf, inf, inf, inf};
  thr_navfield_view vz = {0.0f, 0.0f, 1.0f, 3, 3, z};
  CHECK(thr_navfield_direction(&vz, v2(1.7f, 1.7f), &dir) == 0);
  /* nothing finite around x, or x not a number */
  float e[9] = {inf, inf, inf, inf, inf, inf, inf, inf, inf};
  thr_navfield_view ve = {0.0f, 0.0f, 1.0f, 3, 3, e};
  CHECK(thr_navfield_direction(&ve, v2(1.5f, 1.5f), &dir) == 0);
  CHECK(thr_navfield_direction(&ve, v2(NAN, 1.0f), &dir) == 0);
}

/* ---- limits and scale ------------------------------------------------------------ */

THR_TEST(refuses_too_many_cells) {
  thr_navgrid g;
  char err[256] = "";
  thr_navgrid_spec spec = {v2(0.0f, 0.0f), v2(10000.0f, 10000.0f), 0.5f, 0.3f, 0.1f, 1}; /* 4e8 cells */
  CHECK(thr_navgrid_init(&g, &spec, NULL, NULL, err, sizeof err) == -1);
  printf("%s\n", err);
  CHECK(strstr(err, "routing.cell") != NULL && strstr(err, "4e+08") != NULL && g.kind == NULL);
  spec.hi.y = 50.0f; /* 2e6 cells: accepted; 1 byte per cell and 4 per cell and field */
  CHECK(thr_navgrid_init(&g, &spec, NULL, NULL, err, sizeof err) == 0 && thr_navgrid_cells(&g) == 2000000u);
  CHECK(thr_navgrid_bytes(&g, 2) == sizeof g + 9 * (size_t)2000000u);
  thr_navgrid_free(&g);
  spec.cell = 0.0f;
  CHECK(thr_navgrid_init(&g, &spec, NULL, NULL, err, sizeof err) == -1 && strstr(err, "routing.cell") != NULL);
}

/* 200 m x 200 m at 0.2 m (10^6 cells), walls and a point target: the solve
 * time (printed) and the accuracy in the open part. */
THR_TEST(million_cells) {
  walls s;
  walls_init(&s);
  thr_vec2 wall[2] = {{20.0f, 100.0f}, {180.0f, 100.0f}};
  walls_add(&s, wall, 2, 0);
  thr_navgrid g = grid(200.0f, 0.2f, &s.w, NULL, 0.25f);
  size_t n = thr_navgrid_cells(&g);
  unsigned char *m = calloc(n, 1);
  float *t = malloc(n * sizeof *t);
  thr_vec2 p = thr_navgrid_centre(&g, 500, 250);
  CHECK(thr_navtarget_disk(&g, p, 0.0f, m) == 1);
  double t0 = seconds();
  CHECK(thr_navfield_solve(&g, m, t) == 1);
  double t1 = seconds();
  printf("solve: %d x %d = %zu cells in %.3f s\n", g.nx, g.ny, n, t1 - t0);
  float q = at(&g, t, v2(100.0f, 150.0f));
  float path = dist(p, v2(20.0f, 100.0f)) + dist(v2(20.0f, 100.0f), v2(100.0f, 150.0f));
  printf("behind the wall: %.3f m, path round its end %.3f m (%.2f %%)\n", (double)q, (double)path,
         100.0 * (q - path) / path);
  CHECK_NEAR(q, path, 0.03f * path + 2.0f * g.h);
  free(t);
  free(m);
  thr_navgrid_free(&g);
}

/* A building's seam (behavior/navfield.h: phantom cells): a corridor cut in
 * two at x = 10, its far half laid 20 m further east (x 30-40) and joined
 * by seams, gives the field of the whole corridor (x 0-20) laid straight,
 * to float rounding: the phantoms hand each half the other's values. */
THR_TEST(a_seam_joins_two_places_as_one_corridor) {
  thr_vec2 v[4];
  polys cut, whole;
  polys_init(&cut);
  polys_init(&whole);
  rect(v, 0.0f, 0.0f, 10.0f, 2.0f);
  polys_ring(&cut, v, 4, 1);
  rect(v, 30.0f, 0.0f, 40.0f, 2.0f);
  polys_ring(&cut, v, 4, 1);
  rect(v, 0.0f, 0.0f, 20.0f, 2.0f);
  polys_ring(&whole, v, 4, 1);
  thr_navgrid_spec spec = {v2(-1.0f, -1.0f), v2(41.0f, 3.0f), 0.2f, 0.0f, 0.1f, 0};
  char err[256] = "";
  thr_navgrid gc, gw;
  CHECK(thr_navgrid_init(&gc, &spec, NULL, &cut.ps, err, sizeof err) == 0);
  CHECK(thr_navgrid_init(&gw, &spec, NULL, &whole.ps, err, sizeof err) == 0);
  thr_seam seams[2] = {{v2(10.0f, 0.0f), v2(10.0f, 2.0f), v2(1.0f, 0.0f), 20.0f},
                       {v2(30.0f, 0.0f), v2(30.0f, 2.0f), v2(-1.0f, 0.0f), -20.0f}};
  long np = thr_navgrid_seams(&gc, seams, 2);
  /* rows y 0.1 .. 1.9 (10 of them), cells 10.1 .. 10.5 and 29.5 .. 29.9 beyond each seam */
  CHECK(np == 2 * 10 * 3);
  size_t n = thr_navgrid_cells(&gc);
  unsigned char *tc = calloc(n, 1), *tw = calloc(n, 1);
  float *fc = malloc(n * sizeof *fc), *fw = malloc(n * sizeof *fw);
  CHECK(tc && tw && fc && fw);
  CHECK(thr_navtarget_disk(&gc, v2(39.5f, 1.0f), 0.3f, tc) > 0); /* the far end: 19.5 laid straight */
  CHECK(thr_navtarget_disk(&gw, v2(19.5f, 1.0f), 0.3f, tw) > 0);
  CHECK(thr_navfield_solve(&gc, tc, fc) > 0);
  CHECK(thr_navfield_solve(&gw, tw, fw) > 0);
  float worst = 0.0f;
  for (float x = 0.3f; x < 10.0f; x += 0.7f) {
    float a = at(&gc, fc, v2(x, 1.0f)), b = at(&gw, fw, v2(x, 1.0f));
    CHECK(isfinite(a));
    worst = fmaxf(worst, fabsf(a - b));
  }
  printf("  across the seam: largest difference to the straight corridor %g m (at about 19 m)\n", (double)worst);
  CHECK(worst < 1e-4f);
  /* and the other half, at the same places laid straight */
  for (float x = 30.3f; x < 40.0f; x += 0.7f) CHECK(fabsf(at(&gc, fc, v2(x, 1.0f)) - at(&gw, fw, v2(x - 20.0f, 1.0f))) < 1e-4f);
  free(tc), free(tw), free(fc), free(fw);
  thr_navgrid_free(&gc);
  thr_navgrid_free(&gw);
}
