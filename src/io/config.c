/* Scenario file -> thr_scenario: walks the YAML tree (yamltree.h), checks
 * every key against the key table (schema.h) and fills the scenario. Values
 * and defaults go through the table's rows; the code here adds what a row
 * cannot say (shapes, layouts, goal sets, the walkable area and what must
 * lie inside it, references between exits, stages, journeys and blocks).
 * Every error names the file position (or --set override), the key path
 * and what is wrong; the first error stops loading. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/geometry.h"
#include "base/model_needs.h"
#include "input_file.h"
#include "kernels/pass_list.h"
#include "models.h"
#include "schema.h"
#include "wkt.h"
#include "yamltree.h"

#define PATH_LEN 256 /* key paths such as agents[12].speed.mean */
#define GOT_LEN 96   /* "got ..." descriptions */
#define ON_TOL 1e-3  /* [m]: a point this near the walkable area's boundary lies on it */

/* ---- loading context and messages ----------------------------------------- */

typedef struct cfg {
  thr_scenario *sc;
  char *err;
  size_t errlen;
  int verts_cap;           /* capacity of sc->verts */
  int items_cap;           /* capacity of sc->set_items */
  int trans_cap;           /* capacity of sc->trans_items and sc->trans_weights */
  const thr_polyset *area; /* where exits, stages and regions must lie: the walkable area, else the world */
  const char *area_name;   /* "the walkable area" or "the world" */
  int walls_line;          /* line of the walkable area's value, for the walls that follow from it */
  thr_polyset world_area;  /* the world as a polygon (the area when no walkable area is given) */
  thr_polyset *floor_area; /* [n_floors] each floor's walkable area as given (the floor's coordinates) */
  int floor;               /* the floor of the item being read (0: the first, or no floors) */
  char area_label[112];    /* area_name of a floor's walkable area */
  int world_poly_first[2], world_ring_first[2];
  thr_vec2 world_verts[4];
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
  /* a value too small for a float's full precision (1e-45 is stored as the
   * subnormal 1.4e-45, and 1/x is infinite): no key of the model means it,
   * and the run would diverge at its first step */
  if (v != 0.0 && fabsf(f) < FLT_MIN)
    return fail(c, n, path, "expected a number%s, got %s, which is too small to compute with (non-zero values "
                "must be at least %g in magnitude)", range, got(n, g), (double)FLT_MIN);
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

/* ---- forms of list items -------------------------------------------------- */

/* The name of form `form` of the item at key path `path` ("waypoint", ...). */
static const char *form_key(const char *path, int form, char *buf, size_t len) {
  char p[PATH_LEN];
  return thr_schema_form_name(buf, len, schema_path(path, p), form);
}

/* The form of an item whose forms are its ONE_OF keys (stages, exits,
 * transitions): the one map gives, as its index among them (thr_key.forms). */
static int read_form(cfg *c, const thr_ynode *map, const char *path, int *form) {
  char name[64];
  int which = 0;
  if (pick_one(c, map, path, &which)) return -1;
  for (*form = 0; *form_key(path, *form, name, sizeof name); ++*form)
    if (!strcmp(name, map->keys[which]->text)) return 0;
  return fail(c, map, path, "internal error: '%s' names no form", map->keys[which]->text);
}

/* The forms that take row k, "a, b". */
static const char *forms_taking(const thr_key *k, const char *path, char *buf, size_t len) {
  char word[32];
  buf[0] = '\0';
  for (int F = 0; *form_key(path, F, word, sizeof word); ++F) {
    if (!thr_key_takes_form(k, F)) continue;
    if (*buf) thr_str_append(buf, len, ", ");
    thr_str_append(buf, len, word);
  }
  return buf;
}

/* Keys that only other forms take (semi_axes on a grid block, service on
 * a waypoint) are mistakes, not extras. */
static int check_form_keys(cfg *c, const thr_ynode *map, const char *path, int form) {
  char p[PATH_LEN], name[32], takes[256];
  for (int k = 0; k < map->n; ++k) {
    const thr_key *row = row_of(path, map->keys[k]->text);
    if (thr_key_takes_form(row, form)) continue;
    form_key(path, form, name, sizeof name);
    if (thr_schema_child(schema_path(path, p), "layout")) /* agent blocks: their layouts */
      return fail(c, map->keys[k], path, "key '%s' does not apply to layout '%s' (%s blocks take %s)",
                  thr_key_name(row), name, name, thr_schema_form_keys(takes, sizeof takes, p, form));
    return fail(c, map->keys[k], path, "key '%s' goes with %s, not with %s", thr_key_name(row),
                forms_taking(row, path, takes, sizeof takes), name);
  }
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

/* Where row k's value lives: in the scenario, its parameters, or `item`
 * (the block, stage or source being read, or a variable of the row's C
 * type); NULL for a row without a field. */
static void *field_of(cfg *c, const thr_key *k, void *item) {
  char *base = k->field.at == THR_AT_SCENARIO ? (char *)c->sc
               : k->field.at == THR_AT_PARAMS ? (char *)&c->sc->prm
               : k->field.at == THR_AT_NONE   ? NULL
                                              : (char *)item;
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

/* The value of `key`, if given, into its field (of `item` for the keys of
 * list items). */
static int read_key(cfg *c, const thr_ynode *map, const char *path, const char *key, void *item) {
  return read_key_into(c, map, path, key, field_of(c, row_of(path, key), item));
}

/* Every key under `path` that read_value reads and map gives, in table order
 * (rows without a field are only checked: strings). */
static int read_fields(cfg *c, const thr_ynode *map, const char *path, void *item) {
  char p[PATH_LEN];
  schema_path(path, p);
  for (size_t i = 0; i < thr_schema_len; ++i) {
    const thr_key *k = &thr_schema[i];
    if (thr_key_is_child(k, p) && has_reader(k) && read_key(c, map, path, thr_key_name(k), item)) return -1;
  }
  return 0;
}

/* Every key the table marks required under `path` (for items that come in
 * forms: that `form` takes; -1 elsewhere) must be in map. */
static int need_keys(cfg *c, const thr_ynode *map, const char *path, int form) {
  char p[PATH_LEN];
  schema_path(path, p);
  for (size_t i = 0; i < thr_schema_len; ++i) {
    const thr_key *k = &thr_schema[i];
    if (!thr_key_is_child(k, p) || !(k->flags & THR_KEY_REQUIRED)) continue;
    if (form >= 0 && !thr_key_takes_form(k, form)) continue;
    if (!thr_ymap_get(map, thr_key_name(k))) return missing(c, map, path, thr_key_name(k), "");
  }
  return 0;
}

/* ---- defaults ------------------------------------------------------------- */

/* YAML text `text` as row k reads a file's value, into k's field of obj. */
static int read_text(const thr_key *k, const char *text, const char *origin, void *obj, char *err, size_t errlen) {
  thr_ynode n = {.kind = THR_Y_SCALAR, .origin = (char *)origin, .text = (char *)text};
  cfg c = {.err = err, .errlen = errlen};
  if (!text || k->field.at == THR_AT_NONE) return fail(&c, &n, k->path, "has no value to read into a field");
  return read_value(&c, &n, k->path, k, (char *)obj + k->field.off);
}

int thr_config_read_default(const thr_key *k, void *obj, char *err, size_t errlen) {
  return read_text(k, k->def, "the key table's default", obj, err, errlen);
}

int thr_config_read_preset_value(const thr_preset_value *pv, void *obj, char *err, size_t errlen) {
  const thr_key *k = thr_schema_find(pv->path);
  if (!k) {
    if (err && errlen) snprintf(err, errlen, "the preset table names %s, which is no key", pv->path);
    return -1;
  }
  return read_text(k, pv->value, "the preset table", obj, err, errlen);
}

/* The values of `preset` for the rows whose fields live in `at` into obj
 * (after the table's defaults, before the scenario's own values). */
static void apply_preset(int preset, int at, void *obj) {
  for (size_t i = 0; i < thr_preset_values_len; ++i) {
    const thr_preset_value *pv = &thr_preset_values[i];
    const thr_key *k = pv->preset == preset ? thr_schema_find(pv->path) : NULL;
    if (k && k->field.at == at) read_text(k, pv->value, "the preset table", obj, NULL, 0);
  }
}

/* The defaults of the rows whose fields live in `at` (enum thr_at) into
 * obj: of the keys every model shares (owner NULL), or of one model's
 * sections. tests/unit/test_schema.c checks that every one of them reads. */
static void apply_defaults_of(int at, void *obj, const thr_model_desc *owner) {
  for (size_t i = 0; i < thr_schema_len; ++i)
    if (thr_schema[i].field.at == at && thr_schema[i].def && thr_model_owning(thr_schema[i].path) == owner)
      thr_config_read_default(&thr_schema[i], obj, NULL, 0);
}
static void apply_defaults(int at, void *obj) { apply_defaults_of(at, obj, NULL); }

void thr_params_defaults_of(thr_params *prm, int kind) {
  memset(prm, 0, sizeof *prm);
  apply_defaults(THR_AT_PARAMS, prm);
  prm->model_kind = kind;
  apply_defaults_of(THR_AT_PARAMS, prm, thr_model_of(kind));
}

void thr_params_defaults(thr_params *prm) { thr_params_defaults_of(prm, THR_MODEL_PBD); }

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

/* ---- named things: goals, exits, stages, journeys, ... --------------------- */

/* A list of named things as messages need it: thing k's name at
 * name + k * name_stride, its line (0: from an override) at
 * line + k * line_stride (line NULL: none). */
typedef struct named {
  const char *kind;    /* "stage" */
  const char *section; /* "stages": the key that defines them */
  int n;
  const char *name;
  size_t name_stride;
  const int *line;
  size_t line_stride;
} named;

/* Things in an array of structs with `name` and `line` members. */
#define NAMED(kind, section, arr, count)                                                           \
  ((named){kind, section, (count), (count) ? (arr)->name : NULL, sizeof *(arr), (count) ? &(arr)->line : NULL, \
           sizeof *(arr)})

static const char *name_of(const named *t, int k) {
  return t->name + (size_t)k * t->name_stride;
}

static int line_of(const named *t, int k) {
  return t->line ? *(const int *)((const char *)t->line + (size_t)k * t->line_stride) : 0;
}

static int find_named(const named *t, const char *name) {
  for (int k = 0; k < t->n; ++k)
    if (!strcmp(name_of(t, k), name)) return k;
  return -1;
}

/* "unknown stage 'x' (stages defined: a, b)" */
static int unknown_name(cfg *c, const thr_ynode *at, const char *path, const named *t, const char *name) {
  char known[512] = "";
  if (!t->n)
    return fail(c, at, path, "unknown %s '%s' (no %ss are defined; add them under '%s')", t->kind, name, t->kind,
                t->section);
  for (int k = 0; k < t->n; ++k) {
    if (k) thr_str_append(known, sizeof known, ", ");
    thr_str_append(known, sizeof known, name_of(t, k));
  }
  return fail(c, at, path, "unknown %s '%s' (%ss defined: %s)", t->kind, name, t->kind, known);
}

/* The index of the thing that node n (at key path `path`) names. */
static int resolve_name(cfg *c, const thr_ynode *n, const char *path, const named *t, int *index) {
  if (read_string(c, n, path, NULL, 0, 1)) return -1;
  *index = find_named(t, n->text);
  return *index < 0 ? unknown_name(c, n, path, t, n->text) : 0;
}

/* Thing k's name differs from those before it. */
static int check_unique(cfg *c, const thr_ynode *at, const char *path, const named *t, int k) {
  for (int q = 0; q < k; ++q) {
    if (strcmp(name_of(t, q), name_of(t, k))) continue;
    if (line_of(t, q) > 0)
      return fail(c, at, path, "duplicate %s name '%s' (first at line %d)", t->kind, name_of(t, k), line_of(t, q));
    return fail(c, at, path, "duplicate %s name '%s'", t->kind, name_of(t, k));
  }
  return 0;
}

/* Item k's required `name` into buf (thing k of t), unique among t's first k. */
static int read_item_name(cfg *c, const thr_ynode *item, const char *path, char *buf, size_t size, const named *t,
                          int k) {
  char p[PATH_LEN];
  const thr_ynode *v = thr_ymap_get(item, "name");
  subkey(p, path, "name");
  if (read_string(c, v, p, buf, size, row_at(p)->range == THR_RANGE_NONEMPTY)) return -1;
  return check_unique(c, v, p, t, k);
}

/* The line of a list item: its first key's (the item's own for an empty map). */
static int item_line(const thr_ynode *item) {
  return item->kind == THR_Y_MAP && item->n ? item->keys[0]->line : item->line;
}

/* A list under `key` of map (0 items when absent or null), else a message
 * naming what its items are. */
static int list_at(cfg *c, const thr_ynode *map, const char *key, const char *path, const char *items,
                   const thr_ynode **list) {
  char g[GOT_LEN];
  *list = thr_ymap_get(map, key);
  if (*list && thr_ynode_is_null(*list)) *list = NULL;
  if (*list && (*list)->kind != THR_Y_SEQ)
    return fail(c, *list, path, "expected a list of %s, got %s", items, got(*list, g));
  return 0;
}

/* An item of a list must be a map of the keys the table has there. */
static int item_map(cfg *c, const thr_ynode *item, const char *path, const char *what) {
  char g[GOT_LEN];
  if (item->kind != THR_Y_MAP) return fail(c, item, path, "expected %s, got %s", what, got(item, g));
  return check_keys(c, item, path);
}

/* ---- sections: maps of scalar keys ---------------------------------------- */

/* The map at `name` (m, may be NULL: the defaults stay), its keys and the
 * maps under it (routing.congestion), which have no reader of their own. */
static int read_map_keys(cfg *c, const thr_ynode *m, const char *name) {
  char known[512], g[GOT_LEN];
  if (!m || thr_ynode_is_null(m)) return 0; /* an empty map keeps the defaults */
  if (m->kind != THR_Y_MAP)
    return fail(c, m, name, "expected a map with keys %s, got %s", names_under(name, 0, ", ", known, sizeof known),
                got(m, g));
  if (check_keys(c, m, name) || read_fields(c, m, name, NULL)) return -1;
  for (size_t i = 0; i < thr_schema_len; ++i) {
    const thr_key *k = &thr_schema[i];
    if (thr_key_is_child(k, name) && k->type == THR_KEY_MAP &&
        read_map_keys(c, thr_ymap_get(m, thr_key_name(k)), k->path))
      return -1;
  }
  return 0;
}

static int read_section(cfg *c, const thr_ynode *root, const thr_key *section) {
  return read_map_keys(c, thr_ymap_get(root, section->path), section->path);
}

/* The optional top-level maps: time, solver, model, ..., output (their
 * scalar keys; geometry and measurement have readers for the rest). A map
 * with required keys (world) has a reader of its own, which checks them. */
static int read_sections(cfg *c, const thr_ynode *root) {
  char required[128];
  for (size_t i = 0; i < thr_schema_len; ++i) {
    const thr_key *k = &thr_schema[i];
    if (!thr_key_is_child(k, "") || k->type != THR_KEY_MAP || (k->flags & THR_KEY_REQUIRED)) continue;
    if (*thr_schema_names(required, sizeof required, k->path, THR_KEY_REQUIRED, ", ")) continue;
    const thr_model_desc *owner = thr_model_owning(k->path);
    if (owner && owner->kind != c->sc->prm.model_kind) continue; /* read_model refused it if given */
    if (read_section(c, root, k)) return -1;
  }
  return 0;
}

/* ---- the walkable area ---------------------------------------------------- */

/* Room for `count` elements of `size` bytes in the array at *arr. */
static int grow(void *arr, size_t count, size_t size) {
  void **p = arr;
  void *grown = realloc(*p, count * size);
  if (!grown) return -1;
  *p = grown;
  return 0;
}

/* The WKT of the walkable area and where it came from, for messages. */
typedef struct wkt_source {
  const thr_ynode *node; /* the value of geometry.walkable or geometry.walkable_file */
  const char *path;      /* its key path */
  const char *text;      /* the WKT */
  const char *file;      /* the file it came from; NULL: the value itself */
} wkt_source;

/* A problem at byte `at` of the WKT: after the value's place and key, the
 * character within the value, or the file's line and column. */
static int wkt_fail(cfg *c, const wkt_source *w, size_t at, const char *what) {
  int line, col;
  if (!w->file)
    return fail(c, w->node, w->path, "at character %zu of the WKT: %s", thr_text_char_index(w->text, at), what);
  thr_text_line_col(w->text, at, &line, &col);
  return fail(c, w->node, w->path, "%s:%d:%d: %s", w->file, line, col, what);
}

/* "the outer ring of polygon 2", "hole 1 of polygon 2" */
static const char *ring_name(const thr_polyset *s, int ring, char *buf, size_t len) {
  int p = 0;
  while (p + 1 < s->n_polys && s->poly_first[p + 1] <= ring) p++;
  if (ring == s->poly_first[p])
    snprintf(buf, len, "the outer ring of polygon %d", p + 1);
  else
    snprintf(buf, len, "hole %d of polygon %d", ring - s->poly_first[p], p + 1);
  return buf;
}

/* What thr_polyset_check found, at the WKT text of the ring or edge. */
static int walkable_fault(cfg *c, const wkt_source *w, const thr_wkt *wkt, const thr_shape_report *r) {
  const thr_polyset *s = &wkt->shape;
  char ring[64], other[64], what[256];
  int edge = r->fault == THR_SHAPE_SELF_MEET ? r->other_edge : r->edge;
  size_t at = edge >= 0 ? wkt->vert_at[s->ring_first[r->ring] + edge] : wkt->ring_at[r->ring];
  double x = r->at.x, y = r->at.y;
  ring_name(s, r->ring, ring, sizeof ring);
  if (r->other >= 0) ring_name(s, r->other, other, sizeof other);
  switch (r->fault) {
    case THR_SHAPE_FEW_VERTICES:
      snprintf(what, sizeof what, "%s has fewer than 3 distinct points", ring);
      break;
    case THR_SHAPE_ZERO_AREA:
      snprintf(what, sizeof what, "%s has zero area (its points lie on one line)", ring);
      break;
    case THR_SHAPE_SELF_MEET:
      snprintf(what, sizeof what, "%s intersects itself at (%g %g)", ring, x, y);
      break;
    case THR_SHAPE_HOLE_CROSSES:
      snprintf(what, sizeof what, "%s crosses its polygon's outer ring at (%g %g)", ring, x, y);
      break;
    case THR_SHAPE_HOLE_OUTSIDE:
      snprintf(what, sizeof what, "%s is not inside its polygon's outer ring: (%g %g) lies outside it", ring, x, y);
      break;
    case THR_SHAPE_HOLES_OVERLAP:
      snprintf(what, sizeof what, "%s overlaps %s at (%g %g)", ring, other, x, y);
      break;
    default:
      snprintf(what, sizeof what, "polygons of a MULTIPOLYGON must not overlap: %s meets %s at (%g %g)", ring,
               other, x, y);
  }
  return wkt_fail(c, w, at, what);
}

/* The WKT, parsed and checked, into *out (a walkable area). */
static int parse_shape(cfg *c, const wkt_source *w, thr_polyset *out) {
  thr_wkt wkt;
  thr_shape_report r;
  char msg[256];
  size_t at = 0;
  if (thr_wkt_parse(w->text, &wkt, &at, msg, sizeof msg)) return wkt_fail(c, w, at, msg);
  int rc = thr_polyset_check(&wkt.shape, &r) ? walkable_fault(c, w, &wkt, &r) : 0;
  if (!rc) {
    for (int p = 0; p < wkt.shape.n_polys; ++p) wkt.shape.poly_line[p] = w->node->line;
    *out = wkt.shape;
    memset(&wkt.shape, 0, sizeof wkt.shape);
  }
  thr_wkt_free(&wkt);
  return rc;
}

/* A file a key names (at node n, key path `path`), relative to the scenario
 * file's directory: its path into file[size]. */
static int beside_scenario(cfg *c, const thr_ynode *n, const char *path, const char *name, char *file, size_t size) {
  const char *slash = strrchr(c->sc->path, '/');
  int dir = name[0] == '/' || !slash ? 0 : (int)(slash - c->sc->path + 1);
  if (!*name) return fail(c, n, path, "must not be empty");
  if (snprintf(file, size, "%.*s%s", dir, c->sc->path, name) >= (int)size)
    return fail(c, n, path, "the path is too long (at most %zu characters)", size - 1);
  return 0;
}

/* All of `file` (named by node n, key path `path`; at most max_bytes) into
 * *text, NUL-terminated; *len bytes, which may hold NUL bytes of their own. */
static int read_whole_file(cfg *c, const thr_ynode *n, const char *path, const char *file, long long max_bytes,
                           char **text, size_t *len) {
  char why[160];
  *text = thr_input_read(file, max_bytes, len, why, sizeof why);
  return *text ? 0 : fail(c, n, path, "cannot read '%s': %s", file, why);
}

/* The file that geometry.walkable_file names, relative to the scenario
 * file's directory: its path into file[size], its text into *text. */
static int read_wkt_file(cfg *c, const wkt_source *w, char *file, size_t size, char **text) {
  size_t len;
  if (beside_scenario(c, w->node, w->path, w->text, file, size) ||
      read_whole_file(c, w->node, w->path, file, THR_INPUT_MAX_WKT, text, &len))
    return -1;
  char *buf = *text;
  if (strlen(buf) < len) {
    wkt_source in_file = {w->node, w->path, buf, file};
    return wkt_fail(c, &in_file, strlen(buf), "a NUL byte is not allowed in a WKT file");
  }
  return 0;
}

/* {walkable: WKT} or {walkable_file: FILE} of map g (key path `path`) into
 * *out; the strings are checked already (by the key table). */
static int read_walkable_of(cfg *c, const thr_ynode *g, const char *path, thr_polyset *out) {
  char p[PATH_LEN], file[1024];
  int which = 0;
  if (pick_one(c, g, path, &which)) return -1;
  const thr_ynode *v = g->items[which];
  if (v->kind != THR_Y_SCALAR) return fail(c, v, subkey(p, path, g->keys[which]->text), "expected a string");
  wkt_source w = {v, subkey(p, path, g->keys[which]->text), thr_ynode_is_null(v) ? "" : v->text, NULL};
  char *text = NULL;
  int rc = 0;
  if (!strcmp(g->keys[which]->text, "walkable_file")) {
    rc = read_wkt_file(c, &w, file, sizeof file, &text);
    w.text = text, w.file = file;
  }
  if (!rc) rc = parse_shape(c, &w, out);
  free(text);
  return rc;
}

/* geometry: {walkable: WKT} or {walkable_file: FILE} (read_sections has
 * checked the map's keys and that the values are strings). */
static int read_geometry(cfg *c, const thr_ynode *root) {
  const thr_ynode *g = thr_ymap_get(root, "geometry");
  if (!g || thr_ynode_is_null(g)) return 0;
  if (read_walkable_of(c, g, "geometry", &c->sc->walkable)) return -1;
  c->walls_line = c->sc->walkable.poly_line[0];
  return 0;
}

/* The walkable area's bounding box grown by 1 m: the world when none is given. */
static void world_around(thr_scenario *sc) {
  const thr_polyset *s = &sc->walkable;
  thr_vec2 lo = s->verts[0], hi = s->verts[0];
  for (int k = 1; k < s->n_verts; ++k) {
    lo = v2(fminf(lo.x, s->verts[k].x), fminf(lo.y, s->verts[k].y));
    hi = v2(fmaxf(hi.x, s->verts[k].x), fmaxf(hi.y, s->verts[k].y));
  }
  sc->world_min = v2(lo.x - 1.0f, lo.y - 1.0f);
  sc->world_max = v2(hi.x + 1.0f, hi.y + 1.0f);
}

/* A given world must hold the walkable area. */
static int check_walkable_in_world(cfg *c, const thr_ynode *world) {
  const thr_scenario *sc = c->sc;
  for (int k = 0; k < sc->walkable.n_verts; ++k) {
    thr_vec2 v = sc->walkable.verts[k];
    if (v.x >= sc->world_min.x && v.x <= sc->world_max.x && v.y >= sc->world_min.y && v.y <= sc->world_max.y)
      continue;
    return fail(c, world, "world",
                "the walkable area (line %d) reaches [%g, %g], outside the world [%g, %g] x [%g, %g]", c->walls_line,
                (double)v.x, (double)v.y, (double)sc->world_min.x, (double)sc->world_max.x, (double)sc->world_min.y,
                (double)sc->world_max.y);
  }
  return 0;
}

static void use_floor(cfg *c, int f);
static int item_floor(cfg *c, const thr_ynode *item, const char *path);
static float item_shift(const cfg *c);
static void shift_polygon(thr_polyset *s, int poly, float dx);

/* Where exits, stages and regions must lie: the walkable area, or else the
 * world rectangle (as a polygon set of one ring). */
static void set_area(cfg *c) {
  thr_scenario *sc = c->sc;
  if (sc->n_floors) {
    use_floor(c, 0);
    return;
  }
  if (sc->walkable.n_polys) {
    c->area = &sc->walkable, c->area_name = "the walkable area";
    return;
  }
  thr_vec2 lo = sc->world_min, hi = sc->world_max;
  c->world_verts[0] = lo, c->world_verts[1] = v2(hi.x, lo.y);
  c->world_verts[2] = hi, c->world_verts[3] = v2(lo.x, hi.y);
  c->world_poly_first[0] = c->world_ring_first[0] = 0;
  c->world_poly_first[1] = 1, c->world_ring_first[1] = 4;
  c->world_area = (thr_polyset){1, 1, 4, c->world_poly_first, c->world_ring_first, c->world_verts, NULL};
  c->area = &c->world_area, c->area_name = "the world";
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

/* world.z: floor and ceiling; given, the scenario is 3D (docs/3d.md). */
static int read_world_z(cfg *c, const thr_ynode *z) {
  char g[GOT_LEN];
  if (!z) return 0;
  if (z->kind != THR_Y_MAP) return fail(c, z, "world.z", "expected a map {min: Z0, max: Z1}, got %s", got(z, g));
  if (check_keys(c, z, "world.z") || need_keys(c, z, "world.z", -1) || read_fields(c, z, "world.z", NULL)) return -1;
  thr_params *prm = &c->sc->prm;
  if (!(prm->z_max > prm->z_min))
    return fail(c, thr_ymap_get(z, "max"), "world.z.max", "must exceed world.z.min (%g), got %g", (double)prm->z_min,
                (double)prm->z_max);
  prm->dim3 = 1;
  return 0;
}

/* world: given, or around the walkable area. */
static int read_world(cfg *c, const thr_ynode *root) {
  char g[GOT_LEN];
  const thr_ynode *w = thr_ymap_get(root, "world");
  int walkable = c->sc->walkable.n_polys > 0;
  if (w && c->sc->n_floors)
    return fail(c, thr_ymap_key(root, "world"), "world",
                "a building's world follows from its floors (docs/floors.md); leave 'world' out");
  if (!w && walkable) world_around(c->sc);
  if (!w && !walkable)
    return missing(c, root, "", "world", " (a map {min: [x, y], max: [x, y]}), or the walkable area under 'geometry'");
  if (w && w->kind != THR_Y_MAP)
    return fail(c, w, "world", "expected a map {min: [x, y], max: [x, y]}, got %s", got(w, g));
  if (w && (check_keys(c, w, "world") || need_keys(c, w, "world", -1) || read_fields(c, w, "world", NULL) ||
            check_corners(c, thr_ymap_get(w, "max"), "world.max", c->sc->world_min, c->sc->world_max, 1) ||
            (walkable && check_walkable_in_world(c, w)) || read_world_z(c, thr_ymap_get(w, "z"))))
    return -1;
  set_area(c);
  return 0;
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

/* The goals as named things. */
static named goals_named(const thr_scenario *sc, int n) {
  return (named){"goal", "goals", n, n ? sc->goal_names[0] : NULL, sizeof *sc->goal_names, sc->goal_line, sizeof(int)};
}

static int read_goal(cfg *c, const thr_ynode *item, int i) {
  char path[PATH_LEN], g[GOT_LEN], shapes[64];
  thr_scenario *sc = c->sc;
  subindex(path, "goals", i);
  if (item->kind != THR_Y_MAP)
    return fail(c, item, path, "expected a map {name: NAME, %s: ...}, got %s",
                names_under(path, THR_KEY_ONE_OF, "|", shapes, sizeof shapes), got(item, g));
  named goals = goals_named(sc, i + 1);
  if (check_keys(c, item, path) || need_keys(c, item, path, -1) ||
      read_item_name(c, item, path, sc->goal_names[i], sizeof sc->goal_names[i], &goals, i))
    return -1;
  sc->goal_line[i] = item_line(item);
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
    char q[PATH_LEN];
    if (item_floor(c, list->items[i], subindex(q, "goals", i)) || read_goal(c, list->items[i], i)) return -1;
    sc->n_goals = i + 1;
    thr_goal *gl = &sc->goals[i];
    gl->ax += item_shift(c);
    if (gl->kind == THR_GOAL_RECT) gl->bx += item_shift(c);
  }
  use_floor(c, 0);
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

/* A list of points as many as the row of `path` allows, into *out (a new
 * array the caller frees; *count points); no point may repeat the one
 * before it, and a closed chain must not repeat its first point. */
static int read_points(cfg *c, const thr_ynode *n, const char *path, int closed, thr_vec2 **out, int *count) {
  char g[GOT_LEN], p[PATH_LEN];
  const thr_key *k = row_at(path);
  *out = NULL, *count = 0;
  if (n->kind != THR_Y_SEQ || n->n < k->min_items || (k->max_items && n->n > k->max_items)) {
    if (k->max_items == k->min_items)
      return fail(c, n, path, "expected a list of 2 points [[x1, y1], [x2, y2]], got %s", got(n, g));
    return fail(c, n, path, "expected a list of at least %d point%s [[x, y], ...], got %s", k->min_items,
                k->min_items == 1 ? "" : "s", got(n, g));
  }
  thr_vec2 *v = malloc((size_t)n->n * sizeof *v);
  if (!v) return fail(c, n, path, "out of memory");
  int rc = 0;
  for (int i = 0; i < n->n && !rc; ++i) {
    rc = read_point(c, n->items[i], subindex(p, path, i), THR_RANGE_ANY, &v[i]);
    if (!rc && i && v[i].x == v[i - 1].x && v[i].y == v[i - 1].y)
      rc = fail(c, n->items[i], p, "repeats the previous point [%g, %g]", (double)v[i].x, (double)v[i].y);
    if (!rc && closed && i && i == n->n - 1 && v[i].x == v[0].x && v[i].y == v[0].y)
      rc = fail(c, n->items[i], p, "repeats the first point (a polygon closes by itself; leave it out)");
  }
  if (rc) return free(v), -1;
  *out = v, *count = n->n;
  return 0;
}

/* A segment, polyline or polygon obstacle's points, onto the scenario's vertices. */
static int read_chain(cfg *c, const thr_ynode *n, const char *path, int closed) {
  thr_vec2 *v;
  int count;
  if (read_points(c, n, path, closed, &v, &count)) return -1;
  int rc = 0;
  for (int i = 0; i < count && !rc; ++i) rc = push_vert(c, n->items[i], v[i]);
  free(v);
  return rc;
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
    char q[PATH_LEN];
    if (item_floor(c, list->items[o], subindex(q, "obstacles", o)) || read_obstacle(c, list->items[o], o)) return -1;
    sc->n_obstacles = o + 1;
    for (int v = sc->obs_vfirst[o]; v < sc->obs_vfirst[o + 1]; ++v) sc->verts[v].x += item_shift(c);
  }
  use_floor(c, 0);
  return 0;
}

/* ---- polygons ------------------------------------------------------------- */

/* Append the polygon v[0..n) (one ring, no holes) to s, with its source line. */
static int add_polygon(cfg *c, const thr_ynode *at, const char *path, thr_polyset *s, const thr_vec2 *v, int n,
                       int line) {
  if (grow(&s->poly_first, (size_t)s->n_polys + 2, sizeof *s->poly_first) ||
      grow(&s->ring_first, (size_t)s->n_rings + 2, sizeof *s->ring_first) ||
      grow(&s->verts, (size_t)s->n_verts + (size_t)n, sizeof *s->verts) ||
      grow(&s->poly_line, (size_t)s->n_polys + 1, sizeof *s->poly_line))
    return fail(c, at, path, "out of memory");
  if (!s->n_polys) s->poly_first[0] = s->ring_first[0] = 0;
  memcpy(s->verts + s->n_verts, v, (size_t)n * sizeof *v);
  s->n_verts += n;
  s->poly_line[s->n_polys] = line;
  s->ring_first[++s->n_rings] = s->n_verts;
  s->poly_first[++s->n_polys] = s->n_rings;
  return 0;
}

/* Polygon `poly` of s, read from list node n (its items the points), must
 * be simple: an area, and no edges meeting but neighbours at their point. */
static int check_simple(cfg *c, const thr_ynode *n, const char *path, const thr_polyset *s, int poly) {
  char p[PATH_LEN];
  thr_shape_report r;
  int fault = thr_polygon_check(s, poly, &r);
  if (!fault) return 0;
  /* the list has 3 points or more: the fault is a zero area or a self-intersection */
  if (fault != THR_SHAPE_SELF_MEET) return fail(c, n, path, "the polygon has zero area (its points lie on one line)");
  int a = r.edge, b = r.other_edge, m = n->n;
  return fail(c, n->items[b], subindex(p, path, b),
              "the polygon intersects itself: the edge from point %d to point %d meets the edge from point %d to "
              "point %d at [%g, %g]",
              a, (a + 1) % m, b, (b + 1) % m, (double)r.at.x, (double)r.at.y);
}

/* The ring v[0..n) (`what`, from node at) must lie inside the walkable area (or the world). */
static int check_within(cfg *c, const thr_ynode *at, const char *path, const char *what, const thr_vec2 *v, int n) {
  thr_vec2 out;
  if (thr_ring_within(v, n, c->area, ON_TOL, &out)) return 0;
  return fail(c, at, path, "%s leaves %s near [%g, %g]", what, c->area_name, (double)out.x, (double)out.y);
}

/* A point (a stage's) must lie inside the walkable area, clear of its boundary. */
static int check_inside(cfg *c, const thr_ynode *at, const char *path, thr_vec2 p) {
  if (thr_polyset_locate(c->area, p, ON_TOL) == THR_INSIDE) return 0;
  return fail(c, at, path, "[%g, %g] is not inside %s", (double)p.x, (double)p.y, c->area_name);
}

/* A polygon of the file (list node v), appended to s when simple and, for
 * `what` not NULL, inside the walkable area. */
static int read_polygon(cfg *c, const thr_ynode *v, const char *path, const char *what, int line, thr_polyset *s) {
  thr_vec2 *pts;
  int n;
  if (read_points(c, v, path, 1, &pts, &n)) return -1;
  int rc = add_polygon(c, v, path, s, pts, n, line) || check_simple(c, v, path, s, s->n_polys - 1) ||
           (what && check_within(c, v, path, what, pts, n));
  free(pts);
  return rc ? -1 : 0;
}

/* ---- floors, stairs, speed zones (docs/floors.md, decision 0019) ---------- */

/* Floors lie side by side inside, this far apart [m]: beyond every
 * interaction range (long range 3 m, XSPH 3.5 m), so agents on different
 * floors never meet. */
#define FLOOR_GAP 10.0
/* Floors at elevations closer than this are at one elevation [m]. */
#define SAME_ELEVATION 1e-3f

static named floors_named(const thr_scenario *sc, int n) { return NAMED("floor", "floors", sc->floors, n); }

/* Move polygon `poly` of s by dx along x. */
static void shift_polygon(thr_polyset *s, int poly, float dx) {
  if (dx == 0.0f || poly < 0 || poly >= s->n_polys) return;
  for (int v = s->ring_first[s->poly_first[poly]]; v < s->ring_first[s->poly_first[poly + 1]]; ++v) s->verts[v].x += dx;
}

/* Append every polygon of src (with its holes), moved by dx along x, to dst. */
static int append_polygons(cfg *c, const thr_ynode *at, const char *path, thr_polyset *dst, const thr_polyset *src,
                           float dx) {
  for (int p = 0; p < src->n_polys; ++p) {
    int r0 = src->poly_first[p], r1 = src->poly_first[p + 1];
    size_t nv = (size_t)(src->ring_first[r1] - src->ring_first[r0]);
    if (grow(&dst->poly_first, (size_t)dst->n_polys + 2, sizeof *dst->poly_first) ||
        grow(&dst->ring_first, (size_t)dst->n_rings + (size_t)(r1 - r0) + 1, sizeof *dst->ring_first) ||
        grow(&dst->verts, (size_t)dst->n_verts + nv, sizeof *dst->verts) ||
        grow(&dst->poly_line, (size_t)dst->n_polys + 1, sizeof *dst->poly_line))
      return fail(c, at, path, "out of memory");
    if (!dst->n_polys) dst->poly_first[0] = dst->ring_first[0] = 0;
    for (int r = r0; r < r1; ++r) {
      for (int v = src->ring_first[r]; v < src->ring_first[r + 1]; ++v)
        dst->verts[dst->n_verts++] = v2(src->verts[v].x + dx, src->verts[v].y);
      dst->ring_first[++dst->n_rings] = dst->n_verts;
    }
    dst->poly_line[dst->n_polys] = src->poly_line ? src->poly_line[p] : 0;
    dst->poly_first[++dst->n_polys] = dst->n_rings;
  }
  return 0;
}

/* Items on floor f must lie in its walkable area (as given). */
static void use_floor(cfg *c, int f) {
  if (!c->sc->n_floors) return;
  c->floor = f;
  c->area = &c->floor_area[f];
  snprintf(c->area_label, sizeof c->area_label, "the walkable area of floor '%s'", c->sc->floors[f].name);
  c->area_name = c->area_label;
}

/* The floor an item (a map at key path `path`) is on: its `floor`, or the
 * first floor. */
static int item_floor(cfg *c, const thr_ynode *item, const char *path) {
  char p[PATH_LEN];
  const thr_ynode *v = item->kind == THR_Y_MAP ? thr_ymap_get(item, "floor") : NULL;
  int f = 0;
  if (v) {
    subkey(p, path, "floor");
    if (!c->sc->n_floors) return fail(c, v, p, "there are no floors (define them under 'floors', or leave this out)");
    named fl = floors_named(c->sc, c->sc->n_floors);
    if (resolve_name(c, v, p, &fl, &f)) return -1;
  }
  use_floor(c, f);
  return 0;
}

/* How far the current item moves inside (its floor's shift). */
static float item_shift(const cfg *c) { return c->sc->n_floors ? c->sc->floors[c->floor].shift : 0.0f; }

static int read_floor(cfg *c, const thr_ynode *item, int i) {
  char path[PATH_LEN];
  thr_scenario *sc = c->sc;
  thr_floor_def *fl = &sc->floors[i];
  named floors = floors_named(sc, i + 1);
  subindex(path, "floors", i);
  fl->line = item_line(item);
  return item_map(c, item, path, "a map {name: NAME, elevation: Z, walkable: WKT}") ||
                 need_keys(c, item, path, -1) ||
                 read_item_name(c, item, path, fl->name, sizeof fl->name, &floors, i) ||
                 read_key_into(c, item, path, "elevation", &fl->elevation) ||
                 read_walkable_of(c, item, path, &c->floor_area[i])
             ? -1
             : 0;
}

/* Floors at one elevation must not overlap (in plan). */
static int check_floors_apart(cfg *c, const thr_ynode *list) {
  char path[PATH_LEN];
  thr_scenario *sc = c->sc;
  for (int j = 1; j < sc->n_floors; ++j)
    for (int i = 0; i < j; ++i) {
      if (fabsf(sc->floors[i].elevation - sc->floors[j].elevation) > SAME_ELEVATION) continue;
      thr_polyset both = {0};
      thr_shape_report r;
      subindex(path, "floors", j);
      int rc = append_polygons(c, list->items[j], path, &both, &c->floor_area[i], 0.0f) ||
               append_polygons(c, list->items[j], path, &both, &c->floor_area[j], 0.0f);
      int fault = rc ? 0 : thr_polyset_check(&both, &r);
      thr_polyset_free(&both);
      if (rc) return -1;
      if (fault == THR_SHAPE_POLYS_OVERLAP)
        return fail(c, list->items[j], path,
                    "floor '%s' overlaps floor '%s' (line %d) near [%g, %g], at the same elevation %g m: join them "
                    "into one floor, or give them different elevations",
                    sc->floors[j].name, sc->floors[i].name, sc->floors[i].line, (double)r.at.x, (double)r.at.y,
                    (double)sc->floors[i].elevation);
    }
  return 0;
}

/* Each floor's place inside: side by side along x, FLOOR_GAP apart, shifts
 * whole multiples of routing.cell (so that the distance-field cells of one
 * floor map onto another's, core/routes.c). The walkable area is all of
 * them, moved. */
static int lay_out_floors(cfg *c, const thr_ynode *list) {
  thr_scenario *sc = c->sc;
  double xmin = INFINITY, xmax = -INFINITY;
  for (int f = 0; f < sc->n_floors; ++f)
    for (int v = 0; v < c->floor_area[f].n_verts; ++v) {
      xmin = fmin(xmin, c->floor_area[f].verts[v].x);
      xmax = fmax(xmax, c->floor_area[f].verts[v].x);
    }
  double cell = sc->route_cell > 0.0f ? sc->route_cell : 0.2;
  double pitch = ceil((xmax - xmin + FLOOR_GAP) / cell) * cell;
  sc->floor_x0 = (float)xmin, sc->floor_width = (float)(xmax - xmin), sc->floor_pitch = (float)pitch;
  for (int f = 0; f < sc->n_floors; ++f) {
    sc->floors[f].shift = (float)(f * pitch);
    sc->floors[f].poly_first = sc->walkable.n_polys;
    sc->floors[f].n_polys = c->floor_area[f].n_polys;
    if (append_polygons(c, list, "floors", &sc->walkable, &c->floor_area[f], sc->floors[f].shift)) return -1;
  }
  c->walls_line = sc->floors[0].line;
  return 0;
}

/* floors: instead of geometry, before the world (which surrounds them). */
static int read_floors(cfg *c, const thr_ynode *root) {
  thr_scenario *sc = c->sc;
  const thr_ynode *list;
  if (list_at(c, root, "floors", "floors", "floors ({name: NAME, elevation: Z, walkable: WKT})", &list)) return -1;
  if (!list || !list->n) return 0;
  if (thr_ymap_get(root, "geometry"))
    return fail(c, thr_ymap_key(root, "geometry"), "geometry",
                "give the walkable area under 'floors' (one per floor) or under 'geometry', not both");
  sc->floors = calloc((size_t)list->n, sizeof *sc->floors);
  c->floor_area = calloc((size_t)list->n, sizeof *c->floor_area);
  if (!sc->floors || !c->floor_area) return fail(c, list, "floors", "out of memory");
  for (int i = 0; i < list->n; ++i) {
    sc->n_floors = i + 1;
    if (read_floor(c, list->items[i], i)) return -1;
  }
  return check_floors_apart(c, list) || lay_out_floors(c, list) ? -1 : 0;
}

/* SFPE's stair constant k [m/s] (validation.md: 1.00 at 191/254 mm riser
 * over tread, 1.08 at 178/279, 1.16 at 165/305, 1.23 at 165/330), linear in
 * the slope riser/tread between those, held beyond them. */
static double sfpe_stair_k(double slope) {
  static const double s[4] = {191.0 / 254.0, 178.0 / 279.0, 165.0 / 305.0, 165.0 / 330.0};
  static const double k[4] = {1.00, 1.08, 1.16, 1.23};
  if (slope >= s[0]) return k[0];
  for (int i = 1; i < 4; ++i)
    if (slope >= s[i]) return k[i - 1] + (k[i] - k[i - 1]) * (s[i - 1] - slope) / (s[i - 1] - s[i]);
  return k[3];
}

/* A stair's speeds over the level speed (docs/floors.md): SFPE's free speed
 * along the slope, 0.856 k (k - 0.266 k D at D = 0.54 /m^2, where SFPE's
 * speeds start to fall), its horizontal part, over the level free speed of
 * Weidmann's relation (1.34 m/s); going up 0.85 of that (Fruin's free
 * speeds, up 0.5-0.7 and down 0.6-0.8 m/s: 0.6 / 0.7). A ramp: 1. */
static void stair_factors(thr_stair_def *st) {
  if (st->kind == THR_STAIR_RAMP) {
    if (!(st->factor_down > 0.0f)) st->factor_down = 1.0f;
    if (!(st->factor_up > 0.0f)) st->factor_up = 1.0f;
    return;
  }
  double slope = (double)st->riser / (double)st->tread;
  double down = 0.856 * sfpe_stair_k(slope) * cos(atan(slope)) / 1.34;
  if (!(st->factor_down > 0.0f)) st->factor_down = (float)down;
  if (!(st->factor_up > 0.0f)) st->factor_up = (float)(0.85 * st->factor_down);
}

/* A landing (key `key` of a stair) must be an edge of the stair's polygon
 * (the last of stair_shapes) and, for `floor` >= 0, lie on that floor's
 * boundary. */
static int check_landing(cfg *c, const thr_ynode *item, const char *path, const char *key, const thr_vec2 *ab,
                         int floor) {
  char p[PATH_LEN];
  const thr_polyset *ss = &c->sc->stair_shapes;
  int last = ss->n_polys - 1, r0 = ss->poly_first[last];
  int pf[2] = {0, 1}, rf[2] = {0, thr_ring_len(ss, r0)}, ring, edge;
  thr_polyset one = {1, 1, rf[1], pf, rf, (thr_vec2 *)thr_ring_verts(ss, r0), NULL};
  const thr_ynode *v = thr_ymap_get(item, key);
  subkey(p, path, key);
  if (thr_boundary_edge_under(&one, ab[0], ab[1], ON_TOL, &ring, &edge))
    return fail(c, v, p, "[%g, %g] to [%g, %g] is not on an edge of the stair's polygon", (double)ab[0].x,
                (double)ab[0].y, (double)ab[1].x, (double)ab[1].y);
  if (floor >= 0 && thr_boundary_edge_under(&c->floor_area[floor], ab[0], ab[1], ON_TOL, &ring, &edge))
    return fail(c, v, p,
                "the landing [%g, %g] to [%g, %g] does not touch floor '%s': it must lie on the boundary of that "
                "floor's walkable area (line %d), where the stair opens into it",
                (double)ab[0].x, (double)ab[0].y, (double)ab[1].x, (double)ab[1].y, c->sc->floors[floor].name,
                c->sc->floors[floor].line);
  return 0;
}

static int read_landing(cfg *c, const thr_ynode *item, const char *path, const char *key, thr_vec2 ab[2]) {
  char p[PATH_LEN];
  thr_vec2 *v;
  int n;
  if (read_points(c, thr_ymap_get(item, key), subkey(p, path, key), 0, &v, &n)) return -1;
  ab[0] = v[0], ab[1] = v[1];
  free(v);
  return 0;
}

static int read_stair(cfg *c, const thr_ynode *item, int i) {
  char path[PATH_LEN], p[PATH_LEN];
  thr_scenario *sc = c->sc;
  thr_stair_def *st = &sc->stairs[i];
  named stairs = NAMED("stair", "stairs", sc->stairs, i + 1), floors = floors_named(sc, sc->n_floors);
  subindex(path, "stairs", i);
  st->line = item_line(item);
  st->factor_up = st->factor_down = NAN; /* derived unless given */
  if (item_map(c, item, path, "a map {name: NAME, from: FLOOR, to: FLOOR, polygon: ..., bottom: ..., top: ...}") ||
      need_keys(c, item, path, -1) || read_item_name(c, item, path, st->name, sizeof st->name, &stairs, i) ||
      resolve_name(c, thr_ymap_get(item, "from"), subkey(p, path, "from"), &floors, &st->from) ||
      resolve_name(c, thr_ymap_get(item, "to"), subkey(p, path, "to"), &floors, &st->to) ||
      thr_config_read_default(row_of(path, "riser"), &st->riser, c->err, c->errlen) ||
      thr_config_read_default(row_of(path, "tread"), &st->tread, c->err, c->errlen) ||
      read_key_into(c, item, path, "kind", &st->kind) || read_key_into(c, item, path, "riser", &st->riser) ||
      read_key_into(c, item, path, "tread", &st->tread) || read_key_into(c, item, path, "speed_up", &st->factor_up) ||
      read_key_into(c, item, path, "speed_down", &st->factor_down))
    return -1;
  const thr_floor_def *from = &sc->floors[st->from], *to = &sc->floors[st->to];
  if (!(to->elevation > from->elevation + SAME_ELEVATION))
    return fail(c, thr_ymap_get(item, "to"), subkey(p, path, "to"),
                "floor '%s' (elevation %g m) is not above floor '%s' (%g m); a stair goes up from `from` to `to`",
                to->name, (double)to->elevation, from->name, (double)from->elevation);
  use_floor(c, st->from);
  st->shape = sc->stair_shapes.n_polys;
  if (read_polygon(c, thr_ymap_get(item, "polygon"), subkey(p, path, "polygon"), "the stair", st->line,
                   &sc->stair_shapes) ||
      read_landing(c, item, path, "bottom", st->bottom) || read_landing(c, item, path, "top", st->top) ||
      check_landing(c, item, path, "bottom", st->bottom, -1) || check_landing(c, item, path, "top", st->top, st->from) ||
      check_landing(c, item, path, "top", st->top, st->to))
    return -1;
  shift_polygon(&sc->stair_shapes, st->shape, from->shift);
  stair_factors(st);
  return 0;
}

static int read_zone(cfg *c, const thr_ynode *item, int i) {
  char path[PATH_LEN], p[PATH_LEN];
  thr_scenario *sc = c->sc;
  thr_zone_def *z = &sc->zones[i];
  named zones = NAMED("speed zone", "speed_zones", sc->zones, i + 1);
  subindex(path, "speed_zones", i);
  z->line = item_line(item);
  if (item_map(c, item, path, "a map {name: NAME, polygon: [[x, y], ...], factor: F}") ||
      need_keys(c, item, path, -1) || item_floor(c, item, path) ||
      read_item_name(c, item, path, z->name, sizeof z->name, &zones, i) ||
      read_key_into(c, item, path, "factor", &z->factor))
    return -1;
  z->floor = c->floor;
  z->shape = sc->zone_shapes.n_polys;
  if (read_polygon(c, thr_ymap_get(item, "polygon"), subkey(p, path, "polygon"), "the speed zone", z->line,
                   &sc->zone_shapes))
    return -1;
  shift_polygon(&sc->zone_shapes, z->shape, item_shift(c));
  return 0;
}

/* stairs and speed_zones, after the world (their areas are the floors'). */
static int read_stairs_and_zones(cfg *c, const thr_ynode *root) {
  thr_scenario *sc = c->sc;
  const thr_ynode *stairs, *zones;
  if (list_at(c, root, "stairs", "stairs", "stairs ({name: NAME, from: FLOOR, to: FLOOR, ...})", &stairs) ||
      list_at(c, root, "speed_zones", "speed_zones", "speed zones ({name: NAME, polygon: ..., factor: F})", &zones))
    return -1;
  if (stairs && stairs->n) {
    if (!sc->n_floors)
      return fail(c, stairs, "stairs", "stairs join floors: define the floors under 'floors' (docs/floors.md)");
    if (!(sc->stairs = calloc((size_t)stairs->n, sizeof *sc->stairs))) return fail(c, stairs, "stairs", "out of memory");
    for (int i = 0; i < stairs->n; ++i) {
      sc->n_stairs = i + 1;
      if (read_stair(c, stairs->items[i], i)) return -1;
    }
  }
  if (zones && zones->n) {
    if (!(sc->zones = calloc((size_t)zones->n, sizeof *sc->zones)))
      return fail(c, zones, "speed_zones", "out of memory");
    for (int i = 0; i < zones->n; ++i) {
      sc->n_zones = i + 1;
      if (read_zone(c, zones->items[i], i)) return -1;
    }
  }
  use_floor(c, 0);
  return 0;
}

/* ---- exits ---------------------------------------------------------------- */

/* The exits as named things (their lines are their polygons'). */
static named exits_named(const thr_scenario *sc, int n) {
  const char *first = n ? sc->exit_names[0] : NULL;
  return (named){"exit", "exits", n, first, sizeof *sc->exit_names, sc->exit_shapes.poly_line, sizeof(int)};
}

/* segment: a stretch of the boundary, within ON_TOL of one of its edges;
 * the exit is the strip `depth` deep on the walkable side. */
/* The edge of ps nearest to p (its ends), and the distance. */
static double nearest_edge(const thr_polyset *ps, thr_vec2 p, thr_vec2 *e0, thr_vec2 *e1) {
  double best = INFINITY;
  for (int r = 0; r < ps->n_rings; ++r) {
    const thr_vec2 *v = thr_ring_verts(ps, r);
    int n = thr_ring_len(ps, r);
    for (int k = 0; k < n; ++k) {
      thr_vec2 a = v[k], b = v[(k + 1) % n];
      double d = thr_point_segment_distance(p, a, b);
      if (d < best) best = d, *e0 = a, *e1 = b;
    }
  }
  return best;
}

static int read_exit_segment(cfg *c, const thr_ynode *item, const char *path, float depth, int line, float *width) {
  char p[PATH_LEN];
  const thr_ynode *v = thr_ymap_get(item, "segment"), *vdepth = thr_ymap_get(item, "depth");
  thr_vec2 *ab, strip[4];
  int n, ring, edge;
  if (read_points(c, v, subkey(p, path, "segment"), 0, &ab, &n)) return -1;
  thr_vec2 a = ab[0], b = ab[1];
  free(ab);
  *width = v2_len(v2_sub(b, a));
  if (thr_boundary_edge_under(c->area, a, b, ON_TOL, &ring, &edge)) {
    thr_vec2 e0 = a, e1 = b;
    double d = nearest_edge(c->area, v2_scale(v2_add(a, b), 0.5f), &e0, &e1);
    return fail(c, v, p, "[%g, %g] to [%g, %g] is not on the boundary of %s (both ends must lie within %g m of one of "
                "its edges); the nearest edge runs from [%g, %g] to [%g, %g], %.3g m from the segment's middle; a "
                "door inside the area is a `polygon` exit", (double)a.x, (double)a.y, (double)b.x, (double)b.y,
                c->area_name, ON_TOL, (double)e0.x, (double)e0.y, (double)e1.x, (double)e1.y, d);
  }
  thr_exit_strip(c->area, ring, edge, a, b, depth, strip);
  if (vdepth) v = vdepth, subkey(p, path, "depth"); /* a strip too deep is the depth's fault */
  if (check_within(c, v, p, "the exit's strip", strip, 4)) return -1;
  return add_polygon(c, v, p, &c->sc->exit_shapes, strip, 4, line);
}

/* The longest edge of polygon `poly`'s outer ring: an exit's default width. */
static float longest_edge(const thr_polyset *ps, int poly) {
  int r = ps->poly_first[poly], v0 = ps->ring_first[r], n = ps->ring_first[r + 1] - v0;
  float best = 0.0f;
  for (int k = 0; k < n; ++k) {
    float len = v2_len(v2_sub(ps->verts[v0 + (k + 1) % n], ps->verts[v0 + k]));
    best = len > best ? len : best;
  }
  return best;
}

static int read_exit(cfg *c, const thr_ynode *item, int i) {
  char path[PATH_LEN], p[PATH_LEN];
  thr_scenario *sc = c->sc;
  named exits = exits_named(sc, i + 1);
  int form = 0, line = item_line(item);
  float depth;
  subindex(path, "exits", i);
  if (item_map(c, item, path, "a map {name: NAME, polygon|segment: [[x, y], ...]}") || need_keys(c, item, path, -1) ||
      read_form(c, item, path, &form) || check_form_keys(c, item, path, form) ||
      read_item_name(c, item, path, sc->exit_names[i], sizeof sc->exit_names[i], &exits, i))
    return -1;
  if (!strcmp(sc->exit_names[i], "nearest"))
    return fail(c, thr_ymap_get(item, "name"), subkey(p, path, "name"),
                "'nearest' is not an exit name (agents[].exit: nearest means the closest exit)");
  if (thr_config_read_default(row_of(path, "depth"), &depth, c->err, c->errlen) ||
      read_key(c, item, path, "depth", &depth))
    return -1;
  float *width = &sc->exit_width[i];
  if (form == 1) {
    if (read_exit_segment(c, item, path, depth, line, width)) return -1;
  } else {
    if (read_polygon(c, thr_ymap_get(item, "polygon"), subkey(p, path, "polygon"), "the exit", line,
                     &sc->exit_shapes))
      return -1;
    *width = longest_edge(&sc->exit_shapes, sc->exit_shapes.n_polys - 1);
  }
  return read_key_into(c, item, path, "width", width);
}

static int read_exits(cfg *c, const thr_ynode *root) {
  thr_scenario *sc = c->sc;
  const thr_ynode *list;
  if (list_at(c, root, "exits", "exits", "exits ({name: NAME, polygon|segment: ...})", &list)) return -1;
  if (!list || !list->n) return 0;
  sc->exit_names = calloc((size_t)list->n, sizeof *sc->exit_names);
  sc->exit_width = calloc((size_t)list->n, sizeof *sc->exit_width);
  if (!sc->exit_names || !sc->exit_width) return fail(c, list, "exits", "out of memory");
  for (int i = 0; i < list->n; ++i) {
    char q[PATH_LEN];
    if (item_floor(c, list->items[i], subindex(q, "exits", i)) || read_exit(c, list->items[i], i)) return -1;
    sc->n_exits = i + 1;
    shift_polygon(&sc->exit_shapes, i, item_shift(c));
  }
  use_floor(c, 0);
  return 0;
}

/* ---- stages --------------------------------------------------------------- */

static named stages_named(const thr_scenario *sc, int n) {
  return NAMED("stage", "stages", sc->stages, n);
}

/* Queue or waiting slots, each inside the walkable area, onto the scenario's slots. */
static int read_slots(cfg *c, const thr_ynode *v, const char *path, thr_stage_def *st) {
  char p[PATH_LEN];
  thr_scenario *sc = c->sc;
  thr_vec2 *pts;
  int n, rc = 0;
  if (read_points(c, v, path, 0, &pts, &n)) return -1;
  for (int k = 0; k < n && !rc; ++k) rc = check_inside(c, v->items[k], subindex(p, path, k), pts[k]);
  if (!rc && grow(&sc->slots, (size_t)sc->n_slots + (size_t)n, sizeof *sc->slots))
    rc = fail(c, v, path, "out of memory");
  if (!rc) {
    memcpy(sc->slots + sc->n_slots, pts, (size_t)n * sizeof *pts);
    st->slot_first = sc->n_slots, st->n_slots = n;
    sc->n_slots += n;
  }
  free(pts);
  return rc;
}

/* A waiting stage releases its agents at `until` or `duration` after each arrives. */
static int read_release(cfg *c, const thr_ynode *item, const char *path, thr_stage_def *st) {
  int until = thr_ymap_get(item, "until") != NULL, duration = thr_ymap_get(item, "duration") != NULL;
  if (until && duration)
    return fail(c, thr_ymap_key(item, "duration"), path, "give until or duration, not both");
  if (!until && !duration) return fail(c, item, path, "a waiting stage needs until or duration");
  if (!until) st->until = -1.0f; /* evacuation.h: < 0 means use duration */
  return 0;
}

static int read_stage_kind(cfg *c, const thr_ynode *item, const char *path, thr_stage_def *st) {
  char p[PATH_LEN];
  named exits = exits_named(c->sc, c->sc->n_exits);
  switch (st->kind) {
    case THR_STAGE_WAYPOINT:
      return check_inside(c, thr_ymap_get(item, "waypoint"), subkey(p, path, "waypoint"), st->point);
    case THR_STAGE_EXIT:
      return resolve_name(c, thr_ymap_get(item, "exit"), subkey(p, path, "exit"), &exits, &st->exit);
    case THR_STAGE_QUEUE:
      return read_slots(c, thr_ymap_get(item, "queue"), subkey(p, path, "queue"), st);
    default:
      return read_slots(c, thr_ymap_get(item, "waiting"), subkey(p, path, "waiting"), st) ||
                     read_release(c, item, path, st)
                 ? -1
                 : 0;
  }
}

static int read_stage(cfg *c, const thr_ynode *item, int i) {
  char path[PATH_LEN];
  thr_scenario *sc = c->sc;
  thr_stage_def *st = &sc->stages[i];
  named stages = stages_named(sc, i + 1);
  subindex(path, "stages", i);
  apply_defaults(THR_AT_STAGE, st);
  st->line = item_line(item);
  if (item_map(c, item, path, "a map {name: NAME, waypoint|exit|queue|waiting: ...}") ||
      read_form(c, item, path, &st->kind) || check_form_keys(c, item, path, st->kind) ||
      need_keys(c, item, path, st->kind) || read_item_name(c, item, path, st->name, sizeof st->name, &stages, i) ||
      read_fields(c, item, path, st))
    return -1;
  return read_stage_kind(c, item, path, st);
}

static int read_stages(cfg *c, const thr_ynode *root) {
  thr_scenario *sc = c->sc;
  const thr_ynode *list;
  if (list_at(c, root, "stages", "stages", "stages ({name: NAME, waypoint|exit|queue|waiting: ...})", &list))
    return -1;
  if (!list || !list->n) return 0;
  sc->stages = calloc((size_t)list->n, sizeof *sc->stages);
  if (!sc->stages) return fail(c, list, "stages", "out of memory");
  for (int i = 0; i < list->n; ++i) {
    char q[PATH_LEN];
    if (item_floor(c, list->items[i], subindex(q, "stages", i)) || read_stage(c, list->items[i], i)) return -1;
    sc->n_stages = i + 1;
    thr_stage_def *st = &sc->stages[i];
    st->point.x += item_shift(c);
    for (int k = st->slot_first; k < st->slot_first + st->n_slots; ++k) sc->slots[k].x += item_shift(c);
  }
  use_floor(c, 0);
  return 0;
}

/* ---- journeys ------------------------------------------------------------- */

/* What reading one journey keeps track of. */
typedef struct journey_state {
  int j;                  /* the journey's index */
  char *member;           /* [n_stages] 1: a stage of the journey (listed, or a transition's candidate) */
  const thr_ynode **from; /* [n_stages] the transition that leaves the stage (its map), or NULL */
  int *from_item;         /* [n_stages] the index of that transition in the journey's list */
} journey_state;

/* A list of names (row `path`: at least min_items) of stages, each known
 * and none twice, into a new array *ids (the caller frees it). */
static int read_stage_names(cfg *c, const thr_ynode *n, const char *path, int **ids, int *count) {
  char g[GOT_LEN], p[PATH_LEN];
  named stages = stages_named(c->sc, c->sc->n_stages);
  int min = row_at(path)->min_items;
  *ids = NULL, *count = 0;
  if (n->kind != THR_Y_SEQ || n->n < min)
    return fail(c, n, path, "expected a list of at least %d stage name%s, got %s", min, min == 1 ? "" : "s", got(n, g));
  int *v = malloc((size_t)n->n * sizeof *v), rc = v ? 0 : fail(c, n, path, "out of memory");
  for (int k = 0; k < n->n && !rc; ++k) {
    rc = resolve_name(c, n->items[k], subindex(p, path, k), &stages, &v[k]);
    for (int q = 0; q < k && !rc; ++q)
      if (v[q] == v[k]) rc = fail(c, n->items[k], p, "stage '%s' is already in the list", n->items[k]->text);
  }
  if (rc) return free(v), -1;
  *ids = v, *count = n->n;
  return 0;
}

/* Candidate `stage` with `weight` onto the transitions' items. */
static int push_candidate(cfg *c, const thr_ynode *at, const char *path, int stage, float weight) {
  thr_scenario *sc = c->sc;
  if (sc->n_trans_items == c->trans_cap) {
    int cap = c->trans_cap ? 2 * c->trans_cap : 16;
    if (grow(&sc->trans_items, (size_t)cap, sizeof *sc->trans_items) ||
        grow(&sc->trans_weights, (size_t)cap, sizeof *sc->trans_weights))
      return fail(c, at, path, "out of memory");
    c->trans_cap = cap;
  }
  sc->trans_items[sc->n_trans_items] = stage;
  sc->trans_weights[sc->n_trans_items++] = weight;
  return 0;
}

/* round_robin: {STAGE: WEIGHT, ...}, weights whole numbers > 0. */
static int read_round_robin(cfg *c, const thr_ynode *n, const char *path, journey_state *js) {
  char g[GOT_LEN], p[PATH_LEN];
  named stages = stages_named(c->sc, c->sc->n_stages);
  if (n->kind != THR_Y_MAP || !n->n)
    return fail(c, n, path, "expected a map {STAGE: WEIGHT, ...} of at least one stage, got %s", got(n, g));
  for (int k = 0; k < n->n; ++k) {
    int stage, weight;
    if (resolve_name(c, n->keys[k], path, &stages, &stage) ||
        read_int(c, n->items[k], subkey(p, path, n->keys[k]->text), 1, &weight) ||
        push_candidate(c, n->items[k], p, stage, (float)weight))
      return -1;
    js->member[stage] = 1;
  }
  return 0;
}

/* The candidates of a transition of kind `kind` (its ONE_OF key, value v). */
static int read_candidates(cfg *c, const thr_ynode *v, const char *path, int kind, journey_state *js) {
  named stages = stages_named(c->sc, c->sc->n_stages);
  int stage, *ids, n, rc = 0;
  if (kind == THR_TRANSITION_ROUND_ROBIN) return read_round_robin(c, v, path, js);
  if (kind == THR_TRANSITION_FIXED) {
    if (resolve_name(c, v, path, &stages, &stage) || push_candidate(c, v, path, stage, 1.0f)) return -1;
    js->member[stage] = 1;
    return 0;
  }
  if (read_stage_names(c, v, path, &ids, &n)) return -1;
  for (int k = 0; k < n && !rc; ++k) {
    rc = push_candidate(c, v, path, ids[k], 1.0f);
    js->member[ids[k]] = 1;
  }
  free(ids);
  return rc;
}

/* {from: STAGE, to|round_robin|least_targeted: ...}: replaces the default
 * transition after `from`. */
static int read_transition(cfg *c, const thr_ynode *item, const char *path, int k, journey_state *js) {
  char p[PATH_LEN];
  thr_scenario *sc = c->sc;
  named stages = stages_named(sc, sc->n_stages);
  int kind = 0, from = 0;
  const thr_ynode *vfrom = thr_ymap_get(item, "from");
  if (item_map(c, item, path, "a map {from: STAGE, to|round_robin|least_targeted: ...}") ||
      need_keys(c, item, path, -1) || read_form(c, item, path, &kind) ||
      resolve_name(c, vfrom, subkey(p, path, "from"), &stages, &from))
    return -1;
  if (sc->stages[from].kind == THR_STAGE_EXIT)
    return fail(c, vfrom, p, "stage '%s' is an exit: agents leave there, and no transition follows", vfrom->text);
  if (js->from[from])
    return fail(c, vfrom, p, "a second transition from '%s' (the first at line %d)", vfrom->text,
                item_line(js->from[from]));
  js->from[from] = item, js->from_item[from] = k;
  thr_transition *tr = &sc->transitions[js->j * sc->n_stages + from];
  tr->kind = kind, tr->first = sc->n_trans_items;
  char key[32];
  form_key(path, kind, key, sizeof key);
  if (read_candidates(c, thr_ymap_get(item, key), subkey(p, path, key), kind, js)) return -1;
  tr->n = sc->n_trans_items - tr->first;
  return 0;
}

/* Each listed stage without a transition of its own leads to the next one
 * (the last to none); a transition's `from` must be a stage of the journey. */
static int finish_journey(cfg *c, const thr_ynode *item, const char *path, const int *ids, int n, journey_state *js) {
  char p[PATH_LEN], q[PATH_LEN];
  thr_scenario *sc = c->sc;
  for (int k = 0; k < n; ++k) {
    thr_transition *tr = &sc->transitions[js->j * sc->n_stages + ids[k]];
    if (js->from[ids[k]]) continue;
    tr->kind = THR_TRANSITION_FIXED, tr->first = sc->n_trans_items, tr->n = k + 1 < n;
    if (k + 1 < n && push_candidate(c, item, path, ids[k + 1], 1.0f)) return -1;
  }
  for (int s = 0; s < sc->n_stages; ++s) {
    if (!js->from[s] || js->member[s]) continue;
    subindex(q, subkey(p, path, "transitions"), js->from_item[s]);
    return fail(c, thr_ymap_get(js->from[s], "from"), subkey(p, q, "from"),
                "stage '%s' is not a stage of this journey (listed under stages, or a transition's target)",
                sc->stages[s].name);
  }
  return 0;
}

static int read_journey_body(cfg *c, const thr_ynode *item, const char *path, journey_state *js) {
  char p[PATH_LEN];
  thr_journey_def *jd = &c->sc->journeys[js->j];
  const thr_ynode *list;
  int *ids = NULL, n = 0;
  if (read_stage_names(c, thr_ymap_get(item, "stages"), subkey(p, path, "stages"), &ids, &n)) return -1;
  for (int k = 0; k + 1 < n; ++k) /* agents leave at an exit: nothing after it is reached */
    if (c->sc->stages[ids[k]].kind == THR_STAGE_EXIT) {
      char q[PATH_LEN];
      const thr_ynode *at = thr_ymap_get(item, "stages")->items[k];
      free(ids);
      return fail(c, at, subindex(q, p, k), "stage '%s' is an exit: agents leave there, so it can only end the list",
                  at->text);
    }
  jd->first_stage = ids[0];
  jd->first_transition = js->j * c->sc->n_stages;
  for (int k = 0; k < n; ++k) js->member[ids[k]] = 1;
  int rc = list_at(c, item, "transitions", subkey(p, path, "transitions"),
                   "transitions ({from: STAGE, to|round_robin|least_targeted: ...})", &list);
  for (int k = 0; !rc && list && k < list->n; ++k) {
    char q[PATH_LEN];
    rc = read_transition(c, list->items[k], subindex(q, p, k), k, js);
  }
  if (!rc) rc = finish_journey(c, item, path, ids, n, js);
  free(ids);
  return rc;
}

static int read_journey(cfg *c, const thr_ynode *item, int j) {
  char path[PATH_LEN];
  thr_scenario *sc = c->sc;
  thr_journey_def *jd = &sc->journeys[j];
  named journeys = NAMED("journey", "journeys", sc->journeys, j + 1);
  size_t ns = (size_t)sc->n_stages + 1;
  subindex(path, "journeys", j);
  jd->line = item_line(item);
  if (item_map(c, item, path, "a map {name: NAME, stages: [STAGE, ...]}") || need_keys(c, item, path, -1) ||
      read_item_name(c, item, path, jd->name, sizeof jd->name, &journeys, j))
    return -1;
  journey_state js = {j, calloc(ns, 1), calloc(ns, sizeof *js.from), calloc(ns, sizeof *js.from_item)};
  int rc = js.member && js.from && js.from_item ? read_journey_body(c, item, path, &js)
                                                : fail(c, item, path, "out of memory");
  free(js.member);
  free(js.from);
  free(js.from_item);
  return rc;
}

static int read_journeys(cfg *c, const thr_ynode *root) {
  thr_scenario *sc = c->sc;
  const thr_ynode *list;
  if (list_at(c, root, "journeys", "journeys", "journeys ({name: NAME, stages: [STAGE, ...]})", &list)) return -1;
  if (!list || !list->n) return 0;
  sc->journeys = calloc((size_t)list->n, sizeof *sc->journeys);
  sc->transitions = calloc((size_t)list->n * ((size_t)sc->n_stages + 1), sizeof *sc->transitions);
  if (!sc->journeys || !sc->transitions) return fail(c, list, "journeys", "out of memory");
  for (int j = 0; j < list->n; ++j) {
    if (read_journey(c, list->items[j], j)) return -1;
    sc->n_journeys = j + 1;
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

/* layout polygon: the spawn region (one of the scenario's regions) and
 * count or density (random points), or spacing (the lattice points inside
 * the region: all of them, or the first count). */
static int read_spawn_region(cfg *c, const thr_ynode *blk, const char *path, thr_block *b) {
  char p[PATH_LEN];
  const thr_ynode *spacing = thr_ymap_get(blk, "spacing");
  int count = thr_ymap_get(blk, "count") != NULL, density = thr_ymap_get(blk, "density") != NULL;
  if (spacing && density)
    return fail(c, thr_ymap_key(blk, "density"), path,
                "density does not apply with spacing (the lattice decides how many agents fit); give spacing "
                "(and count, to take the first count lattice points) or density");
  if (count && density) return fail(c, thr_ymap_key(blk, "density"), path, "give count or density, not both");
  if (!count && !density && !spacing) return fail(c, blk, path, "layout 'polygon' needs count, density or spacing");
  if (read_key(c, blk, path, "density", b)) return -1;
  if (spacing && read_spacing(c, spacing, subkey(p, path, "spacing"), b)) return -1;
  b->region = c->sc->regions.n_polys;
  return read_polygon(c, thr_ymap_get(blk, "polygon"), subkey(p, path, "polygon"), "the spawn region", b->line,
                      &c->sc->regions);
}

/* ---- layout points: a list or a CSV file ---------------------------------- */

/* Points read so far, growing. */
typedef struct point_buf {
  thr_vec2 *v;
  int n, cap;
} point_buf;

static int push_point(point_buf *pb, thr_vec2 p) {
  if (pb->n == pb->cap) {
    if (pb->cap > INT_MAX / 2) return -1;
    int cap = pb->cap ? 2 * pb->cap : 64;
    if (grow(&pb->v, (size_t)cap, sizeof *pb->v)) return -1;
    pb->cap = cap;
  }
  pb->v[pb->n++] = p;
  return 0;
}

/* A field of a points file: 1 a finite number (as a float), 0 not a number,
 * -1 a number that is not finite. */
static int csv_number(char *field, float *out) {
  double v;
  if (parse_number(field, &v) != 1) return 0;
  if (!isfinite(v) || !isfinite((float)v)) return -1;
  *out = (float)v;
  return 1;
}

/* What a line of a points file holds. */
enum { CSV_BAD = -1, CSV_BLANK, CSV_POINT, CSV_HEADER };

/* One line of a points file, its comment cut: blank, a point into *p, a
 * header (only the first line with content, when no field of it is a
 * number: "x,y"), or bad, with what is wrong in why. */
static int csv_line(char *s, int first, thr_vec2 *p, char *why, size_t len) {
  char *hash = strchr(s, '#');
  if (hash) *hash = '\0';
  s[strcspn(s, "\r")] = '\0';
  s = trim(s);
  if (!*s) return CSV_BLANK;
  int fields = 1;
  for (const char *t = s; *t; ++t) fields += *t == ',';
  char *comma = strchr(s, ',');
  if (comma) *comma = '\0';
  char *xs = trim(s), *ys = comma ? trim(comma + 1) : NULL;
  int okx = csv_number(xs, &p->x), oky = fields == 2 ? csv_number(ys, &p->y) : 0;
  if (first && okx == 0 && (fields == 1 || oky == 0)) return CSV_HEADER;
  if (fields != 2) {
    snprintf(why, len, "expected two numbers 'x, y' separated by a comma, got %d field%s", fields,
             fields == 1 ? "" : "s");
    return CSV_BAD;
  }
  const char *bad = okx != 1 ? xs : oky != 1 ? ys : NULL;
  if (!bad) return CSV_POINT;
  snprintf(why, len, "%s '%.40s' is not a %snumber", bad == xs ? "x" : "y", bad,
           (bad == xs ? okx : oky) < 0 ? "finite " : "");
  return CSV_BAD;
}

enum { POINTS_LINE_MAX = 4096 };

/* The points of a CSV file: x,y per line, an optional header line, #
 * comments. Read line by line, so that a file that is not a points file
 * is refused at its first bad line, however large. Problems name the
 * file's line. */
static int parse_points_file(cfg *c, const thr_ynode *n, const char *path, const char *file, FILE *f,
                             point_buf *pb) {
  static thr_line_reader r; /* 64 KiB: not on the stack */
  char why[160], text[POINTS_LINE_MAX + 1];
  memset(&r, 0, offsetof(thr_line_reader, buf));
  r.f = f;
  int first = 1;
  for (long line = 1;; ++line) {
    long len = thr_input_line(&r, text, POINTS_LINE_MAX);
    if (len == THR_LINE_END) break;
    if (len == THR_LINE_TOO_LONG)
      return fail(c, n, path, "%s:%ld: a line longer than %d characters: not a points file", file, line,
                  POINTS_LINE_MAX);
    if (len == THR_LINE_NUL) return fail(c, n, path, "%s:%ld: a NUL byte is not allowed in a points file", file, line);
    if (len == THR_LINE_ERROR) return fail(c, n, path, "cannot read '%s': %s", file, strerror(errno ? errno : EIO));
    thr_vec2 p = {0.0f, 0.0f};
    int rc = csv_line(text, first, &p, why, sizeof why);
    if (rc == CSV_BAD) return fail(c, n, path, "%s:%ld: %s", file, line, why);
    if (rc == CSV_POINT && push_point(pb, p))
      return fail(c, n, path, "%s:%ld: too many points (out of memory)", file, line);
    first = first && rc == CSV_BLANK;
  }
  if (!pb->n) return fail(c, n, path, "%s holds no point (a points file needs at least one line 'x, y')", file);
  return 0;
}

/* points_file: the file (relative to the scenario file's directory) read and parsed. */
static int read_points_file(cfg *c, const thr_ynode *n, const char *path, point_buf *pb) {
  char file[1024], why[160];
  if (read_string(c, n, path, NULL, 0, 0) ||
      beside_scenario(c, n, path, thr_ynode_is_null(n) ? "" : n->text, file, sizeof file))
    return -1;
  FILE *f = thr_input_open(file, THR_INPUT_MAX_POINTS, why, sizeof why);
  if (!f) return fail(c, n, path, "cannot read '%s': %s", file, why);
  int rc = parse_points_file(c, n, path, file, f, pb);
  fclose(f);
  return rc;
}

/* The block's points onto the scenario's layout_points. */
static int keep_points(cfg *c, const thr_ynode *at, const char *path, const point_buf *pb, thr_block *b) {
  thr_scenario *sc = c->sc;
  if (sc->n_layout_points > INT_MAX - pb->n ||
      grow(&sc->layout_points, (size_t)sc->n_layout_points + (size_t)pb->n, sizeof *sc->layout_points))
    return fail(c, at, path, "out of memory");
  memcpy(sc->layout_points + sc->n_layout_points, pb->v, (size_t)pb->n * sizeof *pb->v);
  b->points_first = sc->n_layout_points, b->n_points = pb->n;
  sc->n_layout_points += pb->n;
  return 0;
}

/* layout points: the points (a list, or points_file), scale and offset;
 * the points are kept as given (core/populate.c scales and offsets them).
 * A count, if given, must be the number of points. */
static int read_layout_points(cfg *c, const thr_ynode *blk, const char *path, thr_block *b) {
  char p[PATH_LEN], q[PATH_LEN];
  int which = 0;
  point_buf pb = {0};
  if (pick_one(c, blk, path, &which) || read_key(c, blk, path, "scale", b) || read_key(c, blk, path, "offset", b))
    return -1;
  const char *key = blk->keys[which]->text;
  const thr_ynode *v = blk->items[which], *count = thr_ymap_get(blk, "count");
  subkey(p, path, key);
  int rc = !strcmp(key, "points") ? read_points(c, v, p, 0, &pb.v, &pb.n) : read_points_file(c, v, p, &pb);
  if (!rc && count && b->count != pb.n)
    rc = fail(c, count, subkey(q, path, "count"),
              "count %ld does not match the %d point%s that %s gives (leave count out, or give %d)", b->count, pb.n,
              pb.n == 1 ? "" : "s", key, pb.n);
  if (!rc) rc = keep_points(c, v, p, &pb, b);
  free(pb.v);
  return rc;
}

/* Geometry and counts, by layout (check_form_keys has refused the keys the
 * layout does not take). */
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
  if (L == THR_LAYOUT_POLYGON) return read_spawn_region(c, blk, path, b);
  if (L == THR_LAYOUT_POINTS) return read_layout_points(c, blk, path, b);
  return L == THR_LAYOUT_GRID ? read_grid(c, blk, path, b) : 0;
}

/* Neither a number nor a map: "expected a number > 0 or a map {min, max}". */
static int not_number_or_map(cfg *c, const thr_ynode *n, const char *path) {
  char g[GOT_LEN], keys[64];
  return fail(c, n, path, "expected a number%s or a map {%s}, got %s", thr_range_text(row_at(path)->range),
              names_under(path, 0, ", ", keys, sizeof keys), got(n, g));
}

/* {min, max} (map n, its keys checked): both required, max not below min. */
static int read_min_max(cfg *c, const thr_ynode *n, const char *path, float *lo, float *hi) {
  char q[PATH_LEN];
  const thr_ynode *vmin = need(c, n, path, "min"), *vmax = vmin ? need(c, n, path, "max") : NULL;
  if (!vmin || !vmax || read_key_into(c, n, path, "min", lo) || read_key_into(c, n, path, "max", hi)) return -1;
  if (*hi < *lo)
    return fail(c, vmax, subkey(q, path, "max"), "must be >= %s.min (%g), got %g", path, (double)*lo, (double)*hi);
  return 0;
}

/* {mean, sd, min, max} (map n, its keys checked): a normal distribution
 * truncated to [min, max], the ranges the rows'; every key required. */
static int read_normal(cfg *c, const thr_ynode *n, const char *path, thr_dist *d) {
  static const char *const keys[] = {"mean", "sd", "min", "max"};
  char q[PATH_LEN];
  float v[4];
  for (int k = 0; k < 4; ++k)
    if (!thr_ymap_get(n, keys[k])) return missing(c, n, path, keys[k], " (the normal form {mean, sd, min, max})");
  for (int k = 0; k < 4; ++k)
    if (read_key_into(c, n, path, keys[k], &v[k])) return -1;
  if (v[3] < v[2])
    return fail(c, thr_ymap_get(n, "max"), subkey(q, path, "max"), "must be >= %s.min (%g), got %g", path,
                (double)v[2], (double)v[3]);
  if (v[0] < v[2] || v[0] > v[3])
    return fail(c, thr_ymap_get(n, "mean"), subkey(q, path, "mean"), "must lie in [min, max] = [%g, %g], got %g",
                (double)v[2], (double)v[3], (double)v[0]);
  *d = (thr_dist){THR_DIST_NORMAL, v[0], v[1], v[2], v[3]};
  return 0;
}

/* Whether map n gives the normal form (mean or sd; speed: sd, min or max). */
static int is_normal(const thr_ynode *n, const char *const *keys, int n_keys) {
  for (int k = 0; k < n_keys; ++k)
    if (thr_ymap_get(n, keys[k])) return 1;
  return 0;
}

/* A number (min = max), a map {min, max}: a uniform range of values, into
 * the rows' fields of b. */
static int read_value_range(cfg *c, const thr_ynode *n, const char *path, thr_block *b) {
  float *lo = field_of(c, row_of(path, "min"), b), *hi = field_of(c, row_of(path, "max"), b);
  if (n->kind == THR_Y_SCALAR) {
    if (read_number(c, n, path, row_at(path)->range, lo)) return -1;
    *hi = *lo;
    return 0;
  }
  if (n->kind != THR_Y_MAP) return not_number_or_map(c, n, path);
  return check_keys(c, n, path) || read_min_max(c, n, path, lo, hi) ? -1 : 0;
}

/* agent_radius: a uniform range, or {mean, sd, min, max}: radii drawn from
 * the normal, radius_min and radius_max its bounds (so that what needs only
 * the largest radius, the grid's cell, sees it). */
static int read_radius(cfg *c, const thr_ynode *n, const char *path, thr_block *b) {
  static const char *const normal[] = {"mean", "sd"};
  if (n->kind != THR_Y_MAP || !is_normal(n, normal, 2)) return read_value_range(c, n, path, b);
  if (check_keys(c, n, path) || read_normal(c, n, path, &b->radius_dist)) return -1;
  b->radius_min = b->radius_dist.lo, b->radius_max = b->radius_dist.hi;
  return 0;
}

/* premovement: a number, {min, max} uniform, or {mean, sd, min, max} normal. */
static int read_premovement(cfg *c, const thr_ynode *n, const char *path, thr_dist *d) {
  static const char *const normal[] = {"mean", "sd"};
  if (n->kind == THR_Y_SCALAR) {
    *d = (thr_dist){THR_DIST_CONST, 0, 0, 0, 0};
    if (read_number(c, n, path, row_at(path)->range, &d->a)) return -1;
    d->lo = d->hi = d->a;
    return 0;
  }
  if (n->kind != THR_Y_MAP) return not_number_or_map(c, n, path);
  if (check_keys(c, n, path)) return -1;
  if (is_normal(n, normal, 2)) return read_normal(c, n, path, d);
  *d = (thr_dist){THR_DIST_UNIFORM, 0, 0, 0, 0};
  if (read_min_max(c, n, path, &d->lo, &d->hi)) return -1;
  d->a = d->lo, d->b = d->hi;
  return 0;
}

/* {rimea: GROUP}: the RiMEA test 7 walking speeds of the group, uniform;
 * kept as U(mean - spread, mean + spread) too, which is the same range. */
static int read_rimea(cfg *c, const thr_ynode *n, const char *path, thr_block *b) {
  static const float ranges[][2] = {{0.58f, 1.61f}, {1.41f, 1.54f}, {0.68f, 1.41f}, {0.46f, 0.76f}};
  int group = 0;
  if (n->n > 1)
    return fail(c, n->keys[n->keys[0] == thr_ymap_key(n, "rimea") ? 1 : 0], path,
                "'rimea' stands alone: {rimea: GROUP} sets the whole range");
  if (read_key_into(c, n, path, "rimea", &group)) return -1;
  float lo = ranges[group][0], hi = ranges[group][1];
  b->speed_dist = (thr_dist){THR_DIST_UNIFORM, lo, hi, lo, hi};
  b->speed_mean = 0.5f * (lo + hi), b->speed_spread = 0.5f * (hi - lo);
  return 0;
}

/* {mean, sd, min, max}: speeds drawn from the normal; speed_mean its mean,
 * spread 0. */
static int read_speed_normal(cfg *c, const thr_ynode *n, const char *path, thr_block *b) {
  if (thr_ymap_get(n, "spread"))
    return fail(c, thr_ymap_key(n, "spread"), path,
                "'spread' does not go with the normal form: {mean, spread} is uniform, {mean, sd, min, max} normal");
  if (read_normal(c, n, path, &b->speed_dist)) return -1;
  b->speed_mean = b->speed_dist.a, b->speed_spread = 0.0f;
  return 0;
}

/* A number (no spread), {mean, spread}, {mean, sd, min, max} or {rimea: GROUP}. */
static int read_speed(cfg *c, const thr_ynode *n, const char *path, thr_block *b) {
  static const char *const normal[] = {"sd", "min", "max"};
  char p[PATH_LEN];
  if (n->kind == THR_Y_SCALAR) {
    b->speed_spread = 0.0f;
    return read_number(c, n, path, row_at(path)->range, &b->speed_mean);
  }
  if (n->kind != THR_Y_MAP) return not_number_or_map(c, n, path);
  if (check_keys(c, n, path)) return -1;
  if (thr_ymap_get(n, "rimea")) return read_rimea(c, n, path, b);
  if (is_normal(n, normal, 3)) return read_speed_normal(c, n, path, b);
  if (read_key(c, n, path, "mean", b)) return -1;
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
  named goals = goals_named(sc, sc->n_goals);
  for (int k = 0; k < n; ++k) {
    const thr_ynode *v = names[k];
    const char *vp = is_list ? subindex(p, path, k) : path;
    int id;
    if (resolve_name(c, v, vp, &goals, &id)) return -1;
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
  return read_key(c, n, path, "jitter", b) || read_key(c, n, path, "altitude", b) ? -1 : 0;
}

static int read_block_goal(cfg *c, const thr_ynode *n, const char *path, thr_block *b) {
  char g[GOT_LEN], forms[64];
  if (n->kind == THR_Y_MAP) return read_goal_map(c, n, path, b);
  if (n->kind == THR_Y_SEQ && n->n > 0) return add_goal_set(c, (const thr_ynode *const *)n->items, n->n, 1, path, b);
  if (n->kind == THR_Y_SCALAR && !thr_ynode_is_null(n)) return add_goal_set(c, &n, 1, 0, path, b);
  return fail(c, n, path, "expected a goal name, a list of goal names, or a map {%s: [x, y], jitter: J}, got %s",
              names_under(path, THR_KEY_ONE_OF, "|", forms, sizeof forms), got(n, g));
}

/* exit: nearest | NAME. */
static int read_block_exit(cfg *c, const thr_ynode *v, const char *path, thr_block *b) {
  named exits = exits_named(c->sc, c->sc->n_exits);
  if (read_string(c, v, path, NULL, 0, 1)) return -1;
  if (strcmp(v->text, "nearest")) {
    b->route_kind = THR_ROUTE_EXIT;
    return resolve_name(c, v, path, &exits, &b->route);
  }
  if (!c->sc->n_exits) return fail(c, v, path, "there is no exit to be nearest (add exits under 'exits')");
  b->route_kind = THR_ROUTE_NEAREST_EXIT;
  return 0;
}

/* Where the agents go: at most one of goal, exit, journey; none: the
 * nearest exit when there are exits (else they stand). */
static int read_route(cfg *c, const thr_ynode *blk, const char *path, thr_block *b) {
  static const char *const keys[] = {"goal", "exit", "journey"};
  char p[PATH_LEN];
  const thr_ynode *given = NULL, *v;
  for (int k = 0; k < 3; ++k) {
    if (!thr_ymap_get(blk, keys[k])) continue;
    if (given)
      return fail(c, thr_ymap_key(blk, keys[k]), path,
                  "'%s' and '%s' cannot be combined; give at most one of goal, exit, journey", given->text, keys[k]);
    given = thr_ymap_key(blk, keys[k]);
  }
  named journeys = NAMED("journey", "journeys", c->sc->journeys, c->sc->n_journeys);
  b->route_kind = THR_ROUTE_GOALS;
  if ((v = thr_ymap_get(blk, "exit"))) return read_block_exit(c, v, subkey(p, path, "exit"), b);
  if ((v = thr_ymap_get(blk, "journey"))) {
    b->route_kind = THR_ROUTE_JOURNEY;
    return resolve_name(c, v, subkey(p, path, "journey"), &journeys, &b->route);
  }
  if (!given && c->sc->n_exits) b->route_kind = THR_ROUTE_NEAREST_EXIT;
  return 0;
}

/* Everything except the placement: name, speeds, radii, masses, group,
 * goal or route, pre-movement time. */
static int read_block_agents(cfg *c, const thr_ynode *blk, const char *path, thr_block *b) {
  char p[PATH_LEN];
  const thr_ynode *v;
  if (read_key(c, blk, path, "name", b) || read_key(c, blk, path, "jitter", b)) return -1;
  if ((v = thr_ymap_get(blk, "speed")) && read_speed(c, v, subkey(p, path, "speed"), b)) return -1;
  if ((v = thr_ymap_get(blk, "agent_radius")) && read_radius(c, v, subkey(p, path, "agent_radius"), b)) return -1;
  if ((v = thr_ymap_get(blk, "mass")) && read_value_range(c, v, subkey(p, path, "mass"), b)) return -1;
  if ((v = thr_ymap_get(blk, "altitude")) && read_value_range(c, v, subkey(p, path, "altitude"), b)) return -1;
  if (read_key(c, blk, path, "group", b) || read_key(c, blk, path, "laps", b) || read_key(c, blk, path, "agility", b) ||
      read_route(c, blk, path, b))
    return -1;
  if ((v = thr_ymap_get(blk, "goal")) && read_block_goal(c, v, subkey(p, path, "goal"), b)) return -1;
  if ((v = thr_ymap_get(blk, "premovement")) && read_premovement(c, v, subkey(p, path, "premovement"), &b->premove))
    return -1;
  return 0;
}

/* The table's defaults, and those it can only describe: the name block<N>
 * and the group, both from the block's index. */
static void block_defaults(cfg *c, thr_block *b, int index) {
  thr_config_block_defaults(b);
  apply_preset(c->sc->preset, THR_AT_BLOCK, b);
  snprintf(b->name, sizeof b->name, "block%d", index);
  b->group = index;
  b->goal_altitude = NAN; /* the agent's own */
  b->fm_rings = b->fm_delay = -1; /* 004's reaction: the formations' own setting */
}

static int read_block(cfg *c, const thr_ynode *blk, int index, thr_block *b) {
  char path[PATH_LEN], g[GOT_LEN];
  subindex(path, "agents", index);
  if (blk->kind != THR_Y_MAP)
    return fail(c, blk, path, "expected an agent block (a map with layout, ...), got %s", got(blk, g));
  b->line = blk->n ? blk->keys[0]->line : blk->line;
  block_defaults(c, b, index);
  if (check_keys(c, blk, path) || read_layout(c, blk, path, b) || check_form_keys(c, blk, path, b->layout))
    return -1;
  return read_placement(c, blk, path, b) || read_block_agents(c, blk, path, b) ||
                 read_key(c, blk, path, "lookahead_rings", b) || read_key(c, blk, path, "restore_delay", b)
             ? -1
             : 0;
}

/* A block on a floor moves with it: its rectangle, centre, region, goal
 * point and the offset of its points (goals by name move with theirs). */
static void shift_block(cfg *c, thr_block *b, float dx) {
  if (dx == 0.0f) return;
  b->min.x += dx, b->max.x += dx, b->center.x += dx, b->points_offset.x += dx;
  if (b->goal_kind == THR_BGOAL_POINT || b->goal_kind == THR_BGOAL_ANTIPODAL) b->goal_point.x += dx;
  if (b->layout == THR_LAYOUT_POLYGON) shift_polygon(&c->sc->regions, b->region, dx);
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
    char q[PATH_LEN];
    if (item_floor(c, list->items[i], subindex(q, "agents", i)) || read_block(c, list->items[i], i, &sc->blocks[i]))
      return -1;
    sc->n_blocks = i + 1;
    shift_block(c, &sc->blocks[i], item_shift(c));
  }
  use_floor(c, 0);
  return 0;
}

/* ---- sources -------------------------------------------------------------- */

/* The properties of a source's agents: an agent block of the scenario's
 * table (source = 1: it places no agents at the start), named after the
 * source, with the block keys that describe agents (sources[].agents). */
static int read_source_block(cfg *c, const thr_ynode *item, const char *path, thr_source_def *src) {
  static const thr_ynode no_keys = {.kind = THR_Y_MAP};
  char p[PATH_LEN], g[GOT_LEN], keys[256];
  thr_scenario *sc = c->sc;
  thr_block *b = &sc->blocks[sc->n_blocks];
  const thr_ynode *v = thr_ymap_get(item, "agents");
  subkey(p, path, "agents");
  if (v && thr_ynode_is_null(v)) v = NULL;
  if (v && v->kind != THR_Y_MAP)
    return fail(c, v, p, "expected a map of agent properties ({%s}), got %s",
                names_under(p, 0, ", ", keys, sizeof keys), got(v, g));
  block_defaults(c, b, sc->n_blocks);
  memcpy(b->name, src->name, sizeof b->name);
  b->line = src->line, b->source = 1, b->layout = THR_LAYOUT_POLYGON, b->region = src->region;
  if ((v && check_keys(c, v, p)) || read_block_agents(c, v ? v : &no_keys, p, b)) return -1;
  src->block = sc->n_blocks++;
  return 0;
}

static int read_source(cfg *c, const thr_ynode *item, int i) {
  char path[PATH_LEN], p[PATH_LEN];
  thr_scenario *sc = c->sc;
  thr_source_def *src = &sc->sources[i];
  named sources = NAMED("source", "sources", sc->sources, i + 1);
  subindex(path, "sources", i);
  apply_defaults(THR_AT_SOURCE, src);
  src->stop = -1.0f; /* evacuation.h: no end */
  src->line = item_line(item);
  if (item_map(c, item, path, "a map {name: NAME, polygon: [[x, y], ...], rate: R}") ||
      need_keys(c, item, path, -1) || read_item_name(c, item, path, src->name, sizeof src->name, &sources, i) ||
      read_fields(c, item, path, src))
    return -1;
  if (thr_ymap_get(item, "stop") && src->stop < src->start)
    return fail(c, thr_ymap_get(item, "stop"), subkey(p, path, "stop"), "must not be before %s.start (%g), got %g",
                path, (double)src->start, (double)src->stop);
  src->region = sc->regions.n_polys;
  if (read_polygon(c, thr_ymap_get(item, "polygon"), subkey(p, path, "polygon"), "the source's region", src->line,
                   &sc->regions))
    return -1;
  return read_source_block(c, item, path, src);
}

/* Sources, and room for their blocks after the agent blocks (and for the
 * goal sets those may add). */
static int read_sources(cfg *c, const thr_ynode *root) {
  thr_scenario *sc = c->sc;
  const thr_ynode *list;
  if (list_at(c, root, "sources", "sources", "sources ({name: NAME, polygon: [[x, y], ...], rate: R})", &list))
    return -1;
  if (!list || !list->n) return 0;
  size_t blocks = (size_t)sc->n_blocks + (size_t)list->n;
  sc->sources = calloc((size_t)list->n, sizeof *sc->sources);
  if (!sc->sources || grow(&sc->blocks, blocks, sizeof *sc->blocks) ||
      grow(&sc->set_first, blocks + 1, sizeof *sc->set_first))
    return fail(c, list, "sources", "out of memory");
  memset(sc->blocks + sc->n_blocks, 0, (size_t)list->n * sizeof *sc->blocks);
  for (int i = 0; i < list->n; ++i) {
    char q[PATH_LEN];
    if (item_floor(c, list->items[i], subindex(q, "sources", i)) || read_source(c, list->items[i], i)) return -1;
    sc->n_sources = i + 1;
    shift_polygon(&sc->regions, sc->sources[i].region, item_shift(c)); /* its block's region too: the same polygon */
  }
  use_floor(c, 0);
  return 0;
}

/* ---- measurement ---------------------------------------------------------- */

static int read_measure_area(cfg *c, const thr_ynode *item, const char *path, int i) {
  char p[PATH_LEN];
  thr_scenario *sc = c->sc;
  named areas = {"area", "measurement.areas", i + 1, sc->area_names[0], sizeof *sc->area_names, sc->areas.poly_line,
                 sizeof *sc->areas.poly_line};
  if (item_map(c, item, path, "a map {name: NAME, polygon: [[x, y], ...]}") || need_keys(c, item, path, -1) ||
      read_item_name(c, item, path, sc->area_names[i], sizeof sc->area_names[i], &areas, i))
    return -1;
  return read_polygon(c, thr_ymap_get(item, "polygon"), subkey(p, path, "polygon"), NULL, item_line(item), &sc->areas);
}

static int read_measure_line(cfg *c, const thr_ynode *item, const char *path, int i) {
  char p[PATH_LEN];
  thr_scenario *sc = c->sc;
  thr_measure_line *ml = &sc->lines[i];
  named lines = NAMED("line", "measurement.lines", sc->lines, i + 1);
  thr_vec2 *ab;
  int n;
  ml->line = item_line(item);
  if (item_map(c, item, path, "a map {name: NAME, segment: [[x1, y1], [x2, y2]]}") || need_keys(c, item, path, -1) ||
      read_item_name(c, item, path, ml->name, sizeof ml->name, &lines, i) ||
      read_points(c, thr_ymap_get(item, "segment"), subkey(p, path, "segment"), 0, &ab, &n))
    return -1;
  ml->a = ab[0], ml->b = ab[1];
  free(ab);
  return 0;
}

/* measurement.areas and measurement.lines: lists of named shapes. */
static int read_measure_list(cfg *c, const thr_ynode *m, const char *key, const char *items) {
  char path[PATH_LEN], q[PATH_LEN];
  thr_scenario *sc = c->sc;
  const thr_ynode *list;
  int areas = !strcmp(key, "areas");
  subkey(path, "measurement", key);
  if (list_at(c, m, key, path, items, &list)) return -1;
  if (!list || !list->n) return 0;
  size_t n = (size_t)list->n;
  if (areas ? !(sc->area_names = calloc(n, sizeof *sc->area_names)) : !(sc->lines = calloc(n, sizeof *sc->lines)))
    return fail(c, list, path, "out of memory");
  for (int i = 0; i < list->n; ++i) {
    subindex(q, path, i);
    if (item_floor(c, list->items[i], q) ||
        (areas ? read_measure_area(c, list->items[i], q, i) : read_measure_line(c, list->items[i], q, i)))
      return -1;
    if (areas) {
      shift_polygon(&sc->areas, i, item_shift(c));
    } else {
      sc->n_lines = i + 1;
      sc->lines[i].a.x += item_shift(c), sc->lines[i].b.x += item_shift(c);
    }
  }
  use_floor(c, 0);
  return 0;
}

/* measurement (read_sections has checked that it is a map of known keys). */
static int read_measurement(cfg *c, const thr_ynode *root) {
  char g[GOT_LEN], keys[64];
  const thr_ynode *m = thr_ymap_get(root, "measurement"), *maps;
  if (!m || thr_ynode_is_null(m)) return 0;
  if (read_measure_list(c, m, "areas", "areas ({name: NAME, polygon: [[x, y], ...]})") ||
      read_measure_list(c, m, "lines", "lines ({name: NAME, segment: [[x1, y1], [x2, y2]]})"))
    return -1;
  if (!(maps = thr_ymap_get(m, "maps")) || thr_ynode_is_null(maps)) return 0;
  if (maps->kind != THR_Y_MAP)
    return fail(c, maps, "measurement.maps", "expected a map with keys %s, got %s",
                names_under("measurement.maps", 0, ", ", keys, sizeof keys), got(maps, g));
  return check_keys(c, maps, "measurement.maps") || read_fields(c, maps, "measurement.maps", NULL) ? -1 : 0;
}

/* ---- walls from the walkable area ----------------------------------------- */

/* Obstacle v[0..n), closed (a polygon) or open (a polyline; `closing`
 * repeats its first vertex at the end), after the others. */
static int add_obstacle(cfg *c, const thr_vec2 *v, int n, int closed, int closing, int line) {
  thr_scenario *sc = c->sc;
  thr_ynode at = {.origin = sc->path, .line = line, .col = 1};
  size_t o = (size_t)sc->n_obstacles;
  if (grow(&sc->obs_vfirst, o + 2, sizeof *sc->obs_vfirst) || grow(&sc->obs_closed, o + 1, sizeof *sc->obs_closed) ||
      grow(&sc->obs_line, o + 1, sizeof *sc->obs_line))
    return fail(c, &at, "geometry", "out of memory");
  for (int k = 0; k < n + (closing && !closed); ++k)
    if (push_vert(c, &at, v[k % n])) return -1;
  sc->obs_closed[o] = closed, sc->obs_line[o] = line;
  sc->obs_vfirst[o + 1] = sc->n_verts;
  sc->n_obstacles++;
  return 0;
}

/* Opening k of the walls (2 per stair): a stair's top landing in the place
 * of its lower floor (k even) or of its upper one (k odd). */
static void wall_opening(const thr_scenario *sc, int k, thr_vec2 ab[2]) {
  const thr_stair_def *st = &sc->stairs[k / 2];
  float dx = sc->floors[k % 2 ? st->to : st->from].shift;
  ab[0] = v2(st->top[0].x + dx, st->top[0].y);
  ab[1] = v2(st->top[1].x + dx, st->top[1].y);
}

/* Where along edge a -> b the opening lies (t0 <= t1 in [0, 1]), or 0 when
 * it does not lie on it. */
static int opening_on_edge(thr_vec2 a, thr_vec2 b, const thr_vec2 ab[2], float *t0, float *t1) {
  thr_vec2 d = v2_sub(b, a);
  float len2 = v2_len2(d);
  if (!(len2 > 0.0f)) return 0;
  float t[2];
  for (int k = 0; k < 2; ++k) {
    t[k] = v2_dot(v2_sub(ab[k], a), d) / len2;
    thr_vec2 q = v2_add(a, v2_scale(d, t[k]));
    if (t[k] < -1e-4f || t[k] > 1.0f + 1e-4f || v2_len(v2_sub(q, ab[k])) > (float)ON_TOL) return 0;
  }
  *t0 = fmaxf(fminf(t[0], t[1]), 0.0f), *t1 = fminf(fmaxf(t[0], t[1]), 1.0f);
  return 1;
}

/* The open chain pts[0..*m) becomes a wall (when it has length); *m = 0. */
static int flush_chain(cfg *c, thr_vec2 *pts, int *m) {
  int rc = *m >= 2 ? add_obstacle(c, pts, *m, 0, 0, c->walls_line) : 0;
  *m = 0;
  return rc;
}

static void chain_push(thr_vec2 *pts, int *m, thr_vec2 p) {
  if (!*m || pts[*m - 1].x != p.x || pts[*m - 1].y != p.y) pts[(*m)++] = p;
}

/* The walls of ring v[0..n) (an outer ring, or a hole) with the openings
 * of the stairs cut out: open chains from one opening to the next. */
static int add_ring_walls(cfg *c, const thr_vec2 *v, int n, int hole) {
  const thr_scenario *sc = c->sc;
  float *cut = malloc((size_t)n * 2 * sizeof *cut);
  thr_vec2 *pts = malloc(((size_t)n * 2 + 4) * sizeof *pts);
  if (!cut || !pts) {
    free(cut), free(pts);
    thr_ynode at = {.origin = sc->path, .line = c->walls_line, .col = 1};
    return fail(c, &at, "geometry", "out of memory");
  }
  int first = -1, rc = 0;
  for (int e = 0; e < n; ++e) {
    cut[2 * e] = -1.0f;
    for (int k = 0; k < 2 * sc->n_stairs && !rc; ++k) {
      thr_vec2 ab[2];
      float t0, t1;
      wall_opening(sc, k, ab);
      if (!opening_on_edge(v[e], v[(e + 1) % n], ab, &t0, &t1)) continue;
      if (cut[2 * e] >= 0.0f) {
        const thr_stair_def *st = &sc->stairs[k / 2];
        thr_ynode at = {.origin = sc->path, .line = st->line, .col = 1};
        rc = fail(c, &at, "stairs", "stair '%s': two stairs open onto one edge of a floor's boundary; give that edge "
                  "a vertex between them", st->name);
      }
      cut[2 * e] = t0, cut[2 * e + 1] = t1;
      if (first < 0) first = e;
    }
  }
  if (!rc && first < 0) rc = add_obstacle(c, v, n, hole, 1, c->walls_line);
  if (!rc && first >= 0) {
    int m = 0;
    thr_vec2 a = v[first], d = v2_sub(v[(first + 1) % n], a);
    chain_push(pts, &m, v2_add(a, v2_scale(d, cut[2 * first + 1])));
    for (int k = 1; k <= n && !rc; ++k) {
      int e = (first + k) % n;
      chain_push(pts, &m, v[e]);
      if (cut[2 * e] < 0.0f) continue;
      d = v2_sub(v[(e + 1) % n], v[e]);
      chain_push(pts, &m, v2_add(v[e], v2_scale(d, cut[2 * e])));
      rc = flush_chain(c, pts, &m);
      chain_push(pts, &m, v2_add(v[e], v2_scale(d, cut[2 * e + 1])));
    }
  }
  free(cut);
  free(pts);
  return rc;
}

/* Walls follow from the walkable area: each outer ring becomes a polyline
 * that ends where it starts (agents stay inside it), each hole a polygon
 * (agents stay outside it); in a building, with the stairs' top landings
 * left open. */
static int add_walls(cfg *c) {
  const thr_polyset *s = &c->sc->walkable;
  c->sc->n_user_obstacles = c->sc->n_obstacles;
  for (int r = 0; r < s->n_rings; ++r)
    if (add_ring_walls(c, thr_ring_verts(s, r), thr_ring_len(s, r), !thr_ring_is_outer(s, r))) return -1;
  return 0;
}

/* ---- the whole scenario --------------------------------------------------- */

/* model.kind before the sections: another model's sections are refused
 * (their keys would fill the run's model's member of the parameters' model
 * union), and this model's keys get their defaults. */
static int read_model(cfg *c, const thr_ynode *root) {
  thr_params *prm = &c->sc->prm;
  const thr_ynode *m = thr_ymap_get(root, "model");
  if (m && m->kind == THR_Y_MAP && read_key(c, m, "model", "kind", NULL)) return -1;
  const thr_model_desc *mine = thr_model_of(prm->model_kind);
  for (int k = 0; k < root->n; ++k) {
    const thr_model_desc *owner = thr_model_owning(root->keys[k]->text);
    if (owner && owner != mine)
      return fail(c, root->keys[k], root->keys[k]->text,
                  "applies to model.kind: %s only (this scenario is %s; give model: {kind: %s})", owner->key, mine->key,
                  owner->key);
  }
  apply_defaults_of(THR_AT_PARAMS, prm, mine);
  return 0;
}

/* model.preset first: its values replace the table's defaults, and the
 * scenario's own values (read after) replace those. */
static int read_preset(cfg *c, const thr_ynode *root) {
  const thr_ynode *m = thr_ymap_get(root, "model");
  if (m && m->kind == THR_Y_MAP && read_key(c, m, "model", "preset", NULL)) return -1;
  apply_preset(c->sc->preset, THR_AT_PARAMS, &c->sc->prm);
  apply_preset(c->sc->preset, THR_AT_SCENARIO, c->sc);
  return 0;
}

/* The table's defaults, and the one it can only describe: the name, from the
 * file's name. */
static void scenario_defaults(thr_scenario *sc, const char *path) {
  thr_config_scenario_defaults(sc);
  snprintf(sc->path, sizeof sc->path, "%s", path);
  default_name(path, sc->name, sizeof sc->name);
}

/* catalyst.scripts: readable files, relative to the scenario's directory
 * (catalyst.every is read with the section). */
static int read_catalyst(cfg *c, const thr_ynode *root) {
  char g[GOT_LEN], p[PATH_LEN];
  const thr_ynode *m = thr_ymap_get(root, "catalyst");
  const thr_ynode *n = m && m->kind == THR_Y_MAP ? thr_ymap_get(m, "scripts") : NULL;
  if (!n || thr_ynode_is_null(n)) return 0;
  if (n->kind != THR_Y_SEQ || n->n < 1)
    return fail(c, n, "catalyst.scripts", "expected a list of Catalyst Python scripts, got %s", got(n, g));
  if (n->n > THR_MAX_CATALYST_SCRIPTS)
    return fail(c, n, "catalyst.scripts", "at most %d scripts, got %d", THR_MAX_CATALYST_SCRIPTS, n->n);
  for (int k = 0; k < n->n; ++k) {
    const thr_ynode *v = n->items[k];
    char *file = c->sc->catalyst_scripts[k];
    subindex(p, "catalyst.scripts", k);
    if (v->kind != THR_Y_SCALAR || thr_ynode_is_null(v))
      return fail(c, v, p, "expected a file name, got %s", got(v, g));
    if (beside_scenario(c, v, p, v->text, file, sizeof c->sc->catalyst_scripts[k])) return -1;
    char why[160];
    if (thr_input_check(file, THR_INPUT_MAX_SCRIPT, why, sizeof why))
      return fail(c, v, p, "cannot read the Catalyst script '%s': %s", file, why);
    /* Catalyst runs in the output directory: the script's absolute path */
    char *abs = realpath(file, NULL);
    if (!abs || strlen(abs) >= sizeof c->sc->catalyst_scripts[k]) {
      free(abs);
      return fail(c, v, p, "the path of '%s' is too long or cannot be resolved", file);
    }
    snprintf(file, sizeof c->sc->catalyst_scripts[k], "%s", abs);
    free(abs);
  }
  c->sc->n_catalyst_scripts = n->n;
  return 0;
}

/* ---- behaviour states (ORCA; 002 section 4) ---------------------------------- */

static named bstates_named(const thr_scenario *sc, int n) {
  return (named){"state", "behaviors.states", n, n ? sc->bstate_names[0] : NULL, sizeof sc->bstate_names[0],
                 sc->bstate_line, sizeof(int)};
}

/* A state's goal: a goal's name (or a list of names: the nearest), `none`
 * or `circulate`; absent: the agent keeps its goal. */
static int read_bstate_goal(cfg *c, const thr_ynode *v, const char *path, thr_bstate *st) {
  st->goal = THR_STATE_GOAL_KEEP;
  if (!v) return 0;
  if (v->kind == THR_Y_SCALAR && !strcmp(v->text, "none")) return st->goal = THR_STATE_GOAL_STAND, 0;
  if (v->kind == THR_Y_SCALAR && !strcmp(v->text, "circulate")) return st->goal = THR_STATE_GOAL_CIRCULATE, 0;
  thr_scenario *sc = c->sc;
  thr_block tmp;
  if (grow(&sc->set_first, (size_t)sc->n_sets + 2, sizeof *sc->set_first)) return fail(c, v, path, "out of memory");
  int list = v->kind == THR_Y_SEQ;
  if (list && !v->n) return fail(c, v, path, "expected a goal's name or a list of them, got an empty list");
  if (add_goal_set(c, list ? (const thr_ynode *const *)v->items : &v, list ? v->n : 1, list, path, &tmp)) return -1;
  st->goal = tmp.goal_set;
  return 0;
}

static int read_bstate(cfg *c, const thr_ynode *item, const char *path, int i) {
  char p[PATH_LEN];
  thr_scenario *sc = c->sc;
  thr_params *prm = &sc->prm;
  thr_bstate *st = &sc->bstates[i];
  named states = bstates_named(sc, i + 1);
  sc->bstate_line[i] = item_line(item);
  st->range = prm->orca.range, st->horizon = prm->orca.horizon, st->push = prm->orca.push_mode; /* defaults: other keys */
  st->radius = 0.0f;
  st->push_gain = prm->orca.push_gain, st->share = prm->orca.share;
  if (item_map(c, item, path, "a map {name: NAME, goal: ..., speed: ..., push: ...}") || need_keys(c, item, path, -1) ||
      thr_config_read_default(row_of(path, "speed"), &st->speed, c->err, c->errlen) ||
      read_item_name(c, item, path, sc->bstate_names[i], sizeof sc->bstate_names[i], &states, i) ||
      read_key_into(c, item, path, "speed", &st->speed) || read_key_into(c, item, path, "neighbor_dist", &st->range) ||
      read_key_into(c, item, path, "time_horizon", &st->horizon) || read_key_into(c, item, path, "push", &st->push) ||
      read_key_into(c, item, path, "radius", &st->radius) || read_key_into(c, item, path, "push_gain", &st->push_gain) ||
      read_key_into(c, item, path, "responsibility", &st->share))
    return -1;
  return read_bstate_goal(c, thr_ymap_get(item, "goal"), subkey(p, path, "goal"), st);
}

static int read_btrans(cfg *c, const thr_ynode *item, const char *path, int i) {
  char p[PATH_LEN];
  thr_scenario *sc = c->sc;
  thr_params *prm = &sc->prm;
  thr_btrans *t = &sc->btrans[i];
  named states = bstates_named(sc, prm->orca.n_bstates);
  memset(t, 0, sizeof *t);
  if (item_map(c, item, path, "a map {from: STATE, to: STATE, after|arrived|region|laps|lap|chance|slow: ...}") ||
      read_form(c, item, path, &t->kind) || need_keys(c, item, path, -1) ||
      resolve_name(c, thr_ymap_get(item, "from"), subkey(p, path, "from"), &states, &t->from) ||
      resolve_name(c, thr_ymap_get(item, "to"), subkey(p, path, "to"), &states, &t->to))
    return -1;
  float secs = 0.0f;
  int flag = 0;
  switch (t->kind) {
    case THR_BT_AFTER:
      if (read_key_into(c, item, path, "after", &secs)) return -1;
      t->steps = (int)ceil((double)secs / (double)prm->dt - 1e-9);
      return 0;
    case THR_BT_ARRIVED:
    case THR_BT_LAP:
    case THR_BT_SLOW: {
      const char *key = t->kind == THR_BT_LAP ? "lap" : t->kind == THR_BT_SLOW ? "slow" : "arrived";
      if (read_key_into(c, item, path, key, &flag)) return -1;
      if (!flag) return fail(c, thr_ymap_get(item, key), subkey(p, path, key), "only `true` is meaningful here");
      return 0;
    }
    case THR_BT_REGION: {
      thr_vec2 *pts;
      int n;
      if (read_points(c, thr_ymap_get(item, "region"), subkey(p, path, "region"), 0, &pts, &n)) return -1;
      int bad = n != 2 || !(pts[0].x < pts[1].x) || !(pts[0].y < pts[1].y);
      if (!bad) t->box[0] = pts[0].x, t->box[1] = pts[0].y, t->box[2] = pts[1].x, t->box[3] = pts[1].y;
      free(pts);
      return bad ? fail(c, thr_ymap_get(item, "region"), p, "expected [[x0, y0], [x1, y1]] with x0 < x1 and y0 < y1")
                 : 0;
    }
    case THR_BT_LAPS:
      return read_key_into(c, item, path, "laps", &t->laps);
    case THR_BT_RANDOM:
    default:
      if (read_key_into(c, item, path, "chance", &secs)) return -1;
      t->chance = secs * prm->dt; /* per step */
      return 0;
  }
}

/* behaviors (its scalar keys are read with the sections), and each agent
 * block's `behavior`. */
static int read_behaviors(cfg *c, const thr_ynode *root) {
  char q[PATH_LEN];
  thr_scenario *sc = c->sc;
  thr_params *prm = &sc->prm;
  const thr_ynode *m = thr_ymap_get(root, "behaviors"), *states, *trans;
  if (!m || m->kind != THR_Y_MAP) return 0;
  if (list_at(c, m, "states", "behaviors.states", "states ({name: NAME, ...})", &states) ||
      list_at(c, m, "transitions", "behaviors.transitions", "transitions ({from: A, to: B, ...})", &trans))
    return -1;
  if (!states || !states->n) {
    if (trans && trans->n)
      return fail(c, trans, "behaviors.transitions", "there are no states to go between (behaviors.states)");
    return 0;
  }
  if (!thr_ymap_get(m, "start")) prm->orca.circ_start = v2_add(prm->orca.circ_center, v2(1.0f, 0.0f));
  if (states->n > THR_MAX_BSTATES)
    return fail(c, states, "behaviors.states", "at most %d states, got %d", THR_MAX_BSTATES, states->n);
  if (trans && trans->n > THR_MAX_BTRANS)
    return fail(c, trans, "behaviors.transitions", "at most %d transitions, got %d", THR_MAX_BTRANS, trans->n);
  for (int i = 0; i < states->n; ++i) {
    prm->orca.n_bstates = i + 1;
    if (read_bstate(c, states->items[i], subindex(q, "behaviors.states", i), i)) return -1;
  }
  for (int i = 0; trans && i < trans->n; ++i) {
    prm->orca.n_btrans = i + 1;
    if (read_btrans(c, trans->items[i], subindex(q, "behaviors.transitions", i), i)) return -1;
  }
  return 0;
}

/* agents[].behavior: the state each block's agents start in. */
static int read_block_behaviors(cfg *c, const thr_ynode *root) {
  char p[PATH_LEN], b[PATH_LEN];
  thr_scenario *sc = c->sc;
  const thr_ynode *list = thr_ymap_get(root, "agents");
  named states = bstates_named(sc, sc->prm.orca.n_bstates);
  for (int i = 0; list && list->kind == THR_Y_SEQ && i < list->n && i < sc->n_blocks; ++i) {
    const thr_ynode *v = thr_ymap_get(list->items[i], "behavior");
    if (!v) {
      if (sc->blocks[i].laps && !sc->prm.orca.n_bstates)
        return fail(c, thr_ymap_get(list->items[i], "laps"), subkey(p, subindex(b, "agents", i), "laps"),
                    "there are no behaviour states to count laps for (behaviors.states)");
      continue;
    }
    subkey(p, subindex(b, "agents", i), "behavior");
    if (!sc->prm.orca.n_bstates)
      return fail(c, v, p, "there are no behaviour states (define them under behaviors.states)");
    if (resolve_name(c, v, p, &states, &sc->blocks[i].bstate)) return -1;
  }
  return 0;
}

/* ---- formations ------------------------------------------------------------- */

static int read_formation(cfg *c, const thr_ynode *item, const char *path, int i) {
  char p[PATH_LEN];
  thr_scenario *sc = c->sc;
  thr_formation_def *d = &sc->formations[i];
  apply_defaults(THR_AT_FORMATION, d);
  d->line = item_line(item);
  if (item_map(c, item, path, "a map {group: G, path: [[x, y], ...]}") || need_keys(c, item, path, -1) ||
      read_fields(c, item, path, d) ||
      read_points(c, thr_ymap_get(item, "path"), subkey(p, path, "path"), 0, &d->path, &d->n_path))
    return -1;
  for (int k = 0; k < i; ++k)
    if (sc->formations[k].group == d->group)
      return fail(c, thr_ymap_get(item, "group"), subkey(p, path, "group"),
                  "group %d already has a formation (formations.groups[%d], line %d)", d->group, k,
                  sc->formations[k].line);
  int members = 0;
  for (int b = 0; b < sc->n_blocks; ++b) {
    const thr_block *bk = &sc->blocks[b];
    if (bk->group != d->group) continue;
    members += !bk->source;
    const char *what = bk->source ? "appears from a source" : bk->route_kind != THR_ROUTE_GOALS ? "has an exit or journey"
                       : bk->goal_kind != THR_BGOAL_NONE ? "has a goal" : NULL;
    if (what)
      return fail(c, thr_ymap_get(item, "group"), subkey(p, path, "group"),
                  "agent block '%s' (line %d) of group %d %s; a formation's agents follow its path (give the block "
                  "another group or drop that key)", bk->name, bk->line, d->group, what);
  }
  if (!members)
    return fail(c, thr_ymap_get(item, "group"), subkey(p, path, "group"),
                "no agent block has group %d (agents[].group); a formation needs its agents", d->group);
  return 0;
}

/* formations (its scalar keys are read with the sections). */
static int read_formations(cfg *c, const thr_ynode *root) {
  char q[PATH_LEN];
  const thr_ynode *m = thr_ymap_get(root, "formations"), *list;
  if (!m || m->kind != THR_Y_MAP) return 0;
  if (list_at(c, m, "groups", "formations.groups", "formations ({group: G, path: [[x, y], ...]})", &list)) return -1;
  if (!list || !list->n) return 0;
  if (c->sc->n_floors)
    return fail(c, list, "formations.groups", "formations walk one plane: a building (floors) cannot have them yet "
                "(docs/floors.md)");
  if (!(c->sc->formations = calloc((size_t)list->n, sizeof *c->sc->formations)))
    return fail(c, list, "formations.groups", "out of memory");
  for (int i = 0; i < list->n; ++i) {
    c->sc->n_formations = i + 1;
    if (read_formation(c, list->items[i], subindex(q, "formations.groups", i), i)) return -1;
  }
  c->sc->prm.formation_on = 1;
  return 0;
}

/* agents[].agility acts on the long-range pass of formations' runs (the
 * field is stored with the formation fields): elsewhere it is refused. */
static int check_agility(cfg *c, const thr_ynode *root) {
  if (c->sc->prm.formation_on) return 0;
  const char *lists[2] = {"agents", "sources"};
  for (int l = 0; l < 2; ++l) {
    const thr_ynode *list = thr_ymap_get(root, lists[l]);
    for (int i = 0; list && list->kind == THR_Y_SEQ && i < list->n; ++i) {
      const thr_ynode *item = list->items[i];
      if (l == 1) item = item->kind == THR_Y_MAP ? thr_ymap_get(item, "agents") : NULL;
      const thr_ynode *v = item && item->kind == THR_Y_MAP ? thr_ymap_get(item, "agility") : NULL;
      if (!v) continue;
      char p[PATH_LEN];
      snprintf(p, sizeof p, l ? "sources[%d].agents.agility" : "agents[%d].agility", i);
      if (!(v->kind == THR_Y_SCALAR && strtod(v->text, NULL) == 1.0))
        return fail(c, v, p, "agility scales the avoidance of formation agents (004); this scenario has no "
                    "formations.groups, so it would do nothing: remove it or add formations");
    }
  }
  return 0;
}

/* agents[].lookahead_rings and restore_delay (004's reaction) override the
 * formations' settings for agents of a formation: elsewhere they would do
 * nothing, so they are refused. */
static int check_reaction(cfg *c, const thr_ynode *root) {
  static const char *keys[2] = {"lookahead_rings", "restore_delay"};
  const thr_scenario *sc = c->sc;
  const thr_ynode *list = thr_ymap_get(root, "agents");
  for (int i = 0; list && list->kind == THR_Y_SEQ && i < list->n && i < sc->n_blocks; ++i) {
    int in_formation = 0;
    for (int k = 0; k < sc->n_formations; ++k) in_formation |= sc->formations[k].group == sc->blocks[i].group;
    for (int k = 0; k < 2 && !in_formation; ++k) {
      const thr_ynode *v = list->items[i]->kind == THR_Y_MAP ? thr_ymap_get(list->items[i], keys[k]) : NULL;
      char p[PATH_LEN];
      snprintf(p, sizeof p, "agents[%d].%s", i, keys[k]);
      if (v)
        return fail(c, v, p, "%s overrides formations.%s for agents of a formation (004's reaction); group %d has "
                    "no formation (formations.groups), so it would do nothing: remove it or add one", keys[k],
                    keys[k], sc->blocks[i].group);
    }
  }
  return 0;
}

/* The key node of root.a.b (or of root.a, or root, whichever exists
 * last), for a message about a key that combines badly with others. */
static const thr_ynode *key_at(const thr_ynode *root, const char *a, const char *b) {
  const thr_ynode *m = thr_ymap_get(root, a);
  if (!m) return root;
  if (b && m->kind == THR_Y_MAP && thr_ymap_get(m, b)) return thr_ymap_key(m, b);
  return thr_ymap_key(root, a);
}

/* What a 3D scenario (world.z) can and cannot have, and the 3D keys a 2D
 * one cannot (docs/3d.md). */
static int check_3d(cfg *c, const thr_ynode *root) {
  const thr_scenario *sc = c->sc;
  const thr_params *prm = &sc->prm;
  const thr_ynode *agents = thr_ymap_get(root, "agents");
  char p[PATH_LEN];
  if (!prm->dim3) {
    if (prm->av_plane != THR_PLANE_TANGENT)
      return fail(c, key_at(root, "avoidance", "plane"), "avoidance.plane",
                  "applies to 3D scenarios only (give world.z: {min, max}); a 2D scenario keeps 'tangent'");
    for (int i = 0; i < sc->n_blocks; ++i) {
      const thr_block *b = &sc->blocks[i];
      const thr_ynode *blk = agents && agents->kind == THR_Y_SEQ && i < agents->n ? agents->items[i] : root;
      if (b->altitude_min != 0.0f || b->altitude_max != 0.0f || b->goal_altitude == b->goal_altitude)
        return fail(c, blk, subindex(p, "agents", i),
                    "altitude and goal.altitude apply to 3D scenarios only (give world.z: {min, max})");
    }
    return 0;
  }
  static const char *const flat[] = {"formations", "exits", "stages", "journeys", "sources", "measurement",
                                     "headway", "geometry", "floors", "stairs", "speed_zones"};
  for (size_t k = 0; k < sizeof flat / sizeof flat[0]; ++k)
    if (thr_ymap_get(root, flat[k]) && (strcmp(flat[k], "headway") || prm->headway_on))
      return fail(c, key_at(root, flat[k], NULL), flat[k],
                  "a 3D scenario (world.z) cannot have %s yet (docs/3d.md lists what 3D supports)",
                  !strcmp(flat[k], "headway") ? "the speed-density law" : flat[k]);
  if (prm->headway_on)
    return fail(c, key_at(root, "model", "preset"), "model.preset",
                "the preset turns on the speed-density law (headway), which 3D scenarios do not have yet; give "
                "headway: {enabled: false}");
  float rmax = thr_scenario_max_radius(sc) * prm->radius_scale;
  if (!(prm->z_max - prm->z_min > 2.0f * rmax))
    return fail(c, key_at(root, "world", "z"), "world.z",
                "floor and ceiling are %g m apart, no more than an agent's diameter (%g m)",
                (double)(prm->z_max - prm->z_min), (double)(2.0f * rmax));
  if (prm->avoidance_on && prm->av_plane == THR_PLANE_AUTO && prm->av_auto_radius > prm->av_radius)
    return fail(c, key_at(root, "avoidance", "auto_radius"), "avoidance.auto_radius",
                "must not exceed avoidance.radius (%g), got %g", (double)prm->av_radius, (double)prm->av_auto_radius);
  for (int i = 0; i < sc->n_blocks; ++i) {
    const thr_block *b = &sc->blocks[i];
    const thr_ynode *blk = agents && agents->kind == THR_Y_SEQ && i < agents->n ? agents->items[i] : root;
    if (b->altitude_min < prm->z_min || b->altitude_max > prm->z_max)
      return fail(c, blk, subindex(p, "agents", i), "altitude [%g, %g] lies outside world.z [%g, %g]",
                  (double)b->altitude_min, (double)b->altitude_max, (double)prm->z_min, (double)prm->z_max);
    if (b->goal_altitude == b->goal_altitude && (b->goal_altitude < prm->z_min || b->goal_altitude > prm->z_max))
      return fail(c, blk, subindex(p, "agents", i), "goal.altitude %g lies outside world.z [%g, %g]",
                  (double)b->goal_altitude, (double)prm->z_min, (double)prm->z_max);
  }
  return 0;
}

/* What the ORCA and power-law models cannot have (the PBD model's sections,
 * stages, journeys, formations, 3D), and the PBD passes they switch off
 * (their PLAN pass gives x*). */
static int set_velocity_model(cfg *c, const thr_ynode *root, const thr_model_desc *m) {
  const char *kind = m->key;
  thr_params *prm = &c->sc->prm;
  static const char *const pbd[] = {"solver", "contact", "long_range", "avoidance", "xsph", "headway", "walls",
                                    "stages", "journeys", "formations"};
  for (size_t k = 0; k < sizeof pbd / sizeof pbd[0]; ++k)
    if (thr_ymap_get(root, pbd[k]))
      return fail(c, key_at(root, pbd[k], NULL), pbd[k], "model.kind %s %s%s (docs/%s.md lists what it supports)",
                  kind, k < 7 ? "has no such section: it belongs to the PBD model" : "cannot have ",
                  k < 7 ? "" : pbd[k], prm->dim3 ? "3d" : kind);
  /* its plan moves 2D or 3D agents (the pass list's agent_fn, agent_fn3) */
  for (int k = 0; k < THR_PASS_COUNT; ++k) {
    if (thr_pass_stage(k) != THR_STAGE_PLAN || !thr_pass_enabled(k, prm) || thr_pass_has_form(k, prm->dim3)) continue;
    if (prm->dim3)
      return fail(c, key_at(root, "world", "z"), "world.z", "model.kind %s is 2D (3D agents are PBD or rvo3d)", kind);
    return fail(c, key_at(root, "model", "kind"), "model.kind",
                "%s moves 3D agents: it needs a 3D scenario (give world.z: {min, max}; docs/3d.md)", kind);
  }
  if (!(prm->max_speed > 0.0f))
    return fail(c, key_at(root, "model", "max_speed"), "model.max_speed",
                "must be > 0 with model.kind %s (%s)", kind, m->max_speed_role);
  prm->contact_on = prm->friction_on = prm->longrange_on = prm->avoidance_on = 0;
  prm->xsph_on = prm->headway_on = 0; /* walls_on: the models' own wall terms */
  prm->stability_iterations = 0;
  prm->max_accel = 0.0f;
  return 0;
}

/* model.kind orca and powerlaw (docs/orca.md, docs/powerlaw.md): what they
 * cannot have, then the model's own checks and derived parameters. */
static int set_model(cfg *c, const thr_ynode *root) {
  thr_params *prm = &c->sc->prm;
  const thr_model_desc *mine = thr_model_of(prm->model_kind);
  if (thr_model_plans_itself(prm) && set_velocity_model(c, root, mine)) return -1;
  thr_model_fault f = {0};
  if (mine->settle && mine->settle(prm, c->sc, &f)) {
    char key[96];
    if (f.name)
      snprintf(key, sizeof key, "%s.%s", f.section, f.name);
    else /* the whole section */
      snprintf(key, sizeof key, "%s", f.section);
    return fail(c, key_at(root, f.section, f.name), key, "%s", f.why);
  }
  return 0;
}

/* What the key table's ranges cannot say about output keys. */
static int check_output(cfg *c, const thr_ynode *root) {
  const thr_ynode *o = thr_ymap_get(root, "output");
  const thr_ynode *n = o && o->kind == THR_Y_MAP ? thr_ymap_get(o, "compression") : NULL;
  if (c->sc->compression > 9)
    return fail(c, n ? n : root, "output.compression", "expected a deflate level from 0 (none) to 9, got %d",
                c->sc->compression);
  return 0;
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
  if (check_keys(c, root, "") || read_preset(c, root) || read_model(c, root) || read_top_scalars(c, root) ||
      read_sections(c, root) ||
      read_geometry(c, root) || read_floors(c, root) || read_world(c, root) || read_stairs_and_zones(c, root))
    return -1;
  if (read_goals(c, root) || read_obstacles(c, root) || read_exits(c, root) || read_stages(c, root) ||
      read_journeys(c, root))
    return -1;
  return read_agents(c, root) || read_sources(c, root) || read_formations(c, root) || check_agility(c, root) ||
                 check_reaction(c, root) ||
                 read_measurement(c, root) ||
                 read_behaviors(c, root) || read_block_behaviors(c, root) ||
                 check_output(c, root) || check_3d(c, root) || set_model(c, root) ||
                 read_catalyst(c, root) ||
                 add_walls(c)
             ? -1
             : 0;
}

int thr_config_load(const char *path, const char *const *sets, int n_sets, thr_scenario *sc, char *err, size_t errlen) {
  memset(sc, 0, sizeof *sc);
  if (err && errlen) err[0] = '\0';
  thr_ytree tree;
  if (thr_ytree_load_file(&tree, path, err, errlen)) return -1;
  int rc = 0;
  for (int k = 0; k < n_sets && !rc; ++k) rc = thr_ytree_apply_set(&tree, sets[k], err, errlen);
  cfg c = {.sc = sc, .err = err, .errlen = errlen};
  if (!rc) rc = fill_scenario(&c, tree.root, path);
  for (int f = 0; c.floor_area && f < sc->n_floors; ++f) thr_polyset_free(&c.floor_area[f]);
  free(c.floor_area);
  thr_ytree_free(&tree);
  if (rc) thr_scenario_free(sc);
  return rc ? -1 : 0;
}
