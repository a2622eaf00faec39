/* Unit tests of the ORCA model's obstacle edges (kernels/passes_orca.h):
 * polygons walked counter-clockwise whatever their orientation, concave
 * vertices, open walls as two faces. */
#include "check.h"
#include "kernels/pass_table.h"

static thr_obstacle_view view(const thr_vec2 *verts, const int *vfirst, const int *closed, int n) {
  thr_obstacle_view v = {n, vfirst, closed, verts, NULL, NULL};
  return v;
}

/* A unit square given clockwise: its edges run counter-clockwise, (1, 0)
 * to (1, 1) first, every vertex convex. */
THR_TEST(clockwise_square_walked_counter_clockwise) {
  thr_vec2 verts[4] = {{0, 0}, {0, 1}, {1, 1}, {1, 0}};
  int vfirst[2] = {0, 4}, closed[1] = {1};
  thr_obstacle_view ov = view(verts, vfirst, closed, 1);
  CHECK(thr_orca_edge_count(&ov, 0) == 4 && !thr_orca_polygon_ccw(&ov, 0));
  thr_orca_edge e = thr_orca_edge_of(&ov, 0, 0, thr_orca_polygon_ccw(&ov, 0));
  CHECK(e.p1.x == 1.0f && e.p1.y == 0.0f && e.p2.x == 1.0f && e.p2.y == 1.0f);
  CHECK_NEAR(e.d1.y, 1.0, 1e-7);
  CHECK_NEAR(e.d2.x, -1.0, 1e-7); /* (1, 1) -> (0, 1) */
  CHECK_NEAR(e.dprev.x, 1.0, 1e-7); /* (0, 0) -> (1, 0) */
  for (int k = 0; k < 4; ++k) {
    thr_orca_edge f = thr_orca_edge_of(&ov, 0, k, thr_orca_polygon_ccw(&ov, 0));
    CHECK(f.convex1 && f.convex2);
    CHECK(thr_det(f.d1, v2_sub(v2(0.5f, 0.5f), f.p1)) > 0.0f); /* the inside on the left */
  }
}

/* An L (counter-clockwise): the inner corner (1, 1) is not convex. */
THR_TEST(concave_corner) {
  thr_vec2 verts[6] = {{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}};
  int vfirst[2] = {0, 6}, closed[1] = {1};
  thr_obstacle_view ov = view(verts, vfirst, closed, 1);
  thr_orca_edge e = thr_orca_edge_of(&ov, 0, 2, thr_orca_polygon_ccw(&ov, 0)); /* (2, 1) -> (1, 1) */
  CHECK(e.convex1 && !e.convex2);
  e = thr_orca_edge_of(&ov, 0, 3, thr_orca_polygon_ccw(&ov, 0)); /* (1, 1) -> (1, 2) */
  CHECK(!e.convex1 && e.convex2);
}

/* An open wall of two segments: four edges, each segment once each way,
 * both ends convex, the two faces opposite. */
THR_TEST(open_wall_two_faces) {
  thr_vec2 verts[3] = {{0, 0}, {4, 0}, {4, 3}};
  int vfirst[2] = {0, 3}, closed[1] = {0};
  thr_obstacle_view ov = view(verts, vfirst, closed, 1);
  CHECK(thr_orca_edge_count(&ov, 0) == 4);
  thr_orca_edge a = thr_orca_edge_of(&ov, 0, 0, thr_orca_polygon_ccw(&ov, 0)), b = thr_orca_edge_of(&ov, 0, 1, thr_orca_polygon_ccw(&ov, 0)), c = thr_orca_edge_of(&ov, 0, 2, thr_orca_polygon_ccw(&ov, 0));
  CHECK(a.p1.x == 0.0f && a.p2.x == 4.0f && b.p1.x == 4.0f && b.p2.x == 0.0f);
  CHECK(a.d1.x == 1.0f && b.d1.x == -1.0f && a.convex1 && a.convex2 && b.convex1 && b.convex2);
  CHECK(c.p1.x == 4.0f && c.p1.y == 0.0f && c.p2.y == 3.0f);
}
