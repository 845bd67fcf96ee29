#!/bin/sh
# TraceLens conformance: every golden CSV directory in ../shared/traces/TraceLens
# against tlreplay's breakdown, ops and kernels (tests/conformance/compare_golden.py).
. "$(dirname "$0")/../taplib.sh"

GOLD=$SHARED/traces/TraceLens/tests/traces
if [ ! -d "$GOLD" ]; then
	echo "1..0 # SKIP $GOLD absent (../shared is not beside the checkout)"
	exit 0
fi

# golden dir -> trace it describes
trace_for() {
	d=$1
	case "$d" in
	*/perf_csvs) ls "$(dirname "$d")"/*.json.gz 2>/dev/null | head -1 ;;
	*_recompute_perf_report_csvs) echo "${d%_recompute_perf_report_csvs}.json.gz" ;;
	*_perf_report_csvs)
		t=${d%_perf_report_csvs}
		if [ -f "$t.json.gz" ]; then
			echo "$t.json.gz"
		else
			# JAX: FOLDER_perf_report_csvs describes FOLDER/*.xplane.pb. TraceLens
			# later renamed mi300/jax_conv_minimal (the JAX ~0.6 profile the golden
			# was made from) to jax_conv_minimal_legacy, beside a new
			# jax_conv_minimal_08 (JAX 0.8, another run: not this golden).
			ls "$t"/*.xplane.pb "${t}_legacy"/*.xplane.pb 2>/dev/null | head -1
		fi
		;;
	esac
}

for d in $(find "$GOLD" -type d \( -name '*_perf_report_csvs' -o -name perf_csvs \) | sort); do
	t=$(trace_for "$d")
	rel=${d#"$GOLD"/}
	if [ ! -f "$t" ]; then
		TAP_N=$((TAP_N + 1))
		echo "ok $TAP_N # SKIP $rel: no trace beside it"
		continue
	fi
	"$PYTHON" "$ROOT/tests/conformance/compare_golden.py" "$TLREPLAY" "$t" "$d" >"$TMP/res" 2>&1
	while IFS= read -r line; do
		case "$line" in
		"ok - "*) TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - ${line#ok - }" ;;
		"not ok - "*)
			TAP_N=$((TAP_N + 1))
			TAP_FAILED=$((TAP_FAILED + 1))
			echo "not ok $TAP_N - ${line#not ok - }"
			;;
		*) echo "$line" ;;
		esac
	done <"$TMP/res"
done
done_testing
