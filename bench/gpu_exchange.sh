#!/usr/bin/env bash
# The once-per-step exchange on several GPUs of one node (issue 34), in one
# call of the GPU machine. Phases (any of them, in this order):
#   check  ranks = 1 rank byte for byte (bottleneck-3600, 300 steps, on 2
#          and on every GPU, NCCL with the device exchange and through the
#          host), ctest -L mpi (CUDA backend, one GPU per rank up to the
#          GPU count), then gputests;
#   gputests  ctest -L gpu in a strict build (CPU = CUDA byte for byte,
#          and the gpu.mpi.* runs on up to 4 GPUs);
#   ab     weak scaling of the evacuation benchmark, PER_GPU agents per GPU
#          on 1, 2, 4, ... GPUs, for the baseline tree BASE (a), this tree
#          with the exchange through the host (THRONG_DEVICE_EXCHANGE=0, h)
#          and this tree (d), alternating, one run each;
#   big    BIG agents on every GPU (default 10^8), this tree;
#   table  bench/perf_table.py GPU rows (gpu1, weak, strong) of both trees.
# Usage: bench/gpu_exchange.sh BASE_DIR PHASE... ; PER_GPU ("2000000
# 10000000") and BIG set the sizes, THRONG_HALO_TRANSPORT (auto) the transport, BASE_COMMIT and THIS_COMMIT name the
# trees in the table's rows. Needs .deps/ (libyaml). Logs in $OUT.
set -uo pipefail
base=${1:?usage: bench/gpu_exchange.sh BASE_DIR PHASE...}
shift
phases=" $* "
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
source "$(dirname "$0")/gpu_deps.sh"
export OMPI_MCA_rmaps_base_oversubscribe=1
ngpu=$(nvidia-smi -L | wc -l)
export THRONG_DEVICE_EXCHANGE=${THRONG_DEVICE_EXCHANGE:-1} THRONG_HALO_TRANSPORT=${THRONG_HALO_TRANSPORT:-auto}
mpi="mpirun --bind-to none -x LD_LIBRARY_PATH -x THRONG_DEVICE_EXCHANGE -x THRONG_HALO_TRANSPORT -x OMPI_MCA_rmaps_base_oversubscribe"
jobs=$(( $(nproc) / 3 ))
build() { gpu_build "$1" "$2" $jobs "${@:3}"; } # source dir, build dir, extra CMake args
t0=$SECONDS
build . build-gpu &
[[ $phases == *" check "* || $phases == *" gputests "* ]] && build . build-strict -DTHRONG_STRICT_FP=ON &
[[ $phases == *" ab "* || $phases == *" table "* ]] && build "$base" build-gpu &
wait
echo "builds: $((SECONDS - t0)) s; $ngpu x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
bin=build-gpu/bin

if [[ $phases == *" check "* ]]; then
  t0=$SECONDS
  cfg=configs/paper/bottleneck-3600.yaml
  $bin/throng run $cfg --steps 300 --backend cuda --no-output --quiet --final-state "$out/b1.csv"
  for n in $(printf "%s\n" 2 "$ngpu" | sort -un); do
    for dx in 1 0; do
      THRONG_DEVICE_EXCHANGE=$dx THRONG_DECOMP_VERBOSE=1 $mpi -n "$n" $bin/throng run $cfg --steps 300 --backend cuda \
        --no-output --quiet --final-state "$out/b$n-$dx.csv" 2>"$out/b$n-$dx.err"
      how=$(grep -m1 -o "halo transport.*" "$out/b$n-$dx.err")
      if cmp -s "$out/b1.csv" "$out/b$n-$dx.csv"; then r="byte-identical to 1 rank"; else r=DIFFERENT; fi
      echo "bottleneck-3600, $n ranks ($how): $r ($(($(wc -l <"$out/b1.csv") - 1)) agents)"
    done
  done
  ctest --test-dir build-gpu -L mpi --output-on-failure -j2 >"$out/ctest-mpi.log" 2>&1
  grep -E 'tests passed|\*\*\*Failed|Failed  ' "$out/ctest-mpi.log" | tail -8
  echo "check: $((SECONDS - t0)) s"
fi
if [[ $phases == *" check "* || $phases == *" gputests "* ]]; then
  t0=$SECONDS
  OMP_WAIT_POLICY=passive OMP_NUM_THREADS=4 \
    ctest --test-dir build-strict -L gpu --output-on-failure -j4 >"$out/ctest-gpu-strict.log" 2>&1
  grep -E 'tests passed|\*\*\*Failed|Failed  ' "$out/ctest-gpu-strict.log" | tail -8
  echo "gputests: $((SECONDS - t0)) s"
fi

bench() { # tree-dir ranks scenario steps
  $mpi -n "$2" "$1/build-gpu/bin/throng-bench" --backend cuda --steps "$4" --warmup 3 "$3" | tail -n 1
}
if [[ $phases == *" ab "* ]]; then
  t0=$SECONDS
  {
    echo "tree,scenario,backend,ranks,agents,steps,seconds,agent_steps_per_s,ms_per_step,synced_ms_per_step,predict_ms,grid_ms,stability_ms,long_range_ms,contact_ms,velocity_ms,xsph_ms,halo_ms,migrate_ms,memory_bytes_per_agent"
    for pg in ${PER_GPU:-2000000 10000000}; do
      g=1
      while [ $g -le "$ngpu" ]; do
        python3 bench/make_evacuation.py $((pg * g)) "$out/weak-$pg-$g.yaml"
        steps=30; [ "$pg" -ge 10000000 ] && steps=20
        if [ $g = 1 ]; then
          echo "d,$(bench . 1 "$out/weak-$pg-$g.yaml" $steps)"
        else
          echo "a,$(bench "$base" $g "$out/weak-$pg-$g.yaml" $steps)"
          echo "h,$(THRONG_DEVICE_EXCHANGE=0 bench . $g "$out/weak-$pg-$g.yaml" $steps)"
          echo "d,$(bench . $g "$out/weak-$pg-$g.yaml" $steps)"
        fi
        g=$((g * 2))
      done
    done
  } 2>&1 | tee "$out/exchange-ab.csv"
  echo "ab: $((SECONDS - t0)) s"
fi

if [[ $phases == *" big "* ]]; then
  t0=$SECONDS
  n=${BIG:-100000000}
  python3 bench/make_evacuation.py "$n" "$out/big.yaml"
  echo "big: $(bench . "$ngpu" "$out/big.yaml" 10)"
  echo "big: $((SECONDS - t0)) s"
fi

if [[ $phases == *" table "* ]]; then
  t0=$SECONDS
  for t in "$base" .; do
    c=${THIS_COMMIT:-this}; [ "$t" = . ] || c=${BASE_COMMIT:-base}
    THRONG_COMMIT=$c python3 bench/perf_table.py --bench "$t/build-gpu/bin/throng-bench" \
      --only gpu1,weak,strong --table "$out/perf-runs.csv" 2>&1 | tail -12
  done
  echo "table: $((SECONDS - t0)) s"
fi
