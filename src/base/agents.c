#include "agents.h"

#include "goal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define THR_IS_STATE_STATE 1
#define THR_IS_STATE_STEP 0
#define THR_IS_GHOST_GHOST 1
#define THR_IS_GHOST_OWNED 0
/* offsetof where the record has the member, else a constant (never used) */
#define THR_REC_OFFSET_STATE(rec, member) (long)offsetof(rec, member)
#define THR_REC_OFFSET_STEP(rec, member) -1L
#define THR_GHOST_OFFSET_STATE_GHOST(member) (long)offsetof(thr_ghost_rec, member)
#define THR_GHOST_OFFSET_STATE_OWNED(member) -1L
#define THR_GHOST_OFFSET_STEP_GHOST(member) -1L
#define THR_GHOST_OFFSET_STEP_OWNED(member) -1L

/* The scalar type of a field's 32-bit components. */
#define THR_SCALAR_KIND(type) \
  _Generic((type){0}, float: 'f', thr_vec2: 'f', int32_t: 'i', uint32_t: 'u', default: 'u')
#define THR_BLANK_WORD_ZERO 0u
#define THR_BLANK_WORD_MINUS1 0xffffffffu
#define THR_BLANK_WORD_NONE ((uint32_t)THR_GOALSET_NONE)
#define THR_BLANK_WORD_ONE 0x3f800000u /* 1.0f */

const thr_field_info thr_field_table[THR_F_COUNT] = {
#define THR_X(NAME, member, type, life, ghost, group, blank, doc) \
  {#member, sizeof(type), THR_IS_STATE_##life, THR_IS_STATE_##life && THR_IS_GHOST_##ghost, doc,                  \
   THR_SCALAR_KIND(type), THR_GROUP_##group, THR_BLANK_WORD_##blank},
    THR_AGENT_FIELDS(THR_X)
#undef THR_X
};

static const size_t field_offset[THR_F_COUNT] = {
#define THR_X(NAME, member, type, life, ghost, group, blank, doc) offsetof(thr_agents, member),
    THR_AGENT_FIELDS(THR_X)
#undef THR_X
};

const char *thr_field_group_name(int group) {
  static const char *const names[THR_GROUP_COUNT] = {"CORE", "FORMATION", "DIM3", "ORCA"};
  return group >= 0 && group < THR_GROUP_COUNT ? names[group] : "?";
}

const long thr_rec_offset[THR_F_COUNT] = {
#define THR_X(NAME, member, type, life, ghost, group, blank, doc) \
  THR_IS_STATE_##life ? THR_REC_OFFSET_##life(thr_agent_rec, member) : -1,
    THR_AGENT_FIELDS(THR_X)
#undef THR_X
};

const long thr_ghost_rec_offset[THR_F_COUNT] = {
#define THR_X(NAME, member, type, life, ghost, group, blank, doc) \
  THR_IS_STATE_##life && THR_IS_GHOST_##ghost ? THR_GHOST_OFFSET_##life##_##ghost(member) : -1,
    THR_AGENT_FIELDS(THR_X)
#undef THR_X
};

size_t thr_fields_bytes(thr_field_mask mask) {
  size_t bytes = 0;
  for (int f = 0; f < THR_F_COUNT; ++f)
    if (mask & ((thr_field_mask)1 << f)) bytes += thr_field_table[f].elem;
  return bytes;
}

size_t thr_agents_max_elem(void) {
  size_t m = 0;
  for (int f = 0; f < THR_F_COUNT; ++f)
    if (thr_field_table[f].elem > m) m = thr_field_table[f].elem;
  return m;
}

void thr_agents_init(thr_agents *a) { memset(a, 0, sizeof *a); }

void thr_agents_init_without(thr_agents *a, thr_field_mask absent) {
  thr_agents_init(a);
  a->absent = absent;
}

void thr_field_fill_blank(void *base, int f, size_t from, size_t n) {
  size_t words = thr_field_table[f].elem / sizeof(uint32_t);
  uint32_t w = thr_field_table[f].blank, *q = (uint32_t *)base + from * words;
  if (w == 0) {
    memset(q, 0, n * words * sizeof *q);
    return;
  }
  for (size_t k = 0; k < n * words; ++k) q[k] = w;
}

void thr_field_copy(void *dst, const void *src, int f, size_t n) {
  if (!n) return;
  if (src)
    memcpy(dst, src, n * thr_field_table[f].elem);
  else
    thr_field_fill_blank(dst, f, 0, n);
}

void **thr_agents_field(thr_agents *a, int f, size_t *elem) {
  if (elem) *elem = thr_field_table[f].elem;
  return (void **)((char *)a + field_offset[f]);
}

void thr_agents_free(thr_agents *a) {
  for (int f = 0; f < THR_F_COUNT; ++f) free(*thr_agents_field(a, f, NULL));
  thr_agents_init(a);
}

int thr_agents_reserve(thr_agents *a, size_t cap) {
  if (cap <= a->cap) return 0;
  size_t want = a->cap ? a->cap : 64;
  while (want < cap) want *= 2;
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (a->absent & ((thr_field_mask)1 << f)) continue;
    size_t elem;
    void **ptr = thr_agents_field(a, f, &elem);
    void *q = realloc(*ptr, want * elem);
    if (!q) return -1;
    *ptr = q;
  }
  a->cap = want;
  return 0;
}

void thr_agent_rec_blank(thr_agent_rec *r) {
#define THR_X(NAME, member, type, life, ghost, group, blank, doc) THR_IF_STATE_##life(THR_BLANK_SET_##blank(r->member);)
  THR_AGENT_FIELDS(THR_X)
#undef THR_X
}

/* Does every field the store keeps no array for hold its blank value in r
 * (else the store would drop it)? */
#ifndef NDEBUG
static int rec_fits(const thr_agents *a, const thr_agent_rec *r) {
  thr_agent_rec b;
  thr_agent_rec_blank(&b);
#define THR_X(NAME, member, type, life, ghost, group, blank, doc) \
  THR_IF_STATE_##life(if (!a->member && memcmp(&r->member, &b.member, sizeof b.member)) return 0;)
  THR_AGENT_FIELDS(THR_X)
#undef THR_X
  return 1;
}
#endif

int thr_agents_push(thr_agents *a, const thr_agent_rec *r) {
  if (thr_agents_reserve(a, a->n + 1)) return -1;
  assert(rec_fits(a, r)); /* a field of a group the run was not given (thr_fields_absent) */
  thr_agent_store(a, a->n, r);
  a->n++;
  return 0;
}

void thr_agents_permute(thr_agents *a, const int *perm, size_t n, void *scratch) {
  if (n == 0) return;
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (!thr_field_table[f].state) continue;
    size_t elem;
    char *base = *(char **)thr_agents_field(a, f, &elem);
    if (!base) continue; /* not stored: blank everywhere */
    char *tmp = scratch;
    long nn = (long)n;
#pragma omp parallel for schedule(static)
    for (long k = 0; k < nn; ++k) memcpy(tmp + (size_t)k * elem, base + (size_t)perm[k] * elem, elem);
    memcpy(base, tmp, n * elem);
  }
}

int thr_agents_copy(thr_agents *dst, const thr_agents *src, size_t n) {
  if (thr_agents_reserve(dst, n)) return -1;
  for (int f = 0; f < THR_F_COUNT; ++f) {
    if (!thr_field_table[f].state) continue;
    void *d = *thr_agents_field(dst, f, NULL);
    if (d) thr_field_copy(d, *thr_agents_field((thr_agents *)src, f, NULL), f, n);
  }
  dst->n = n;
  dst->n_owned = n < src->n_owned ? n : src->n_owned;
  return 0;
}
