#!/usr/bin/env bash
# One call on the GPU machine for HDF5 output and checkpoints (issue 12):
# a strict build (THRONG_STRICT_FP=ON, serial HDF5 of the machine), the GPU
# tests, restart equality on the CUDA backend (CUDA -> CUDA and a CUDA
# checkpoint continued on the CPU backend: byte-identical final states), then
# bench/io_bench.py at 1e5 and 1e6 agents on the CUDA backend.
# Usage: bench/gpu_io.sh   (logs into $OUT)
set -uo pipefail
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
source "$(dirname "$0")/gpu_deps.sh"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
b=build-gpu-io
t0=$SECONDS
cmake -S . -B $b -G Ninja -DTHRONG_CUDA=ON -DTHRONG_STRICT_FP=ON >"$out/cfg.log" 2>&1 &&
  cmake --build $b -j "$(nproc)" >"$out/build.log" 2>&1 || { tail -n 30 "$out/cfg.log" "$out/build.log"; exit 1; }
grep -E "THRONG_HDF5|HDF5=" "$out/cfg.log"
echo "build: $((SECONDS - t0)) s"
t0=$SECONDS
ctest --test-dir $b -L gpu --output-on-failure -j4 >"$out/ctest-gpu.log" 2>&1
grep -E 'tests passed|Failed|\*\*\*' "$out/ctest-gpu.log" | tail -8
echo "gpu tests: $((SECONDS - t0)) s"
# restart equality on the GPU
scn=tests/data/mpi/pedestrian.yaml
w=$(mktemp -d)
T=$b/bin/throng
$T run $scn --backend cuda --steps 300 --no-output --quiet --final-state $w/full.csv &&
  $T run $scn --backend cuda --steps 300 --out $w/a --quiet --set output.checkpoint_every=100 &&
  $T run $scn --backend cuda --steps 300 --out $w/b --quiet --restart $w/a/checkpoints/checkpoint-00000200.h5 \
    --final-state $w/cuda-cuda.csv &&
  $T run $scn --backend cpu --steps 300 --out $w/c --quiet --restart $w/a/checkpoints/checkpoint-00000200.h5 \
    --final-state $w/cuda-cpu.csv
echo "restart runs: exit $?"
cmp $w/full.csv $w/cuda-cuda.csv && echo "restart CUDA->CUDA at step 200: final state byte-identical"
cmp $w/full.csv $w/cuda-cpu.csv && echo "restart CUDA->CPU at step 200: final state byte-identical"
rm -rf "$w"
python3 bench/io_bench.py $T 100000 1000000 --backend cuda --steps 6 --every 2 | tee "$out/io-bench.csv"
