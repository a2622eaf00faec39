/* Unit tests of the key table (io/schema.c): every row well formed, every
 * default readable by its key's own reader and in range, the defaults the
 * paper documents, and the table agreeing with what the parser accepts
 * (required keys, layouts, a file that spells out every default). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "io/config.h"
#include "io/models.h"
#include "io/schema.h"

#define TOL 1e-6

/* ---- helpers -------------------------------------------------------------- */

/* Load `yaml` (written to a fresh file) with overrides; 0 or -1, message in err. */
static int load(const char *yaml, const char *const *sets, int n_sets, thr_scenario *sc, char *err, size_t len) {
  char dir[] = "/tmp/thr_schema_XXXXXX", path[64];
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    exit(1);
  }
  snprintf(path, sizeof path, "%s/scn.yaml", dir);
  FILE *f = fopen(path, "w");
  if (!f || fputs(yaml, f) < 0 || fclose(f)) {
    perror(path);
    exit(1);
  }
  int rc = thr_config_load(path, sets, n_sets, sc, err, len);
  remove(path);
  rmdir(dir);
  return rc;
}

/* The parent of a row's path: "agents[]" for agents[].speed, "" for seed. */
static void parent_of(const thr_key *k, char *buf, size_t len) {
  const char *dot = strrchr(k->path, '.');
  size_t n = dot ? (size_t)(dot - k->path) : 0;
  snprintf(buf, len, "%.*s", (int)n, k->path);
}

static size_t ctype_size(int ctype) {
  switch (ctype) {
    case THR_C_FLOAT:
      return sizeof(float);
    case THR_C_INT:
      return sizeof(int);
    case THR_C_LONG:
      return sizeof(long);
    case THR_C_U64:
      return sizeof(uint64_t);
    case THR_C_VEC2:
      return sizeof(thr_vec2);
    default:
      return 0;
  }
}

static size_t struct_size(int at, int ctype) {
  switch (at) {
    case THR_AT_SCENARIO:
      return sizeof(thr_scenario);
    case THR_AT_PARAMS:
      return sizeof(thr_params);
    case THR_AT_BLOCK:
      return sizeof(thr_block);
    case THR_AT_STAGE:
      return sizeof(thr_stage_def);
    case THR_AT_SOURCE:
      return sizeof(thr_source_def);
    case THR_AT_FORMATION:
      return sizeof(thr_formation_def);
    default:
      return ctype_size(ctype); /* THR_AT_VALUE: a variable of its own */
  }
}

/* Room for a field of any struct, to read defaults into. */
typedef union any_struct {
  thr_scenario sc;
  thr_block blk;
  thr_stage_def stage;
  thr_source_def src;
  thr_formation_def formation;
  double value;
} any_struct;

static void *object_for(int at, any_struct *objs) {
  return at == THR_AT_PARAMS ? (void *)&objs->sc.prm : (void *)objs;
}

/* Whether a row of this type may store into a field of this C type. */
static int type_fits_ctype(int type, int ctype) {
  switch (type) {
    case THR_KEY_NUMBER:
      return ctype == THR_C_FLOAT;
    case THR_KEY_INTEGER:
      return ctype == THR_C_INT || ctype == THR_C_LONG || ctype == THR_C_U64;
    case THR_KEY_BOOL:
    case THR_KEY_CHOICE:
      return ctype == THR_C_INT;
    case THR_KEY_POINT:
      return ctype == THR_C_VEC2;
    case THR_KEY_STRING:
      return ctype == THR_C_CHARS;
    default:
      return 0;
  }
}

/* ---- the rows themselves -------------------------------------------------- */

THR_TEST(every_row_has_type_and_meaning) {
  CHECK(thr_schema_len > 90);
  for (size_t i = 0; i < thr_schema_len; ++i) {
    const thr_key *k = &thr_schema[i];
    int ok = k->path && *k->path && k->type >= THR_KEY_MAP && k->type <= THR_KEY_WEIGHTS && k->meaning && *k->meaning &&
             !strchr(k->meaning, '\n');
    if (!ok) fprintf(stderr, "  row %zu (%s): no path, type or one-line meaning\n", i, k->path ? k->path : "?");
    CHECK(ok);
  }
}

THR_TEST(paths_are_unique) {
  for (size_t i = 0; i < thr_schema_len; ++i)
    for (size_t j = i + 1; j < thr_schema_len; ++j)
      if (!strcmp(thr_schema[i].path, thr_schema[j].path)) {
        fprintf(stderr, "  '%s' is in rows %zu and %zu\n", thr_schema[i].path, i, j);
        CHECK(0);
      }
}

/* Rows are depth first: a row's parent comes before it, and is a map, a
 * list (for "list[]" parents) or a key with a map form. */
THR_TEST(parents_come_first) {
  for (size_t i = 0; i < thr_schema_len; ++i) {
    const thr_key *k = &thr_schema[i];
    char parent[128];
    parent_of(k, parent, sizeof parent);
    if (!*parent) continue;
    size_t n = strlen(parent);
    int item = n > 2 && !strcmp(parent + n - 2, "[]");
    if (item) parent[n - 2] = '\0';
    const thr_key *p = thr_schema_find(parent);
    int ok = p && p < k &&
             (item ? p->type == THR_KEY_LIST
                   : p->type == THR_KEY_MAP || p->type == THR_KEY_NUMBER_OR_MAP || p->type == THR_KEY_GOAL);
    if (!ok) fprintf(stderr, "  %s: no fitting parent row '%s' before it\n", k->path, parent);
    CHECK(ok);
  }
}

THR_TEST(fields_fit_their_rows) {
  for (size_t i = 0; i < thr_schema_len; ++i) {
    const thr_key *k = &thr_schema[i];
    const thr_key_field *f = &k->field;
    if (f->at == THR_AT_NONE) continue;
    int ok = type_fits_ctype(k->type, f->ctype) && f->off + f->size <= struct_size(f->at, f->ctype) &&
             (f->ctype == THR_C_CHARS ? f->size > 1 : f->size == ctype_size(f->ctype));
    if (!ok)
      fprintf(stderr, "  %s: field (at %d, C type %d, size %zu) does not fit\n", k->path, f->at, f->ctype, f->size);
    CHECK(ok);
  }
}

THR_TEST(defaults_read_and_lie_in_range) {
  static any_struct objs;
  for (size_t i = 0; i < thr_schema_len; ++i) {
    const thr_key *k = &thr_schema[i];
    if (!k->def) continue;
    char err[256] = "";
    void *obj = object_for(k->field.at, &objs);
    int rc = thr_config_read_default(k, obj, err, sizeof err);
    if (rc) fprintf(stderr, "  %s: default '%s' does not read: %s\n", k->path, k->def, err);
    CHECK(rc == 0);
    CHECK(!(k->flags & THR_KEY_REQUIRED)); /* a default is never required */
    if (rc || k->type != THR_KEY_NUMBER) continue;
    float v;
    memcpy(&v, (char *)obj + k->field.off, sizeof v);
    if (!thr_range_holds(k->range, v))
      fprintf(stderr, "  %s: default %g outside%s\n", k->path, v, thr_range_text(k->range));
    CHECK(thr_range_holds(k->range, v));
  }
}

/* Every preset value names a key with a field and reads as that key's
 * values do (in range), and no preset sets one key twice. */
THR_TEST(every_preset_value_reads) {
  static any_struct objs;
  CHECK(thr_preset_values_len > 0);
  for (size_t i = 0; i < thr_preset_values_len; ++i) {
    const thr_preset_value *pv = &thr_preset_values[i];
    const thr_key *k = thr_schema_find(pv->path);
    if (!k) fprintf(stderr, "  preset value for %s: no such key\n", pv->path);
    CHECK(k != NULL);
    if (!k) continue;
    CHECK(k->field.at != THR_AT_NONE && k->def != NULL);
    CHECK(pv->preset > THR_PRESET_PAPER && pv->preset < THR_PRESET_COUNT);
    char err[256] = "";
    int rc = thr_config_read_preset_value(pv, object_for(k->field.at, &objs), err, sizeof err);
    if (rc) fprintf(stderr, "  preset value %s = '%s' does not read: %s\n", pv->path, pv->value, err);
    CHECK(rc == 0);
    for (size_t j = 0; j < i; ++j)
      CHECK(!(thr_preset_values[j].preset == pv->preset && !strcmp(thr_preset_values[j].path, pv->path)));
  }
}

THR_TEST(a_bad_default_is_reported) {
  thr_key bad = *thr_schema_find("contact.stiffness");
  bad.def = "2";
  thr_params p;
  char err[256];
  CHECK(thr_config_read_default(&bad, &p, err, sizeof err) == -1);
  CHECK(!strcmp(err, "the key table's default: contact.stiffness: expected a number in (0, 1], got \"2\""));
  CHECK(thr_config_read_default(thr_schema_find("world"), &p, err, sizeof err) == -1);
}

/* ---- the documented values ------------------------------------------------ */

THR_TEST(defaults_are_the_papers) {
  static thr_scenario sc; /* zeroed */
  thr_config_scenario_defaults(&sc);
  const thr_params *p = &sc.prm;
  CHECK(p->dt == 1.0f / 48.0f);
  CHECK(p->solver_iterations == 6 && p->stability_iterations == 1);
  CHECK_NEAR(p->omega, 1.2, TOL);
  CHECK_NEAR(p->alpha, 0.0385, TOL);
  CHECK_NEAR(p->radius_scale, 1.05, TOL);
  CHECK(p->contact_on == 1 && p->friction_on == 1);
  CHECK(p->contact_stiffness == 1.0f);
  CHECK_NEAR(p->mu_static, 0.21, TOL);
  CHECK_NEAR(p->mu_kinetic, 0.10, TOL);
  CHECK(p->longrange_on == 1);
  CHECK_NEAR(p->lr_stiffness, 0.24, TOL);
  CHECK(p->lr_tau0 == 20.0f && p->lr_radius == 3.0f);
  CHECK(p->avoidance_on == 0);
  CHECK_NEAR(p->av_stiffness, 0.24, TOL);
  CHECK(p->av_tau0 == 20.0f && p->av_radius == 3.0f);
  CHECK(p->walls_on == 1 && p->wall_stiffness == 1.0f);
  CHECK(p->xsph_on == 1 && p->xsph_h == 3.5f);
  CHECK_NEAR(p->xsph_c, 0.1, TOL);
  CHECK(p->xsph_poly6 == 0.0f); /* derived by the world, not a default */
  CHECK(p->max_speed == 2.5f && p->max_accel == 0.0f && p->arrive_radius == 0.5f);
  CHECK(p->cell_size == 0.0f); /* 0 = auto */
  CHECK_NEAR(p->skin, 0.3, TOL);
  CHECK(sc.seed == 1 && sc.steps == 1000);
  CHECK(sc.trajectory_every == 24 && sc.metrics_every == 1);
  CHECK(sc.balance_every == 50);
  CHECK_NEAR(sc.balance_threshold, 1.10, TOL);
  CHECK(sc.out_dir[0] == '\0' && sc.name[0] == '\0');
}

THR_TEST(block_defaults_are_the_papers) {
  thr_block b;
  memset(&b, 0, sizeof b);
  thr_config_block_defaults(&b);
  CHECK_NEAR(b.speed_mean, 1.4, TOL);
  CHECK_NEAR(b.speed_spread, 0.1, TOL);
  CHECK(b.radius_min == 0.5f && b.radius_max == 0.5f);
  CHECK(b.mass_min == 1.0f && b.mass_max == 1.0f);
  CHECK(b.jitter == 0.0f && b.goal_jitter == 0.0f && b.count == 0 && b.goal_kind == THR_BGOAL_NONE);
}

THR_TEST(params_defaults_are_the_scenarios) {
  static thr_scenario sc;
  thr_params p;
  memset(&p, 0xff, sizeof p);
  thr_params_defaults(&p);
  thr_config_scenario_defaults(&sc);
  CHECK(memcmp(&p, &sc.prm, sizeof p) == 0);
}

/* ---- the table and the parser agree --------------------------------------- */

THR_TEST(layout_choices_are_the_enum) {
  const thr_key *k = thr_schema_find("agents[].layout");
  CHECK(k && k->type == THR_KEY_CHOICE);
  CHECK(thr_key_choice_index(k, "grid") == THR_LAYOUT_GRID);
  CHECK(thr_key_choice_index(k, "random") == THR_LAYOUT_RANDOM);
  CHECK(thr_key_choice_index(k, "disk") == THR_LAYOUT_DISK);
  CHECK(thr_key_choice_index(k, "ellipse") == THR_LAYOUT_ELLIPSE);
  CHECK(thr_key_choice_index(k, "circle") == THR_LAYOUT_CIRCLE);
  CHECK(thr_key_choice_index(k, "polygon") == THR_LAYOUT_POLYGON);
  CHECK(thr_key_choice_index(k, "points") == THR_LAYOUT_POINTS);
  CHECK(thr_key_choice_index(k, "square") == -1);
}

/* The forms of stages and transitions are their ONE_OF keys in table order,
 * which must be the enums' order. */
THR_TEST(stage_and_transition_forms_are_the_enums) {
  char buf[64];
  CHECK(!strcmp(thr_schema_form_name(buf, sizeof buf, "stages[]", THR_STAGE_WAYPOINT), "waypoint"));
  CHECK(!strcmp(thr_schema_form_name(buf, sizeof buf, "stages[]", THR_STAGE_EXIT), "exit"));
  CHECK(!strcmp(thr_schema_form_name(buf, sizeof buf, "stages[]", THR_STAGE_QUEUE), "queue"));
  CHECK(!strcmp(thr_schema_form_name(buf, sizeof buf, "stages[]", THR_STAGE_WAITING), "waiting"));
  CHECK(!*thr_schema_form_name(buf, sizeof buf, "stages[]", THR_STAGE_WAITING + 1));
  const char *tr = "journeys[].transitions[]";
  CHECK(!strcmp(thr_schema_form_name(buf, sizeof buf, tr, THR_TRANSITION_FIXED), "to"));
  CHECK(!strcmp(thr_schema_form_name(buf, sizeof buf, tr, THR_TRANSITION_ROUND_ROBIN), "round_robin"));
  CHECK(!strcmp(thr_schema_form_name(buf, sizeof buf, tr, THR_TRANSITION_LEAST_TARGETED), "least_targeted"));
  CHECK(!strcmp(thr_schema_form_name(buf, sizeof buf, "agents[]", THR_LAYOUT_POLYGON), "polygon"));
  CHECK(!strcmp(thr_schema_form_name(buf, sizeof buf, "exits[]", 1), "segment"));
}

/* A source's agents take the block keys flagged PROPERTY, which its row's
 * meaning names. */
THR_TEST(source_agents_take_the_property_keys) {
  char buf[256];
  const char *keys = "speed, agent_radius, mass, agility, group, goal, altitude, premovement, exit, journey";
  CHECK(!strcmp(thr_schema_names(buf, sizeof buf, "agents[]", THR_KEY_PROPERTY, ", "), keys));
  CHECK(!strcmp(thr_schema_names(buf, sizeof buf, "sources[].agents", 0, ", "), keys));
  CHECK(strstr(thr_schema_find("sources[].agents")->meaning, keys) != NULL);
  CHECK(thr_schema_find("sources[].agents.speed.mean") == thr_schema_find("agents[].speed.mean"));
  CHECK(thr_schema_find("sources[].agentsx.speed") == NULL);
}

THR_TEST(key_lists_come_from_the_table) {
  char buf[512];
  CHECK(!strcmp(thr_schema_names(buf, sizeof buf, "world", 0, ", "), "min, max, z"));
  CHECK(!strcmp(thr_schema_names(buf, sizeof buf, "agents[].speed", 0, ", "), "mean, spread, sd, min, max, rimea"));
  CHECK(!strcmp(thr_schema_names(buf, sizeof buf, "goals[]", THR_KEY_ONE_OF, "|"), "point|rect|disk"));
  CHECK(!strcmp(thr_schema_form_keys(buf, sizeof buf, "agents[]", THR_LAYOUT_GRID),
                "min, max, rows, cols, spacing, count"));
  CHECK(!strcmp(thr_schema_form_keys(buf, sizeof buf, "agents[]", THR_LAYOUT_CIRCLE), "center, radius, count"));
  CHECK(!strcmp(thr_schema_form_keys(buf, sizeof buf, "agents[]", THR_LAYOUT_POLYGON),
                "polygon, spacing, count, density"));
  CHECK(!strcmp(thr_schema_form_keys(buf, sizeof buf, "agents[]", THR_LAYOUT_POINTS),
                "points, points_file, scale, offset, count"));
  CHECK(!strcmp(thr_schema_form_keys(buf, sizeof buf, "stages[]", THR_STAGE_QUEUE), "service"));
  CHECK(!strcmp(thr_schema_form_keys(buf, sizeof buf, "stages[]", THR_STAGE_WAITING), "until, duration"));
  CHECK(!strcmp(thr_schema_form_keys(buf, sizeof buf, "exits[]", 1), "depth"));
  CHECK(
      !strncmp(thr_schema_names(buf, sizeof buf, "", 0, ", "), "name, description, seed, world, geometry, time, ", 48));
}

/* One valid agent block per layout, as "key: value" items. */
static const char *const g_blocks[][5] = {
    [THR_LAYOUT_GRID] = {"layout: grid", "min: [1, 1]", "max: [5, 5]", "rows: 2", "cols: 2"},
    [THR_LAYOUT_RANDOM] = {"layout: random", "min: [1, 1]", "max: [5, 5]", "count: 3"},
    [THR_LAYOUT_DISK] = {"layout: disk", "center: [10, 10]", "radius: 3", "spacing: 1.2"},
    [THR_LAYOUT_ELLIPSE] = {"layout: ellipse", "center: [10, 10]", "semi_axes: [3, 2]", "count: 5"},
    [THR_LAYOUT_CIRCLE] = {"layout: circle", "center: [10, 10]", "radius: 5", "count: 8"},
    [THR_LAYOUT_POLYGON] = {"layout: polygon", "polygon: [[1, 1], [5, 1], [5, 5]]", "count: 3"},
    [THR_LAYOUT_POINTS] = {"layout: points", "points: [[1, 1], [3, 1]]"},
};

/* A scenario with the block of `layout`, leaving out key `drop` and adding `extra`. */
static void block_yaml(char *buf, size_t len, int layout, const char *drop, const char *extra) {
  snprintf(buf, len, "world: {min: [0, 0], max: [20, 20]}\nagents:\n  - {");
  for (int i = 0; i < 5 && g_blocks[layout][i]; ++i) {
    const char *item = g_blocks[layout][i];
    if (drop && !strncmp(item, drop, strlen(drop)) && item[strlen(drop)] == ':') continue;
    snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[strlen(buf) - 1] == '{' ? "" : ", ", item);
  }
  snprintf(buf + strlen(buf), len - strlen(buf), "%s%s}\n", extra ? ", " : "", extra ? extra : "");
}

/* Every block key marked required is required, layout by layout; every key
 * a layout does not take is refused. */
THR_TEST(block_keys_follow_their_layouts) {
  static thr_scenario sc;
  char yaml[512], err[512], want[256];
  for (int L = THR_LAYOUT_GRID; L <= THR_LAYOUT_POINTS; ++L) {
    block_yaml(yaml, sizeof yaml, L, NULL, NULL);
    CHECK(load(yaml, NULL, 0, &sc, err, sizeof err) == 0);
    thr_scenario_free(&sc);
    for (size_t i = 0; i < thr_schema_len; ++i) {
      const thr_key *k = &thr_schema[i];
      if (!thr_key_is_child(k, "agents[]") || !k->forms) continue;
      const char *name = thr_key_name(k);
      char extra[64];
      snprintf(extra, sizeof extra, "%s: 1", name);
      int takes = thr_key_takes_form(k, L);
      if (takes && !(k->flags & THR_KEY_REQUIRED)) continue;
      block_yaml(yaml, sizeof yaml, L, takes ? name : NULL, takes ? NULL : extra);
      if (takes)
        snprintf(want, sizeof want, "agents[0]: missing required key '%s'", name);
      else
        snprintf(want, sizeof want, "agents[0]: key '%s' does not apply to layout", name);
      int ok = load(yaml, NULL, 0, &sc, err, sizeof err) == -1 && strstr(err, want);
      if (!ok) fprintf(stderr, "  layout %d, key %s: expected '%s', got '%s'\n", L, name, want, err);
      CHECK(ok);
      thr_scenario_free(&sc);
    }
  }
}

/* "agents[].speed.mean=1.4": a --set that spells out row k's default. */
static void default_set(const thr_key *k, char *buf, size_t len) {
  const char *item = strstr(k->path, "[]");
  if (item)
    snprintf(buf, len, "%.*s[0]%s=%s", (int)(item - k->path), k->path, item + 2, k->def);
  else
    snprintf(buf, len, "%s=%s", k->path, k->def);
}

/* A file that gives every default explicitly loads as one that gives none. */
THR_TEST(spelled_out_defaults_change_nothing) {
  static thr_scenario plain, spelled;
  static char sets[256][96];
  const char *set_ptrs[256];
  int n = 0;
  for (size_t i = 0; i < thr_schema_len && n < 256; ++i) {
    const thr_key *k = &thr_schema[i];
    /* goal.jitter alone is no goal: a goal map needs a point; the items of
     * the other lists (exits, stages, sources) need keys without defaults;
     * the block below is a grid, which refuses the keys of other layouts;
     * the scenario is PBD, which refuses the other models' sections */
    if (!k->def || !strncmp(k->path, "agents[].goal.", 14) || thr_model_owning(k->path) ||
        (strstr(k->path, "[]") && strncmp(k->path, "agents[]", 8)) || !thr_key_takes_form(k, THR_LAYOUT_GRID))
      continue;
    default_set(k, sets[n], sizeof sets[n]);
    set_ptrs[n] = sets[n];
    n++;
  }
  char err[512] = "";
  const char *yaml = "world: {min: [0, 0], max: [20, 20]}\nagents:\n  - {layout: grid, min: [1, 1], max: [5, 5], "
                     "rows: 2, cols: 2}\n";
  CHECK(load(yaml, NULL, 0, &plain, err, sizeof err) == 0);
  int rc = load(yaml, set_ptrs, n, &spelled, err, sizeof err);
  if (rc) fprintf(stderr, "  %s\n", err);
  CHECK(rc == 0 && n > 40);
  if (!rc) {
    CHECK(memcmp(&plain.prm, &spelled.prm, sizeof plain.prm) == 0);
    CHECK(plain.seed == spelled.seed && plain.steps == spelled.steps);
    CHECK(plain.trajectory_every == spelled.trajectory_every && plain.metrics_every == spelled.metrics_every);
    CHECK(plain.balance_every == spelled.balance_every && plain.balance_threshold == spelled.balance_threshold);
    CHECK(!strcmp(plain.out_dir, spelled.out_dir));
    CHECK(plain.route_cell == spelled.route_cell && plain.route_clearance == spelled.route_clearance);
    CHECK(plain.map_cell == spelled.map_cell && plain.map_every == spelled.map_every);
    CHECK(memcmp(plain.blocks, spelled.blocks, sizeof *plain.blocks) == 0);
  }
  thr_scenario_free(&plain);
  thr_scenario_free(&spelled);
}

THR_TEST(markdown_has_a_row_per_key) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  CHECK(f != NULL);
  if (!f) return;
  thr_schema_print_markdown(f);
  fclose(f);
  for (size_t i = 0; i < thr_schema_len; ++i) {
    char row[160];
    snprintf(row, sizeof row, "\n| `%s` | ", thr_schema[i].path);
    if (!strstr(text, row)) fprintf(stderr, "  no row for %s\n", thr_schema[i].path);
    CHECK(strstr(text, row) != NULL);
  }
  CHECK(strstr(text, "| `time.dt` | number > 0 | 1/48 | time step Δt |\n") != NULL);
  CHECK(strstr(text, "| `agents[].semi_axes` | point > 0 | **required** | ellipse: semi-axes (a, b) |\n") != NULL);
  free(text);
}

/* The model table (io/models.h) and the key model.kind agree: word k of
 * the key's choices is the model of kind k, and every model has its
 * summary and run.json object; the first model is the default. */
THR_TEST(model_kinds_match_the_model_table) {
  const thr_key *k = thr_schema_find("model.kind");
  CHECK(k != NULL && k->type == THR_KEY_CHOICE);
  CHECK(thr_model_count == THR_MODEL_COUNT); /* one host row per line of the model list */
  for (int m = 0; m < thr_model_count; ++m) {
    char word[32];
    const thr_model_desc *d = thr_models[m];
    CHECK(d->kind == m && thr_model_of(m) == d);
    CHECK(!strcmp(thr_key_choice(k, m, word, sizeof word), d->key));
    CHECK(d->summary != NULL && d->json != NULL);
  }
  CHECK(thr_key_choice(k, thr_model_count, (char[32]){0}, 32)[0] == '\0');
  CHECK(!strcmp(k->def, thr_models[0]->key));
  /* which model owns a key: its section's */
  CHECK(thr_model_owning("orca.neighbor_dist") == &thr_model_orca);
  CHECK(thr_model_owning("forces.k_thresh") == &thr_model_orca);
  CHECK(thr_model_owning("behaviors.states[].push") == &thr_model_orca);
  CHECK(thr_model_owning("powerlaw.tau0") == &thr_model_powerlaw);
  CHECK(thr_model_owning("contact.stiffness") == NULL && thr_model_owning("model.kind") == NULL);
  CHECK(thr_model_owning("orcas.x") == NULL && thr_model_owning("orc") == NULL);
  /* every key of a model's section fills that model's member of the
   * parameters' union, and no shared key lies in the union */
  size_t lo = offsetof(thr_params, orca), hi = lo + sizeof(((thr_params *)0)->orca);
  for (size_t i = 0; i < thr_schema_len; ++i) {
    const thr_key *r = &thr_schema[i];
    if (r->field.at != THR_AT_PARAMS) continue;
    int in_union = r->field.off >= lo && r->field.off < hi;
    CHECK(in_union == (thr_model_owning(r->path) != NULL));
  }
  /* defaults: a model's own, and the shared ones whatever the model */
  thr_params p, q;
  thr_params_defaults_of(&p, THR_MODEL_ORCA);
  thr_params_defaults_of(&q, THR_MODEL_POWERLAW);
  CHECK(p.orca.range == 3.0f && p.orca.neighbors == 10 && p.orca.k_thresh == 0.5f);
  CHECK(q.powerlaw.k == 1.5f && q.powerlaw.range == 10.0f);
  CHECK(p.dt == q.dt && p.contact_stiffness == q.contact_stiffness);
}
