# `throng report` (label unit): check_report.py writes synthetic output
# directories (every file; only run.json and metrics.csv; nobody out yet; with
# formations.csv) and checks the figures and the page, and exit 2 for a
# directory that is not a run's; case formations reports a real run of two
# crossing formations (data/formations-crossing.yaml, a few seconds); case
# many_exits draws a stadium-sized plan (28 exits, 8 areas, 11 lines) and
# checks in layout.json that no two labels overlap. The
# drawing cases skip (77) without matplotlib (python3-matplotlib).
# Included from tests/CMakeLists.txt (THRONG_EXE, THRONG_TEST_ENV, Python3).
foreach(case full partial edge not_output formations_synthetic formations many_exits)
  add_test(NAME unit.report.${case}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_report.py ${THRONG_EXE} ${case})
  set_tests_properties(unit.report.${case} PROPERTIES LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 180
                       ENVIRONMENT "${THRONG_TEST_ENV}")
endforeach()
# unit.report.browser: a real run (tests/data/evacuation/ranks.yaml, about 2 s)
# reported and opened in headless Chromium (check_report_browser.py): every
# image of index.html loads, every local link answers, a full-page screenshot
# is not blank, and the same check on a copy without one PNG reports it.
# Skips (77) without chromium (Debian's package chromium) or matplotlib.
add_test(NAME unit.report.browser
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_report_browser.py ${THRONG_EXE})
set_tests_properties(unit.report.browser PROPERTIES LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 300
                     ENVIRONMENT "${THRONG_TEST_ENV}")
