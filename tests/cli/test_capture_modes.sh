#!/bin/sh
# Which capture a vLLM iteration's graph launches merge with, as TraceLens's
# trace_capture_merge_experimental.py chooses: the mode that exists for the
# batch size; when FULL and PIECEWISE both do, FULL for one launch, else
# PIECEWISE; a capture of one window serves every launch of the iteration;
# other window counts leave the iteration unmerged, with a warning. Fixtures
# from tests/cli/capture_modes_fixture.py.
. "$(dirname "$0")/../taplib.sh"
FIX=$ROOT/tests/cli/capture_modes_fixture.py

# setup NLAUNCH WHOLE|PIECES CAPTURE...: $TMP/t/replay.json and $TMP/t/cap with those captures
setup() {
	rm -rf "$TMP/t" && mkdir -p "$TMP/t/cap" && "$PYTHON" "$FIX" "$TMP/t" "$1" "$2" || return 1
	shift 2
	sep=""
	printf '[' >"$TMP/t/cap/execution_details.json"
	for c in "$@"; do
		cp "$TMP/t/$c.json" "$TMP/t/cap/"
		mode=FULL
		[ "$c" = piece ] && mode=PIECEWISE
		printf '%s{"file": "%s.json", "batch_size": 4, "mode": "%s"}' "$sep" "$c" "$mode" \
			>>"$TMP/t/cap/execution_details.json"
		sep=", "
	done
	printf ']\n' >>"$TMP/t/cap/execution_details.json"
}
merged() { # merged MM_COUNT RELU_COUNT: the summary by module has them
	grep -q "^aten::mm,NA,[0-9.]*,[0-9.]*,$1," "$TMP/out" && grep -q "^aten::relu,NA,[0-9.]*,[0-9.]*,$2," "$TMP/out"
}

setup 4 WHOLE full
run "$TLREPLAY" ops -i "$TMP/t/replay.json" --capture "$TMP/t/cap" --by-module -x,
[ "$RC" -eq 0 ] && merged 4 4 && ! grep -q "could not be matched" "$TMP/err"
ok $? "one FULL capture, an iteration of 4 launches: each launch merged with its one window (exit $RC: $(head -c 300 "$TMP/err"))"

setup 4 PIECES full piece
run "$TLREPLAY" ops -i "$TMP/t/replay.json" --capture "$TMP/t/cap" --by-module -x,
[ "$RC" -eq 0 ] && merged 2 2 && ! grep -q "could not be matched" "$TMP/err"
ok $? "FULL and PIECEWISE both captured, 4 launches: PIECEWISE, window i with launch i (exit $RC)"

setup 1 WHOLE full piece
run "$TLREPLAY" ops -i "$TMP/t/replay.json" --capture "$TMP/t/cap" --by-module -x,
[ "$RC" -eq 0 ] && merged 1 1 && ! grep -q "could not be matched" "$TMP/err"
ok $? "FULL and PIECEWISE both captured, 1 launch: FULL (exit $RC)"

setup 3 PIECES piece
run "$TLREPLAY" ops -i "$TMP/t/replay.json" --capture "$TMP/t/cap" --by-module -x,
[ "$RC" -eq 0 ] && ! grep -q "^aten::mm" "$TMP/out" &&
	grep -q "3 of 3 graph launches could not be matched" "$TMP/err"
ok $? "4 PIECEWISE windows, 3 launches: not merged, and a warning says so (exit $RC)"
TLREPLAY_LOG_LEVEL=warn "$TLREPLAY" ops -i "$TMP/t/replay.json" --capture "$TMP/t/cap" >/dev/null 2>"$TMP/err"
grep -q "3 graph launches but 4 capture windows" "$TMP/err"
ok $? "TLREPLAY_LOG_LEVEL=warn gives the counts"

# check: graph kernels no op owns, an error above --max-unattributed (default 20 %)
setup 4 WHOLE full
run "$TLREPLAY" check -i "$TMP/t/replay.json"
[ "$RC" -eq 1 ] && grep -q "^error   graph-kernels-without-op: 100.00% of GPU time (8 events) is graph kernels no op owns" "$TMP/out"
ok $? "check: the unmerged replay's graph kernels are an error (exit $RC)"
run "$TLREPLAY" check -i "$TMP/t/replay.json" --max-unattributed 100
[ "$RC" -eq 0 ] && grep -q "^warning graph-kernels-without-op:" "$TMP/out"
ok $? "--max-unattributed 100: a warning, exit 0"
run "$TLREPLAY" check -i "$TMP/t/replay.json" --capture "$TMP/t/cap"
[ "$RC" -eq 0 ] && ! grep -q "graph-kernels-without-op" "$TMP/out"
ok $? "with the capture merged every kernel has its op: no finding"
run "$TLREPLAY" check -i "$TMP/t/replay.json" --max-unattributed 120
[ "$RC" -eq 1 ] && grep -q "bad --max-unattributed '120'" "$TMP/err"
ok $? "a limit above 100 is refused by name"
done_testing
