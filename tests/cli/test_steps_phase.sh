#!/bin/sh
# Phases read from the attention's shapes where no annotation says them (issue 28.2;
# core/src/analysis/steps_phase.c): the shared SGLang traces with their annotations stripped
# read as their annotations say; small traces of our own for SDPA decode and prefill, a mixed
# batch, a training step, a trace that does not serve, and an annotation over the shapes.
. "$(dirname "$0")/../taplib.sh"

tl() { "$TLREPLAY" "$@"; }

# phases FILE: each step's "phase batch tokens from" from steps -j
phases() {
	"$PYTHON" -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "step" in r and "summary" not in r:
        print(r["phase"], r["batch_size"], r["tokens"], r["phase_from"])' "$1" | tr '\n' ';'
}

I=$SHARED/traces/TraceLens/tests/traces/inference
for c in "sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz prefill 15 15360" \
	"sglang_decode/sglang_Qwen3-8B_decode.json.gz decode None None"; do
	set -- $c
	if [ ! -f "$I/$1" ]; then
		skip "$I/$1 not found"
		continue
	fi
	run tl steps -i "$I/$1" -j
	ann=$(phases "$TMP/out")
	strip_iterations "$I/$1" "$TMP/s.json"
	run tl steps -i "$TMP/s.json" -j
	got=$(phases "$TMP/out")
	[ "$got" = "$2 $3 $4 shapes;" ] && case $ann in "$2 "*" annotation;") true ;; *) false ;; esac
	ok $? "${1##*/}, annotations stripped: $2 from the attention's shapes ($got), as its annotation said ($ann)"
done
C=$I/sglang_decode/capture_traces/bs_32_rank0.json.gz
if [ -f "$C" ]; then
	run tl steps -i "$C"
	grep -q '^  phases read from the attention.s shapes (no annotation says them)$' "$TMP/out" &&
		grep -q '^   134 decode bs=32 toks=32 ' "$TMP/out"
	ok $? "SGLang's capture trace: ProfilerStep#134 reads as decode bs=32 from its paged attention's q [32, 32, 128]"
	# stripped: the iteration is found by its launch calls (its kernels were captured, not run),
	# so it holds the captured attention, not the pre-capture synchronize's call (it was once
	# graphs.py's __enter__, 0.86 ms, with no phase)
	strip_iterations "$C" "$TMP/cs.json"
	run tl steps -i "$TMP/cs.json"
	grep -q '^  phases read from the attention.s shapes (no annotation says them)$' "$TMP/out" &&
		grep -q '^     0 decode bs=32 toks=32 ' "$TMP/out"
	ok $? "SGLang's capture trace, annotations stripped: its one iteration reads as decode bs=32 too"
else
	skip "$C not found"
fi

"$PYTHON" - "$TMP" <<'PY'
import json, os, sys
out = sys.argv[1]

class T:
    def __init__(self):
        self.ev, self.c = [], 0
    def x(self, cat, name, ts, dur, args=None):
        e = {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur}
        if args:
            e["args"] = args
        self.ev.append(e)
    def op(self, name, ts, dims, kname="k"):
        self.x("cpu_op", name, ts, 10, {"Input Dims": dims})
        self.c += 1
        self.x("cuda_runtime", "cudaLaunchKernel", ts + 1, 2, {"correlation": self.c})
        self.ev.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": 7, "ts": ts + 5, "dur": 20,
                        "args": {"correlation": self.c, "device": 0, "stream": 7}})
    def step(self, n, ts, name=None):
        self.x("user_annotation", name or "ProfilerStep#%d" % n, ts, 100)
    def save(self, name):
        json.dump({"traceEvents": self.ev}, open(os.path.join(out, name), "w"))

SDPA = "aten::scaled_dot_product_attention"
# Hugging Face generate: a prefill of 4 prompts of 100 tokens, then two decode steps over the cache
t = T()
t.step(1, 1000); t.op(SDPA, 1010, [[4, 16, 100, 64], [4, 16, 100, 64], [4, 16, 100, 64], []])
t.step(2, 1100); t.op(SDPA, 1110, [[4, 16, 1, 64], [4, 16, 101, 64], [4, 16, 101, 64], []])
t.step(3, 1200); t.op(SDPA, 1210, [[4, 16, 1, 64], [4, 16, 102, 64], [4, 16, 102, 64], []])
t.save("generate.json")
# a mixed batch: 3 prompts (300 tokens) through variable-length attention, 5 requests decoding
t = T()
t.step(1, 1000)
t.op("vllm::flash_attn_varlen_func", 1010, [[300, 32, 128], [300, 8, 128], [300, 8, 128], [4], [4], []])
t.op("_C::paged_attention_v2", 1040, [[5, 32, 128], [5, 32, 128], [999, 8, 16, 128]])
t.step(2, 1100)
t.op("vllm::flash_attn_varlen_func", 1110, [[8, 32, 128], [8, 8, 128], [8, 8, 128], [9], [9], []])
t.save("mixed.json")
# training: the prefill-shaped forward runs backward, no phase; the trace serves (a decode step)
t = T()
t.step(1, 1000); t.op(SDPA, 1010, [[4, 16, 100, 64], [4, 16, 100, 64], [4, 16, 100, 64], []])
t.x("cpu_op", "autograd::engine::evaluate_function: ScaledDotProductFlashAttentionBackward0", 1050, 20)
t.step(2, 1100); t.op(SDPA, 1110, [[2, 16, 1, 64], [2, 16, 50, 64], [2, 16, 50, 64], []])
t.save("training.json")
# a forward that does not serve (an encoder, a diffusion step): no phases at all
t = T()
t.step(1, 1000); t.op(SDPA, 1010, [[1, 12, 77, 64], [1, 12, 77, 64], [1, 12, 77, 64], []])
t.step(2, 1100); t.op(SDPA, 1110, [[1, 12, 77, 64], [1, 12, 77, 64], [1, 12, 77, 64], []])
t.save("encoder.json")
# an annotation's phase stands over the shapes
t = T()
t.step(0, 1000, "step[DECODE bs=7]"); t.op(SDPA, 1010, [[7, 16, 1, 64], [7, 16, 20, 64], [7, 16, 20, 64], []])
t.step(0, 1100, "step[EXTEND bs=2 toks=64]"); t.op(SDPA, 1110, [[2, 16, 1, 64], [2, 16, 20, 64], [2, 16, 20, 64], []])
t.save("annotated.json")
PY
for c in "generate.json prefill 4 400 shapes;decode 4 4 shapes;decode 4 4 shapes;" \
	"mixed.json mixed 8 305 shapes;decode 8 8 shapes;" \
	"training.json None None None None;decode 2 2 shapes;" \
	"encoder.json None None None None;None None None None;" \
	"annotated.json decode 7 7 annotation;prefill 2 64 annotation;"; do
	f=${c%% *}
	want=${c#* }
	run tl steps -i "$TMP/$f" -j
	got=$(phases "$TMP/out")
	[ "$RC" -eq 0 ] && [ "$got" = "$want" ]
	ok $? "$f: $want (got: $got)"
done
run tl breakdown -i "$TMP/generate.json" --phase decode -x,
[ "$RC" -eq 0 ] && [ "$(awk -F, '$1 == "busy_time" { print $2 }' "$TMP/out")" = 0.04 ]
ok $? "--phase decode on phases read from shapes: the two decode steps' kernels (0.04 ms busy)"
run tl steps -i "$TMP/generate.json"
grep -q '^  phases read from the attention.s shapes (no annotation says them)$' "$TMP/out" &&
	grep -q '^     1 prefill bs=4 toks=400 ' "$TMP/out" && grep -q '^     2 decode bs=4 toks=4 ' "$TMP/out"
ok $? "steps says the phases were read from shapes, and shows them"
run tl breakdown -i "$TMP/encoder.json" --phase prefill
[ "$RC" -eq 1 ] && grep -q "its steps have no phase" "$TMP/err"
ok $? "--phase on a trace that does not serve: no phase, said"

done_testing
