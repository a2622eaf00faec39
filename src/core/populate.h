/* Agent blocks -> agents: placement layouts, per-agent draws (keyed by the
 * scenario seed and the agent's global id), goals, and the checks that
 * every agent starts inside the world and clear of every obstacle. */
#ifndef THRONG_POPULATE_H
#define THRONG_POPULATE_H

#include <stddef.h>
#include "base/agents.h"
#include "base/scenario.h"
#include "base/world.h"

/* Largest agent radius any block can draw. */
float thr_scenario_max_radius(const thr_scenario *sc);

/* Total agent count of the scenario without creating them (-1 when a block
 * cannot be laid out; the message is in err). */
long thr_scenario_count(const thr_scenario *sc, char *err, size_t errlen);

/* Create all agents with global ids 0..N-1 in block order; agents for which
 * keep(id, x, user) returns 0 are skipped (a rank keeps only its own).
 * keep may be NULL. Returns 0, or -1 with a message naming the file, the
 * block's line and the agent. */
int thr_populate(const thr_scenario *sc, const thr_world *w, const thr_params *prm,
                 int (*keep)(uint32_t id, thr_vec2 x, void *user), void *user, thr_agents *out,
                 char *err, size_t errlen);

#endif
