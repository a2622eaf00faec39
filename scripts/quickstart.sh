#!/usr/bin/env bash
# Install, build, and run the default study: 3,600 agents through a bottleneck
# (configs/paper/bottleneck-3600.yaml), 2,000 steps, outputs in out/quickstart.
# Knobs: THRONG_QUICKSTART_SCENARIO, THRONG_QUICKSTART_STEPS, THRONG_QUICKSTART_OUT,
# plus those of scripts/setup.sh (THRONG_BUILD_DIR, THRONG_CMAKE_ARGS, THRONG_SKIP_INSTALL).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD_DIR=${THRONG_BUILD_DIR:-build}
SCENARIO=${THRONG_QUICKSTART_SCENARIO:-configs/paper/bottleneck-3600.yaml}
STEPS=${THRONG_QUICKSTART_STEPS:-2000}
OUT=${THRONG_QUICKSTART_OUT:-out/quickstart}
THRONG=$BUILD_DIR/bin/throng

log() { printf '[quickstart] %s\n' "$*"; }

bash "$ROOT/scripts/setup.sh"

[[ -f $SCENARIO ]] || { echo "[quickstart] ERROR: scenario $SCENARIO not found" >&2; exit 1; }
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

log "running: $THRONG check $SCENARIO"
"$THRONG" check "$SCENARIO"
log "running: $THRONG run $SCENARIO --steps $STEPS --out $OUT"
"$THRONG" run "$SCENARIO" --steps "$STEPS" --out "$OUT"

cat <<MSG

[quickstart] done. Outputs in $OUT/:
  $OUT/metrics.csv                     one row per step: agents at goal, mean speed, overlaps, wall penetrations
  $OUT/trajectory/trajectory.*.csv     agent positions and velocities (id,x,y,vx,vy,radius,group)
  $OUT/trajectory/trajectory.csv.series  the time series of those files, for ParaView
  $OUT/run.json                        what ran: scenario, parameters, build, ranks, timings

ParaView: File > Open $OUT/trajectory/trajectory.csv.series (or the trajectory.*.csv group),
  Apply, then Filters > Table To Points with X Column = x, Y Column = y, "2D Points" ticked,
  Apply; show it as Point Gaussian (radius) coloured by group or vx, and press Play.

Python:
  python3 -c "import csv; r=list(csv.DictReader(open('$OUT/metrics.csv'))); print(r[-1])"
  import pandas as pd; m = pd.read_csv('$OUT/metrics.csv'); m.plot(x='time', y='at_goal')

More: docs/user-guide.md
MSG

if [[ -f $OUT/metrics.csv ]]; then
  log "last metrics row:"
  python3 - "$OUT/metrics.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
if rows:
    for key, value in rows[-1].items():
        print(f"  {key:>18} = {value}")
PY
fi
