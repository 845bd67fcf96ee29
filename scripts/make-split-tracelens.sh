#!/bin/sh
# Remake tests/conformance/split-tracelens/: TraceLens's gpu_timeline of every file that
# `tlreplay split` writes for a few shared traces (issue 28.4: each file loadable by TraceLens),
# for test_split_tracelens.sh, which splits them again and checks `tlreplay breakdown` of each
# file against it. A file TraceLens cannot load has no golden, and this script fails.
# What made the committed copy: TraceLens 171dd74721ca (`fetch github:AMD-AGI/TraceLens`, then
# `git archive HEAD TraceLens`), Debian 12's python3-pandas 1.5.3 and python3-numpy 1.24.2.
# Usage: scripts/make-split-tracelens.sh TRACELENS_SRC [SHARED] [TLREPLAY]
set -u
src=${1:?usage: make-split-tracelens.sh TRACELENS_SRC [SHARED] [TLREPLAY]}
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${2:-$root/../shared}
tl=${3:-$root/build/tlreplay}
out=$root/tests/conformance/split-tracelens
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PYTHON=/usr/bin/python3
# the cases: NAME TRACE [stripped]; stripped: its iteration annotations taken out first, so
# that the split follows the loop found in the call tree
cases="rank0 traces/HolisticTraceAnalysis/tests/data/negative_queue_length_values_check/rank0.json.gz
sglang_prefilldecode traces/TraceLens/tests/traces/inference/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz
vllm_piecewise traces/TraceLens/tests/traces/inference/vllm_prefilldecode_piecewise/graph_execution.json.gz
owlv2_calltree traces/TraceLens/tests/traces/h100/google_owlv2-large-patch14-ensemble__1016001.json.gz stripped"
rm -rf "$out"
mkdir -p "$out"
status=0
echo "$cases" | while read -r name trace how; do
	in=$shared/$trace
	if [ "$how" = stripped ]; then
		"$PYTHON" "$root/tests/strip_iterations.py" "$in" "$tmp/in.json" || exit 1
		in=$tmp/in.json
	fi
	rm -rf "$tmp/split"
	"$tl" split -i "$in" -o "$tmp/split" >/dev/null || exit 1
	mkdir -p "$out/$name"
	for part in "$tmp"/split/*.json; do
		p=$(basename "$part" .json)
		[ "$p" = manifest ] && continue
		rm -rf "$tmp/r"
		if PYTHONPATH=$src "$PYTHON" -m TraceLens.Reporting.generate_perf_report_pytorch \
			--profile_json_path "$part" --output_csvs_dir "$tmp/r" >"$tmp/log" 2>&1; then
			cp "$tmp/r/gpu_timeline.csv" "$out/$name/$p.gpu_timeline.csv"
			echo "$name/$p: TraceLens loaded it"
		else
			echo "$name/$p: TraceLens failed: $(tail -1 "$tmp/log")" >&2
			exit 1
		fi
	done
done || status=1
exit $status
