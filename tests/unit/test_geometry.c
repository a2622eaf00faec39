/* Unit tests of the shape predicates (base/geometry.c) on hand-computed
 * cases: how segments meet, ring areas, points on edges and in holes,
 * faulty rings and polygon sets, rings inside areas, exit strips. */
#include <stdlib.h>

#include "base/geometry.h"
#include "check.h"

#define TOL 1e-6

static int meet(float ax, float ay, float bx, float by, float cx, float cy, float dx, float dy, thr_vec2 *at) {
  return thr_segments_meet(v2(ax, ay), v2(bx, by), v2(cx, cy), v2(dx, dy), at);
}

static void check_at(thr_vec2 at, float x, float y) {
  CHECK_NEAR(at.x, x, TOL);
  CHECK_NEAR(at.y, y, TOL);
}

/* A polygon set from rings: counts[k] vertices for ring k, polys[p] rings
 * for polygon p (its first the outer ring). */
typedef struct shape {
  thr_polyset s;
  int poly_first[8], ring_first[16];
  thr_vec2 verts[64];
} shape;

static shape *make_shape(const float *xy, const int *counts, int n_rings, const int *rings_per_poly, int n_polys) {
  shape *sh = calloc(1, sizeof *sh);
  int nv = 0;
  for (int r = 0; r < n_rings; ++r) {
    sh->ring_first[r] = nv;
    for (int k = 0; k < counts[r]; ++k, ++nv) sh->verts[nv] = v2(xy[2 * nv], xy[2 * nv + 1]);
  }
  sh->ring_first[n_rings] = nv;
  for (int p = 0, r = 0; p < n_polys; r += rings_per_poly[p++]) sh->poly_first[p] = r;
  sh->poly_first[n_polys] = n_rings;
  sh->s = (thr_polyset){n_polys, n_rings, nv, sh->poly_first, sh->ring_first, sh->verts, NULL};
  return sh;
}

/* One polygon of one ring. */
static shape *ring_shape(const float *xy, int n) {
  const int one = 1;
  return make_shape(xy, &n, 1, &one, 1);
}

/* A 10 x 10 square with a 2 x 2 hole at (4, 4): the area most cases use. */
static shape *room_with_pillar(void) {
  static const float xy[] = {0, 0, 10, 0, 10, 10, 0, 10, 4, 4, 6, 4, 6, 6, 4, 6};
  const int counts[] = {4, 4}, polys[] = {2};
  return make_shape(xy, counts, 2, polys, 1);
}

/* ---- segments ------------------------------------------------------------- */

THR_TEST(segments_crossing) {
  thr_vec2 at;
  CHECK(meet(0, 0, 2, 2, 0, 2, 2, 0, &at) == THR_SEG_CROSS);
  check_at(at, 1, 1);
  CHECK(meet(0, 0, 4, 0, 1, -1, 2, 1, &at) == THR_SEG_CROSS);
  check_at(at, 1.5f, 0);
  CHECK(meet(0, 0, 2, 2, 2, 0, 3, -1, NULL) == THR_SEG_APART);
  CHECK(meet(0, 0, 1, 0, 0, 1, 1, 1, NULL) == THR_SEG_APART); /* parallel */
}

THR_TEST(segments_touching) {
  thr_vec2 at;
  CHECK(meet(0, 0, 2, 0, 1, 0, 1, 1, &at) == THR_SEG_TOUCH); /* a T */
  check_at(at, 1, 0);
  CHECK(meet(0, 0, 1, 0, 1, 0, 1, 1, &at) == THR_SEG_TOUCH); /* a shared end */
  check_at(at, 1, 0);
  CHECK(meet(1, 1, 1, 3, 0, 0, 2, 2, &at) == THR_SEG_TOUCH); /* the end of one on the other */
  check_at(at, 1, 1);
  CHECK(meet(0, 0, 1, 1, 2, 2, 3, 0, NULL) == THR_SEG_APART); /* would touch if longer */
}

THR_TEST(segments_collinear) {
  thr_vec2 at;
  CHECK(meet(0, 0, 2, 0, 1, 0, 3, 0, &at) == THR_SEG_OVERLAP);
  check_at(at, 2, 0);
  CHECK(meet(0, 0, 4, 4, 1, 1, 2, 2, NULL) == THR_SEG_OVERLAP); /* one inside the other */
  CHECK(meet(0, 0, 0, 1, 0, 1, 0, 3, &at) == THR_SEG_TOUCH);    /* end to end */
  check_at(at, 0, 1);
  CHECK(meet(0, 0, 1, 0, 2, 0, 3, 0, NULL) == THR_SEG_APART);
  CHECK(meet(0, 0, 0, 0, 0, -1, 0, 1, &at) == THR_SEG_TOUCH); /* a point on a segment */
  check_at(at, 0, 0);
}

THR_TEST(point_segment_distance) {
  CHECK_NEAR(thr_point_segment_distance(v2(1, 1), v2(0, 0), v2(2, 0)), 1, TOL);
  CHECK_NEAR(thr_point_segment_distance(v2(5, 4), v2(0, 0), v2(2, 0)), 5, TOL); /* beyond the end: 3-4-5 */
  CHECK_NEAR(thr_point_segment_distance(v2(1, 0), v2(0, 0), v2(2, 0)), 0, TOL);
}

/* ---- rings ---------------------------------------------------------------- */

THR_TEST(ring_areas) {
  const thr_vec2 ccw[] = {{0, 0}, {2, 0}, {2, 3}, {0, 3}}, cw[] = {{0, 0}, {0, 3}, {2, 3}, {2, 0}};
  const thr_vec2 tri[] = {{0, 0}, {4, 0}, {0, 3}}, flat[] = {{0, 0}, {1, 0}, {2, 0}};
  CHECK_NEAR(thr_ring_area(ccw, 4), 6, TOL);
  CHECK_NEAR(thr_ring_area(cw, 4), -6, TOL);
  CHECK_NEAR(thr_ring_area(tri, 3), 6, TOL);
  CHECK(thr_ring_area(flat, 3) == 0.0);
}

THR_TEST(points_on_edges_and_in_holes) {
  shape *room = room_with_pillar();
  const thr_polyset *s = &room->s;
  CHECK(thr_polyset_locate(s, v2(1, 1), 0) == THR_INSIDE);
  CHECK(thr_polyset_locate(s, v2(5, 0), 0) == THR_ON_BOUNDARY); /* on an edge */
  CHECK(thr_polyset_locate(s, v2(10, 10), 0) == THR_ON_BOUNDARY); /* on a corner */
  CHECK(thr_polyset_locate(s, v2(5, 5), 0) == THR_OUTSIDE);       /* in the hole */
  CHECK(thr_polyset_locate(s, v2(6, 5), 0) == THR_ON_BOUNDARY);   /* on the hole's edge */
  CHECK(thr_polyset_locate(s, v2(11, 5), 0) == THR_OUTSIDE);
  CHECK(thr_polyset_locate(s, v2(10.0005f, 5), 1e-3) == THR_ON_BOUNDARY); /* within the tolerance */
  CHECK(thr_polyset_locate(s, v2(10.01f, 5), 1e-3) == THR_OUTSIDE);
  CHECK(thr_ring_is_outer(s, 0) && !thr_ring_is_outer(s, 1));
  CHECK_NEAR(thr_polyset_area(s), 96, TOL); /* 10 x 10 less the 2 x 2 pillar */
  free(room);
}

/* ---- faulty shapes -------------------------------------------------------- */

THR_TEST(valid_shapes_pass) {
  shape *room = room_with_pillar();
  thr_shape_report r;
  CHECK(thr_polyset_check(&room->s, &r) == THR_SHAPE_OK);
  free(room);
  /* an island in the hole of another polygon; two squares touching at a corner */
  static const float xy[] = {0, 0, 10, 0, 10, 10, 0, 10, 2, 2, 8, 2, 8, 8, 2, 8, 4, 4, 6, 4, 6, 6, 4, 6,
                             10, 10, 12, 10, 12, 12, 10, 12};
  const int counts[] = {4, 4, 4, 4}, polys[] = {2, 1, 1};
  shape *sh = make_shape(xy, counts, 4, polys, 3);
  CHECK(thr_polyset_check(&sh->s, &r) == THR_SHAPE_OK);
  free(sh);
}

THR_TEST(bow_tie_ring) {
  static const float xy[] = {0, 0, 2, 2, 2, 0, 0, 2};
  shape *sh = ring_shape(xy, 4);
  thr_shape_report r;
  CHECK(thr_polyset_check(&sh->s, &r) == THR_SHAPE_SELF_MEET);
  CHECK(r.ring == 0 && r.edge == 0 && r.other == 0 && r.other_edge == 2);
  check_at(r.at, 1, 1);
  free(sh);
}

THR_TEST(ring_touching_itself_at_a_vertex) {
  /* two unit squares joined at (1, 1), walked as one ring */
  static const float xy[] = {0, 0, 1, 0, 1, 1, 2, 1, 2, 2, 1, 2, 1, 1, 0, 1};
  shape *sh = ring_shape(xy, 8);
  thr_shape_report r;
  CHECK(thr_polyset_check(&sh->s, &r) == THR_SHAPE_SELF_MEET);
  check_at(r.at, 1, 1);
  free(sh);
  /* a spike: an edge that runs back over the one before */
  static const float spike[] = {0, 0, 4, 0, 2, 0, 2, 2};
  sh = ring_shape(spike, 4);
  CHECK(thr_polyset_check(&sh->s, &r) == THR_SHAPE_SELF_MEET);
  free(sh);
}

THR_TEST(degenerate_rings) {
  static const float two[] = {0, 0, 1, 1}, flat[] = {0, 0, 1, 0, 3, 0};
  thr_shape_report r;
  shape *sh = ring_shape(two, 2);
  CHECK(thr_polyset_check(&sh->s, &r) == THR_SHAPE_FEW_VERTICES && r.ring == 0);
  free(sh);
  sh = ring_shape(flat, 3);
  CHECK(thr_polyset_check(&sh->s, &r) == THR_SHAPE_ZERO_AREA);
  free(sh);
}

THR_TEST(hole_outside_its_polygon) {
  static const float xy[] = {0, 0, 10, 0, 10, 10, 0, 10, 20, 20, 21, 20, 21, 21, 20, 21};
  const int counts[] = {4, 4}, polys[] = {2};
  shape *sh = make_shape(xy, counts, 2, polys, 1);
  thr_shape_report r;
  CHECK(thr_polyset_check(&sh->s, &r) == THR_SHAPE_HOLE_OUTSIDE);
  CHECK(r.ring == 1 && r.other == 0);
  check_at(r.at, 20, 20);
  free(sh);
  /* a hole across the outer ring */
  static const float across[] = {0, 0, 10, 0, 10, 10, 0, 10, 8, 4, 12, 4, 12, 6, 8, 6};
  sh = make_shape(across, counts, 2, polys, 1);
  CHECK(thr_polyset_check(&sh->s, &r) == THR_SHAPE_HOLE_CROSSES);
  check_at(r.at, 10, 4);
  free(sh);
}

THR_TEST(holes_overlapping) {
  static const float xy[] = {0, 0, 10, 0, 10, 10, 0, 10, 2, 2, 5, 2, 5, 5, 2, 5, 4, 4, 7, 4, 7, 7, 4, 7};
  const int counts[] = {4, 4, 4}, polys[] = {3};
  shape *sh = make_shape(xy, counts, 3, polys, 1);
  thr_shape_report r;
  CHECK(thr_polyset_check(&sh->s, &r) == THR_SHAPE_HOLES_OVERLAP);
  CHECK(r.ring == 2 && r.other == 1);
  free(sh);
  /* one hole inside the other: no edges meet */
  static const float nested[] = {0, 0, 10, 0, 10, 10, 0, 10, 2, 2, 8, 2, 8, 8, 2, 8, 4, 4, 5, 4, 5, 5, 4, 5};
  sh = make_shape(nested, counts, 3, polys, 1);
  CHECK(thr_polyset_check(&sh->s, &r) == THR_SHAPE_HOLES_OVERLAP);
  free(sh);
}

THR_TEST(polygons_overlapping) {
  static const float xy[] = {0, 0, 4, 0, 4, 4, 0, 4, 3, 3, 6, 3, 6, 6, 3, 6};
  const int counts[] = {4, 4}, polys[] = {1, 1};
  shape *sh = make_shape(xy, counts, 2, polys, 2);
  thr_shape_report r;
  CHECK(thr_polyset_check(&sh->s, &r) == THR_SHAPE_POLYS_OVERLAP);
  free(sh);
  /* sharing an edge */
  static const float shared[] = {0, 0, 4, 0, 4, 4, 0, 4, 4, 0, 8, 0, 8, 4, 4, 4};
  sh = make_shape(shared, counts, 2, polys, 2);
  CHECK(thr_polyset_check(&sh->s, &r) == THR_SHAPE_POLYS_OVERLAP);
  free(sh);
  /* one inside the other */
  static const float inner[] = {0, 0, 8, 0, 8, 8, 0, 8, 2, 2, 3, 2, 3, 3, 2, 3};
  sh = make_shape(inner, counts, 2, polys, 2);
  CHECK(thr_polyset_check(&sh->s, &r) == THR_SHAPE_POLYS_OVERLAP);
  CHECK(r.ring == 1 && r.other == 0);
  free(sh);
}

/* ---- rings inside an area ------------------------------------------------- */

THR_TEST(rings_within_an_area) {
  shape *room = room_with_pillar();
  thr_vec2 out;
  const thr_vec2 corner[] = {{0, 0}, {3, 0}, {3, 3}, {0, 3}};          /* on the outer boundary */
  const thr_vec2 around[] = {{3, 3}, {7, 3}, {7, 7}, {3, 7}};          /* holds the pillar */
  const thr_vec2 over[] = {{8, 4}, {12, 4}, {12, 6}, {8, 6}};          /* through the wall */
  const thr_vec2 across[] = {{3, 4.5f}, {7, 4.5f}, {7, 5.5f}, {3, 5.5f}}; /* vertices clear, edges through the hole */
  const thr_vec2 near[] = {{9, 1}, {10.0005f, 1}, {10.0005f, 2}, {9, 2}}; /* within the tolerance */
  CHECK(thr_ring_within(corner, 4, &room->s, 1e-3, &out));
  CHECK(!thr_ring_within(around, 4, &room->s, 1e-3, &out));
  CHECK(!thr_ring_within(over, 4, &room->s, 1e-3, &out));
  check_at(out, 12, 4);
  CHECK(!thr_ring_within(across, 4, &room->s, 1e-3, &out));
  CHECK(thr_ring_within(near, 4, &room->s, 1e-3, &out));
  CHECK(!thr_ring_within(near, 4, &room->s, 1e-4, &out));
  free(room);
}

THR_TEST(exit_strips) {
  shape *room = room_with_pillar();
  int ring = -1, edge = -1;
  thr_vec2 q[4];
  /* on the east wall (the outer ring, counter-clockwise): the strip lies west of it */
  CHECK(thr_boundary_edge_under(&room->s, v2(10, 4), v2(10.0005f, 6), 1e-3, &ring, &edge) == 0);
  CHECK(ring == 0 && edge == 1);
  thr_exit_strip(&room->s, ring, edge, v2(10, 4), v2(10.0005f, 6), 0.5f, q);
  check_at(q[0], 10, 4);
  check_at(q[1], 10, 6);
  check_at(q[2], 9.5f, 6);
  check_at(q[3], 9.5f, 4);
  /* on the pillar's south side (a hole): the strip lies south of it */
  CHECK(thr_boundary_edge_under(&room->s, v2(4.5f, 4), v2(5.5f, 4), 1e-3, &ring, &edge) == 0);
  CHECK(ring == 1 && edge == 0);
  thr_exit_strip(&room->s, ring, edge, v2(4.5f, 4), v2(5.5f, 4), 0.25f, q);
  check_at(q[2], 5.5f, 3.75f);
  check_at(q[3], 4.5f, 3.75f);
  /* across two walls, or off the boundary */
  CHECK(thr_boundary_edge_under(&room->s, v2(10, 9), v2(9, 10), 1e-3, &ring, &edge) == -1);
  CHECK(thr_boundary_edge_under(&room->s, v2(5, 1), v2(6, 1), 1e-3, &ring, &edge) == -1);
  free(room);
  /* a clockwise outer ring: the strip still lies inside */
  static const float cw[] = {0, 0, 0, 10, 10, 10, 10, 0};
  shape *sh = ring_shape(cw, 4);
  CHECK(thr_boundary_edge_under(&sh->s, v2(0, 2), v2(0, 4), 1e-3, &ring, &edge) == 0);
  thr_exit_strip(&sh->s, ring, edge, v2(0, 2), v2(0, 4), 0.5f, q);
  check_at(q[2], 0.5f, 4);
  free(sh);
}
