# Buildings (label `floors`): floors, stairs and the seams between the
# floors' places (docs/floors.md); check_floors.py documents every case. The
# stair speeds and the queue in front of a stair are validation cases
# (RiMEA 2, 3, 13, 14); bad building inputs are in tests/data/bad/ (unit).
# Included from tests/CMakeLists.txt (THRONG_EXE, THRONG_TEST_ENV, Python3).
set(THRONG_FLOORS ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_floors.py ${THRONG_EXE})
foreach(case apart down_the_stair journey)
  add_test(NAME floors.${case} COMMAND ${THRONG_FLOORS} ${case})
  set_tests_properties(floors.${case} PROPERTIES LABELS floors TIMEOUT 300 ENVIRONMENT "${THRONG_TEST_ENV}")
endforeach()

# The two-storey building on 1, 2, 3 and 4 ranks, agents crossing the seam
# between ranks as they walk off the stair.
if(MPIEXEC_EXECUTABLE)
  add_test(NAME floors.ranks_identical COMMAND ${THRONG_FLOORS} ranks_identical ${THRONG_MPI_ARGS})
  set_tests_properties(floors.ranks_identical PROPERTIES LABELS "floors;mpi" PROCESSORS 4 TIMEOUT 600
                       SKIP_RETURN_CODE 77 ENVIRONMENT "${THRONG_MPI_ENV}")
endif()

# CPU = CUDA byte for byte with floors (strict build); SKIPPED (77) without a GPU.
add_test(NAME floors.cpu_vs_cuda COMMAND ${THRONG_FLOORS} cpu_vs_cuda)
set_tests_properties(floors.cpu_vs_cuda PROPERTIES LABELS "floors;gpu" SKIP_RETURN_CODE 77 TIMEOUT 300
                     ENVIRONMENT "${THRONG_TEST_ENV}")
