# HDF5 trajectory and checkpoint/restart tests (label `io`). Included from
# tests/CMakeLists.txt (THRONG_EXE, THRONG_TEST_ENV, Python3). Every case of
# tests/io/check_io.py documents its checks. They read HDF5 files with h5py:
# the interpreter is THRONG_IO_PYTHON, by default the first of Python3 and
# /usr/bin/python3 (Debian's python3-h5py) that imports h5py and numpy; with
# none the h5py cases skip (77). io.pedpy installs PedPy from PyPI into
# ${CMAKE_BINARY_DIR}/venv-io once and skips when it cannot (no network).
set(THRONG_IO_CHECK_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/check_io.py)

# geometry.vtp and geometry.wkt beside every run (tests/io/check_geometry.py;
# with or without HDF5; ParaView's reader where pvpython exists)
add_test(NAME io.geometry COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_geometry.py ${THRONG_EXE}
                                  ${CMAKE_SOURCE_DIR})
set_tests_properties(io.geometry PROPERTIES LABELS io ENVIRONMENT "${THRONG_TEST_ENV}" TIMEOUT 300)

if(NOT THRONG_HAVE_HDF5)
  # without HDF5: what needs it is refused (exit 2, "built without HDF5")
  add_test(NAME io.no_hdf5 COMMAND ${Python3_EXECUTABLE} ${THRONG_IO_CHECK_SCRIPT} ${THRONG_EXE} no_hdf5)
  set_tests_properties(io.no_hdf5 PROPERTIES LABELS io ENVIRONMENT "${THRONG_TEST_ENV}" TIMEOUT 60)
  return()
endif()

throng_python_with(THRONG_IO_PYTHON "import h5py, numpy" "io tests (h5py, numpy)")

set(THRONG_IO_ENV ${THRONG_MPI_ENV})
set(THRONG_IO_MPI ${THRONG_MPI_ARGS})

set(THRONG_IO_CHECK ${THRONG_IO_PYTHON} ${THRONG_IO_CHECK_SCRIPT} ${THRONG_EXE})
set(THRONG_IO_DATA ${CMAKE_SOURCE_DIR}/tests/data)

function(throng_io_test name procs)
  add_test(NAME io.${name} COMMAND ${THRONG_IO_CHECK} ${ARGN} ${THRONG_IO_MPI})
  set_tests_properties(io.${name} PROPERTIES LABELS io ENVIRONMENT "${THRONG_IO_ENV}" PROCESSORS ${procs}
                                             SKIP_RETURN_CODE 77 TIMEOUT 300)
endfunction()

# trajectory.h5 (written on 2 ranks) against a CSV run; the XDMF sidecar.
throng_io_test(trajectory_layout 2 trajectory_layout)
# The last step has a frame off the trajectory_every clock (/final, the
# CSV file of its step), never a second frame with the same number.
throng_io_test(final_frame 2 final_frame)
# PedPy reads the file unchanged; the classic density is agents / area.
throng_io_test(pedpy 2 pedpy --venv ${CMAKE_BINARY_DIR}/venv-io)
set_tests_properties(io.pedpy PROPERTIES TIMEOUT 900)
# PedPy counts a line at an exit as lines.csv does: every agent is in one
# more frame, where it left (docs/output.md).
throng_io_test(pedpy_exit_line 2 pedpy_exit_line --venv ${CMAKE_BINARY_DIR}/venv-io)
set_tests_properties(io.pedpy_exit_line PROPERTIES TIMEOUT 900)
# Restarts on another rank count give the uninterrupted run's final state,
# byte for byte: the pedestrian preset 1 -> 3 ranks; an evacuation with two
# exits, a ticket queue, a journey with round-robin transitions and a
# source still adding agents at the checkpoint 2 -> 4; the migration-heavy
# lanes 4 -> 1.
throng_io_test(restart_equal_1_3 3 restart_equal --scenario ${THRONG_IO_DATA}/mpi/pedestrian.yaml
               --from 1 --to 3 --steps 200 --every 50 --restart-step 100)
throng_io_test(restart_equal_2_4 4 restart_equal --scenario ${THRONG_IO_DATA}/evacuation/ranks.yaml
               --from 2 --to 4 --steps 800 --every 100 --restart-step 300)
throng_io_test(restart_equal_4_1 4 restart_equal --scenario ${THRONG_IO_DATA}/mpi/lanes.yaml
               --from 4 --to 1 --steps 300 --every 100 --restart-step 200)
# Congestion-aware routing: the checkpoint at step 150 falls between two
# recomputations (every 48 steps); the restart rebuilds the fields from the
# counts and queue times it holds and continues bit for bit.
throng_io_test(restart_equal_routing_1_2 2 restart_equal --scenario ${THRONG_IO_DATA}/mpi/exit-choice.yaml
               --from 1 --to 2 --steps 300 --every 75 --restart-step 150)
# SIGTERM / SIGUSR1 to mpiexec: a checkpoint, run.json "checkpointed", and
# the restart from it equals the uninterrupted run.
throng_io_test(signal_checkpoint 2 signal --signal TERM)
throng_io_test(signal_usr1 2 signal --signal USR1)
throng_io_test(signal_startup 1 signal_startup)
# Refused restarts: exit 2, the file and the reason named, nothing written.
throng_io_test(bad_checkpoints 1 bad_checkpoints)
# A full disk (THRONG_FAULT_WRITE) while writing a checkpoint / the trajectory.
throng_io_test(full_disk 1 full_disk)
throng_io_test(full_disk_trajectory 1 full_disk_trajectory)
# output.compression: same data, smaller file; 12 refused.
throng_io_test(compression 1 compression)

# docs/examples/read_trajectory.py (h5py and PedPy: density and speed in an
# area, a figure) on a run of a bottleneck; skips (77) without PyPI.
add_test(NAME io.example_reader COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_example_reader.sh ${CMAKE_BINARY_DIR}
                                        ${CMAKE_SOURCE_DIR})
set_tests_properties(io.example_reader PROPERTIES LABELS io SKIP_RETURN_CODE 77 TIMEOUT 600 RUN_SERIAL TRUE
                     ENVIRONMENT "${THRONG_TEST_ENV};THRONG_EXE=$<TARGET_FILE:throng>")

# The outputs' walkable area less the obstacles (issue 36; GEOS builds, else SKIPPED)
add_test(NAME io.walkable_holes COMMAND ${THRONG_IO_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_walkable_holes.py
                                        ${THRONG_EXE} ${CMAKE_CURRENT_SOURCE_DIR}/data/io)
set_tests_properties(io.walkable_holes PROPERTIES LABELS io SKIP_RETURN_CODE 77 TIMEOUT 120
                     ENVIRONMENT "${THRONG_TEST_ENV}")
