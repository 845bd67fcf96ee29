#!/bin/sh
# TraceLens conformance of the attention perf models (core/src/perfmodel/pm_sdpa*.c):
# every golden SDPA_fwd, SDPA_bwd and InferenceAttention_fwd sheet in
# ../shared/traces/TraceLens, row by row, through pm_dump and compare_pm.py
# (parameters, GFLOPS, Data Moved, Compute Spec).
. "$(dirname "$0")/../taplib.sh"

GOLD=$SHARED/traces/TraceLens/tests/traces
BUILD=${TLREPLAY_BUILD:-$ROOT/build}
PM_DUMP=$BUILD/tests/tools/pm_dump
if [ ! -d "$GOLD" ]; then
	echo "1..0 # SKIP $GOLD absent (../shared is not beside the checkout)"
	exit 0
fi
if [ ! -x "$PM_DUMP" ]; then
	echo "1..0 # SKIP $PM_DUMP not built (make $PM_DUMP)"
	exit 0
fi

# golden dir -> the trace it describes
trace_for() {
	d=$1
	case "$d" in
	# TraceLens's report comparison test keeps the reports of the Qwen traces
	# it compares (same UIDs and rows as h100|mi300/Qwen..._perf_report_csvs)
	*/compare_test_e2e/reference/h100_perf_report_csvs)
		echo "$GOLD/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" ;;
	*/compare_test_e2e/reference/mi300_perf_report_csvs)
		echo "$GOLD/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" ;;
	# inference reports: the trace beside perf_csvs (graph_execution.json.gz
	# for vLLM); compare_pm.py merges the capture_traces folder when there is one
	*/perf_csvs) ls "$(dirname "$d")"/*.json.gz 2>/dev/null | head -1 ;;
	*_perf_report_csvs) echo "${d%_perf_report_csvs}.json.gz" ;;
	esac
}

for d in $(find "$GOLD" -type d \( -name '*_perf_report_csvs' -o -name perf_csvs \) | sort); do
	rel=${d#"$GOLD"/}
	for sheet in SDPA_fwd SDPA_bwd InferenceAttention_fwd; do
		[ -f "$d/$sheet.csv" ] || continue
		t=$(trace_for "$d")
		if [ ! -f "$t" ]; then
			TAP_N=$((TAP_N + 1))
			TAP_FAILED=$((TAP_FAILED + 1))
			echo "not ok $TAP_N - $rel/$sheet: no trace for it"
			continue
		fi
		"$PYTHON" "$ROOT/tests/conformance/compare_pm.py" "$PM_DUMP" "$t" "$d" "$sheet" >"$TMP/res" 2>&1
		rc=$?
		TAP_N=$((TAP_N + 1))
		if [ $rc -eq 0 ]; then
			echo "ok $TAP_N - $rel/$sheet: $(sed -n 's/^ok - [^:]*: //p' "$TMP/res")"
			continue
		fi
		TAP_FAILED=$((TAP_FAILED + 1))
		echo "not ok $TAP_N - $rel/$sheet"
		sed 's/^/# /' "$TMP/res" >&2
	done
done
done_testing
