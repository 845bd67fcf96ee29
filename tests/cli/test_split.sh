#!/bin/sh
# tlreplay split (issue 28.4): one trace file per iteration, per phase or of
# the steady state, with manifest.json; each file loads and gives back its
# iteration's numbers exactly; the trace's other top-level members are kept;
# bad input says why and leaves no manifest.
. "$(dirname "$0")/../taplib.sh"

F=$ROOT/tests/fixtures
tl() { "$TLREPLAY" "$@"; }
cd "$TMP" || exit 1

# ------------------------------------------------ serving iterations (vLLM/SGLang annotations)
run tl split -i "$F/serving_phases.json" -o sp
[ "$RC" -eq 0 ] && [ "$(ls sp | tr '\n' ' ')" = "iteration-0.json iteration-1.json iteration-2.json iteration-3.json manifest.json " ] &&
	grep -q 'split .*serving_phases.json into 4 files and sp/manifest.json; they hold 100.0% of its GPU time' "$TMP/err"
ok $? "split: one file per iteration and a manifest"
"$PYTHON" - sp <<'PY' >"$TMP/py" 2>&1
import json, os, sys
d = sys.argv[1]
m = json.load(open(os.path.join(d, "manifest.json")))
assert m["by"] == "iteration" and m["steady"] is False and m["coverage"] == 1 and m["gpu_us"] == 120, m
parts = m["parts"]
assert [p["phase"] for p in parts] == ["prefill", "decode", "decode", "mixed"], parts
assert [p["events"] for p in parts] == [8, 7, 7, 7] and all(p["gpu_events"] == 1 for p in parts), parts
for p in parts:
    ev = json.load(open(os.path.join(d, p["file"])))["traceEvents"]
    assert len(ev) == p["events"], (p, len(ev))
    # a kernel and its launch flow stay together
    assert sum(1 for e in ev if e.get("cat") == "ac2g") == 2, ev
print("ok")
PY
[ $? -eq 0 ]
ok $? "manifest: phases, events and GPU events per file; every file is JSON with its flows ($(tail -1 "$TMP/py"))"
run tl steps -i sp/iteration-1.json -j
[ "$RC" -eq 0 ] && grep -q '"phase":"decode","batch_size":2,"tokens":2' "$TMP/out" && grep -q '"gpu_events":1' "$TMP/out"
ok $? "a split file is a trace tlreplay reads: its one iteration, decode, batch 2"

run tl split -i "$F/serving_phases.json" -o byphase --by phase -j
[ "$RC" -eq 0 ] && [ "$(ls byphase | tr '\n' ' ')" = "decode.json manifest.json mixed.json prefill.json " ] &&
	grep -q '"file":"byphase/decode.json","steps":2,"phase":"decode"' "$TMP/out"
ok $? "split --by phase: prefill.json, decode.json (two iterations), mixed.json; -j lines"
run tl steps -i byphase/decode.json -x,
[ "$RC" -eq 0 ] && [ "$(grep -c ',decode,2,2$' "$TMP/out")" = 2 ]
ok $? "decode.json holds both decode iterations"

# ------------------------------------------------ the steady state
"$PYTHON" - steady.json <<'PY'
import json, sys
ev, ts = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}}], 1000
for n, d in enumerate([500, 300, 100, 104, 97, 101], 1):
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % n, "ts": ts, "dur": d, "pid": 1, "tid": 1})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": ts + 1, "dur": 1, "pid": 1, "tid": 1,
               "args": {"correlation": n}})
    ev.append({"ph": "X", "cat": "kernel", "name": "k%d" % n, "ts": ts + 2, "dur": 10, "pid": 0, "tid": 7,
               "args": {"correlation": n, "device": 0, "stream": 7}})
    ts += d
json.dump({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "X"}], "traceEvents": ev,
           "traceName": "steady"}, open(sys.argv[1], "w"))
PY
run tl split -i steady.json -o st --steady
[ "$RC" -eq 0 ] && [ "$(ls st | tr '\n' ' ')" = "iteration-3.json iteration-4.json iteration-5.json iteration-6.json manifest.json " ] &&
	[ "$("$PYTHON" -c 'import json; print(json.load(open("st/manifest.json"))["steady"])')" = True ]
ok $? "split --steady: the steady iterations 3-6 only"
"$PYTHON" -c '
import json
src = json.load(open("steady.json"))
out = json.load(open("st/iteration-4.json"))
assert {k: v for k, v in out.items() if k != "traceEvents"} == {k: v for k, v in src.items() if k != "traceEvents"}, out.keys()
ev = out["traceEvents"]
assert ev[0]["ph"] == "M" and [e["name"] for e in ev[1:]] == ["ProfilerStep#4", "cudaLaunchKernel", "k4"], ev
m = json.load(open("st/manifest.json"))
assert abs(m["coverage"] - 4 / 6) < 1e-9, m
'
ok $? "a file keeps the trace's other top-level members and its metadata events; coverage 4/6 of the GPU time"

# a bare traceEvents array is split too
"$PYTHON" -c '
import json
print(json.dumps(json.load(open("steady.json"))["traceEvents"]))' >bare.json
run tl split -i bare.json -o bare
[ "$RC" -eq 0 ] && "$PYTHON" -c 'import json; j = json.load(open("bare/iteration-2.json")); assert list(j) == ["traceEvents"] and len(j["traceEvents"]) == 4'
ok $? "a trace that is a bare array: each file an object with traceEvents"

# ------------------------------------------------ errors
run tl split -i "$F/serving_phases.json"
[ "$RC" -eq 1 ] && grep -q 'split: where to? give -o DIR' "$TMP/err"
ok $? "split without -o: said"
run tl split -i "$F/serving_phases.json" -o x --by request
[ "$RC" -eq 1 ] && grep -q "bad --by 'request' (iteration or phase)" "$TMP/err" && [ ! -e x ]
ok $? "split --by: a bad value is named, nothing made"
run tl split -i steady.json -o noph --by phase
[ "$RC" -eq 1 ] && grep -q 'no iteration has a phase' "$TMP/err" && [ ! -e noph/manifest.json ]
ok $? "split --by phase of ProfilerStep iterations: no phases, said, no manifest"
# kernels no host call launched: no annotation, and no call tree to find a loop in
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2}]}' >gpuonly.json
run tl split -i gpuonly.json -o nosteps
[ "$RC" -eq 1 ] && grep -q 'no steps' "$TMP/err" && [ ! -e nosteps/manifest.json ]
ok $? "split of a trace without iterations: said, no manifest"
mkdir ro && chmod 500 ro
if [ "$(id -u)" != 0 ]; then
	run tl split -i steady.json -o ro/sub
	[ "$RC" -eq 1 ] && grep -q 'ro/sub' "$TMP/err"
	ok $? "split into a directory that cannot be made: the path is named"
else
	# root writes anywhere: a file where the directory should be
	: >afile
	run tl split -i steady.json -o afile/sub
	[ "$RC" -eq 1 ] && grep -q 'afile' "$TMP/err" && [ -f afile ]
	ok $? "split into a path under a file: the path is named"
fi

# ------------------------------------------------ a real trace: each file gives back its iteration's row
H=$SHARED/traces/HolisticTraceAnalysis/tests/data/negative_queue_length_values_check/rank0.json.gz
if [ -f "$H" ]; then
	run tl split -i "$H" -o hta
	tl steps -i "$H" -x, 2>/dev/null | tail -n +2 | cut -d, -f1,4-11 >want
	for f in hta/iteration-*.json; do tl steps -i "$f" -x, 2>/dev/null | sed -n 2p | cut -d, -f1,4-11; done >got
	[ "$RC" -eq 0 ] && [ "$(wc -l <want)" -eq 5 ] && diff want got >&2
	ok $? "HTA rank0: each of the 5 files gives back its iteration's wall, span, busy, breakdown and GPU events"
else
	skip "$H not found"
fi

done_testing
