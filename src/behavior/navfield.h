/* Distance fields for evacuation routing (docs/routing.md): a grid over the
 * walkable area with a speed per cell, target masks (exits, waypoints,
 * slots), and fast marching from a mask to the travel distance of every
 * cell. Host only, and deterministic: every rank computes the same fields
 * from the same scenario. Kernels read a field through thr_navfield_view
 * (kernels/field_sample.h). */
#ifndef THRONG_BEHAVIOR_NAVFIELD_H
#define THRONG_BEHAVIOR_NAVFIELD_H

#include <stddef.h>
#include <stdint.h>

#include "base/evacuation.h"
#include "base/vec2.h"
#include "base/world.h"
#include "kernels/eikonal.h"
#include "kernels/field_sample.h"

/* Largest grid thr_navgrid_init accepts (cells). */
#define THR_NAVGRID_MAX_CELLS 2.0e8

/* What a cell is; its speed is 0, spec.slow or 1. */
enum thr_navcell {
  THR_NAV_BLOCKED = 0, /* not walkable: outside the walkable area, inside an obstacle, on a wall */
  THR_NAV_SLOW = 1,    /* walkable, but closer than the clearance to a wall */
  THR_NAV_FREE = 2     /* walkable */
};

typedef struct thr_navgrid_spec {
  thr_vec2 lo, hi; /* the rectangle the grid covers (usually the world's) */
  float cell;      /* cell side [m] (routing.cell) */
  float clearance; /* walls inflated by this [m] (routing.clearance) */
  float slow;      /* speed within the clearance, in (0, 1] (e.g. 0.1) */
  int edge_band;   /* 1: the clearance also along the walkable area's edges (a building's walls already
                      follow them, cut open at its seams: 0) */
} thr_navgrid_spec;

/* nx x ny square cells of side h from corner lo; cell (i, j) is
 * kind[j * nx + i], its centre (the field's node) at lo + (i + 1/2, j + 1/2) h. */
typedef struct thr_navgrid {
  thr_vec2 lo;
  float h;
  int nx, ny;
  float slow;
  unsigned char *kind; /* enum thr_navcell */
  /* a building's seams (docs/floors.md): phantom cell k, blocked in its own
   * floor's place just beyond a seam, takes the value of its partner, the
   * walkable cell the seam leads to in the other floor's place, so that a
   * field runs on through it (solves repeat until the phantoms' values
   * stay the same; decision 0019) */
  int n_phantom;
  int32_t *ph_cell, *ph_partner;
  float *zone_speed; /* NULL, or per cell the walking speed of its stair or speed zone (1 elsewhere) */
} thr_navgrid;

/* The speed zones (stairs among them) slow their cells: each cell whose
 * centre a zone holds walks at the mean of the zone's up and down factors
 * (a field has no direction). Returns 0, or -1 when out of memory. */
int thr_navgrid_zones(thr_navgrid *g, const thr_zone *zones, const thr_vec2 *verts, int n);

/* Phantom cells of the seams (seams[k].shift a whole number of cells):
 * * the blocked cells whose centres lie on or beyond a seam (along its normal, at
 * most 2.5 cells) whose partner is walkable. Returns their count, or -1
 * when out of memory. */
long thr_navgrid_seams(thr_navgrid *g, const thr_seam *seams, int n);

/* Build the grid of spec from the walls of w (its obstacles: open polylines
 * are walls, closed polygons solid; w may be NULL) and the walkable area
 * (walkable->n_polys > 0: outside these polygons nothing is walkable; NULL
 * or no polygons: the whole rectangle). Cells a wall touches are blocked,
 * so that no field leaks through a wall; walkable cells whose centre lies
 * closer than the clearance to a wall or to the walkable area's boundary
 * are slow. Returns 0, or -1 with a message in err (a bad spec, a grid of
 * more than THR_NAVGRID_MAX_CELLS cells: the message names routing.cell;
 * out of memory). */
int thr_navgrid_init(thr_navgrid *g, const thr_navgrid_spec *spec, const thr_world *w, const thr_polyset *walkable,
                     char *err, size_t errlen);
void thr_navgrid_free(thr_navgrid *g);

size_t thr_navgrid_cells(const thr_navgrid *g);
float thr_navgrid_speed(const thr_navgrid *g, size_t cell);
/* Centre of cell (i, j), the point every host-side test of that cell uses. */
thr_vec2 thr_navgrid_centre(const thr_navgrid *g, int i, int j);
/* Memory of the grid and n_fields stored fields (4 bytes per cell each).
 * A solve needs 16 bytes per cell more while it runs. */
size_t thr_navgrid_bytes(const thr_navgrid *g, int n_fields);
/* The kernels' view of field dist (thr_navgrid_cells(g) floats) on g. */
thr_navfield_view thr_navgrid_view(const thr_navgrid *g, const float *dist);

/* Target masks: one byte per cell, non-zero marks a target. The builders
 * set cells to 1 (never clear one, so targets combine) and return how many
 * cells they set, or -1 when out of memory. */

/* Cells whose centre lies inside polygon `poly` of ps (even-odd over its
 * rings); when it holds no centre (thinner than a cell), the cells it
 * overlaps. */
long thr_navtarget_polygon(const thr_navgrid *g, const thr_polyset *ps, int poly, unsigned char *target);
/* Cells whose centre lies within radius of p; when there is none, the cell
 * holding p (none when p is outside the grid). */
long thr_navtarget_disk(const thr_navgrid *g, thr_vec2 p, float radius, unsigned char *target);
/* thr_navtarget_disk for each of the n points. */
long thr_navtarget_points(const thr_navgrid *g, const thr_vec2 *p, int n, float radius, unsigned char *target);

/* Fast marching: out[c] = travel distance [m] from the targets to cell c,
 * solving |grad T| = 1 / speed (first order, 4 neighbours), 0 on walkable
 * target cells, +INFINITY where no target can be reached (and on blocked
 * cells). Target cells that are blocked are not sources. Returns the number
 * of sources (0: the field is +INFINITY everywhere), or -1 when out of
 * memory (out untouched). */
long thr_navfield_solve(const thr_navgrid *g, const unsigned char *target, float *out);


/* Append the target cells of a mask as sources of `value` and `label` to
 * *src (n of cap, grown with realloc). Returns the cells added, -1 out of
 * memory. */
long thr_navtarget_sources(const thr_navgrid *g, const unsigned char *target, float value, int label,
                           thr_navsource **src, long *n, long *cap);

/* Scratch memory of a solve (16 bytes per cell), kept between solves. */
typedef struct thr_navmarch {
  size_t cells;
  double *t;
  int *pos, *heap;
} thr_navmarch;
int thr_navmarch_init(thr_navmarch *ws, const thr_navgrid *g); /* 0, or -1 out of memory */
void thr_navmarch_free(thr_navmarch *ws);

/* Fast marching as thr_navfield_solve, from sources with start values
 * (blocked ones skipped; a cell given twice starts at the lower value), at
 * each cell's speed times scale[c] (NULL: 1; > 0 where walkable): a
 * travel-time field in metres at free speed when scale is the relative
 * walking speed. label (NULL: not wanted): per cell, the label of the
 * source whose front set its value (-1: unreached). ws: scratch (NULL:
 * allocated for this solve). Returns the number of sources used, -1 out of
 * memory. */
long thr_navfield_march(const thr_navgrid *g, const float *scale, const thr_navsource *src, long n_src, float *out,
                        int32_t *label, thr_navmarch *ws);

#endif
