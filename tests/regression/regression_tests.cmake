# Behaviour lock (label `regression`): the --final-state SHA-256 of the 15
# paper scenarios (300 steps; 100 for bottleneck-100048) and of the MPI cases
# must equal tests/regression/final-state.sha256. A change that moves results
# on purpose re-records the list (final_hashes.py record) and says why.
set(THRONG_HASHES ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/final_hashes.py ${THRONG_EXE})
add_test(NAME regression.final_state.paper COMMAND ${THRONG_HASHES} check --cases paper)
set_tests_properties(regression.final_state.paper PROPERTIES LABELS regression ENVIRONMENT "${THRONG_TEST_ENV}"
                     TIMEOUT 900)
if(MPIEXEC_EXECUTABLE)
  add_test(NAME regression.final_state.mpi
           COMMAND ${THRONG_HASHES} check --cases mpi --mpiexec ${MPIEXEC_EXECUTABLE} --mpi-flags=--oversubscribe)
  set_tests_properties(regression.final_state.mpi PROPERTIES LABELS regression SKIP_RETURN_CODE 77
                       ENVIRONMENT "${THRONG_TEST_ENV};OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
                       PROCESSORS 4 TIMEOUT 900)
endif()
