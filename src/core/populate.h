/* Agent blocks -> agents: placement layouts, per-agent draws (keyed by the
 * scenario seed and the agent's global id), goals, and the checks that
 * every agent starts inside the world and clear of every obstacle. */
#ifndef THRONG_POPULATE_H
#define THRONG_POPULATE_H

#include <stddef.h>
#include "base/agents.h"
#include "base/scenario.h"
#include "base/world.h"

/* The most agents a scenario may hold: ids are 32-bit. */
#define THR_MAX_AGENTS 4294967295L

/* Total agent count of the scenario without creating them or enumerating
 * positions (O(rows) per block): every size is checked against
 * THR_MAX_AGENTS before it becomes an integer. -1 when a block cannot be
 * laid out or holds too many; the message names the block and the key. */
long thr_scenario_count(const thr_scenario *sc, char *err, size_t errlen);
/* Agents of block b at the start (0 for a source's block). */
long thr_block_agents(const thr_scenario *sc, int b, char *err, size_t errlen);

/* Does laying out `total` agents over `ranks` ranks, `ranks_per_node` of
 * them on this node, fit this node's memory? Checked before any agent is
 * placed; -1 with a message naming the largest block otherwise. */
int thr_scenario_fits(const thr_scenario *sc, long total, int ranks, int ranks_per_node, char *err, size_t errlen);

/* One agent of block `block` (its properties drawn for id, its route and
 * stage from the world's fields) at x, entering at time born. Sources use
 * it too (core/evac.c). */
void thr_populate_agent(const thr_scenario *sc, const thr_world *w, int block, uint32_t id, thr_vec2 x,
                        float born, thr_agent_rec *r);

/* Create all agents with global ids 0..N-1 in block order; agents for which
 * keep(id, x, user) returns 0 are skipped (a rank keeps only its own).
 * keep may be NULL. Returns 0, or -1 with a message naming the file, the
 * block's line and the agent. */
/* May source q's agent appear at x? (inside its region, walkable, and able
 * to reach where its route leads) */
int thr_source_point_ok(const thr_scenario *sc, const thr_world *w, int q, thr_vec2 x);
/* Every source has such points (sampled on a lattice over its region);
 * -1 with a message naming the source otherwise (bad input). */
int thr_sources_check(const thr_scenario *sc, const thr_world *w, char *err, size_t errlen);

int thr_populate(const thr_scenario *sc, const thr_world *w, const thr_params *prm,
                 int (*keep)(uint32_t id, thr_vec2 x, void *user), void *user, thr_agents *out,
                 char *err, size_t errlen);

#endif
