/* YAML text -> thr_ynode tree, via libyaml's event API (the document API
 * would hide duplicate keys and resolve aliases silently). Also applies
 * --set overrides to a loaded tree. */
#define _POSIX_C_SOURCE 200809L
#include "yamltree.h"

#include "input_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define YT_MAX_DEPTH 64    /* deeper nesting is certainly a mistake */
#define YT_PATH_MAX 512    /* key paths in messages */
#define YT_MAX_SEGMENTS 32 /* parts of an override KEY */
#define YT_NAME_MAX 64     /* one part of an override KEY */

struct thr_yorigin {
  struct thr_yorigin *next;
  char text[];
};

/* ---- nodes ---------------------------------------------------------------- */

static thr_ynode *node_new(int kind, const char *origin, int line, int col) {
  thr_ynode *n = calloc(1, sizeof *n);
  if (!n) return NULL;
  n->kind = kind;
  n->origin = origin;
  n->line = line;
  n->col = col;
  return n;
}

static void node_free(thr_ynode *n) {
  if (!n) return;
  for (int k = 0; k < n->n; ++k) {
    node_free(n->items[k]);
    if (n->keys) node_free(n->keys[k]);
  }
  free(n->items);
  free(n->keys);
  free(n->text);
  free(n);
}

/* Append an item (key NULL: list) or an entry (map). */
static int node_push(thr_ynode *parent, thr_ynode *key, thr_ynode *val) {
  if (parent->n == parent->cap) {
    int cap = parent->cap ? 2 * parent->cap : 4;
    thr_ynode **items = realloc(parent->items, (size_t)cap * sizeof *items);
    if (!items) return -1;
    parent->items = items;
    if (parent->kind == THR_Y_MAP) {
      thr_ynode **keys = realloc(parent->keys, (size_t)cap * sizeof *keys);
      if (!keys) return -1;
      parent->keys = keys;
    }
    parent->cap = cap;
  }
  parent->items[parent->n] = val;
  if (parent->kind == THR_Y_MAP) parent->keys[parent->n] = key;
  parent->n++;
  return 0;
}

static thr_ynode *scalar_new(const char *text, size_t len, const char *origin, int line, int col) {
  thr_ynode *n = node_new(THR_Y_SCALAR, origin, line, col);
  if (!n) return NULL;
  n->text = malloc(len + 1);
  if (!n->text) {
    free(n);
    return NULL;
  }
  memcpy(n->text, text, len);
  n->text[len] = '\0';
  return n;
}

static int map_find(const thr_ynode *map, const char *key) {
  if (!map || map->kind != THR_Y_MAP) return -1;
  for (int k = 0; k < map->n; ++k)
    if (strcmp(map->keys[k]->text, key) == 0) return k;
  return -1;
}

const thr_ynode *thr_ymap_get(const thr_ynode *map, const char *key) {
  int k = map_find(map, key);
  return k < 0 ? NULL : map->items[k];
}

const thr_ynode *thr_ymap_key(const thr_ynode *map, const char *key) {
  int k = map_find(map, key);
  return k < 0 ? NULL : map->keys[k];
}

int thr_ynode_is_null(const thr_ynode *n) {
  if (!n || n->kind != THR_Y_SCALAR || n->quoted) return 0;
  const char *s = n->text;
  return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

/* ---- printable text ------------------------------------------------------- */

static int byte_in(unsigned char c, unsigned lo, unsigned hi) {
  return c >= lo && c <= hi;
}

/* Length of the well-formed UTF-8 character at s (no overlong forms, no
 * surrogates, nothing above U+10FFFF), 0 when s does not start one. */
static size_t utf8_len(const unsigned char *s) {
  if (s[0] < 0x80) return 1;
  if (byte_in(s[0], 0xC2, 0xDF)) return byte_in(s[1], 0x80, 0xBF) ? 2 : 0;
  unsigned lo = s[0] == 0xE0 ? 0xA0 : s[0] == 0xF0 ? 0x90 : 0x80;
  unsigned hi = s[0] == 0xED ? 0x9F : s[0] == 0xF4 ? 0x8F : 0xBF;
  if (byte_in(s[0], 0xE0, 0xEF)) return byte_in(s[1], lo, hi) && byte_in(s[2], 0x80, 0xBF) ? 3 : 0;
  if (byte_in(s[0], 0xF0, 0xF4))
    return byte_in(s[1], lo, hi) && byte_in(s[2], 0x80, 0xBF) && byte_in(s[3], 0x80, 0xBF) ? 4 : 0;
  return 0;
}

/* Whether the character at s (*len bytes; a byte that is not UTF-8 counts
 * as one) is printable: UTF-8 and no control character (C0, DEL, or C1,
 * U+0080..U+009F), none of which a terminal should be sent. */
static int printable_at(const char *s, size_t *len) {
  const unsigned char *u = (const unsigned char *)s;
  size_t n = utf8_len(u);
  *len = n ? n : 1;
  if (n == 1) return u[0] >= 0x20 && u[0] != 0x7F;
  return n > 1 && !(u[0] == 0xC2 && u[1] < 0xA0);
}

/* Bytes of s before its first unprintable character. */
static size_t printable_prefix(const char *s) {
  size_t at = 0, len;
  while (s[at] && printable_at(s + at, &len)) at += len;
  return at;
}

int thr_text_is_printable(const char *s) {
  return !s[printable_prefix(s)];
}

size_t thr_text_prefix(const char *s, size_t max) {
  size_t n = strlen(s);
  if (n <= max) return n;
  while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80) max--; /* s[max] continues a character */
  return max;
}

/* Rewrite the message in buf[size] with every unprintable byte as \xNN
 * (truncating at size), so that no message passes control characters or
 * broken UTF-8 from the input to a terminal. */
void thr_text_escape(char *buf, size_t size) {
  if (thr_text_is_printable(buf)) return;
  char *raw = strdup(buf);
  if (!raw) { /* out of memory: the message up to the first unprintable byte */
    buf[printable_prefix(buf)] = '\0';
    return;
  }
  size_t out = 0, len;
  for (const char *s = raw; *s; s += len) {
    char piece[4 * 4 + 1] = ""; /* a character, or up to 4 bytes as \xNN */
    if (printable_at(s, &len))
      memcpy(piece, s, len);
    else
      for (size_t k = 0; k < len; ++k) snprintf(piece + 4 * k, 5, "\\x%02x", (unsigned char)s[k]);
    size_t n = strlen(piece);
    if (out + n >= size) break;
    memcpy(buf + out, piece, n);
    out += n;
  }
  buf[out] = '\0';
  free(raw);
}

/* ---- messages ------------------------------------------------------------- */

size_t thr_text_scan_decimal(const char *s) {
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

/* Append s to buf[size], truncating (snprintf would
 * make GCC's -Wformat-truncation complain). */
void thr_str_append(char *buf, size_t size, const char *s) {
  size_t used = strlen(buf), n = strlen(s);
  if (used + 1 >= size) return;
  if (n > size - used - 1) n = size - used - 1;
  memcpy(buf + used, s, n);
  buf[used + n] = '\0';
}

void thr_ynode_where(const thr_ynode *n, char *buf, size_t len) {
  if (n->line > 0)
    snprintf(buf, len, "%s:%d:%d", n->origin, n->line, n->col);
  else
    snprintf(buf, len, "%s", n->origin ? n->origin : "?");
}

void thr_ynode_describe(const thr_ynode *n, char *buf, size_t len) {
  if (!n || thr_ynode_is_null(n)) {
    snprintf(buf, len, "nothing");
  } else if (n->kind == THR_Y_SEQ) {
    snprintf(buf, len, "a list");
  } else if (n->kind == THR_Y_MAP) {
    snprintf(buf, len, "a map");
  } else if (strlen(n->text) > 60) {
    snprintf(buf, len, "\"%.*s...\"", (int)thr_text_prefix(n->text, 57), n->text);
  } else {
    snprintf(buf, len, "\"%s\"", n->text);
  }
}

void thr_yvfail(char *err, size_t errlen, const thr_ynode *at, const char *keypath, const char *fmt, va_list ap) {
  if (!err || errlen == 0) return;
  char where[1200];
  thr_ynode_where(at, where, sizeof where);
  int used = snprintf(err, errlen, "%s: %s%s", where, keypath ? keypath : "", keypath && *keypath ? ": " : "");
  if (used >= 0 && (size_t)used < errlen) vsnprintf(err + used, errlen - (size_t)used, fmt, ap);
  thr_text_escape(err, errlen);
}

void thr_yfail(char *err, size_t errlen, const thr_ynode *at, const char *keypath, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  thr_yvfail(err, errlen, at, keypath, fmt, ap);
  va_end(ap);
}

/* ---- origins -------------------------------------------------------------- */

/* Keep "a" "b" as an origin string owned by the tree. */
static const char *add_origin(thr_ytree *t, const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  struct thr_yorigin *o = malloc(sizeof *o + na + nb + 1);
  if (!o) return NULL;
  memcpy(o->text, a, na);
  memcpy(o->text + na, b, nb + 1);
  o->next = t->origins;
  t->origins = o;
  return o->text;
}

void thr_ytree_free(thr_ytree *t) {
  node_free(t->root);
  while (t->origins) {
    struct thr_yorigin *next = t->origins->next;
    free(t->origins);
    t->origins = next;
  }
  t->root = NULL;
}

typedef struct builder {
  yaml_parser_t parser;
  const char *origin;
  int marks;        /* record line/column (files) or not (override values) */
  const char *text; /* the input, for positions and hints in syntax errors */
  size_t len;
  char *err;
  size_t errlen;
  char path[YT_PATH_MAX]; /* key path of the node being built */
  size_t path_base;       /* length of the key path the whole text sits at */
} builder;

/* ---- positions in the input ----------------------------------------------- */

/* A walk over the input's characters as libyaml counts them: its encoding
 * from the byte order mark (UTF-16LE, UTF-16BE, else UTF-8), one column per
 * character, and LF, CR, CR LF, NEL, LS and PS as line breaks. libyaml
 * gives reader errors (bad encoding, control characters) as a byte offset
 * and other errors as a character index; messages want line and column. */
typedef struct cursor {
  const unsigned char *s;
  size_t len, at; /* at: the first byte of the next character */
  yaml_mark_t mark;
  int utf16; /* 0, 'L' or 'B' */
} cursor;

static void cursor_start(cursor *c, const char *text, size_t len) {
  memset(c, 0, sizeof *c);
  c->s = (const unsigned char *)text;
  c->len = len;
  if (len >= 2 && c->s[0] == 0xFF && c->s[1] == 0xFE) c->utf16 = 'L';
  if (len >= 2 && c->s[0] == 0xFE && c->s[1] == 0xFF) c->utf16 = 'B';
  if (c->utf16)
    c->at = 2;
  else if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
    c->at = 3;
}

/* The code point at c->at and its width in bytes. Only line breaks matter,
 * and the text before an encoding error is valid, so broken sequences are
 * only stepped over. */
static unsigned cursor_peek(const cursor *c, size_t *width) {
  const unsigned char *s = c->s + c->at;
  size_t left = c->len - c->at;
  if (c->utf16) {
    unsigned u = left < 2 ? 0 : c->utf16 == 'L' ? s[0] | (unsigned)s[1] << 8 : (unsigned)s[0] << 8 | s[1];
    *width = left < 2 ? left : (u >= 0xD800 && u <= 0xDBFF && left >= 4) ? 4 : 2;
    return u;
  }
  size_t w = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 1, n = 1;
  while (n < w && n < left && (s[n] & 0xC0) == 0x80) n++; /* a broken sequence ends early */
  *width = n;
  if (*width == 2) return (s[0] & 0x1Fu) << 6 | (s[1] & 0x3Fu);
  if (*width == 3) return (s[0] & 0x0Fu) << 12 | (s[1] & 0x3Fu) << 6 | (s[2] & 0x3Fu);
  return *width == 1 ? s[0] : 0x10000;
}

static void cursor_next(cursor *c) {
  size_t w, w2;
  unsigned ch = cursor_peek(c, &w);
  c->at += w;
  c->mark.index++;
  int crlf = ch == '\r' && c->at < c->len && cursor_peek(c, &w2) == '\n'; /* the LF breaks */
  if (!crlf && (ch == '\n' || ch == '\r' || ch == 0x85 || ch == 0x2028 || ch == 0x2029)) {
    c->mark.line++;
    c->mark.column = 0;
  } else {
    c->mark.column++;
  }
}

/* The mark of byte `offset` of the text. */
static yaml_mark_t mark_at_offset(const builder *b, size_t offset) {
  cursor c;
  cursor_start(&c, b->text, b->len);
  while (c.at < offset && c.at < c.len) cursor_next(&c);
  return c.mark;
}

/* The character at libyaml's mark index `index` (0 past the end). */
static unsigned char_at_index(const builder *b, size_t index) {
  cursor c;
  size_t w;
  cursor_start(&c, b->text, b->len);
  while (c.mark.index < index && c.at < c.len) cursor_next(&c);
  return c.at < c.len ? cursor_peek(&c, &w) : 0;
}

/* ---- building a tree from libyaml events ---------------------------------- */

static int fail_mark(builder *b, yaml_mark_t m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail_mark(builder *b, yaml_mark_t m, const char *fmt, ...) {
  thr_ynode at = {0};
  at.origin = b->origin;
  if (b->marks) {
    at.line = (int)m.line + 1;
    at.col = (int)m.column + 1;
  }
  va_list ap;
  va_start(ap, fmt);
  thr_yvfail(b->err, b->errlen, &at, b->path, fmt, ap);
  va_end(ap);
  return -1;
}

/* Text that is not UTF-8 (or UTF-16) or holds a control character: libyaml
 * reads ahead, so the key path being built says nothing about where the
 * bad byte is; its offset does. */
static int reader_error(builder *b) {
  const yaml_parser_t *p = &b->parser;
  yaml_mark_t at = mark_at_offset(b, p->problem_offset), none = {0, 0, 0};
  char value[32] = "";
  if (p->problem_value >= 0) snprintf(value, sizeof value, " (0x%02X)", (unsigned)p->problem_value);
  b->path[b->path_base] = '\0';
  if (!b->marks)
    return fail_mark(b, none, "bad YAML value: invalid text: %s%s (at line %d, column %d of the value)", p->problem,
                     value, (int)at.line + 1, (int)at.column + 1);
  return fail_mark(b, at, "invalid text: %s%s", p->problem, value);
}

static int syntax_error(builder *b) {
  const yaml_parser_t *p = &b->parser;
  const char *problem = p->problem ? p->problem : "invalid YAML";
  yaml_mark_t none = {0, 0, 0};
  if (p->error == YAML_MEMORY_ERROR) return fail_mark(b, none, "out of memory while parsing");
  if (p->error == YAML_READER_ERROR) return reader_error(b);
  if (!b->marks && p->problem_mark.line == 0)
    return fail_mark(b, none, "bad YAML value: %s (at column %d of the value)", problem,
                     (int)p->problem_mark.column + 1);
  if (!b->marks) return fail_mark(b, none, "bad YAML value: %s", problem);
  if (char_at_index(b, p->problem_mark.index) == '\t' && !strstr(problem, "tab"))
    return fail_mark(b, p->problem_mark, "%s: a tab (YAML indents with spaces only)", problem);
  if (p->context)
    return fail_mark(b, p->problem_mark, "%s (%s started at line %d, column %d)", problem, p->context,
                     (int)p->context_mark.line + 1, (int)p->context_mark.column + 1);
  return fail_mark(b, p->problem_mark, "%s", problem);
}

static int next_event(builder *b, yaml_event_t *ev) {
  if (!yaml_parser_parse(&b->parser, ev)) return syntax_error(b);
  return 0;
}

/* Anchors and tags make a scenario's meaning depend on YAML subtleties;
 * only !!str (and the non-specific "!") are accepted, meaning "a string". */
static int check_properties(builder *b, const yaml_event_t *ev, const yaml_char_t *anchor, const yaml_char_t *tag,
                            int *is_str) {
  if (anchor)
    return fail_mark(b, ev->start_mark, "anchors (&%s) are not supported; write the value out in full",
                     (const char *)anchor);
  if (!tag) return 0;
  if (is_str && (!strcmp((const char *)tag, YAML_STR_TAG) || !strcmp((const char *)tag, "!"))) {
    *is_str = 1;
    return 0;
  }
  return fail_mark(b, ev->start_mark, "YAML tags (%s) are not supported", (const char *)tag);
}

static size_t path_push_key(builder *b, const char *key) {
  size_t len = strlen(b->path);
  if (len) thr_str_append(b->path, sizeof b->path, ".");
  thr_str_append(b->path, sizeof b->path, key);
  return len;
}

static size_t path_push_index(builder *b, int index) {
  size_t len = strlen(b->path);
  snprintf(b->path + len, sizeof b->path - len, "[%d]", index);
  return len;
}

static int build_node(builder *b, yaml_event_t *ev, int depth, thr_ynode **out);

static int build_scalar(builder *b, yaml_event_t *ev, thr_ynode **out) {
  int is_str = 0;
  if (check_properties(b, ev, ev->data.scalar.anchor, ev->data.scalar.tag, &is_str)) return -1;
  /* "\0" in a double-quoted value: C strings would silently end it there */
  if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length))
    return fail_mark(b, ev->start_mark, "a NUL character (\\0) is not allowed in a value");
  thr_ynode *n = scalar_new((const char *)ev->data.scalar.value, ev->data.scalar.length, b->origin,
                            b->marks ? (int)ev->start_mark.line + 1 : 0, b->marks ? (int)ev->start_mark.column + 1 : 0);
  if (!n) return fail_mark(b, ev->start_mark, "out of memory");
  n->quoted = is_str || ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
  *out = n;
  return 0;
}

static int build_seq(builder *b, thr_ynode *n, int depth) {
  for (;;) {
    yaml_event_t ev;
    if (next_event(b, &ev)) return -1;
    if (ev.type == YAML_SEQUENCE_END_EVENT) {
      yaml_event_delete(&ev);
      return 0;
    }
    size_t mark = path_push_index(b, n->n);
    thr_ynode *item = NULL;
    int rc = build_node(b, &ev, depth + 1, &item);
    b->path[mark] = '\0';
    if (rc) return -1;
    if (node_push(n, NULL, item)) {
      node_free(item);
      yaml_mark_t none = {0, 0, 0};
      return fail_mark(b, none, "out of memory");
    }
  }
}

/* A map key: a scalar that is not a merge key and not a duplicate. */
static int build_key(builder *b, const thr_ynode *map, yaml_event_t *ev, int depth, thr_ynode **out) {
  if (ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT) {
    int rc = fail_mark(b, ev->start_mark, "map keys must be plain names, got a %s",
                       ev->type == YAML_SEQUENCE_START_EVENT ? "list" : "map");
    yaml_event_delete(ev);
    return rc;
  }
  thr_ynode *key = NULL;
  if (build_node(b, ev, depth + 1, &key)) return -1;
  int rc = 0;
  int dup = map_find(map, key->text);
  if (!key->quoted && !strcmp(key->text, "<<")) {
    rc = -1;
    thr_yfail(b->err, b->errlen, key, b->path, "merge keys (<<) are not supported; write the keys out in full");
  } else if (dup >= 0) {
    rc = -1;
    if (map->keys[dup]->line > 0)
      thr_yfail(b->err, b->errlen, key, b->path, "duplicate key '%s' (first at line %d)", key->text,
                map->keys[dup]->line);
    else
      thr_yfail(b->err, b->errlen, key, b->path, "duplicate key '%s'", key->text);
  }
  if (rc) {
    node_free(key);
    return rc;
  }
  *out = key;
  return 0;
}

static int build_map(builder *b, thr_ynode *n, int depth) {
  for (;;) {
    yaml_event_t ev;
    if (next_event(b, &ev)) return -1;
    if (ev.type == YAML_MAPPING_END_EVENT) {
      yaml_event_delete(&ev);
      return 0;
    }
    thr_ynode *key = NULL, *val = NULL;
    if (build_key(b, n, &ev, depth, &key)) return -1;
    size_t mark = path_push_key(b, key->text);
    int rc = next_event(b, &ev);
    if (!rc) rc = build_node(b, &ev, depth + 1, &val);
    b->path[mark] = '\0';
    if (!rc && node_push(n, key, val)) {
      yaml_mark_t none = {0, 0, 0};
      rc = fail_mark(b, none, "out of memory");
    }
    if (rc) {
      node_free(key);
      node_free(val);
      return -1;
    }
  }
}

/* Build the node that starts with event ev (always consumed). */
static int build_node(builder *b, yaml_event_t *ev, int depth, thr_ynode **out) {
  int rc = 0;
  *out = NULL;
  if (depth > YT_MAX_DEPTH) {
    rc = fail_mark(b, ev->start_mark, "nested more than %d levels deep", YT_MAX_DEPTH);
  } else if (ev->type == YAML_ALIAS_EVENT) {
    rc = fail_mark(b, ev->start_mark, "aliases (*%s) are not supported; write the value out in full",
                   (const char *)ev->data.alias.anchor);
  } else if (ev->type == YAML_SCALAR_EVENT) {
    rc = build_scalar(b, ev, out);
  } else if (ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT) {
    int is_seq = ev->type == YAML_SEQUENCE_START_EVENT;
    rc = is_seq ? check_properties(b, ev, ev->data.sequence_start.anchor, ev->data.sequence_start.tag, NULL)
                : check_properties(b, ev, ev->data.mapping_start.anchor, ev->data.mapping_start.tag, NULL);
    thr_ynode *n = NULL;
    if (!rc) {
      n = node_new(is_seq ? THR_Y_SEQ : THR_Y_MAP, b->origin, b->marks ? (int)ev->start_mark.line + 1 : 0,
                   b->marks ? (int)ev->start_mark.column + 1 : 0);
      if (!n) rc = fail_mark(b, ev->start_mark, "out of memory");
    }
    if (!rc) rc = is_seq ? build_seq(b, n, depth) : build_map(b, n, depth);
    if (rc)
      node_free(n);
    else
      *out = n;
  } else {
    rc = fail_mark(b, ev->start_mark, "unexpected YAML structure");
  }
  yaml_event_delete(ev);
  return rc;
}

/* STREAM-START [DOCUMENT-START node DOCUMENT-END] STREAM-END. */
static int build_stream(builder *b, thr_ynode **root) {
  yaml_event_t ev;
  *root = NULL;
  if (next_event(b, &ev)) return -1; /* stream start */
  yaml_event_delete(&ev);
  if (next_event(b, &ev)) return -1;
  int empty = ev.type == YAML_STREAM_END_EVENT;
  yaml_event_delete(&ev);
  if (empty) return 0;
  if (next_event(b, &ev) || build_node(b, &ev, 0, root)) return -1;
  if (next_event(b, &ev)) goto fail; /* document end */
  yaml_event_delete(&ev);
  if (next_event(b, &ev)) goto fail;
  if (ev.type != YAML_STREAM_END_EVENT) {
    fail_mark(b, ev.start_mark, "a scenario is one YAML document; found a second one");
    yaml_event_delete(&ev);
    goto fail;
  }
  yaml_event_delete(&ev);
  return 0;
fail:
  node_free(*root);
  *root = NULL;
  return -1;
}

/* Parse text; `path` is the key path the text sits at (for messages). */
static int parse_text(const char *text, size_t len, const char *origin, int marks, const char *path, thr_ynode **root,
                      char *err, size_t errlen) {
  builder b;
  memset(&b, 0, sizeof b);
  b.origin = origin;
  b.marks = marks;
  b.text = text;
  b.len = len;
  b.err = err;
  b.errlen = errlen;
  snprintf(b.path, sizeof b.path, "%s", path);
  b.path_base = strlen(b.path);
  if (!yaml_parser_initialize(&b.parser)) {
    thr_ynode at = {0};
    at.origin = origin;
    thr_yfail(err, errlen, &at, path, "cannot initialise the YAML parser");
    return -1;
  }
  yaml_parser_set_input_string(&b.parser, (const unsigned char *)text, len);
  int rc = build_stream(&b, root);
  yaml_parser_delete(&b.parser);
  return rc;
}

/* ---- loading -------------------------------------------------------------- */

/* "ORIGIN: WHATDETAIL", for failures before there is any text to point into. */
static int fail_origin(char *err, size_t errlen, const char *origin, const char *what, const char *detail) {
  thr_ynode at = {0};
  at.origin = origin;
  thr_yfail(err, errlen, &at, "", "%s%s", what, detail);
  return -1;
}

int thr_ytree_load_string(thr_ytree *t, const char *text, const char *origin, char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  const char *o = add_origin(t, origin, "");
  if (!o) return fail_origin(err, errlen, origin, "out of memory", "");
  if (parse_text(text, strlen(text), o, 1, "", &t->root, err, errlen)) {
    thr_ytree_free(t);
    return -1;
  }
  return 0;
}

int thr_ytree_load_file(thr_ytree *t, const char *path, char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  size_t len = 0;
  char why[160];
  char *text = thr_input_read(path, THR_INPUT_MAX_SCENARIO, &len, why, sizeof why);
  if (!text) return fail_origin(err, errlen, path, "cannot read the scenario file: ", why);
  const char *o = add_origin(t, path, "");
  int rc = o ? parse_text(text, len, o, 1, "", &t->root, err, errlen)
             : fail_origin(err, errlen, path, "out of memory", "");
  free(text);
  if (rc) thr_ytree_free(t);
  return rc;
}

/* ---- overrides ------------------------------------------------------------ */

typedef struct keyseg {
  char name[YT_NAME_MAX]; /* map key, or "" for a list index */
  long index;
} keyseg;

static int is_name_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
}

/* "a.b[2].c" -> segments; 0 on success. */
static int parse_keypath(const char *key, keyseg *segs, int *nseg) {
  const char *s = key;
  int n = 0;
  while (*s) {
    if (n == YT_MAX_SEGMENTS) return -1;
    keyseg *g = &segs[n];
    if (*s == '[') {
      if (n == 0) return -1;
      char *end = NULL;
      if (s[1] < '0' || s[1] > '9') return -1;
      errno = 0;
      g->index = strtol(s + 1, &end, 10);
      if (errno || *end != ']') return -1;
      g->name[0] = '\0';
      s = end + 1;
    } else {
      if (n > 0) {
        if (*s != '.') return -1;
        s++;
      }
      size_t len = 0;
      while (is_name_char(s[len])) len++;
      if (len == 0 || len >= YT_NAME_MAX) return -1;
      memcpy(g->name, s, len);
      g->name[len] = '\0';
      g->index = -1;
      s += len;
    }
    n++;
  }
  *nseg = n;
  return n > 0 ? 0 : -1;
}

static const char *kind_words(const thr_ynode *n) {
  if (n->kind == THR_Y_SEQ) return "a list";
  if (n->kind == THR_Y_MAP) return "a map";
  return "a single value";
}

/* Walk to KEY, creating missing map keys, and put val there. */
static int place_value(thr_ytree *t, const keyseg *segs, int nseg, thr_ynode *val, const char *origin, char *err,
                       size_t errlen) {
  thr_ynode at = {0};
  at.origin = origin;
  char prefix[YT_PATH_MAX] = "";
  thr_ynode **slot = &t->root;
  for (int i = 0; i < nseg; ++i) {
    const keyseg *g = &segs[i];
    size_t plen = strlen(prefix);
    if (g->name[0]) {
      if (!*slot || thr_ynode_is_null(*slot)) { /* an empty section becomes a map */
        thr_ynode *m = node_new(THR_Y_MAP, origin, 0, 0);
        if (!m) goto oom;
        node_free(*slot);
        *slot = m;
      }
      thr_ynode *cur = *slot;
      if (cur->kind != THR_Y_MAP) {
        thr_yfail(err, errlen, &at, prefix, "is %s, not a map; it has no key '%s'", kind_words(cur), g->name);
        return -1;
      }
      if (plen) thr_str_append(prefix, sizeof prefix, ".");
      thr_str_append(prefix, sizeof prefix, g->name);
      int k = map_find(cur, g->name);
      if (k < 0) {
        if (i + 1 < nseg && !segs[i + 1].name[0]) {
          thr_yfail(err, errlen, &at, prefix, "no such list; index [%ld] is past its end", segs[i + 1].index);
          return -1;
        }
        thr_ynode *key = scalar_new(g->name, strlen(g->name), origin, 0, 0);
        thr_ynode *child = i + 1 == nseg ? val : node_new(THR_Y_MAP, origin, 0, 0);
        if (!key || !child || node_push(cur, key, child)) {
          node_free(key);
          if (child != val) node_free(child);
          goto oom;
        }
        if (child == val) return 0;
        k = cur->n - 1;
      }
      slot = &cur->items[k];
    } else {
      thr_ynode *cur = *slot;
      if (cur->kind != THR_Y_SEQ) {
        thr_yfail(err, errlen, &at, prefix, "is %s, not a list; it has no item [%ld]", kind_words(cur), g->index);
        return -1;
      }
      snprintf(prefix + plen, sizeof prefix - plen, "[%ld]", g->index);
      if (g->index >= cur->n) {
        thr_yfail(err, errlen, &at, prefix, "index past the end of the list (it has %d item%s)", cur->n,
                  cur->n == 1 ? "" : "s");
        return -1;
      }
      slot = &cur->items[g->index];
    }
  }
  node_free(*slot);
  *slot = val;
  return 0;
oom:
  thr_yfail(err, errlen, &at, prefix, "out of memory");
  return -1;
}

static void trim_copy(char *dst, size_t size, const char *src, size_t len) {
  while (len && (*src == ' ' || *src == '\t')) src++, len--;
  while (len && (src[len - 1] == ' ' || src[len - 1] == '\t')) len--;
  if (len >= size) len = size - 1;
  memcpy(dst, src, len);
  dst[len] = '\0';
}

int thr_ytree_apply_set(thr_ytree *t, const char *set, char *err, size_t errlen) {
  const char *origin = add_origin(t, "--set ", set);
  thr_ynode at = {0};
  at.origin = origin ? origin : "--set";
  if (!origin) {
    thr_yfail(err, errlen, &at, "", "out of memory");
    return -1;
  }
  const char *eq = strchr(set, '=');
  if (!eq) {
    thr_yfail(err, errlen, &at, "", "expected KEY=VALUE (e.g. --set solver.iterations=8)");
    return -1;
  }
  char key[YT_PATH_MAX];
  keyseg segs[YT_MAX_SEGMENTS];
  int nseg = 0;
  trim_copy(key, sizeof key, set, (size_t)(eq - set));
  if (parse_keypath(key, segs, &nseg)) {
    thr_yfail(err, errlen, &at, "", "bad key '%s': expected a dotted path such as solver.iterations or agents[0].count",
              key);
    return -1;
  }
  thr_ynode *val = NULL;
  if (parse_text(eq + 1, strlen(eq + 1), origin, 0, key, &val, err, errlen)) return -1;
  if (!val && !(val = scalar_new("", 0, origin, 0, 0))) { /* empty VALUE: YAML null */
    thr_yfail(err, errlen, &at, key, "out of memory");
    return -1;
  }
  if (t->root && t->root->kind != THR_Y_MAP && !thr_ynode_is_null(t->root)) {
    thr_yfail(err, errlen, &at, "", "the scenario is not a map of keys; cannot set '%s'", key);
    node_free(val);
    return -1;
  }
  if (place_value(t, segs, nseg, val, origin, err, errlen)) {
    node_free(val);
    return -1;
  }
  return 0;
}
