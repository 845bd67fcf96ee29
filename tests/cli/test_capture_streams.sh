#!/bin/sh
# Graph-capture merge of a graph whose kernels ran on two streams
# (tests/fixtures/graph_capture_streams.json: a capture window under vLLM's
# _dummy_run, then two vLLM iterations replaying it, the second on streams 7
# and 9). The per-stream alignment kept a flag per kernel in an array of
# size_t allocated as that many bytes: a heap overflow that valgrind (and
# fuzz_analyses under AddressSanitizer) reported. Now both launches merge, and
# valgrind finds nothing.
. "$(dirname "$0")/../taplib.sh"

F=$ROOT/tests/fixtures/graph_capture_streams.json
mkdir "$TMP/cap" && cp "$F" "$TMP/cap/capture.json"
run "$TLREPLAY" ops -i "$F" --capture "$TMP/cap" --by-module -x,
[ "$RC" -eq 0 ] && grep -q '^aten::mm,NA,6.0,6.0,2,' "$TMP/out" && grep -q '^aten::relu,NA,5.0,5.0,2,' "$TMP/out" &&
	! grep -q 'could not be matched' "$TMP/err"
ok $? "both graph launches merged, the two-stream one too (exit $RC: $(head -c 300 "$TMP/err"))"

if command -v valgrind >/dev/null 2>&1; then
	valgrind -q --error-exitcode=99 "$TLREPLAY" ops -i "$F" --capture "$TMP/cap" --by-module >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$rc" -eq 0 ]
	ok $? "valgrind: no invalid access in the merge (exit $rc)"
	[ "$rc" -eq 99 ] && diag "$(head -n 20 "$TMP/err")"
else
	skip "valgrind not installed"
fi
done_testing
