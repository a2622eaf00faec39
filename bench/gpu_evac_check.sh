#!/usr/bin/env bash
# On the GPU machine: build with strict floating point and compare an
# evacuation (exits, journeys with a queue and a waiting stage, a source,
# measurement) on the CPU and CUDA backends, and on 1 and 2 ranks with CUDA.
# Usage: bench/gpu_evac_check.sh [SCENARIO] [STEPS]; logs in $OUT (or ./gpu-out).
set -uo pipefail
scn=${1:-tests/data/good/evacuation-full.yaml}
steps=${2:-6000}
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=8
if ls .deps/*.deb >/dev/null 2>&1; then
  for f in .deps/*.deb; do dpkg -x "$f" /opt/deps; done
  export CMAKE_PREFIX_PATH=/opt/deps/usr LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
dir=${THRONG_GPU_BUILD:-build-strict}
if [ ! -x "$dir/bin/throng" ]; then
  cmake -S . -B "$dir" -G Ninja -DTHRONG_CUDA=ON -DTHRONG_HDF5=OFF -DTHRONG_STRICT_FP=ON >"$out/cfg.log" 2>&1 &&
    cmake --build "$dir" -j "$(nproc)" >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
fi
run() { # name, ranks, backend
  rm -rf "$out/$1"
  local t0=$SECONDS
  mpirun -n "$2" "$dir/bin/throng" run "$scn" --steps "$steps" --backend "$3" --out "$out/$1" --quiet \
    --final-state "$out/$1.final.csv" --set output.metrics_every=48 --set output.trajectory_every=0 >"$out/$1.log" 2>&1
  echo "$1: exit $? in $((SECONDS - t0)) s; $(tr -d '\n ' <"$out/$1/summary.json" 2>/dev/null | head -c 300)"
}
run cpu1 1 cpu
run cuda1 1 cuda
run cuda2 2 cuda
for f in .final.csv /exits.csv /evacuated.csv /areas.csv /lines.csv /maps/density.csv; do
  a=$(md5sum <"$out/cpu1$f" | cut -c1-12); b=$(md5sum <"$out/cuda1$f" | cut -c1-12); c=$(md5sum <"$out/cuda2$f" | cut -c1-12)
  echo "$f cpu1 $a cuda1 $b cuda2 $c $([ "$a" = "$b" ] && [ "$a" = "$c" ] && echo SAME || echo DIFFER)"
done
