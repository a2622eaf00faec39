# A Catalyst script that tries to end the process (sys.exit(0), sys.exit(7),
# raise SystemExit, os._exit) at import or in catalyst_execute, on 1 rank and
# on one of 2 ranks: the run fails (exit 1, run.json failed naming the script,
# no final state) and never hangs. tests/catalyst/check_catalyst_exit.py
# documents the cases; they skip (77) without Catalyst or, on 2 ranks,
# without mpiexec.
set(THRONG_CATALYST_EXIT_CHECK ${CMAKE_CURRENT_LIST_DIR}/../catalyst/check_catalyst_exit.py)
foreach(case exit0-import-1 exit7-import-1 exit0-execute-1 exit7-execute-1 exit0-import-2 exit7-import-2
             exit0-execute-2 exit7-execute-2 raise-execute-2 osexit-execute-2)
  add_test(NAME robustness.catalyst-${case}
           COMMAND ${Python3_EXECUTABLE} ${THRONG_CATALYST_EXIT_CHECK} ${THRONG_EXE} ${case} --source ${CMAKE_SOURCE_DIR}
                   ${THRONG_MPI_ARGS})
  set_tests_properties(robustness.catalyst-${case} PROPERTIES LABELS "robustness;catalyst"
                       ENVIRONMENT "${THRONG_MPI_ENV}" PROCESSORS 2 SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
