# Evacuation tests (label `evacuation`): exits, routing, journeys, sources,
# pre-movement and the evacuation outputs on the small scenarios of
# tests/data/evacuation/; check_evacuation.py documents every case. The
# bad-input fixtures of evacuation scenarios are in tests/data/bad/ (label
# unit).
# Included from tests/CMakeLists.txt (THRONG_EXE, THRONG_TEST_ENV, Python3).
set(THRONG_EVAC ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_evacuation.py ${THRONG_EXE})
foreach(case exits_exact_counts corner_no_wall_crossing u_turn_no_wall_crossing routing_round_obstacle
             journey_waypoint journey_queue journey_waiting transitions_round_robin transitions_least_targeted
             sources premovement speed_distribution queue_far_slots beside_a_wall maps_by_hand)
  add_test(NAME evacuation.${case} COMMAND ${THRONG_EVAC} ${case})
  set_tests_properties(evacuation.${case} PROPERTIES LABELS evacuation TIMEOUT 120
                       ENVIRONMENT "${THRONG_TEST_ENV}")
endforeach()

# The stadium study thinned to about 2,000 people empties (a few minutes on one core).
add_test(NAME evacuation.stadium_mini_empties COMMAND ${THRONG_EVAC} stadium_mini_empties)
set_tests_properties(evacuation.stadium_mini_empties PROPERTIES LABELS evacuation TIMEOUT 1500
                     ENVIRONMENT "${THRONG_TEST_ENV}")

# The same scenario on 1, 2, 3 and 4 ranks (one OpenMP thread each).
if(MPIEXEC_EXECUTABLE)
  add_test(NAME evacuation.ranks_identical
           COMMAND ${THRONG_EVAC} ranks_identical ${THRONG_MPI_ARGS})
  set_tests_properties(evacuation.ranks_identical PROPERTIES LABELS "evacuation;mpi" PROCESSORS 4 TIMEOUT 300
                       ENVIRONMENT "${THRONG_MPI_ENV}")
else()
  message(STATUS "Evacuation tests: no mpiexec found; evacuation.ranks_identical not registered")
endif()

# The CUDA backend against the CPU reference; SKIPPED (77) without one or a GPU.
add_test(NAME evacuation.cpu_vs_cuda COMMAND ${THRONG_EVAC} cpu_vs_cuda)
set_tests_properties(evacuation.cpu_vs_cuda PROPERTIES LABELS "evacuation;gpu" SKIP_RETURN_CODE 77 TIMEOUT 300
                     ENVIRONMENT "${THRONG_TEST_ENV}")
