# Builds the traces of tests/cli/test_capture_modes.sh into DIR (usage: DIR NLAUNCH WHOLE|PIECES):
# full.json, a capture of one window (FULL: aten::mm and aten::relu under vLLM's _dummy_run);
# piece.json, a capture of four windows of one op each (PIECEWISE: mm, relu, mm, relu); and
# replay.json, one vLLM iteration of batch 4 that launches a graph NLAUNCH times, each launch
# running both kernels (WHOLE: a replay of the FULL graph) or one, alternating (PIECES).
import json
import sys

out, nlaunch, whole = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "WHOLE"


def x(cat, name, ts, dur, pid=1, tid=1, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e


def capture(windows):
    """windows: lists of (op, kernel) captured one window each."""
    ev, ts, corr = [], 0, 1
    total = 40 * len(windows)
    ev.append(x("python_function", "vllm/v1/worker/gpu_model_runner.py(2100): _dummy_run", -1, total + 2,
                **{"Python id": 1}))
    for w in windows:
        ev.append(x("cuda_runtime", "cudaStreamBeginCapture", ts, 1, correlation=corr))
        corr += 1
        t = ts + 2
        for op, kern in w:
            ev.append(x("cpu_op", op, t, 8, **{"External id": corr, "Input Dims": [[4, 8], [8, 8]]}))
            ev.append(x("cuda_runtime", "cudaLaunchKernel", t + 1, 1, correlation=corr + 1, kernel=kern))
            corr += 2
            t += 10
        ev.append(x("cuda_runtime", "cudaStreamEndCapture", ts + 38, 1, correlation=corr))
        corr += 1
        ts += 40
    return {"schemaVersion": 1, "traceEvents": ev}


full = capture([[("aten::mm", "gemm"), ("aten::relu", "relu_k")]])
piece = capture([[("aten::mm", "gemm")], [("aten::relu", "relu_k")]] * 2)
for name, tr in (("full.json", full), ("piece.json", piece)):
    with open("%s/%s" % (out, name), "w") as f:
        json.dump(tr, f)

ann = "execute_4_context_0(sq0sk0sqsq0sqsk0)_generation_4(sq4sk100sqsq4sqsk100)"
ev = [x("user_annotation", ann, 1000, 100 * nlaunch + 50)]
for i in range(nlaunch):
    t, corr = 1010 + 100 * i, 100 + i
    ev.append(x("cuda_runtime", "cudaGraphLaunch", t, 5, correlation=corr))
    ev.append({"ph": "s", "id": corr, "pid": 1, "tid": 1, "ts": t, "cat": "ac2g", "name": "ac2g"})
    kernels = ["gemm", "relu_k"] if whole else [["gemm", "relu_k"][i % 2]]
    for j, k in enumerate(kernels):
        kt = t + 10 + 20 * j
        ev.append(x("kernel", k, kt, 3 + 2 * (k == "gemm"), pid=0, tid=7, device=0, stream=7, correlation=corr))
        ev.append({"ph": "f", "id": corr, "pid": 0, "tid": 7, "ts": kt, "cat": "ac2g", "name": "ac2g", "bp": "e"})
with open("%s/replay.json" % out, "w") as f:
    json.dump({"schemaVersion": 1, "traceEvents": ev}, f)
