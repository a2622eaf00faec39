# Robustness of the walkable-area check on large plans (check_polygon.py):
# a valid plan of 10^6 vertices passes `throng check`, and faulty ones (a
# ring crossing itself far apart in index order, a hole across the outer
# ring, holes overlapping, a hole outside, a hole in a hole) are refused with
# exit 2 and the right message, each within 10 s in an optimised build
# (within 60 s in others: a Debug or sanitizer build is many times slower).
if(CMAKE_BUILD_TYPE MATCHES "^(Release|RelWithDebInfo|MinSizeRel)$" AND NOT THRONG_SANITIZE)
  set(THRONG_POLYGON_LIMIT 10)
else()
  set(THRONG_POLYGON_LIMIT 60)
endif()
foreach(case valid self-cross hole-crosses holes-overlap hole-outside hole-in-hole)
  add_test(NAME robustness.polygon.${case}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_polygon.py ${THRONG_EXE} ${case}
                   --limit ${THRONG_POLYGON_LIMIT})
  set_tests_properties(robustness.polygon.${case} PROPERTIES LABELS robustness ENVIRONMENT "${THRONG_TEST_ENV}"
                       TIMEOUT 120)
endforeach()
