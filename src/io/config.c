/* Scenario file -> thr_scenario: walks the YAML tree (yamltree.h), checks
 * every key against the key table (schema.h) and fills the scenario. Values
 * and defaults go through the table's rows; the code here adds what a row
 * cannot say (shapes, layouts, goal sets). Every error names the file
 * position (or --set override), the key path and what is wrong; the first
 * error stops loading. */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"
#include "yamltree.h"

#define PATH_LEN 256 /* key paths such as agents[12].speed.mean */
#define GOT_LEN 96   /* "got ..." descriptions */

/* ---- loading context and messages ----------------------------------------- */

typedef struct cfg {
  thr_scenario *sc;
  char *err;
  size_t errlen;
  int verts_cap; /* capacity of sc->verts */
  int items_cap; /* capacity of sc->set_items */
} cfg;

static int fail(cfg *c, const thr_ynode *at, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int fail(cfg *c, const thr_ynode *at, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  thr_yvfail(c->err, c->errlen, at, path, fmt, ap);
  va_end(ap);
  return -1;
}

static const char *subkey(char *buf, const char *parent, const char *key) {
  buf[0] = '\0';
  thr_str_append(buf, PATH_LEN, parent);
  if (*parent) thr_str_append(buf, PATH_LEN, ".");
  thr_str_append(buf, PATH_LEN, key);
  return buf;
}

static const char *subindex(char *buf, const char *parent, int index) {
  snprintf(buf, PATH_LEN, "%s[%d]", parent, index);
  return buf;
}

/* What a node holds, for "got ...": "\"abc\"", "a list of 3 items", ... */
static const char *got(const thr_ynode *n, char *buf) {
  if (n && n->kind == THR_Y_SEQ)
    snprintf(buf, GOT_LEN, "a list of %d item%s", n->n, n->n == 1 ? "" : "s");
  else
    thr_ynode_describe(n, buf, GOT_LEN);
  return buf;
}

/* ---- rows of the key table ----------------------------------------------- */

/* The table's path for a key path: agents[12].speed -> agents[].speed. */
static const char *schema_path(const char *path, char *buf) {
  size_t j = 0;
  for (const char *s = path; *s && j + 1 < PATH_LEN; ++s) {
    buf[j++] = *s;
    if (*s == '[')
      while (s[1] && s[1] != ']') ++s;
  }
  buf[j] = '\0';
  return buf;
}

/* The row of a key path. Callers name only keys the table has (or keys
 * check_keys let through), so a missing row is a bug here, not bad input. */
static const thr_key *row_at(const char *path) {
  char p[PATH_LEN];
  const thr_key *k = thr_schema_find(schema_path(path, p));
  if (!k) {
    fprintf(stderr, "throng: internal error: the key table has no row '%s'\n", p);
    abort();
  }
  return k;
}

static const thr_key *row_of(const char *path, const char *key) {
  char p[PATH_LEN];
  return row_at(subkey(p, path, key));
}

/* The table's keys under key path `path` with all of `flags`: "a, b, c". */
static const char *names_under(const char *path, int flags, const char *sep, char *buf, size_t len) {
  char p[PATH_LEN];
  return thr_schema_names(buf, len, schema_path(path, p), flags, sep);
}

/* ---- key lists: "a, b, c" ------------------------------------------------- */

static int in_list(const char *list, const char *word) {
  size_t len = strlen(word);
  for (const char *s = list; *s;) {
    size_t n = strcspn(s, ",");
    if (n == len && !strncmp(s, word, len)) return 1;
    s += n;
    while (*s == ',' || *s == ' ') s++;
  }
  return 0;
}

static int edit_distance(const char *a, const char *b, size_t nb) {
  int row[64];
  size_t na = strlen(a);
  if (na >= 63 || nb >= 63) return 99;
  for (size_t j = 0; j <= nb; ++j) row[j] = (int)j;
  for (size_t i = 1; i <= na; ++i) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= nb; ++j) {
      int up = row[j];
      int best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[nb];
}

/* "; did you mean 'x'?" for a close known key, else "". */
static void suggestion(const char *list, const char *word, char *buf, size_t len) {
  int best = 3;
  buf[0] = '\0';
  for (const char *s = list; *s;) {
    size_t n = strcspn(s, ",");
    int d = edit_distance(word, s, n);
    if (d < best && (size_t)d < strlen(word)) {
      best = d;
      snprintf(buf, len, "; did you mean '%.*s'?", (int)n, s);
    }
    s += n;
    while (*s == ',' || *s == ' ') s++;
  }
}

/* Every key of map (at key path `path`) must be one the table has there. */
static int check_keys(cfg *c, const thr_ynode *map, const char *path) {
  char known[512];
  names_under(path, 0, ", ", known, sizeof known);
  for (int k = 0; k < map->n; ++k) {
    const thr_ynode *key = map->keys[k];
    if (in_list(known, key->text)) continue;
    char hint[96];
    suggestion(known, key->text, hint, sizeof hint);
    return fail(c, key, path, "unknown key '%.*s' (known keys here: %s)%s", (int)thr_text_prefix(key->text, 64),
                key->text, known, hint);
  }
  return 0;
}

static int missing(cfg *c, const thr_ynode *map, const char *path, const char *key, const char *what) {
  return fail(c, map, path, "missing required key '%s'%s", key, what);
}

/* Which one of the table's ONE_OF keys under `path` the map has; exactly
 * one is allowed. */
static int pick_one(cfg *c, const thr_ynode *map, const char *path, int *which) {
  char choices[256];
  int first = -1;
  names_under(path, THR_KEY_ONE_OF, ", ", choices, sizeof choices);
  for (int k = 0; k < map->n; ++k) {
    if (!in_list(choices, map->keys[k]->text)) continue;
    if (first >= 0)
      return fail(c, map->keys[k], path, "'%s' and '%s' cannot be combined; give exactly one of %s",
                  map->keys[first]->text, map->keys[k]->text, choices);
    first = k;
  }
  if (first < 0) return fail(c, map, path, "needs one of %s", choices);
  *which = first;
  return 0;
}

/* ---- scalars -------------------------------------------------------------- */

static int parse_decimal(const char *s, double *v) {
  size_t n = thr_text_scan_decimal(s);
  if (!n || s[n]) return 0;
  *v = strtod(s, NULL);
  return 1;
}

/* YAML 1.1 spellings of infinity and NaN. */
static int parse_special(const char *s, double *v) {
  int neg = *s == '-';
  const char *w = (*s == '-' || *s == '+') ? s + 1 : s;
  if (!strcmp(w, ".inf") || !strcmp(w, ".Inf") || !strcmp(w, ".INF")) {
    *v = neg ? -INFINITY : INFINITY;
    return 1;
  }
  if (w == s && (!strcmp(w, ".nan") || !strcmp(w, ".NaN") || !strcmp(w, ".NAN"))) {
    *v = NAN;
    return 1;
  }
  return 0;
}

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = '\0';
  return s;
}

/* 1: a number (maybe non-finite), 0: not a number, -1: fraction over zero. */
/* Any length: a valid number of 200 digits is a number (strtod takes it). */
static int parse_number(const char *text, double *v) {
  char *buf = malloc(strlen(text) + 1);
  if (!buf) return 0;
  strcpy(buf, text);
  char *s = trim(buf);
  int ok = 1;
  char *slash = strchr(s, '/');
  if (parse_special(s, v)) {
    ok = 1;
  } else if (!slash) {
    ok = parse_decimal(s, v);
  } else {
    *slash = '\0';
    double num, den;
    if (!parse_decimal(trim(s), &num) || !parse_decimal(trim(slash + 1), &den))
      ok = 0;
    else if (den == 0.0)
      ok = -1;
    else
      *v = num / den;
  }
  free(buf);
  return ok;
}

/* A number in range r (enum thr_range). */
static int read_number(cfg *c, const thr_ynode *n, const char *path, int r, float *out) {
  const char *range = thr_range_text(r);
  char g[GOT_LEN];
  double v = 0.0;
  int ok = n->kind == THR_Y_SCALAR && !n->quoted ? parse_number(n->text, &v) : 0;
  if (ok == 0)
    return fail(c, n, path, "expected a number%s, got %s%s", range, got(n, g),
                n->kind == THR_Y_SCALAR && n->quoted ? " (quoted, so a string)" : "");
  if (ok < 0) return fail(c, n, path, "expected a number%s, got %s (division by zero)", range, got(n, g));
  float f = (float)v;
  if (!isfinite(v) || !isfinite(f))
    return fail(c, n, path, "expected a finite number%s, got %s", range, got(n, g));
  if (!thr_range_holds(r, f)) return fail(c, n, path, "expected a number%s, got %s", range, got(n, g));
  *out = f;
  return 0;
}

/* Whole number in [lo, hi]. */
static int read_integer(cfg *c, const thr_ynode *n, const char *path, long long lo, long long hi, long long *out) {
  char g[GOT_LEN], want[64];
  if (lo == 1)
    snprintf(want, sizeof want, "an integer > 0");
  else
    snprintf(want, sizeof want, "an integer >= %lld", lo);
  const char *s = n->kind == THR_Y_SCALAR && !n->quoted ? n->text : "";
  size_t i = (*s == '-' || *s == '+') ? 1 : 0, digits = 0;
  while (s[i] >= '0' && s[i] <= '9') i++, digits++;
  if (!digits || s[i]) {
    double v;
    int numeric = n->kind == THR_Y_SCALAR && !n->quoted && parse_number(s, &v) == 1 && isfinite(v);
    const char *hint = !numeric        ? ""
                       : v == floor(v) ? " (write whole numbers as plain digits)"
                                       : " (not a whole number)";
    return fail(c, n, path, "expected %s, got %s%s", want, got(n, g), hint);
  }
  errno = 0;
  long long v = strtoll(s, NULL, 10);
  if (errno == ERANGE || v > hi) return fail(c, n, path, "expected %s (at most %lld), got %s", want, hi, got(n, g));
  if (v < lo) return fail(c, n, path, "expected %s, got %s", want, got(n, g));
  *out = v;
  return 0;
}

static int read_int(cfg *c, const thr_ynode *n, const char *path, long long lo, int *out) {
  long long v;
  if (read_integer(c, n, path, lo, INT_MAX, &v)) return -1;
  *out = (int)v;
  return 0;
}

static int read_long(cfg *c, const thr_ynode *n, const char *path, long long lo, long *out) {
  long long v;
  if (read_integer(c, n, path, lo, LONG_MAX, &v)) return -1;
  *out = (long)v;
  return 0;
}

static int read_seed(cfg *c, const thr_ynode *n, const char *path, uint64_t *out) {
  char g[GOT_LEN];
  const char *s = n->kind == THR_Y_SCALAR && !n->quoted ? n->text : "";
  size_t i = *s == '+' ? 1 : 0, digits = 0;
  while (s[i] >= '0' && s[i] <= '9') i++, digits++;
  errno = 0;
  unsigned long long v = digits && !s[i] ? strtoull(s, NULL, 10) : 0;
  if (!digits || s[i]) return fail(c, n, path, "expected an integer >= 0, got %s", got(n, g));
  if (errno == ERANGE)
    return fail(c, n, path, "expected an integer >= 0 (at most %llu), got %s", (unsigned long long)UINT64_MAX,
                got(n, g));
  *out = (uint64_t)v;
  return 0;
}

static int read_bool(cfg *c, const thr_ynode *n, const char *path, int *out) {
  static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
  static const char *const no[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
  char g[GOT_LEN];
  if (n->kind == THR_Y_SCALAR && !n->quoted) {
    for (size_t k = 0; k < sizeof yes / sizeof yes[0]; ++k) {
      if (!strcmp(n->text, yes[k])) return *out = 1, 0;
      if (!strcmp(n->text, no[k])) return *out = 0, 0;
    }
  }
  return fail(c, n, path, "expected true or false, got %s", got(n, g));
}

/* A string of at most size-1 characters (buf NULL: only check the type).
 * A name (the table's NONEMPTY strings: of the scenario, a block, a goal)
 * must not be empty and must be printable: names end up in output paths,
 * summaries and messages on a terminal. */
static int read_string(cfg *c, const thr_ynode *n, const char *path, char *buf, size_t size, int is_name) {
  char g[GOT_LEN];
  if (n->kind != THR_Y_SCALAR) return fail(c, n, path, "expected a string, got %s", got(n, g));
  const char *s = thr_ynode_is_null(n) ? "" : n->text;
  if (is_name && !*s) return fail(c, n, path, "must not be empty");
  if (is_name && !thr_text_is_printable(s))
    return fail(c, n, path, "a name must be printable, without control characters; got %s", got(n, g));
  if (buf && strlen(s) >= size) return fail(c, n, path, "too long (at most %zu characters)", size - 1);
  if (buf) memcpy(buf, s, strlen(s) + 1);
  return 0;
}

/* [x, y], both coordinates in range r. */
static int read_point(cfg *c, const thr_ynode *n, const char *path, int r, thr_vec2 *out) {
  char g[GOT_LEN], p[PATH_LEN];
  if (n->kind != THR_Y_SEQ || n->n != 2)
    return fail(c, n, path, "expected a point [x, y]%s%s, got %s", r ? " with both values" : "", thr_range_text(r),
                got(n, g));
  if (read_number(c, n->items[0], subindex(p, path, 0), r, &out->x)) return -1;
  return read_number(c, n->items[1], subindex(p, path, 1), r, &out->y);
}

/* One word of a CHOICE row's choices, stored as its index. */
static int read_choice(cfg *c, const thr_ynode *n, const char *path, const thr_key *k, int *out) {
  char g[GOT_LEN];
  int index = n->kind == THR_Y_SCALAR ? thr_key_choice_index(k, n->text) : -1;
  if (index < 0) return fail(c, n, path, "expected one of %s, got %s", k->choices, got(n, g));
  *out = index;
  return 0;
}

/* ---- values through the key table ---------------------------------------- */

/* Node n, the value of key path `path`, as row k says, into dst: a variable
 * of the row's C type (NULL for a string that is only checked). */
static int read_value(cfg *c, const thr_ynode *n, const char *path, const thr_key *k, void *dst) {
  long long lo = k->range == THR_RANGE_GT0 ? 1 : 0;
  switch (k->type) {
    case THR_KEY_NUMBER:
      return read_number(c, n, path, k->range, dst);
    case THR_KEY_INTEGER:
      if (k->field.ctype == THR_C_U64) return read_seed(c, n, path, dst);
      if (k->field.ctype == THR_C_LONG) return read_long(c, n, path, lo, dst);
      return read_int(c, n, path, lo, dst);
    case THR_KEY_BOOL:
      return read_bool(c, n, path, dst);
    case THR_KEY_STRING:
      return read_string(c, n, path, dst, k->field.size, k->range == THR_RANGE_NONEMPTY);
    case THR_KEY_POINT:
      return read_point(c, n, path, k->range, dst);
    case THR_KEY_CHOICE:
      return read_choice(c, n, path, k, dst);
    default:
      return fail(c, n, path, "internal error: the key table has no reader for this key");
  }
}

/* Whether read_value reads values of row k's type; maps, lists and the
 * types with several forms are read by code of their own. */
static int has_reader(const thr_key *k) {
  switch (k->type) {
    case THR_KEY_NUMBER:
    case THR_KEY_INTEGER:
    case THR_KEY_BOOL:
    case THR_KEY_STRING:
    case THR_KEY_POINT:
    case THR_KEY_CHOICE:
      return 1;
    default:
      return 0;
  }
}

/* Where row k's value lives: in the scenario, its parameters, or block b. */
static void *field_of(cfg *c, const thr_key *k, thr_block *b) {
  char *base = k->field.at == THR_AT_SCENARIO ? (char *)c->sc
               : k->field.at == THR_AT_PARAMS ? (char *)&c->sc->prm
               : k->field.at == THR_AT_BLOCK  ? (char *)b
                                              : NULL;
  return base ? base + k->field.off : NULL;
}

/* The value of `key` in map (at key path `path`), if given, into dst. */
static int read_key_into(cfg *c, const thr_ynode *map, const char *path, const char *key, void *dst) {
  char p[PATH_LEN];
  const thr_ynode *v = thr_ymap_get(map, key);
  if (!v) return 0;
  subkey(p, path, key);
  return read_value(c, v, p, row_at(p), dst);
}

/* The value of `key`, if given, into its field (of block b for agents[] keys). */
static int read_key(cfg *c, const thr_ynode *map, const char *path, const char *key, thr_block *b) {
  return read_key_into(c, map, path, key, field_of(c, row_of(path, key), b));
}

/* Every key under `path` that read_value reads and map gives, in table order. */
static int read_fields(cfg *c, const thr_ynode *map, const char *path, thr_block *b) {
  char p[PATH_LEN];
  schema_path(path, p);
  for (size_t i = 0; i < thr_schema_len; ++i) {
    const thr_key *k = &thr_schema[i];
    if (thr_key_is_child(k, p) && has_reader(k) && read_key(c, map, path, thr_key_name(k), b)) return -1;
  }
  return 0;
}

/* Every key the table marks required under `path` (for agent blocks: that
 * `layout` takes; -1 elsewhere) must be in map. */
static int need_keys(cfg *c, const thr_ynode *map, const char *path, int layout) {
  char p[PATH_LEN];
  schema_path(path, p);
  for (size_t i = 0; i < thr_schema_len; ++i) {
    const thr_key *k = &thr_schema[i];
    if (!thr_key_is_child(k, p) || !(k->flags & THR_KEY_REQUIRED)) continue;
    if (layout >= 0 && !thr_key_takes_layout(k, layout)) continue;
    if (!thr_ymap_get(map, thr_key_name(k))) return missing(c, map, path, thr_key_name(k), "");
  }
  return 0;
}

/* ---- defaults ------------------------------------------------------------- */

int thr_config_read_default(const thr_key *k, void *obj, char *err, size_t errlen) {
  thr_ynode n = {.kind = THR_Y_SCALAR, .origin = "the key table's default", .text = (char *)k->def};
  cfg c = {.err = err, .errlen = errlen};
  if (!k->def || k->field.at == THR_AT_NONE) return fail(&c, &n, k->path, "has no default value to read");
  return read_value(&c, &n, k->path, k, (char *)obj + k->field.off);
}

/* The defaults of the rows whose fields live in `at` (enum thr_at) into obj.
 * tests/unit/test_schema.c checks that every one of them reads. */
static void apply_defaults(int at, void *obj) {
  for (size_t i = 0; i < thr_schema_len; ++i)
    if (thr_schema[i].field.at == at && thr_schema[i].def) thr_config_read_default(&thr_schema[i], obj, NULL, 0);
}

void thr_params_defaults(thr_params *prm) {
  memset(prm, 0, sizeof *prm);
  apply_defaults(THR_AT_PARAMS, prm);
}

void thr_config_scenario_defaults(thr_scenario *sc) {
  thr_params_defaults(&sc->prm);
  apply_defaults(THR_AT_SCENARIO, sc);
}

void thr_config_block_defaults(thr_block *b) {
  apply_defaults(THR_AT_BLOCK, b);
}

/* A map value that must be present. */
static const thr_ynode *need(cfg *c, const thr_ynode *map, const char *path, const char *key) {
  const thr_ynode *v = thr_ymap_get(map, key);
  if (!v) missing(c, map, path, key, "");
  return v;
}

/* max >= min in both coordinates (strict: max > min). */
static int check_corners(cfg *c, const thr_ynode *at, const char *path, thr_vec2 lo, thr_vec2 hi, int strict) {
  int ok = strict ? (hi.x > lo.x && hi.y > lo.y) : (hi.x >= lo.x && hi.y >= lo.y);
  if (ok) return 0;
  return fail(c, at, path, "max [%g, %g] must %s min [%g, %g] in each coordinate", (double)hi.x, (double)hi.y,
              strict ? "exceed" : "not be below", (double)lo.x, (double)lo.y);
}

/* {min: [x, y], max: [x, y]} */
static int read_rect(cfg *c, const thr_ynode *n, const char *path, int strict, thr_vec2 *lo, thr_vec2 *hi) {
  char g[GOT_LEN];
  if (n->kind != THR_Y_MAP) return fail(c, n, path, "expected a map {min: [x, y], max: [x, y]}, got %s", got(n, g));
  if (check_keys(c, n, path) || need_keys(c, n, path, -1) || read_key_into(c, n, path, "min", lo) ||
      read_key_into(c, n, path, "max", hi))
    return -1;
  return check_corners(c, thr_ymap_get(n, "max"), path, *lo, *hi, strict);
}

/* ---- sections: maps of scalar keys ---------------------------------------- */

static int read_section(cfg *c, const thr_ynode *root, const thr_key *section) {
  char known[512], g[GOT_LEN];
  const char *name = section->path;
  const thr_ynode *m = thr_ymap_get(root, name);
  if (!m || thr_ynode_is_null(m)) return 0; /* an empty section keeps the defaults */
  if (m->kind != THR_Y_MAP)
    return fail(c, m, name, "expected a map with keys %s, got %s", names_under(name, 0, ", ", known, sizeof known),
                got(m, g));
  return check_keys(c, m, name) || read_fields(c, m, name, NULL) ? -1 : 0;
}

/* The optional top-level maps: time, solver, model, ..., output. */
static int read_sections(cfg *c, const thr_ynode *root) {
  for (size_t i = 0; i < thr_schema_len; ++i) {
    const thr_key *k = &thr_schema[i];
    if (thr_key_is_child(k, "") && k->type == THR_KEY_MAP && !(k->flags & THR_KEY_REQUIRED) &&
        read_section(c, root, k))
      return -1;
  }
  return 0;
}

/* ---- top level ------------------------------------------------------------ */

/* The file's name without directories and .yaml/.yml. */
static void default_name(const char *path, char *name, size_t size) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  if (n > 5 && !strcmp(base + n - 5, ".yaml"))
    n -= 5;
  else if (n > 4 && !strcmp(base + n - 4, ".yml"))
    n -= 4;
  if (n >= size) n = thr_text_prefix(base, size - 1);
  snprintf(name, size, "%.*s", (int)n, base);
}

static int read_top_scalars(cfg *c, const thr_ynode *root) {
  if (read_fields(c, root, "", NULL)) return -1;
  /* the name becomes the default output directory out/<name> */
  const thr_ynode *v = thr_ymap_get(root, "name");
  if (v && (strchr(c->sc->name, '/') || !strcmp(c->sc->name, ".") || !strcmp(c->sc->name, "..")))
    return fail(c, v, "name", "must not contain '/' or be '.' or '..' (it names the output directory out/<name>)");
  /* a name from the file's name has not been through read_string's check */
  if (!v && !thr_text_is_printable(c->sc->name))
    return fail(c, root, "", "the file name gives no printable scenario name (\"%s\"); give one with 'name'",
                c->sc->name);
  return 0;
}

static int read_world(cfg *c, const thr_ynode *root) {
  char g[GOT_LEN];
  const thr_ynode *w = thr_ymap_get(root, "world");
  if (!w) return missing(c, root, "", "world", " (a map {min: [x, y], max: [x, y]})");
  if (w->kind != THR_Y_MAP) return fail(c, w, "world", "expected a map {min: [x, y], max: [x, y]}, got %s", got(w, g));
  if (check_keys(c, w, "world") || need_keys(c, w, "world", -1) || read_fields(c, w, "world", NULL)) return -1;
  return check_corners(c, thr_ymap_get(w, "max"), "world.max", c->sc->world_min, c->sc->world_max, 1);
}

/* ---- goals ---------------------------------------------------------------- */

static int read_goal_disk(cfg *c, const thr_ynode *v, const char *path, thr_goal *goal) {
  char g[GOT_LEN];
  thr_vec2 center;
  if (v->kind != THR_Y_MAP) return fail(c, v, path, "expected a map {center: [x, y], radius: R}, got %s", got(v, g));
  if (check_keys(c, v, path) || need_keys(c, v, path, -1) || read_key_into(c, v, path, "center", &center) ||
      read_key_into(c, v, path, "radius", &goal->r))
    return -1;
  goal->kind = THR_GOAL_DISK;
  goal->ax = center.x, goal->ay = center.y;
  return 0;
}

static int read_goal_shape(cfg *c, const thr_ynode *item, const char *path, thr_goal *goal) {
  char p[PATH_LEN];
  int which = 0;
  if (pick_one(c, item, path, &which)) return -1;
  const char *shape = item->keys[which]->text;
  const thr_ynode *v = item->items[which];
  subkey(p, path, shape);
  memset(goal, 0, sizeof *goal);
  if (!strcmp(shape, "point")) {
    thr_vec2 a;
    if (read_key_into(c, item, path, shape, &a)) return -1;
    goal->kind = THR_GOAL_POINT;
    goal->ax = a.x, goal->ay = a.y;
    return 0;
  }
  if (!strcmp(shape, "rect")) {
    thr_vec2 lo, hi;
    if (read_rect(c, v, p, 0, &lo, &hi)) return -1;
    goal->kind = THR_GOAL_RECT;
    goal->ax = lo.x, goal->ay = lo.y, goal->bx = hi.x, goal->by = hi.y;
    return 0;
  }
  return read_goal_disk(c, v, p, goal);
}

static int read_goal(cfg *c, const thr_ynode *item, int i) {
  char path[PATH_LEN], p[PATH_LEN], g[GOT_LEN], shapes[64];
  thr_scenario *sc = c->sc;
  subindex(path, "goals", i);
  if (item->kind != THR_Y_MAP)
    return fail(c, item, path, "expected a map {name: NAME, %s: ...}, got %s",
                names_under(path, THR_KEY_ONE_OF, "|", shapes, sizeof shapes), got(item, g));
  const thr_ynode *vname = thr_ymap_get(item, "name");
  subkey(p, path, "name");
  if (check_keys(c, item, path) || need_keys(c, item, path, -1) ||
      read_string(c, vname, p, sc->goal_names[i], sizeof sc->goal_names[i],
                  row_at(p)->range == THR_RANGE_NONEMPTY))
    return -1;
  for (int k = 0; k < i; ++k)
    if (!strcmp(sc->goal_names[k], sc->goal_names[i]))
      return sc->goal_line[k] > 0
                 ? fail(c, vname, p, "duplicate goal name '%s' (first at line %d)", sc->goal_names[i], sc->goal_line[k])
                 : fail(c, vname, p, "duplicate goal name '%s'", sc->goal_names[i]);
  sc->goal_line[i] = item->n ? item->keys[0]->line : item->line;
  return read_goal_shape(c, item, path, &sc->goals[i]);
}

static int read_goals(cfg *c, const thr_ynode *root) {
  char g[GOT_LEN], shapes[64];
  thr_scenario *sc = c->sc;
  const thr_ynode *list = thr_ymap_get(root, "goals");
  if (!list || thr_ynode_is_null(list)) return 0;
  if (list->kind != THR_Y_SEQ)
    return fail(c, list, "goals", "expected a list of goals ({name: NAME, %s: ...}), got %s",
                names_under("goals[]", THR_KEY_ONE_OF, "|", shapes, sizeof shapes), got(list, g));
  if (list->n == 0) return 0;
  size_t n = (size_t)list->n;
  sc->goals = calloc(n, sizeof *sc->goals);
  sc->goal_names = calloc(n, sizeof *sc->goal_names);
  sc->goal_line = calloc(n, sizeof *sc->goal_line);
  if (!sc->goals || !sc->goal_names || !sc->goal_line) return fail(c, list, "goals", "out of memory");
  for (int i = 0; i < list->n; ++i) {
    if (read_goal(c, list->items[i], i)) return -1;
    sc->n_goals = i + 1;
  }
  return 0;
}

/* ---- obstacles ------------------------------------------------------------ */

static int push_vert(cfg *c, const thr_ynode *at, thr_vec2 v) {
  thr_scenario *sc = c->sc;
  if (sc->n_verts == c->verts_cap) {
    int cap = c->verts_cap ? 2 * c->verts_cap : 64;
    thr_vec2 *grown = realloc(sc->verts, (size_t)cap * sizeof *grown);
    if (!grown) return fail(c, at, "obstacles", "out of memory");
    sc->verts = grown;
    c->verts_cap = cap;
  }
  sc->verts[sc->n_verts++] = v;
  return 0;
}

/* A list of points for a segment, polyline or polygon: as many as the row
 * of `path` allows; a closed chain must not repeat its first point. */
static int read_chain(cfg *c, const thr_ynode *n, const char *path, int closed) {
  char g[GOT_LEN], p[PATH_LEN];
  const thr_key *k = row_at(path);
  int exact = k->max_items == k->min_items;
  if (n->kind != THR_Y_SEQ || n->n < k->min_items || (k->max_items && n->n > k->max_items)) {
    if (exact) return fail(c, n, path, "expected a list of 2 points [[x1, y1], [x2, y2]], got %s", got(n, g));
    return fail(c, n, path, "expected a list of at least %d points [[x, y], ...], got %s", k->min_items, got(n, g));
  }
  int first = c->sc->n_verts;
  for (int i = 0; i < n->n; ++i) {
    thr_vec2 v;
    if (read_point(c, n->items[i], subindex(p, path, i), THR_RANGE_ANY, &v)) return -1;
    const thr_vec2 *prev = i ? &c->sc->verts[c->sc->n_verts - 1] : NULL;
    if (prev && v.x == prev->x && v.y == prev->y)
      return fail(c, n->items[i], p, "repeats the previous point [%g, %g]", (double)v.x, (double)v.y);
    if (closed && i == n->n - 1 && v.x == c->sc->verts[first].x && v.y == c->sc->verts[first].y)
      return fail(c, n->items[i], p, "repeats the first point (a polygon closes by itself; leave it out)");
    if (push_vert(c, n->items[i], v)) return -1;
  }
  return 0;
}

/* A closed rectangle: its corners counter-clockwise from the lower left. */
static int read_obstacle_rect(cfg *c, const thr_ynode *v, const char *path) {
  thr_vec2 lo, hi;
  return read_rect(c, v, path, 1, &lo, &hi) || push_vert(c, v, lo) || push_vert(c, v, v2(hi.x, lo.y)) ||
                 push_vert(c, v, hi) || push_vert(c, v, v2(lo.x, hi.y))
             ? -1
             : 0;
}

static int read_obstacle(cfg *c, const thr_ynode *item, int o) {
  char path[PATH_LEN], p[PATH_LEN], g[GOT_LEN], shapes[128];
  thr_scenario *sc = c->sc;
  subindex(path, "obstacles", o);
  if (item->kind != THR_Y_MAP)
    return fail(c, item, path, "expected a map with one of %s, got %s",
                names_under(path, THR_KEY_ONE_OF, ", ", shapes, sizeof shapes), got(item, g));
  int which = 0;
  if (check_keys(c, item, path) || pick_one(c, item, path, &which)) return -1;
  const char *shape = item->keys[which]->text;
  const thr_ynode *v = item->items[which];
  subkey(p, path, shape);
  sc->obs_line[o] = item->n ? item->keys[0]->line : item->line;
  sc->obs_closed[o] = !strcmp(shape, "polygon") || !strcmp(shape, "rect");
  int rc = !strcmp(shape, "rect") ? read_obstacle_rect(c, v, p) : read_chain(c, v, p, sc->obs_closed[o]);
  sc->obs_vfirst[o + 1] = sc->n_verts;
  return rc ? -1 : 0;
}

static int read_obstacles(cfg *c, const thr_ynode *root) {
  char g[GOT_LEN], shapes[128];
  thr_scenario *sc = c->sc;
  const thr_ynode *list = thr_ymap_get(root, "obstacles");
  int n = list && list->kind == THR_Y_SEQ ? list->n : 0;
  sc->obs_vfirst = calloc((size_t)n + 1, sizeof *sc->obs_vfirst);
  if (!sc->obs_vfirst) return fail(c, root, "obstacles", "out of memory");
  if (!list || thr_ynode_is_null(list)) return 0;
  if (list->kind != THR_Y_SEQ)
    return fail(c, list, "obstacles", "expected a list of obstacles (maps with one of %s), got %s",
                names_under("obstacles[]", THR_KEY_ONE_OF, ", ", shapes, sizeof shapes), got(list, g));
  if (n == 0) return 0;
  sc->obs_closed = calloc((size_t)n, sizeof *sc->obs_closed);
  sc->obs_line = calloc((size_t)n, sizeof *sc->obs_line);
  if (!sc->obs_closed || !sc->obs_line) return fail(c, list, "obstacles", "out of memory");
  for (int o = 0; o < n; ++o) {
    if (read_obstacle(c, list->items[o], o)) return -1;
    sc->n_obstacles = o + 1;
  }
  return 0;
}

/* ---- agent blocks --------------------------------------------------------- */

/* The name of layout L ("grid", ...), as the row of `path`.layout has it. */
static const char *layout_name(const char *path, int L, char *buf, size_t len) {
  return thr_key_choice(row_of(path, "layout"), L, buf, len);
}

static int read_layout(cfg *c, const thr_ynode *blk, const char *path, thr_block *b) {
  char what[128];
  if (!thr_ymap_get(blk, "layout")) {
    snprintf(what, sizeof what, " (one of %s)", row_of(path, "layout")->choices);
    return missing(c, blk, path, "layout", what);
  }
  return read_key(c, blk, path, "layout", b);
}

/* Keys such as semi_axes on a grid block are mistakes, not extras. */
static int check_layout_keys(cfg *c, const thr_ynode *blk, const char *path, int layout) {
  char name[32], takes[256];
  for (int k = 0; k < blk->n; ++k) {
    const char *key = blk->keys[k]->text;
    if (thr_key_takes_layout(row_of(path, key), layout)) continue;
    layout_name(path, layout, name, sizeof name);
    return fail(c, blk->keys[k], path, "key '%s' does not apply to layout '%s' (%s blocks take %s)", key, name, name,
                thr_schema_layout_names(takes, sizeof takes, layout));
  }
  return 0;
}

/* A number (both lattice spacings) or a point. */
static int read_spacing(cfg *c, const thr_ynode *n, const char *path, thr_block *b) {
  int range = row_at(path)->range;
  if (n->kind == THR_Y_SEQ) {
    thr_vec2 s;
    if (read_point(c, n, path, range, &s)) return -1;
    b->spacing_x = s.x, b->spacing_y = s.y;
    return 0;
  }
  if (read_number(c, n, path, range, &b->spacing_x)) return -1;
  b->spacing_y = b->spacing_x;
  return 0;
}

static int read_grid(cfg *c, const thr_ynode *blk, const char *path, thr_block *b) {
  char p[PATH_LEN];
  const thr_ynode *rows = thr_ymap_get(blk, "rows"), *cols = thr_ymap_get(blk, "cols");
  const thr_ynode *spacing = thr_ymap_get(blk, "spacing"), *count = thr_ymap_get(blk, "count");
  if (rows && !cols) return missing(c, blk, path, "cols", " (rows needs cols)");
  if (cols && !rows) return missing(c, blk, path, "rows", " (cols needs rows)");
  if (rows && spacing)
    return fail(c, thr_ymap_key(blk, "spacing"), path, "give either rows and cols or spacing, not both");
  if (!rows && !spacing) return fail(c, blk, path, "layout 'grid' needs rows and cols, or spacing");
  if (read_key(c, blk, path, "rows", b) || read_key(c, blk, path, "cols", b)) return -1;
  if (spacing && read_spacing(c, spacing, subkey(p, path, "spacing"), b)) return -1;
  if (count && rows && b->count > (long)b->rows * b->cols)
    return fail(c, count, subkey(p, path, "count"), "count %ld exceeds rows x cols = %ld", b->count,
                (long)b->rows * b->cols);
  return 0;
}

/* Geometry and counts, by layout (check_layout_keys has refused the keys
 * the layout does not take). */
static int read_placement(cfg *c, const thr_ynode *blk, const char *path, thr_block *b) {
  char p[PATH_LEN], name[32];
  int L = b->layout;
  if (read_key(c, blk, path, "count", b) || need_keys(c, blk, path, L) || read_key(c, blk, path, "min", b) ||
      read_key(c, blk, path, "max", b) || read_key(c, blk, path, "center", b) || read_key(c, blk, path, "radius", b))
    return -1;
  if ((L == THR_LAYOUT_GRID || L == THR_LAYOUT_RANDOM) &&
      check_corners(c, thr_ymap_get(blk, "max"), subkey(p, path, "max"), b->min, b->max, 0))
    return -1;
  if (L == THR_LAYOUT_DISK || L == THR_LAYOUT_CIRCLE) b->ry = b->rx;
  if (L == THR_LAYOUT_ELLIPSE) {
    thr_vec2 ax;
    if (read_key_into(c, blk, path, "semi_axes", &ax)) return -1;
    b->rx = ax.x, b->ry = ax.y;
  }
  if ((L == THR_LAYOUT_RANDOM || L == THR_LAYOUT_CIRCLE) && !thr_ymap_get(blk, "count"))
    return missing(c, blk, path, "count", "");
  if (L == THR_LAYOUT_DISK || L == THR_LAYOUT_ELLIPSE) {
    const thr_ynode *v = thr_ymap_get(blk, "spacing");
    if (!v && !thr_ymap_get(blk, "count"))
      return fail(c, blk, path, "layout '%s' needs spacing, count or both", layout_name(path, L, name, sizeof name));
    if (v && read_spacing(c, v, subkey(p, path, "spacing"), b)) return -1;
  }
  return L == THR_LAYOUT_GRID ? read_grid(c, blk, path, b) : 0;
}

/* Neither a number nor a map: "expected a number > 0 or a map {min, max}". */
static int not_number_or_map(cfg *c, const thr_ynode *n, const char *path) {
  char g[GOT_LEN], keys[64];
  return fail(c, n, path, "expected a number%s or a map {%s}, got %s", thr_range_text(row_at(path)->range),
              names_under(path, 0, ", ", keys, sizeof keys), got(n, g));
}

/* A number (min = max) or a map {min, max}: a uniform range of values. */
static int read_value_range(cfg *c, const thr_ynode *n, const char *path, thr_block *b) {
  char q[PATH_LEN];
  float *lo = field_of(c, row_of(path, "min"), b), *hi = field_of(c, row_of(path, "max"), b);
  if (n->kind == THR_Y_SCALAR) {
    if (read_number(c, n, path, row_at(path)->range, lo)) return -1;
    *hi = *lo;
    return 0;
  }
  if (n->kind != THR_Y_MAP) return not_number_or_map(c, n, path);
  if (check_keys(c, n, path)) return -1;
  const thr_ynode *vmin = need(c, n, path, "min"), *vmax = vmin ? need(c, n, path, "max") : NULL;
  if (!vmin || !vmax || read_key(c, n, path, "min", b) || read_key(c, n, path, "max", b)) return -1;
  if (*hi < *lo)
    return fail(c, vmax, subkey(q, path, "max"), "must be >= %s.min (%g), got %g", path, (double)*lo, (double)*hi);
  return 0;
}

/* A number (no spread) or {mean, spread}. */
static int read_speed(cfg *c, const thr_ynode *n, const char *path, thr_block *b) {
  char p[PATH_LEN];
  if (n->kind == THR_Y_SCALAR) {
    b->speed_spread = 0.0f;
    return read_number(c, n, path, row_at(path)->range, &b->speed_mean);
  }
  if (n->kind != THR_Y_MAP) return not_number_or_map(c, n, path);
  if (check_keys(c, n, path) || read_key(c, n, path, "mean", b)) return -1;
  const thr_ynode *vs = thr_ymap_get(n, "spread");
  if (!vs) {
    /* the default spread never makes speeds negative */
    if (b->speed_spread > b->speed_mean) b->speed_spread = b->speed_mean;
    return 0;
  }
  if (read_key(c, n, path, "spread", b)) return -1;
  if (b->speed_spread > b->speed_mean)
    return fail(c, vs, subkey(p, path, "spread"), "must not exceed %s.mean (%g), or speeds would be negative", path,
                (double)b->speed_mean);
  return 0;
}

/* Append a goal set holding the named goals; the block refers to it. */
static int add_goal_set(cfg *c, const thr_ynode *const *names, int n, int is_list, const char *path, thr_block *b) {
  thr_scenario *sc = c->sc;
  char p[PATH_LEN];
  for (int k = 0; k < n; ++k) {
    const thr_ynode *v = names[k];
    const char *vp = is_list ? subindex(p, path, k) : path;
    if (read_string(c, v, vp, NULL, 0, 1)) return -1;
    int id = -1;
    for (int q = 0; q < sc->n_goals && id < 0; ++q)
      if (!strcmp(sc->goal_names[q], v->text)) id = q;
    if (id < 0) {
      char known[512] = "";
      for (int q = 0; q < sc->n_goals; ++q) {
        if (q) thr_str_append(known, sizeof known, ", ");
        thr_str_append(known, sizeof known, sc->goal_names[q]);
      }
      if (!sc->n_goals)
        return fail(c, v, vp, "unknown goal '%s' (no goals are defined; add them under 'goals')", v->text);
      return fail(c, v, vp, "unknown goal '%s' (goals defined: %s)", v->text, known);
    }
    if (sc->set_first[sc->n_sets] + k == c->items_cap) {
      int cap = c->items_cap ? 2 * c->items_cap : 16;
      int *grown = realloc(sc->set_items, (size_t)cap * sizeof *grown);
      if (!grown) return fail(c, v, vp, "out of memory");
      sc->set_items = grown;
      c->items_cap = cap;
    }
    sc->set_items[sc->set_first[sc->n_sets] + k] = id;
  }
  b->goal_kind = THR_BGOAL_SET;
  b->goal_set = sc->n_sets;
  sc->set_first[sc->n_sets + 1] = sc->set_first[sc->n_sets] + n;
  sc->n_sets++;
  return 0;
}

/* {point|offset|antipodal: [x, y], jitter: J} */
static int read_goal_map(cfg *c, const thr_ynode *n, const char *path, thr_block *b) {
  int which = 0;
  if (check_keys(c, n, path) || pick_one(c, n, path, &which)) return -1;
  const char *form = n->keys[which]->text;
  if (read_key(c, n, path, form, b)) return -1;
  b->goal_kind = !strcmp(form, "point")    ? THR_BGOAL_POINT
                 : !strcmp(form, "offset") ? THR_BGOAL_OFFSET
                                           : THR_BGOAL_ANTIPODAL;
  return read_key(c, n, path, "jitter", b);
}

static int read_block_goal(cfg *c, const thr_ynode *n, const char *path, thr_block *b) {
  char g[GOT_LEN], forms[64];
  if (n->kind == THR_Y_MAP) return read_goal_map(c, n, path, b);
  if (n->kind == THR_Y_SEQ && n->n > 0) return add_goal_set(c, (const thr_ynode *const *)n->items, n->n, 1, path, b);
  if (n->kind == THR_Y_SCALAR && !thr_ynode_is_null(n)) return add_goal_set(c, &n, 1, 0, path, b);
  return fail(c, n, path, "expected a goal name, a list of goal names, or a map {%s: [x, y], jitter: J}, got %s",
              names_under(path, THR_KEY_ONE_OF, "|", forms, sizeof forms), got(n, g));
}

/* Everything except the placement: name, speeds, radii, masses, group, goal. */
static int read_block_agents(cfg *c, const thr_ynode *blk, const char *path, thr_block *b) {
  char p[PATH_LEN];
  const thr_ynode *v;
  if (read_key(c, blk, path, "name", b) || read_key(c, blk, path, "jitter", b)) return -1;
  if ((v = thr_ymap_get(blk, "speed")) && read_speed(c, v, subkey(p, path, "speed"), b)) return -1;
  if ((v = thr_ymap_get(blk, "agent_radius")) && read_value_range(c, v, subkey(p, path, "agent_radius"), b))
    return -1;
  if ((v = thr_ymap_get(blk, "mass")) && read_value_range(c, v, subkey(p, path, "mass"), b)) return -1;
  if (read_key(c, blk, path, "group", b)) return -1;
  if ((v = thr_ymap_get(blk, "goal")) && read_block_goal(c, v, subkey(p, path, "goal"), b)) return -1;
  return 0;
}

/* The table's defaults, and those it can only describe: the name block<N>
 * and the group, both from the block's index. */
static void block_defaults(thr_block *b, int index) {
  thr_config_block_defaults(b);
  snprintf(b->name, sizeof b->name, "block%d", index);
  b->group = index;
}

static int read_block(cfg *c, const thr_ynode *blk, int index, thr_block *b) {
  char path[PATH_LEN], g[GOT_LEN];
  subindex(path, "agents", index);
  if (blk->kind != THR_Y_MAP)
    return fail(c, blk, path, "expected an agent block (a map with layout, ...), got %s", got(blk, g));
  b->line = blk->n ? blk->keys[0]->line : blk->line;
  block_defaults(b, index);
  if (check_keys(c, blk, path) || read_layout(c, blk, path, b) || check_layout_keys(c, blk, path, b->layout))
    return -1;
  return read_placement(c, blk, path, b) || read_block_agents(c, blk, path, b) ? -1 : 0;
}

static int read_agents(cfg *c, const thr_ynode *root) {
  char g[GOT_LEN];
  thr_scenario *sc = c->sc;
  const thr_ynode *list = thr_ymap_get(root, "agents");
  if (!list) return missing(c, root, "", "agents", " (a list of agent blocks)");
  if (list->kind != THR_Y_SEQ || list->n == 0)
    return fail(c, list, "agents", "expected a list of at least one agent block, got %s", got(list, g));
  size_t n = (size_t)list->n;
  sc->blocks = calloc(n, sizeof *sc->blocks);
  sc->set_first = calloc(n + 1, sizeof *sc->set_first);
  if (!sc->blocks || !sc->set_first) return fail(c, list, "agents", "out of memory");
  for (int i = 0; i < list->n; ++i) {
    if (read_block(c, list->items[i], i, &sc->blocks[i])) return -1;
    sc->n_blocks = i + 1;
  }
  return 0;
}

/* ---- the whole scenario --------------------------------------------------- */

/* The table's defaults, and the one it can only describe: the name, from the
 * file's name. */
static void scenario_defaults(thr_scenario *sc, const char *path) {
  thr_config_scenario_defaults(sc);
  snprintf(sc->path, sizeof sc->path, "%s", path);
  default_name(path, sc->name, sizeof sc->name);
}

static int fill_scenario(cfg *c, const thr_ynode *root, const char *path) {
  char g[GOT_LEN];
  thr_ynode top = {0};
  top.origin = path, top.line = 1, top.col = 1;
  if (strlen(path) >= sizeof c->sc->path)
    return fail(c, &top, "", "the path is too long (at most %zu characters)", sizeof c->sc->path - 1);
  scenario_defaults(c->sc, path);
  if (!root || thr_ynode_is_null(root))
    return fail(c, &top, "", "the file is empty; a scenario needs at least 'world' and 'agents'");
  if (root->kind != THR_Y_MAP)
    return fail(c, root, "", "expected a map of keys (name, world, agents, ...) at the top level, got %s",
                got(root, g));
  if (check_keys(c, root, "") || read_top_scalars(c, root) || read_world(c, root) || read_sections(c, root)) return -1;
  if (read_goals(c, root) || read_obstacles(c, root) || read_agents(c, root)) return -1;
  return 0;
}

int thr_config_load(const char *path, const char *const *sets, int n_sets, thr_scenario *sc, char *err, size_t errlen) {
  memset(sc, 0, sizeof *sc);
  if (err && errlen) err[0] = '\0';
  thr_ytree tree;
  if (thr_ytree_load_file(&tree, path, err, errlen)) return -1;
  int rc = 0;
  for (int k = 0; k < n_sets && !rc; ++k) rc = thr_ytree_apply_set(&tree, sets[k], err, errlen);
  cfg c = {sc, err, errlen, 0, 0};
  if (!rc) rc = fill_scenario(&c, tree.root, path);
  thr_ytree_free(&tree);
  if (rc) thr_scenario_free(sc);
  return rc ? -1 : 0;
}
