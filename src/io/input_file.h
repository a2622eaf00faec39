/* Input files (scenario, WKT plans, points files, Catalyst scripts,
 * checkpoints) opened the one careful way: a regular file after following
 * symbolic links, never a FIFO, device or directory (a FIFO would block,
 * /dev/zero would never end), of a bounded size checked before the first
 * byte is read. */
#ifndef THRONG_INPUT_FILE_H
#define THRONG_INPUT_FILE_H

#include <stddef.h>
#include <stdio.h>

/* Size caps (bytes) per kind of input (docs/configuration.md, "Files"). */
#define THR_INPUT_MAX_SCENARIO (64LL << 20)
#define THR_INPUT_MAX_WKT (1LL << 30)
#define THR_INPUT_MAX_POINTS (16LL << 30)
#define THR_INPUT_MAX_SCRIPT (16LL << 20)

/* Is path a regular file of at most max_bytes (max_bytes < 0: any size)?
 * 0, or -1 with why (e.g. "is a FIFO, not a regular file") in why. */
int thr_input_check(const char *path, long long max_bytes, char *why, size_t whylen);

/* thr_input_check, then the file opened for reading ("rb"); NULL with why.
 * Opening does not block on a FIFO that appeared since the check. */
FILE *thr_input_open(const char *path, long long max_bytes, char *why, size_t whylen);

/* The whole file, NUL-terminated (it may hold NUL bytes of its own: *len
 * says how many bytes it has); NULL with why. */
char *thr_input_read(const char *path, long long max_bytes, size_t *len, char *why, size_t whylen);

/* Lines of an input file read one by one, through a block buffer; each
 * line's length is bounded, and a NUL byte in one is reported (not taken
 * for its end). */
typedef struct thr_line_reader {
  FILE *f;
  size_t at, n;
  char buf[1 << 16];
} thr_line_reader;

enum { THR_LINE_END = -1, THR_LINE_TOO_LONG = -2, THR_LINE_NUL = -3, THR_LINE_ERROR = -4 };

/* The next line (without its '\n') into out[max + 1]: its length, or one of
 * THR_LINE_*. */
long thr_input_line(thr_line_reader *r, char *out, size_t max);

#endif
