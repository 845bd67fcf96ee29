#!/bin/bash
# The ranks of a multi-rank job analysed on many machines with a SLURM job
# array, then merged (docs/multi-rank.md): each array task summarises its
# share of the trace files (`tlreplay summarize`, one small rank summary per
# trace, several traces at once on the task's cores), and a last job, once
# the array is done, runs breakdown and collectives on the summaries. No
# trace is read twice and no machine holds more than its share.
#
#   scripts/slurm-ranks.sh TRACEDIR OUTDIR [TASKS]
#
# e.g. scripts/slurm-ranks.sh /lustre/run42/profiles run42-ranks 16
# TRACEDIR holds one trace per rank (*.json, *.json.gz). Writes
# OUTDIR/summaries/*.tlrank.jsonl, then OUTDIR/breakdown.txt, breakdown.csv,
# collectives.txt, collectives.csv, collectives-summary.csv, stragglers.csv.
# Environment: TLREPLAY (default: tlreplay in PATH), SBATCH_ARGS (partition,
# account, time...: passed to both sbatch calls).
set -euo pipefail

if [ $# -lt 2 ]; then
	sed -n '2,17p' "$0" >&2
	exit 2
fi
traces=$(realpath "$1")
out=$(realpath -m "$2")
tasks=${3:-4}
tl=${TLREPLAY:-$(command -v tlreplay || true)}
[ -x "$tl" ] || { echo "slurm-ranks: no tlreplay (set TLREPLAY)" >&2; exit 1; }
[ -d "$traces" ] || { echo "slurm-ranks: $traces: not a directory" >&2; exit 1; }
mkdir -p "$out/summaries"

# the inputs, fixed at submission: task K takes lines K, K+TASKS, ...
find "$traces" -maxdepth 1 -type f \( -name '*.json' -o -name '*.json.gz' \) | sort -V >"$out/inputs.txt"
n=$(wc -l <"$out/inputs.txt")
[ "$n" -gt 0 ] || { echo "slurm-ranks: no *.json or *.json.gz in $traces" >&2; exit 1; }
[ "$tasks" -le "$n" ] || tasks=$n

# one summary per trace, named after it (ranks are only known once it is
# read; traces without one are numbered at the merge); xargs -P: the task's
# cores (each load also uses a helper thread on big traces)
task_cmd="awk -v k=\$SLURM_ARRAY_TASK_ID -v n=$tasks '(NR - 1) % n == k' $(printf '%q' "$out/inputs.txt") |
xargs -r -d '\\n' -P \"\$(nproc)\" -I{} sh -c 'f=\$1; $(printf '%q' "$tl") summarize -i \"\$f\" -o $(printf '%q' "$out/summaries")/\$(basename \"\$f\").tlrank.jsonl' _ {}"
array=$(sbatch --parsable ${SBATCH_ARGS:-} --array=0-$((tasks - 1)) --job-name=tlreplay-ranks \
	--output="$out/summarize-%a.log" --wrap="$task_cmd")
echo "slurm-ranks: array job $array ($tasks tasks, $n traces), summaries in $out/summaries"

# after every task (even failed ones: the ranks that were summarised still
# count, and the merge says how many there are)
q() { printf '%q' "$1"; }
S=$(q "$out/summaries")
T=$(q "$tl")
merge_cmd="set -u
got=\$(ls $S | grep -c '\\.tlrank\\.jsonl\$' || true)
[ \"\$got\" -eq $n ] || echo \"slurm-ranks: warning: \$got summaries for $n traces (see the summarize-*.log)\"
$T breakdown -i $S -o $(q "$out/breakdown.txt") && $T breakdown -i $S -x, -o $(q "$out/breakdown.csv") || exit 1
if $T collectives -i $S -o $(q "$out/collectives.txt"); then
	$T collectives -i $S -x, -o $(q "$out/collectives.csv")
	$T collectives -i $S --summary -x, -o $(q "$out/collectives-summary.csv")
	$T collectives -i $S --stragglers -x, -o $(q "$out/stragglers.csv")
fi"
merge=$(sbatch --parsable ${SBATCH_ARGS:-} --dependency="afterany:$array" --job-name=tlreplay-ranks-merge \
	--output="$out/merge.log" --wrap="$merge_cmd")
echo "slurm-ranks: merge job $merge -> $out/breakdown.txt, $out/collectives.txt and CSVs"
