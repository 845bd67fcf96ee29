#!/bin/sh
# Numbers no integer holds (1e300 as a shape, a grid, a count, a stream, a
# device's memory, a capture's batch size) in a trace that loads: every
# command that reads them range-checks before casting. Casting such a double
# to an integer is undefined; in a SANITIZER=address|undefined build
# (float-cast-overflow) it stopped the command with a runtime error.
. "$(dirname "$0")/../taplib.sh"

"$PYTHON" - "$TMP" <<'EOF'
import json, sys
H = 1e300
ev = [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 20,
     "args": {"External id": 1, "Input Dims": [[H, 4], [4, 4]], "Input type": ["float", "float"],
              "Input Strides": [[H, 1], [4, 1]], "Concrete Inputs": ["", ""]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 12, "dur": 3,
     "args": {"correlation": 1, "External id": 1}},
    {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 15, "dur": 5,
     "args": {"correlation": 1, "External id": 1, "stream": 7, "device": 0, "grid": [H, 1, 1],
              "block": [128, 1, 1], "registers per thread": H, "shared memory": H}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::sum", "pid": 1, "tid": 1, "ts": 31, "dur": 2,
     "args": {"External id": 3, "Input Dims": [[H], [], []], "Input type": ["float", "", ""],
              "Concrete Inputs": ["", [H], False]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::scaled_dot_product_attention", "pid": 1, "tid": 1,
     "ts": 33, "dur": 2, "args": {"External id": 4, "Input Dims": [[H, 8, 128, 64]] * 3,
                                  "Input type": ["c10::BFloat16"] * 3}},
    {"ph": "X", "cat": "cpu_op", "name": "vllm_triton_per_token_group_quant_fp8", "pid": 1, "tid": 1,
     "ts": 35, "dur": 2, "args": {"External id": 5, "Input Dims": [[H, 4], []],
                                  "Input type": ["c10::BFloat16", "Int"], "Concrete Inputs": ["", H]}},
    {"ph": "X", "cat": "user_annotation", "name": "nccl:all_reduce", "pid": 1, "tid": 1, "ts": 39, "dur": 12,
     "args": {"External id": 6, "Input Dims": [[H, 2]], "Input type": ["float"]}},
    {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": 40, "dur": 10,
     "args": {"External id": 2, "Collective name": "allreduce", "dtype": "Float", "In msg nelems": H,
              "Out msg nelems": H, "Group size": H, "Seq": H, "Process Group Name": "0",
              "Process Group Ranks": "[0, 1]"}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 41, "dur": 3,
     "args": {"correlation": 2, "External id": 2}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 20,
     "ts": 45, "dur": 5, "args": {"correlation": 2, "External id": 2, "stream": 20, "device": 0,
                                  "In msg nelems": H, "Group size": H}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamWaitEvent", "pid": 1, "tid": 1, "ts": 52, "dur": 1,
     "args": {"correlation": 3}},
    {"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 7, "ts": 53, "dur": 1,
     "args": {"correlation": 3, "stream": 7, "device": 0, "wait_on_stream": H,
              "wait_on_cuda_event_record_corr_id": H}},
]
trace = {"deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": H, "numSms": 132,
                               "computeMajor": 9, "computeMinor": 0}],
         "distributedInfo": {"rank": 0, "world_size": 2, "backend": "nccl"},
         "traceEvents": ev}
json.dump(trace, open(sys.argv[1] + "/huge.json", "w"))
cap = {"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 2,
                        "args": {"Input Dims": [[H, 4], [4, 4]], "Input type": ["float", "float"]}}]}
import os
for d in ("cap", "cap2"):
    os.mkdir(sys.argv[1] + "/" + d)
    json.dump(cap, open(sys.argv[1] + "/" + d + "/capture.json", "w"))
# a batch size in execution_details.json; without it, one read from the shapes
json.dump([{"file": "capture.json", "batch_size": H, "mode": "FULL"}],
          open(sys.argv[1] + "/cap/execution_details.json", "w"))
EOF
T=$TMP/huge.json

# survives NAME CMD...: no signal, no sanitizer report (an error line is fine)
survives() {
	name=$1
	shift
	run "$@"
	[ "$RC" -lt 128 ] && ! grep -q 'runtime error\|Sanitizer' "$TMP/err"
	ok $? "$name: exit $RC$(grep -m1 'runtime error' "$TMP/err" | sed 's/^/: /')"
}

survives "report (perf models, coll_analysis, the GPU's peaks)" "$TLREPLAY" report -i "$T" -o "$TMP/report"
survives "ir of every op" "$TLREPLAY" ir -i "$T" -o "$TMP/ir.json"
survives "critpath (a stream wait's args)" "$TLREPLAY" critpath -i "$T"
survives "kernels --unique (grid, registers)" "$TLREPLAY" kernels -i "$T" --unique
survives "ops --perf (the GPU's peaks)" "$TLREPLAY" ops -i "$T" --perf
survives "collectives" "$TLREPLAY" collectives -i "$T"
survives "summarize" "$TLREPLAY" summarize -i "$T" -o "$TMP/huge.tlrank.jsonl"
[ "$RC" -eq 0 ] && "$TLREPLAY" collectives -i "$TMP/huge.tlrank.jsonl" >/dev/null 2>&1
ok $? "the summary of it reads back: counts past 2^53 are left unrecorded, not written"
survives "ops --capture (a batch size of 1e300)" "$TLREPLAY" ops -i "$T" --by-module --capture "$TMP/cap"
survives "ops --capture (a first dimension of 1e300)" "$TLREPLAY" ops -i "$T" --by-module --capture "$TMP/cap2"

done_testing
