# Fuzzing of the scenario loader and placement (docs/testing.md). Included
# from tests/CMakeLists.txt.
#
# Always built: fuzz_replay, which replays every input of regressions/ (inputs
# that once failed) through the loader as fuzz_scenario does; one CTest test
# per input, label unit.
#
# With THRONG_FUZZ=ON (clang; the top-level CMakeLists.txt instruments the
# whole build): the libFuzzer targets fuzz_scenario and fuzz_placement, their
# seed corpus and dictionary (make_corpus.py, into <build>/fuzz/), and a 30 s
# run of each, label fuzz.
set(THRONG_FUZZ_SRC ${CMAKE_CURRENT_LIST_DIR})

add_library(throng_fuzz_input STATIC ${THRONG_FUZZ_SRC}/fuzz_input.c)
target_include_directories(throng_fuzz_input PUBLIC ${THRONG_FUZZ_SRC})
target_link_libraries(throng_fuzz_input PUBLIC throng_core)

add_executable(fuzz_replay ${THRONG_FUZZ_SRC}/replay.c)
target_link_libraries(fuzz_replay PRIVATE throng_fuzz_input)

file(GLOB THRONG_FUZZ_REGRESSIONS CONFIGURE_DEPENDS ${THRONG_FUZZ_SRC}/regressions/*)
list(FILTER THRONG_FUZZ_REGRESSIONS EXCLUDE REGEX "README\\.md$")
foreach(input ${THRONG_FUZZ_REGRESSIONS})
  get_filename_component(name ${input} NAME)
  add_test(NAME unit.fuzz_regression.${name} COMMAND fuzz_replay ${input})
  # no MPI here, so leaks are the loader's own: report them (ASan builds)
  set_tests_properties(unit.fuzz_regression.${name} PROPERTIES LABELS unit ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1")
endforeach()

if(NOT THRONG_FUZZ)
  return()
endif()

set(THRONG_FUZZ_OUT ${CMAKE_BINARY_DIR}/fuzz)
set(THRONG_FUZZ_SEEDS ${THRONG_FUZZ_OUT}/seeds)
set(THRONG_FUZZ_DICT ${THRONG_FUZZ_OUT}/scenario.dict)
file(GLOB_RECURSE THRONG_FUZZ_SEED_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/configs/*.yaml
     ${CMAKE_SOURCE_DIR}/tests/data/*.yaml)
add_custom_command(
  OUTPUT ${THRONG_FUZZ_DICT}
  # (throng is an MPI program: Open MPI's own allocations are not ours to report)
  COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0
          ${Python3_EXECUTABLE} ${THRONG_FUZZ_SRC}/make_corpus.py $<TARGET_FILE:throng> ${CMAKE_SOURCE_DIR}
          ${THRONG_FUZZ_SEEDS} ${THRONG_FUZZ_DICT}
  DEPENDS throng ${THRONG_FUZZ_SRC}/make_corpus.py ${THRONG_FUZZ_SEED_SOURCES} ${THRONG_FUZZ_REGRESSIONS}
  COMMENT "Seed corpus and dictionary of the fuzzers")
add_custom_target(fuzz_corpus ALL DEPENDS ${THRONG_FUZZ_DICT})

foreach(target scenario placement)
  add_executable(fuzz_${target} ${THRONG_FUZZ_SRC}/fuzz_${target}.c)
  target_link_libraries(fuzz_${target} PRIVATE throng_fuzz_input)
  target_link_options(fuzz_${target} PRIVATE -fsanitize=fuzzer)
  add_dependencies(fuzz_${target} fuzz_corpus)
  # new inputs go to work/<target>, findings to artifacts/; the seeds stay as generated
  file(MAKE_DIRECTORY ${THRONG_FUZZ_OUT}/work/${target} ${THRONG_FUZZ_OUT}/artifacts)
  add_test(NAME fuzz.${target}
           COMMAND fuzz_${target} -max_total_time=30 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
                   -dict=${THRONG_FUZZ_DICT} -artifact_prefix=${THRONG_FUZZ_OUT}/artifacts/${target}-
                   ${THRONG_FUZZ_OUT}/work/${target} ${THRONG_FUZZ_SEEDS})
  set_tests_properties(fuzz.${target} PROPERTIES LABELS fuzz TIMEOUT 120
                       ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1;UBSAN_OPTIONS=print_stacktrace=1")
endforeach()
