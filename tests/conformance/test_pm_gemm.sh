#!/bin/sh
# The GEMM and convolution perf models (core/src/perf/pm_gemm.c, pm_conv.c)
# against every row of TraceLens's golden GEMM, CONV_fwd and CONV_bwd sheets
# that has its trace: the same sheet, parameters, GFLOPS, Data Moved and
# Compute Spec.
. "$(dirname "$0")/../taplib.sh"

BUILD=${TLREPLAY_BUILD:-$ROOT/build}
PM_DUMP=$BUILD/tests/tools/pm_dump
GOLD=$SHARED/traces/TraceLens/tests/traces

if [ ! -d "$GOLD" ]; then
	echo "1..0 # SKIP no ../shared/traces"
	exit 0
fi
if [ ! -x "$PM_DUMP" ]; then
	echo "1..0 # SKIP $PM_DUMP not built (make $PM_DUMP)"
	exit 0
fi

# the trace a golden dir describes (as tests/conformance/test_golden.sh)
trace_for() {
	case "$1" in
	*/perf_csvs) ls "$(dirname "$1")"/*.json.gz 2>/dev/null | head -1 ;;
	*_recompute_perf_report_csvs) echo "${1%_recompute_perf_report_csvs}.json.gz" ;;
	*_perf_report_csvs) echo "${1%_perf_report_csvs}.json.gz" ;;
	esac
}

# compare_pm.py prints "ok - ..." / "not ok - ..." and "# " lines
tap_lines() {
	while IFS= read -r line; do
		case "$line" in
		"ok - "*) TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $2${line#ok - }" ;;
		"not ok - "*)
			TAP_N=$((TAP_N + 1))
			TAP_FAILED=$((TAP_FAILED + 1))
			echo "not ok $TAP_N - $2${line#not ok - }"
			;;
		*) echo "$line" ;;
		esac
	done <"$1"
}

n=0
for d in $(find "$GOLD" -type d \( -name '*_perf_report_csvs' -o -name perf_csvs \) | sort); do
	rel=${d#"$GOLD"/}
	sheets=
	for s in GEMM CONV_fwd CONV_bwd; do
		[ -f "$d/$s.csv" ] && sheets="$sheets $s"
	done
	[ -n "$sheets" ] || continue
	t=$(trace_for "$d")
	case "$rel" in
	compare_test_e2e/reference/*_perf_report_csvs)
		# TraceLens's compare-report inputs sit apart from any trace;
		# their sheets are those of the Qwen1.5-0.5B run on the same
		# GPU (byte for byte, checked here), so that is their trace
		p=${rel#compare_test_e2e/reference/}
		p=${p%_perf_report_csvs}
		q=$GOLD/$p/Qwen_Qwen1.5-0.5B-Chat__1016005_perf_report_csvs
		t=$GOLD/$p/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz
		for s in $sheets; do
			cmp -s "$d/$s.csv" "$q/$s.csv" || t=
		done
		;;
	esac
	if [ ! -f "$t" ]; then
		TAP_N=$((TAP_N + 1))
		echo "ok $TAP_N # SKIP $rel:$sheets: no trace known for it"
		continue
	fi
	n=$((n + 1))
	for s in $sheets; do
		"$PYTHON" "$ROOT/tests/conformance/compare_pm.py" "$PM_DUMP" "$t" "$d" "$s" >"$TMP/res" 2>&1
		tap_lines "$TMP/res" "$(dirname "$rel")/"
	done
done
done_testing
