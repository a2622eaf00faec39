# Command-line bad input that needs no fixture file of its own: unreadable or
# missing scenario paths, bad --set overrides, unknown options. Each case runs
# check_cli_errors.py, which uses tests/data/good/minimal.yaml as the scenario
# and requires exit status 2, a message naming the culprit, and no output.
# Included from tests/CMakeLists.txt (THRONG_EXE, THRONG_TEST_ENV, Python3).
set(THRONG_CLI_ERROR_CASES
  good_minimal
  missing_path
  unreadable_path
  set_no_equals
  set_missing_value
  set_unknown_key
  set_unknown_nested_key
  set_bad_value
  set_bad_yaml
  set_bad_index
  unknown_option
  steps_negative
  backend_unknown
  set_bad_among_run_options)

foreach(case ${THRONG_CLI_ERROR_CASES})
  add_test(NAME unit.cli.${case}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_cli_errors.py ${THRONG_EXE} ${case})
  set_tests_properties(unit.cli.${case} PROPERTIES LABELS unit ENVIRONMENT "${THRONG_TEST_ENV}")
endforeach()

# throng check's hint on a measurement line that agents can walk round (issue 36)
add_test(NAME unit.check.line_hints COMMAND ${THRONG_EXE} check ${CMAKE_CURRENT_LIST_DIR}/../data/good/line_hints.yaml)
set_tests_properties(unit.check.line_hints PROPERTIES LABELS unit ENVIRONMENT "${THRONG_TEST_ENV}"
                     PASS_REGULAR_EXPRESSION "hint +measurement\\.lines\\[1\\] \\('short', line 15\\): its end \\[8, 1\\] is 1 m from the nearest wall"
                     FAIL_REGULAR_EXPRESSION "lines\\[0\\] \\('door'")
