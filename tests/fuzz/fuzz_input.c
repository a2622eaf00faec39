/* The fuzz input format and the rules a load must keep (fuzz_input.h). The
 * UTF-8 and control-character checks here are written apart from src/io's
 * own, so that they test it rather than repeat it. */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/config.h"

#define MAX_SETS 4     /* "#set" lines applied per input */
#define SET_LEN 512    /* bytes of one override */
#define ERR_LEN 2048   /* as `throng check` has it */
#define SET_MARK "#set "

/* ---- text rules ----------------------------------------------------------- */

static int in(unsigned char c, unsigned lo, unsigned hi) {
  return c >= lo && c <= hi;
}

/* Length of the well-formed UTF-8 character at s (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), 0 when there is none. */
static size_t utf8_len(const unsigned char *s) {
  if (s[0] < 0x80) return 1;
  if (in(s[0], 0xC2, 0xDF)) return in(s[1], 0x80, 0xBF) ? 2 : 0;
  unsigned lo = s[0] == 0xE0 ? 0xA0 : s[0] == 0xF0 ? 0x90 : 0x80;
  unsigned hi = s[0] == 0xED ? 0x9F : s[0] == 0xF4 ? 0x8F : 0xBF;
  if (in(s[0], 0xE0, 0xEF)) return in(s[1], lo, hi) && in(s[2], 0x80, 0xBF) ? 3 : 0;
  if (in(s[0], 0xF0, 0xF4)) return in(s[1], lo, hi) && in(s[2], 0x80, 0xBF) && in(s[3], 0x80, 0xBF) ? 4 : 0;
  return 0;
}

/* C0 controls, DEL and the C1 controls U+0080..U+009F: a terminal acts on them. */
static int is_control(const unsigned char *s, size_t len) {
  return len == 1 ? (s[0] < 0x20 || s[0] == 0x7F) : (len == 2 && s[0] == 0xC2 && s[1] < 0xA0);
}

/* UTF-8 without control characters. */
static int is_printable(const char *text) {
  const unsigned char *s = (const unsigned char *)text;
  while (*s) {
    size_t len = utf8_len(s);
    if (!len || is_control(s, len)) return 0;
    s += len;
  }
  return 1;
}

void thr_fuzz_fail(const char *rule, const char *text) {
  fprintf(stderr, "fuzz: %s: ", rule);
  for (const unsigned char *s = (const unsigned char *)text; *s; ++s)
    fprintf(stderr, *s < 0x20 || *s >= 0x7F ? "\\x%02x" : "%c", *s);
  fprintf(stderr, "\n");
  abort();
}

/* "PATH:LINE:COL: " at the start of msg. */
static int starts_with_location(const char *msg, const char *path) {
  size_t n = strlen(path);
  if (strncmp(msg, path, n) || msg[n] != ':') return 0;
  const char *s = msg + n + 1;
  for (int field = 0; field < 2; ++field) {
    size_t digits = strspn(s, "0123456789");
    if (!digits || s[0] == '0' || s[digits] != ':') return 0;
    s += digits + 1;
  }
  return *s == ' ';
}

static void check_refusal(const char *err, const char *path, int n_sets) {
  if (!*err) thr_fuzz_fail("refused without a message", "");
  if (!is_printable(err)) thr_fuzz_fail("message with a control character or bytes that are not UTF-8", err);
  if (!starts_with_location(err, path) && !(n_sets && !strncmp(err, "--set ", 6)))
    thr_fuzz_fail("message without FILE:LINE:COL (or --set) at its start", err);
}

static void check_names(const thr_scenario *sc) {
  if (!is_printable(sc->name)) thr_fuzz_fail("scenario name not printable", sc->name);
  for (int b = 0; b < sc->n_blocks; ++b)
    if (!is_printable(sc->blocks[b].name)) thr_fuzz_fail("block name not printable", sc->blocks[b].name);
  for (int g = 0; g < sc->n_goals; ++g)
    if (!is_printable(sc->goal_names[g])) thr_fuzz_fail("goal name not printable", sc->goal_names[g]);
}

/* ---- the input ------------------------------------------------------------ */

static char g_dir[64], g_path[96];

static void remove_scratch(void) {
  remove(g_path);
  rmdir(g_dir);
}

/* The file inputs are written to, in a directory of this process's own (so
 * that parallel fuzzing jobs do not share it). */
static const char *scratch_path(void) {
  if (!g_dir[0]) {
    strcpy(g_dir, "/tmp/throng_fuzz_XXXXXX");
    if (!mkdtemp(g_dir)) {
      perror("fuzz: mkdtemp");
      abort();
    }
    snprintf(g_path, sizeof g_path, "%s/scenario.yaml", g_dir);
    atexit(remove_scratch);
  }
  return g_path;
}

static void write_file(const char *path, const uint8_t *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
    perror(path);
    abort();
  }
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Decode \xNN in s, in place; \x00 ends the string, as a command line would. */
static void decode_escapes(char *s) {
  char *out = s;
  for (; *s; ++s) {
    int hi = s[0] == '\\' && s[1] == 'x' ? hex_digit(s[2]) : -1, lo = hi >= 0 ? hex_digit(s[3]) : -1;
    if (lo < 0) {
      *out++ = *s;
      continue;
    }
    *out++ = (char)(hi * 16 + lo);
    s += 3;
  }
  *out = '\0';
}

/* The overrides of the input's "#set KEY=VALUE" lines, in order. */
static int find_sets(const uint8_t *data, size_t size, char text[][SET_LEN], const char **sets) {
  int n = 0;
  size_t mark = strlen(SET_MARK);
  for (size_t at = 0; at < size && n < MAX_SETS;) {
    const uint8_t *nl = memchr(data + at, '\n', size - at);
    size_t end = nl ? (size_t)(nl - data) : size;
    if (end - at >= mark && !memcmp(data + at, SET_MARK, mark)) {
      size_t len = end - at - mark < SET_LEN - 1 ? end - at - mark : SET_LEN - 1;
      memcpy(text[n], data + at + mark, len);
      text[n][len] = '\0';
      decode_escapes(text[n]);
      sets[n] = text[n];
      n++;
    }
    at = end + 1;
  }
  return n;
}

int thr_fuzz_load(const uint8_t *data, size_t size, thr_scenario *sc) {
  char text[MAX_SETS][SET_LEN], err[ERR_LEN] = "";
  const char *sets[MAX_SETS];
  int n_sets = find_sets(data, size, text, sets);
  const char *path = scratch_path();
  write_file(path, data, size);
  if (thr_config_load(path, sets, n_sets, sc, err, sizeof err)) {
    check_refusal(err, path, n_sets);
    return -1;
  }
  check_names(sc);
  return 0;
}
