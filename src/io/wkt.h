/* Well-known text (WKT, OGC simple features) polygons, as Shapely and
 * JuPedSim write walkable areas: a POLYGON or a MULTIPOLYGON into a polygon
 * set (base/evacuation.h). Strict: keywords in any case; two coordinates a
 * point (Z and M refused); EMPTY refused; every ring closed (its last point
 * repeats its first; the repeat is dropped when stored); no point repeating
 * the point before it; nothing but white space after the geometry. Whether
 * the rings make valid polygons is base/geometry.h's to check. */
#ifndef THRONG_WKT_H
#define THRONG_WKT_H

#include <stddef.h>
#include "base/evacuation.h"

typedef struct thr_wkt {
  thr_polyset shape; /* poly_line zeroed */
  size_t *ring_at;   /* [shape.n_rings] byte offset of each ring's '(' in the text */
  size_t *vert_at;   /* [shape.n_verts] byte offset of each vertex's first coordinate */
} thr_wkt;

/* Parse `text` into *out. 0, or -1 with the byte offset of the problem in
 * *err_at and what is wrong in msg; *out is then empty. */
int thr_wkt_parse(const char *text, thr_wkt *out, size_t *err_at, char *msg, size_t msglen);

void thr_wkt_free(thr_wkt *w);

/* The polygons of ps as WKT (POLYGON for one, MULTIPOLYGON for several;
 * rings closed), or, when ps has none, the rectangle lo..hi: the walkable
 * area that trajectory files carry. malloc'd; NULL when out of memory. */
char *thr_wkt_format(const thr_polyset *ps, thr_vec2 lo, thr_vec2 hi);

/* The 1-based line and column (in characters) of byte `at` of text. */
void thr_text_line_col(const char *text, size_t at, int *line, int *col);

/* The 1-based index of the character at byte `at` of text. */
size_t thr_text_char_index(const char *text, size_t at);

#endif
