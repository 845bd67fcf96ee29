#!/bin/sh
# Iterations of traces without iteration annotations, found in the call tree
# (issue 28.1; core/src/analysis/steps_calltree.c): an annotation-stripped copy
# of each shared serving trace, its capture traces and the training traces
# finds the iterations the annotations name; small traces of our own show each
# rule (a loop that never waits, layers under a forward, an anchor, an
# annotation family, the thread that drives the loop, a graph capture run).
. "$(dirname "$0")/../taplib.sh"

tl() { "$TLREPLAY" "$@"; }

# count FILE: "STEPS SOURCE FOUND_BY" from steps -j's summary
count() {
	"$PYTHON" -c '
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if "summary" in l][-1]
print(s["steps"], s["source"], s.get("found_by", "-"))' "$1"
}

S=$SHARED/traces
I=$S/TraceLens/tests/traces/inference
# trace, iterations its annotations name (capture traces: one capture run)
for c in "$I/sglang_decode/sglang_Qwen3-8B_decode.json.gz 1" \
	"$I/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz 1" \
	"$I/vllm_decode_full/graph_execution.json.gz 1" \
	"$I/vllm_prefilldecode_piecewise/graph_execution.json.gz 1" \
	"$I/sglang_decode/capture_traces/bs_32_rank0.json.gz 1" \
	"$I/vllm_decode_full/capture_traces/graph_capture_rank_0.1773709742341309550.pt.trace.json.gz 1" \
	"$I/vllm_prefilldecode_piecewise/capture_traces/graph_capture_rank_0.1773709679453551615.pt.trace.json.gz 1" \
	"$S/HolisticTraceAnalysis/tests/data/negative_queue_length_values_check/rank0.json.gz 5" \
	"$S/HolisticTraceAnalysis/tests/data/trace_diff/control/control.json.gz 6" \
	"$S/HolisticTraceAnalysis/tests/data/df_index_resolver/df_index_resolver.json.gz 5" \
	"$S/HolisticTraceAnalysis/tests/data/nccl_parser_config/nccl_data.json.gz 3" \
	"$S/HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-0.json.gz 2" \
	"$S/TraceLens/tests/traces/mi300/resnet_act_checkpoint.json.gz 3"; do
	t=${c% *}
	n=${c##* }
	name=$(echo "${t#"$S"/}" | cut -c1-70)
	if [ ! -f "$t" ]; then
		skip "$t not found"
		continue
	fi
	strip_iterations "$t" "$TMP/stripped.json"
	run tl steps -i "$TMP/stripped.json" -j
	[ "$RC" -eq 0 ] && set -- $(count "$TMP/out") && [ "$1" = "$n" ] && [ "$2" = call_tree ]
	ok $? "$name, annotations stripped: $n iteration(s) found in the call tree (got ${1:-none})"
done

# a capture trace's kernels were captured, not run: its iteration is weighed by launch calls and
# spans its capture run (the capture_N_MODE annotation the strip keeps), not the pre-capture
# synchronize's few kernels; a trace whose kernels ran is weighed by GPU time
for c in "sglang_decode/capture_traces/bs_32_rank0.json.gz capture_32_DECODE" \
	"vllm_decode_full/capture_traces/graph_capture_rank_0.1773709742341309550.pt.trace.json.gz capture_32_FULL" \
	"vllm_prefilldecode_piecewise/capture_traces/graph_capture_rank_0.1773709679453551615.pt.trace.json.gz capture_8192_PIECEWISE"; do
	t=$I/${c% *}
	if [ ! -f "$t" ]; then
		skip "$t not found"
		continue
	fi
	strip_iterations "$t" "$TMP/cap.json"
	run tl steps -i "$TMP/cap.json" -j
	"$PYTHON" - "$TMP/cap.json" "$TMP/out" "${c#* }" <<'PY' >&2
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
cap = [e for e in ev if e.get("name") == sys.argv[3]][0]
lines = [json.loads(l) for l in open(sys.argv[2])]
summ, steps = lines[-1], [l for l in lines if "step" in l]
assert summ["weighed_by"] == "launch_calls" and len(steps) == 1, summ
assert steps[0]["wall_ms"] >= 0.97 * cap["dur"] / 1000, (steps[0], cap["dur"])
PY
	ok $? "${c%%/*}'s capture trace stripped: weighed by launch calls, one iteration of >= 97% of ${c#* }"
done
run tl steps -i "$I/sglang_decode/sglang_Qwen3-8B_decode.json.gz" -j
strip_iterations "$I/sglang_decode/sglang_Qwen3-8B_decode.json.gz" "$TMP/dec.json"
run tl steps -i "$TMP/dec.json" -j
grep -q '"weighed_by":"gpu_time"' "$TMP/out"
ok $? "the SGLang decode trace stripped (its kernels ran): weighed by GPU time"

# the stripped HTA trace's iterations are its ProfilerSteps: the same GPU numbers per step
T=$S/HolisticTraceAnalysis/tests/data/negative_queue_length_values_check/rank0.json.gz
if [ -f "$T" ]; then
	strip_iterations "$T" "$TMP/rank0.json"
	run tl steps -i "$T" -x,
	cut -d, -f6-11 "$TMP/out" | sed 1d >"$TMP/annotated"
	run tl steps -i "$TMP/rank0.json" -x,
	cut -d, -f6-11 "$TMP/out" | sed 1d >"$TMP/found"
	[ "$(wc -l <"$TMP/found")" -eq 5 ] && diff "$TMP/annotated" "$TMP/found" >&2
	ok $? "HTA rank0 stripped: each found iteration has its ProfilerStep's busy, compute, comm, memcpy, idle, GPU events"
	run tl steps -i "$TMP/rank0.json"
	grep -q '^  5 blocks of the children of a thread.s top level, each starting at the same call; 100.0% of the GPU time launched in their span, 100.0% of the trace.s$' "$TMP/out" &&
		grep -q '^     0 ## ModelGenerationCoordina' "$TMP/out" && grep -q 'no iteration annotation: found in the call tree' "$TMP/out"
	ok $? "steps says how it found them: the anchor, the coverage, the main thread's '## ModelGenerationCoordinator ##'"
	run tl breakdown -i "$TMP/rank0.json" --step 3 -x,
	[ "$RC" -eq 0 ] && [ "$(awk -F, '$1 == "busy_time" { print $2 }' "$TMP/out")" = 80.96 ]
	ok $? "--step 3 on the stripped copy: ProfilerStep#553's busy time, 80.96 ms"
else
	skip "$T not found"
	skip "$T not found"
	skip "$T not found"
fi
# the one iteration of a stripped prefill trace holds the annotated iteration's GPU work
T=$I/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz
if [ -f "$T" ]; then
	strip_iterations "$T" "$TMP/sg.json"
	run tl steps -i "$T" -x,
	a=$(awk -F, 'NR == 2 { print $6 }' "$TMP/out")
	run tl steps -i "$TMP/sg.json" -x,
	b=$(awk -F, 'NR == 2 { print $6 }' "$TMP/out")
	awk -v a="$a" -v b="$b" 'BEGIN { exit !(a > 0 && b >= 0.99 * a && b <= a) }'
	ok $? "SGLang prefill stripped: its one iteration (forward_extend) holds >= 99% of the busy time ($b of $a ms)"
else
	skip "$T not found"
fi

# our own traces, each for one rule
"$PYTHON" - "$TMP" <<'PY'
import json, os, sys
out = sys.argv[1]

class T:
    def __init__(self):
        self.ev, self.c, self.ts = [], 0, 1000.0
    def x(self, cat, name, ts, dur, tid=1):
        self.ev.append({"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur})
    def launch(self, ts, kdur, tid=1):
        self.c += 1
        self.ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": tid,
                        "ts": ts, "dur": 1, "args": {"correlation": self.c}})
        self.ev.append({"ph": "X", "cat": "kernel", "name": "k%d" % self.c, "pid": 0, "tid": 7, "ts": ts + 2,
                        "dur": kdur, "args": {"correlation": self.c, "device": 0, "stream": 7}})
    def op(self, name, ts, kdur, tid=1, dur=5):
        self.x("cpu_op", name, ts, dur, tid)
        self.launch(ts + 1, kdur, tid)
    def captured(self, ts, name="cudaLaunchKernel"):
        # a launch call that runs nothing itself (captured into a graph, or a graph launch whose
        # kernels are added by the caller)
        self.c += 1
        self.ev.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": 1, "ts": ts,
                        "dur": 5, "args": {"correlation": self.c}})
    def sync(self, ts, tid=1):
        self.x("cuda_runtime", "cudaStreamSynchronize", ts, 2, tid)
    def save(self, name):
        json.dump({"traceEvents": self.ev}, open(os.path.join(out, name), "w"))

# 1. a loop that never waits, at a thread's top level: four iterations of linear, relu
t = T()
for i in range(4):
    b = 1000 + 100 * i
    t.op("aten::linear", b, 30)
    t.op("aten::relu", b + 10, 10)
t.save("loop.json")

# 2. one step: a forward of six like layers, then the sampling's wait: one iteration, not six
t = T()
t.x("python_function", "serve.py(10): step", 1000, 900)
t.x("python_function", "model.py(5): run_model", 1005, 700)
for i in range(6):
    b = 1010 + 100 * i
    t.x("python_function", "layer.py(20): layer_call", b, 90)
    t.op("aten::mm", b + 5, 40)
    t.op("aten::add", b + 20, 5)
t.x("python_function", "serve.py(30): sample", 1750, 100)
t.op("aten::argmax", 1755, 1)
t.sync(1770)
t.save("layers.json")

# 3. iterations of unequal op lists, each starting at the same annotation and ending in .item()
t = T()
for i, nops in enumerate([3, 5, 4]):
    b = 1000 + 200 * i
    t.x("user_annotation", "## train_step ##", b, 5)
    for k in range(nops):
        t.op("aten::mm", b + 10 + 20 * k, 100 // nops)
    t.x("cpu_op", "aten::_local_scalar_dense", b + 150, 10)
    t.x("cuda_runtime", "cudaMemcpyAsync", b + 151, 2)
    t.sync(b + 154)
t.save("anchor.json")

# 4. an annotation family: iter 0 .. iter 3 around the work
t = T()
for i in range(4):
    b = 1000 + 100 * i
    t.x("user_annotation", "iter %d" % i, b, 90)
    t.op("aten::conv2d", b + 5, 20 + i)
t.save("family.json")

# 5. under a model's forward, blocks that even wait (vLLM's piecewise graphs): layers
t = T()
t.x("python_function", "model.py(40): forward", 1000, 800)
for i in range(5):
    b = 1005 + 150 * i
    t.x("python_function", "cuda_graph.py(208): __call__", b, 140)
    t.op("aten::mm", b + 5, 50)
    t.sync(b + 100)
t.save("forward.json")

# 6. the autograd thread repeats too; the main thread drives the loop and starts it
t = T()
for i in range(3):
    b = 1000 + 300 * i
    t.x("user_annotation", "## forward ##", b, 50)
    t.op("aten::mm", b + 5, 20)
    t.x("cpu_op", "autograd::engine::evaluate_function: MmBackward0", b + 100, 40, tid=2)
    t.launch(b + 105, 40, tid=2)
    t.x("user_annotation", "Optimizer.step#SGD.step", b + 200, 30)
    t.launch(b + 205, 10)
t.save("threads.json")

# 7. a graph capture run: a synchronize and a memset run before the capture begins, then the
# forward's launches go into the graph (no kernel runs): one iteration, the capture run, weighed
# by launch calls; the same trace with no capture begun is weighed by GPU time
for name, begin in (("capture.json", True), ("nocapture.json", False)):
    t = T()
    t.x("python_function", "runner.py(9): capture_one", 1000, 900)
    t.x("python_function", "graphs.py(240): __enter__", 1005, 40)
    t.sync(1010)
    t.launch(1020, 3)
    if begin:
        t.x("cuda_runtime", "cudaStreamBeginCapture", 1050, 2)
    t.x("python_function", "model.py(40): forward", 1060, 700)
    for i in range(20):
        t.x("cpu_op", "aten::mm", 1065 + 30 * i, 20)
        t.captured(1070 + 30 * i)
    t.x("cuda_runtime", "cudaStreamEndCapture", 1800, 2)
    t.save(name)

# 8. a capture run, then four served steps that replay the graph (ten kernels each): the
# executed kernels outnumber the captured calls, so GPU time weighs and the steps are found
t = T()
t.x("python_function", "runner.py(9): capture_one", 1000, 500)
t.sync(1010)
t.x("cuda_runtime", "cudaStreamBeginCapture", 1050, 2)
for i in range(20):
    t.x("cpu_op", "aten::mm", 1065 + 20 * i, 15)
    t.captured(1070 + 20 * i)
t.x("cuda_runtime", "cudaStreamEndCapture", 1480, 2)
for i in range(4):
    b = 2000 + 1000 * i
    t.x("python_function", "serve.py(30): step", b, 900)
    t.captured(b + 10, "cudaGraphLaunch")
    for k in range(10):
        # as Kineto links a graph's kernels to their launch: an ac2g flow each, the launch's id
        t.ev.append({"ph": "X", "cat": "kernel", "name": "g%d" % k, "pid": 0, "tid": 7,
                     "ts": b + 20 + 50 * k, "dur": 40, "args": {"correlation": t.c, "device": 0, "stream": 7}})
        t.ev.append({"ph": "s", "cat": "ac2g", "name": "ac2g", "id": t.c, "pid": 1, "tid": 1, "ts": b + 10})
        t.ev.append({"ph": "f", "cat": "ac2g", "name": "ac2g", "id": t.c, "pid": 0, "tid": 7,
                     "ts": b + 20 + 50 * k, "bp": "e"})
    t.sync(b + 800)
t.save("served.json")
PY
for c in "loop.json 4 period" "layers.json 1 one" "anchor.json 3 anchor" "family.json 4 period" \
	"forward.json 1 one" "threads.json 3 period"; do
	set -- $c
	run tl steps -i "$TMP/$1" -j
	got=$(count "$TMP/out")
	[ "$RC" -eq 0 ] && [ "$got" = "$2 call_tree $3" ]
	ok $? "$1: $2 iteration(s) by $3 (got: $got)"
done
run tl steps -i "$TMP/layers.json" -x,
[ "$(awk -F, 'NR == 2 { print $2 "," $11 }' "$TMP/out")" = "serve.py(10): step,13" ]
ok $? "layers.json: the one iteration is the step that waits, with all 13 GPU events (the layers' and the sampling's)"
run tl steps -i "$TMP/threads.json" -x,
[ "$(awk -F, 'NR > 1 { print $2 }' "$TMP/out" | sort -u)" = "## forward ##" ] && [ "$(awk -F, 'NR == 2 { print $11 }' "$TMP/out")" = 3 ]
ok $? "threads.json: the main thread's iterations, each with its backward's kernel (3 GPU events)"
run tl steps -i "$TMP/capture.json" -j
[ "$RC" -eq 0 ] && [ "$(count "$TMP/out")" = "1 call_tree one" ] && grep -q '"weighed_by":"launch_calls"' "$TMP/out" &&
	grep -q '"name":"runner.py(9): capture_one"' "$TMP/out"
ok $? "capture.json: one iteration, the capture run (not the synchronize's __enter__), weighed by launch calls"
run tl steps -i "$TMP/capture.json"
grep -q '^  a capture trace: its kernels were captured into a graph, not run, so its launch calls were weighed instead of GPU time$' "$TMP/out" &&
	grep -q "100.0% of the trace's launch calls" "$TMP/out"
ok $? "capture.json: steps says the iteration was weighed by launch calls, and why"
run tl steps -i "$TMP/nocapture.json" -j
[ "$RC" -eq 0 ] && grep -q '"weighed_by":"gpu_time"' "$TMP/out"
ok $? "nocapture.json (no capture begun): weighed by GPU time"
run tl steps -i "$TMP/served.json" -j
[ "$RC" -eq 0 ] && [ "$(count "$TMP/out")" = "4 call_tree period" ] && grep -q '"weighed_by":"gpu_time"' "$TMP/out"
ok $? "served.json (a capture, then 40 kernels of graph replays): weighed by GPU time, the 4 served steps"
# the report page: a loop found in the call tree gets its per-iteration part; one iteration
# says nothing unless it is a capture run or has a phase (below, on a shared capture trace)
run tl report -i "$TMP/loop.json" --html "$TMP/loop.html"
[ "$RC" -eq 0 ] && grep -q '<h3>Per iteration</h3>' "$TMP/loop.html" && grep -q 'these steps are the loop found in its call tree' "$TMP/loop.html"
ok $? "the page of loop.json: a per-iteration part, saying the steps are the loop of its call tree"
run tl report -i "$TMP/layers.json" --html "$TMP/layers.html"
[ "$RC" -eq 0 ] && ! grep -q '<h3>Per iteration</h3>' "$TMP/layers.html"
ok $? "the page of layers.json (one iteration, no phase, its kernels ran): no per-iteration part"
run tl report -i "$TMP/capture.json" --html "$TMP/capture.html"
[ "$RC" -eq 0 ] && grep -q '<h3>Per iteration</h3>' "$TMP/capture.html" && grep -q 'its call tree no loop' "$TMP/capture.html" &&
	grep -q 'A capture trace: its kernels were captured into a CUDA graph' "$TMP/capture.html" &&
	grep -q 'title="runner.py(9): capture_one">runner.py(9): capture_one</td>' "$TMP/capture.html"
ok $? "the page of capture.json: the capture run's iteration, said to be one found by its launch calls"
c=$I/sglang_decode/capture_traces/bs_32_rank0.json.gz
if [ -f "$c" ]; then
	strip_iterations "$c" "$TMP/cap.json"
	run tl report -i "$TMP/cap.json" --html "$TMP/cap.html"
	"$PYTHON" - "$TMP/cap.html" <<'PY' >&2
import re, sys
p = open(sys.argv[1]).read()
it = p[p.index("<h3>Per iteration</h3>"):]
ph = it[it.index("<h3>Per phase</h3>"):]
# the step: its phase, its call without the directories (the whole name on hover)
assert re.search(r'title="/sgl-workspace/[^"]*cuda_graph_runner\.py\(941\): _capture_graph">\[decode\] '
                 r'cuda_graph_runner\.py\(941\): _capture_graph</td>', it), it[:3000]
assert "from the attention&apos;s shapes" in ph and "the iteration is a graph capture" in ph, ph[:1500]
row = re.search(r"<tr><td[^>]*>decode</td>(.*?)</tr>", ph).group(1)
cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
assert cells[0] == "1" and cells[-2] == "32" and cells[-1] == "\u2013", cells
PY
	ok $? "the page of SGLang's bs_32 capture trace stripped: the decode iteration, no tokens a second for a capture"
else
	skip "$c not found"
fi

run tl kernels -i "$TMP/loop.json" --step 2 -x,
[ "$RC" -eq 0 ] && [ "$(grep -c ",k[0-9]*," "$TMP/out")" = 2 ] && grep -q ",k5," "$TMP/out" && grep -q ",k6," "$TMP/out"
ok $? "--step 2 on found iterations: the third iteration's two kernels"
run tl steps -i "$TMP/loop.json" --steady -j
[ "$RC" -eq 0 ] && grep -q '"summary":"steady"' "$TMP/out"
ok $? "steps --steady on found iterations"

done_testing
