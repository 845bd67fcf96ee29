#!/bin/sh
# The inference report's unified_perf_summary (--by-module): entry_point and
# call_stack_full, TraceLens's include_call_stack, on a hand-written trace
# (tests/fixtures/unified_callstack.json): python frames above an op whose
# name carries sglang_profiler's call counter, a python frame and two
# kernels below it, and a kernel launched outside any op.
. "$(dirname "$0")/../taplib.sh"

F=$ROOT/tests/fixtures/unified_callstack.json
run "$TLREPLAY" report -i "$F" -o "$TMP/rep" --by-module
[ "$RC" -eq 0 ]
ok $? "report --by-module"
"$PYTHON" - "$TMP/rep/unified_perf_summary.csv" >"$TMP/rows" <<'PY'
import csv, sys
r = list(csv.reader(open(sys.argv[1], encoding="utf-8")))
h = r[0]
i = h.index("has_perf_model")
assert h[i + 1:i + 3] == ["entry_point", "call_stack_full"], h
for row in r[1:]:
    d = dict(zip(h, row))
    print(d["name"], "|", d["entry_point"], "|", d["call_stack_full"])
PY
ok $? "entry_point and call_stack_full follow has_perf_model"
grep -qxF "sglang_profiler::fused_gemm | /app/kern.py(5): fused_gemm_launch | ['/app/serve.py(10): run', 'nn.Module: Block', '/app/layers.py(20): my_gemm', 'sglang_profiler::fused_gemm', ['epilogue_k'], ['/app/kern.py(5): fused_gemm_launch', 'gemm_k']]" "$TMP/rows"
ok $? "the op: its counter dropped; frames from the python root, counters out, built-ins left out; one tail per kernel in the kernel summary's order; the entry point found below the op"
grep -qxF "cudaLaunchKernel->orphan_k (Synthetic Op) | Not found | ['orphan_k']" "$TMP/rows"
ok $? "a synthetic op: its kernel's name only, no entry point"
run "$TLREPLAY" report -i "$F" -o "$TMP/plain"
[ "$RC" -eq 0 ] && ! head -1 "$TMP/plain/unified_perf_summary.csv" | grep -q call_stack_full
ok $? "the training report has neither column"
done_testing
