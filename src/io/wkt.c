/* WKT POLYGON and MULTIPOLYGON (wkt.h): a recursive-descent parser that
 * remembers where each ring and vertex came from, for messages. */
#include "wkt.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/scenario.h"
#include "yamltree.h"

typedef struct parser {
  const char *text;
  size_t at; /* byte offset of the next character */
  thr_wkt *out;
  int poly_cap, ring_cap, vert_cap;
  size_t *err_at;
  char *msg;
  size_t msglen;
} parser;

static int fail_at(parser *p, size_t at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail_at(parser *p, size_t at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (p->msg && p->msglen) vsnprintf(p->msg, p->msglen, fmt, ap);
  va_end(ap);
  *p->err_at = at;
  return -1;
}

/* ---- text ----------------------------------------------------------------- */

static int is_space(char ch) {
  return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static int is_letter(char ch) {
  return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z');
}

static void skip_space(parser *p) {
  while (is_space(p->text[p->at])) p->at++;
}

/* The next token, for "got ...": 'WORD' (shortened to 24 bytes, never
 * inside a character) or "the end of the text". */
static const char *next_token(const parser *p, char *buf, size_t len) {
  const char *s = p->text + p->at;
  if (!*s) return snprintf(buf, len, "the end of the text"), buf;
  size_t n = 1;
  if (!strchr("(),", *s))
    while (s[n] && !is_space(s[n]) && !strchr("(),", s[n])) n++;
  char word[64];
  snprintf(word, sizeof word, "%.*s", (int)(n < 32 ? n : 32), s);
  size_t keep = thr_text_prefix(word, 24);
  snprintf(buf, len, "'%.*s%s'", (int)keep, word, keep < n ? "..." : "");
  return buf;
}

/* The keyword at the parser: letters only, compared without case. */
static size_t word_len(const parser *p) {
  size_t n = 0;
  while (is_letter(p->text[p->at + n])) n++;
  return n;
}

static int word_is(const parser *p, size_t n, const char *word) {
  if (strlen(word) != n) return 0;
  for (size_t i = 0; i < n; ++i) {
    char ch = p->text[p->at + i];
    if ((ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch) != word[i]) return 0;
  }
  return 1;
}

/* ---- growing the set ------------------------------------------------------ */

/* Room for `need` elements of `size` bytes in *arr (capacity *cap). */
static int reserve(void **arr, int *cap, int need, size_t size) {
  if (need <= *cap) return 0;
  int grown = *cap ? 2 * *cap : 16;
  while (grown < need) grown *= 2;
  void *p = realloc(*arr, (size_t)grown * size);
  if (!p) return -1;
  *arr = p;
  *cap = grown;
  return 0;
}

/* A vertex and where it came from: the two arrays grow in step (one capacity). */
static int add_vertex(parser *p, thr_vec2 v, size_t at) {
  thr_polyset *s = &p->out->shape;
  int cap = p->vert_cap;
  if (reserve((void **)&s->verts, &p->vert_cap, s->n_verts + 1, sizeof *s->verts) ||
      reserve((void **)&p->out->vert_at, &cap, s->n_verts + 1, sizeof *p->out->vert_at))
    return fail_at(p, at, "out of memory");
  s->verts[s->n_verts] = v;
  p->out->vert_at[s->n_verts++] = at;
  return 0;
}

/* Ring and polygon starts; ring_first and poly_first keep one entry more
 * (the end of the last); ring_at grows in step with ring_first (one
 * capacity, so both are reserved for the same count). */
static int begin_ring(parser *p, size_t at) {
  thr_polyset *s = &p->out->shape;
  int cap = p->ring_cap;
  if (reserve((void **)&s->ring_first, &p->ring_cap, s->n_rings + 2, sizeof *s->ring_first) ||
      reserve((void **)&p->out->ring_at, &cap, s->n_rings + 2, sizeof *p->out->ring_at)) /* the same need */
    return fail_at(p, at, "out of memory");
  s->ring_first[s->n_rings] = s->n_verts;
  p->out->ring_at[s->n_rings] = at;
  return 0;
}

static void end_ring(parser *p) {
  thr_polyset *s = &p->out->shape;
  s->ring_first[++s->n_rings] = s->n_verts;
}

static int begin_polygon(parser *p, size_t at) {
  thr_polyset *s = &p->out->shape;
  if (reserve((void **)&s->poly_first, &p->poly_cap, s->n_polys + 2, sizeof *s->poly_first))
    return fail_at(p, at, "out of memory");
  s->poly_first[s->n_polys] = s->n_rings;
  return 0;
}

static void end_polygon(parser *p) {
  thr_polyset *s = &p->out->shape;
  s->poly_first[++s->n_polys] = s->n_rings;
}

/* ---- grammar -------------------------------------------------------------- */

static int expect(parser *p, char ch) {
  char got[64];
  skip_space(p);
  if (p->text[p->at] != ch) return fail_at(p, p->at, "expected '%c', got %s", ch, next_token(p, got, sizeof got));
  p->at++;
  return 0;
}

/* After an item of a list: 1 for ',' (another follows), 0 for ')'. */
static int list_goes_on(parser *p) {
  char got[64];
  skip_space(p);
  char ch = p->text[p->at];
  if (ch != ',' && ch != ')') return fail_at(p, p->at, "expected ',' or ')', got %s", next_token(p, got, sizeof got));
  p->at++;
  return ch == ',';
}

/* A coordinate: a decimal number that fits a float. */
static int coordinate(parser *p, float *out) {
  char got[64];
  skip_space(p);
  const char *s = p->text + p->at;
  size_t n = thr_text_scan_decimal(s);
  if (!n) return fail_at(p, p->at, "expected a number, got %s", next_token(p, got, sizeof got));
  char *copy = malloc(n + 1); /* strtod alone would read on: "0x1F", "1e5e" */
  if (!copy) return fail_at(p, p->at, "out of memory");
  memcpy(copy, s, n);
  copy[n] = '\0';
  double v = strtod(copy, NULL);
  free(copy);
  if (!isfinite((float)v)) return fail_at(p, p->at, "the number %.*s is out of range", (int)(n < 40 ? n : 40), s);
  *out = (float)v;
  p->at += n;
  return 0;
}

/* "x y": two coordinates; a third is Z or M, which are refused. */
static int point(parser *p, thr_vec2 *v, size_t *at) {
  skip_space(p);
  *at = p->at;
  if (coordinate(p, &v->x)) return -1;
  size_t before = p->at;
  skip_space(p);
  if (p->at == before && p->text[p->at] != ',' && p->text[p->at] != ')')
    return fail_at(p, p->at, "expected white space between the coordinates");
  if (coordinate(p, &v->y)) return -1;
  skip_space(p);
  if (thr_text_scan_decimal(p->text + p->at))
    return fail_at(p, p->at, "a point has two coordinates (x y); Z and M values are not supported");
  return 0;
}

static int same(thr_vec2 a, thr_vec2 b) {
  return a.x == b.x && a.y == b.y;
}

/* "(x y, x y, ...)": closed, the closing repeat of the first point dropped. */
static int ring(parser *p) {
  thr_polyset *s = &p->out->shape;
  skip_space(p);
  if (begin_ring(p, p->at) || expect(p, '(')) return -1;
  int first = s->n_verts, more = 1;
  thr_vec2 v;
  size_t at;
  while (more > 0) {
    if (point(p, &v, &at)) return -1;
    if (s->n_verts > first && same(v, s->verts[s->n_verts - 1]))
      return fail_at(p, at, "the point (%g %g) repeats the point before it", (double)v.x, (double)v.y);
    if (add_vertex(p, v, at)) return -1;
    if ((more = list_goes_on(p)) < 0) return -1;
  }
  thr_vec2 start = s->verts[first];
  if (!same(v, start))
    return fail_at(p, at, "the ring is not closed: its last point (%g %g) differs from its first (%g %g)",
                   (double)v.x, (double)v.y, (double)start.x, (double)start.y);
  if (s->n_verts - first > 1) s->n_verts--; /* the closing repeat */
  end_ring(p);
  return 0;
}

/* "(ring, ring, ...)": the outer ring, then the holes. */
static int polygon(parser *p) {
  skip_space(p);
  if (begin_polygon(p, p->at) || expect(p, '(')) return -1;
  int more = 1;
  while (more > 0)
    if (ring(p) || (more = list_goes_on(p)) < 0) return -1;
  end_polygon(p);
  return 0;
}

static int multipolygon(parser *p) {
  if (expect(p, '(')) return -1;
  int more = 1;
  while (more > 0)
    if (polygon(p) || (more = list_goes_on(p)) < 0) return -1;
  return 0;
}

/* After the keyword: Z, M, ZM and EMPTY are refused. */
static int check_modifier(parser *p) {
  skip_space(p);
  size_t n = word_len(p);
  if (word_is(p, n, "Z") || word_is(p, n, "M") || word_is(p, n, "ZM"))
    return fail_at(p, p->at, "Z and M coordinates are not supported (two coordinates a point)");
  if (word_is(p, n, "EMPTY")) return fail_at(p, p->at, "an EMPTY geometry holds no walkable area");
  return 0;
}

static int geometry(parser *p) {
  char got[64];
  skip_space(p);
  size_t n = word_len(p);
  int multi = word_is(p, n, "MULTIPOLYGON");
  if (!multi && !word_is(p, n, "POLYGON"))
    return fail_at(p, p->at, "expected POLYGON or MULTIPOLYGON, got %s", next_token(p, got, sizeof got));
  p->at += n;
  if (check_modifier(p) || (multi ? multipolygon(p) : polygon(p))) return -1;
  skip_space(p);
  if (p->text[p->at])
    return fail_at(p, p->at, "unexpected text after the geometry: %s", next_token(p, got, sizeof got));
  return 0;
}

/* ---- the interface -------------------------------------------------------- */

void thr_wkt_free(thr_wkt *w) {
  thr_polyset_free(&w->shape);
  free(w->ring_at);
  free(w->vert_at);
  memset(w, 0, sizeof *w);
}

int thr_wkt_parse(const char *text, thr_wkt *out, size_t *err_at, char *msg, size_t msglen) {
  memset(out, 0, sizeof *out);
  parser p = {.text = text, .out = out, .err_at = err_at, .msg = msg, .msglen = msglen};
  int rc = geometry(&p);
  if (!rc) {
    out->shape.poly_line = calloc((size_t)out->shape.n_polys, sizeof *out->shape.poly_line);
    if (!out->shape.poly_line) rc = fail_at(&p, 0, "out of memory");
  }
  if (rc) thr_wkt_free(out);
  return rc;
}

/* Whether byte b starts a character (is not a UTF-8 continuation byte). */
static int starts_char(char b) {
  return ((unsigned char)b & 0xC0) != 0x80;
}

void thr_text_line_col(const char *text, size_t at, int *line, int *col) {
  *line = 1, *col = 1;
  for (size_t i = 0; i < at && text[i]; ++i) {
    int ends_line = text[i] == '\n' || (text[i] == '\r' && text[i + 1] != '\n');
    if (ends_line)
      ++*line, *col = 1;
    else if (starts_char(text[i]) && text[i] != '\r')
      ++*col;
  }
}

size_t thr_text_char_index(const char *text, size_t at) {
  size_t index = 1;
  for (size_t i = 0; i < at && text[i]; ++i) index += starts_char(text[i]);
  return index;
}

/* ---- writing ---------------------------------------------------------------------- */

typedef struct text_buf {
  char *s;
  size_t n, cap;
  int bad;
} text_buf;

static void put(text_buf *t, const char *fmt, double a, double b) {
  char tmp[96];
  int k = snprintf(tmp, sizeof tmp, fmt, a, b);
  if (t->bad || k < 0) return;
  if (t->n + (size_t)k + 1 > t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 256;
    while (cap < t->n + (size_t)k + 1) cap *= 2;
    char *q = realloc(t->s, cap);
    if (!q) {
      t->bad = 1;
      return;
    }
    t->s = q;
    t->cap = cap;
  }
  memcpy(t->s + t->n, tmp, (size_t)k + 1);
  t->n += (size_t)k;
}

static void put_ring(text_buf *t, const thr_vec2 *v, int n) {
  put(t, "(", 0, 0);
  for (int k = 0; k <= n; ++k) put(t, k ? ", %.9g %.9g" : "%.9g %.9g", (double)v[k % n].x, (double)v[k % n].y);
  put(t, ")", 0, 0);
}

char *thr_wkt_format(const thr_polyset *ps, thr_vec2 lo, thr_vec2 hi) {
  text_buf t = {0};
  if (!ps || ps->n_polys == 0) {
    thr_vec2 box[4] = {lo, {hi.x, lo.y}, hi, {lo.x, hi.y}};
    put(&t, "POLYGON (", 0, 0);
    put_ring(&t, box, 4);
    put(&t, ")", 0, 0);
  } else {
    int multi = ps->n_polys > 1;
    put(&t, multi ? "MULTIPOLYGON (" : "POLYGON ", 0, 0);
    for (int p = 0; p < ps->n_polys; ++p) {
      put(&t, p ? ", (" : "(", 0, 0);
      for (int r = ps->poly_first[p]; r < ps->poly_first[p + 1]; ++r) {
        if (r > ps->poly_first[p]) put(&t, ", ", 0, 0);
        put_ring(&t, ps->verts + ps->ring_first[r], ps->ring_first[r + 1] - ps->ring_first[r]);
      }
      put(&t, ")", 0, 0);
    }
    if (multi) put(&t, ")", 0, 0);
  }
  if (t.bad) {
    free(t.s);
    return NULL;
  }
  return t.s;
}
