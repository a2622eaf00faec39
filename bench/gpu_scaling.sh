#!/usr/bin/env bash
# Multi-GPU checks and scaling on one node (run on the GPU machine, after
# bench/gpu_session.sh has built build-gpu): 
#   1. bitwise equality of a 2-rank and a 1-rank CUDA run of bottleneck-3600;
#   2. ctest -L mpi (the default backend is cuda there);
#   3. weak scaling (each of PER_GPU agents per GPU) and strong scaling (STRONG
#      agents) of the evacuation benchmark on 1..NGPU GPUs, one rank per GPU.
# Usage: bench/gpu_scaling.sh ["PER_GPU..."] [STRONG]  (defaults "2000000 10000000" 4000000)
# SKIP_CTEST=1 skips step 2.
set -uo pipefail
per=${1:-"2000000 10000000"}
strong=${2:-4000000}
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
ngpu=$(nvidia-smi -L | wc -l)
bin=build-gpu/bin
mpi="mpirun --bind-to none -x LD_LIBRARY_PATH -x OMPI_MCA_rmaps_base_oversubscribe"

echo "== MPI: $(ompi_info --parsable --all 2>/dev/null | grep -m1 mpi_built_with_cuda_support:value || echo 'no ompi_info')"
THRONG_DECOMP_VERBOSE=1 $mpi -n 2 $bin/throng run configs/paper/bottleneck-3600.yaml --steps 1 --backend cuda --no-output --quiet 2>&1 | grep -m1 "halo buffers" || true
echo "== $ngpu-rank vs 1-rank CUDA, bottleneck-3600, 300 steps"
$bin/throng run configs/paper/bottleneck-3600.yaml --steps 300 --backend cuda --no-output --quiet --final-state "$out/b1.csv"
$mpi -n "$ngpu" $bin/throng run configs/paper/bottleneck-3600.yaml --steps 300 --backend cuda --no-output --quiet --final-state "$out/b2.csv"
if cmp -s "$out/b1.csv" "$out/b2.csv"; then echo "bottleneck-3600: $ngpu ranks == 1 rank (byte-identical, $(($(wc -l <"$out/b1.csv") - 1)) agents)"; else echo "bottleneck-3600: DIFFERENT"; fi

if [ "${SKIP_CTEST:-0}" != 1 ]; then
  echo "== ctest -L mpi (cuda backend)"
  ctest --test-dir build-gpu -L mpi --output-on-failure 2>&1 | tee "$out/ctest-mpi.log" | tail -12
fi

echo "== scaling"
bench() { # ranks scenario steps
  $mpi -n "$1" $bin/throng-bench --backend cuda --steps "$3" --warmup 3 "$2" | tail -n 1
}
{
  echo "kind,$($bin/throng-bench 2>&1 | head -0; echo scenario,backend,ranks,agents,steps,seconds,agent_steps_per_s,ms_per_step,synced_ms_per_step,predict_ms,grid_ms,stability_ms,long_range_ms,contact_ms,velocity_ms,xsph_ms,halo_ms,migrate_ms,memory_bytes_per_agent)"
  for pg in $per; do
    g=1
    while [ $g -le "$ngpu" ]; do
      python3 bench/make_evacuation.py $((pg * g)) "$out/weak-$g.yaml"
      echo "weak,$(bench $g "$out/weak-$g.yaml" 30)"
      g=$((g * 2))
    done
  done
  python3 bench/make_evacuation.py "$strong" "$out/strong.yaml"
  g=1
  while [ $g -le "$ngpu" ]; do
    echo "strong,$(bench $g "$out/strong.yaml" 30)"
    g=$((g * 2))
  done
} 2>&1 | tee "$out/scaling.csv"
