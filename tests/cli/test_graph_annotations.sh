#!/bin/sh
# PyTorch's CUDA-graph kernel annotations (torch.cuda._graph_annotations): a replayed graph's
# kernels carry their "graph node id" and the "name" their capture's mark_kernels scope gave,
# and each run of one name becomes an op of that name under the graph launch, so op summaries
# show the regions with no --capture. Fixture written here: one cudaGraphLaunch of five
# kernels, two "attention", two "mlp" (one of them marked as backward work), one unannotated.
. "$(dirname "$0")/../taplib.sh"

kern() { # NAME TS DUR NODE [ANNOTATION-ARGS]
	printf '{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7, "ts": %s, "dur": %s, "args": {"device": 0, "stream": 7, "correlation": 9, "graph node id": %s%s}},\n' "$@"
}
{
	printf '{"traceEvents": [\n'
	printf '{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 10, "dur": 20, "args": {}},\n'
	printf '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 12, "dur": 5, "args": {"correlation": 1}},\n'
	printf '{"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": 1, "tid": 1, "ts": 12},\n'
	printf '{"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": 0, "tid": 7, "ts": 40, "bp": "e"},\n'
	printf '{"ph": "X", "cat": "kernel", "name": "add_k", "pid": 0, "tid": 7, "ts": 40, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 1}},\n'
	printf '{"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": 100, "dur": 8, "args": {"correlation": 9}},\n'
	printf '{"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 9, "pid": 1, "tid": 1, "ts": 100},\n'
	printf '{"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 9, "pid": 0, "tid": 7, "ts": 110, "bp": "e"},\n'
	kern qk_gemm 110 20 4294967297 ', "name": "attention"'
	kern softmax 131 10 4294967298 ', "name": "attention"'
	kern up_gemm 142 30 4294967299 ', "name": "mlp", "stream": "61"'
	kern down_gemm 173 30 4294967300 ', "name": "mlp", "autograd_phase": "backward"'
	printf '{"ph": "X", "cat": "kernel", "name": "tail_k", "pid": 0, "tid": 7, "ts": 204, "dur": 6, "args": {"device": 0, "stream": 7, "correlation": 9, "graph node id": 4294967301}}\n'
	printf ']}\n'
} >"$TMP/ann.json"
# the same replay without annotations: what follows each "graph node id" goes
sed 's/\("graph node id": [0-9]*\)[^}]*}}/\1}}/' "$TMP/ann.json" >"$TMP/bare.json"

run "$TLREPLAY" ops -i "$TMP/ann.json" -x,
cut -d, -f1,2,6 "$TMP/out" >"$TMP/rows"
[ "$RC" -eq 0 ] && grep -q '^attention,30.0,1$' "$TMP/rows" && grep -q '^mlp,60.0,2$' "$TMP/rows" &&
	grep -q '^cudaGraphLaunch,6.0,1$' "$TMP/rows" && grep -q '^aten::add,10.0,1$' "$TMP/rows" &&
	grep -q "note: .*4 graph kernels belong to 3 ops named by PyTorch's CUDA-graph annotations" "$TMP/err"
ok $? "ops: attention (30 us) and mlp (60 us, forward and backward: two calls) own their kernels; the unannotated one stays the launch's ($(tr '\n' ' ' <"$TMP/rows"))"

run "$TLREPLAY" ops -i "$TMP/bare.json" -x,
[ "$RC" -eq 0 ] && grep -q '^cudaGraphLaunch,96.0,' "$TMP/out" && ! grep -q "CUDA-graph annotations" "$TMP/err"
ok $? "without annotations the launch owns all five kernels, and no note"

run "$TLREPLAY" check -i "$TMP/ann.json"
[ "$RC" -eq 0 ] && grep -q "^warning graph-kernels-without-op: 5.66% of GPU time (1 events)" "$TMP/out"
ok $? "check: only the unannotated kernel is without an op (5.66 %, a warning; exit $RC)"
run "$TLREPLAY" check -i "$TMP/bare.json"
[ "$RC" -eq 1 ] && grep -q "^error   graph-kernels-without-op: 90.57% of GPU time (5 events)" "$TMP/out"
ok $? "without annotations: 90.57 % of GPU time has no op, an error"

run "$TLREPLAY" tree -i "$TMP/ann.json" -j
"$PYTHON" - "$TMP/out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
flat = json.dumps(rows)
assert '"attention"' in flat and '"mlp"' in flat, flat[:300]
PY
ok $? "tree: the annotation ops are in the call tree"
run "$TLREPLAY" show -i "$TMP/ann.json" -j 17
grep -q '"name":"mlp"' "$TMP/out" && grep -q '"autograd_phase":"backward"' "$TMP/out" && grep -q '"Graph annotation":true' "$TMP/out"
ok $? "the backward op's args keep the annotation's keys ($(head -c 300 "$TMP/out"))"

run "$TLREPLAY" report -i "$TMP/ann.json" -o "$TMP/rep"
[ "$RC" -eq 0 ] && grep -q '^attention,' "$TMP/rep/ops_summary.csv" && grep -q '^mlp,' "$TMP/rep/ops_summary.csv"
ok $? "report: ops_summary has the annotation ops (exit $RC)"
done_testing
