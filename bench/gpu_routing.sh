#!/usr/bin/env bash
# One call on the GPU machine for congestion-aware routing (issue 32): the
# builds (default and strict floating point), the GPU tests (strict: CPU =
# CUDA with the recomputed fields, exit choice by time, the pedestrian
# preset), the full stadium on the pedestrian model (its outputs packed for
# `throng report`), and the validation suite on the CUDA backend.
# Usage: bench/gpu_routing.sh [tests|stadium|validation|all]...   (logs into $OUT)
set -uo pipefail
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
source "$(dirname "$0")/gpu_deps.sh"
want=${*:-all}
has() { [[ " $want " == *" all "* || " $want " == *" $1 "* ]]; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
half=$(( $(nproc) / 2 ))
build() { # dir, extra args
  local dir=$1; shift
  [ -x "$dir/bin/throng" ] && return 0
  cmake -S . -B "$dir" -G Ninja -DTHRONG_CUDA=ON -DTHRONG_HDF5=OFF "$@" >"$out/cfg-$dir.log" 2>&1 &&
    cmake --build "$dir" -j "$half" >"$out/build-$dir.log" 2>&1
}
t0=$SECONDS
build build-gpu & build build-strict -DTHRONG_STRICT_FP=ON & wait
for d in build-gpu build-strict; do [ -x $d/bin/throng ] || { tail -20 "$out/build-$d.log"; exit 1; }; done
echo "builds: $((SECONDS - t0)) s"
if has tests; then
  t0=$SECONDS
  # Four tests at once, each CPU run with 4 threads that sleep when idle: with
  # the default (16 spinning threads each) the CPU halves ran 100x slower.
  OMP_WAIT_POLICY=passive OMP_NUM_THREADS=4 \
    ctest --test-dir build-strict -L gpu --output-on-failure -j4 >"$out/ctest-gpu-strict.log" 2>&1
  grep -E 'tests passed|Failed|\*\*\*' "$out/ctest-gpu-strict.log" | tail -12
  echo "gpu tests (strict): $((SECONDS - t0)) s"
fi
if has stadium; then
  t0=$SECONDS
  d=$out/stadium-full
  build-gpu/bin/throng run configs/evacuation/stadium/stadium.yaml --backend cuda --out "$d" --overwrite \
    --set output.trajectory_every=0 > "$out/stadium-full.log" 2>&1
  tail -3 "$out/stadium-full.log"
  python3 - "$d" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1] + "/run.json"))
t = r.get("phase_seconds_rank0", {})
print("run.json timings:", {k: v for k, v in t.items() if isinstance(v, (int, float)) and v > 0.01})
EOF
  echo "stadium: $((SECONDS - t0)) s"
fi
if has validation; then
  t0=$SECONDS
  ctest --test-dir build-gpu -L validation -j8 --output-on-failure > "$out/ctest-validation-cuda.log" 2>&1
  grep -E 'tests passed|Failed|\*\*\*' "$out/ctest-validation-cuda.log" | tail -12
  echo "validation on cuda: $((SECONDS - t0)) s"
fi
