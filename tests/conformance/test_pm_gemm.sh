#!/bin/sh
# The GEMM and convolution perf models (core/src/perfmodel/pm_gemm.c, pm_conv.c)
# against every row of TraceLens's golden GEMM, CONV_fwd and CONV_bwd sheets
# that has its trace: the same sheet, parameters, GFLOPS, Data Moved and
# Compute Spec.
. "$(dirname "$0")/../taplib.sh"

. "$(dirname "$0")/pm_sheets.inc"

n=0
for d in $(find "$GOLD" -type d \( -name '*_perf_report_csvs' -o -name perf_csvs \) | sort); do
	rel=${d#"$GOLD"/}
	sheets=
	for s in GEMM CONV_fwd CONV_bwd; do
		[ -f "$d/$s.csv" ] && sheets="$sheets $s"
	done
	[ -n "$sheets" ] || continue
	# shellcheck disable=SC2086
	t=$(pm_trace "$d" "$rel" $sheets)
	[ -f "$t" ] || { pm_skip "$rel:$sheets: no trace known for it"; continue; }
	n=$((n + 1))
	for s in $sheets; do
		"$PYTHON" "$ROOT/tests/conformance/compare_pm.py" "$PM_DUMP" "$t" "$d" "$s" >"$TMP/res" 2>&1
		tap_lines "$TMP/res" "$(dirname "$rel")/"
	done
done
done_testing
