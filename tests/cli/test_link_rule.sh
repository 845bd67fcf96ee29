#!/bin/sh
# --link: launches linked to GPU events through older Kineto's async_cpu_to_gpu flows. tlreplay
# follows them (the default, with a note that TraceLens does not, and a warning in check);
# --link tracelens links as TraceLens does (ac2g flows only), so its numbers come out. Fixtures
# written here: one op, two launches, each kernel reached by a flow pair of the category given.
. "$(dirname "$0")/../taplib.sh"

fixture() { # fixture CATEGORY FILE
	printf '{"traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 100, "args": {}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5, "args": {"correlation": 1}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 130, "dur": 5, "args": {"correlation": 2}},
{"ph": "s", "cat": "%s", "name": "launch", "id": 1, "pid": 1, "tid": 1, "ts": 110},
{"ph": "f", "cat": "%s", "name": "launch", "id": 1, "pid": 0, "tid": 7, "ts": 150, "bp": "e"},
{"ph": "s", "cat": "%s", "name": "launch", "id": 2, "pid": 1, "tid": 1, "ts": 130},
{"ph": "f", "cat": "%s", "name": "launch", "id": 2, "pid": 0, "tid": 7, "ts": 170, "bp": "e"},
{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 150, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 170, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 2}}
]}
' "$1" "$1" "$1" "$1" >"$2"
}
fixture async_cpu_to_gpu "$TMP/legacy.json"
fixture ac2g "$TMP/ac2g.json"

run "$TLREPLAY" breakdown -i "$TMP/legacy.json" -x,
[ "$RC" -eq 0 ] && grep -q '^busy_time,0.02,' "$TMP/out" &&
	grep -q "note: .*2 launch flows are async_cpu_to_gpu .*--link tracelens" "$TMP/err"
ok $? "default: the async_cpu_to_gpu flows link both kernels, and a note says TraceLens does not (exit $RC)"

run "$TLREPLAY" breakdown -i "$TMP/ac2g.json" -x,
[ "$RC" -eq 0 ] && grep -q '^busy_time,0.02,' "$TMP/out" && [ ! -s "$TMP/err" ]
ok $? "ac2g flows: the same numbers, no note"

run "$TLREPLAY" breakdown --link tracelens -i "$TMP/legacy.json" -x,
[ "$RC" -eq 1 ] && grep -q "none of the 2 GPU events is linked" "$TMP/err"
ok $? "--link tracelens: nothing linked, as in TraceLens, and said so (exit $RC)"

run "$TLREPLAY" breakdown --link tracelens --include-unlinked -i "$TMP/legacy.json" -x,
[ "$RC" -eq 0 ] && grep -q '^busy_time,0.02,' "$TMP/out"
ok $? "--link tracelens --include-unlinked counts them"

run "$TLREPLAY" ops --link tracelens -i "$TMP/ac2g.json" -x,
[ "$RC" -eq 0 ] && grep -q '^aten::mm,20.0,20.0,' "$TMP/out"
ok $? "--link tracelens follows ac2g flows: the op has its kernels ($(head -c 200 "$TMP/out"))"

run "$TLREPLAY" check -i "$TMP/legacy.json"
grep -q "^warning legacy-launch-flows: 2 GPU events are linked through async_cpu_to_gpu" "$TMP/out"
ok $? "check reports the legacy flows"
run "$TLREPLAY" check -i "$TMP/ac2g.json"
! grep -q "legacy-launch-flows" "$TMP/out"
ok $? "not for ac2g flows"

run "$TLREPLAY" breakdown --link nonsense -i "$TMP/legacy.json"
[ "$RC" -eq 1 ] && grep -q "^tlreplay: --link nonsense: not a rule (tlreplay or tracelens)$" "$TMP/err"
ok $? "an unknown rule is refused by name"
done_testing
