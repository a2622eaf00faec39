# The ORCA model (label `orca`; issue 18, seed paper 002, docs/orca.md).
# Included from tests/CMakeLists.txt (THRONG_EXE, THRONG_TEST_ENV,
# THRONG_MPI_ARGS, THRONG_MPI_ENV, Python3). tests/orca/check_orca.py
# documents each case; the core (half-planes, LP1-LP3) has unit tests in
# tests/unit/test_orca.c (unit.orca.*, also `orca`).
set(THRONG_ORCA_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_orca.py ${THRONG_EXE})
set(THRONG_ORCA_CONFIGS ${CMAKE_SOURCE_DIR}/configs/orca)

function(throng_orca_test name labels)
  add_test(NAME orca.${name} COMMAND ${THRONG_ORCA_CHECK} ${ARGN})
  set_tests_properties(orca.${name} PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 77 TIMEOUT 300
                       ENVIRONMENT "${THRONG_TEST_ENV};OMP_NUM_THREADS=1")
endfunction()

# Two agents exactly head-on pass on their right without touching
# (measured: closest 0.6128 m for r_a + r_b = 0.6 m), mirror images.
throng_orca_test(pair_head_on orca pair --scenario ${THRONG_ORCA_CONFIGS}/pair-head-on.yaml)
# Per-state responsibility (002's non-reciprocal agents): a rude agent (0)
# walks straight on, a polite one (1) steps aside the whole way.
throng_orca_test(pair_rude orca pair_rude --scenario ${CMAKE_SOURCE_DIR}/tests/data/orca/pair-rude.yaml)
# 2 x 200 crossing at right angles (measured: 399 of 400 home after 90 s,
# the other one standing where the early arrivals stand on their goals; the
# largest overlap 0.24 of a radius at the densest step).
throng_orca_test(crossing orca crossing --scenario ${THRONG_ORCA_CONFIGS}/crossing.yaml)
# 200 agents through a 1.2 m gap to an exit, routed around the wall by the
# distance field (measured: all out at 130.6 s, no wall overlap, the
# largest overlap of two agents 0.65 of a radius at the gap).
throng_orca_test(bottleneck orca bottleneck --scenario ${THRONG_ORCA_CONFIGS}/bottleneck.yaml)
# The physical forces and behaviour states (spec §5.2): the stability test's
# 95 % feasibility at dt 0.01-0.2 s (measured: at most 1 of 51 agents);
# pushing through two bottlenecks (measured at seed 7: 239 vs 171 out, 307 vs
# 295 past the first gap); a rusher displacing a standing crowd (0.480 vs
# 0.301 m; push_gain 0 / 6: 0.339 / 0.552 m); a push travelling down a row
# (agents 5-9: 0.69 vs 0.057 m); a
# reduced Tawaf (3,000 agents: counter-clockwise, leaving after 7 circuits).
throng_orca_test(stability orca stability --scenario ${THRONG_ORCA_CONFIGS}/stability.yaml)
throng_orca_test(two_bottlenecks orca bottlenecks --scenario ${THRONG_ORCA_CONFIGS}/two-bottlenecks.yaml)
throng_orca_test(rusher orca rusher --scenario ${THRONG_ORCA_CONFIGS}/rusher.yaml)
# Issue 37: an agent moves with the velocity it keeps, x_n+1 - x_n = dt v_n+1
# (the final pass no longer clamps it), in the two bottlenecks (pushing,
# LP fallbacks; measured: within 1e-6 m/s, fastest 2.0000 m/s), and the
# rusher walks at its configured 3 m/s (3.000).
throng_orca_test(velocity_bookkeeping orca bookkeeping --scenario ${THRONG_ORCA_CONFIGS}/two-bottlenecks.yaml)
throng_orca_test(rusher_speed orca rusher_speed --scenario ${THRONG_ORCA_CONFIGS}/rusher.yaml)
throng_orca_test(push_line orca push_line --scenario ${THRONG_ORCA_CONFIGS}/push-line.yaml)
throng_orca_test(tawaf orca tawaf --scenario ${THRONG_ORCA_CONFIGS}/tawaf-small.yaml)
# 002 Figs. 13-15 through scripts/tawaf_figures.py (issue 37): the 7 regions'
# speeds, the exiting share, the queue to the Black Stone with and without
# forces (measured, seeds 11-13: no touch of the stone in 150 s without
# forces, 13-17 with)
throng_orca_test(tawaf_figures orca tawaf_figures --scenario ${THRONG_ORCA_CONFIGS}/tawaf-small.yaml)
# the generated Tawaf files are what scripts/make_tawaf.py writes
add_test(NAME orca.tawaf_generated
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_tawaf_files.py ${CMAKE_SOURCE_DIR})
set_tests_properties(orca.tawaf_generated PROPERTIES LABELS "orca")
foreach(s crossing bottleneck two-bottlenecks tawaf-small rusher)
  throng_orca_test(gpu.cpu_equals_cuda_${s} "orca;gpu" cpu_vs_cuda --scenario ${THRONG_ORCA_CONFIGS}/${s}.yaml)
endforeach()
throng_orca_test(gpu.cpu_equals_cuda_pair-rude "orca;gpu" cpu_vs_cuda
                 --scenario ${CMAKE_SOURCE_DIR}/tests/data/orca/pair-rude.yaml)
# 1-4 ranks byte-identical (neighbours chosen by (distance, id), not by the
# order a rank scans them in).
if(THRONG_MPI_ARGS)
  add_test(NAME orca.mpi.ranks_crossing
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/mpi/check_mpi.py ${THRONG_MPI_ARGS} ${THRONG_EXE}
                   equal ${THRONG_ORCA_CONFIGS}/crossing.yaml --ranks 1,2,3,4 --steps 600)
  # agents leave here: the final states and evacuated.csv compared
  add_test(NAME orca.mpi.ranks_bottleneck COMMAND ${THRONG_ORCA_CHECK} ranks
                                                  --scenario ${THRONG_ORCA_CONFIGS}/bottleneck.yaml ${THRONG_MPI_ARGS})
  # pushes, inferred forces handed on through the halo, behaviour states with
  # random transitions, laps and exits
  foreach(s two-bottlenecks tawaf-small rusher ../../tests/data/orca/pair-rude)
    get_filename_component(n ${s} NAME)
    add_test(NAME orca.mpi.ranks_${n} COMMAND ${THRONG_ORCA_CHECK} ranks --scenario ${THRONG_ORCA_CONFIGS}/${s}.yaml
                                               ${THRONG_MPI_ARGS})
    set_tests_properties(orca.mpi.ranks_${n} PROPERTIES LABELS "orca;mpi" PROCESSORS 4 TIMEOUT 600
                         ENVIRONMENT "${THRONG_MPI_ENV};OMP_NUM_THREADS=1")
  endforeach()
  set_tests_properties(orca.mpi.ranks_crossing orca.mpi.ranks_bottleneck PROPERTIES LABELS "orca;mpi" PROCESSORS 4
                       TIMEOUT 300 ENVIRONMENT "${THRONG_MPI_ENV};OMP_NUM_THREADS=1")
endif()
# Bad input never starts a run: PBD sections with ORCA, ORCA keys in a PBD
# scenario, what ORCA cannot have yet.
file(GLOB THRONG_ORCA_BAD CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/bad/*.yaml)
foreach(bad ${THRONG_ORCA_BAD})
  get_filename_component(name ${bad} NAME_WE)
  add_test(NAME orca.bad_input.${name}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/cli/check_bad_input.py ${THRONG_EXE} ${bad})
  set_tests_properties(orca.bad_input.${name} PROPERTIES LABELS "orca" ENVIRONMENT "${THRONG_TEST_ENV}")
endforeach()
