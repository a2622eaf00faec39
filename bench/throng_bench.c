/* throng-bench: run scenarios for N steps and print agent-steps per second
 * and per-phase times as CSV (one row per scenario). Under mpirun the
 * scenario is split over the ranks; times are rank 0's, phases synchronised.
 *
 *   throng-bench [--steps N] [--warmup W] [--backend cpu|cuda] [--set K=V]... SCENARIO.yaml...  */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sim.h"
#include "io/config.h"

enum { MAX_SETS = 64 };

static void usage(void) {
  fprintf(stderr,
          "usage: throng-bench [--steps N] [--warmup W] [--backend NAME] [--set KEY=VALUE]... SCENARIO.yaml...\n"
          "prints CSV: scenario,backend,ranks,agents,steps,seconds,agent_steps_per_s,ms_per_step (free-running),\n"
          "synced_ms_per_step and <phase>_ms per step (a second run with every phase synchronised),\n"
          "memory_bytes_per_agent\n");
}

/* Wall time of `steps` steps on every rank (the slowest counts). */
static double timed_steps(thr_sim *s, long steps, int timing) {
  s->be->ops->sync(s->be);
  s->timing = timing;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (long k = 0; k < steps; ++k) thr_sim_step(s);
  s->be->ops->sync(s->be);
  MPI_Barrier(MPI_COMM_WORLD);
  return MPI_Wtime() - t0;
}

static int bench_one(const char *path, const char *const *sets, int n_sets, const char *backend, long steps,
                     long warmup, int rank) {
  char err[2048] = "";
  thr_scenario sc;
  if (thr_config_load(path, sets, n_sets, &sc, err, sizeof err)) {
    if (rank == 0) fprintf(stderr, "throng-bench: %s\n", err);
    thr_scenario_free(&sc);
    return 2;
  }
  thr_sim s;
  int rc = thr_sim_init(&s, &sc, backend, MPI_COMM_WORLD, err, sizeof err);
  if (rc) {
    if (rank == 0) fprintf(stderr, "throng-bench: %s\n", err);
    thr_sim_free(&s);
    thr_scenario_free(&sc);
    return rc == -1 ? 2 : 1;
  }
  for (long k = 0; k < warmup; ++k) thr_sim_step(&s);
  /* throughput: phases free to overlap (GPU work, halo messages) */
  double work0 = s.agent_steps;
  double wall = timed_steps(&s, steps, 0);
  double work = s.agent_steps - work0; /* agents of each step, summed (exits remove, sources add) */
  /* where the time goes: the same number of steps with every phase
   * synchronised (no overlap, so their sum exceeds the free-running time) */
  memset(&s.timers, 0, sizeof s.timers);
  double synced = timed_steps(&s, steps, 1);
  if (rank == 0) {
    double per = steps > 0 ? 1e3 / (double)steps : 0.0;
    printf("%s,%s,%d,%ld,%ld,%.6f,%.6g,%.6f,%.6f", sc.name, s.be->ops->name, s.nranks, s.n_global, steps, wall,
           wall > 0.0 ? work / wall : 0.0, wall * per, synced * per);
    for (int p = 0; p < THR_PHASE_COUNT; ++p)
      if (p != THR_PHASE_METRICS) printf(",%.6f", s.timers.t[p] * per);
    size_t mem = s.be->ops->memory_bytes ? s.be->ops->memory_bytes(s.be) : 0;
    printf(",%.1f\n", s.n_global ? (double)mem * s.nranks / (double)s.n_global : 0.0);
    fflush(stdout);
  }
  thr_sim_free(&s);
  thr_scenario_free(&sc);
  return 0;
}

int main(int argc, char **argv) {
  int provided, rank;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long steps = 100, warmup = 5;
  const char *backend = NULL;
  const char *sets[MAX_SETS];
  int n_sets = 0, first = 0, rc = 0;
  for (int k = 1; k < argc; ++k) {
    const char *a = argv[k];
    if (!strcmp(a, "--steps") && k + 1 < argc) {
      steps = atol(argv[++k]);
    } else if (!strcmp(a, "--warmup") && k + 1 < argc) {
      warmup = atol(argv[++k]);
    } else if (!strcmp(a, "--backend") && k + 1 < argc) {
      backend = argv[++k];
    } else if (!strcmp(a, "--set") && k + 1 < argc && n_sets < MAX_SETS) {
      sets[n_sets++] = argv[++k];
    } else if (a[0] == '-') {
      if (rank == 0) usage();
      MPI_Finalize();
      return 2;
    } else {
      if (!first) {
        first = 1;
        if (rank == 0) {
          printf("scenario,backend,ranks,agents,steps,seconds,agent_steps_per_s,ms_per_step,synced_ms_per_step");
          for (int p = 0; p < THR_PHASE_COUNT; ++p)
            if (p != THR_PHASE_METRICS) printf(",%s_ms", thr_phase_name(p));
          printf(",memory_bytes_per_agent\n");
        }
      }
      int r = bench_one(a, sets, n_sets, backend, steps, warmup, rank);
      if (r) rc = r;
    }
  }
  if (!first) {
    if (rank == 0) usage();
    rc = 2;
  }
  MPI_Finalize();
  return rc;
}
