#!/bin/sh
# The elementwise and reduce perf models (core/src/perf/pm_eltwise.c,
# pm_reduce.c) against every row of TraceLens's golden UnaryElementwise,
# BinaryElementwise, Reduce_fwd and Reduce_bwd sheets that has its trace:
# the same sheet, parameters, GFLOPS, Data Moved and Compute Spec.
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
	for s in UnaryElementwise BinaryElementwise Reduce_fwd Reduce_bwd; do
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
	# compare_pm.py merges the graph-capture traces beside the trace first,
	# as TraceLens's inference report does
	dump=$PM_DUMP
	n=$((n + 1))
	for s in $sheets; do
		src=$d
		if [ "$s" = Reduce_bwd ]; then
			# Reduce_bwd lists forward reduce calls that have linked
			# backward ops, with aten_reduce's backward FLOPs and bytes,
			# which equal the forward ones: the class's one sheet is
			# Reduce_fwd, so the rows are held against it under that name
			src=$TMP/bwd.$n/$(basename "$d")
			mkdir -p "$src"
			cp "$d/Reduce_bwd.csv" "$src/Reduce_fwd.csv"
			"$PYTHON" "$ROOT/tests/conformance/compare_pm.py" "$dump" "$t" "$src" Reduce_fwd >"$TMP/res" 2>&1
			tap_lines "$TMP/res" "(Reduce_bwd.csv as Reduce_fwd) $(dirname "$rel")/"
			continue
		fi
		"$PYTHON" "$ROOT/tests/conformance/compare_pm.py" "$dump" "$t" "$src" "$s" >"$TMP/res" 2>&1
		tap_lines "$TMP/res" "$(dirname "$rel")/"
	done
done
done_testing
