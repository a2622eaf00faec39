#!/bin/bash
# Submit an ensemble study: a job array with one task per row of the manifest
# (jobs/ensemble.sbatch) and, after all of them, the aggregation
# (jobs/ensemble-aggregate.sbatch).
#   jobs/submit-ensemble.sh MANIFEST.csv OUT [sbatch options for the runs...]
#   jobs/submit-ensemble.sh configs/evacuation/ensemble-example.csv out/study --ntasks=2 --time=00:20:00
# Prints the two job ids. THRONG, EXTRA_ARGS and SRUN_MPI pass through to the runs.
# See docs/slurm.md.
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 MANIFEST.csv OUT [sbatch options for the runs...]" >&2; exit 2; }
manifest=$1 out=$2
shift 2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
n=$(python3 "$here/../scripts/ensemble.py" count "$manifest") # checks the manifest: exit 2 naming the bad line
mkdir -p "$out"
out=$(cd "$out" && pwd)
cp "$manifest" "$out/manifest.csv"
export MANIFEST=$out/manifest.csv OUT=$out
# the jobs run in the submit directory: scenarios, build/bin/throng and scripts/ relative to it
mkdir -p "$out/logs"
# logs in the study's directory (options given after MANIFEST OUT come later and win)
runs=$(sbatch --parsable --array=1-"$n" --output="$out/logs/run-%A_%a.log" "$@" "$here/ensemble.sbatch")
agg=$(sbatch --parsable --dependency=afterany:"$runs" --output="$out/logs/aggregate-%j.log" \
  "$here/ensemble-aggregate.sbatch")
echo "runs: job array $runs (1-$n); aggregation: job $agg; results in $out/summary.md"
