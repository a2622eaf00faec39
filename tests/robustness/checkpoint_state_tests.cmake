# Damaged checkpoints (issue 38, tests/robustness/check_checkpoint_state.py
# documents each case): words of every /state blob, the scenario text, agent
# rows, parameters and root attributes changed after writing are refused with
# exit 2 naming the dataset (checksums); with the checksum recomputed, the
# bounds checks of the unpacking refuse out-of-range content; format version 2
# restarts with a warning. h5py changes the files: THRONG_IO_PYTHON (tests/io)
# is the interpreter that imports it; without it the cases skip (77).
throng_python_with(THRONG_IO_PYTHON "import h5py, numpy" "io tests (h5py, numpy)")
foreach(case mutate content version)
  add_test(NAME robustness.checkpoint_state.${case}
           COMMAND ${THRONG_IO_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_checkpoint_state.py ${THRONG_EXE} ${case})
  set_tests_properties(robustness.checkpoint_state.${case} PROPERTIES LABELS robustness SKIP_RETURN_CODE 77
                       ENVIRONMENT "${THRONG_TEST_ENV}" TIMEOUT 600)
endforeach()
