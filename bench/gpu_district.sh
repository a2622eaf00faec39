#!/usr/bin/env bash
# One call on a 4-GPU machine for congestion-aware routing at scale (issue
# 32): the full stadium on one GPU (to the end: its outputs feed `throng
# report` and the per-exit table), then the district (10^6 people,
# configs/evacuation/district) on 4 GPUs for STEPS steps: time per step and
# the routing's share of it (run.json's phase seconds).
# Usage: bench/gpu_district.sh [STEPS]   (logs into $OUT)
set -uo pipefail
steps=${1:-1920}
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
source "$(dirname "$0")/gpu_deps.sh"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$out/gpu.txt"
t0=$SECONDS
if [ ! -x build-gpu/bin/throng ]; then
  cmake -S . -B build-gpu -G Ninja -DTHRONG_CUDA=ON -DTHRONG_HDF5=OFF >"$out/cfg.log" 2>&1 &&
    cmake --build build-gpu -j "$(nproc)" --target throng >"$out/build.log" 2>&1 || { tail -20 "$out/build.log"; exit 1; }
fi
echo "build: $((SECONDS - t0)) s"
phases() { # run dir: the phases over 1 % of the wall time, and the routing's share
  python3 - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1] + "/run.json"))
t, w = r["phase_seconds_rank0"], r["wall_seconds"]
print("  wall %.2f s, %s steps, %.3g agent-steps/s; routing %.2f s = %.1f %% of the wall time" % (
    w, r.get("last_step"), r.get("agent_steps_per_second", 0), t.get("routing", 0), 100 * t.get("routing", 0) / w))
print("  phases [s]:", {k: round(v, 2) for k, v in t.items() if v > 0.01 * w})
EOF
}
t0=$SECONDS
d=$out/stadium
build-gpu/bin/throng run configs/evacuation/stadium/stadium.yaml --backend cuda --out "$d" --overwrite \
  --set output.trajectory_every=0 > "$out/stadium.log" 2>&1
tail -2 "$out/stadium.log"
phases "$d"
echo "stadium: $((SECONDS - t0)) s"
t0=$SECONDS
d=$out/district
mpirun --allow-run-as-root -n 4 build-gpu/bin/throng run configs/evacuation/district/district.yaml --backend cuda \
  --out "$d" --overwrite --steps "$steps" --set output.trajectory_every=0 > "$out/district.log" 2>&1
grep -E "agents|halo|steps" "$out/district.log" | tail -4
phases "$d"
echo "district (4 GPUs, $steps steps): $((SECONDS - t0)) s"
