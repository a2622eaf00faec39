# GPU tests (label `gpu`): the CUDA backend against the CPU reference.
# They report SKIPPED (exit 77) where there is no CUDA backend or no GPU.
foreach(name dense-passing-low-lr bottleneck-3600)
  add_test(NAME gpu.cpu_vs_cuda.${name}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_gpu.py ${THRONG_EXE}
                   ${CMAKE_SOURCE_DIR}/configs/paper/${name}.yaml --steps 500)
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
