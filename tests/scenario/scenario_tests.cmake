# Scenario tests (label `scenario`): every paper benchmark for a few hundred
# steps with physical invariants after every step, goal reaching, the bears
# and rabbits comparison, and determinism. tests/scenario/check_scenario.py
# documents each check; configs/paper/README.md describes the scenarios and
# what a full run of each shows.
#
# Each test runs throng on one OpenMP thread (OMP_NUM_THREADS=1), so that
# `ctest -L scenario -j2` keeps a 2-core machine busy without oversubscribing
# it; the CPU times quoted below are for one thread on that machine. The
# determinism test across thread counts sets its own OMP_NUM_THREADS.
set(THRONG_PAPER ${CMAKE_SOURCE_DIR}/configs/paper)
set(THRONG_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_scenario.py ${THRONG_EXE})

function(throng_scenario_test name)
  add_test(NAME scenario.${name} COMMAND ${THRONG_CHECK} ${ARGN})
  set_tests_properties(scenario.${name} PROPERTIES LABELS scenario
                       ENVIRONMENT "${THRONG_TEST_ENV};OMP_NUM_THREADS=1")
endfunction()

# Invariants: no NaN, largest overlap < 5 % of a radius after every step,
# no wall overlap beyond 2.5 cm, the right number of agents, mean speed at
# least 0.3 m/s at the end (nobody jams in the first seconds). 1 to 5 s each.
foreach(spec
    "sparse-passing-lr 300 1600" "sparse-passing-avoid 300 1600"
    "dense-passing-low-lr 300 1600" "dense-passing-low-avoid 300 1600"
    "dense-passing-high-lr 200 10032" "dense-passing-high-avoid 200 10032"
    "bears-rabbits 300 1152" "dense-ellipsoid 300 1920"
    "proximal-lr 300 100" "proximal-avoid 300 100"
    "target-locomotion 300 192" "bottleneck-480 300 480"
    "bottleneck-3600 300 3600" "bottleneck-100048 40 100048" "antipodal-circle 300 128")
  separate_arguments(spec)
  list(GET spec 0 name)
  list(GET spec 1 steps)
  list(GET spec 2 agents)
  throng_scenario_test(${name} invariants ${THRONG_PAPER}/${name}.yaml --steps ${steps} --agents ${agents}
                       --min-speed 0.3)
endforeach()

# Goal reaching, for every scenario whose agents reach their goals within
# about 20 s of CPU time (the invariants above are checked over the whole run
# too). The step counts end a few seconds of simulated time after the
# measured arrival; the thresholds leave a margin below the measured
# fraction. Not here: dense-passing-high-* (10,032 agents need about 300 s of
# simulated time, several minutes of CPU) and bottleneck-3600/100048 (the
# room empties at about 5 agents/s through the 4.5 m gap; 100,048 agents are
# too many to run that long).

# Measured: all 192 at their targets at 90.8 s (step 4359); 95 % at 89.6 s. 0.6 s CPU.
throng_scenario_test(goals.target-locomotion invariants ${THRONG_PAPER}/target-locomotion.yaml
                     --steps 4800 --agents 192 --min-at-goal 0.95)
# Measured: groups 99 % passed at 43.5 s; 100/100 at goal at 80.3 s (step 3854), 95 % at 70.0 s. 0.9 s CPU.
throng_scenario_test(goals.proximal-avoid invariants ${THRONG_PAPER}/proximal-avoid.yaml
                     --steps 4800 --agents 100 --min-at-goal 0.95)
# Measured: 0.98 at step 4800 (95 % at 69.4 s); the last 2 agents are a head-on pair locked in
# contact (see configs/paper/README.md). 0.8 s CPU.
throng_scenario_test(goals.proximal-lr invariants ${THRONG_PAPER}/proximal-lr.yaml
                     --steps 4800 --agents 100 --min-at-goal 0.9)
# Measured: central jam from 23 to 55 s, then 123/128 at 95 s, 0.992 at step 6000, all at 130 s. 1.2 s CPU.
throng_scenario_test(goals.antipodal-circle invariants ${THRONG_PAPER}/antipodal-circle.yaml
                     --steps 6000 --agents 128 --min-at-goal 0.95)
# Measured: flow about 1.3 agents/s through the 2.8 m gap; 90 % at 328 s, 95 % at 348 s (step 16713),
# 0.990 at step 19200, all 480 at 435 s; largest overlap 0.017 r. 10 s CPU.
throng_scenario_test(goals.bottleneck-480 invariants ${THRONG_PAPER}/bottleneck-480.yaml
                     --steps 19200 --agents 480 --min-at-goal 0.95)
# Measured: groups fully passed at 43.5 s; 90 % at goal at 85.9 s, all 1600 at 89.9 s (step 4314). 12 s CPU.
throng_scenario_test(goals.dense-passing-low-avoid invariants ${THRONG_PAPER}/dense-passing-low-avoid.yaml
                     --steps 4560 --agents 1600 --min-at-goal 0.97)
# Measured: mean speed dips to 0.86 m/s at 30 s; 99 % of the crossings done at 62 s; 0.90 at goal at
# 115 s, 0.93 at step 6000 (125 s), 0.968 at 150 s; about 17 head-on pairs stay locked in contact
# for good (README). 18 s CPU.
throng_scenario_test(goals.dense-passing-low-lr invariants ${THRONG_PAPER}/dense-passing-low-lr.yaml
                     --steps 6000 --agents 1600 --min-at-goal 0.85)
# Measured: groups fully passed at 70.5 s; 95 % at goal at 145.8 s, all 1600 at 148.5 s (step 7126). 8.5 s CPU.
throng_scenario_test(goals.sparse-passing-avoid invariants ${THRONG_PAPER}/sparse-passing-avoid.yaml
                     --steps 7400 --agents 1600 --min-at-goal 0.97)
# Measured: 99 % of the crossings done at 63.5 s; 95 % at goal at 147.7 s, 0.994 at step 8000; one head-on
# pair stays locked near the start line. 9.7 s CPU.
throng_scenario_test(goals.sparse-passing-lr invariants ${THRONG_PAPER}/sparse-passing-lr.yaml
                     --steps 8000 --agents 1600 --min-at-goal 0.97)
# Measured: rabbits through the bears at 63 s; 95 % at goal at 131.4 s, all 1152 at 138.6 s (step 6651). 17 s CPU.
throng_scenario_test(goals.bears-rabbits invariants ${THRONG_PAPER}/bears-rabbits.yaml
                     --steps 6720 --agents 1152 --min-at-goal 0.95)
# Measured: ellipse through the block at 82 s; 95 % at goal at 162.1 s, all 1920 at 168.1 s (step 8070). 20 s CPU.
throng_scenario_test(goals.dense-ellipsoid invariants ${THRONG_PAPER}/dense-ellipsoid.yaml
                     --steps 8160 --agents 1920 --min-at-goal 0.95)

# Bears (group 1, 30x the mass) deflect less than rabbits (group 0) while the rabbits walk through
# them (fully passed at 63 s = step 3024). Measured over 3000 steps: bears 0.185 m, rabbits 1.352 m
# (ratio 7.3). 8 s CPU.
throng_scenario_test(bears-deflect-less deviation ${THRONG_PAPER}/bears-rabbits.yaml
                     --steps 3000 --less 1 --more 0 --factor 4 --min-more 0.8)

# Determinism: two runs (both on 2 threads), and runs on 1 and 2 threads, give identical files.
throng_scenario_test(deterministic.bottleneck-3600 deterministic ${THRONG_PAPER}/bottleneck-3600.yaml
                     --steps 200 --agents 3600 --threads 2,2)
throng_scenario_test(deterministic.threads.dense-passing-low-avoid deterministic
                     ${THRONG_PAPER}/dense-passing-low-avoid.yaml --steps 150 --agents 1600 --threads 1,2)

# The speed-density relation (pedestrian preset): single file behind a slow
# leader; every follower at the leader's 0.5 m/s and the gap the law gives
# that speed, g0 - v0 T ln(1 - v/v0) = 0.05 - 1.3 x 0.35 x ln(1 - 0.5/1.3)
# = 0.271 m behind the body ahead, within 1 cm. Under a second.
throng_scenario_test(headway_single_file headway ${CMAKE_SOURCE_DIR}/tests/data/model/single_file.yaml --steps 1440
                     --gap 0.271 --speed 0.5 --tol 0.01)
# The same with time_gap 1 s: 0.05 + 1.3 x 0.4855 = 0.681 m (the parameter
# moves what it says).
throng_scenario_test(headway_time_gap headway ${CMAKE_SOURCE_DIR}/tests/data/model/single_file.yaml --steps 2400
                     --set headway.time_gap=1.0 --gap 0.681 --speed 0.5 --tol 0.01)
# With anticipation 0.5 s the leader counts where it will be in 0.5 s,
# 0.25 m further: the gap shrinks by that, 0.681 - 0.25 = 0.431 m.
throng_scenario_test(headway_anticipation headway ${CMAKE_SOURCE_DIR}/tests/data/model/single_file.yaml --steps 2400
                     --set headway.time_gap=1.0 --set headway.anticipation=0.5 --gap 0.431 --speed 0.5 --tol 0.01)

# Start positions on given slots (agents[].layout points and polygon with
# spacing; tests/scenario/data/formation_slots.yaml): a wedge read from a
# points file beside the scenario (scaled, offset) and a triangle filled
# with a lattice stand exactly where the hand-computed expect file says;
# then both groups walk 10 m east within the invariants (measured: all 24 at
# their goals by step 480, 10 s). Under a second each.
set(THRONG_SLOTS ${CMAKE_CURRENT_LIST_DIR}/data)
throng_scenario_test(layout_slots.positions positions ${THRONG_SLOTS}/formation_slots.yaml --steps 0
                     --expect ${THRONG_SLOTS}/formation_slots.expect.csv)
throng_scenario_test(layout_slots.invariants invariants ${THRONG_SLOTS}/formation_slots.yaml --steps 480
                     --agents 24 --min-at-goal 0.95)
# A bad line of a points file never starts a run: file:line in the message, status 2, nothing written.
add_test(NAME scenario.layout_slots.bad_points_file
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/cli/check_bad_input.py ${THRONG_EXE}
                 ${THRONG_SLOTS}/points_bad_line.yaml)
set_tests_properties(scenario.layout_slots.bad_points_file PROPERTIES LABELS scenario
                     ENVIRONMENT "${THRONG_TEST_ENV}")
