# Robustness tests (label `robustness`): blow-ups, unbounded placement,
# numbers, outputs (paths, full disk, write failures, signals). Each case of
# check_robustness.py documents itself; the placement fixtures in
# tests/data/robustness/ are bad input (exit 2, the block and key named,
# nothing written) that once made placement run for hours.
set(THRONG_ROBUST ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_robustness.py ${THRONG_EXE})
foreach(case diverge diverge-no-output steps-overflow steps-long yaml-long-numbers final-in-out final-is-scenario final-is-dir
             final-no-parent out-not-empty out-foreign out-too-long disk-full fault-final fault-frame fault-run-json
             sigterm out-1000 out-empty out-concurrent overwrite-foreign final-symlink final-device disk-full-hdf5
             sighup check-tiny-dt input-special input-large)
  add_test(NAME robustness.${case} COMMAND ${THRONG_ROBUST} ${case})
  set_tests_properties(robustness.${case} PROPERTIES LABELS robustness ENVIRONMENT "${THRONG_TEST_ENV}" TIMEOUT 300
                       SKIP_RETURN_CODE 77)
endforeach()
if(MPIEXEC_EXECUTABLE)
  add_test(NAME robustness.diverge-mpi COMMAND ${THRONG_ROBUST} diverge-mpi --mpiexec ${MPIEXEC_EXECUTABLE})
  set_tests_properties(robustness.diverge-mpi PROPERTIES LABELS robustness SKIP_RETURN_CODE 77 PROCESSORS 2
                       ENVIRONMENT "${THRONG_TEST_ENV}")
endif()

file(GLOB THRONG_ROBUST_INPUTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/data/robustness/*.yaml)
foreach(bad ${THRONG_ROBUST_INPUTS})
  get_filename_component(name ${bad} NAME_WE)
  add_test(NAME robustness.input.${name}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/cli/check_bad_input.py ${THRONG_EXE} ${bad})
  set_tests_properties(robustness.input.${name} PROPERTIES LABELS robustness ENVIRONMENT "${THRONG_TEST_ENV}"
                       TIMEOUT 60)
endforeach()

# Further robustness classes, one file each (checkpoint state, polygons, ...).
file(GLOB THRONG_ROBUST_MORE CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cmake)
list(REMOVE_ITEM THRONG_ROBUST_MORE ${CMAKE_CURRENT_LIST_FILE})
foreach(more ${THRONG_ROBUST_MORE})
  include(${more})
endforeach()
