#!/usr/bin/env bash
# Small crowds on one GPU (the launch floor, issue 34): throng-bench on the
# paper's scenarios and 10^4-10^5-agent evacuations, for this tree (d), this
# tree with one gather launch per field (THRONG_CUDA_PER_FIELD_GATHER=1, p)
# and the baseline tree BASE (a), alternating, two runs each; then the
# median ms/step per tree. Needs .deps/ (libyaml). Logs in $OUT.
# Usage: bench/gpu_small.sh BASE_DIR [gputests]
set -uo pipefail
base=${1:?usage: bench/gpu_small.sh BASE_DIR [gputests]}
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
source "$(dirname "$0")/gpu_deps.sh"
jobs=$(( $(nproc) / 3 ))
build() { gpu_build "$1" "$2" $jobs "${@:3}"; } # source dir, build dir, extra CMake args
build . build-gpu & build "$base" build-gpu &
[ "${2:-}" = gputests ] && build . build-strict -DTHRONG_STRICT_FP=ON &
wait
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
if [ "${2:-}" = gputests ]; then
  OMP_WAIT_POLICY=passive OMP_NUM_THREADS=4 ctest --test-dir build-strict -L gpu -j4 >"$out/ctest-gpu-strict.log" 2>&1
  grep -E 'tests passed|\*\*\*Failed' "$out/ctest-gpu-strict.log" | tail -8
fi
python3 bench/make_evacuation.py 10000 "$out/evac-1e4.yaml"
python3 bench/make_evacuation.py 100000 "$out/evac-1e5.yaml"
scen="configs/paper/bottleneck-480.yaml configs/paper/bottleneck-3600.yaml configs/paper/dense-passing-low-lr.yaml
      configs/paper/bottleneck-100048.yaml $out/evac-1e4.yaml $out/evac-1e5.yaml"
{
  echo "tree,$(build-gpu/bin/throng-bench --steps 2 --warmup 1 --backend cuda configs/paper/bottleneck-480.yaml | head -1)"
  for rep in 1 2; do
    for sc in $scen; do
      for t in a p d; do
        dir=.; [ $t = a ] && dir=$base
        env=""; [ $t = p ] && env="THRONG_CUDA_PER_FIELD_GATHER=1"
        env $env "$dir/build-gpu/bin/throng-bench" --backend cuda --steps 200 --warmup 10 "$sc" | tail -n 1 | sed "s/^/$t,/"
      done
    done
  done
} 2>&1 | tee "$out/small.csv" >/dev/null
python3 - "$out/small.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for sc in dict.fromkeys(r["scenario"] for r in rows):
    ms = {t: statistics.median(float(r["ms_per_step"]) for r in rows if r["tree"] == t and r["scenario"] == sc)
          for t in "apd"}
    n = [r["agents"] for r in rows if r["scenario"] == sc][0]
    print("%-26s %7s agents: a %.4f  p %.4f  d %.4f ms/step  d/a %.3f" % (sc, n, ms["a"], ms["p"], ms["d"], ms["d"] / ms["a"]))
PY
