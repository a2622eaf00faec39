#!/usr/bin/env bash
# Issue 15 experiment: register caps on the solver and long-range kernels.
# Builds the default CUDA build and variants with THR_SOLVER_MIN_BLOCKS=N
# (blocks of 256 threads per SM the compiler must fit), then runs the
# evacuation benchmark at 1e6 and 1e7 agents on each, in the same call.
# Usage: bench/gpu_regcap.sh "6 8"   (logs into $OUT; 0 is always measured)
set -uo pipefail
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
source "$(dirname "$0")/gpu_deps.sh"
nvidia-smi --query-gpu=name --format=csv,noheader
for v in 0 ${1:-6 8}; do
  cmake -S . -B build-rc$v -G Ninja -DTHRONG_CUDA=ON -DTHRONG_HDF5=OFF -DTHRONG_TESTS=OFF \
    -DCMAKE_CUDA_FLAGS="-DTHR_SOLVER_MIN_BLOCKS=$v -Xptxas -v" >"$out/cfg-$v.log" 2>&1 &&
    cmake --build build-rc$v -j "$(nproc)" >"$out/build-$v.log" 2>&1 || { tail -n 20 "$out/build-$v.log"; exit 1; }
  grep -A1 "k_long_range_list" "$out/build-$v.log" | grep -o "Used [0-9]* registers[^\"]*" | head -1 | sed "s/^/min_blocks $v: long range /"
done
for n in 1000000 10000000; do python3 bench/make_evacuation.py $n "$out/e$n.yaml" >/dev/null; done
echo "min_blocks,agents,ms_per_step,agent_steps_per_s,long_range_ms,contact_ms"
for rep in 1 2; do
  for v in 0 ${1:-6 8}; do
    for n in 1000000 10000000; do
      steps=50; [ $n -ge 10000000 ] && steps=20
      build-rc$v/bin/throng-bench --backend cuda --steps $steps --warmup 3 "$out/e$n.yaml" | python3 -c "
import csv, sys
r = list(csv.DictReader(sys.stdin))[-1]
print('$v,%s,%s,%s,%s,%s' % (r['agents'], r['ms_per_step'], r['agent_steps_per_s'], r['long_range_ms'], r['contact_ms']))"
    done
  done
done | tee "$out/regcap.csv"
