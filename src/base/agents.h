/* The agent store: structure of arrays, generated from the field list of
 * agent_fields.h. Owned agents occupy [0, n_owned), ghosts (copies of other
 * ranks' agents) [n_owned, n). The host keeps host pointers in it; the CUDA
 * backend keeps device pointers in the same struct.
 *
 * Also generated from the list: the full record of an agent (migration,
 * output), the ghost record, their load/store functions (host and device),
 * and a table of fields (thr_agents_field) so that growing, permuting and
 * copying are written once for all fields. */
#ifndef THRONG_AGENTS_H
#define THRONG_AGENTS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "agent_fields.h"
#include "goal.h"
#include "hostdevice.h"
#include "vec2.h"

/* THR_F_ID, THR_F_X, ...: field numbers, in list order. */
enum thr_field {
#define THR_X(NAME, member, type, life, ghost, group, blank, doc) THR_F_##NAME,
  THR_AGENT_FIELDS(THR_X)
#undef THR_X
  THR_F_COUNT
};

/* A set of fields as a bit mask (halo forwarding). */
typedef uint64_t thr_field_mask;
#define THR_FIELD_BIT(NAME) ((thr_field_mask)1 << THR_F_##NAME)

/* The groups of the field list (agent_fields.h): a run stores the CORE
 * fields and those of the groups its scenario uses (thr_fields_absent). */
enum thr_field_group { THR_GROUP_CORE, THR_GROUP_FORMATION, THR_GROUP_DIM3, THR_GROUP_ORCA, THR_GROUP_COUNT };
#define THR_GROUP_BIT(G) (1u << THR_GROUP_##G)

static inline thr_field_mask thr_fields_of_group(int group) {
  thr_field_mask m = 0;
#define THR_X(NAME, member, type, life, ghost, grp, blank, doc) \
  if (THR_GROUP_##grp == group) m |= THR_FIELD_BIT(NAME);
  THR_AGENT_FIELDS(THR_X)
#undef THR_X
  return m;
}

typedef struct thr_agents {
  thr_field_mask absent; /* fields this store keeps no array for (NULL): their value is the blank one */
  size_t n;       /* stored agents: owned, then ghosts */
  size_t n_owned; /* agents this rank owns */
  size_t cap;     /* capacity of every field array */
#define THR_X(NAME, member, type, life, ghost, group, blank, doc) type *member;
  THR_AGENT_FIELDS(THR_X)
#undef THR_X
} thr_agents;

/* One agent's state (the STATE fields): creation, migration, output. */
typedef struct thr_agent_rec {
#define THR_X(NAME, member, type, life, ghost, group, blank, doc) THR_IF_STATE_##life(type member;)
  THR_AGENT_FIELDS(THR_X)
#undef THR_X
} thr_agent_rec;

/* What ghost selection copies (STATE fields marked GHOST). */
typedef struct thr_ghost_rec {
#define THR_X(NAME, member, type, life, ghost, group, blank, doc) THR_IF_STATE_##life(THR_IF_GHOSTREC_##ghost(type member;))
  THR_AGENT_FIELDS(THR_X)
#undef THR_X
} thr_ghost_rec;

/* Record <-> slot i of a store (host or device pointers alike). */
THR_HD void thr_agent_load(const thr_agents *a, size_t i, thr_agent_rec *r) {
#define THR_X(NAME, member, type, life, ghost, group, blank, doc) THR_IF_STATE_##life(if (a->member) r->member = a->member[i]; else THR_BLANK_SET_##blank(r->member);)
  THR_AGENT_FIELDS(THR_X)
#undef THR_X
}
THR_HD void thr_agent_store(const thr_agents *a, size_t i, const thr_agent_rec *r) {
#define THR_X(NAME, member, type, life, ghost, group, blank, doc) THR_IF_STATE_##life(if (a->member) a->member[i] = r->member;)
  THR_AGENT_FIELDS(THR_X)
#undef THR_X
}
THR_HD void thr_ghost_load(const thr_agents *a, size_t i, thr_ghost_rec *g) {
#define THR_X(NAME, member, type, life, ghost, group, blank, doc) \
  THR_IF_STATE_##life(THR_IF_GHOSTREC_##ghost(if (a->member) g->member = a->member[i]; else THR_BLANK_SET_##blank(g->member);))
  THR_AGENT_FIELDS(THR_X)
#undef THR_X
}
THR_HD void thr_ghost_store(const thr_agents *a, size_t i, const thr_ghost_rec *g) {
#define THR_X(NAME, member, type, life, ghost, group, blank, doc) \
  THR_IF_STATE_##life(THR_IF_GHOSTREC_##ghost(if (a->member) a->member[i] = g->member;))
  THR_AGENT_FIELDS(THR_X)
#undef THR_X
}

/* The field table: name, element size, life and ghost columns. */
typedef struct thr_field_info {
  const char *name;
  size_t elem;   /* bytes per agent */
  int state;     /* life STATE (else STEP) */
  int ghost;     /* in the ghost record */
  const char *meaning;
  char kind;     /* its elem / 4 components are 'f' float, 'i' int32_t or 'u' uint32_t */
  int group;     /* enum thr_field_group */
  uint32_t blank; /* every 32-bit word of its blank value */
} thr_field_info;
extern const thr_field_info thr_field_table[THR_F_COUNT];

/* A group's name as agent_fields.h spells it ("CORE", "DIM3", ...). */
const char *thr_field_group_name(int group);
/* Where field f lies in a full record (thr_agent_rec) and in a ghost
 * record (thr_ghost_rec); -1 where the record does not carry it. */
extern const long thr_rec_offset[THR_F_COUNT], thr_ghost_rec_offset[THR_F_COUNT];
/* Bytes per agent of the fields in mask. */
size_t thr_fields_bytes(thr_field_mask mask);
/* Agents [from, from + n) of field f's array `base` get the field's blank value. */
void thr_field_fill_blank(void *base, int f, size_t from, size_t n);
/* The first n agents of field f from host array src into dst; src NULL (a
 * field its store does not keep): the blank value. */
void thr_field_copy(void *dst, const void *src, int f, size_t n);

/* An empty store that keeps every field. */
void thr_agents_init(thr_agents *a);
/* An empty store without arrays for the fields in absent (a backend's, for
 * the groups its run does not use). */
void thr_agents_init_without(thr_agents *a, thr_field_mask absent);
void thr_agents_free(thr_agents *a);
/* Grow capacity to at least cap (every field, contents kept); returns 0 on
 * success, -1 when out of memory (the store stays valid). */
int thr_agents_reserve(thr_agents *a, size_t cap);
/* Address of field f's array pointer and its element size. */
void **thr_agents_field(thr_agents *a, int f, size_t *elem);
/* A record of an agent that stands still and follows nothing: all zero but
 * goal_set THR_GOALSET_NONE and route, stage, slot and journey -1 (a zero
 * route would name distance field 0). Start every new record from this. */
void thr_agent_rec_blank(thr_agent_rec *r);
/* Append one agent (grows as needed). Returns -1 when out of memory. */
int thr_agents_push(thr_agents *a, const thr_agent_rec *r);
/* Reorder the STATE fields of agents [0, n): new slot k receives old agent
 * perm[k]. scratch must hold n elements of the widest field. */
void thr_agents_permute(thr_agents *a, const int *perm, size_t n, void *scratch);
/* Widest field, in bytes (scratch for thr_agents_permute). */
size_t thr_agents_max_elem(void);
/* Copy the STATE fields of the first n agents of src into dst (resized);
 * fields src does not keep arrive blank. */
int thr_agents_copy(thr_agents *dst, const thr_agents *src, size_t n);

#endif
