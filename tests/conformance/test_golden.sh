#!/bin/sh
# TraceLens conformance: every golden CSV directory in ../shared/traces/TraceLens
# against tlreplay's breakdown, ops and kernels (tests/conformance/compare_golden.py).
. "$(dirname "$0")/../taplib.sh"

GOLD=$SHARED/traces/TraceLens/tests/traces
if [ ! -d "$GOLD" ]; then
	echo "1..0 # SKIP $GOLD absent (../shared is not beside the checkout)"
	exit 0
fi

. "$ROOT/tests/conformance/golden_dirs.inc"

for d in $(golden_dirs); do
	t=$(trace_for "$d")
	rel=${d#"$GOLD"/}
	if [ ! -f "$t" ]; then
		TAP_N=$((TAP_N + 1))
		echo "ok $TAP_N # SKIP $rel: no trace beside it"
		continue
	fi
	"$PYTHON" "$ROOT/tests/conformance/compare_golden.py" "$TLREPLAY" "$t" "$d" >"$TMP/res" 2>&1
	tap_relay "$TMP/res"
done
done_testing
