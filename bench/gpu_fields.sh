#!/usr/bin/env bash
# One call on the GPU machine for the field groups (issue 33, decision 0014):
# the strict GPU tests (CPU = CUDA byte for byte), then the A/B of this tree
# against BASE_DIR (bench/gpu_ab.sh: ms/step and bytes per agent at 10^6 and
# 10^7 on one rank), then bytes per agent on 2 and 4 ranks sharing the GPU
# (the memory figure does not need a GPU per rank). Logs into $OUT.
# Usage: bench/gpu_fields.sh BASE_DIR
set -uo pipefail
base=${1:?usage: bench/gpu_fields.sh BASE_DIR}
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
source "$(dirname "$0")/gpu_deps.sh"
half=$(( $(nproc) / 2 ))
build() { gpu_build "$1" "$2" $half "${@:3}"; } # source dir, build dir, extra CMake args
t0=$SECONDS
build . build-gpu & build . build-strict -DTHRONG_STRICT_FP=ON & build "$base" build-gpu & wait
echo "builds: $((SECONDS - t0)) s"
t0=$SECONDS
# passive OpenMP threads: four CPU halves at once would otherwise spin (bench/gpu_routing.sh)
OMP_WAIT_POLICY=passive OMP_NUM_THREADS=4 \
  ctest --test-dir build-strict -L gpu --output-on-failure -j4 >"$out/ctest-gpu-strict.log" 2>&1
grep -E 'tests passed|Failed|\*\*\*|byte-identical|DIFFERENT' "$out/ctest-gpu-strict.log" | tail -14
echo "gpu tests (strict): $((SECONDS - t0)) s"
OUT=$out bash "$(dirname "$0")/gpu_ab.sh" "$base" 1000000 10000000 | tail -3
summary() {
  python3 -c "
import csv, sys
for r in csv.DictReader(l for l in sys.stdin if ',' in l):
    print('  %s ranks: %s ms/step, %s bytes per agent' % (r['ranks'], r['ms_per_step'], r['memory_bytes_per_agent']))"
}
for run in ". 2" ". 4" "$base 2"; do
  set -- $run
  echo "tree $1, $2 ranks on the one GPU:"
  mpirun --oversubscribe -np "$2" "$1/build-gpu/bin/throng-bench" --backend cuda --steps 20 --warmup 3 \
    "$out/ab-1000000.yaml" 2>&1 | summary
done
