# Sourced by the perf-model conformance scripts (test_pm_eltred.sh,
# test_pm_gemm.sh) after taplib.sh: PM_DUMP and GOLD (skipping the whole
# script when either is missing), trace_for, tap_lines and pm_trace.
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

# pm_trace DIR REL SHEETS...: the trace golden dir DIR (REL below GOLD)
# describes, or "" when none is known
pm_trace() {
	_d=$1 _rel=$2
	shift 2
	_t=$(trace_for "$_d")
	case "$_rel" in
	compare_test_e2e/reference/*_perf_report_csvs)
		# TraceLens's compare-report inputs sit apart from any trace;
		# their sheets are those of the Qwen1.5-0.5B run on the same
		# GPU (byte for byte, checked here), so that is their trace
		_p=${_rel#compare_test_e2e/reference/}
		_p=${_p%_perf_report_csvs}
		_q=$GOLD/$_p/Qwen_Qwen1.5-0.5B-Chat__1016005_perf_report_csvs
		_t=$GOLD/$_p/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz
		for _s in "$@"; do
			cmp -s "$_d/$_s.csv" "$_q/$_s.csv" || _t=
		done
		;;
	esac
	echo "$_t"
}

# pm_skip REASON: a skipped TAP test
pm_skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N # SKIP $1"
}
