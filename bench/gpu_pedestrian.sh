#!/usr/bin/env bash
# One call on the GPU machine for the pedestrian model (issue 11): the GPU
# tests in a strict build (CPU = CUDA bit for bit, the pedestrian preset's
# headway pass included), the validation suite on the CUDA backend, and the
# cost of the pedestrian preset against the paper model on the evacuation
# benchmark (bench/make_evacuation.py) at 1e6 and 1e7 agents.
# Usage: bench/gpu_pedestrian.sh   (writes logs into $OUT)
set -uo pipefail
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
[ "${1:-}" = bench ] || bench/gpu_study.sh tests
for n in 1000000 10000000; do
  python3 bench/make_evacuation.py "$n" "$out/evac-$n.yaml"
  steps=$(( n > 2000000 ? 40 : 200 ))
  build-gpu/bin/throng-bench --backend cuda --steps $steps --warmup 3 "$out/evac-$n.yaml" | sed 's/^/paper,/'
  build-gpu/bin/throng-bench --backend cuda --steps $steps --warmup 3 --set model.preset=pedestrian \
    --set long_range.enabled=false --set xsph.enabled=false "$out/evac-$n.yaml" | tail -n +2 | sed 's/^/pedestrian,/'
done
if python3 -c "import numpy" 2>/dev/null; then
  ctest --test-dir build-gpu -L validation -j4 --output-on-failure > "$out/ctest-validation.log" 2>&1
  grep -E 'tests passed|\*\*\*' "$out/ctest-validation.log" | tail -15
else
  echo "validation suite: no numpy on this machine, not run"
fi
