#include "blob.h"

#include <stdlib.h>
#include <string.h>

void thr_blob_init(thr_blob *b) { memset(b, 0, sizeof *b); }

void thr_blob_free(thr_blob *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}

void thr_blob_put(thr_blob *b, const void *p, size_t n) {
  if (b->bad || !n) return;
  if (!p) { /* n bytes of nothing: a caller's bug, never a NULL memcpy */
    b->bad = 1;
    return;
  }
  if (b->n + n > b->cap) {
    size_t want = b->cap ? b->cap : 256;
    while (want < b->n + n) want *= 2;
    unsigned char *q = realloc(b->data, want);
    if (!q) {
      b->bad = 1;
      return;
    }
    b->data = q;
    b->cap = want;
  }
  memcpy(b->data + b->n, p, n);
  b->n += n;
}

void thr_blob_put_i64(thr_blob *b, int64_t v) { thr_blob_put(b, &v, sizeof v); }
void thr_blob_put_f64(thr_blob *b, double v) { thr_blob_put(b, &v, sizeof v); }

void thr_blob_get(thr_blob *b, void *p, size_t n) {
  if (!n) return; /* p and data may be NULL for an empty array: no memcpy of NULL */
  if (b->bad || !p || !b->data || n > b->n - b->at) {
    b->bad = 1;
    if (p) memset(p, 0, n);
    return;
  }
  memcpy(p, b->data + b->at, n);
  b->at += n;
}

size_t thr_blob_left(const thr_blob *b) { return b->bad || b->at > b->n ? 0 : b->n - b->at; }

int64_t thr_blob_get_i64(thr_blob *b) {
  int64_t v;
  thr_blob_get(b, &v, sizeof v);
  return v;
}

double thr_blob_get_f64(thr_blob *b) {
  double v;
  thr_blob_get(b, &v, sizeof v);
  return v;
}

size_t thr_blob_get_count(thr_blob *b, size_t max) {
  int64_t v = thr_blob_get_i64(b);
  if (v < 0 || (uint64_t)v > (uint64_t)max) {
    b->bad = 1;
    return 0;
  }
  return (size_t)v;
}
