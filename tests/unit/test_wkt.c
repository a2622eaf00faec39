/* The WKT reader (io/wkt.c): many rings and vertices, where each came from. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "io/wkt.h"

/* A 200 x 10 outer ring and `holes` unit squares: every ring and vertex is
 * kept, with its byte offset (the ring and vertex tables grow well past
 * their first capacity of 16). */
static int many_holes(int holes) {
  static char text[1 << 16];
  size_t n = (size_t)snprintf(text, sizeof text, "POLYGON ((0 0, 200 0, 200 10, 0 10, 0 0)");
  for (int k = 0; k < holes; ++k)
    n += (size_t)snprintf(text + n, sizeof text - n, ", (%d 2, %d 3, %d 3, %d 2, %d 2)", 2 + 3 * k, 2 + 3 * k,
                          3 + 3 * k, 3 + 3 * k, 2 + 3 * k);
  snprintf(text + n, sizeof text - n, ")");
  thr_wkt w;
  size_t at = 0;
  char msg[256];
  int bad = 0;
  if (thr_wkt_parse(text, &w, &at, msg, sizeof msg)) {
    fprintf(stderr, "parse failed at %zu: %s\n", at, msg);
    return 1;
  }
  if (w.shape.n_polys != 1 || w.shape.n_rings != holes + 1 || w.shape.n_verts != 4 * (holes + 1)) bad = 1;
  for (int r = 0; r < w.shape.n_rings && !bad; ++r) {
    if (text[w.ring_at[r]] != '(') bad = 1;
    if (w.shape.ring_first[r + 1] - w.shape.ring_first[r] != 4) bad = 1;
  }
  /* the last hole's first vertex: (2 + 3 (holes - 1), 2), read where it stands */
  int v = w.shape.ring_first[holes];
  float x0 = (float)(2 + 3 * (holes - 1));
  if (w.shape.verts[v].x != x0 || w.shape.verts[v].y != 2.0f) bad = 1;
  char want[32];
  snprintf(want, sizeof want, "%d 2", 2 + 3 * (holes - 1));
  if (strncmp(text + w.vert_at[v], want, strlen(want))) bad = 1;
  thr_wkt_free(&w);
  return bad;
}

THR_TEST(rings_past_the_first_capacity) {
  CHECK(many_holes(15) == 0);
  CHECK(many_holes(16) == 0);
  CHECK(many_holes(17) == 0);
  CHECK(many_holes(40) == 0);
}
