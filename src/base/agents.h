/* The agent store: structure of arrays on the host. Owned agents occupy
 * [0, n_owned), ghosts (copies of other ranks' agents) [n_owned, n).
 * Fields are also reachable through a table (thr_agents_field) so that
 * growing, permuting, packing and unpacking are written once for all fields.
 * A new per-agent field (3D altitude, formation slot, FSM state, ...) is one
 * line in the table in agents.c. */
#ifndef THRONG_AGENTS_H
#define THRONG_AGENTS_H

#include <stddef.h>
#include <stdint.h>
#include "vec2.h"

enum thr_field {
  THR_F_ID,
  THR_F_X,
  THR_F_P,
  THR_F_V,
  THR_F_RADIUS,
  THR_F_INV_MASS,
  THR_F_PREF_SPEED,
  THR_F_GOAL,
  THR_F_GOAL_SET,
  THR_F_GROUP,
  THR_F_FLAGS,
  THR_F_COUNT
};

typedef struct thr_agents {
  size_t n;       /* stored agents: owned, then ghosts */
  size_t n_owned; /* agents this rank owns */
  size_t cap;
  uint32_t *id;       /* global id, unique over the whole simulation */
  thr_vec2 *x;        /* position x^n */
  thr_vec2 *p;        /* predicted position x* (valid during a step) */
  thr_vec2 *v;        /* velocity */
  float *radius;      /* disk radius [m] */
  float *inv_mass;    /* 1 / mass */
  float *pref_speed;  /* preferred walking speed [m/s] */
  thr_vec2 *goal;     /* personal goal point (goal_set == THR_GOALSET_PERSONAL) */
  int32_t *goal_set;  /* goal set index, or THR_GOALSET_PERSONAL / _NONE */
  int32_t *group;     /* group number from the scenario */
  uint32_t *flags;    /* THR_FLAG_* */
} thr_agents;

/* One agent, all fields (used to create and to move agents). */
typedef struct thr_agent_rec {
  uint32_t id;
  thr_vec2 x, p, v;
  float radius, inv_mass, pref_speed;
  thr_vec2 goal;
  int32_t goal_set, group;
  uint32_t flags;
} thr_agent_rec;

void thr_agents_init(thr_agents *a);
void thr_agents_free(thr_agents *a);
/* Grow capacity to at least cap; returns 0 on success, -1 when out of memory. */
int thr_agents_reserve(thr_agents *a, size_t cap);
/* Address of field f's array pointer and its element size. */
void **thr_agents_field(thr_agents *a, int f, size_t *elem);
/* Append one agent (grows as needed). Returns -1 when out of memory. */
int thr_agents_push(thr_agents *a, const thr_agent_rec *r);
void thr_agents_get(const thr_agents *a, size_t i, thr_agent_rec *r);
void thr_agents_set(thr_agents *a, size_t i, const thr_agent_rec *r);
/* Reorder agents [0, n): new slot k receives old agent perm[k]. scratch must
 * hold n * 8 bytes. */
void thr_agents_permute(thr_agents *a, const int *perm, size_t n, void *scratch);
/* Copy the first n agents of src into dst (dst is resized). */
int thr_agents_copy(thr_agents *dst, const thr_agents *src, size_t n);

#endif
