/* The agent field list (base/agent_fields.h) and what is generated from
 * it: the store, the field table, the full and ghost records with their
 * load/store functions, permutation and copying. */
#include "base/agents.h"
#include "check.h"

static void fill(thr_agents *a, size_t n, unsigned seed) {
  thr_agents_reserve(a, n);
  a->n = a->n_owned = n;
  for (int f = 0; f < THR_F_COUNT; ++f) {
    size_t elem;
    unsigned char *p = *(unsigned char **)thr_agents_field(a, f, &elem);
    for (size_t i = 0; i < n * elem; ++i) p[i] = (unsigned char)(seed + 13 * (unsigned)f + 5 * (unsigned)i);
  }
}

static int same_field(const thr_agents *a, size_t i, const thr_agents *b, size_t j, int f) {
  size_t elem = thr_field_table[f].elem;
  const char *pa = *(char **)thr_agents_field((thr_agents *)a, f, NULL);
  const char *pb = *(char **)thr_agents_field((thr_agents *)b, f, NULL);
  return !memcmp(pa + i * elem, pb + j * elem, elem);
}

/* Names unique, sizes multiples of 4 (the CUDA backend moves words), the
 * records exactly as large as the fields they hold (plus padding only). */
THR_TEST(field_table) {
  size_t state = 0, ghost = 0;
  for (int f = 0; f < THR_F_COUNT; ++f) {
    CHECK(thr_field_table[f].elem > 0 && thr_field_table[f].elem % 4 == 0);
    CHECK(thr_field_table[f].meaning && thr_field_table[f].meaning[0]);
    CHECK(!thr_field_table[f].ghost || thr_field_table[f].state);
    for (int g = 0; g < f; ++g) CHECK(strcmp(thr_field_table[f].name, thr_field_table[g].name) != 0);
    if (thr_field_table[f].state) state += thr_field_table[f].elem;
    if (thr_field_table[f].ghost) ghost += thr_field_table[f].elem;
  }
  CHECK(sizeof(thr_agent_rec) >= state && sizeof(thr_agent_rec) < state + 8);
  CHECK(sizeof(thr_ghost_rec) >= ghost && sizeof(thr_ghost_rec) < ghost + 8);
  CHECK(thr_fields_bytes(THR_FIELD_BIT(X) | THR_FIELD_BIT(ID)) == sizeof(thr_vec2) + sizeof(uint32_t));
  /* the ids the code relies on */
  CHECK(!strcmp(thr_field_table[THR_F_ID].name, "id") && thr_field_table[THR_F_ID].ghost);
  CHECK(!strcmp(thr_field_table[THR_F_VNEW].name, "vnew") && !thr_field_table[THR_F_VNEW].state);
}

/* Every STATE field survives load -> store; STEP fields are not touched. */
THR_TEST(record_round_trip) {
  thr_agents a, b;
  thr_agents_init(&a);
  thr_agents_init(&b);
  fill(&a, 7, 1);
  fill(&b, 7, 101);
  for (size_t i = 0; i < 7; ++i) {
    thr_agent_rec r;
    thr_agent_load(&a, i, &r);
    thr_agent_store(&b, 6 - i, &r);
  }
  thr_agents fresh;
  thr_agents_init(&fresh);
  fill(&fresh, 7, 101);
  for (int f = 0; f < THR_F_COUNT; ++f)
    for (size_t i = 0; i < 7; ++i)
      CHECK(thr_field_table[f].state ? same_field(&b, 6 - i, &a, i, f) : same_field(&b, i, &fresh, i, f));
  thr_agents_free(&a);
  thr_agents_free(&b);
  thr_agents_free(&fresh);
}

/* The ghost record carries exactly the GHOST fields. */
THR_TEST(ghost_round_trip) {
  thr_agents a, b, fresh;
  thr_agents_init(&a);
  thr_agents_init(&b);
  thr_agents_init(&fresh);
  fill(&a, 4, 3);
  fill(&b, 4, 77);
  fill(&fresh, 4, 77);
  for (size_t i = 0; i < 4; ++i) {
    thr_ghost_rec g;
    thr_ghost_load(&a, i, &g);
    thr_ghost_store(&b, i, &g);
  }
  for (int f = 0; f < THR_F_COUNT; ++f)
    for (size_t i = 0; i < 4; ++i)
      CHECK(thr_field_table[f].ghost ? same_field(&b, i, &a, i, f) : same_field(&b, i, &fresh, i, f));
  thr_agents_free(&a);
  thr_agents_free(&b);
  thr_agents_free(&fresh);
}

/* Permutation moves every STATE field together; copy takes STATE fields. */
THR_TEST(permute_and_copy) {
  thr_agents a, orig, c;
  thr_agents_init(&a);
  thr_agents_init(&orig);
  thr_agents_init(&c);
  fill(&a, 5, 9);
  fill(&orig, 5, 9);
  int perm[5] = {3, 0, 4, 1, 2};
  char *scratch = malloc(5 * thr_agents_max_elem());
  thr_agents_permute(&a, perm, 5, scratch);
  for (int f = 0; f < THR_F_COUNT; ++f)
    for (size_t k = 0; k < 5; ++k)
      CHECK(thr_field_table[f].state ? same_field(&a, k, &orig, (size_t)perm[k], f) : same_field(&a, k, &orig, k, f));
  CHECK(thr_agents_copy(&c, &orig, 3) == 0);
  CHECK(c.n == 3 && c.n_owned == 3);
  for (int f = 0; f < THR_F_COUNT; ++f)
    if (thr_field_table[f].state)
      for (size_t k = 0; k < 3; ++k) CHECK(same_field(&c, k, &orig, k, f));
  free(scratch);
  thr_agents_free(&a);
  thr_agents_free(&orig);
  thr_agents_free(&c);
}

/* Growing keeps the contents of every field. */
THR_TEST(reserve_keeps_contents) {
  thr_agents a, orig;
  thr_agents_init(&a);
  thr_agents_init(&orig);
  fill(&a, 50, 21);
  fill(&orig, 50, 21);
  CHECK(thr_agents_reserve(&a, 5000) == 0 && a.cap >= 5000);
  for (int f = 0; f < THR_F_COUNT; ++f)
    for (size_t k = 0; k < 50; ++k) CHECK(same_field(&a, k, &orig, k, f));
  thr_agents_free(&a);
  thr_agents_free(&orig);
}
