/* A byte buffer that state is packed into and read back from, for
 * checkpoints: host-side bookkeeping (the stage model of journeys, the
 * sums of the measurement maps, ...) that has no per-agent field. Values
 * go in as they are in memory (a checkpoint is read by the same version of
 * throng that wrote it, docs/decisions/0005). Reads are bounds-checked: a
 * short or damaged buffer sets `bad` and reads zeros, never past the end.
 * What the bytes say is checked by each module's unpack against the
 * scenario (a checkpoint's checksums catch changed bytes first). */
#ifndef THRONG_BLOB_H
#define THRONG_BLOB_H

#include <stddef.h>
#include <stdint.h>

typedef struct thr_blob {
  unsigned char *data;
  size_t n, cap; /* bytes written (or held), capacity */
  size_t at;     /* read position */
  int bad;       /* out of memory while writing, or a read past the end */
} thr_blob;

void thr_blob_init(thr_blob *b);
void thr_blob_free(thr_blob *b);

/* Append n bytes; the i64 and f64 forms append one value. */
void thr_blob_put(thr_blob *b, const void *p, size_t n);
void thr_blob_put_i64(thr_blob *b, int64_t v);
void thr_blob_put_f64(thr_blob *b, double v);

/* Read n bytes (zeros and bad = 1 when fewer are left, or p is NULL; n = 0
 * reads nothing, whatever p is). */
void thr_blob_get(thr_blob *b, void *p, size_t n);
/* Bytes not yet read (0 once bad): the bound of a count read next, and
 * what must be 0 once a blob is unpacked (a longer one does not fit). */
size_t thr_blob_left(const thr_blob *b);
int64_t thr_blob_get_i64(thr_blob *b);
double thr_blob_get_f64(thr_blob *b);
/* A count written with put_i64 that must lie in [0, max]; out of range
 * sets bad and gives 0. */
size_t thr_blob_get_count(thr_blob *b, size_t max);

#endif
