#!/bin/sh
# tlreplay steps and --step: a hand-written trace whose answers were worked
# out by hand (tests/fixtures/steps_basic.json, timeline below), a real
# trace checked against an independent Python reference (steps_ref.py:
# plain json, links by correlation id), and bad input.
. "$(dirname "$0")/../taplib.sh"

F=$ROOT/tests/fixtures/steps_basic.json
tl() { "$TLREPLAY" "$@"; }
# field FILE STEP COL: column COL of step STEP's -x, row
field() { awk -F, -v s="$2" -v c="$3" '$1 == s { print $c }' "$1"; }

# The fixture (us; host pid 100, thread 100 unless said):
#   ProfilerStep#1 1000-1100: launches at 1012 (k1 1050-1070, stream 7), 1035 (k2 1070-1080),
#     1060 (ncclKernel 1075-1100, stream 9), 1090 (memcpy 1110-1120), and on thread 200 at
#     1040 (k5 1080-1085): 5 GPU events, span 1050-1120 = 70, busy 50 + 10 = 60,
#     compute |1050-1085| = 35, exposed comm 1085-1100 = 15, exposed memcpy 10, idle 10
#   ProfilerStep#2 1100-1150: launches at 1101 (k3 1130-1150), 1110 (k4 1150-1160):
#     span 30 = busy = compute, idle 0
#   wall 100 and 50: min 50, median 75, max 100, mean 75, stdev sqrt(2 * 25^2) = 35.355
run tl steps -i "$F" -x,
[ "$RC" -eq 0 ] && [ "$(head -1 "$TMP/out")" = "step,name,uid,wall ms,gpu span ms,busy ms,computation ms,exposed comm ms,exposed memcpy ms,idle ms,gpu events,phase,batch size,tokens" ] &&
	[ "$(grep -c . "$TMP/out")" -eq 3 ]
ok $? "steps -x,: header and one row per step"
[ "$(sed -n 2p "$TMP/out")" = "1,ProfilerStep#1,2,0.1,0.07,0.06,0.035,0.015,0.01,0.01,5,,," ]
ok $? "step 1: wall 0.1, span 0.07, busy 0.06, compute 0.035, exposed comm 0.015, memcpy 0.01, idle 0.01 ms, 5 GPU events (one launched from another thread)"
[ "$(sed -n 3p "$TMP/out")" = "2,ProfilerStep#2,26,0.05,0.03,0.03,0.03,0.0,0.0,0.0,2,,," ]
ok $? "step 2: the kernels launched inside it, though they run after it ended"

run tl steps -i "$F" -j
[ "$RC" -eq 0 ] && "$PYTHON" -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
s = rows[-1]
assert len(rows) == 3 and s["summary"] == "wall" and s["steps"] == 2 and s["slowest_step"] == 1
assert (s["min_ms"], s["median_ms"], s["max_ms"], s["mean_ms"]) == (0.05, 0.075, 0.1, 0.075)
assert abs(s["stdev_ms"] - 0.0353553390593) < 1e-9
' "$TMP/out"
ok $? "steps -j: slowest step 1, min/median/max/mean 0.05/0.075/0.1/0.075 ms, stdev 0.0354"

run tl steps -i "$F"
[ "$RC" -eq 0 ] && grep -q "^slowest: step 1 (ProfilerStep#1), 0.100 ms wall, 0.060 ms GPU busy" "$TMP/out" &&
	grep -q "min 0.050, median 0.075, max 0.100, mean 0.075, stdev 0.035 ms" "$TMP/out"
ok $? "steps: the human table ends with the slowest step and the spread"

run tl breakdown -i "$F" --step 1 -x,
[ "$RC" -eq 0 ] && grep -qx "busy_time,0.06,85.71428571428571" "$TMP/out" &&
	grep -qx "exposed_comm_time,0.015,21.428571428571427" "$TMP/out" && grep -q "^total_time,0.07," "$TMP/out"
ok $? "breakdown --step 1: the numbers of step 1's row"
run tl breakdown -i "$F" --step 2 -x,
[ "$RC" -eq 0 ] && grep -qx "busy_time,0.03,100.0" "$TMP/out" && grep -q "^total_comm_time,0.0," "$TMP/out"
ok $? "breakdown --step 2: no comm, no idle"
run tl ops -i "$F" --step 1 -x,
[ "$RC" -eq 0 ] && grep -q "^aten::mm," "$TMP/out"
r1=$?
run tl ops -i "$F" --step 2 -x,
[ "$r1" -eq 0 ] && ! grep -q "^aten::mm," "$TMP/out"
ok $? "ops --step: aten::mm in step 1 only"
run tl kernels -i "$F" --step 2 -x,
[ "$RC" -eq 0 ] && grep -q k3_add "$TMP/out" && grep -q k4_mul "$TMP/out" && ! grep -q k1_gemm "$TMP/out"
ok $? "kernels --step 2: its kernels only"

# bad input
run tl breakdown -i "$F" --step 99
[ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "no step 99; the steps are 1, 2" "$TMP/err"
ok $? "--step 99: one line that lists the steps there are"
run tl ops -i "$F" --step x
[ "$RC" -ne 0 ] && grep -q "bad --step 'x'" "$TMP/err"
ok $? "--step x: bad value"
# a trace that launches nothing from a host thread has nothing to find steps by (a trace
# without annotations has them found in the call tree: test_steps_calltree.sh)
"$PYTHON" -c '
import json, sys
j = json.load(open(sys.argv[1]))
j["traceEvents"] = [e for e in j["traceEvents"] if e.get("cat") != "cuda_runtime" and "ProfilerStep" not in e.get("name", "")]
json.dump(j, open(sys.argv[2], "w"))' "$F" "$TMP/nosteps.json"
run tl steps -i "$TMP/nosteps.json"
[ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "no steps in the trace" "$TMP/err"
ok $? "steps on a trace without steps: one-line error"
run tl breakdown -i "$TMP/nosteps.json" --step 1
[ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "no steps in the trace" "$TMP/err"
ok $? "--step on a trace without steps: one-line error"

# vLLM iteration annotations stand for the steps when there is no ProfilerStep
sed -e 's/ProfilerStep#1/execute_context_1(10)_generation_2(2)/g' \
	-e 's/ProfilerStep#2/execute_context_0(0)_generation_4(4)/g' "$F" >"$TMP/vllm.json"
run tl steps -i "$TMP/vllm.json" -x,
[ "$RC" -eq 0 ] && [ "$(sed -n 2p "$TMP/out")" = "0,execute_context_1(10)_generation_2(2),2,0.1,0.07,0.06,0.035,0.015,0.01,0.01,5,mixed,3,12" ] &&
	[ "$(sed -n 3p "$TMP/out" | cut -d, -f1,4-)" = "1,0.05,0.03,0.03,0.03,0.0,0.0,0.0,2,decode,4,4" ]
ok $? "vLLM iteration annotations: steps 0 and 1, the same numbers; phases from the context/generation counts"
run tl steps -i "$TMP/missing.json"
[ "$RC" -ne 0 ] && [ -s "$TMP/err" ]
ok $? "steps: missing trace is an error"

# a real trace: HTA's test rank (ProfilerStep#550..554, NCCL, a backward thread)
T=$SHARED/traces/HolisticTraceAnalysis/tests/data/negative_queue_length_values_check/rank0.json.gz
if [ -r "$T" ]; then
	"$PYTHON" "$ROOT/tests/cli/steps_ref.py" "$T" | grep '^step ' >"$TMP/ref"
	run tl steps -i "$T" -j
	"$PYTHON" -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "step" in r:
        print("step %d %.3f %.3f %.3f %d" % (r["step"], r["wall_ms"], r["busy_ms"], r["computation_ms"], r["gpu_events"]))
' "$TMP/out" >"$TMP/mine"
	[ "$RC" -eq 0 ] && [ "$(wc -l <"$TMP/ref")" -eq 5 ] && diff "$TMP/ref" "$TMP/mine" >&2
	ok $? "HTA rank0: 5 steps, wall/busy/compute/GPU events as the Python reference"
	run tl steps -i "$T" -x,
	b=$(awk -F, '$1 == 553 { print $6 "," $7 "," $8 "," $9 "," $10 }' "$TMP/out")
	run tl breakdown -i "$T" --step 553 -x,
	[ "$RC" -eq 0 ] && [ "$b" = "80.96,36.029,37.302,7.629,294.174" ] &&
		[ "$(awk -F, '$1 == "busy_time" { print $2 }' "$TMP/out")" = 80.96 ] &&
		[ "$(awk -F, '$1 == "exposed_comm_time" { print $2 }' "$TMP/out")" = 37.302 ]
	ok $? "HTA rank0: breakdown --step 553 = steps' row for 553 (busy 80.96, exposed comm 37.302 ms)"
	# steps and annotations count a ProfilerStep's GPU work by different rules, and say so (issue 29.7)
	run tl annotations -i "$T" --name '^ProfilerStep#553$' -x,
	a=$(awk -F, 'NR == 2 { print $5 }' "$TMP/out")
	run tl steps -i "$T" -x,
	s=$(awk -F, '$1 == 553 { print $11 }' "$TMP/out")
	[ "$a" = 820 ] && [ "$s" = 1375 ] && tl steps --help | tr '\n' ' ' |
		grep -q "\`annotations\` counts a range's own thread's only" &&
		tl annotations --help | tr '\n' ' ' | grep -q "A range counts its own thread's launches only" &&
		grep -q "three times as much. Use \`steps\` for an iteration's GPU time" "$ROOT/docs/analyses.md"
	ok $? "ProfilerStep#553: annotations 820 GPU events (its thread's), steps 1375 (every thread's); both helps and the docs say why"
else
	skip "$T not found"
	skip "$T not found"
	skip "$T not found"
fi

# SGLang writes vLLM's execute_... annotation around its own step[...] on the same thread: one
# iteration, not a phantom step holding the few kernels launched before step[...] began (issue 28.1)
S=$SHARED/traces/TraceLens/tests/traces/inference
for case in "sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode step[EXTEND bs=15 toks=15360] 534" \
	"sglang_decode/sglang_Qwen3-8B_decode step[DECODE bs=32] 558"; do
	t=${case%% *}
	rest=${case#* }
	inner=${rest% *}
	n=${rest##* }
	if [ -f "$S/$t.json.gz" ]; then
		run tl steps -i "$S/$t.json.gz" -j
		"$PYTHON" -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
steps = [r for r in rows if "step" in r]
assert len(steps) == 1, steps
s = steps[0]
assert s["name"].startswith("execute_") and s["inner"] == sys.argv[2] and s["gpu_events"] == int(sys.argv[3]), s
' "$TMP/out" "$inner" "$n" 2>"$TMP/py"
		ok $? "${t##*/}: execute_... and the $inner nested in it are one iteration, $n GPU events"
	else
		skip "$S/$t.json.gz not found"
	fi
done
# nesting on another thread is not one iteration
"$PYTHON" - "$F" "$TMP/nest.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
ev = [e for e in j["traceEvents"] if not e.get("name", "").startswith("ProfilerStep")]
ev.append({"ph": "X", "cat": "user_annotation", "name": "execute_context_1(10)_generation_2(2)", "ts": 1000, "dur": 150,
           "pid": 100, "tid": 100})
ev.append({"ph": "X", "cat": "user_annotation", "name": "step[EXTEND bs=1 toks=10]", "ts": 1010, "dur": 80,
           "pid": 100, "tid": 100})
ev.append({"ph": "X", "cat": "user_annotation", "name": "step[DECODE bs=1]", "ts": 1100, "dur": 40,
           "pid": 100, "tid": 200})
j["traceEvents"] = ev
json.dump(j, open(sys.argv[2], "w"))
PY
run tl steps -i "$TMP/nest.json" -x,
[ "$RC" -eq 0 ] && [ "$(grep -c '^[0-9]' "$TMP/out")" = 2 ] && grep -q '^0,execute_context_1' "$TMP/out" &&
	grep -q '^1,step\[DECODE bs=1\]' "$TMP/out"
ok $? "nested serving annotations: one iteration on the same thread, another thread's stays its own"
# phases (issue 28.2): the inner step[EXTEND ...] says prefill (the outer execute_ alone would
# say mixed), the other thread's step[DECODE bs=1] decode
run tl steps -i "$TMP/nest.json" -j
"$PYTHON" -c '
import json, sys
s = [json.loads(l) for l in open(sys.argv[1])][:2]
assert [(r["phase"], r["batch_size"], r["tokens"]) for r in s] == [("prefill", 1, 10), ("decode", 1, 1)], s
' "$TMP/out"
ok $? "steps -j: each serving iteration's phase, batch size and tokens (SGLang's inner annotation first)"
run tl breakdown -i "$TMP/nest.json" --phase decode -x,
dec=$(awk -F, '$1 == "busy_time" { print $2 }' "$TMP/out")
run tl steps -i "$TMP/nest.json" -x,
[ -n "$dec" ] && [ "$dec" = "$(awk -F, '$1 == 1 { print $6 }' "$TMP/out")" ]
ok $? "breakdown --phase decode: the decode iteration's busy time alone ($dec ms)"
run tl breakdown -i "$TMP/nest.json" --phase mixed
[ "$RC" -eq 1 ] && grep -q 'no mixed iteration; the trace has 1 prefill, 1 decode, 0 mixed' "$TMP/err"
ok $? "--phase with no such iteration: said, with the phases there are"
run tl breakdown -i "$F" --phase decode
[ "$RC" -eq 1 ] && grep -q 'its steps have no phase (phases come from vLLM/SGLang iteration annotations, or the shapes of a serving trace.s attention)' "$TMP/err"
ok $? "--phase on ProfilerStep#N steps: they have no phase, said"
run tl breakdown -i "$TMP/nest.json" --phase warmup
[ "$RC" -eq 1 ] && grep -q "bad --phase 'warmup' (prefill, decode or mixed)" "$TMP/err"
ok $? "--phase: a bad value is named"
run tl report -i "$TMP/nest.json" --phase decode --step 1 -o "$TMP/rep"
[ "$RC" -eq 1 ] && grep -q -- '--step, --phase and --steady: give one of them' "$TMP/err"
ok $? "--step with --phase is refused"
# the steady state (issue 28.3): eight steps, the first a graph capture, the second
# compilation, the third a slow warm-up, four steady ones, and a short last one
"$PYTHON" - "$TMP/steady.json" <<'PY'
import json, sys
ev, ts = [], 1000
durs = [500, 300, 200, 100, 104, 97, 101, 40]
for n, d in enumerate(durs, 1):
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % n, "ts": ts, "dur": d,
               "pid": 1, "tid": 1})
    if n == 1:
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamBeginCapture", "ts": ts + 5, "dur": 2,
                   "pid": 1, "tid": 1})
    if n == 2:
        ev.append({"ph": "X", "cat": "python_function", "name": "torch/_dynamo/convert_frame.py(1020): __call__",
                   "ts": ts + 5, "dur": 200, "pid": 1, "tid": 1})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": ts + 1, "dur": 1, "pid": 1,
               "tid": 1, "args": {"correlation": n}})
    ev.append({"ph": "X", "cat": "kernel", "name": "k%d" % n, "ts": ts + 2, "dur": 10 * n, "pid": 0, "tid": 7,
               "args": {"correlation": n, "device": 0, "stream": 7}})
    ts += d
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
run tl steps -i "$TMP/steady.json" --steady
[ "$RC" -eq 0 ] && grep -q '^steady: steps 4 to 7 (4 of 8; wall time median 0.101 ms, cv 2.9%' "$TMP/out" &&
	grep -q '^  left out: step 1, graph capture' "$TMP/out" && grep -q '^  left out: step 2, compilation' "$TMP/out" &&
	grep -q '^  left out: step 3, warm-up (2.02x the median)' "$TMP/out" &&
	grep -q '^  left out: step 8, wrap-up (0.40x the median)' "$TMP/out" && [ "$(grep -c 'ProfilerStep#' "$TMP/out")" -ge 4 ] &&
	! grep -q '^ *3 ProfilerStep#3 ' "$TMP/out" && grep -q '^wall time over 4 steps: min 0.097, median 0.101, max 0.104' "$TMP/out"
ok $? "steps --steady: steps 4-7; 1 graph capture, 2 compilation, 3 warm-up, 8 wrap-up, each said"
run tl steps -i "$TMP/steady.json" --steady -j
"$PYTHON" -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
s = [r for r in rows if r.get("summary") == "steady"][0]
assert (s["first_step"], s["last_step"], s["steps"], s["of"]) == (4, 7, 4, 8), s
assert [(o["step"], o["why"]) for o in s["left_out"]] == [(1, "graph capture"), (2, "compilation"), (3, "warm-up"), (8, "wrap-up")], s
assert [r["step"] for r in rows if "step" in r and "summary" not in r] == [4, 5, 6, 7], rows
' "$TMP/out"
ok $? "steps --steady -j: the window's rows and a steady summary with the left-out steps"
run tl kernels -i "$TMP/steady.json" --steady -x,
[ "$RC" -eq 0 ] && [ "$(grep -c ',k[0-9],' "$TMP/out")" = 4 ] && grep -q ',k4,' "$TMP/out" && grep -q ',k7,' "$TMP/out" &&
	! grep -q ',k3,\|,k8,' "$TMP/out"
ok $? "kernels --steady: the kernels of steps 4-7 only"
run tl breakdown -i "$TMP/steady.json" --steady --phase decode
[ "$RC" -eq 1 ] && grep -q -- '--step, --phase and --steady: give one of them' "$TMP/err"
ok $? "--steady with --phase is refused"

V=$S/vllm_prefilldecode_piecewise/graph_execution.json.gz
if [ -f "$V" ]; then
	run tl steps -i "$V" -j
	p=$("$PYTHON" -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline()); print(r["phase"], r["batch_size"], r["tokens"])' "$TMP/out")
	run tl breakdown -i "$V" -x,
	all=$(cat "$TMP/out")
	run tl breakdown -i "$V" --phase mixed -x,
	[ "$p" = "mixed 46 8192" ] && [ "$(cat "$TMP/out")" = "$all" ]
	ok $? "vLLM piecewise trace: one mixed iteration of 46 requests, 8192 tokens; --phase mixed = the whole trace"
else
	skip "$V not found"
fi

done_testing
