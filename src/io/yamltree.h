/* A small owned YAML tree (maps, lists, scalars) built with libyaml's event
 * API. Every node remembers where it came from (file, line, column, or the
 * --set override that produced it) so that validation errors can point at
 * it. Anchors, aliases, merge keys, tags other than !!str and duplicate map
 * keys are rejected while building: they make scenario files ambiguous. */
#ifndef THRONG_YAMLTREE_H
#define THRONG_YAMLTREE_H

#include <stdarg.h>
#include <stddef.h>

enum thr_ykind { THR_Y_SCALAR, THR_Y_SEQ, THR_Y_MAP };

typedef struct thr_ynode {
  int kind;                 /* enum thr_ykind */
  int line, col;            /* 1-based; 0 for nodes that came from an override */
  const char *origin;       /* file path or "--set KEY=VALUE"; owned by the tree */
  char *text;               /* SCALAR: the value */
  int quoted;               /* SCALAR: quoted, block (| >) or !!str: always a string */
  int n, cap;               /* SEQ: items; MAP: entries */
  struct thr_ynode **items; /* SEQ: the items; MAP: the values */
  struct thr_ynode **keys;  /* MAP: the keys (scalars), parallel to items */
} thr_ynode;

struct thr_yorigin;

typedef struct thr_ytree {
  thr_ynode *root;             /* NULL for an empty file */
  struct thr_yorigin *origins; /* strings the nodes' origin fields point into */
} thr_ytree;

/* Parse a whole file. On error writes "PATH:LINE:COL: problem" (or
 * "PATH: cannot read ...") to err and returns -1; *t is then empty. */
int thr_ytree_load_file(thr_ytree *t, const char *path, char *err, size_t errlen);

/* Parse text in memory; `origin` names it in node origins and messages. */
int thr_ytree_load_string(thr_ytree *t, const char *text, const char *origin, char *err, size_t errlen);

/* Apply one override "KEY=VALUE": KEY is a dotted path with [index]
 * subscripts (agents[0].count), VALUE a YAML value. Replaces the node at KEY
 * or creates missing map keys (and missing intermediate maps); an index
 * past the end of a list is an error. Errors start with "--set KEY=VALUE: ". */
int thr_ytree_apply_set(thr_ytree *t, const char *set, char *err, size_t errlen);

void thr_ytree_free(thr_ytree *t);

/* The value stored under `key` in a map (NULL when absent or not a map). */
const thr_ynode *thr_ymap_get(const thr_ynode *map, const char *key);
/* The key node of `key` in a map (for messages about the key itself). */
const thr_ynode *thr_ymap_key(const thr_ynode *map, const char *key);

/* A plain empty, ~ or null scalar (YAML's null). */
int thr_ynode_is_null(const thr_ynode *n);

/* "PATH:LINE:COL" for nodes from a file, the override text otherwise. */
void thr_ynode_where(const thr_ynode *n, char *buf, size_t len);

/* Describe a node for "got ...": "\"text\"", "a list", "a map", "nothing". */
void thr_ynode_describe(const thr_ynode *n, char *buf, size_t len);

/* Write "WHERE: KEYPATH: message" to err (KEYPATH omitted when empty),
 * with its unprintable bytes escaped as \xNN. */
void thr_yfail(char *err, size_t errlen, const thr_ynode *at, const char *keypath, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
void thr_yvfail(char *err, size_t errlen, const thr_ynode *at, const char *keypath, const char *fmt, va_list ap);

/* Whether s is printable text: UTF-8 without control characters (C0, DEL,
 * C1). Messages (thr_yfail) show the bytes of anything else as \xNN. */
int thr_text_is_printable(const char *s);

/* Rewrite the text in buf[size] with every unprintable byte as \xNN
 * (truncating at size): for any text from a user (paths, names) on its way
 * to a terminal or a log. */
void thr_text_escape(char *buf, size_t size);

/* Bytes of s's longest prefix of at most max bytes that does not end
 * inside a UTF-8 character (for shortening text in messages and names). */
size_t thr_text_prefix(const char *s, size_t max);

/* Length of the decimal number at the start of s, 0 when there is none:
 * [-+]?(d+(.d*)?|.d+)([eE][-+]?d+)? (scenario values, WKT coordinates). */
size_t thr_text_scan_decimal(const char *s);

/* Append s to the string in buf[size], truncating (messages). */
void thr_str_append(char *buf, size_t size, const char *s);

#endif
