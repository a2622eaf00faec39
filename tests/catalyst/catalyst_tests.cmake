# In situ visualisation tests (label catalyst; tests/catalyst/check_catalyst.py
# documents each case). Included from tests/CMakeLists.txt. They read the
# outputs with numpy, h5py and ParaView's vtkmodules: the interpreter is
# /usr/bin/python3 where it imports them (Debian's python3-paraview and
# python3-h5py), else Python3; without them the cases skip (77). Rendering
# cases run under xvfb-run (package xvfb, with xauth).
set(THRONG_CATALYST_CHECK_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/check_catalyst.py)

# Every build: the run loop and the backends' host views through the null
# module (no ParaView); on the CUDA backend also labelled gpu (skips without one).
foreach(case null_module null_module_cuda)
  add_test(NAME catalyst.${case}
           COMMAND ${Python3_EXECUTABLE} ${THRONG_CATALYST_CHECK_SCRIPT} ${THRONG_EXE} ${case} --source ${CMAKE_SOURCE_DIR}
                   --null-module $<TARGET_FILE:throng_null_insitu> ${THRONG_MPI_ARGS})
  set_tests_properties(catalyst.${case} PROPERTIES LABELS catalyst ENVIRONMENT "${THRONG_MPI_ENV}" PROCESSORS 2
                                                   SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
set_tests_properties(catalyst.null_module_cuda PROPERTIES LABELS "catalyst;gpu")

if(NOT THRONG_HAVE_CATALYST)
  # without Catalyst: --catalyst is refused (exit 2, "built without ParaView Catalyst")
  add_test(NAME catalyst.not_built COMMAND ${Python3_EXECUTABLE} ${THRONG_CATALYST_CHECK_SCRIPT} ${THRONG_EXE} not_built)
  set_tests_properties(catalyst.not_built PROPERTIES LABELS catalyst ENVIRONMENT "${THRONG_TEST_ENV}" TIMEOUT 60)
  return()
endif()

if(NOT THRONG_CATALYST_PYTHON)
  set(_cat_python ${Python3_EXECUTABLE})
  foreach(py /usr/bin/python3 ${Python3_EXECUTABLE})
    if(EXISTS ${py})
      execute_process(COMMAND ${py} -c "import h5py, numpy, vtkmodules.vtkIOXML" RESULT_VARIABLE _cat_rc
                      OUTPUT_QUIET ERROR_QUIET)
      if(_cat_rc EQUAL 0)
        set(_cat_python ${py})
        break()
      endif()
    endif()
  endforeach()
  set(THRONG_CATALYST_PYTHON ${_cat_python} CACHE FILEPATH "Python with h5py, numpy and vtkmodules for the catalyst tests")
  message(STATUS "catalyst tests: python ${THRONG_CATALYST_PYTHON}")
endif()

foreach(case extract_png density script_error script_syntax script_missing no_display live)
  add_test(NAME catalyst.${case}
           COMMAND ${THRONG_CATALYST_PYTHON} ${THRONG_CATALYST_CHECK_SCRIPT} ${THRONG_EXE} ${case}
                   --source ${CMAKE_SOURCE_DIR} ${THRONG_MPI_ARGS})
  set_tests_properties(catalyst.${case} PROPERTIES LABELS catalyst ENVIRONMENT "${THRONG_MPI_ENV}"
                                                   PROCESSORS 2 SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
