#!/usr/bin/env bash
# Install, build, and run the default study: the evacuation of a concert stadium
# (configs/evacuation/README.md), then draw its report.
#
#   - with a usable CUDA GPU (throng built with CUDA, `nvidia-smi -L` works): the full
#     size, configs/evacuation/stadium/stadium.yaml, about 101,000 people;
#   - otherwise: the mini size, configs/evacuation/stadium/stadium-mini.yaml, the same stadium
#     with the crowd thinned to about 2,000 people (a few minutes on 2 CPU cores; the
#     pedestrian model's routing recomputes the stadium's 1.8e6-cell field every second).
# The run ends by itself when everyone has left. Outputs go to out/quickstart/, the report
# to out/quickstart/report/index.html.
#
# Usage: scripts/quickstart.sh [--full | --reduced | --mini] [--help]
#   --full      run the full size even without a GPU (on a 2-core CPU: many hours)
#   --reduced   run the reduced size, about 14,000 people (on one CPU core: about 10 minutes)
#   --mini      run the mini size, about 2,000 people, even with a GPU
#   --help      print this text
#
# Environment knobs:
#   THRONG_QUICKSTART_SIZE=auto|full|reduced|mini  the same as the flags (a flag wins); default auto
#   THRONG_QUICKSTART_SCENARIO=FILE  run this scenario instead of the stadium (the size is then
#                                    not chosen: the file is run as it is)
#   THRONG_QUICKSTART_STEPS=N        stop after N steps (default: the scenario's time.steps;
#                                    an evacuation ends earlier, when everyone has left)
#   THRONG_QUICKSTART_OUT=DIR        output directory (default out/quickstart; replaced on a re-run)
#   THRONG_QUICKSTART_REPORT=0       do not run `throng report`
# plus those of scripts/setup.sh (THRONG_BUILD_DIR, THRONG_CMAKE_ARGS, THRONG_SKIP_INSTALL,
# THRONG_EXTRA_PACKAGES, THRONG_JOBS).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }
log() { printf '[quickstart] %s\n' "$*"; }
die() { printf '[quickstart] ERROR: %s\n' "$1" >&2; exit "${2:-1}"; }

SIZE=${THRONG_QUICKSTART_SIZE:-auto}
while [[ $# -gt 0 ]]; do
  case $1 in
    --full) SIZE=full ;;
    --reduced) SIZE=reduced ;;
    --mini) SIZE=mini ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" 2 ;;
  esac
  shift
done
case $SIZE in
  auto | full | reduced | mini) ;;
  *) die "THRONG_QUICKSTART_SIZE must be auto, full, reduced or mini (got '$SIZE')" 2 ;;
esac

BUILD_DIR=${THRONG_BUILD_DIR:-build}
STUDY=configs/evacuation/stadium
SCENARIO=${THRONG_QUICKSTART_SCENARIO:-}
STEPS=${THRONG_QUICKSTART_STEPS:-}
OUT=${THRONG_QUICKSTART_OUT:-out/quickstart}
REPORT=${THRONG_QUICKSTART_REPORT:-1}
THRONG=$BUILD_DIR/bin/throng
[[ -z $STEPS || $STEPS =~ ^[0-9]+$ ]] || die "THRONG_QUICKSTART_STEPS must be a whole number (got '$STEPS')" 2

bash "$ROOT/scripts/setup.sh"

if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# ---- a usable GPU: throng built with CUDA and seeing a device, and nvidia-smi working ----------
GPU=0
GPU_NOTE="no CUDA GPU found"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  if "$THRONG" info 2>/dev/null | grep -Eq '^[[:space:]]*cuda[[:space:]]+built; [1-9]'; then
    GPU=1
    GPU_NOTE="CUDA GPU: $(nvidia-smi -L 2>/dev/null | head -n 1)"
  else
    GPU_NOTE="nvidia-smi sees a GPU, but $THRONG has no CUDA backend (build it with nvcc on PATH, or
             THRONG_CMAKE_ARGS=-DTHRONG_CUDA=ON scripts/quickstart.sh)"
  fi
fi
log "$GPU_NOTE"

BACKEND=(--backend cpu)
[[ $GPU -eq 1 ]] && BACKEND=(--backend cuda)
if [[ -n $SCENARIO ]]; then
  [[ $SIZE == auto ]] || log "THRONG_QUICKSTART_SCENARIO is set: running $SCENARIO as it is (--$SIZE ignored)"
else
  if [[ $SIZE == auto ]]; then
    SIZE=mini
    [[ $GPU -eq 1 ]] && SIZE=full
  fi
  if [[ $SIZE == full ]]; then
    SCENARIO=$STUDY/stadium.yaml
    [[ $GPU -eq 1 ]] || log "WARNING: the full size (about 1e5 agents) on the CPU takes many hours; --mini takes minutes"
  elif [[ $SIZE == reduced ]]; then
    SCENARIO=$STUDY/stadium-reduced.yaml
  else
    SCENARIO=$STUDY/stadium-mini.yaml
  fi
  log "study: the stadium evacuation, $SIZE size ($SCENARIO; configs/evacuation/README.md)"
fi
[[ -f $SCENARIO ]] || die "scenario $SCENARIO not found"

log "running: $THRONG check $SCENARIO"
"$THRONG" check "$SCENARIO" | grep -v '^    \[' # the per-block lines: one per sector band
RUN=("$THRONG" run "$SCENARIO" --out "$OUT" --overwrite "${BACKEND[@]}")
[[ -n $STEPS ]] && RUN+=(--steps "$STEPS")
log "running: ${RUN[*]}"
START=$(date +%s)
"${RUN[@]}"
log "the run took $(($(date +%s) - START)) s"

REPORT_OK=0
if [[ $REPORT != 0 ]]; then
  log "running: $THRONG report $OUT"
  if "$THRONG" report "$OUT"; then
    REPORT_OK=1
  else
    log "WARNING: the report could not be drawn (needs python3-matplotlib); the outputs are complete"
  fi
fi

MAPS_NOTE=""
[[ -f $OUT/maps/maps.vti ]] && MAPS_NOTE="
  Maps: File > Open $OUT/maps/maps.vti, Apply, colour by density or speed (time-averaged,
    one value per cell of the measurement grid)."

cat <<MSG

[quickstart] done. Outputs in $OUT/:
  summary.json        evacuated, remaining, evacuation time, t95, agents out per exit, timing
  exits.csv           agents out through each exit, per step
  evacuated.csv       every agent that left: exit, time, pre-movement end, travel time, distance
  areas.csv, lines.csv  density and speed in the measurement areas; crossings of the lines
  maps/               time-averaged density and speed (density.csv, speed.csv; maps.vti for ParaView)
  geometry.json       the floor plan: walkable area, obstacles, exits, measurement areas and lines
  geometry.vtp, .wkt  the same for ParaView (cell array kind) and as WKT (e.g. for PedPy)
  metrics.csv         per output step: agents, mean speed, overlaps, wall penetrations
  trajectory.h5       every agent at every output step (PedPy loads it; trajectory.xdmf opens it in
                      ParaView); trajectory/*.csv instead in a build without HDF5
  checkpoints/        (on SIGTERM/SIGUSR1 or output.checkpoint_every) restart with --restart FILE
  run.json            what ran: scenario, parameters, build, ranks, timings
MSG
if [[ $REPORT_OK -eq 1 ]]; then
  cat <<MSG

Report: $OUT/report/index.html  (open it in a browser, e.g. xdg-open $OUT/report/index.html)
MSG
fi
cat <<MSG

ParaView:
  Pictures: xvfb-run -a -s "-screen 0 1280x1024x24" pvpython scripts/paraview_frames.py $OUT
    draws the agents as discs coloured by speed over the walls and exits, into $OUT/paraview/
    (needs ParaView, xvfb and xauth: sudo apt-get install paraview xvfb xauth).
  Agents: File > Open $OUT/trajectory.xdmf (XDMF Reader), Apply; show it as Point Gaussian
    with Gaussian Radius 0.25 (or Scale By radius) coloured by velocity or group, and press
    Play. (Without HDF5: open $OUT/trajectory/trajectory.csv.series, then Filters > Table To
    Points, X = x, Y = y.)
  Walls and exits: File > Open $OUT/geometry.vtp, Apply, colour by kind.$MAPS_NOTE

More: configs/evacuation/README.md, docs/user-guide.md
MSG

if [[ -f $OUT/summary.json ]]; then
  log "summary:"
  python3 - "$OUT/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for key in ("scenario", "state", "agents_initial", "evacuated", "remaining", "evacuation_time", "t95",
            "steps", "time", "wall_seconds", "agent_steps_per_second"):
    if key in s:
        print(f"  {key:>22} = {s[key]}")
exits = s.get("exits") or {}
if exits:
    print("  agents out per exit: " + ", ".join(f"{k} {v}" for k, v in exits.items()))
PY
fi
