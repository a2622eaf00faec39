#!/usr/bin/env bash
# A/B comparison on the GPU machine, in one call: the evacuation benchmark
# for this tree (build-gpu) and a baseline tree (BASE/build-gpu), alternating
# A B A B at each size so that both see the same card in the same state.
# Prints the CSV rows of throng-bench with a first column `tree` (a or b),
# then the median ms/step of each tree and size with the ratio b/a.
# Builds what is missing (needs .deps/ with libyaml .deb files, as
# bench/gpu_session.sh). Logs in $OUT (or ./gpu-out).
# Usage: bench/gpu_ab.sh BASE_DIR [SIZES...]   (default sizes 1000000 10000000)
set -uo pipefail
base=${1:?usage: bench/gpu_ab.sh BASE_DIR [SIZES...]}
shift
sizes=${*:-"1000000 10000000"}
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
if ls .deps/*.deb >/dev/null 2>&1; then
  for f in .deps/*.deb; do dpkg -x "$f" /opt/deps; done
  export CMAKE_PREFIX_PATH=/opt/deps/usr LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi
build() { # source dir
  [ -x "$1/build-gpu/bin/throng-bench" ] && return 0
  cmake -S "$1" -B "$1/build-gpu" -G Ninja -DTHRONG_CUDA=ON -DTHRONG_HDF5=OFF >"$out/cfg-ab-$2.log" 2>&1 &&
    cmake --build "$1/build-gpu" -j "$(nproc)" >"$out/build-ab-$2.log" 2>&1
}
build . a & build "$base" b & wait
for t in . "$base"; do [ -x "$t/build-gpu/bin/throng-bench" ] || { echo "build of $t failed"; exit 1; }; done
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
{
  header=1
  for n in $sizes; do
    python3 bench/make_evacuation.py "$n" "$out/ab-$n.yaml"
    steps=50; [ "$n" -ge 10000000 ] && steps=20
    for rep in 1 2; do
      for t in a b; do
        dir=.; [ $t = b ] && dir=$base
        "$dir/build-gpu/bin/throng-bench" --backend cuda --steps $steps --warmup 3 "$out/ab-$n.yaml" |
          { if [ $header = 1 ]; then sed '1s/^/tree,/;2,$s/^/'$t',/'; else tail -n +2 | sed 's/^/'$t',/'; fi; }
        header=0
      done
    done
  done
} 2>&1 | tee "$out/ab.csv"
python3 - "$out/ab.csv" <<'PY'
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r.get("tree") in ("a", "b")]
for n in sorted({int(r["agents"]) for r in rows}):
    ms = {t: statistics.median(float(r["ms_per_step"]) for r in rows if r["tree"] == t and int(r["agents"]) == n)
          for t in ("a", "b")}
    print("agents %d: a (this tree) %.3f ms/step, b (baseline) %.3f ms/step, a/b = %.4f" % (n, ms["a"], ms["b"], ms["a"] / ms["b"]))
PY
