/* Unit tests of walls and obstacles (section 4.7): kernels/physics.h
 * (closest point, segment crossing, wall contact) and
 * kernels/obstacles_view.h (signed distance, point in polygon, per-cell
 * sums), against hand-computed results. */
#include <math.h>

#include "check.h"
#include "kernels/obstacles_view.h"
#include "kernels/physics.h"
#include "scene.h"

#define TOL 1e-6

/* A hand-built obstacle set:
 *   0: open wall   (0, 0) - (4, 0)
 *   1: closed square (10, 0) (12, 0) (12, 2) (10, 2), counter-clockwise
 *   2: open wall   (0, 1) - (4, 1)          (with 0: a corridor 1 m wide)
 *   3: open polyline (20, 0) - (22, 0) - (22, 2)  (an L) */
static const thr_vec2 k_verts[] = {
    {0.0f, 0.0f},  {4.0f, 0.0f},                                /* 0 */
    {10.0f, 0.0f}, {12.0f, 0.0f}, {12.0f, 2.0f}, {10.0f, 2.0f}, /* 1 */
    {0.0f, 1.0f},  {4.0f, 1.0f},                                /* 2 */
    {20.0f, 0.0f}, {22.0f, 0.0f}, {22.0f, 2.0f},                /* 3 */
};
static const int k_vfirst[] = {0, 2, 6, 8, 11};
static const int k_closed[] = {0, 1, 0, 0};
/* one cell listing every obstacle: cell_offset = {0, n} */
static const int k_one_cell_offset[] = {0, 4};
static const int k_one_cell_items[] = {0, 1, 2, 3};

static thr_obstacle_view make_view(const int *cell_offset, const int *cell_items) {
  thr_obstacle_view ov;
  ov.n = 4;
  ov.vfirst = k_vfirst;
  ov.closed = k_closed;
  ov.verts = k_verts;
  ov.cell_offset = cell_offset;
  ov.cell_items = cell_items;
  return ov;
}

/* ---- building blocks ----------------------------------------------------- */

/* Closest point on [a, b] = [(0, 0), (4, 0)]: interior (2, 3) -> (2, 0);
 * beyond b (5, 1) -> (4, 0); before a (-1, -2) -> (0, 0). Diagonal
 * [(0, 0), (2, 2)], p = (2, 0): t = (2*2)/(8) = 0.5 -> (1, 1).
 * Degenerate a == b -> a. */
THR_TEST(closest_on_segment) {
  thr_vec2 a = v2(0.0f, 0.0f), b = v2(4.0f, 0.0f), c = v2(0.0f, 0.0f);
  c = thr_closest_on_segment(v2(2.0f, 3.0f), a, b);
  CHECK(c.x == 2.0f && c.y == 0.0f);
  c = thr_closest_on_segment(v2(5.0f, 1.0f), a, b);
  CHECK(c.x == 4.0f && c.y == 0.0f);
  c = thr_closest_on_segment(v2(-1.0f, -2.0f), a, b);
  CHECK(c.x == 0.0f && c.y == 0.0f);
  c = thr_closest_on_segment(v2(2.0f, 0.0f), a, v2(2.0f, 2.0f));
  CHECK_NEAR(c.x, 1.0, TOL);
  CHECK_NEAR(c.y, 1.0, TOL);
  c = thr_closest_on_segment(v2(5.0f, 5.0f), v2(1.0f, 1.0f), v2(1.0f, 1.0f));
  CHECK(c.x == 1.0f && c.y == 1.0f);
}

/* An X crosses; parallel, disjoint, ending on the wall, and passing through
 * the segment's end b (include_end = 0) do not. */
THR_TEST(path_crosses_wall) {
  thr_vec2 a = v2(0.0f, 0.0f), b = v2(4.0f, 0.0f);
  CHECK(thr_path_crosses_wall(v2(2.0f, 1.0f), v2(2.0f, -1.0f), a, b, 0) == 1);
  CHECK(thr_path_crosses_wall(v2(1.0f, -0.2f), v2(1.5f, 0.1f), a, b, 0) == 1);
  CHECK(thr_path_crosses_wall(v2(0.0f, 1.0f), v2(4.0f, 1.0f), a, b, 0) == 0);  /* parallel */
  CHECK(thr_path_crosses_wall(v2(5.0f, 1.0f), v2(5.0f, -1.0f), a, b, 0) == 0); /* beyond b */
  CHECK(thr_path_crosses_wall(v2(2.0f, 1.0f), v2(2.0f, 0.0f), a, b, 0) == 0);  /* ends on it */
  CHECK(thr_path_crosses_wall(v2(4.0f, 1.0f), v2(4.0f, -1.0f), a, b, 0) == 0); /* through b */
  CHECK(thr_path_crosses_wall(v2(2.0f, 1.0f), v2(2.0f, 0.5f), a, b, 0) == 0);  /* short */
}

/* thr_wall_contact: dist 0.3, rr 0.5 -> C = -0.2, dx = 0.2 n; stiffness
 * 0.5 -> 0.1 n; dist 0.5 = rr or more -> inactive; dist -0.1 -> 0.6 n. */
THR_TEST(wall_contact_basic) {
  thr_vec2 n = v2(0.6f, 0.8f), dx = v2(9.0f, 9.0f);
  CHECK(thr_wall_contact(0.3f, n, 0.5f, 1.0f, &dx) == 1);
  CHECK_NEAR(dx.x, 0.12, TOL);
  CHECK_NEAR(dx.y, 0.16, TOL);
  CHECK(thr_wall_contact(0.3f, n, 0.5f, 0.5f, &dx) == 1);
  CHECK_NEAR(dx.x, 0.06, TOL);
  CHECK_NEAR(dx.y, 0.08, TOL);
  CHECK(thr_wall_contact(-0.1f, n, 0.5f, 1.0f, &dx) == 1);
  CHECK_NEAR(dx.x, 0.36, TOL);
  CHECK_NEAR(dx.y, 0.48, TOL);
  dx = v2(9.0f, 9.0f);
  CHECK(thr_wall_contact(0.5f, n, 0.5f, 1.0f, &dx) == 0);
  CHECK(thr_wall_contact(0.7f, n, 0.5f, 1.0f, &dx) == 0);
  CHECK(dx.x == 9.0f && dx.y == 9.0f);
}

/* ---- obstacle distance ---------------------------------------------------- */

/* Interior of wall 0, both sides (a wall is two-sided):
 * p = q = (2, 0.3): closest (2, 0), dist 0.3, n = (0, 1); rr 0.5 ->
 * dx = (0, 0.2) (ends at y = 0.5 = rr). p = (2, -0.3): n = (0, -1),
 * dx = (0, -0.2). p = (2, 0.6): dist 0.6 > 0.5, no contact. */
THR_TEST(wall_segment_interior) {
  thr_obstacle_view ov = make_view(k_one_cell_offset, k_one_cell_items);
  float d = 0.0f;
  thr_vec2 n = v2(0.0f, 0.0f), dx = v2(0.0f, 0.0f);
  CHECK(thr_obstacle_distance(&ov, 0, v2(2.0f, 0.3f), v2(2.0f, 0.3f), &d, &n) == 1);
  CHECK_NEAR(d, 0.3, TOL);
  CHECK_NEAR(n.x, 0.0, TOL);
  CHECK_NEAR(n.y, 1.0, TOL);
  CHECK(thr_wall_contact(d, n, 0.5f, 1.0f, &dx) == 1);
  CHECK_NEAR(dx.x, 0.0, TOL);
  CHECK_NEAR(dx.y, 0.2, TOL);
  CHECK(thr_obstacle_distance(&ov, 0, v2(2.0f, -0.3f), v2(2.0f, -0.3f), &d, &n) == 1);
  CHECK_NEAR(d, 0.3, TOL);
  CHECK_NEAR(n.y, -1.0, TOL);
  CHECK(thr_wall_contact(d, n, 0.5f, 1.0f, &dx) == 1);
  CHECK_NEAR(dx.y, -0.2, TOL);
  CHECK(thr_obstacle_distance(&ov, 0, v2(2.0f, 0.6f), v2(2.0f, 0.6f), &d, &n) == 1);
  CHECK_NEAR(d, 0.6, TOL);
  CHECK(thr_wall_contact(d, n, 0.5f, 1.0f, &dx) == 0);
}

/* Near the end b = (4, 0) of wall 0: p = (4.3, 0.4): closest point is the
 * endpoint, d = |(0.3, 0.4)| = 0.5, n = (0.6, 0.8) radial from it;
 * rr = 0.55: C = -0.05, dx = 0.05 n = (0.03, 0.04). Before a = (0, 0):
 * p = (-0.3, -0.4): n = (-0.6, -0.8). */
THR_TEST(wall_segment_end) {
  thr_obstacle_view ov = make_view(k_one_cell_offset, k_one_cell_items);
  float d = 0.0f;
  thr_vec2 n = v2(0.0f, 0.0f), dx = v2(0.0f, 0.0f);
  CHECK(thr_obstacle_distance(&ov, 0, v2(4.3f, 0.4f), v2(4.3f, 0.4f), &d, &n) == 1);
  CHECK_NEAR(d, 0.5, TOL);
  CHECK_NEAR(n.x, 0.6, TOL);
  CHECK_NEAR(n.y, 0.8, TOL);
  CHECK(thr_wall_contact(d, n, 0.55f, 1.0f, &dx) == 1);
  CHECK_NEAR(dx.x, 0.03, TOL);
  CHECK_NEAR(dx.y, 0.04, TOL);
  CHECK(thr_obstacle_distance(&ov, 0, v2(-0.3f, -0.4f), v2(-0.3f, -0.4f), &d, &n) == 1);
  CHECK_NEAR(d, 0.5, TOL);
  CHECK_NEAR(n.x, -0.6, TOL);
  CHECK_NEAR(n.y, -0.8, TOL);
}

/* Convex corner (12, 2) of the square: p = (12.3, 2.3), both adjacent edges
 * have the corner as closest point; ONE constraint (one obstacle):
 * d = 0.3 sqrt(2) = 0.42426407, n = (1, 1)/sqrt(2) = (0.70710678, ...);
 * rr = 0.5: C = -0.07573593, dx = 0.07573593 n = (0.05355339, 0.05355339). */
THR_TEST(polygon_corner) {
  static const int off[] = {0, 1};
  static const int items[] = {1};
  thr_obstacle_view ov = make_view(off, items);
  float d = 0.0f;
  thr_vec2 n = v2(0.0f, 0.0f);
  thr_vec2 p = v2(12.3f, 2.3f);
  CHECK(thr_obstacle_distance(&ov, 1, p, p, &d, &n) == 1);
  CHECK_NEAR(d, 0.42426407, TOL);
  CHECK_NEAR(n.x, 0.70710678, TOL);
  CHECK_NEAR(n.y, 0.70710678, TOL);
  thr_vec2 sum = v2(0.0f, 0.0f);
  CHECK(thr_walls_agent(&ov, 0, p, p, 0.5f, 1.0f, &sum) == 1);
  CHECK_NEAR(sum.x, 0.05355339, TOL);
  CHECK_NEAR(sum.y, 0.05355339, TOL);
  /* outside convex corner of the open L polyline (22, 0): p = (22.3, -0.3)
   * -> n = (1, -1)/sqrt(2), d = 0.42426407 */
  CHECK(thr_obstacle_distance(&ov, 3, v2(22.3f, -0.3f), v2(22.3f, -0.3f), &d, &n) == 1);
  CHECK_NEAR(d, 0.42426407, TOL);
  CHECK_NEAR(n.x, 0.70710678, TOL);
  CHECK_NEAR(n.y, -0.70710678, TOL);
}

/* The path q -> p crosses open wall 0: q = (2, 0.2), p = (2, -0.1).
 * Closest point (2, 0), |p - c| = 0.1, raw direction (0, -1) is flipped:
 * dist = -0.1, n = (0, 1) (back to q's side). rr = 0.5: C = -0.6,
 * dx = (0, 0.6): p ends at (2, 0.5), rr on q's side.
 * From below: q = (1, -0.2), p = (1.5, 0.1) (crosses at x = 4/3):
 * closest (1.5, 0), dist -0.1, n = (0, -1).
 * Passing round the end does not count: q = (4.5, 0.2), p = (4.5, -0.1):
 * closest (4, 0), d = |(0.5, -0.1)| = 0.50990195,
 * n = (0.98058068, -0.19611614), positive. */
THR_TEST(wall_crossing) {
  thr_obstacle_view ov = make_view(k_one_cell_offset, k_one_cell_items);
  float d = 0.0f;
  thr_vec2 n = v2(0.0f, 0.0f), dx = v2(0.0f, 0.0f);
  CHECK(thr_obstacle_distance(&ov, 0, v2(2.0f, -0.1f), v2(2.0f, 0.2f), &d, &n) == 1);
  CHECK_NEAR(d, -0.1, TOL);
  CHECK_NEAR(n.x, 0.0, TOL);
  CHECK_NEAR(n.y, 1.0, TOL);
  CHECK(thr_wall_contact(d, n, 0.5f, 1.0f, &dx) == 1);
  CHECK_NEAR(dx.x, 0.0, TOL);
  CHECK_NEAR(dx.y, 0.6, TOL);
  CHECK_NEAR(-0.1f + dx.y, 0.5, TOL);
  CHECK(thr_obstacle_distance(&ov, 0, v2(1.5f, 0.1f), v2(1.0f, -0.2f), &d, &n) == 1);
  CHECK_NEAR(d, -0.1, TOL);
  CHECK_NEAR(n.x, 0.0, TOL);
  CHECK_NEAR(n.y, -1.0, TOL);
  CHECK(thr_obstacle_distance(&ov, 0, v2(4.5f, -0.1f), v2(4.5f, 0.2f), &d, &n) == 1);
  CHECK_NEAR(d, 0.50990195, TOL);
  CHECK_NEAR(n.x, 0.98058068, TOL);
  CHECK_NEAR(n.y, -0.19611614, TOL);
  /* p exactly on the wall, q above: d = 0, normal from the wall to q */
  CHECK(thr_obstacle_distance(&ov, 0, v2(2.0f, 0.0f), v2(2.0f, 0.3f), &d, &n) == 1);
  CHECK_NEAR(d, 0.0, TOL);
  CHECK_NEAR(n.y, 1.0, TOL);
  CHECK(thr_wall_contact(d, n, 0.5f, 1.0f, &dx) == 1);
  CHECK_NEAR(dx.y, 0.5, TOL);
  /* p and q both exactly on the wall: undefined -> 0 */
  CHECK(thr_obstacle_distance(&ov, 0, v2(2.0f, 0.0f), v2(2.0f, 0.0f), &d, &n) == 0);
}

/* A path through an interior VERTEX of a polyline is a crossing too.
 * Polyline (0, 2) - (2, 0) - (5, 1); q = (2, -0.2) below the vertex (2, 0),
 * p = (2, 0.2) above it, between the two segments: the centre went through
 * the wall at the vertex. Closest point: segment 0 (line x + y = 2) at
 * (1.9, 0.1), |p - c| = 0.1 sqrt(2) = 0.14142136; segment 1 (direction
 * (3, 1)): t = (0, 0.2).(3, 1)/10 = 0.02 -> c = (2.06, 0.02),
 * |p - c| = |(-0.06, 0.18)| = 0.18973666, farther. Expected:
 * penetrated, dist = -0.14142136, normal flipped from (1, 1)/sqrt(2) to
 * (-0.70710678, -0.70710678), back to q's side. Control: the same path
 * shifted to x = 1.99 crosses segment 0 properly and gives the same kind of
 * answer. */
THR_TEST(wall_crossing_through_vertex) {
  static const thr_vec2 vv[] = {{0.0f, 2.0f}, {2.0f, 0.0f}, {5.0f, 1.0f}};
  static const int vf[] = {0, 3};
  static const int cl[] = {0};
  static const int off[] = {0, 1};
  static const int items[] = {0};
  thr_obstacle_view ov;
  ov.n = 1;
  ov.vfirst = vf;
  ov.closed = cl;
  ov.verts = vv;
  ov.cell_offset = off;
  ov.cell_items = items;
  float d = 0.0f;
  thr_vec2 n = v2(0.0f, 0.0f);
  /* control: just beside the vertex, an ordinary crossing of segment 0
   * (at (1.99, 0.01)); p = (1.99, 0.2): x + y - 2 = 0.19,
   * c = p - 0.095 (1, 1) = (1.895, 0.105), |p - c| = 0.095 sqrt(2)
   * = 0.13435029 (segment 1: c = (2.051, 0.017), 0.19295 farther) */
  CHECK(thr_obstacle_distance(&ov, 0, v2(1.99f, 0.2f), v2(1.99f, -0.2f), &d, &n) == 1);
  CHECK_NEAR(d, -0.13435029, TOL);
  CHECK_NEAR(n.x, -0.70710678, TOL);
  CHECK_NEAR(n.y, -0.70710678, TOL);
  /* exactly through the vertex */
  CHECK(thr_obstacle_distance(&ov, 0, v2(2.0f, 0.2f), v2(2.0f, -0.2f), &d, &n) == 1);
  CHECK_NEAR(d, -0.14142136, TOL);
  CHECK_NEAR(n.x, -0.70710678, TOL);
  CHECK_NEAR(n.y, -0.70710678, TOL);
}

/* Centre inside the square: p = (10.3, 1.2); edges at distance 0.3 (left),
 * 1.2 (bottom), 1.7 (right), 0.8 (top) -> nearest is x = 10:
 * dist = -0.3, n = (-1, 0); rr 0.5: dx = (-0.8, 0), p ends at x = 9.5.
 * p = (11.1, 1.9): top edge at 0.1 -> dist -0.1, n = (0, 1),
 * dx = (0, 0.6) -> y = 2.5. Outside below: p = (11, -0.3): dist 0.3,
 * n = (0, -1). The start position q does not matter for polygons. */
THR_TEST(polygon_inside) {
  thr_obstacle_view ov = make_view(k_one_cell_offset, k_one_cell_items);
  float d = 0.0f;
  thr_vec2 n = v2(0.0f, 0.0f), dx = v2(0.0f, 0.0f);
  CHECK(thr_obstacle_distance(&ov, 1, v2(10.3f, 1.2f), v2(10.3f, 1.2f), &d, &n) == 1);
  CHECK_NEAR(d, -0.3, TOL);
  CHECK_NEAR(n.x, -1.0, TOL);
  CHECK_NEAR(n.y, 0.0, TOL);
  CHECK(thr_wall_contact(d, n, 0.5f, 1.0f, &dx) == 1);
  CHECK_NEAR(dx.x, -0.8, TOL);
  CHECK_NEAR(dx.y, 0.0, TOL);
  CHECK_NEAR(10.3f + dx.x, 9.5, TOL);
  CHECK(thr_obstacle_distance(&ov, 1, v2(11.1f, 1.9f), v2(5.0f, 5.0f), &d, &n) == 1);
  CHECK_NEAR(d, -0.1, TOL);
  CHECK_NEAR(n.x, 0.0, TOL);
  CHECK_NEAR(n.y, 1.0, TOL);
  CHECK(thr_wall_contact(d, n, 0.5f, 1.0f, &dx) == 1);
  CHECK_NEAR(dx.y, 0.6, TOL);
  CHECK(thr_obstacle_distance(&ov, 1, v2(11.0f, -0.3f), v2(11.0f, -0.3f), &d, &n) == 1);
  CHECK_NEAR(d, 0.3, TOL);
  CHECK_NEAR(n.y, -1.0, TOL);
}

/* Crossing-number test on the square [10, 12] x [0, 2]. */
THR_TEST(point_in_polygon) {
  thr_obstacle_view ov = make_view(k_one_cell_offset, k_one_cell_items);
  CHECK(thr_point_in_polygon(&ov, 1, v2(11.0f, 1.0f)) == 1);
  CHECK(thr_point_in_polygon(&ov, 1, v2(10.01f, 1.99f)) == 1);
  CHECK(thr_point_in_polygon(&ov, 1, v2(13.0f, 1.0f)) == 0);
  CHECK(thr_point_in_polygon(&ov, 1, v2(9.0f, 1.0f)) == 0);
  CHECK(thr_point_in_polygon(&ov, 1, v2(11.0f, 3.0f)) == 0);
  CHECK(thr_point_in_polygon(&ov, 1, v2(11.0f, -1.0f)) == 0);
}

/* thr_walls_agent over a cell's list. One cell {0, 1, 2, 3}: agent at
 * p = q = (2, 0.4), rr = 0.65 in the corridor between walls 0 (y = 0) and 2
 * (y = 1): wall 0: dist 0.4, C = -0.25 -> (0, +0.25); wall 2: dist 0.6,
 * C = -0.05 -> (0, -0.05); square and L far away. Added to sum (1, 1):
 * (1, 1.2), 2 active. Stiffness 0.5: (1, 1.1). */
THR_TEST(walls_agent_sum) {
  thr_obstacle_view ov = make_view(k_one_cell_offset, k_one_cell_items);
  thr_vec2 p = v2(2.0f, 0.4f), sum = v2(1.0f, 1.0f);
  CHECK(thr_walls_agent(&ov, 0, p, p, 0.65f, 1.0f, &sum) == 2);
  CHECK_NEAR(sum.x, 1.0, TOL);
  CHECK_NEAR(sum.y, 1.2, TOL);
  sum = v2(1.0f, 1.0f);
  CHECK(thr_walls_agent(&ov, 0, p, p, 0.65f, 0.5f, &sum) == 2);
  CHECK_NEAR(sum.y, 1.1, TOL);
  /* two cells: cell 0 lists {0}, cell 1 lists {1, 2}: only the listed
   * obstacles count. */
  static const int off2[] = {0, 1, 3};
  static const int items2[] = {0, 1, 2};
  thr_obstacle_view ov2 = make_view(off2, items2);
  sum = v2(0.0f, 0.0f);
  CHECK(thr_walls_agent(&ov2, 0, p, p, 0.65f, 1.0f, &sum) == 1);
  CHECK_NEAR(sum.x, 0.0, TOL);
  CHECK_NEAR(sum.y, 0.25, TOL);
  sum = v2(0.0f, 0.0f);
  CHECK(thr_walls_agent(&ov2, 1, p, p, 0.65f, 1.0f, &sum) == 1);
  CHECK_NEAR(sum.y, -0.05, TOL);
  /* an empty cell */
  static const int off3[] = {0, 0};
  thr_obstacle_view ov3 = make_view(off3, items2);
  sum = v2(3.0f, 4.0f);
  CHECK(thr_walls_agent(&ov3, 0, p, p, 0.65f, 1.0f, &sum) == 0);
  CHECK(sum.x == 3.0f && sum.y == 4.0f);
  /* crossing wall 0 from above, through the list: q = (2, 0.2),
   * p = (2, -0.1), rr 0.5: wall 0 -> (0, 0.6); wall 2 at distance 1.1: no. */
  sum = v2(0.0f, 0.0f);
  CHECK(thr_walls_agent(&ov, 0, v2(2.0f, -0.1f), v2(2.0f, 0.2f), 0.5f, 1.0f, &sum) == 1);
  CHECK_NEAR(sum.y, 0.6, TOL);
}

/* ---- an agent never ends a pass beyond a wall (issue 21) ------------------ */

/* thr_walls_keep_fraction by hand: open wall 0 at y = 0, s = (2, 0.3) to
 * p = (2, -0.5) crosses at u = 0.3 / 0.8 = 0.375; 1 mm short of it:
 * f = 0.375 - 0.001 / 0.8 = 0.37375 (end at y = 0.001). A move that crosses
 * nothing keeps f = 1 exactly. Closed square 1 (10..12 x 0..2): from inside,
 * leaving is free; from (11, -0.5) to (11, 0.5) it stops 1 mm short of
 * the edge (u = 0.5, f = 0.499), and through the whole square to (11, 2.5)
 * at its first edge (f = 1/6 - 0.001/3). */
THR_TEST(keep_fraction) {
  thr_obstacle_view ov = make_view(k_one_cell_offset, k_one_cell_items);
  CHECK_NEAR(thr_walls_keep_fraction(&ov, 0, v2(2.0f, 0.3f), v2(2.0f, -0.5f)), 0.37375, TOL);
  CHECK(thr_walls_keep_fraction(&ov, 0, v2(2.0f, 0.3f), v2(2.5f, 0.1f)) == 1.0f);
  CHECK(thr_walls_keep_fraction(&ov, 0, v2(11.0f, 1.0f), v2(11.0f, -1.0f)) == 1.0f);
  CHECK_NEAR(thr_walls_keep_fraction(&ov, 0, v2(11.0f, -0.5f), v2(11.0f, 0.5f)), 0.499, TOL);
  CHECK_NEAR(thr_walls_keep_fraction(&ov, 0, v2(11.0f, -0.5f), v2(11.0f, 2.5f)), 1.0 / 6.0 - 0.001 / 3.0, TOL);
  /* the corridor between walls 0 and 2: pushed up through wall 2 from y = 0.9 */
  CHECK_NEAR(thr_walls_keep_fraction(&ov, 0, v2(1.0f, 0.9f), v2(1.0f, 1.3f)), 0.25 - 0.001 / 0.4, TOL);
}

/* A thin wall at y = 1 between x = 0.5 and 5.5 (in a 6 x 6 scene). */
static const thr_vec2 k_thin_wall[] = {{0.5f, 1.0f}, {5.5f, 1.0f}};
static const int k_thin_vfirst[] = {0, 2};
static const int k_thin_closed[] = {0};

/* A heavy agent (mass 100) 0.1 m above a light one standing 0.1 m above the
 * wall: contact pushes the light one down by 0.95 x 100/101 = 0.9406 m, the
 * wall up by 0.525 - 0.1 = 0.425 m; Jacobi: 1.2 (0.425 - 0.9406) / 2 =
 * -0.309 m, to y = 0.791, beyond the wall. With the guard it ends 1 mm short
 * of it, on its side. The stability pass (x^n) the same. */
THR_TEST(heavy_agent_cannot_push_through_a_thin_wall) {
  scene s;
  scene_init(&s);
  s.c.prm.formation_on = 0;
  int light = add(&s, 3.0f, 1.1f, -1), heavy = add(&s, 3.0f, 1.2f, -1);
  s.radius[light] = s.radius[heavy] = 0.5f;
  s.inv_mass[heavy] = 0.01f;
  scene_walls(&s, 1, k_thin_vfirst, k_thin_closed, k_thin_wall);
  const thr_ctx *c = bind(&s);
  thr_vec2 q = thr_agent_contact(c, light);
  CHECK_NEAR(q.y, 1.001, 1e-5);
  CHECK(q.y > 1.0f);
  thr_vec2 dx = thr_agent_stability(c, light);
  CHECK_NEAR(s.x[light].y + dx.y, 1.001, 1e-5);
  /* the unguarded move (what the pass computed before the guard) */
  s.c.prm.walls_on = 0;
  thr_vec2 free_push = thr_agent_contact(c, light);
  CHECK(free_push.y < 0.2f); /* contact alone: 1.1 - 1.2 x 0.9406 = -0.029 */
}

/* Far from every wall the guard changes no bit: the same result as a run
 * without walls. */
THR_TEST(guard_changes_nothing_away_from_walls) {
  scene s;
  scene_init(&s);
  s.c.prm.formation_on = 0;
  int a = add(&s, 3.0f, 4.0f, -1);
  add(&s, 3.3f, 4.1f, -1);
  s.p[a] = v2(3.02f, 4.01f);
  scene_walls(&s, 1, k_thin_vfirst, k_thin_closed, k_thin_wall);
  const thr_ctx *c = bind(&s);
  thr_vec2 with = thr_agent_contact(c, a), dxw = thr_agent_stability(c, a);
  s.c.prm.walls_on = 0;
  thr_vec2 without = thr_agent_contact(c, a), dxo = thr_agent_stability(c, a);
  CHECK(with.x == without.x && with.y == without.y);
  CHECK(dxw.x == dxo.x && dxw.y == dxo.y);
}
