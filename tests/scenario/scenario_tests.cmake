# Scenario tests (label `scenario`): every paper benchmark for a few hundred
# steps with physical invariants after every step, goal reaching, the bears
# and rabbits comparison, and determinism. tests/scenario/check_scenario.py
# documents each check.
set(THRONG_PAPER ${CMAKE_SOURCE_DIR}/configs/paper)
set(THRONG_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_scenario.py ${THRONG_EXE})

function(throng_scenario_test name)
  add_test(NAME scenario.${name} COMMAND ${THRONG_CHECK} ${ARGN})
  set_tests_properties(scenario.${name} PROPERTIES LABELS scenario ENVIRONMENT "${THRONG_TEST_ENV}")
endfunction()

# Invariants: no NaN, largest overlap < 5 % of a radius after every step,
# no wall overlap beyond 2.5 cm, the right number of agents.
foreach(spec
    "sparse-passing-lr 300 1600" "sparse-passing-avoid 300 1600"
    "dense-passing-low-lr 300 1600" "dense-passing-low-avoid 300 1600"
    "dense-passing-high-lr 200 10032" "dense-passing-high-avoid 200 10032"
    "bears-rabbits 300 1152" "dense-ellipsoid 300 1920"
    "proximal-lr 300 100" "proximal-avoid 300 100"
    "target-locomotion 300 192" "bottleneck-480 300 480"
    "bottleneck-3600 300 3600" "bottleneck-100048 40 100048" "antipodal-circle 300 256")
  separate_arguments(spec)
  list(GET spec 0 name)
  list(GET spec 1 steps)
  list(GET spec 2 agents)
  throng_scenario_test(${name} invariants ${THRONG_PAPER}/${name}.yaml --steps ${steps} --agents ${agents}
                       --min-speed 0.3)
endforeach()

# Agents reach their goals where the scenario has reachable ones.
throng_scenario_test(goals.target-locomotion invariants ${THRONG_PAPER}/target-locomotion.yaml
                     --steps 3000 --agents 192 --min-at-goal 0.95)
throng_scenario_test(goals.proximal-avoid invariants ${THRONG_PAPER}/proximal-avoid.yaml
                     --steps 2400 --agents 100 --min-at-goal 0.95)
throng_scenario_test(goals.proximal-lr invariants ${THRONG_PAPER}/proximal-lr.yaml
                     --steps 2400 --agents 100 --min-at-goal 0.95)
throng_scenario_test(goals.antipodal-circle invariants ${THRONG_PAPER}/antipodal-circle.yaml
                     --steps 4800 --agents 256 --min-at-goal 0.9)
throng_scenario_test(goals.bottleneck-480 invariants ${THRONG_PAPER}/bottleneck-480.yaml
                     --steps 4800 --agents 480 --min-at-goal 0.9)

# Bears (group 1, 30x the mass) deflect less than rabbits (group 0).
throng_scenario_test(bears-deflect-less deviation ${THRONG_PAPER}/bears-rabbits.yaml
                     --steps 1800 --less 1 --more 0 --factor 1.5)

# Determinism: two runs, and runs on 1 and 2 threads, give identical files.
throng_scenario_test(deterministic.bottleneck-3600 deterministic ${THRONG_PAPER}/bottleneck-3600.yaml
                     --steps 200 --agents 3600)
throng_scenario_test(deterministic.threads.dense-passing-low-avoid deterministic
                     ${THRONG_PAPER}/dense-passing-low-avoid.yaml --steps 150 --agents 1600 --threads 1,2)
