#!/bin/sh
# TraceLens's inference pseudo ops (core/src/trace/pseudo_ops.c) on a
# hand-written vLLM MoE (tests/fixtures/moe_unfused.json): vllm::moe_forward
# launching an up (gated) and a down matmul_ogs kernel and a matmul_scatter,
# a TopK op with k = 2 below it; 14 events in the file.
. "$(dirname "$0")/../taplib.sh"

F=$ROOT/tests/fixtures/moe_unfused.json
run "$TLREPLAY" report -i "$F" -o "$TMP/rep" --by-module
[ "$RC" -eq 0 ] && [ -f "$TMP/rep/MoE_unfused_fwd.csv" ]
ok $? "report --by-module writes MoE_unfused_fwd"
"$PYTHON" - "$TMP/rep" >"$TMP/rows" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1] + "/unified_perf_summary.csv", encoding="utf-8")):
    print("|".join([r["name"], r["op category"], r["ex_UID"], r["GFLOPS"], r["total_duration_us"],
                    r["mean_duration_us"], r["entry_point"]]))
for r in csv.DictReader(open(sys.argv[1] + "/MoE_unfused_fwd.csv", encoding="utf-8")):
    print("moe|" + "|".join([r["name"], r["param: topk"], r["param: gated"], r["param: weight_dtype"],
                             r["GFLOPS_first"], r["UID_first"]]))
PY
ok $? "the sheets read back"
grep -qx "pseudo_op::moe_triton_unfused_up|MoE_unfused|14|2.415919104|0.0||triton/runtime/jit.py(574): run" "$TMP/rows" &&
	grep -qx "pseudo_op::moe_triton_unfused_down|MoE_unfused|15|1.207959552|0.0||triton/runtime/jit.py(574): run" "$TMP/rows"
ok $? "up then down: the next UIDs, no duration, the MoE's shapes with top-k 2 (from TopK), gated up"
grep -qx "pseudo_op::moe_triton_unfused_finalize_matmul_scatter|other|16||0.0||triton/runtime/jit.py(574): run" "$TMP/rows"
ok $? "the finalize scatter: a pseudo op without a model"
grep -qx "moe|pseudo_op::moe_triton_unfused_up|2|True|FP4|2.415919104|14" "$TMP/rows" &&
	grep -qx "moe|pseudo_op::moe_triton_unfused_down|2|False|FP4|1.207959552|15" "$TMP/rows"
ok $? "MoE_unfused_fwd: one row per projection"
cut -d, -f1 "$TMP/rep/ops_summary.csv" | grep -qx "vllm::moe_forward" && ! grep -q pseudo_op "$TMP/rep/ops_summary.csv"
ok $? "ops_summary reads the tree as it was: vllm::moe_forward launched the kernels"
run "$TLREPLAY" report -i "$F" -o "$TMP/plain"
[ "$RC" -eq 0 ] && ! grep -q pseudo_op "$TMP/plain/unified_perf_summary.csv" && [ ! -f "$TMP/plain/MoE_unfused_fwd.csv" ]
ok $? "the training report adds none"
done_testing
