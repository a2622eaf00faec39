# `throng report` (label unit): check_report.py writes synthetic output
# directories (every file; only run.json and metrics.csv; nobody out yet; with
# formations.csv) and checks the figures and the page, and exit 2 for a
# directory that is not a run's; case formations reports a real run of two
# crossing formations (data/formations-crossing.yaml, a few seconds). The
# drawing cases skip (77) without matplotlib (python3-matplotlib).
# Included from tests/CMakeLists.txt (THRONG_EXE, THRONG_TEST_ENV, Python3).
foreach(case full partial edge not_output formations_synthetic formations)
  add_test(NAME unit.report.${case}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_report.py ${THRONG_EXE} ${case})
  set_tests_properties(unit.report.${case} PROPERTIES LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 180
                       ENVIRONMENT "${THRONG_TEST_ENV}")
endforeach()
