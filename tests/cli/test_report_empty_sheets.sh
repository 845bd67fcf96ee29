#!/bin/sh
# The report's sheets where TraceLens's are empty or thin, on a fixture written here: one op
# recorded without shapes, whose one kernel is long (50 us) and a graph launch with no op above
# it. TraceLens writes short_kernels_summary.csv with its empty table's two header lines,
# ops_unique_args.csv with a row per launcher even without args (the graph launch too), and
# unified_perf_summary.csv without the perf-model metric columns when no op has a model.
. "$(dirname "$0")/../taplib.sh"

cat >"$TMP/t.json" <<'JSON'
{"traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 100, "args": {}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5, "args": {"correlation": 1}},
{"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": 1, "tid": 1, "ts": 110},
{"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": 0, "tid": 7, "ts": 150, "bp": "e"},
{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 150, "dur": 50, "args": {"device": 0, "stream": 7, "correlation": 1}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": 300, "dur": 5, "args": {"correlation": 2}},
{"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 2, "pid": 1, "tid": 1, "ts": 300},
{"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 2, "pid": 0, "tid": 7, "ts": 320, "bp": "e"},
{"ph": "X", "cat": "kernel", "name": "graph_k", "pid": 0, "tid": 7, "ts": 320, "dur": 40, "args": {"device": 0, "stream": 7, "correlation": 2}}
]}
JSON
run "$TLREPLAY" report --short-kernels -i "$TMP/t.json" -o "$TMP/r"
[ "$RC" -eq 0 ] && [ "$(cat "$TMP/r/short_kernels_summary.csv")" = "$(printf 'Kernel duration (µs),Kernel duration (µs),Kernel duration (µs)\nsum,count,mean')" ]
ok $? "no short kernel: short_kernels_summary.csv is TraceLens's empty table (exit $RC)"

cut -d, -f1,10 "$TMP/r/ops_unique_args.csv" >"$TMP/ua"
grep -q '^aten::mm,1$' "$TMP/ua" && grep -q '^cudaGraphLaunch,1$' "$TMP/ua"
ok $? "ops_unique_args: the op without shapes and the graph launch without args have their rows ($(tr '\n' ' ' <"$TMP/ua"))"

head -1 "$TMP/r/unified_perf_summary.csv" >"$TMP/h"
grep -q 'Kernel Time (µs)_sum' "$TMP/h" && ! grep -q 'GFLOPS\|TB/s\|TFLOPS/s\|Compute Spec' "$TMP/h"
ok $? "unified_perf_summary: no perf-model metric columns when no op has a model"
done_testing
