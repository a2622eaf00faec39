/* Geometric predicates for checking input shapes (host code): how segments
 * meet, ring areas, where a point lies relative to a ring or a polygon set,
 * whether a polygon set is valid (simple rings, holes inside their outer
 * ring, polygons apart), whether a ring lies inside an area, and the strip
 * behind an exit segment. Coordinates are the scenario's floats; the
 * arithmetic is double, in which the orientation of three float points is
 * exact for coordinates of similar magnitude (so collinear input reads as
 * collinear). The simulation's own point-in-polygon test is polygon.h. */
#ifndef THRONG_GEOMETRY_H
#define THRONG_GEOMETRY_H

#include "evacuation.h"
#include "vec2.h"

/* How two segments meet. */
enum thr_seg_meet {
  THR_SEG_APART,  /* no common point */
  THR_SEG_CROSS,  /* their interiors cross at one point */
  THR_SEG_TOUCH,  /* one common point, an end of one of them (or of both) */
  THR_SEG_OVERLAP /* collinear, with more than one common point */
};

/* How segments ab and cd meet; *at (may be NULL) gets a common point. */
int thr_segments_meet(thr_vec2 a, thr_vec2 b, thr_vec2 c, thr_vec2 d, thr_vec2 *at);

/* Signed area of the ring v[0..n) (first vertex not repeated): > 0 when
 * counter-clockwise. */
double thr_ring_area(const thr_vec2 *v, int n);

double thr_point_segment_distance(thr_vec2 p, thr_vec2 a, thr_vec2 b);

/* Where a point lies; within `tol` of an edge counts as on the boundary. */
enum thr_where { THR_OUTSIDE, THR_INSIDE, THR_ON_BOUNDARY };

int thr_ring_locate(const thr_vec2 *v, int n, thr_vec2 p, double tol);
/* Relative to polygon `poly` of s: its outer ring minus its holes. */
int thr_polygon_locate(const thr_polyset *s, int poly, thr_vec2 p, double tol);
/* Relative to the union of s's polygons. */
int thr_polyset_locate(const thr_polyset *s, thr_vec2 p, double tol);

/* Ring r of s: its first vertex and its length. */
static inline const thr_vec2 *thr_ring_verts(const thr_polyset *s, int r) {
  return s->verts + s->ring_first[r];
}
static inline int thr_ring_len(const thr_polyset *s, int r) {
  return s->ring_first[r + 1] - s->ring_first[r];
}
/* Whether ring r is the outer ring of its polygon (else a hole). */
int thr_ring_is_outer(const thr_polyset *s, int r);

/* The area of a valid polygon set (thr_polyset_check): its outer rings'
 * areas less its holes'. */
double thr_polyset_area(const thr_polyset *s);

/* What is wrong with a polygon set (thr_polyset_check). */
enum thr_shape_fault {
  THR_SHAPE_OK,
  THR_SHAPE_FEW_VERTICES,  /* a ring with fewer than 3 vertices */
  THR_SHAPE_ZERO_AREA,     /* a ring of zero area */
  THR_SHAPE_SELF_MEET,     /* two edges of one ring meet, other than adjacent edges at their shared vertex */
  THR_SHAPE_HOLE_CROSSES,  /* a hole crosses its outer ring or shares a stretch of it */
  THR_SHAPE_HOLE_OUTSIDE,  /* a hole lies (partly) outside its outer ring */
  THR_SHAPE_HOLES_OVERLAP, /* two holes of one polygon cross, share a stretch, or one lies in the other */
  THR_SHAPE_POLYS_OVERLAP  /* two polygons cross, share a stretch, or one lies in the other */
};

/* Where a fault shows. Edge e of a ring runs from its vertex e to vertex
 * e + 1 (the last edge back to vertex 0). */
typedef struct thr_shape_report {
  int fault;      /* enum thr_shape_fault */
  int ring;       /* the ring (index into s->ring_first) */
  int edge;       /* an edge of `ring`, -1 when the fault is the whole ring */
  int other;      /* the other ring, -1 when none */
  int other_edge; /* an edge of `other`, -1 when none */
  thr_vec2 at;    /* a point where it shows */
} thr_shape_report;

/* Rings of polygon `poly`: each simple with 3 or more vertices and a
 * non-zero area, holes inside the outer ring and apart from each other
 * (rings of a polygon may touch at single points). thr_polygon_check and
 * thr_polyset_check are defined in polygon_sweep.c. */
int thr_polygon_check(const thr_polyset *s, int poly, thr_shape_report *r);

/* Every polygon (thr_polygon_check), and polygons pairwise apart (touching
 * at single points is allowed; a polygon may lie in another's hole).
 * Returns the fault (0 when none), with *r telling where. Small sets are
 * checked pairwise, larger ones by a plane sweep in O(n log n)
 * (polygon_sweep.h) with the same verdict. */
int thr_polyset_check(const thr_polyset *s, thr_shape_report *r);

/* The check that defines the verdict, pair by pair (O(n^2) for n vertices),
 * of polygons [first, end) of s: each polygon as thr_polygon_check, in
 * order, each also against the polygons before it. A ring is checked with
 * thr_segments_meet on every pair of its edges; a ring's sample points (its
 * vertices and edge middles) are located in other rings exactly. The fault
 * reported is the first in that order. */
int thr_polyset_check_pairwise(const thr_polyset *s, int first, int end, thr_shape_report *r);

/* The pairwise check of ring `ring` alone: fewer than 3 vertices, two edges
 * that meet (other than neighbours at their vertex), zero area, an edge
 * that runs back over its neighbour, the first of these in this order. */
int thr_ring_check_pairwise(const thr_polyset *s, int ring, thr_shape_report *r);

/* The crossings of rows k0..k1 by the edges of rings [r0, r1) of (verts,
 * ring_first): row k's centre line is y = (float)(oy + (k + 1/2) h), its
 * crossings computed as thr_polygon_contains does (thr_edge_crosses_row)
 * and sorted, in xs[first[k - k0] .. first[k - k0 + 1]). Each edge visits
 * only the rows its y-extent spans, so n vertices cost n log n rather than
 * rows x n (the world's cell lists, the navigation grid). Returns xs, with
 * *first_out (both malloc'd), or NULL when out of memory. */
float *thr_row_crossings(const thr_vec2 *verts, const int *ring_first, int r0, int r1, double oy, double h, int k0,
                         int k1, int **first_out);

/* Whether the ring v[0..n) lies inside the area (its boundary within `tol`
 * counts as inside): 1, or 0 with *outside set to a point of the ring
 * outside the area (or a boundary point of the area inside the ring). */
int thr_ring_within(const thr_vec2 *v, int n, const thr_polyset *area, double tol, thr_vec2 *outside);

/* The ring and edge of s that both a and b lie within `tol` of; 0, or -1
 * when there is none. */
int thr_boundary_edge_under(const thr_polyset *s, thr_vec2 a, thr_vec2 b, double tol, int *ring, int *edge);

/* The strip `depth` deep on the area's side of segment ab, which lies on
 * edge `edge` of ring `ring` of s (thr_boundary_edge_under): a and b
 * projected onto the edge, then moved inwards; quad[0..4). */
void thr_exit_strip(const thr_polyset *s, int ring, int edge, thr_vec2 a, thr_vec2 b, float depth, thr_vec2 quad[4]);

#endif
