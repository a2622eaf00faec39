/* Scenario file -> thr_scenario: walks the YAML tree (yamltree.h), checks
 * every key against docs/configuration.md and fills the scenario. Every
 * error names the file position (or --set override), the key path and what
 * is wrong; the first error stops loading. */
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

#include "yamltree.h"

#define PATH_LEN 256 /* key paths such as agents[12].speed.mean */
#define GOT_LEN 96   /* "got ..." descriptions */

/* ---- defaults ------------------------------------------------------------- */

void thr_params_defaults(thr_params *prm) {
  memset(prm, 0, sizeof *prm);
  prm->dt = 1.0f / 48.0f;
  prm->alpha = 0.0385f;
  prm->omega = 1.2f;
  prm->stability_iterations = 1;
  prm->solver_iterations = 6;
  prm->radius_scale = 1.05f;
  prm->contact_on = 1;
  prm->friction_on = 1;
  prm->contact_stiffness = 1.0f;
  prm->mu_static = 0.21f;
  prm->mu_kinetic = 0.10f;
  prm->longrange_on = 1;
  prm->lr_stiffness = 0.24f;
  prm->lr_tau0 = 20.0f;
  prm->lr_radius = 3.0f;
  prm->avoidance_on = 0;
  prm->av_stiffness = 0.24f;
  prm->av_tau0 = 20.0f;
  prm->av_radius = 3.0f;
  prm->walls_on = 1;
  prm->wall_stiffness = 1.0f;
  prm->xsph_on = 1;
  prm->xsph_c = 0.1f;
  prm->xsph_h = 3.5f;
  prm->xsph_poly6 = 0.0f; /* derived by the core from xsph_h */
  prm->max_speed = 2.5f;
  prm->max_accel = 0.0f;
  prm->arrive_radius = 0.5f;
  prm->cell_size = 0.0f; /* 0 = auto, derived by the core */
  prm->skin = 0.3f;
}

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

/* Every key of map must be in `known`. */
static int check_keys(cfg *c, const thr_ynode *map, const char *path, const char *known) {
  for (int k = 0; k < map->n; ++k) {
    const thr_ynode *key = map->keys[k];
    if (in_list(known, key->text)) continue;
    char hint[96];
    suggestion(known, key->text, hint, sizeof hint);
    return fail(c, key, path, "unknown key '%.64s' (known keys here: %s)%s", key->text, known, hint);
  }
  return 0;
}

static int missing(cfg *c, const thr_ynode *map, const char *path, const char *key, const char *what) {
  return fail(c, map, path, "missing required key '%s'%s", key, what);
}

/* Which one of the keys in `choices` the map has; exactly one is allowed. */
static int pick_one(cfg *c, const thr_ynode *map, const char *path, const char *choices, int *which) {
  int first = -1;
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

/* Length of a decimal number at s: [-+]?(d+(.d*)?|.d+)([eE][-+]?d+)? */
static size_t scan_decimal(const char *s) {
  size_t i = 0, digits = 0;
  if (s[i] == '-' || s[i] == '+') i++;
  while (s[i] >= '0' && s[i] <= '9') i++, digits++;
  if (s[i] == '.') {
    i++;
    while (s[i] >= '0' && s[i] <= '9') i++, digits++;
  }
  if (!digits) return 0;
  if (s[i] == 'e' || s[i] == 'E') {
    size_t j = i + 1;
    if (s[j] == '-' || s[j] == '+') j++;
    if (s[j] < '0' || s[j] > '9') return i;
    while (s[j] >= '0' && s[j] <= '9') j++;
    i = j;
  }
  return i;
}

static int parse_decimal(const char *s, double *v) {
  size_t n = scan_decimal(s);
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
static int parse_number(const char *text, double *v) {
  char buf[128];
  if (strlen(text) >= sizeof buf) return 0;
  strcpy(buf, text);
  char *s = trim(buf);
  if (parse_special(s, v)) return 1;
  char *slash = strchr(s, '/');
  if (!slash) return parse_decimal(s, v);
  *slash = '\0';
  double num, den;
  if (!parse_decimal(trim(s), &num) || !parse_decimal(trim(slash + 1), &den)) return 0;
  if (den == 0.0) return -1;
  *v = num / den;
  return 1;
}

enum range { R_ANY, R_GT0, R_GE0, R_UNIT, R_STIFF, R_GE1 };
static const char *const range_text[] = {"", " > 0", " >= 0", " in [0, 1]", " in (0, 1]", " >= 1"};

static int in_range(float v, int r) {
  switch (r) {
    case R_GT0:
      return v > 0.0f;
    case R_GE0:
      return v >= 0.0f;
    case R_UNIT:
      return v >= 0.0f && v <= 1.0f;
    case R_STIFF:
      return v > 0.0f && v <= 1.0f;
    case R_GE1:
      return v >= 1.0f;
    default:
      return 1;
  }
}

static int read_number(cfg *c, const thr_ynode *n, const char *path, int r, float *out) {
  char g[GOT_LEN];
  double v = 0.0;
  int ok = n->kind == THR_Y_SCALAR && !n->quoted ? parse_number(n->text, &v) : 0;
  if (ok == 0)
    return fail(c, n, path, "expected a number%s, got %s%s", range_text[r], got(n, g),
                n->kind == THR_Y_SCALAR && n->quoted ? " (quoted, so a string)" : "");
  if (ok < 0) return fail(c, n, path, "expected a number%s, got %s (division by zero)", range_text[r], got(n, g));
  float f = (float)v;
  if (!isfinite(v) || !isfinite(f))
    return fail(c, n, path, "expected a finite number%s, got %s", range_text[r], got(n, g));
  if (!in_range(f, r)) return fail(c, n, path, "expected a number%s, got %s", range_text[r], got(n, g));
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

/* A string of at most size-1 characters (buf NULL: only check the type). */
static int read_string(cfg *c, const thr_ynode *n, const char *path, char *buf, size_t size, int nonempty) {
  char g[GOT_LEN];
  if (n->kind != THR_Y_SCALAR) return fail(c, n, path, "expected a string, got %s", got(n, g));
  const char *s = thr_ynode_is_null(n) ? "" : n->text;
  if (nonempty && !*s) return fail(c, n, path, "must not be empty");
  if (buf && strlen(s) >= size) return fail(c, n, path, "too long (at most %zu characters)", size - 1);
  if (buf) memcpy(buf, s, strlen(s) + 1);
  return 0;
}

/* [x, y] */
static int read_point(cfg *c, const thr_ynode *n, const char *path, thr_vec2 *out) {
  char g[GOT_LEN], p[PATH_LEN];
  if (n->kind != THR_Y_SEQ || n->n != 2) return fail(c, n, path, "expected a point [x, y], got %s", got(n, g));
  if (read_number(c, n->items[0], subindex(p, path, 0), R_ANY, &out->x)) return -1;
  return read_number(c, n->items[1], subindex(p, path, 1), R_ANY, &out->y);
}

/* A point whose coordinates are both > 0 (spacings, semi-axes). */
static int read_positive_point(cfg *c, const thr_ynode *n, const char *path, thr_vec2 *out) {
  char g[GOT_LEN], p[PATH_LEN];
  if (n->kind != THR_Y_SEQ || n->n != 2)
    return fail(c, n, path, "expected a point [x, y] with both values > 0, got %s", got(n, g));
  if (read_number(c, n->items[0], subindex(p, path, 0), R_GT0, &out->x)) return -1;
  return read_number(c, n->items[1], subindex(p, path, 1), R_GT0, &out->y);
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
  char g[GOT_LEN], p[PATH_LEN];
  if (n->kind != THR_Y_MAP) return fail(c, n, path, "expected a map {min: [x, y], max: [x, y]}, got %s", got(n, g));
  if (check_keys(c, n, path, "min, max")) return -1;
  const thr_ynode *vmin = need(c, n, path, "min"), *vmax = vmin ? need(c, n, path, "max") : NULL;
  if (!vmin || !vmax) return -1;
  if (read_point(c, vmin, subkey(p, path, "min"), lo) || read_point(c, vmax, subkey(p, path, "max"), hi)) return -1;
  return check_corners(c, vmax, path, *lo, *hi, strict);
}

/* ---- simple sections: tables of keys -------------------------------------- */

enum vkind { V_NUM, V_INT, V_LONG, V_BOOL, V_STR };

typedef struct keyspec {
  const char *key;
  int kind;     /* enum vkind */
  int range;    /* V_NUM: enum range */
  long long lo; /* V_INT, V_LONG: smallest value */
  size_t off;   /* field in thr_scenario */
  size_t size;  /* V_STR: buffer size */
} keyspec;

#define F_NUM(k, r, f) \
  { k, V_NUM, r, 0, offsetof(thr_scenario, f), 0 }
#define F_INT(k, lo, f) \
  { k, V_INT, 0, lo, offsetof(thr_scenario, f), 0 }
#define F_LONG(k, lo, f) \
  { k, V_LONG, 0, lo, offsetof(thr_scenario, f), 0 }
#define F_BOOL(k, f) \
  { k, V_BOOL, 0, 0, offsetof(thr_scenario, f), 0 }
#define F_STR(k, f) \
  { k, V_STR, 0, 0, offsetof(thr_scenario, f), sizeof(((thr_scenario *)0)->f) }

static const keyspec time_keys[] = {F_NUM("dt", R_GT0, prm.dt), F_LONG("steps", 0, steps)};
static const keyspec solver_keys[] = {F_INT("stability_iterations", 0, prm.stability_iterations),
                                      F_INT("iterations", 0, prm.solver_iterations), F_NUM("omega", R_GT0, prm.omega)};
static const keyspec model_keys[] = {F_NUM("alpha", R_UNIT, prm.alpha), F_NUM("radius_scale", R_GE1, prm.radius_scale),
                                     F_NUM("max_speed", R_GE0, prm.max_speed),
                                     F_NUM("max_acceleration", R_GE0, prm.max_accel),
                                     F_NUM("arrive_radius", R_GT0, prm.arrive_radius)};
static const keyspec contact_keys[] = {
    F_BOOL("enabled", prm.contact_on), F_NUM("stiffness", R_STIFF, prm.contact_stiffness),
    F_BOOL("friction", prm.friction_on), F_NUM("static_friction", R_GE0, prm.mu_static),
    F_NUM("kinetic_friction", R_GE0, prm.mu_kinetic)};
static const keyspec long_range_keys[] = {F_BOOL("enabled", prm.longrange_on),
                                          F_NUM("stiffness", R_GE0, prm.lr_stiffness),
                                          F_NUM("tau0", R_GT0, prm.lr_tau0), F_NUM("radius", R_GT0, prm.lr_radius)};
static const keyspec avoidance_keys[] = {F_BOOL("enabled", prm.avoidance_on),
                                         F_NUM("stiffness", R_GE0, prm.av_stiffness), F_NUM("tau0", R_GT0, prm.av_tau0),
                                         F_NUM("radius", R_GT0, prm.av_radius)};
static const keyspec walls_keys[] = {F_BOOL("enabled", prm.walls_on), F_NUM("stiffness", R_STIFF, prm.wall_stiffness)};
static const keyspec xsph_keys[] = {F_BOOL("enabled", prm.xsph_on), F_NUM("h", R_GT0, prm.xsph_h),
                                    F_NUM("c", R_GE0, prm.xsph_c)};
static const keyspec neighbors_keys[] = {F_NUM("cell_size", R_GE0, prm.cell_size), F_NUM("skin", R_GE0, prm.skin)};
static const keyspec decomposition_keys[] = {F_INT("balance_every", 0, balance_every),
                                             F_NUM("balance_threshold", R_GE1, balance_threshold)};
static const keyspec output_keys[] = {F_STR("dir", out_dir), F_INT("trajectory_every", 0, trajectory_every),
                                      F_INT("metrics_every", 0, metrics_every)};

typedef struct section {
  const char *name;
  const keyspec *keys;
  int n;
} section;

#define SECTION(name, keys) \
  { name, keys, (int)(sizeof keys / sizeof keys[0]) }
static const section sections[] = {SECTION("time", time_keys),
                                   SECTION("solver", solver_keys),
                                   SECTION("model", model_keys),
                                   SECTION("contact", contact_keys),
                                   SECTION("long_range", long_range_keys),
                                   SECTION("avoidance", avoidance_keys),
                                   SECTION("walls", walls_keys),
                                   SECTION("xsph", xsph_keys),
                                   SECTION("neighbors", neighbors_keys),
                                   SECTION("decomposition", decomposition_keys),
                                   SECTION("output", output_keys)};

static int read_spec(cfg *c, const thr_ynode *n, const char *path, const keyspec *k) {
  void *dst = (char *)c->sc + k->off;
  switch (k->kind) {
    case V_NUM:
      return read_number(c, n, path, k->range, (float *)dst);
    case V_INT:
      return read_int(c, n, path, k->lo, (int *)dst);
    case V_LONG:
      return read_long(c, n, path, k->lo, (long *)dst);
    case V_BOOL:
      return read_bool(c, n, path, (int *)dst);
    default:
      return read_string(c, n, path, (char *)dst, k->size, 0);
  }
}

static int read_section(cfg *c, const thr_ynode *root, const section *s) {
  char known[256] = "", g[GOT_LEN], p[PATH_LEN];
  for (int k = 0; k < s->n; ++k) {
    if (k) thr_str_append(known, sizeof known, ", ");
    thr_str_append(known, sizeof known, s->keys[k].key);
  }
  const thr_ynode *m = thr_ymap_get(root, s->name);
  if (!m || thr_ynode_is_null(m)) return 0; /* an empty section keeps the defaults */
  if (m->kind != THR_Y_MAP) return fail(c, m, s->name, "expected a map with keys %s, got %s", known, got(m, g));
  if (check_keys(c, m, s->name, known)) return -1;
  for (int k = 0; k < s->n; ++k) {
    const thr_ynode *v = thr_ymap_get(m, s->keys[k].key);
    if (v && read_spec(c, v, subkey(p, s->name, s->keys[k].key), &s->keys[k])) return -1;
  }
  return 0;
}

/* ---- top level ------------------------------------------------------------ */

#define TOP_KEYS                                                                                       \
  "name, description, seed, world, time, solver, model, contact, long_range, avoidance, walls, xsph, " \
  "neighbors, decomposition, goals, obstacles, agents, output"

/* The file's name without directories and .yaml/.yml. */
static void default_name(const char *path, char *name, size_t size) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  if (n > 5 && !strcmp(base + n - 5, ".yaml"))
    n -= 5;
  else if (n > 4 && !strcmp(base + n - 4, ".yml"))
    n -= 4;
  snprintf(name, size, "%.*s", (int)n, base);
}

static int read_top_scalars(cfg *c, const thr_ynode *root) {
  const thr_ynode *v;
  if ((v = thr_ymap_get(root, "name"))) {
    if (read_string(c, v, "name", c->sc->name, sizeof c->sc->name, 1)) return -1;
    /* the name becomes the default output directory out/<name> */
    if (strchr(c->sc->name, '/') || !strcmp(c->sc->name, ".") || !strcmp(c->sc->name, ".."))
      return fail(c, v, "name", "must not contain '/' or be '.' or '..' (it names the output directory out/<name>)");
  }
  if ((v = thr_ymap_get(root, "description")) && read_string(c, v, "description", NULL, 0, 0)) return -1;
  if ((v = thr_ymap_get(root, "seed")) && read_seed(c, v, "seed", &c->sc->seed)) return -1;
  return 0;
}

static int read_world(cfg *c, const thr_ynode *root) {
  char g[GOT_LEN];
  const thr_ynode *w = thr_ymap_get(root, "world");
  if (!w) return missing(c, root, "", "world", " (a map {min: [x, y], max: [x, y]})");
  if (w->kind != THR_Y_MAP) return fail(c, w, "world", "expected a map {min: [x, y], max: [x, y]}, got %s", got(w, g));
  if (check_keys(c, w, "world", "min, max")) return -1;
  const thr_ynode *vmin = need(c, w, "world", "min"), *vmax = vmin ? need(c, w, "world", "max") : NULL;
  if (!vmin || !vmax) return -1;
  if (read_point(c, vmin, "world.min", &c->sc->world_min) || read_point(c, vmax, "world.max", &c->sc->world_max))
    return -1;
  return check_corners(c, vmax, "world.max", c->sc->world_min, c->sc->world_max, 1);
}

/* ---- goals ---------------------------------------------------------------- */

static int read_goal_shape(cfg *c, const thr_ynode *item, const char *path, thr_goal *goal) {
  char p[PATH_LEN], q[PATH_LEN], g[GOT_LEN];
  int which = 0;
  if (pick_one(c, item, path, "point, rect, disk", &which)) return -1;
  const char *shape = item->keys[which]->text;
  const thr_ynode *v = item->items[which];
  subkey(p, path, shape);
  memset(goal, 0, sizeof *goal);
  if (!strcmp(shape, "point")) {
    thr_vec2 a;
    if (read_point(c, v, p, &a)) return -1;
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
  if (v->kind != THR_Y_MAP) return fail(c, v, p, "expected a map {center: [x, y], radius: R}, got %s", got(v, g));
  if (check_keys(c, v, p, "center, radius")) return -1;
  const thr_ynode *vc = need(c, v, p, "center"), *vr = vc ? need(c, v, p, "radius") : NULL;
  thr_vec2 ctr;
  if (!vc || !vr || read_point(c, vc, subkey(q, p, "center"), &ctr) ||
      read_number(c, vr, subkey(q, p, "radius"), R_GT0, &goal->r))
    return -1;
  goal->kind = THR_GOAL_DISK;
  goal->ax = ctr.x, goal->ay = ctr.y;
  return 0;
}

static int read_goal(cfg *c, const thr_ynode *item, int i) {
  char path[PATH_LEN], p[PATH_LEN], g[GOT_LEN];
  thr_scenario *sc = c->sc;
  subindex(path, "goals", i);
  if (item->kind != THR_Y_MAP)
    return fail(c, item, path, "expected a map {name: NAME, point|rect|disk: ...}, got %s", got(item, g));
  if (check_keys(c, item, path, "name, point, rect, disk")) return -1;
  const thr_ynode *vname = need(c, item, path, "name");
  if (!vname || read_string(c, vname, subkey(p, path, "name"), sc->goal_names[i], sizeof sc->goal_names[i], 1))
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
  char g[GOT_LEN];
  thr_scenario *sc = c->sc;
  const thr_ynode *list = thr_ymap_get(root, "goals");
  if (!list || thr_ynode_is_null(list)) return 0;
  if (list->kind != THR_Y_SEQ)
    return fail(c, list, "goals", "expected a list of goals ({name: NAME, point|rect|disk: ...}), got %s",
                got(list, g));
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

/* A list of points for a segment (exactly 2), polyline (>= 2) or polygon (>= 3). */
static int read_chain(cfg *c, const thr_ynode *n, const char *path, int min_n, int exact, int closed) {
  char g[GOT_LEN], p[PATH_LEN];
  if (n->kind != THR_Y_SEQ || n->n < min_n || (exact && n->n != min_n)) {
    if (exact) return fail(c, n, path, "expected a list of 2 points [[x1, y1], [x2, y2]], got %s", got(n, g));
    return fail(c, n, path, "expected a list of at least %d points [[x, y], ...], got %s", min_n, got(n, g));
  }
  int first = c->sc->n_verts;
  for (int k = 0; k < n->n; ++k) {
    thr_vec2 v;
    if (read_point(c, n->items[k], subindex(p, path, k), &v)) return -1;
    const thr_vec2 *prev = k ? &c->sc->verts[c->sc->n_verts - 1] : NULL;
    if (prev && v.x == prev->x && v.y == prev->y)
      return fail(c, n->items[k], p, "repeats the previous point [%g, %g]", (double)v.x, (double)v.y);
    if (closed && k == n->n - 1 && v.x == c->sc->verts[first].x && v.y == c->sc->verts[first].y)
      return fail(c, n->items[k], p, "repeats the first point (a polygon closes by itself; leave it out)");
    if (push_vert(c, n->items[k], v)) return -1;
  }
  return 0;
}

static int read_obstacle(cfg *c, const thr_ynode *item, int o) {
  char path[PATH_LEN], p[PATH_LEN], g[GOT_LEN];
  thr_scenario *sc = c->sc;
  subindex(path, "obstacles", o);
  if (item->kind != THR_Y_MAP)
    return fail(c, item, path, "expected a map with one of segment, polyline, polygon, rect, got %s", got(item, g));
  if (check_keys(c, item, path, "segment, polyline, polygon, rect")) return -1;
  int which = 0;
  if (pick_one(c, item, path, "segment, polyline, polygon, rect", &which)) return -1;
  const char *shape = item->keys[which]->text;
  const thr_ynode *v = item->items[which];
  subkey(p, path, shape);
  sc->obs_line[o] = item->n ? item->keys[0]->line : item->line;
  int rc;
  if (!strcmp(shape, "segment")) {
    rc = read_chain(c, v, p, 2, 1, 0);
  } else if (!strcmp(shape, "polyline")) {
    rc = read_chain(c, v, p, 2, 0, 0);
  } else if (!strcmp(shape, "polygon")) {
    rc = read_chain(c, v, p, 3, 0, 1);
    sc->obs_closed[o] = 1;
  } else {
    thr_vec2 lo, hi;
    rc = read_rect(c, v, p, 1, &lo, &hi);
    /* counter-clockwise from the lower-left corner */
    if (!rc)
      rc = push_vert(c, v, lo) || push_vert(c, v, v2(hi.x, lo.y)) || push_vert(c, v, hi) ||
           push_vert(c, v, v2(lo.x, hi.y));
    sc->obs_closed[o] = 1;
  }
  sc->obs_vfirst[o + 1] = sc->n_verts;
  return rc ? -1 : 0;
}

static int read_obstacles(cfg *c, const thr_ynode *root) {
  char g[GOT_LEN];
  thr_scenario *sc = c->sc;
  const thr_ynode *list = thr_ymap_get(root, "obstacles");
  int n = list && list->kind == THR_Y_SEQ ? list->n : 0;
  sc->obs_vfirst = calloc((size_t)n + 1, sizeof *sc->obs_vfirst);
  if (!sc->obs_vfirst) return fail(c, root, "obstacles", "out of memory");
  if (!list || thr_ynode_is_null(list)) return 0;
  if (list->kind != THR_Y_SEQ)
    return fail(c, list, "obstacles", "expected a list of obstacles (segment, polyline, polygon or rect), got %s",
                got(list, g));
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

static const char *const layout_names[] = {"grid", "random", "disk", "ellipse", "circle"};
/* keys that only some layouts take, per layout */
static const char *const layout_keys[] = {
    "min, max, rows, cols, spacing, count", /* grid */
    "min, max, count",                      /* random */
    "center, radius, spacing, count",       /* disk */
    "center, semi_axes, spacing, count",    /* ellipse */
    "center, radius, count"                 /* circle */
};
#define BLOCK_COMMON_KEYS "name, layout, jitter, speed, agent_radius, mass, group, goal"
#define BLOCK_KEYS                                                                                               \
  "name, layout, min, max, center, radius, semi_axes, count, spacing, rows, cols, jitter, speed, agent_radius, " \
  "mass, group, goal"

static int read_layout(cfg *c, const thr_ynode *blk, const char *path, int *layout) {
  char g[GOT_LEN], p[PATH_LEN];
  const thr_ynode *v = thr_ymap_get(blk, "layout");
  if (!v) return missing(c, blk, path, "layout", " (one of grid, random, disk, ellipse, circle)");
  for (int k = 0; k < 5; ++k)
    if (v->kind == THR_Y_SCALAR && !strcmp(v->text, layout_names[k])) return *layout = k, 0;
  return fail(c, v, subkey(p, path, "layout"), "expected one of grid, random, disk, ellipse, circle, got %s",
              got(v, g));
}

/* Keys such as semi_axes on a grid block are mistakes, not extras. */
static int check_layout_keys(cfg *c, const thr_ynode *blk, const char *path, int layout) {
  for (int k = 0; k < blk->n; ++k) {
    const char *key = blk->keys[k]->text;
    if (in_list(BLOCK_COMMON_KEYS, key) || in_list(layout_keys[layout], key)) continue;
    return fail(c, blk->keys[k], path, "key '%s' does not apply to layout '%s' (%s blocks take %s)", key,
                layout_names[layout], layout_names[layout], layout_keys[layout]);
  }
  return 0;
}

/* A number (or a point) > 0: both lattice spacings. */
static int read_spacing(cfg *c, const thr_ynode *n, const char *path, thr_block *b) {
  if (n->kind == THR_Y_SEQ) {
    thr_vec2 s;
    if (read_positive_point(c, n, path, &s)) return -1;
    b->spacing_x = s.x, b->spacing_y = s.y;
    return 0;
  }
  if (read_number(c, n, path, R_GT0, &b->spacing_x)) return -1;
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
  if (rows && (read_int(c, rows, subkey(p, path, "rows"), 1, &b->rows) ||
               read_int(c, cols, subkey(p, path, "cols"), 1, &b->cols)))
    return -1;
  if (spacing && read_spacing(c, spacing, subkey(p, path, "spacing"), b)) return -1;
  if (count && rows && b->count > (long)b->rows * b->cols)
    return fail(c, count, subkey(p, path, "count"), "count %ld exceeds rows x cols = %ld", b->count,
                (long)b->rows * b->cols);
  return 0;
}

/* Geometry and counts, by layout. */
static int read_placement(cfg *c, const thr_ynode *blk, const char *path, thr_block *b) {
  char p[PATH_LEN];
  const thr_ynode *v;
  int L = b->layout;
  if ((v = thr_ymap_get(blk, "count")) && read_long(c, v, subkey(p, path, "count"), 1, &b->count)) return -1;
  if (L == THR_LAYOUT_GRID || L == THR_LAYOUT_RANDOM) {
    const thr_ynode *vmin = need(c, blk, path, "min"), *vmax = vmin ? need(c, blk, path, "max") : NULL;
    if (!vmin || !vmax || read_point(c, vmin, subkey(p, path, "min"), &b->min) ||
        read_point(c, vmax, subkey(p, path, "max"), &b->max) || check_corners(c, vmax, p, b->min, b->max, 0))
      return -1;
  } else {
    if (!(v = need(c, blk, path, "center")) || read_point(c, v, subkey(p, path, "center"), &b->center)) return -1;
  }
  if (L == THR_LAYOUT_DISK || L == THR_LAYOUT_CIRCLE) {
    if (!(v = need(c, blk, path, "radius")) || read_number(c, v, subkey(p, path, "radius"), R_GT0, &b->rx)) return -1;
    b->ry = b->rx;
  }
  if (L == THR_LAYOUT_ELLIPSE) {
    thr_vec2 ax;
    if (!(v = need(c, blk, path, "semi_axes")) || read_positive_point(c, v, subkey(p, path, "semi_axes"), &ax))
      return -1;
    b->rx = ax.x, b->ry = ax.y;
  }
  if ((L == THR_LAYOUT_RANDOM || L == THR_LAYOUT_CIRCLE) && !thr_ymap_get(blk, "count"))
    return missing(c, blk, path, "count", "");
  if (L == THR_LAYOUT_DISK || L == THR_LAYOUT_ELLIPSE) {
    v = thr_ymap_get(blk, "spacing");
    if (!v && !thr_ymap_get(blk, "count"))
      return fail(c, blk, path, "layout '%s' needs spacing, count or both", layout_names[L]);
    if (v && read_spacing(c, v, subkey(p, path, "spacing"), b)) return -1;
  }
  return L == THR_LAYOUT_GRID ? read_grid(c, blk, path, b) : 0;
}

/* A number, or a map {min, max}: a uniform range of values > 0. */
static int read_value_range(cfg *c, const thr_ynode *n, const char *path, float *lo, float *hi) {
  char g[GOT_LEN], p[PATH_LEN], q[PATH_LEN];
  if (n->kind == THR_Y_SCALAR) {
    if (read_number(c, n, path, R_GT0, lo)) return -1;
    *hi = *lo;
    return 0;
  }
  if (n->kind != THR_Y_MAP) return fail(c, n, path, "expected a number > 0 or a map {min, max}, got %s", got(n, g));
  if (check_keys(c, n, path, "min, max")) return -1;
  const thr_ynode *vmin = need(c, n, path, "min"), *vmax = vmin ? need(c, n, path, "max") : NULL;
  if (!vmin || !vmax || read_number(c, vmin, subkey(p, path, "min"), R_GT0, lo) ||
      read_number(c, vmax, subkey(q, path, "max"), R_GT0, hi))
    return -1;
  if (*hi < *lo) return fail(c, vmax, q, "must be >= %s.min (%g), got %g", path, (double)*lo, (double)*hi);
  return 0;
}

/* A number (no spread) or {mean, spread}. */
static int read_speed(cfg *c, const thr_ynode *n, const char *path, thr_block *b) {
  char g[GOT_LEN], p[PATH_LEN];
  const thr_ynode *vm, *vs;
  if (n->kind == THR_Y_SCALAR) {
    b->speed_spread = 0.0f;
    return read_number(c, n, path, R_GE0, &b->speed_mean);
  }
  if (n->kind != THR_Y_MAP)
    return fail(c, n, path, "expected a number >= 0 or a map {mean, spread}, got %s", got(n, g));
  if (check_keys(c, n, path, "mean, spread")) return -1;
  if ((vm = thr_ymap_get(n, "mean")) && read_number(c, vm, subkey(p, path, "mean"), R_GE0, &b->speed_mean)) return -1;
  if (!(vs = thr_ymap_get(n, "spread"))) {
    /* the default spread never makes speeds negative */
    if (b->speed_spread > b->speed_mean) b->speed_spread = b->speed_mean;
    return 0;
  }
  if (read_number(c, vs, subkey(p, path, "spread"), R_GE0, &b->speed_spread)) return -1;
  if (b->speed_spread > b->speed_mean)
    return fail(c, vs, p, "must not exceed %s.mean (%g), or speeds would be negative", path, (double)b->speed_mean);
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
  char p[PATH_LEN];
  int which = 0;
  if (check_keys(c, n, path, "point, offset, antipodal, jitter") ||
      pick_one(c, n, path, "point, offset, antipodal", &which))
    return -1;
  const char *form = n->keys[which]->text;
  if (read_point(c, n->items[which], subkey(p, path, form), &b->goal_point)) return -1;
  b->goal_kind = !strcmp(form, "point")    ? THR_BGOAL_POINT
                 : !strcmp(form, "offset") ? THR_BGOAL_OFFSET
                                           : THR_BGOAL_ANTIPODAL;
  const thr_ynode *j = thr_ymap_get(n, "jitter");
  return j ? read_number(c, j, subkey(p, path, "jitter"), R_GE0, &b->goal_jitter) : 0;
}

static int read_block_goal(cfg *c, const thr_ynode *n, const char *path, thr_block *b) {
  char g[GOT_LEN];
  if (n->kind == THR_Y_MAP) return read_goal_map(c, n, path, b);
  if (n->kind == THR_Y_SEQ && n->n > 0) return add_goal_set(c, (const thr_ynode *const *)n->items, n->n, 1, path, b);
  if (n->kind == THR_Y_SCALAR && !thr_ynode_is_null(n)) return add_goal_set(c, &n, 1, 0, path, b);
  return fail(c, n, path,
              "expected a goal name, a list of goal names, or a map {point|offset|antipodal: [x, y], jitter: J}, "
              "got %s",
              got(n, g));
}

/* Everything except the placement: name, speeds, radii, masses, group, goal. */
static int read_block_agents(cfg *c, const thr_ynode *blk, const char *path, int index, thr_block *b) {
  char p[PATH_LEN];
  const thr_ynode *v;
  snprintf(b->name, sizeof b->name, "block%d", index);
  b->group = index;
  b->speed_mean = 1.4f, b->speed_spread = 0.1f;
  b->radius_min = b->radius_max = 0.5f;
  b->mass_min = b->mass_max = 1.0f;
  b->goal_kind = THR_BGOAL_NONE;
  b->goal_set = -1;
  if ((v = thr_ymap_get(blk, "name")) && read_string(c, v, subkey(p, path, "name"), b->name, sizeof b->name, 1))
    return -1;
  if ((v = thr_ymap_get(blk, "jitter")) && read_number(c, v, subkey(p, path, "jitter"), R_GE0, &b->jitter)) return -1;
  if ((v = thr_ymap_get(blk, "speed")) && read_speed(c, v, subkey(p, path, "speed"), b)) return -1;
  if ((v = thr_ymap_get(blk, "agent_radius")) &&
      read_value_range(c, v, subkey(p, path, "agent_radius"), &b->radius_min, &b->radius_max))
    return -1;
  if ((v = thr_ymap_get(blk, "mass")) && read_value_range(c, v, subkey(p, path, "mass"), &b->mass_min, &b->mass_max))
    return -1;
  if ((v = thr_ymap_get(blk, "group")) && read_int(c, v, subkey(p, path, "group"), 0, &b->group)) return -1;
  if ((v = thr_ymap_get(blk, "goal")) && read_block_goal(c, v, subkey(p, path, "goal"), b)) return -1;
  return 0;
}

static int read_block(cfg *c, const thr_ynode *blk, int index, thr_block *b) {
  char path[PATH_LEN], g[GOT_LEN];
  subindex(path, "agents", index);
  if (blk->kind != THR_Y_MAP)
    return fail(c, blk, path, "expected an agent block (a map with layout, ...), got %s", got(blk, g));
  b->line = blk->n ? blk->keys[0]->line : blk->line;
  if (check_keys(c, blk, path, BLOCK_KEYS) || read_layout(c, blk, path, &b->layout) ||
      check_layout_keys(c, blk, path, b->layout))
    return -1;
  return read_placement(c, blk, path, b) || read_block_agents(c, blk, path, index, b) ? -1 : 0;
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

static void scenario_defaults(thr_scenario *sc, const char *path) {
  thr_params_defaults(&sc->prm);
  sc->seed = 1;
  sc->steps = 1000;
  sc->trajectory_every = 24;
  sc->metrics_every = 1;
  sc->balance_every = 50;
  sc->balance_threshold = 1.10f;
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
  if (check_keys(c, root, "", TOP_KEYS) || read_top_scalars(c, root) || read_world(c, root)) return -1;
  for (size_t k = 0; k < sizeof sections / sizeof sections[0]; ++k)
    if (read_section(c, root, &sections[k])) return -1;
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
