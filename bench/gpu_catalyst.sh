#!/usr/bin/env bash
# One call on the GPU machine for in situ visualisation (issue 13). The GPU
# machine has no ParaView, so Catalyst's own cost is measured on a CPU
# machine (bench/catalyst_bench.py); here: a CUDA build, the GPU tests (the
# CUDA backend's host views: gpu.backends.views_show_the_owned_fields,
# catalyst.null_module_cuda), and throng's side of a Catalyst call on the
# GPU at 1e5 and 1e6 agents through the null module (tests/catalyst/
# null_module.c): the view of six fields copied asynchronously into
# page-locked memory and the channels filled, every 2 steps, against a run
# without Catalyst.
# Usage: bench/gpu_catalyst.sh   (logs into $OUT; GPU_TESTS=views runs only
# the view and null-module tests, not the whole gpu label)
set -uo pipefail
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
source "$(dirname "$0")/gpu_deps.sh"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
b=build-gpu-catalyst
t0=$SECONDS
cmake -S . -B $b -G Ninja -DTHRONG_CUDA=ON >"$out/cfg.log" 2>&1 &&
  cmake --build $b -j "$(nproc)" >"$out/build.log" 2>&1 || { tail -n 30 "$out/cfg.log" "$out/build.log"; exit 1; }
grep -E "THRONG_CATALYST|Catalyst=" "$out/cfg.log"
echo "build: $((SECONDS - t0)) s"
t0=$SECONDS
if [[ ${GPU_TESTS:-all} == all ]]; then
  ctest --test-dir $b -L gpu --output-on-failure -j4 >"$out/ctest-gpu.log" 2>&1
  grep -E 'tests passed|Failed|\*\*\*' "$out/ctest-gpu.log" | tail -8
fi
ctest --test-dir $b -R 'views|null_module' --output-on-failure >"$out/ctest-views.log" 2>&1
grep -E 'Test +#|tests passed' "$out/ctest-views.log"
echo "gpu tests: $((SECONDS - t0)) s"
T=$b/bin/throng
w=$(mktemp -d)
{
echo "agents,backend,steps,calls,catalyst_seconds,per_call_ms,step_ms_without,step_ms_with"
for n in 100000 1000000; do
  python3 bench/make_evacuation.py $n $w/e$n.yaml >/dev/null
  common=(--backend cuda --steps 200 --quiet --set output.trajectory_every=0 --set output.metrics_every=200)
  $T run $w/e$n.yaml --out $w/base$n "${common[@]}"
  THRONG_CATALYST_MODULE=$PWD/$b/lib/throng/libthrong_null_insitu.so THRONG_NULL_MODULE_OUT=$w/calls$n \
    $T run $w/e$n.yaml --out $w/cat$n "${common[@]}" --catalyst $w/e$n.yaml --set catalyst.every=2
  python3 - "$w/base$n/run.json" "$w/cat$n/run.json" $n <<'PY'
import json, sys
b, c = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
io = c["output_seconds"]
per = (io["catalyst"] - io["catalyst_first_call"]) / max(io["catalyst_calls"] - 1, 1)
print("%s,cuda,%d,%d,%.4f,%.3f,%.3f,%.3f" % (sys.argv[3], c["steps"], io["catalyst_calls"], io["catalyst"], 1e3 * per,
      1e3 * b["wall_seconds"] / b["steps"], 1e3 * c["wall_seconds"] / c["steps"]))
PY
done
} | tee "$out/catalyst-gpu.csv"
rm -rf "$w"
