#!/bin/sh
# The files `tlreplay split` writes load in TraceLens (issue 28.4): split-tracelens/ holds
# TraceLens's gpu_timeline of each file split from a few shared traces (made by
# scripts/make-split-tracelens.sh, which fails when TraceLens cannot load one). Here the same
# traces are split again: the same files, and `tlreplay breakdown` of each equal to what
# TraceLens made of it, byte for byte.
. "$(dirname "$0")/../taplib.sh"

G=$ROOT/tests/conformance/split-tracelens
S=$SHARED/traces
for c in "rank0 HolisticTraceAnalysis/tests/data/negative_queue_length_values_check/rank0.json.gz" \
	"sglang_prefilldecode TraceLens/tests/traces/inference/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz" \
	"vllm_piecewise TraceLens/tests/traces/inference/vllm_prefilldecode_piecewise/graph_execution.json.gz" \
	"owlv2_calltree TraceLens/tests/traces/h100/google_owlv2-large-patch14-ensemble__1016001.json.gz stripped"; do
	set -- $c
	name=$1
	in=$S/$2
	if [ ! -f "$in" ]; then
		skip "$in not found"
		continue
	fi
	if [ "${3:-}" = stripped ]; then
		strip_iterations "$in" "$TMP/in.json"
		in=$TMP/in.json
	fi
	rm -rf "$TMP/split"
	"$TLREPLAY" split -i "$in" -o "$TMP/split" >/dev/null 2>"$TMP/err"
	rc=$?
	want=$(cd "$G/$name" && ls | sed 's/\.gpu_timeline\.csv$//')
	got=$(cd "$TMP/split" && ls | grep -v '^manifest\.json$' | sed 's/\.json$//')
	fails=
	for p in $want; do
		"$TLREPLAY" breakdown -i "$TMP/split/$p.json" -x, >"$TMP/bd" 2>&1 && cmp -s "$TMP/bd" "$G/$name/$p.gpu_timeline.csv" ||
			fails="$fails $p"
	done
	[ $rc -eq 0 ] && [ "$got" = "$want" ] && [ -z "$fails" ]
	ok $? "$name: split into $(echo "$want" | wc -l) file(s), each one's breakdown TraceLens's gpu_timeline of it${fails:+ (differ:$fails)}"
	[ -n "$fails" ] && diag "$(diff "$TMP/bd" "$G/$name/${fails##* }.gpu_timeline.csv")"
done

done_testing
