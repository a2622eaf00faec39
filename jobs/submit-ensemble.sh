#!/bin/bash
# Submit an ensemble study: a job array with one task per row of the manifest
# (jobs/ensemble.sbatch) and, after all of them, the aggregation
# (jobs/ensemble-aggregate.sbatch).
#   jobs/submit-ensemble.sh MANIFEST.csv OUT [sbatch options for the runs...]
#   jobs/submit-ensemble.sh configs/evacuation/ensemble-example.csv out/study --ntasks=2 --time=00:20:00
# Prints the two job ids. THRONG, EXTRA_ARGS and SRUN_MPI pass through to the runs; of the
# sbatch options, --account, --partition, --qos, --reservation and --clusters (-A, -p, -q, -M)
# go to the aggregation job too.
# See docs/slurm.md.
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 MANIFEST.csv OUT [sbatch options for the runs...]" >&2; exit 2; }
manifest=$1 out=$2
shift 2
[[ $out == /* ]] || out=$PWD/$out # absolute: the jobs' directory, and never an option of mkdir or cd
# the logs' names carry Slurm's %A and %a, which Slurm does not replace in a
# name with a backslash: such an OUT cannot be named (a % is written %%)
[[ $out != *\\* ]] || { echo "$0: OUT '$out' has a backslash: Slurm's --output cannot name its logs" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
n=$(python3 "$here/../scripts/ensemble.py" count "$manifest") # checks the manifest: exit 2 naming the bad line
mkdir -p "$out"
out=$(cd "$out" && pwd)
cp -- "$manifest" "$out/manifest.csv"
# the jobs' settings go in sbatch's environment, which --export=ALL copies as
# it is (never --export=ALL,NAME=VALUE: Slurm splits values at commas)
export MANIFEST=$out/manifest.csv OUT=$out
# the jobs run in the submit directory: scenarios, build/bin/throng and scripts/ relative to it
mkdir -p "$out/logs"
logs=${out//%/%%}/logs
# logs in the study's directory (options given after MANIFEST OUT come later and win)
runs=$(sbatch --parsable --export=ALL --array=1-"$n" --output="$logs/run-%A_%a.log" "$@" "$here/ensemble.sbatch")
# where any job of the study may run (account, partition, QOS, reservation, cluster) goes to the
# aggregation too: a cluster that requires an account refuses a job without one
agg_opts=()
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case ${args[i]} in
    --account=* | --partition=* | --qos=* | --reservation=* | --clusters=* | --cluster=* | -A?* | -p?* | -q?* | -M?*)
      agg_opts+=("${args[i]}") ;;
    --account | --partition | --qos | --reservation | --clusters | --cluster | -A | -p | -q | -M)
      agg_opts+=("${args[i]}")
      if ((i + 1 < ${#args[@]})); then
        i=$((i + 1))
        agg_opts+=("${args[i]}")
      fi ;;
  esac
done
agg=$(sbatch --parsable --export=ALL --dependency=afterany:"$runs" --output="$logs/aggregate-%j.log" \
  ${agg_opts[@]+"${agg_opts[@]}"} "$here/ensemble-aggregate.sbatch")
echo "runs: job array $runs (1-$n); aggregation: job $agg; results in $out/summary.md"
