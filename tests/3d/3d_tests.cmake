# 3D agents with separation-plane avoidance (label `3d`; issue 17, seed
# paper 003, docs/3d.md). Included from tests/CMakeLists.txt (THRONG_EXE,
# THRONG_TEST_ENV, THRONG_MPI_ARGS, THRONG_MPI_ENV, Python3).
# tests/3d/check_3d.py documents every case; the unit tests of the 3D
# physics are tests/unit/test_physics3d.c (unit.physics3d.*, also `3d`).
# Measured figures are those of a 2-core machine, one thread per process.
set(THRONG_3D_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_3d.py ${THRONG_EXE})
set(THRONG_3D_CONFIGS ${CMAKE_SOURCE_DIR}/configs/3d)
set(THRONG_3D_DATA ${CMAKE_CURRENT_LIST_DIR}/data)

function(throng_3d_test name labels procs)
  add_test(NAME 3d.${name} COMMAND ${THRONG_3D_CHECK} ${ARGN} ${THRONG_MPI_ARGS})
  set_tests_properties(3d.${name} PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 77 TIMEOUT 300 PROCESSORS ${procs}
                       ENVIRONMENT "${THRONG_MPI_ENV};OMP_NUM_THREADS=1")
endfunction()

# Seed 003 Figs. 1-2: the head-on pair side-steps at its altitude
# (measured: dz 0 at every frame, |dy| 1.58 m where they cross, closest
# 1.0501 m = the contact distance) or passes over and under (|dz| 1.60 m,
# |dy| <= 0.05 m).
throng_3d_test(pair_horizontal 3d 1 pair --scenario ${THRONG_3D_CONFIGS}/pair-head-on.yaml --plane horizontal)
throng_3d_test(pair_vertical 3d 1 pair --scenario ${THRONG_3D_CONFIGS}/pair-head-on.yaml --plane vertical)
# The automatic choice: in a corridor of hovering drones the pair passes
# over and under (measured |dz| 1.35 m, flankers unmoved); with horizontal
# it pushes the flankers 0.43 m; a lone pair stays horizontal.
throng_3d_test(auto_choice 3d 1 auto --scenario ${THRONG_3D_DATA}/auto-flanked.yaml
               --pair ${THRONG_3D_CONFIGS}/pair-head-on.yaml)
# Seed 003 Figs. 3-4: two swarms of 48 cross without overlap in each mode.
foreach(plane horizontal vertical auto)
  throng_3d_test(swarm_${plane} 3d 1 swarm --scenario ${THRONG_3D_CONFIGS}/swarm-crossing.yaml --plane ${plane})
endforeach()
# 3D in every output: CSV z and vz, trajectory.h5 z (and /final), XDMF XYZ
# points, run.json's dimensions (h5py: the io tests' interpreter).
if(THRONG_HAVE_HDF5 AND THRONG_IO_PYTHON)
  add_test(NAME 3d.outputs COMMAND ${THRONG_IO_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_3d.py ${THRONG_EXE} outputs
                                   --scenario ${THRONG_3D_CONFIGS}/swarm-crossing.yaml)
  set_tests_properties(3d.outputs PROPERTIES LABELS "3d;io" SKIP_RETURN_CODE 77 TIMEOUT 300
                                             ENVIRONMENT "${THRONG_TEST_ENV};OMP_NUM_THREADS=1")
endif()
# Byte-identical on 1-4 ranks: the swarms crossing the rank borders, and the
# corridor in auto mode (each drone's preferred plane is forwarded to the
# other ranks' ghosts; without that forward 2-4 ranks differ).
if(THRONG_MPI_ARGS)
  throng_3d_test(ranks_swarm_vertical "3d;mpi" 4 ranks --scenario ${THRONG_3D_CONFIGS}/swarm-crossing.yaml
                 --set avoidance.plane=vertical)
  throng_3d_test(ranks_swarm_auto "3d;mpi" 4 ranks --scenario ${THRONG_3D_CONFIGS}/swarm-crossing.yaml
                 --set avoidance.plane=auto)
  throng_3d_test(ranks_auto_flanked "3d;mpi" 4 ranks --scenario ${THRONG_3D_DATA}/auto-flanked.yaml)
endif()
# CPU = CUDA byte for byte (THRONG_STRICT_FP builds with a GPU; else skipped).
foreach(plane vertical auto)
  throng_3d_test(gpu.cpu_equals_cuda_${plane} "3d;gpu" 1 cpu_vs_cuda
                 --scenario ${THRONG_3D_CONFIGS}/swarm-crossing.yaml --set avoidance.plane=${plane})
endforeach()

# 3D ORCA (model.kind rvo3d, RVO2-3D's algorithm), seed 003 Figs. 2 (bottom)
# and 5: the head-on pair passes (measured: closest 1.00000 m = r_i + r_j,
# sideways, both at their goals from 14.69 s), the swarms cross without
# overlap (all 96 at their goals from 32.88 s); every step's displacement is
# dt x the stored velocity (largest error 4.8e-7 m/s).
throng_3d_test(rvo3d_pair 3d 1 rvo3d_pair --scenario ${THRONG_3D_CONFIGS}/pair-head-on-rvo3d.yaml)
throng_3d_test(rvo3d_pair_exactly_head_on 3d 1 rvo3d_pair --scenario ${THRONG_3D_CONFIGS}/pair-head-on-rvo3d.yaml
               --set agents[1].points=[[10,0]] --set agents[1].goal.point=[-10,0])
throng_3d_test(rvo3d_swarm 3d 1 rvo3d_swarm --scenario ${THRONG_3D_CONFIGS}/swarm-crossing-rvo3d.yaml)
if(THRONG_MPI_ARGS)
  throng_3d_test(ranks_rvo3d_swarm "3d;mpi" 4 ranks --scenario ${THRONG_3D_CONFIGS}/swarm-crossing-rvo3d.yaml)
  throng_3d_test(ranks_rvo3d_pair "3d;mpi" 4 ranks --scenario ${THRONG_3D_CONFIGS}/pair-head-on-rvo3d.yaml)
endif()
foreach(cfg pair-head-on swarm-crossing)
  string(REPLACE "-" "_" _name ${cfg})
  throng_3d_test(gpu.cpu_equals_cuda_rvo3d_${_name} "3d;gpu" 1 cpu_vs_cuda
                 --scenario ${THRONG_3D_CONFIGS}/${cfg}-rvo3d.yaml)
endforeach()

# Bad input never starts a run (tests/cli/check_bad_input.py): 3D keys in a
# 2D scenario, what 3D cannot have yet, altitudes outside world.z.
file(GLOB THRONG_3D_BAD CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/bad/*.yaml)
foreach(bad ${THRONG_3D_BAD})
  get_filename_component(name ${bad} NAME_WE)
  add_test(NAME 3d.bad_input.${name}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/cli/check_bad_input.py ${THRONG_EXE} ${bad})
  set_tests_properties(3d.bad_input.${name} PROPERTIES LABELS "3d" ENVIRONMENT "${THRONG_TEST_ENV}")
endforeach()
