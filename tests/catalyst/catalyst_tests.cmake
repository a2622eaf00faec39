# In situ visualisation tests (label catalyst; tests/catalyst/check_catalyst.py
# documents each case). Included from tests/CMakeLists.txt. They read the
# outputs with numpy, h5py and ParaView's vtkmodules: the interpreter is
# /usr/bin/python3 where it imports them (Debian's python3-paraview and
# python3-h5py), else Python3; without them the cases skip (77). Rendering
# cases run under xvfb-run (package xvfb, with xauth).
set(THRONG_CATALYST_CHECK_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/check_catalyst.py)

# Every build: the run loop and the backends' host views through the null
# module (no ParaView); on the CUDA backend also labelled gpu (skips without one).
foreach(case null_module null_module_cuda null_module_3d)
  add_test(NAME catalyst.${case}
           COMMAND ${Python3_EXECUTABLE} ${THRONG_CATALYST_CHECK_SCRIPT} ${THRONG_EXE} ${case} --source ${CMAKE_SOURCE_DIR}
                   --null-module $<TARGET_FILE:throng_null_insitu> ${THRONG_MPI_ARGS})
  set_tests_properties(catalyst.${case} PROPERTIES LABELS catalyst ENVIRONMENT "${THRONG_MPI_ENV}" PROCESSORS 2
                                                   SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
set_tests_properties(catalyst.null_module_cuda PROPERTIES LABELS "catalyst;gpu")
set_tests_properties(catalyst.null_module_3d PROPERTIES LABELS "catalyst;3d")

# Every build: scripts/paraview_frames.py (pvpython, after the run) draws a
# run's pictures; skips (77) without pvpython, xvfb-run or HDF5.
add_test(NAME catalyst.paraview_frames
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_paraview_frames.py ${THRONG_EXE}
                 ${CMAKE_SOURCE_DIR})
set_tests_properties(catalyst.paraview_frames PROPERTIES LABELS catalyst ENVIRONMENT "${THRONG_TEST_ENV}"
                                                         SKIP_RETURN_CODE 77 TIMEOUT 600)

if(NOT THRONG_HAVE_CATALYST)
  # without Catalyst: --catalyst is refused (exit 2, "built without ParaView Catalyst")
  add_test(NAME catalyst.not_built COMMAND ${Python3_EXECUTABLE} ${THRONG_CATALYST_CHECK_SCRIPT} ${THRONG_EXE} not_built)
  set_tests_properties(catalyst.not_built PROPERTIES LABELS catalyst ENVIRONMENT "${THRONG_TEST_ENV}" TIMEOUT 60)
  return()
endif()

throng_python_with(THRONG_CATALYST_PYTHON "import h5py, numpy, vtkmodules.vtkIOXML"
                   "catalyst tests (h5py, numpy, vtkmodules)" PREFER_SYSTEM)

foreach(case extract_png density aspect region time_label script_error script_syntax script_missing no_display
             live)
  add_test(NAME catalyst.${case}
           COMMAND ${THRONG_CATALYST_PYTHON} ${THRONG_CATALYST_CHECK_SCRIPT} ${THRONG_EXE} ${case}
                   --source ${CMAKE_SOURCE_DIR} ${THRONG_MPI_ARGS})
  set_tests_properties(catalyst.${case} PROPERTIES LABELS catalyst ENVIRONMENT "${THRONG_MPI_ENV}"
                                                   PROCESSORS 2 SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
