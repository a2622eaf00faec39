/* Loads a scenario through the installed library and runs two steps on
 * one rank: the public headers and the exported target are enough. */
#include <mpi.h>
#include <stdio.h>

#include "core/sim.h"
#include "io/config.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  char err[1024];
  thr_scenario sc;
  int rc = 1;
  if (argc > 1 && !thr_config_load(argv[1], NULL, 0, &sc, err, sizeof err)) {
    thr_sim s;
    if (!thr_sim_init(&s, &sc, "cpu", MPI_COMM_WORLD, err, sizeof err)) {
      thr_sim_step(&s);
      thr_sim_step(&s);
      printf("consumer: %ld agents, step %ld\n", s.n_global, s.step);
      rc = s.step == 2 ? 0 : 1;
    } else {
      fprintf(stderr, "consumer: %s\n", err);
    }
    thr_sim_free(&s);
    thr_scenario_free(&sc);
  } else {
    fprintf(stderr, "consumer: %s\n", argc > 1 ? err : "usage: consumer SCENARIO");
  }
  MPI_Finalize();
  return rc;
}
