#!/bin/sh
# tlreplay critpath: a hand-written trace whose path was worked out by hand
# (tests/fixtures/critpath_basic.json, timeline below), HTA's critical-path
# test traces (the checks of tests/test_critical_path_analysis.py that state
# answers for them), the path re-checked by Python from the trace itself,
# --fold, and bad input.
. "$(dirname "$0")/../taplib.sh"

F=$ROOT/tests/fixtures/critpath_basic.json
H=$SHARED/traces/HolisticTraceAnalysis/tests/data/critical_path
tl() { "$TLREPLAY" "$@"; }

# check_path TRACE JSONL: the path of `critpath -j` is a chain of nodes of the
# trace's events (each edge's node times are those of the trace), its weights
# add up to its length, the categories add up too, and no weight is negative.
check_path() {
	"$PYTHON" - "$1" "$2" <<'PY'
import gzip, json, sys
op = gzip.open if open(sys.argv[1], 'rb').read(2) == b'\x1f\x8b' else open
d = json.load(op(sys.argv[1], 'rt'))
ev = d['traceEvents'] if isinstance(d, dict) else d
rows = [json.loads(l) for l in open(sys.argv[2])]
summ = [r for r in rows if r['row'] == 'summary'][0]
edges = [r for r in rows if r['row'] == 'edge']
cats = [r for r in rows if r['row'] == 'category']
def t(uid, node):
    e = ev[uid]
    return e['ts'] + (e['dur'] if node == 'end' else 0)
assert len(edges) == summ['path_edges'], 'edge count'
for a, b in zip(edges, edges[1:]):
    assert (a['to_uid'], a['to_node']) == (b['from_uid'], b['from_node']), ('not a chain', a, b)
# HTA's weights: a dependency or sync edge, and the span of a blocking call, weigh 0
blocking = {'cudaDeviceSynchronize', 'cudaStreamSynchronize', 'cudaEventQuery', 'cudaEventSynchronize', 'cudaMemcpy'}
for e in edges:
    assert e['time_us'] >= 0
    if e['edge'] in ('sync', 'dependency') or (e['edge'] == 'op' and e['to_node'] == 'end' and
                                                ev[e['to_uid']].get('name') in blocking):
        assert e['time_us'] == 0, e
    else:
        assert abs(t(e['to_uid'], e['to_node']) - t(e['from_uid'], e['from_node']) - e['time_us']) < 1e-3, e
tot = sum(e['time_us'] for e in edges)
assert abs(tot - summ['length_us']) < 1e-3 * max(1, len(edges)), (tot, summ['length_us'])
assert abs(sum(c['time_us'] for c in cats) - summ['length_us']) < 1e-3 * max(1, len(edges))
uids = {e['from_uid'] for e in edges} | {e['to_uid'] for e in edges}
assert len(uids) == summ['path_events'], (len(uids), summ['path_events'])
print('ok')
PY
}

# The fixture (us, one host thread, stream 7):
#   fwd 1000-1100 [ aten::mm 1010-1030 [ launch 1012-1018 -> gemm 1020-1070 ]
#                   aten::add 1035-1045 [ launch 1037-1042 -> add_kernel 1075-1085 (queued) ]
#                   cudaDeviceSynchronize 1050-1090   optimizer 1095-1098 ]
# Weights as HTA's (docs/analyses.md): sync and dependency edges and the span of a
# blocking call (cudaDeviceSynchronize) weigh 0; add_kernel was queued behind gemm,
# so it gets a stream-order edge and no launch edge. The trace has no cuda_sync
# events, so by HTA's definition nothing says the synchronize call waited for
# add_kernel: the path ends at add_kernel's end, fwd.s -10-> mm.s -2-> launch.s
# -8 (launch)-> gemm.s -50-> gemm.e -5-> add_kernel.s -10-> .e = 85 us, 6 edges,
# 5 events (cpu 12, kernel 60, gpu_gap 5, launch_delay 8); the graph has no sync
# edge (17 edges: the launches' spans come from HTA's runtime-lock pass).
run tl critpath -i "$F" -j
[ "$RC" -eq 0 ] && "$PYTHON" -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
s = r[0]
assert (s["length_us"], s["path_edges"], s["path_events"]) == (85.0, 6, 5), s
assert (s["graph_edges"], s["graph_op"], s["graph_sync"]) == (17, 15, 0), s
c = {x["name"]: x["time_us"] for x in r if x["row"] == "category"}
assert c == {"cpu": 12.0, "kernel": 60.0, "gpu_gap": 5.0, "launch_delay": 8.0, "sync_wait": 0.0}, c
e = [(x["from_uid"], x["to_uid"], x["edge"], x["time_us"]) for x in r if x["row"] == "edge"]
assert e == [(1, 2, "op", 10.0), (2, 3, "op", 2.0), (3, 5, "launch_delay", 8.0), (5, 5, "op", 50.0),
             (5, 10, "kernel_gap", 5.0), (10, 10, "op", 10.0)], e
' "$TMP/out"
ok $? "fixture: HTA's path without cuda_sync events (85 us, 6 edges, no sync edge)"

# With --sync-calls the synchronize call waits for the work on its streams.
# Path: fwd.s -10-> mm.s -2-> launch.s -8 (launch)-> gemm.s -50-> gemm.e -5 (stream
# order)-> add_kernel.s -10-> .e -0 (sync: the call waited for it)-> sync.e -5->
# optimizer.s -3-> .e -2-> fwd.e = 95 us, 10 edges, 7 events:
# cpu 10+2+5+3+2 = 22, kernel 60, gpu_gap 5, launch_delay 8, sync_wait 0.
# (The CPU alone: 10+2+6+12+5+2+5+3+5+0+5+3+2 = 60.)
# Graph: 9 events = 18 nodes; op edges 13 on the CPU + 2 kernels, 1 launch,
# 1 stream-order edge, 1 sync edge (cudaDeviceSynchronize drains add_kernel).
run tl critpath -i "$F" -j --sync-calls
cp "$TMP/out" "$TMP/fx.jsonl"
[ "$RC" -eq 0 ] && "$PYTHON" -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
s = r[0]
assert (s["length_us"], s["path_edges"], s["path_nodes"], s["path_events"]) == (95.0, 10, 11, 7), s
assert (s["graph_nodes"], s["graph_edges"], s["graph_op"], s["graph_launch_delay"], s["graph_kernel_gap"],
        s["graph_sync"], s["graph_dependency"]) == (18, 18, 15, 1, 1, 1, 0), s
c = {x["name"]: x["time_us"] for x in r if x["row"] == "category"}
assert c == {"cpu": 22.0, "kernel": 60.0, "gpu_gap": 5.0, "launch_delay": 8.0, "sync_wait": 0.0}, c
e = [(x["from_uid"], x["from_node"], x["to_uid"], x["to_node"], x["edge"], x["time_us"]) for x in r if x["row"] == "edge"]
assert e == [(1, "start", 2, "start", "op", 10.0), (2, "start", 3, "start", "op", 2.0),
             (3, "start", 5, "start", "launch_delay", 8.0), (5, "start", 5, "end", "op", 50.0),
             (5, "end", 10, "start", "kernel_gap", 5.0), (10, "start", 10, "end", "op", 10.0),
             (10, "end", 12, "end", "sync", 0.0), (12, "end", 13, "start", "op", 5.0),
             (13, "start", 13, "end", "op", 3.0), (13, "end", 1, "end", "op", 2.0)], e
' "$TMP/fx.jsonl"
ok $? "fixture --sync-calls: the hand-computed path (95 us, 10 edges in order, categories, graph counts)"

[ "$(check_path "$F" "$TMP/fx.jsonl")" = ok ]
ok $? "fixture: the path re-checked from the trace (chain, spans, sums)"

run tl critpath -i "$F" -x, --sync-calls
[ "$RC" -eq 0 ] && [ "$(head -1 "$TMP/out")" = "row,name,kind,time us,percent,count,from uid,from node,to uid,to node,edge,attr uid" ] &&
	grep -qx 'summary,path,,95.0,100.0,10,,,,,,' "$TMP/out" &&
	grep -q '^category,kernel,,60.0,63.157' "$TMP/out" &&
	grep -qx 'edge,cudaDeviceSynchronize,sync_wait,0.0,0.0,1,10,end,12,end,sync,12' "$TMP/out" &&
	[ "$(grep -c '^edge,' "$TMP/out")" -eq 10 ]
ok $? "fixture -x,: header, summary, category and edge rows"

run tl critpath -i "$F" --sync-calls
[ "$RC" -eq 0 ] && grep -q '^path: 0.095 ms, 10 edges, 11 nodes, 7 events$' "$TMP/out" &&
	grep -Eq '^ +0\.050 +52\.63% +1  kernel +gemm$' "$TMP/out"
ok $? "fixture human: summary line, gemm the top contributor (52.63%)"

# A window that holds only aten::add and its kernel: add.s -2-> launch.s -38-> add_kernel.s
# -10-> .e (the kernel's previous event is outside the window: no stream-order edge).
run tl critpath -i "$F" --window 1034:1046 -j
[ "$RC" -eq 0 ] && "$PYTHON" -c '
import json, sys
s = json.loads(open(sys.argv[1]).readline())
assert (s["length_us"], s["path_edges"], s["graph_nodes"]) == (50.0, 3, 6), s
' "$TMP/out"
ok $? "--window 1034:1046: aten::add, its launch and kernel only (50 us, 3 edges)"

# --fold: a copy with args.critical=1 on exactly the path's events and an s/f
# flow pair per edge between two events; the input is untouched.
sum0=$(cksum <"$F")
run tl critpath -i "$F" --sync-calls --fold "$TMP/fold.json"
[ "$RC" -eq 0 ] && [ "$(cksum <"$F")" = "$sum0" ] && "$PYTHON" -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
crit = [i for i, e in enumerate(ev) if e.get("ph") == "X" and e.get("args", {}).get("critical") == 1]
assert crit == [1, 2, 3, 5, 10, 12, 13], crit
fl = [e for e in ev if e.get("cat") == "critical_path"]
assert sorted(e["ph"] for e in fl) == ["f"] * 7 + ["s"] * 7, fl
assert all(e["args"]["critical"] == 1 for e in fl)
assert len(ev) == 14 + 14
' "$TMP/fold.json" && ls "$TMP" | grep -vq 'fold.json.tmp'
ok $? "--fold: critical=1 on the 7 path events, 7 s/f flow pairs, input unchanged"

run tl critpath -i "$TMP/fold.json" -j --sync-calls
[ "$RC" -eq 0 ] && cmp -s "$TMP/out" "$TMP/fx.jsonl"
ok $? "--fold output loads in tlreplay and gives the same path"

# HTA's traces. The HTA checks that give answers for them:
#  test_critical_path_analysis_event_sync_multistream: 3 cudaEventRecord calls are
#  waited on (its _get_cuda_event_record_df has 3 rows), SYNC_DEPENDENCY edges exist;
#  test_critical_path_inter_stream_sync (alexnet, annotation
#  "[param|pytorch.model.alex_net|0|0|0|measure|forward]", instance 1): a non-empty
#  path and SYNC_DEPENDENCY edges in the graph. Both lengths are also held against
#  HTA run on them (tests/conformance/hta-critpath/, scripts/make-hta-critpath.sh).
MS=$H/cuda_event_sync_multi_stream/event_sync_trace.json.gz
if [ -f "$MS" ]; then
	run tl critpath -i "$MS" -j
	cp "$TMP/out" "$TMP/ms.jsonl"
	recs=$("$PYTHON" -c '
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1], "rt"))["traceEvents"]
rec = {e["args"]["correlation"] for e in ev if e.get("name") == "cudaEventRecord"}
print(len({e["args"].get("wait_on_cuda_event_record_corr_id") for e in ev if e.get("cat") == "cuda_sync"} & rec))
' "$MS")
	[ "$RC" -eq 0 ] && [ "$recs" = 3 ] && "$PYTHON" -c '
import json, sys
s = json.loads(open(sys.argv[1]).readline())
assert s["event_records"] == 3 and s["graph_sync"] > 0, s
# the whole trace: the length HTA gives (tests/conformance/hta-critpath/event_sync_multi_stream.json)
assert s["length_us"] == 1178.0, s
' "$TMP/ms.jsonl"
	ok $? "HTA event_sync_multistream: 3 event records waited on, sync edges, HTA's length 1.178 ms"
	[ "$(check_path "$MS" "$TMP/ms.jsonl")" = ok ]
	ok $? "HTA event_sync_multistream: the path re-checked from the trace"
else
	skip "no $MS"
	skip "no $MS"
fi

AX=$(ls "$H"/alexnet/*.json.gz 2>/dev/null | head -1)
if [ -n "$AX" ]; then
	win=$("$PYTHON" -c '
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1], "rt"))["traceEvents"]
a = sorted((e["ts"], e["dur"]) for e in ev if e.get("name") == "[param|pytorch.model.alex_net|0|0|0|measure|forward]")
ts, dur = a[1]
print("%r:%r" % (ts, ts + dur))
' "$AX")
	run tl critpath -i "$AX" --window "$win" -j
	cp "$TMP/out" "$TMP/ax.jsonl"
	[ "$RC" -eq 0 ] && "$PYTHON" -c '
import json, sys
s = json.loads(open(sys.argv[1]).readline())
assert s["path_edges"] > 0 and s["graph_sync"] > 0, s
# HTA: 35834 us in whole microseconds (tests/conformance/hta-critpath/alexnet.json)
assert abs(s["length_us"] - 35834.0) < 2, s
' "$TMP/ax.jsonl"
	ok $? "HTA alexnet, measure forward instance 1: sync edges, HTA's length 35.834 ms (within its rounding)"
	[ "$(check_path "$AX" "$TMP/ax.jsonl")" = ok ]
	ok $? "HTA alexnet: the path re-checked from the trace"
	run tl critpath -i "$AX" --window "$win" --fold "$TMP/ax.json"
	[ "$RC" -eq 0 ] && "$PYTHON" -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
rows = [json.loads(l) for l in open(sys.argv[2])]
want = {r["from_uid"] for r in rows if r["row"] == "edge"} | {r["to_uid"] for r in rows if r["row"] == "edge"}
got = {i for i, e in enumerate(ev) if e.get("ph") == "X" and e.get("args", {}).get("critical") == 1}
assert got == want, (len(got), len(want))
n = sum(1 for r in rows if r["row"] == "edge" and r["from_uid"] != r["to_uid"])
assert sum(1 for e in ev if e.get("cat") == "critical_path" and e["ph"] == "s") == n
' "$TMP/ax.json" "$TMP/ax.jsonl"
	ok $? "HTA alexnet --fold: critical=1 on exactly the path's events, one flow pair per edge"
else
	skip "no alexnet trace"
	skip "no alexnet trace"
	skip "no alexnet trace"
fi

# --step N: the window is ProfilerStep#N's interval
BT=$SHARED/traces/HolisticTraceAnalysis/tests/data/call_stack/backward_thread.json
if [ -f "$BT" ]; then
	run tl critpath -i "$BT" --step 552 -j
	[ "$RC" -eq 0 ] && "$PYTHON" -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
st = [e for e in ev if e.get("name") == "ProfilerStep#552"][0]
s = json.loads(open(sys.argv[2]).readline())
assert (s["t0"], s["t1"]) == (st["ts"], st["ts"] + st["dur"]), s
assert s["path_edges"] > 0
' "$BT" "$TMP/out" && [ "$(check_path "$BT" "$TMP/out")" = ok ]
	ok $? "--step 552 (HTA backward_thread.json): the step's window, a valid path"
else
	skip "no $BT"
fi

# bad input
run tl critpath -i "$TMP/missing.json"
[ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q missing.json "$TMP/err"
ok $? "missing trace: one-line error, non-zero exit"
run tl critpath -i "$F" --step 3
[ "$RC" -ne 0 ] && grep -q 'ProfilerStep#3' "$TMP/err"
ok $? "--step of a step that does not exist: error naming it"
for w in 5 5: a:b 9:1 1:1; do
	run tl critpath -i "$F" --window "$w"
	[ "$RC" -ne 0 ] && grep -q "bad --window '$w'" "$TMP/err" || break
done
ok $? "bad --window values: error naming the value"
run tl critpath -i "$F" --step x
[ "$RC" -ne 0 ] && grep -q "bad --step 'x'" "$TMP/err"
ok $? "bad --step value"
run tl critpath -i "$F" --step 1 --window 1:2
[ "$RC" -ne 0 ] && grep -q 'exclude' "$TMP/err"
ok $? "--step with --window: error"
run tl critpath -i "$F" --window 5000:6000
[ "$RC" -ne 0 ] && grep -q 'no CPU op, runtime call or GPU event in the window' "$TMP/err"
ok $? "an empty window: error"
run tl critpath -i "$F" --fold "$TMP/nodir/x.json"
[ "$RC" -ne 0 ] && grep -q 'nodir/x.json: cannot create' "$TMP/err" && [ ! -e "$TMP/nodir" ]
ok $? "--fold into a missing directory: error"
run tl critpath -i "$F" extra
[ "$RC" -ne 0 ]
ok $? "a stray argument: error"

# HTA's backward-thread merge: one thread has a "forward" op, another an
# "autograd" one, so the second's events go on the first's call stack, where
# an end pops whatever is on top. forward 10-110 (tid 1) and the backward op
# 30-200 (tid 2) overlap: the backward op nests under forward, and the path
# fwd.s -20-> bwd.s -170-> bwd.e is 190 us (forward's end, 90 us earlier than
# the backward op's, is a step back in time the path leaves off). Without
# the merge (no "autograd" name) the longest is the backward op alone, 170 us.
mk_merge() { # NAME-OF-THE-BACKWARD-OP
	printf '{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":300},
{"ph":"X","cat":"cpu_op","name":"forward","pid":1,"tid":1,"ts":10,"dur":100},
{"ph":"X","cat":"cpu_op","name":"%s","pid":1,"tid":2,"ts":30,"dur":170}]}\n' "$1" >"$TMP/merge.json"
}
mk_merge "autograd::engine::evaluate_function: AddBackward0"
run tl critpath -i "$TMP/merge.json" --step 1 -j
[ "$RC" -eq 0 ] && "$PYTHON" -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
e = [(x["from_uid"], x["from_node"], x["to_uid"], x["to_node"], x["time_us"]) for x in r if x["row"] == "edge"]
assert (r[0]["length_us"], e) == (190.0, [(1, "start", 2, "start", 20.0), (2, "start", 2, "end", 170.0)]), (r[0], e)
' "$TMP/out"
ok $? "backward thread merged into the forward one: overlapping ops nest as on HTA's stack (190 us)"
mk_merge "AddBackward0"
run tl critpath -i "$TMP/merge.json" --step 1 -j
[ "$RC" -eq 0 ] && [ "$(head -1 "$TMP/out" | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["length_us"])')" = 170.0 ]
ok $? "no autograd thread, no merge: the longest thread alone (170 us)"

# --hta: HTA's whole microseconds, starts rounded up and ends down
printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10.4,"dur":5.2}]}\n' >"$TMP/frac.json"
a=$("$TLREPLAY" critpath -i "$TMP/frac.json" -j | head -1 | "$PYTHON" -c 'import json,sys; print("%.1f" % json.load(sys.stdin)["length_us"])')
b=$("$TLREPLAY" critpath -i "$TMP/frac.json" -j --hta | head -1 | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["length_us"])')
[ "$a" = 5.2 ] && [ "$b" = 4.0 ]
ok $? "--hta: 10.4+5.2 us is 11..15 as HTA has it (4 us; 5.2 without --hta; got $a, $b)"

done_testing
