# TraceLens's golden CSV directories and the traces they describe, for the
# conformance tests that walk them (sourced; needs $GOLD).
# shellcheck shell=sh

# golden dir -> trace it describes
trace_for() {
	d=$1
	case "$d" in
	# TraceDiff's end-to-end test keeps the perf reports of the Qwen traces
	# it compares (the same CSVs as h100/ and mi300/ hold beside them)
	*/compare_test_e2e/reference/*_perf_report_csvs)
		g=${d##*/}
		ls "$GOLD/${g%_perf_report_csvs}"/Qwen_*.json.gz 2>/dev/null | head -1
		;;
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


# golden_dirs: every golden CSV directory under $GOLD, sorted
golden_dirs() {
	find "$GOLD" -type d \( -name '*_perf_report_csvs' -o -name perf_csvs \) | sort
}

# tap_relay FILE: the unnumbered TAP lines of a compare script ("ok - ...",
# "not ok - ...", "not ok - ... # TODO ...") numbered into this test's
# stream; a TODO does not count as a failure
tap_relay() {
	while IFS= read -r line; do
		case "$line" in
		"ok - "*) TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - ${line#ok - }" ;;
		"not ok - "*"# TODO"*) TAP_N=$((TAP_N + 1)); echo "not ok $TAP_N - ${line#not ok - }" ;;
		"not ok - "*)
			TAP_N=$((TAP_N + 1))
			TAP_FAILED=$((TAP_FAILED + 1))
			echo "not ok $TAP_N - ${line#not ok - }"
			;;
		*) echo "$line" ;;
		esac
	done <"$1"
}
