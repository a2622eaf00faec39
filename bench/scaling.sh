#!/usr/bin/env bash
# Strong and weak scaling of throng over MPI ranks (CPU backend by default).
#
#   bench/scaling.sh [--ranks "1 2 4"] [--steps N] [--warmup W] [--threads T]
#                    [--backend cpu|cuda] [--strong SCENARIO.yaml] [--weak-agents N] [--yield]
#
# Runs build/bin/throng-bench under mpirun for each rank count and prints CSV:
#   kind,scenario,ranks,agents,steps_per_s,agent_steps_per_s,efficiency,halo_migrate_share
# strong: one scenario (default configs/paper/dense-passing-high-lr.yaml,
#         10,032 agents) on every rank count; efficiency = speed-up / ranks.
# weak:   a generated crowd of N agents per rank (default 2,500) in a world
#         that grows with the rank count (one 84 m x 52 m tile per rank, agents
#         walking +x so that some migrate); efficiency = steps/s on P ranks /
#         steps/s on 1 rank.
# halo_migrate_share = (halo_ms + migrate_ms) / ms_per_step of rank 0: the
# fraction of a step spent forwarding ghost fields, migrating and selecting
# ghosts (load balancing included).
#
# Environment: BUILD (default <repo>/build), MPIEXEC (default mpirun).
# OMP_NUM_THREADS is set to --threads (default 1) for every rank. With more
# ranks x threads than cores the ranks share cores and efficiency drops:
# say so when you quote figures. Waiting MPI ranks spin; on a machine shared
# with other work, --yield (Open MPI: mpi_yield_when_idle) makes them give
# the core away instead. The load average is printed on stderr.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
BENCH=$BUILD/bin/throng-bench
MPIEXEC=${MPIEXEC:-mpirun}
RANKS="1 2 4"
STEPS=100
WARMUP=10
THREADS=1
BACKEND=cpu
STRONG=$ROOT/configs/paper/dense-passing-high-lr.yaml
WEAK_AGENTS=2500
YIELD=0

while [ $# -gt 0 ]; do
  case "$1" in
    --ranks) RANKS=$2; shift 2 ;;
    --steps) STEPS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --backend) BACKEND=$2; shift 2 ;;
    --strong) STRONG=$2; shift 2 ;;
    --weak-agents) WEAK_AGENTS=$2; shift 2 ;;
    --yield) YIELD=1; shift ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "scaling.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$BENCH" ] || { echo "scaling.sh: $BENCH not found; build first (cmake --build build)" >&2; exit 2; }

MPIFLAGS=()
if "$MPIEXEC" --version 2>/dev/null | grep -q -E "Open MPI|OpenRTE"; then
  MPIFLAGS+=(--oversubscribe --bind-to none)
  [ "$(id -u)" = 0 ] && MPIFLAGS+=(--allow-run-as-root)
  [ "$YIELD" = 1 ] && MPIFLAGS+=(--mca mpi_yield_when_idle 1)
fi
[ -r /proc/loadavg ] && echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores" >&2
export OMP_NUM_THREADS=$THREADS

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# One throng-bench row (no header) for `ranks` ranks and a scenario.
bench_row() {
  local ranks=$1 scenario=$2
  "$MPIEXEC" -n "$ranks" "${MPIFLAGS[@]}" "$BENCH" --steps "$STEPS" --warmup "$WARMUP" --backend "$BACKEND" \
    "$scenario" | tail -n 1
}

# The header of throng-bench, to find columns by name.
HEADER=$("$MPIEXEC" -n 1 "${MPIFLAGS[@]}" "$BENCH" --steps 1 --warmup 0 --backend "$BACKEND" "$STRONG" | head -n 1)

# kind, row, reference steps/s (empty for the first) -> CSV line; prints steps/s on fd 3
summarise() {
  local kind=$1 row=$2 ref=$3
  awk -F, -v header="$HEADER" -v kind="$kind" -v ref="$ref" '
    BEGIN { n = split(header, h, ","); for (i = 1; i <= n; ++i) col[h[i]] = i }
    {
      ranks = $col["ranks"]; ms = $col["ms_per_step"]; sps = ms > 0 ? 1000.0 / ms : 0
      share = ms > 0 ? ($col["halo_ms"] + $col["migrate_ms"]) / ms : 0
      if (ref == "") eff = 1.0
      else if (kind == "strong") eff = sps / (ref * ranks)
      else eff = sps / ref
      printf "%s,%s,%d,%d,%.2f,%.4g,%.3f,%.3f\n", kind, $col["scenario"], ranks, $col["agents"], sps,
             $col["agent_steps_per_s"], eff, share
    }' <<<"$row"
}

# A crowd of WEAK_AGENTS agents per rank: one 84 m x 52 m tile per rank.
weak_scenario() {
  local ranks=$1 file=$2
  local rows=40 cols=$(( (WEAK_AGENTS * ranks + 39) / 40 ))
  local width=$(( 84 * ranks ))
  local xmax
  xmax=$(awk -v c="$cols" 'BEGIN { printf "%.2f", 2 + (c - 1) * 1.2 }')
  if awk -v x="$xmax" -v w="$width" 'BEGIN { exit !(x > w - 6) }'; then
    echo "scaling.sh: --weak-agents $WEAK_AGENTS does not fit an 84 m x 52 m tile per rank" >&2
    exit 2
  fi
  cat >"$file" <<EOF
name: weak-$ranks
seed: 5
world: {min: [0, 0], max: [$width, 52]}
agents:
  - name: crowd
    layout: grid
    min: [2, 2.6]
    max: [$xmax, 49.4]
    rows: $rows
    cols: $cols
    count: $(( WEAK_AGENTS * ranks ))
    jitter: 0.05
    goal: {offset: [6, 0]}
output: {trajectory_every: 0, metrics_every: 0}
EOF
}

echo "kind,scenario,ranks,agents,steps_per_s,agent_steps_per_s,efficiency,halo_migrate_share"
ref=""
for p in $RANKS; do
  row=$(bench_row "$p" "$STRONG")
  line=$(summarise strong "$row" "$ref")
  echo "$line"
  [ -z "$ref" ] && ref=$(cut -d, -f5 <<<"$line")
done
ref=""
for p in $RANKS; do
  weak_scenario "$p" "$TMP/weak-$p.yaml"
  row=$(bench_row "$p" "$TMP/weak-$p.yaml")
  line=$(summarise weak "$row" "$ref")
  echo "$line"
  [ -z "$ref" ] && ref=$(cut -d, -f5 <<<"$line")
done
[ -r /proc/loadavg ] && echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
