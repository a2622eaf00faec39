/* Recursive coordinate bisection on a (possibly coarsened) cell grid.
 *
 * A node holds a rectangle of bins and P ranks. It gives P/2 ranks to the
 * low side and the rest to the high side, cuts the longer side (in cells)
 * at the weighted median sized for that split (the cut whose low-side
 * weight is closest to W * P_lo / P; among equal cuts, the middle one, so
 * that empty stretches are split in half), and recurses. A cut must leave
 * each side at least as many bins as ranks; when no cut on either axis can,
 * the rank split follows the cut instead. So any P up to the number of bins
 * works. Integer weights and integer comparisons make the result identical
 * on every rank. */
#include "partition.h"

#include <stdlib.h>
#include <string.h>

int thr_partition_init(thr_partition *p, int gnx, int gny, int nranks, long max_bins) {
  memset(p, 0, sizeof *p);
  p->gnx = gnx;
  p->gny = gny;
  p->nranks = nranks;
  int f = 1;
  for (;;) {
    long bx = (gnx + f - 1) / f, by = (gny + f - 1) / f;
    if (bx * by <= max_bins) break;
    f++;
  }
  p->f = f;
  p->bnx = (gnx + f - 1) / f;
  p->bny = (gny + f - 1) / f;
  p->rect = calloc((size_t)nranks, sizeof *p->rect);
  p->bin_owner = calloc((size_t)p->bnx * (size_t)p->bny, sizeof *p->bin_owner);
  if (!p->rect || !p->bin_owner) {
    thr_partition_free(p);
    return -1;
  }
  return 0;
}

void thr_partition_free(thr_partition *p) {
  free(p->rect);
  free(p->bin_owner);
  p->rect = NULL;
  p->bin_owner = NULL;
}

long thr_partition_max_ranks(const thr_partition *p) { return (long)p->bnx * p->bny; }

void thr_partition_area_weights(const thr_partition *p, int64_t *w) {
  for (int by = 0; by < p->bny; ++by) {
    int h = (by + 1) * p->f > p->gny ? p->gny - by * p->f : p->f;
    for (int bx = 0; bx < p->bnx; ++bx) {
      int wd = (bx + 1) * p->f > p->gnx ? p->gnx - bx * p->f : p->f;
      w[(size_t)by * p->bnx + bx] = (int64_t)wd * h;
    }
  }
}

/* ---- RCB ------------------------------------------------------------------ */

typedef struct rcb_ctx {
  const thr_partition *p;
  const int64_t *sat; /* summed-area table, (bny + 1) x (bnx + 1) */
  thr_window *bins;   /* [nranks] result rectangles in bins */
} rcb_ctx;

/* Weight of bins [x0, x1) x [y0, y1). */
static int64_t rect_sum(const rcb_ctx *c, int x0, int y0, int x1, int y1) {
  size_t sw = (size_t)c->p->bnx + 1;
  const int64_t *s = c->sat;
  return s[(size_t)y1 * sw + x1] - s[(size_t)y0 * sw + x1] - s[(size_t)y1 * sw + x0] + s[(size_t)y0 * sw + x0];
}

/* Low-side weight of the cut at offset `at` along axis (0 = x, 1 = y). */
static int64_t low_sum(const rcb_ctx *c, thr_window r, int axis, int at) {
  return axis == 0 ? rect_sum(c, r.x0, r.y0, r.x0 + at, r.y0 + r.ny) : rect_sum(c, r.x0, r.y0, r.x0 + r.nx, r.y0 + at);
}

/* The cut in [cmin, cmax] whose low side is closest to W * plo / P; the
 * middle of the range of equally good cuts. */
static int best_cut(const rcb_ctx *c, thr_window r, int axis, int cmin, int cmax, int P, int plo) {
  int64_t total = rect_sum(c, r.x0, r.y0, r.x0 + r.nx, r.y0 + r.ny);
  int64_t target = total * plo; /* compared with low * P */
  int64_t best = INT64_MAX;
  int first = cmin, last = cmin;
  for (int at = cmin; at <= cmax; ++at) {
    int64_t g = low_sum(c, r, axis, at) * P - target;
    int64_t d = g < 0 ? -g : g;
    if (d < best) {
      best = d;
      first = last = at;
    } else if (d == best) {
      last = at;
    } else if (g > 0) {
      break; /* past the median: only worse from here */
    }
  }
  return first + (last - first) / 2;
}

static long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

static void rcb(const rcb_ctx *c, thr_window r, int r0, int P) {
  if (P == 1) {
    c->bins[r0] = r;
    return;
  }
  const thr_partition *p = c->p;
  int cells_x = ((r.x0 + r.nx) * p->f > p->gnx ? p->gnx : (r.x0 + r.nx) * p->f) - r.x0 * p->f;
  int cells_y = ((r.y0 + r.ny) * p->f > p->gny ? p->gny : (r.y0 + r.ny) * p->f) - r.y0 * p->f;
  int longer = cells_x >= cells_y ? 0 : 1;
  int plo = P / 2, axis = -1, at = 0;
  for (int attempt = 0; attempt < 2 && axis < 0; ++attempt) {
    int ax = attempt ? 1 - longer : longer;
    long long L = ax == 0 ? r.nx : r.ny, H = ax == 0 ? r.ny : r.nx;
    long long cmin = ceil_div(plo, H), cmax = L - ceil_div(P - plo, H);
    if (cmin <= cmax) {
      axis = ax;
      at = best_cut(c, r, ax, (int)cmin, (int)cmax, P, plo);
    }
  }
  if (axis < 0) {
    /* No cut fits the even rank split: cut where the weight says and give
     * each side as many ranks as it has room for. */
    axis = (longer == 0 ? r.nx : r.ny) >= 2 ? longer : 1 - longer;
    long long L = axis == 0 ? r.nx : r.ny, H = axis == 0 ? r.ny : r.nx;
    at = best_cut(c, r, axis, 1, (int)L - 1, P, plo);
    long long lo = P - (L - at) * H, hi = (long long)at * H;
    if (lo < 1) lo = 1;
    if (hi > P - 1) hi = P - 1;
    if (plo < lo) plo = (int)lo;
    if (plo > hi) plo = (int)hi;
  }
  thr_window a = r, b = r;
  if (axis == 0) {
    a.nx = at;
    b.x0 = r.x0 + at;
    b.nx = r.nx - at;
  } else {
    a.ny = at;
    b.y0 = r.y0 + at;
    b.ny = r.ny - at;
  }
  rcb(c, a, r0, plo);
  rcb(c, b, r0 + plo, P - plo);
}

int thr_partition_rcb(thr_partition *p, const int64_t *w) {
  if ((long)p->nranks > thr_partition_max_ranks(p)) return -1;
  size_t sw = (size_t)p->bnx + 1;
  int64_t *sat = calloc(sw * ((size_t)p->bny + 1), sizeof *sat);
  thr_window *bins = malloc((size_t)p->nranks * sizeof *bins);
  if (!sat || !bins) {
    free(sat);
    free(bins);
    return -1;
  }
  for (int y = 0; y < p->bny; ++y) {
    int64_t row = 0;
    for (int x = 0; x < p->bnx; ++x) {
      row += w[(size_t)y * p->bnx + x];
      sat[(size_t)(y + 1) * sw + x + 1] = sat[(size_t)y * sw + x + 1] + row;
    }
  }
  rcb_ctx c = {p, sat, bins};
  rcb(&c, (thr_window){0, 0, p->bnx, p->bny}, 0, p->nranks);
  for (int r = 0; r < p->nranks; ++r) {
    thr_window b = bins[r];
    for (int y = b.y0; y < b.y0 + b.ny; ++y)
      for (int x = b.x0; x < b.x0 + b.nx; ++x) p->bin_owner[(size_t)y * p->bnx + x] = r;
    int x1 = (b.x0 + b.nx) * p->f, y1 = (b.y0 + b.ny) * p->f;
    if (x1 > p->gnx) x1 = p->gnx;
    if (y1 > p->gny) y1 = p->gny;
    p->rect[r] = (thr_window){b.x0 * p->f, b.y0 * p->f, x1 - b.x0 * p->f, y1 - b.y0 * p->f};
  }
  free(sat);
  free(bins);
  return 0;
}

void thr_partition_loads(const thr_partition *p, const int64_t *w, int64_t *out) {
  for (int r = 0; r < p->nranks; ++r) {
    thr_window c = p->rect[r];
    int bx0 = c.x0 / p->f, by0 = c.y0 / p->f;
    int bx1 = (c.x0 + c.nx + p->f - 1) / p->f, by1 = (c.y0 + c.ny + p->f - 1) / p->f;
    int64_t s = 0;
    for (int y = by0; y < by1; ++y)
      for (int x = bx0; x < bx1; ++x) s += w[(size_t)y * p->bnx + x];
    out[r] = s;
  }
}

/* ---- rectangles ------------------------------------------------------------ */

thr_window thr_window_grow(thr_window r, int k, int gnx, int gny) {
  int x0 = r.x0 - k, y0 = r.y0 - k, x1 = r.x0 + r.nx + k, y1 = r.y0 + r.ny + k;
  if (x0 < 0) x0 = 0;
  if (y0 < 0) y0 = 0;
  if (x1 > gnx) x1 = gnx;
  if (y1 > gny) y1 = gny;
  return (thr_window){x0, y0, x1 - x0, y1 - y0};
}

thr_window thr_window_meet(thr_window a, thr_window b) {
  int x0 = a.x0 > b.x0 ? a.x0 : b.x0, y0 = a.y0 > b.y0 ? a.y0 : b.y0;
  int ax1 = a.x0 + a.nx, bx1 = b.x0 + b.nx, ay1 = a.y0 + a.ny, by1 = b.y0 + b.ny;
  int x1 = ax1 < bx1 ? ax1 : bx1, y1 = ay1 < by1 ? ay1 : by1;
  if (x1 < x0) x1 = x0;
  if (y1 < y0) y1 = y0;
  return (thr_window){x0, y0, x1 - x0, y1 - y0};
}
