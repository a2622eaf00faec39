# Paper tests (label `paper`): the phenomena Weiss et al. 2017 (seed paper
# 000, §5.2) describes for each benchmark of configs/paper/, measured as
# numbers (issue 21, item 1). scripts/paper_phenomena.py defines every
# quantity; tests/paper/check_paper.py runs throng and checks the bounds.
# Included from tests/CMakeLists.txt (THRONG_EXE, THRONG_TEST_ENV, Python3).
#
# Each test runs throng on one OpenMP thread, shortened with --steps (or on a
# smaller variant in tests/paper/data/ that keeps the phenomenon). Above each
# test: the paper's claim, the value measured with the current model, the
# control where there is one (the same run with a mechanism switched off, so
# that the bound is shown to be able to fail) and why the bound is where it
# is. The long-range response is the paper's direct one
# (long_range.response: direct, issue 21 item 2); "projected" gives the
# figures quoted as "projected" (the model before issue 21), which fail the
# LR bounds. A later change of the model re-measures and updates these numbers. Times are wall seconds on a
# 2-core machine under `ctest -L paper -j2` (the label: about 65 s). Claims the current model does not show are the
# `paper.known.*` tests at the end (label known-failure, out of CI).
#
# They need numpy: the first of Python3 and /usr/bin/python3 that imports it;
# without one they report SKIPPED (exit 77).
throng_python_with(THRONG_PAPER_PYTHON "import numpy" "paper tests (numpy)")
set(THRONG_PAPER_CHECK ${THRONG_PAPER_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_paper.py ${THRONG_EXE})
set(THRONG_PAPER_DATA ${CMAKE_CURRENT_LIST_DIR}/data)
set(THRONG_PAPER_CONFIGS ${CMAKE_SOURCE_DIR}/configs/paper)
set(THRONG_LR_OFF long_range.enabled=false)
set(THRONG_A_OFF avoidance.enabled=false)

function(throng_paper_test name labels)
  add_test(NAME paper.${name} COMMAND ${THRONG_PAPER_CHECK} ${ARGN})
  set_tests_properties(paper.${name} PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 77 TIMEOUT 300
                       ENVIRONMENT "${THRONG_TEST_ENV};OMP_NUM_THREADS=1")
endfunction()

# ---- pair encounters (§5.2.1: with LR the agents "pass each other easily") -
# One pair reduced from the passing scenarios (tests/paper/data/pair-*.yaml),
# a frame every step, so that frames_max counts the steps in contact
# (distance <= (r_i + r_j) * 1.05 + 1 mm). About 3 s each.

# Head-on, paths 0.3 m apart. Measured: 2 steps in contact with LR, 53 with
# LR off (the control); with the projected response 40. Bound: at most 3
# steps and fewer than the control: the paper's "pass easily" read as no
# lasting contact. (Issue 21 reported 28 against 18 steps with the
# projected response, in a setup it does not record.)
throng_paper_test(pair.head_on_lr paper contacts ${THRONG_PAPER_DATA}/pair-head-on.yaml --steps 960 --every 1
                  --control-set ${THRONG_LR_OFF}
                  --expect "frames_max < control.frames_max" --expect "frames_max <= 3")

# 90-degree crossing, the second agent 0.5 m late. Measured: 3 steps in
# contact with LR, 62 without, 52 with the projected response. Bound: at
# most 4 steps, fewer than the control.
throng_paper_test(pair.crossing_lr paper contacts ${THRONG_PAPER_DATA}/pair-crossing.yaml --steps 960 --every 1
                  --control-set ${THRONG_LR_OFF}
                  --expect "frames_max < control.frames_max" --expect "frames_max <= 4")

# Avoidance (§4.5, used by every "A" benchmark) makes the pair slide past:
# measured 1 step at the contact distance, head-on and crossing alike,
# against 53 and 62 steps with avoidance off. Bound: at most 2 steps, and the
# control must exceed it (the measure can fail).
throng_paper_test(pair.head_on_avoid paper contacts ${THRONG_PAPER_DATA}/pair-head-on.yaml --steps 960 --every 1
                  --set ${THRONG_LR_OFF} --set avoidance.enabled=true --control-set ${THRONG_A_OFF}
                  --expect "frames_max <= 2" --expect "control.frames_max > 2")
throng_paper_test(pair.crossing_avoid paper contacts ${THRONG_PAPER_DATA}/pair-crossing.yaml --steps 960 --every 1
                  --set ${THRONG_LR_OFF} --set avoidance.enabled=true --control-set ${THRONG_A_OFF}
                  --expect "frames_max <= 2" --expect "control.frames_max > 2")

# ---- sparse passing (§5.2.1-5.2.2, Figs. 3-4) -----------------------------

# §5.2.1: with LR the agents "organise into narrow lanes". Lane order
# parameter (paper_phenomena.lane_order: the mean over crossing-zone agents of
# (n_own - n_other)/(n_own + n_other) among the agents within 0.5 m across
# and 5 m along) over the first 24 s, while the lanes form (the groups are
# 22 % crossed at 24 s). Measured: 0.965 with LR (seeds 1-3: 0.967-0.970);
# control (LR off, only contacts) 0.689 (seeds 1-3: 0.75-0.80); projected
# response 0.816 (0.82-0.90); the same frames with the groups shuffled inside
# the crossing zone -0.06. Bound: >= 0.9 and above the control. (At 4.5 m
# spacing contacts alone order the files too over 0-60 s: control 0.872.)
# About 5 s.
throng_paper_test(sparse_passing.lanes_lr paper passing ${THRONG_PAPER_CONFIGS}/sparse-passing-lr.yaml
                  --steps 1152 --every 24 --window 0,24 --control-set ${THRONG_LR_OFF}
                  --expect "order >= 0.9" --expect "order > control.order")

# §5.2.2: with avoidance the agents form lanes (the paper: thicker lanes that
# gather into sub-groups). Measured over 0-24 s: 0.946; control (avoidance
# off) 0.788. Bound: >= 0.85 and above the control. (Thicker: see
# paper.known.sparse_avoid_thicker_lanes.) About 5 s.
throng_paper_test(sparse_passing.lanes_avoid paper passing ${THRONG_PAPER_CONFIGS}/sparse-passing-avoid.yaml
                  --steps 1152 --every 24 --window 0,24 --control-set ${THRONG_A_OFF}
                  --expect "order >= 0.85" --expect "order > control.order")

# Contacts between the groups with avoidance, on the smaller variant
# data/sparse-passing-small.yaml (2 x 96 agents, same spacing, a frame every
# step, 35 s: the groups are 99 % crossed at 24.8 s). Measured: 224 pairs
# touched (2.33 partners per agent), each for 1-2 steps (mean 1.10); control
# (avoidance off): 3.22 partners per agent, contacts up to 1072 steps (7
# locked head-on pairs). Bound: no contact longer than 3 steps, at most 3.0
# partners per agent and fewer than the control. About 7 s.
throng_paper_test(sparse_passing.contacts_avoid paper contacts ${THRONG_PAPER_DATA}/sparse-passing-small.yaml
                  --steps 1680 --every 1 --set ${THRONG_LR_OFF} --set avoidance.enabled=true
                  --control-set ${THRONG_A_OFF}
                  --expect "frames_max <= 3" --expect "per_agent <= 3.0" --expect "per_agent < control.per_agent")

# §5.2.1, "pass each other easily", as time in contact with LR on the same
# variant: every contact lasts 1-2 steps (mean 1.83), against a mean of 13.6
# steps (pairs locked for 5 s or more left out), a 90th percentile of 45 and
# 7 locked pairs with LR off; the groups 99 % crossed at 25.5 s. (Projected
# response: mean 6.49, 90th percentile 15, 2 locked pairs.) Bound: no
# contact longer than 3 steps, mean below 0.75 x the control's, 90th
# percentile below the control's, crossed by 30 s. (LR touches more
# partners briefly: paper.known.sparse_lr_fewer_contacts.) About 7 s.
throng_paper_test(sparse_passing.contact_time_lr paper contacts ${THRONG_PAPER_DATA}/sparse-passing-small.yaml
                  --steps 1680 --every 1 --control-set ${THRONG_LR_OFF} --expect "frames_max <= 3"
                  --expect "frames_mean_unlocked < 0.75*control.frames_mean_unlocked"
                  --expect "frames_p90 < control.frames_p90" --expect "t99 <= 30")

# ---- dense passing (§5.2.3-5.2.6, Figs. 5-6) -------------------------------

# §5.2.3 (LR): the dense groups "do not easily pass each other, and some
# bottleneck groups are formed. Eventually, the agents pass, avoiding
# unrealistic collisions." Packed clusters (paper_phenomena.packed: agents
# linked within 1.3 m, clusters of 10 or more holding both groups) over 55
# s, a frame a second. Measured: peak 0.251 of the agents at 19 s, none left
# at 55 s, every agent across at 45 s; mean speed down to 1.067 m/s (sparse
# passing with LR: >= 1.178); lane order 0.982; no overlap. Projected
# response: peak 0.572 at 30 s, 0.202 still packed at 55 s, speed 0.858, not
# all across by 55 s. Bound: some bottleneck groups (peak >= 0.15; the
# sparse scenarios: 0-0.035), slower than sparse passing (speed minimum <=
# 1.1 m/s), all dissolved and across (packed at the end <= 0.05, t100 <= 50
# s), largest overlap < 5 % of a radius. About 13 s.
throng_paper_test(dense_passing.clusters_lr paper passing ${THRONG_PAPER_CONFIGS}/dense-passing-low-lr.yaml
                  --steps 2640 --every 48 --window 0,40
                  --expect "packed_peak >= 0.15" --expect "packed_end <= 0.05" --expect "t100 <= 50"
                  --expect "speed_min <= 1.1" --expect "max_overlap < 0.05")

# §5.2.4 (A): the dense groups form lanes (the paper: thicker lanes that
# merge into groups). Over 0-40 s (40 s): lane order 0.971, packed clusters
# at most 0.209, mean speed >= 1.141 m/s, no overlap; control (avoidance
# off): order 0.479, packed 0.793, speed down to 0.655. Bound: order >= 0.9
# and above the control, packed <= 0.35, speed >= 1.0 m/s. About 12 s.
throng_paper_test(dense_passing.lanes_avoid paper passing ${THRONG_PAPER_CONFIGS}/dense-passing-low-avoid.yaml
                  --steps 1920 --every 48 --window 0,40 --control-set ${THRONG_A_OFF}
                  --expect "order >= 0.9" --expect "order > control.order" --expect "packed_peak <= 0.35"
                  --expect "speed_min >= 1.0" --expect "max_overlap < 0.05")

# §5.2.6: the same at 10,032 agents, 20 s (a frame every 2 s): lane order
# 0.933. Bound: >= 0.85.
# About 16 s: the longest test.
throng_paper_test(dense_passing_high.lanes_avoid paper passing ${THRONG_PAPER_CONFIGS}/dense-passing-high-avoid.yaml
                  --steps 960 --every 96 --window 0,20 --expect "order >= 0.85")

# ---- bears and rabbits (§5.2.7, Fig. 7) ------------------------------------

# "The bears deviate laterally much less than the rabbits." Mean over each
# group of the largest |y - y0| in the first 30 s (the rabbits are half
# through the bears). Measured: rabbits 1.213 m, bears 0.133 m (ratio 9.1);
# control with the bears' mass 1 instead of 30: rabbits 1.072, bears 1.373
# (ratio 0.78). Bound: ratio >= 4, rabbits >= 0.8 m (they do interact), and
# ratio > 3 x the control's. (tests/scenario: bears-deflect-less over 3000
# steps.) About 7 s.
throng_paper_test(bears_rabbits.deviation paper deviation ${THRONG_PAPER_CONFIGS}/bears-rabbits.yaml
                  --steps 1440 --every 24 --less 1 --more 0 --control-set "agents[1].mass=1"
                  --expect "ratio >= 4" --expect "dev0 >= 0.8" --expect "ratio > 3*control.ratio")

# ---- dense ellipsoid (§5.2.8, Fig. 8) --------------------------------------

# "The ellipse keeps its elliptical shape throughout." Aspect ratio (sd
# along x / sd across) of the ellipse, a frame a second, 75 s (fully passed
# at 71 s). Measured: 1.505 at the start, 1.369 at least (0.910 of it, while
# inside the block), 1.500 at 75 s (0.997); centroid drift 0.14 m. Bound:
# minimum >= 0.85 x the start, end within 5 %, drift <= 1 m. (Without
# avoidance the ellipse keeps its shape nearly as well: minimum 1.322
# (0.878), 1.53 at 75 s; the test guards the shape, it does not show that
# avoidance is needed for it.) About 10 s.
throng_paper_test(dense_ellipsoid.shape paper shape ${THRONG_PAPER_CONFIGS}/dense-ellipsoid.yaml
                  --steps 3600 --every 48 --group 0
                  --expect "min_ratio >= 0.85" --expect "end_ratio >= 0.95" --expect "end_ratio <= 1.05"
                  --expect "drift <= 1")

# ---- proximal behaviour (§5.2.9-5.2.10, Fig. 9) ----------------------------

# §5.2.9-10: with avoidance the groups stay cohesive; with LR lanes form and
# the original groups split. Cohesion = share of each group in its largest
# cluster (agents linked within 2 m), mean over 15-35 s (the passing), over
# seven seeds (one seed decides little here). Measured: proximal-avoid 0.695
# (per seed 0.56-0.85), proximal-lr 0.633 (0.60-0.67; the projected
# response 0.606); avoidance is the more cohesive in 5 of the 7 seeds.
# Bound: mean >= 0.65 and >= 1.08 x LR's.
# About 13 s.
throng_paper_test(proximal.cohesion paper cohesion ${THRONG_PAPER_CONFIGS}/proximal-avoid.yaml
                  --steps 1680 --every 24 --window 15,35 --seeds 109,110,1,2,3,4,5
                  --control-scenario ${THRONG_PAPER_CONFIGS}/proximal-lr.yaml
                  --expect "cohesion >= 0.65" --expect "cohesion >= 1.08*control.cohesion")

# ---- target locomotion (§5.2.11) -------------------------------------------

# "The agents reach their targets with minimal interference." Arrival times
# (metrics.csv at_goal) against a free walk (control: long range, contact
# and XSPH off, every agent alone). Measured: 50 / 90 / 100 % at 83.19 /
# 88.38 / 90.81 s; free walk 83.17 / 88.42 / 90.81 s; no overlap (the free
# walk overlaps up to 1.84 radii). Bound: each within 1 % of the free walk,
# all at their targets, largest overlap < 5 %. About 2 s.
throng_paper_test(target_locomotion.arrival paper arrival ${THRONG_PAPER_CONFIGS}/target-locomotion.yaml
                  --steps 4500 --every 4500
                  --control-set ${THRONG_LR_OFF} --control-set contact.enabled=false --control-set xsph.enabled=false
                  --expect "t50 <= 1.01*control.t50" --expect "t90 <= 1.01*control.t90"
                  --expect "t100 <= 1.01*control.t100" --expect "final >= 1" --expect "max_overlap < 0.05")

# ---- bottleneck (§5.2.12, Fig. 10) ------------------------------------------

# "Agents huddle at the corridor entrance; a semi-circular arch forms."
# paper_phenomena.arch around the gap centre (27, 0), 20-40 s: a circle
# fitted to the crowd's outer boundary (the farthest agent in each of 18
# sectors) has 0.810 of those agents within 1 m, radius 15.4 m, centre 1.55
# m from the gap; the first layer (nearest agent per sector) lies 2.77 m
# from the gap centre. At the start (the rectangular block): 0.25, centre
# 14.0 m away, first layer 5.41 m. Seeds 1-2: 0.68, 0.71. Bound: share >=
# 0.6, centre within 3 m, start <= 0.5, first layer within 3.5 m. (Later the
# crowd fills the room's width and the boundary flattens: 0.43 over 20-120
# s.) About 2 s.
throng_paper_test(bottleneck.arch paper bottleneck ${THRONG_PAPER_CONFIGS}/bottleneck-480.yaml
                  --steps 1920 --every 24 --window 20,40 --gap 27,0
                  --expect "outer_share >= 0.6" --expect "outer_offset <= 3" --expect "outer_share0 <= 0.5"
                  --expect "front_distance <= 3.5")

# Jamming and the flow through the 2.8 m gap, 20-120 s (frames every 0.5 s):
# measured 1.35 agents/s (135 passes), longest time without a pass 11 s;
# seeds 1-2: 1.73 and 1.68 agents/s, 3.0 and 4.5 s. Largest overlap 0.017
# of a radius. Bound: 0.8-2.5 agents/s, a pause of at least 2.5 s (with
# the mean interval 0.6-0.75 s, a smooth flow would not pause that long),
# overlap < 5 %. About 6 s.
throng_paper_test(bottleneck.flow paper bottleneck ${THRONG_PAPER_CONFIGS}/bottleneck-480.yaml
                  --steps 5760 --every 24 --window 20,120 --gap 27,0 --flow-window 20,120
                  --expect "flow >= 0.8" --expect "flow <= 2.5" --expect "longest_pause >= 2.5"
                  --expect "max_overlap < 0.05")

# ---- antipodal circle (implementation paper, Fig. 1) -----------------------

# The agents reach their antipodal goals, with no lasting overlap in the
# central crossing. Measured: 50 / 90 / 100 % at 83.9 / 86.9 / 90.8 s; a
# free walk (control: LR, contact and XSPH off) 49.5 / 56.4 / 58.3 s: the
# central crossing costs about 33 s; no overlap. Projected response: 84.8 /
# 90.4 / 127.5 s (a few agents circle the jam for 35 s longer). Bound: all at
# their goals by 100 s, largest overlap < 5 % of a radius. About 2 s.
throng_paper_test(antipodal_circle.arrival paper arrival ${THRONG_PAPER_CONFIGS}/antipodal-circle.yaml
                  --steps 6400 --every 6400 --expect "final >= 1" --expect "t100 <= 100"
                  --expect "max_overlap < 0.05")

# ---- claims the current model does not show (label known-failure) ----------
# Out of `ctest -L paper` and CI; `ctest -L known-failure` runs them. Each
# passes when the model shows the claim.

# LR should not add contacts: on data/sparse-passing-small.yaml LR agents
# touch 5.37 partners each against 3.22 with LR off, and 0.67 of the close
# passes touch against 0.41 -- each for 1-2 steps (LR off: 7 pairs locked).
# With long_range.radius: 6 (the paper gives no radius) 3.26 partners; the
# 3 m radius is kept (docs/paper-map.md).
throng_paper_test(known.sparse_lr_fewer_contacts known-failure contacts ${THRONG_PAPER_DATA}/sparse-passing-small.yaml
                  --steps 1680 --every 1 --control-set ${THRONG_LR_OFF} --expect "per_agent <= control.per_agent")
# §5.2.2 / §5.2.4: avoidance gives thicker lanes than LR. Lane width (runs
# of one group across y in 4 m slabs, in agents; random mixing gives 2).
# Sparse, 0-60 s: avoidance 1.71, LR 1.74. Dense, 0-40 s: avoidance 2.40,
# LR 2.52 (both ordered: 0.97 and 0.98). Bound: 1.2 x LR's.
throng_paper_test(known.sparse_avoid_thicker_lanes known-failure passing
                  ${THRONG_PAPER_CONFIGS}/sparse-passing-avoid.yaml --steps 2880 --every 24 --window 0,60
                  --control-scenario ${THRONG_PAPER_CONFIGS}/sparse-passing-lr.yaml
                  --expect "width >= 1.2*control.width")
throng_paper_test(known.dense_avoid_thicker_lanes known-failure passing
                  ${THRONG_PAPER_CONFIGS}/dense-passing-low-avoid.yaml --steps 1920 --every 48 --window 0,40
                  --control-scenario ${THRONG_PAPER_CONFIGS}/dense-passing-low-lr.yaml
                  --expect "width >= 1.2*control.width")
# §5.2.9: with avoidance the groups pass "with proxemic spacing". Measured
# over 50 s: 0.77 of the agents touch an agent of the other group, 3.28
# partners each, a contact lasts 2.9 s on average (26 pairs 5 s or more);
# LR: 0.69, 2.74, 3.0 s. Bound: at most 10 % of the agents touch.
throng_paper_test(known.proximal_avoid_proxemic known-failure contacts ${THRONG_PAPER_CONFIGS}/proximal-avoid.yaml
                  --steps 2400 --every 1 --expect "touched <= 0.1")
