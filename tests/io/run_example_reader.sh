#!/usr/bin/env bash
# docs/examples/read_trajectory.py works on a trajectory.h5 that throng
# writes: h5py reads /frames and /trajectory, PedPy 1.5 loads the trajectory
# and the walkable area, and the density and speed figure is drawn.
# Usage: run_example_reader.sh BUILD_DIR SOURCE_DIR
# Exit status 0 pass, 1 fail, 77 skipped (no HDF5 in the build, or PedPy
# cannot be installed into BUILD_DIR/venv-io, e.g. without network).
set -uo pipefail
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
throng=${THRONG_EXE:-$build/bin/throng}
tmp=$(mktemp -d /tmp/throng_example_reader.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$throng" info | grep -Eq '^ *HDF5 +ON' || { echo "SKIP: this throng was built without HDF5"; exit 77; }

# the venv: made once, kept in the build directory
venv=$build/venv-io
if ! "$venv/bin/python" -c 'import pedpy, h5py, matplotlib' 2>/dev/null; then
  rm -rf "$venv"
  if ! python3 -m venv "$venv" >"$tmp/venv.log" 2>&1; then
    cat "$tmp/venv.log"; echo "SKIP: python3 -m venv failed (install python3-venv)"; rm -rf "$venv"; exit 77
  fi
  if ! "$venv/bin/pip" install --quiet pedpy >"$tmp/pip.log" 2>&1; then
    tail -5 "$tmp/pip.log"; echo "SKIP: pip could not install pedpy into $venv"; rm -rf "$venv"; exit 77
  fi
fi
"$venv/bin/python" -c 'import pedpy; print("pedpy", pedpy.__version__)'

# a bottleneck: 180 agents, 20 s, a frame every 4 steps (12 frames/s)
out=$tmp/run
"$throng" run "$src/configs/validation/bottleneck-b1.2.yaml" --out "$out" --steps 960 --quiet \
  --set output.trajectory_every=4 --set output.metrics_every=48 --set output.trajectory_format=hdf5 || { echo "FAIL: throng run exited with $?"; exit 1; }
[[ -f $out/trajectory.h5 && -f $out/trajectory.xdmf ]] || { ls -l "$out"; echo "FAIL: no trajectory.h5/.xdmf"; exit 1; }

png=$tmp/density_speed.png
"$venv/bin/python" "$src/docs/examples/read_trajectory.py" "$out/trajectory.h5" "$png" >"$tmp/example.log" 2>&1
rc=$?
cat "$tmp/example.log"
[[ $rc == 0 ]] || { echo "FAIL: read_trajectory.py exited with $rc"; exit 1; }
[[ -s $png ]] || { echo "FAIL: $png not written"; exit 1; }

# the printed figures: 241 frames of 180 agents; a crowd in the middle
# square at some time; speeds of walking people
"$venv/bin/python" - "$tmp/example.log" <<'PY' || exit 1
import re, sys
log = open(sys.argv[1]).read()
def num(pattern):
    m = re.search(pattern, log)
    if not m:
        sys.exit(f"FAIL: no line matching {pattern!r}")
    return float(m.group(1))
checks = [
    ("frames", num(r"(\d+) frames at"), lambda v: v == 241),
    ("fps", num(r"frames at ([\d.]+) frames/s"), lambda v: abs(v - 12) < 1e-3),
    ("agents at the first frame", num(r"agents per frame: first (\d+)"), lambda v: v == 180),
    ("max density [1/m^2]", num(r"classic density: .* max ([\d.]+)"), lambda v: 0.5 <= v <= 8),
    ("max mean speed [m/s]", num(r"mean speed in the area: .* max ([\d.]+)"), lambda v: 0.05 <= v <= 2.5),
]
if "/frames and /trajectory agree: yes" not in log:
    sys.exit("FAIL: /frames and /trajectory disagree")
bad = [f"{name} = {v:g}" for name, v, ok in checks if not ok(v)]
if bad:
    sys.exit("FAIL: implausible: " + ", ".join(bad))
print("ok: " + ", ".join(f"{name} {v:g}" for name, v, _ in checks))
PY
echo "ok: read_trajectory.py read throng's trajectory.h5 with h5py and PedPy and drew $(basename "$png")"
