# The power-law model (label `powerlaw`; issue 19, Karamouzas et al. 2014 as
# the comparison of seed paper 000's Fig. 11; docs/powerlaw.md). Included
# from tests/CMakeLists.txt. The interaction itself has unit tests in
# tests/unit/test_powerlaw.c (unit.powerlaw.*, also `powerlaw`).
set(THRONG_PL_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_powerlaw.py ${THRONG_EXE})
set(THRONG_PL_CONFIGS ${CMAKE_SOURCE_DIR}/configs/powerlaw)

function(throng_powerlaw_test name labels)
  add_test(NAME powerlaw.${name} COMMAND ${THRONG_PL_CHECK} ${ARGN})
  set_tests_properties(powerlaw.${name} PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 77 TIMEOUT 300
                       ENVIRONMENT "${THRONG_TEST_ENV};OMP_NUM_THREADS=1")
endfunction()

# two agents head-on in the open pass without contact
throng_powerlaw_test(pair_head_on powerlaw pair --scenario ${THRONG_PL_CONFIGS}/pair-head-on.yaml)
# Fig. 11: in the dense crowd the power law overlaps and stalls more than PBD; in the sparse one neither overlaps
throng_powerlaw_test(fig11_dense powerlaw dense --scenario ${THRONG_PL_CONFIGS}/dense-passing.yaml)
throng_powerlaw_test(fig11_sparse powerlaw sparse --scenario ${THRONG_PL_CONFIGS}/sparse-passing.yaml)
throng_powerlaw_test(gpu.cpu_equals_cuda "powerlaw;gpu" cpu_vs_cuda --scenario ${THRONG_PL_CONFIGS}/dense-passing.yaml)
if(THRONG_MPI_ARGS)
  add_test(NAME powerlaw.mpi.ranks_dense
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/mpi/check_mpi.py ${THRONG_MPI_ARGS} ${THRONG_EXE}
                   equal ${THRONG_PL_CONFIGS}/dense-passing.yaml --ranks 1,2,3,4 --steps 1440)
  set_tests_properties(powerlaw.mpi.ranks_dense PROPERTIES LABELS "powerlaw;mpi" PROCESSORS 4 TIMEOUT 300
                       ENVIRONMENT "${THRONG_MPI_ENV};OMP_NUM_THREADS=1")
endif()
file(GLOB THRONG_PL_BAD CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/bad/*.yaml)
foreach(bad ${THRONG_PL_BAD})
  get_filename_component(name ${bad} NAME_WE)
  add_test(NAME powerlaw.bad_input.${name}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/cli/check_bad_input.py ${THRONG_EXE} ${bad})
  set_tests_properties(powerlaw.bad_input.${name} PROPERTIES LABELS "powerlaw" ENVIRONMENT "${THRONG_TEST_ENV}")
endforeach()
