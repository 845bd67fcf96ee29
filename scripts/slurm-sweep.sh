#!/bin/bash
# A tlreplay sweep spread over a SLURM job array: each array task sweeps its
# share of the ops (--shard K/N) into its own results store, and a last job,
# once the array is done, merges the stores, draws the chart and folds the
# results into a copy of the trace. A task that runs out of time can be
# resubmitted: it skips what its store already holds.
#
#   scripts/slurm-sweep.sh TRACE OUTDIR [TASKS] [-- extra sweep options]
#
# e.g. scripts/slurm-sweep.sh run.json.gz sweep-out 8 -- --top 64 --device cuda \
#        -e '{cycles,instructions}' -e 'nvgpu/dram__bytes_read.sum/'
# Environment: TLREPLAY (default: tlreplay in PATH), SBATCH_ARGS (partition,
# account, time...: passed to both sbatch calls).
set -euo pipefail

if [ $# -lt 2 ]; then
	sed -n '2,15p' "$0" >&2
	exit 2
fi
trace=$(realpath "$1")
out=$(realpath -m "$2")
tasks=${3:-4}
shift $(($# >= 3 ? 3 : 2))
[ "${1:-}" = "--" ] && shift
extra=("$@")
tl=${TLREPLAY:-$(command -v tlreplay)}
[ -x "$tl" ] || { echo "slurm-sweep: no tlreplay (set TLREPLAY)" >&2; exit 1; }
[ -f "$trace" ] || { echo "slurm-sweep: $trace: no such trace" >&2; exit 1; }
mkdir -p "$out"

# one sweep per array task, each with its own store (no locking across nodes)
# (the task id is expanded when the task runs, on its node)
array=$(sbatch --parsable ${SBATCH_ARGS:-} --array=0-$((tasks - 1)) --job-name=tlreplay-sweep \
	--output="$out/sweep-%a.log" --wrap="$(printf '%q ' "$tl" sweep -i "$trace" "${extra[@]}") \
--shard \$SLURM_ARRAY_TASK_ID/$tasks --store $(printf '%q' "$out")/results-\$SLURM_ARRAY_TASK_ID.jsonl")
echo "slurm-sweep: array job $array ($tasks tasks), stores in $out/results-*.jsonl"

# after every task (even failed ones: partial stores still count), merge the
# stores (whole records only: a torn last line of a killed task is left out)
# and run the sweep once more on the merged store: everything is in it, so it
# only draws the chart and folds (and runs whatever a failed task left undone).
merge_cmd="set -e; : > $(printf '%q' "$out/merged.jsonl")
for f in $(printf '%q' "$out")/results-*.jsonl; do head -n \"\$(wc -l < \"\$f\")\" \"\$f\" >> $(printf '%q' "$out/merged.jsonl"); done
$(printf '%q ' "$tl" sweep -i "$trace" --store "$out/merged.jsonl" --chart "$out/chart.png" \
	-o "$out/folded.json.gz" "${extra[@]}")"
merge=$(sbatch --parsable ${SBATCH_ARGS:-} --dependency="afterany:$array" --job-name=tlreplay-merge \
	--output="$out/merge.log" --wrap="$merge_cmd")
echo "slurm-sweep: merge job $merge -> $out/merged.jsonl, $out/chart.png, $out/folded.json.gz"
