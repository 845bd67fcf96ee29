#!/bin/sh
# The elementwise and reduce perf models (core/src/perfmodel/pm_eltwise.c,
# pm_reduce.c) against every row of TraceLens's golden UnaryElementwise,
# BinaryElementwise, Reduce_fwd and Reduce_bwd sheets that has its trace:
# the same sheet, parameters, GFLOPS, Data Moved and Compute Spec.
. "$(dirname "$0")/../taplib.sh"

. "$(dirname "$0")/pm_sheets.inc"

n=0
for d in $(find "$GOLD" -type d \( -name '*_perf_report_csvs' -o -name perf_csvs \) | sort); do
	rel=${d#"$GOLD"/}
	sheets=
	for s in UnaryElementwise BinaryElementwise Reduce_fwd Reduce_bwd; do
		[ -f "$d/$s.csv" ] && sheets="$sheets $s"
	done
	[ -n "$sheets" ] || continue
	# shellcheck disable=SC2086
	t=$(pm_trace "$d" "$rel" $sheets)
	[ -f "$t" ] || { pm_skip "$rel:$sheets: no trace known for it"; continue; }
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
