#!/bin/sh
# TraceLens conformance of report_sheets.h's sheets: every golden CSV of the
# short-kernel study, the collective analysis and the JAX report, in every
# golden dir whose trace is in ../shared, against tests/tools/sheet_dump.
. "$(dirname "$0")/../taplib.sh"

GOLD=$SHARED/traces/TraceLens/tests/traces
DUMP=${SHEET_DUMP:-${TLREPLAY_BUILD:-$ROOT/build}/tests/tools/sheet_dump}
if [ ! -x "$DUMP" ]; then
	echo "1..0 # SKIP $DUMP not built (make $DUMP)"
	exit 0
fi

# The sheets built here. The JAX golden dir also holds kernel_launchers,
# kernel_launchers_unique_args, df_xla_perf and op_conv: their Input Dims,
# kernel_details and perf-model columns come from the HLO module (operand
# shapes, op metadata) that the library's XPlane reader leaves out, and their
# launch latency from the host side; they are not built yet (issue 12), so
# they are not compared. gpu_timeline is test_golden.sh's.
SHEETS="short_kernels_summary short_kernel_histogram coll_analysis kernel_launchers_summary
	kernel_launchers_summary_by_category xla_summary gpu_events_averages"

# Input without what a sheet looks at gives its header and no rows, exit 0.
printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":1,"dur":2}]}' \
	>"$TMP/nogpu.json"
for s in $SHEETS; do
	"$DUMP" "$TMP/nogpu.json" "$s" >"$TMP/out" 2>"$TMP/err"
	ok $(( $? != 0 || $(wc -l <"$TMP/out") != 1 )) "no GPU event: $s has only its header"
done
for t in mini.json tiny.xplane.pb; do
	for s in $SHEETS; do
		"$DUMP" "$ROOT/tests/fixtures/$t" "$s" >/dev/null 2>"$TMP/err"
		ok $? "fixtures/$t: $s builds"
	done
done

if [ ! -d "$GOLD" ]; then
	skip "$GOLD absent (../shared is not beside the checkout): no golden compared"
	done_testing
fi

# The trace a golden dir describes: the first that exists of X.json.gz for
# X_perf_report_csvs or X_recompute_perf_report_csvs, the trace beside an
# inference perf_csvs dir, and for JAX the XPlane in X_legacy/ (TraceLens
# renamed the JAX ~0.6 profile the golden was made from). compare_test_e2e's
# references hold gpu_timeline.csv byte for byte as the Qwen1.5 golden of
# the same GPU: they were made from that trace.
trace_for() {
	d=$1 stem=${1%_perf_report_csvs} gpu=$(basename "$1" _perf_report_csvs)
	for c in "${stem%_recompute}.json.gz" "$(dirname "$d")"/*.json.gz "$stem"_legacy/*.xplane.pb \
		"$GOLD/$gpu/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"; do
		case "$d:$c" in
		*/perf_csvs:*.json.gz | *_perf_report_csvs:"${stem%_recompute}.json.gz" | \
		*_perf_report_csvs:*.xplane.pb | */compare_test_e2e/*:*Qwen*) ;;
		*) continue ;;
		esac
		[ -f "$c" ] && { echo "$c"; return; }
	done
}

book=""
for d in $(find "$GOLD" -type d \( -name '*_perf_report_csvs' -o -name perf_csvs \) | sort); do
	rel=${d#"$GOLD"/}
	t=$(trace_for "$d")
	for s in $SHEETS; do
		[ -f "$d/$s.csv" ] || continue
		if [ ! -f "$t" ]; then
			skip "$rel/$s: no trace beside it"
			continue
		fi
		if ! "$DUMP" "$t" "$s" >"$TMP/$s.csv" 2>"$TMP/err"; then
			ok 1 "$rel/$s: $(cat "$TMP/err")"
			continue
		fi
		"$PYTHON" "$ROOT/tests/conformance/sheet_compare.py" "$TMP/$s.csv" "$d/$s.csv" >"$TMP/diff" 2>&1
		rc=$?
		[ $rc -eq 0 ] || diag "$(head -5 "$TMP/diff")"
		ok $rc "$rel/$s"
		cp "$TMP/$s.csv" "$TMP/book-$s.csv"
		book="$book $s" trace=$t
	done
	# the same sheets as one workbook hold the same cells
	if [ -n "$book" ]; then
		specs=""
		for s in $book; do
			specs="$specs $(echo "$s" | cut -c1-31)=$TMP/book-$s.csv"
		done
		# shellcheck disable=SC2086
		"$DUMP" -x "$TMP/book.xlsx" "$trace" $book 2>"$TMP/err" &&
			"$PYTHON" "$ROOT/tests/conformance/xlsx_vs_csv.py" "$TMP/book.xlsx" $specs >"$TMP/diff" 2>&1
		rc=$?
		if [ $rc -eq 77 ]; then
			skip "$rel: workbook (python3-openpyxl is not installed)"
		else
			[ $rc -eq 0 ] || diag "$(cat "$TMP/err" "$TMP/diff" | head -5)"
			ok $rc "$rel: the workbook of these sheets holds the CSVs' cells"
		fi
		rm -f "$TMP"/book-*.csv
	fi
	book=""
done
done_testing
