/* The scenario schema as data: one table row per scenario key, nested keys
 * and list items included. A row gives the key's path, type, range,
 * default, one-line meaning and, for a scalar stored in a struct field, the
 * field. io/config.c reads values and applies defaults through the rows and
 * takes its "known keys here" lists from them; `throng schema` prints them as
 * the key tables of docs/configuration.md. */
#ifndef THRONG_SCHEMA_H
#define THRONG_SCHEMA_H

#include <stddef.h>
#include <stdio.h>

/* What a key holds. 0 is no type, so that a row without one stands out. */
enum thr_key_type {
  THR_KEY_MAP = 1,         /* a map of the keys below it */
  THR_KEY_LIST,            /* a list of items; "path[]" names an item */
  THR_KEY_NUMBER,          /* float */
  THR_KEY_INTEGER,         /* int, long or uint64_t (field.ctype says) */
  THR_KEY_BOOL,            /* int 0/1 */
  THR_KEY_STRING,          /* char[field.size] */
  THR_KEY_POINT,           /* [x, y], thr_vec2 */
  THR_KEY_POINTS,          /* a list of min_items..max_items points */
  THR_KEY_CHOICE,          /* one word of `choices`, stored as its index (int) */
  THR_KEY_NUMBER_OR_MAP,   /* a number, or a map of the keys below it */
  THR_KEY_NUMBER_OR_POINT, /* a number (both coordinates) or a point */
  THR_KEY_GOAL,            /* a goal name, a list of goal names, or a map */
  THR_KEY_NAMES,           /* a list of at least min_items names (strings) */
  THR_KEY_WEIGHTS          /* a map of names to weights (integers > 0) */
};

/* Which values a number, integer, point or string may take. */
enum thr_range {
  THR_RANGE_ANY,
  THR_RANGE_GT0,     /* > 0 (integers: >= 1; points: both coordinates) */
  THR_RANGE_GE0,     /* >= 0 */
  THR_RANGE_UNIT,    /* in [0, 1] */
  THR_RANGE_STIFF,   /* in (0, 1] */
  THR_RANGE_GE1,     /* >= 1 */
  THR_RANGE_NONEMPTY /* strings: not empty */
};

enum thr_key_flag {
  THR_KEY_REQUIRED = 1, /* must be given (keys of some forms only: for the forms it applies to) */
  THR_KEY_ONE_OF = 2,   /* exactly one of the ONE_OF keys beside it must be given */
  THR_KEY_PROPERTY = 4  /* agents[] keys that describe the agents rather than place them: the keys
                           that a map `like` agents[] (a source's agents) takes */
};

/* Where a field lives: thr_scenario, its thr_params, the item being read
 * (thr_block, thr_stage_def, thr_source_def), or a variable of the field's
 * C type of its own (a value the scenario keeps in no struct, such as the
 * depth of an exit, which becomes the exit's polygon). */
enum thr_at { THR_AT_NONE, THR_AT_SCENARIO, THR_AT_PARAMS, THR_AT_BLOCK, THR_AT_STAGE, THR_AT_SOURCE, THR_AT_FORMATION, THR_AT_VALUE };

/* The C type of a field. */
enum thr_ctype { THR_C_NONE, THR_C_FLOAT, THR_C_INT, THR_C_LONG, THR_C_U64, THR_C_VEC2, THR_C_CHARS };

typedef struct thr_key_field {
  int at;      /* enum thr_at: thr_scenario, its thr_params, or thr_block; NONE: no field */
  int ctype;   /* enum thr_ctype */
  size_t off;  /* offsetof the member */
  size_t size; /* sizeof the member */
} thr_key_field;

typedef struct thr_key {
  const char *path;     /* "contact.stiffness", "agents[].speed.mean"; [] stands for any list index */
  int type;             /* enum thr_key_type */
  int range;            /* enum thr_range */
  int flags;            /* enum thr_key_flag */
  const char *def;      /* the default, as YAML text read like a file's value; NULL: none */
  const char *def_note; /* what the docs show as the default when it is derived or needs words */
  const char *meaning;  /* one line for the docs */
  const char *choices;  /* THR_KEY_CHOICE: "a, b, c" */
  int min_items;        /* THR_KEY_POINTS, THR_KEY_NAMES: fewest items */
  int max_items;        /* THR_KEY_POINTS: most points; 0 = no limit */
  unsigned forms;       /* keys of list items that come in forms: bit F set for each form F that takes
                           the key; 0 = every form. The forms of agents[] are its layouts (enum
                           thr_layout, the choices of agents[].layout), of stages[] and exits[] their
                           ONE_OF keys in table order (enum thr_stage_kind for stages) */
  const char *like;     /* a map whose keys are the PROPERTY rows under this path ("agents[]") */
  thr_key_field field;  /* where a scalar value is stored */
} thr_key;

/* Model presets (model.preset): a preset gives some keys other defaults,
 * which the scenario's own values override. */
enum thr_preset { THR_PRESET_PAPER, THR_PRESET_PEDESTRIAN, THR_PRESET_COUNT };

typedef struct thr_preset_value {
  int preset;        /* enum thr_preset */
  const char *path;  /* a row with a field and a default (agents[] rows: each block's default) */
  const char *value; /* YAML text, read as the row reads a file's value */
} thr_preset_value;

extern const thr_preset_value thr_preset_values[];
extern const size_t thr_preset_values_len;

/* Every key, depth first in the order of docs/configuration.md. */
extern const thr_key thr_schema[];
extern const size_t thr_schema_len;

/* The row of a schema path, or NULL. Below a row with `like`, the row of
 * the same key under the `like` path (sources[].agents.speed ->
 * agents[].speed). */
const thr_key *thr_schema_find(const char *path);

/* The last part of a key's path: "mean" for agents[].speed.mean. */
const char *thr_key_name(const thr_key *k);

/* Whether k sits directly under `parent` ("" for the top level,
 * "agents[]" for agent blocks, "agents[].speed", ...). */
int thr_key_is_child(const thr_key *k, const char *parent);

/* The row directly under `parent` called `name`, or NULL. */
const thr_key *thr_schema_child(const char *parent, const char *name);

/* Whether a key applies to form `form` of its item. */
int thr_key_takes_form(const thr_key *k, int form);

/* The name of form `form` of the items under `parent` ("agents[]": "grid",
 * ...; "stages[]": "waypoint", ...) into buf (empty when there is none);
 * returns buf. The forms come from the parent's required CHOICE key
 * (agents[].layout), else from its ONE_OF keys in table order. */
const char *thr_schema_form_name(char *buf, size_t len, const char *parent, int form);

/* The names of the keys directly under `parent` that have every flag in
 * `flags`, in table order, joined by `sep` ("a, b, c"); returns buf. Under
 * a map `like` another path: the PROPERTY keys of that path. */
const char *thr_schema_names(char *buf, size_t len, const char *parent, int flags, const char *sep);

/* The keys under `parent` that only some forms take, as far as form `form`
 * takes them ("min, max, rows, cols, spacing, count" for a grid block). */
const char *thr_schema_form_keys(char *buf, size_t len, const char *parent, int form);

/* Word `index` of a CHOICE key's choices into buf (empty if none). Returns buf. */
const char *thr_key_choice(const thr_key *k, int index, char *buf, size_t len);

/* The index of `word` among a CHOICE key's choices, or -1. */
int thr_key_choice_index(const thr_key *k, const char *word);

/* " > 0", " >= 0", " in [0, 1]", ...: a range as messages write it after
 * "a number"; "" for THR_RANGE_ANY. */
const char *thr_range_text(int range);

/* Whether v lies in the range. */
int thr_range_holds(int range, double v);

/* The key reference as markdown, one table per section (key | type |
 * default | meaning), as docs/configuration.md has it. */
void thr_schema_print_markdown(FILE *f);

#endif
