/* A simulation: scenario parameters, the static world, a backend holding
 * this rank's agents, and the step driver (Algorithm 1). */
#ifndef THRONG_SIM_H
#define THRONG_SIM_H

#include <mpi.h>
#include <stddef.h>

#include "base/agents.h"
#include "base/scenario.h"
#include "base/world.h"
#include "kernels/backend.h"
#include "routes.h"
#include "timers.h"

/* Global metrics of one step (identical on every rank). */
typedef struct thr_metrics {
  long step;
  double time;
  long agents;
  long at_goal;
  double mean_speed;
  long overlap_pairs;
  double max_overlap;
  double max_overlap_ratio;
  long wall_penetrations;
  double max_wall_overlap;
  long lp_fallbacks; /* ORCA: agents whose linear program had no feasible point (0 under PBD) */
  long forced;       /* ORCA: agents a physical force acted on */
  long in_state[THR_MAX_BSTATES]; /* ORCA: agents in each behaviour state (prm.orca.n_bstates of them) */
} thr_metrics;

typedef struct thr_sim {
  MPI_Comm comm;
  int rank, nranks;
  thr_params prm;
  thr_world world;
  thr_backend *be;
  struct thr_decomp *dc; /* domain decomposition (decomp/) */
  struct thr_evac *evac; /* exits, journeys, sources (core/evac.c); NULL without */
  struct thr_formations *forms; /* group formations (core/formations.c); NULL without */
  thr_routing routing;   /* recomputing the fields that see congestion (n_dynamic 0: none) */
  int32_t *route_counts; /* agents per routing cell (update_routes scratch) */
  long step;
  long n_global; /* agents in the whole simulation now (exits remove, sources add) */
  long n_initial; /* ... at the start */
  double agent_steps; /* agents of each step so far, summed (the work done) */
  int index_stale;    /* agents left or were added after the step's neighbour index was built */
  uint64_t seed;
  int timing;    /* synchronise the backend around phases for exact times */
  thr_timers timers;
  /* from the pass table and the parameters, once */
  int solver_passes[THR_PASS_COUNT]; /* the enabled SOLVER passes, in table order */
  int n_solver_passes;
  int plan_passes[THR_PASS_COUNT]; /* the enabled BEHAVIOUR and PLAN passes, in table order */
  int n_plan_passes;
  thr_field_mask forwards[THR_PASS_COUNT]; /* fields forwarded to ghosts after each pass */
} thr_sim;

/* Build the world, create this rank's agents and the backend ("cpu",
 * "cuda" or NULL for the default). Returns 0; -1 on bad input (message in
 * err, exit status 2); -2 on other failures (message in err). Collective. */
int thr_sim_init(thr_sim *s, const thr_scenario *sc, const char *backend, MPI_Comm comm, char *err,
                 size_t errlen);

/* Where a run's agents come from when not from the scenario's blocks (a
 * checkpoint): fill() appends to owned every agent that keep(id, x, k)
 * accepts, each rank its own. n_global: how many there are in all. fill
 * returns 0, -1 on bad input or -2 on other failures (message in err). */
typedef int (*thr_keep_fn)(uint32_t id, thr_vec2 x, void *k);
typedef struct thr_agent_source {
  int (*fill)(void *user, thr_keep_fn keep, void *k, thr_agents *owned, char *err, size_t errlen);
  void *user;
  long n_global;
} thr_agent_source;

/* thr_sim_init with the agents of src (NULL: the scenario's). */
int thr_sim_init_from(thr_sim *s, const thr_scenario *sc, const char *backend, const thr_agent_source *src,
                      MPI_Comm comm, char *err, size_t errlen);
void thr_sim_free(thr_sim *s);

/* Advance one time step. Collective. */
void thr_sim_step(thr_sim *s);

/* What the run loop learns after a step. */
typedef struct thr_health {
  long step;       /* the step checked */
  int field;       /* first non-finite field (THR_F_X, THR_F_P, THR_F_V) of the agent below; -1: all finite */
  uint32_t id;     /* the non-finite agent with the lowest id */
  int stop_signal; /* a signal some rank received (SIGINT, SIGTERM, ...); 0: none */
} thr_health;

/* After a step: is every agent's state finite, and did any rank receive a
 * stop signal (`signal`, this rank's)? wait = 1 checks this step exactly (a
 * GPU backend synchronises); wait = 0 lets a GPU backend look at the state
 * it has finished without stalling, so a non-finite state may show one step
 * late. One MPI_Allreduce on several ranks. Returns 1 when the run must
 * stop. Collective. */
int thr_sim_check(thr_sim *s, int wait, int signal, thr_health *h);

/* Metrics of the current state, reduced over ranks. Collective. */
void thr_sim_measure(thr_sim *s, thr_metrics *m);

/* Per formation (s->forms->n of them), summed over ranks: the squared
 * distances of its agents to their SRDs in units of THR_SPEED_QUANTUM m^2,
 * and how many hold no formation now. Collective. */
void thr_sim_measure_formations(thr_sim *s, int64_t *sq_q, int64_t *broken);

/* All agents sorted by id on rank 0 (other ranks get n = 0). Collective. */
int thr_sim_gather(thr_sim *s, thr_agents *all);

/* The default backend name for this build and machine. */
const char *thr_default_backend(void);

#endif
