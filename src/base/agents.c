#include "agents.h"

#include <stdlib.h>
#include <string.h>

#define FIELD(member) {offsetof(thr_agents, member), sizeof(*((thr_agents *)0)->member)}

static const struct {
  size_t offset;
  size_t elem;
} fields[THR_F_COUNT] = {
    [THR_F_ID] = FIELD(id),
    [THR_F_X] = FIELD(x),
    [THR_F_P] = FIELD(p),
    [THR_F_V] = FIELD(v),
    [THR_F_RADIUS] = FIELD(radius),
    [THR_F_INV_MASS] = FIELD(inv_mass),
    [THR_F_PREF_SPEED] = FIELD(pref_speed),
    [THR_F_GOAL] = FIELD(goal),
    [THR_F_GOAL_SET] = FIELD(goal_set),
    [THR_F_GROUP] = FIELD(group),
    [THR_F_FLAGS] = FIELD(flags),
};

void thr_agents_init(thr_agents *a) { memset(a, 0, sizeof *a); }

void **thr_agents_field(thr_agents *a, int f, size_t *elem) {
  if (elem) *elem = fields[f].elem;
  return (void **)((char *)a + fields[f].offset);
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
    size_t elem;
    void **ptr = thr_agents_field(a, f, &elem);
    void *q = realloc(*ptr, want * elem);
    if (!q) return -1;
    *ptr = q;
  }
  a->cap = want;
  return 0;
}

void thr_agents_set(thr_agents *a, size_t i, const thr_agent_rec *r) {
  a->id[i] = r->id;
  a->x[i] = r->x;
  a->p[i] = r->p;
  a->v[i] = r->v;
  a->radius[i] = r->radius;
  a->inv_mass[i] = r->inv_mass;
  a->pref_speed[i] = r->pref_speed;
  a->goal[i] = r->goal;
  a->goal_set[i] = r->goal_set;
  a->group[i] = r->group;
  a->flags[i] = r->flags;
}

void thr_agents_get(const thr_agents *a, size_t i, thr_agent_rec *r) {
  r->id = a->id[i];
  r->x = a->x[i];
  r->p = a->p[i];
  r->v = a->v[i];
  r->radius = a->radius[i];
  r->inv_mass = a->inv_mass[i];
  r->pref_speed = a->pref_speed[i];
  r->goal = a->goal[i];
  r->goal_set = a->goal_set[i];
  r->group = a->group[i];
  r->flags = a->flags[i];
}

int thr_agents_push(thr_agents *a, const thr_agent_rec *r) {
  if (thr_agents_reserve(a, a->n + 1)) return -1;
  thr_agents_set(a, a->n, r);
  a->n++;
  return 0;
}

void thr_agents_permute(thr_agents *a, const int *perm, size_t n, void *scratch) {
  if (n == 0) return;
  for (int f = 0; f < THR_F_COUNT; ++f) {
    size_t elem;
    char *base = *(char **)thr_agents_field(a, f, &elem);
    char *tmp = scratch;
    for (size_t k = 0; k < n; ++k) memcpy(tmp + k * elem, base + (size_t)perm[k] * elem, elem);
    memcpy(base, tmp, n * elem);
  }
}

int thr_agents_copy(thr_agents *dst, const thr_agents *src, size_t n) {
  if (thr_agents_reserve(dst, n)) return -1;
  for (int f = 0; f < THR_F_COUNT; ++f) {
    size_t elem;
    void *d = *thr_agents_field(dst, f, &elem);
    const void *s = *thr_agents_field((thr_agents *)src, f, NULL);
    if (n) memcpy(d, s, n * elem);
  }
  dst->n = n;
  dst->n_owned = n < src->n_owned ? n : src->n_owned;
  return 0;
}
