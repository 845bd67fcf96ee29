#!/bin/sh
# TraceLens conformance of `tlreplay report`: every golden CSV of every golden
# directory in ../shared/traces/TraceLens against the sheet report writes
# (tests/conformance/report_golden.py, sheet_compare.py's rules). A golden
# sheet we do not write fails; the known gaps listed in report_golden.py are
# TODO, with why.
. "$(dirname "$0")/../taplib.sh"

GOLD=$SHARED/traces/TraceLens/tests/traces
if [ ! -d "$GOLD" ]; then
	echo "1..0 # SKIP $GOLD absent (../shared is not beside the checkout)"
	exit 0
fi

. "$ROOT/tests/conformance/golden_dirs.inc"

i=0
for d in $(golden_dirs); do
	t=$(trace_for "$d")
	rel=${d#"$GOLD"/}
	i=$((i + 1))
	if [ ! -f "$t" ]; then
		# no trace to run on: every sheet of the directory fails
		for f in "$d"/*.csv; do
			TAP_N=$((TAP_N + 1))
			TAP_FAILED=$((TAP_FAILED + 1))
			echo "not ok $TAP_N - $rel/${f##*/}: no trace beside it"
		done
		continue
	fi
	"$PYTHON" "$ROOT/tests/conformance/report_golden.py" "$TLREPLAY" "$t" "$d" \
		"$TMP/report$i" >"$TMP/res" 2>&1
	tap_relay "$TMP/res"
done
done_testing
