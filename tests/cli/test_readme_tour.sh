#!/bin/sh
# The README's tour as a newcomer pastes it (issue 29: "a walk through the README's tour on the
# shared traces meets no error that the tool could have avoided"): every `$ ` line of "A short
# tour", in order, in one folder where trace.json.gz is a shared H100 trace (h100.json.gz too),
# mi300.json.gz a shared MI300 one, profiles/ the hand-made rank traces and rank3.json.gz one of
# them. What needs a GPU, a CUDA program to record or a Python that is not here must end in one
# line that says so; everything else must work. Lines that have a test of their own and take
# minutes (sweep, stat, perf) are checked there: tests/replay/test_sweep.sh, test_stat.sh.
. "$(dirname "$0")/../taplib.sh"

H100=$SHARED/traces/TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz
MI300=$SHARED/traces/TraceLens/tests/traces/mi300/resnet_act_checkpoint.json.gz
if [ ! -f "$H100" ] || [ ! -f "$MI300" ]; then
	echo "1..0 # SKIP no ../shared traces"
	exit 0
fi
mkdir "$TMP/w" "$TMP/bin" && cd "$TMP/w" || exit 1
ln -s "$H100" trace.json.gz && ln -s "$H100" h100.json.gz && ln -s "$MI300" mi300.json.gz &&
	ln -s "$ROOT/tests/fixtures/ranks" profiles && ln -s "$ROOT/tests/fixtures/ranks/rank0.json" rank3.json.gz
# tlreplay on PATH, as the README has it after `make install`
ln -s "$TLREPLAY" "$TMP/bin/tlreplay"
export PATH="$TMP/bin:$PATH" TLREPLAY_PYTHON="$PYTHON"

sed -n '/^## A short tour/,/^## /p' "$ROOT/README.md" | sed -n 's/^    \$ //p' | sed 's/  *# .*//' >"$TMP/tour"
[ "$(grep -c . "$TMP/tour")" -ge 30 ] && grep -q '^tlreplay open trace.json.gz$' "$TMP/tour"
ok $? "the tour has $(grep -c . "$TMP/tour") command lines, the first remembering the trace"

fails=
n=0
while IFS= read -r c; do
	case $c in
	*sweep* | *"tlreplay stat "* | *"perf stat"*) continue ;; # their own tests; minutes on the CPU
	esac
	n=$((n + 1))
	sh -c "$c" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	case $c in
	*"--device cuda"* | *"--python ~/venv"* | *" record "* | *"gemm.kdb"*)
		# where there is no GPU, no such Python, no train.py: one line that names why, exit 1
		[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
			grep -q 'sees no CUDA/HIP device\|no such Python interpreter\|has no event with UID\|no kernel record database' "$TMP/err" ||
			fails="$fails [$c: rc $rc, $(head -c 200 "$TMP/err")]"
		;;
	*)
		[ "$rc" -eq 0 ] || fails="$fails [$c: rc $rc, $(tail -c 200 "$TMP/err")]"
		;;
	esac
done <"$TMP/tour"
[ -z "$fails" ] && [ "$n" -ge 25 ]
ok $? "each of the $n lines works as pasted, or says in one line what this machine lacks${fails:+: failed$fails}"
[ -s report/ops_summary.csv ] && [ -s report.xlsx ] && [ -s r.png ] && [ -s trace.html ] && [ -s cmp/ops_summary.csv ] &&
	[ -s d.png ] && [ -s ops.json ] && [ -s ops.zip ] && [ -s with-results.json.gz ] && [ -s waits.png ] &&
	[ -s sums/rank3.tlrank.jsonl ]
ok $? "what the tour writes is there: report/, report.xlsx, r.png, trace.html, cmp/, d.png, ops.json, ops.zip, with-results.json.gz, waits.png, sums/"
done_testing
