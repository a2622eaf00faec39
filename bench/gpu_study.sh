#!/usr/bin/env bash
# One call on the GPU machine for the evacuation study: builds (default and
# strict floating point), the GPU tests (ctest -L gpu, strict build: the
# backend conformance, CPU = CUDA on paper scenarios and on an evacuation),
# then the stadium study (configs/evacuation/stadium) at full size and the
# reduced size on the CUDA backend. Packs the outputs the report needs
# (no trajectory frames but 6 spread over the run) into
# $OUT/study-full.tar.gz and $OUT/study-reduced.tar.gz; `throng report`
# then runs where matplotlib is. Usage: bench/gpu_study.sh [tests|study|all]
set -uo pipefail
what=${1:-all}
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
source "$(dirname "$0")/gpu_deps.sh"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
half=$(( $(nproc) / 2 ))
build() { # dir, extra args
  local dir=$1; shift
  [ -x "$dir/bin/throng" ] && return 0
  cmake -S . -B "$dir" -G Ninja -DTHRONG_CUDA=ON "$@" >"$out/cfg-$dir.log" 2>&1 &&
    cmake --build "$dir" -j "$half" >"$out/build-$dir.log" 2>&1
}
t0=$SECONDS
build build-gpu & build build-strict -DTHRONG_STRICT_FP=ON & wait
for d in build-gpu build-strict; do [ -x $d/bin/throng ] || { tail -20 "$out/build-$d.log"; exit 1; }; done
echo "builds: $((SECONDS - t0)) s"
if [ "$what" != study ]; then
  t0=$SECONDS
  ctest --test-dir build-strict -L gpu --output-on-failure -j4 >"$out/ctest-gpu.log" 2>&1
  grep -E 'tests passed|Failed|Skipped|\*\*\*' "$out/ctest-gpu.log" | tail -20
  echo "gpu tests: $((SECONDS - t0)) s"
fi
pack() { # run dir, tarball
  local d=$1 frames
  # 6 frames spread over the run (the report's snapshot at peak congestion picks among them)
  frames=$(ls "$d/trajectory"/trajectory.*.csv 2>/dev/null | awk '{a[NR]=$0} END {for (k = 0; k < 6 && NR; ++k) print a[1 + int(k * (NR - 1) / 5)]}' | sort -u)
  tar -czf "$2" -C "$(dirname "$d")" $(cd "$(dirname "$d")" && ls -d "$(basename "$d")"/*.csv "$(basename "$d")"/*.json \
    "$(basename "$d")"/maps 2>/dev/null) $(for f in $frames; do echo "$(basename "$d")/trajectory/$(basename "$f")"; done)
}
if [ "$what" != tests ]; then
  for size in full reduced; do
    scn=configs/evacuation/stadium/stadium.yaml
    [ $size = reduced ] && scn=configs/evacuation/stadium/stadium-reduced.yaml
    t0=$SECONDS
    timeout 420 build-gpu/bin/throng run "$scn" --backend cuda --out "$out/study-$size" --overwrite --set output.trajectory_format=csv >"$out/run-$size.log" 2>&1
    echo "stadium $size: exit $? in $((SECONDS - t0)) s"
    tail -2 "$out/run-$size.log"
    tr -d '\n' <"$out/study-$size/summary.json"; echo
    pack "$out/study-$size" "$out/study-$size.tar.gz"
    rm -rf "$out/study-$size"
  done
fi
rm -rf "$out"/cfg-*.log
