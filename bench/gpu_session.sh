#!/usr/bin/env bash
# One call on the GPU machine: build (default and strict floating point),
# run the GPU tests, run the evacuation benchmark. Logs go to $OUT (or
# ./gpu-out). Usage: bench/gpu_session.sh [tests|bench|all] [SIZES...]
# Needs .deps/ with libyaml .deb files (docs/gpu.md explains).
set -uo pipefail
what=${1:-all}
shift || true
sizes=${*:-"100000 1000000 10000000"}
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
source "$(dirname "$0")/gpu_deps.sh"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
jobs=$(nproc)
build() { # dir, extra args
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja -DTHRONG_CUDA=ON -DTHRONG_HDF5=OFF "$@" >"$out/cfg-$(basename "$dir").log" 2>&1 &&
    cmake --build "$dir" -j "$jobs" >"$out/build-$(basename "$dir").log" 2>&1
}
t0=$SECONDS
build build-gpu || { tail -30 "$out/build-build-gpu.log"; exit 1; }
echo "default build: $((SECONDS - t0)) s"
if [ "$what" != bench ]; then
  t0=$SECONDS
  build build-strict -DTHRONG_STRICT_FP=ON || { tail -30 "$out/build-build-strict.log"; exit 1; }
  echo "strict build: $((SECONDS - t0)) s"
  (ctest --test-dir build-strict -L gpu --output-on-failure 2>&1 | tee "$out/ctest-gpu-strict.log") | tail -15
  (ctest --test-dir build-gpu -L gpu --output-on-failure 2>&1 | tee "$out/ctest-gpu-default.log") | tail -15
fi
if [ "$what" = profile ] || [ "$what" = all+profile ]; then
  python3 bench/make_evacuation.py 1000000 "$out/evac-prof.yaml"
  ncu --kernel-name regex:'k_solver|k_step_lists|k_finalize|k_stability' --launch-skip 10 \
      --launch-count 5 --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
      build-gpu/bin/throng-bench --backend cuda --steps 3 --warmup 1 "$out/evac-prof.yaml" > "$out/ncu.txt" 2>&1
  grep -E "k_|Duration|Memory Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|L1/TEX Hit|L2 Hit" "$out/ncu.txt" | head -80
fi
if [ "$what" != tests ] && [ "$what" != profile ]; then
  for n in $sizes; do
    python3 bench/make_evacuation.py "$n" "$out/evac-$n.yaml"
  done
  {
    first=1
    for n in $sizes; do
      steps=50; [ "$n" -ge 10000000 ] && steps=20
      build-gpu/bin/throng-bench --backend cuda --steps $steps --warmup 3 "$out/evac-$n.yaml" | { if [ $first = 1 ]; then cat; else tail -n +2; fi; }
      first=0
    done
  } 2>&1 | tee "$out/bench-evacuation.csv"
fi
