# GPU tests (label `gpu`): the CUDA backend against the CPU reference.
# They report SKIPPED (exit 77) where there is no CUDA backend or no GPU.
# 500 steps compared; the invariants over the span the CPU scenario tests
# check (bottleneck-3600 packs agents against the wall beyond 5 % overlap
# after ~490 steps on both backends: configs/paper/README.md).
foreach(spec "dense-passing-low-lr 500" "bottleneck-3600 300")
  separate_arguments(spec)
  list(GET spec 0 name)
  list(GET spec 1 inv)
  add_test(NAME gpu.cpu_vs_cuda.${name}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_gpu.py ${THRONG_EXE}
                   ${CMAKE_SOURCE_DIR}/configs/paper/${name}.yaml --steps 500 --invariant-steps ${inv})
  set_tests_properties(gpu.cpu_vs_cuda.${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                       ENVIRONMENT "${THRONG_TEST_ENV}")
endforeach()

# Everything on at once (contact + friction, long range, avoidance, walls,
# XSPH, goal sets) at evacuation density.
add_test(NAME gpu.cpu_vs_cuda.evacuation-20000
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_gpu.py ${THRONG_EXE}
                 ${CMAKE_SOURCE_DIR}/tests/data/gpu/evacuation-20000.yaml --steps 200)
set_tests_properties(gpu.cpu_vs_cuda.evacuation-20000 PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                     ENVIRONMENT "${THRONG_TEST_ENV}")

# The pedestrian preset: the time-gap law's PLAN pass, avoidance, routing.
add_test(NAME gpu.cpu_vs_cuda.pedestrian
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_gpu.py ${THRONG_EXE}
                 ${CMAKE_SOURCE_DIR}/tests/data/mpi/pedestrian.yaml --steps 400)
set_tests_properties(gpu.cpu_vs_cuda.pedestrian PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                     ENVIRONMENT "${THRONG_TEST_ENV}")

# Congestion-aware routing on the GPU (kernels/cuda/cuda_route.cu): counts,
# the crowd's cost, the tiled eikonal solver and exit choice by time; 360
# steps, eight recomputations. Strict build: byte-identical to the CPU.
add_test(NAME gpu.cpu_vs_cuda.exit-choice
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_gpu.py ${THRONG_EXE}
                 ${CMAKE_SOURCE_DIR}/tests/data/mpi/exit-choice.yaml --steps 360)
set_tests_properties(gpu.cpu_vs_cuda.exit-choice PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                     ENVIRONMENT "${THRONG_TEST_ENV}")
