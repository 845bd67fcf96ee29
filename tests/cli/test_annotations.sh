#!/bin/sh
# tlreplay annotations: user annotations projected onto the GPU, on a
# hand-written trace (tests/fixtures/steps_basic.json; its timeline is in
# test_steps.sh), on a real trace against an independent Python reference
# (steps_ref.py), and bad input.
. "$(dirname "$0")/../taplib.sh"

F=$ROOT/tests/fixtures/steps_basic.json
tl() { "$TLREPLAY" "$@"; }
# row FILE NAME WHERE: the -x, row of that range name, without name and where
row() { awk -F, -v n="$2" -v w="$3" '$1 == n && $2 == w { sub("^[^,]*,[^,]*,", ""); print }' "$1"; }

# By hand (us; GPU busy of the trace |1050-1100| + |1110-1120| + |1130-1160| = 90):
#   inner 1010-1030: the launch at 1012 -> k1 1050-1070: 1 event, busy 20, projected 20
#   fwd 1005-1045 (launches 1012, 1035 -> k1, k2: projected 1050-1080 = 30) and
#     fwd 1102-1120 (launch 1110 -> k4 1150-1160: 10): 2 ranges, CPU 58, 3 events,
#     busy 40 (44.44 %), projected 40; inner's k1 counts in fwd too (inclusive)
#   ProfilerStep#1 1000-1100: 4 events of its thread (not k5, launched from thread 200),
#     busy 60, projected 1050-1120 = 70
#   gpu_user_annotation fwd 1050-1080 on stream 7: k1, k2 start inside: 2 events, busy 30
#   gpu_user_annotation ProfilerStep#1 1050-1120 on stream 7: k1 k2 k5 memcpy, busy 45
run tl annotations -i "$F" -x,
cp "$TMP/out" "$TMP/fx.csv"
[ "$RC" -eq 0 ] && [ "$(head -1 "$TMP/fx.csv")" = "name,where,count,cpu ms,gpu events,gpu busy ms,gpu busy percent,gpu proj ms,first uid" ] &&
	[ "$(grep -c . "$TMP/fx.csv")" -eq 7 ]
ok $? "annotations -x,: header, 6 rows (4 CPU names, 2 GPU names)"
[ "$(row "$TMP/fx.csv" inner cpu)" = "1,0.02,1,0.02,22.22222222222222,0.02,4" ]
ok $? "inner: 1 range, 0.02 ms CPU, 1 kernel, busy 0.02 ms (22.2 %), projected 0.02"
[ "$(row "$TMP/fx.csv" fwd cpu)" = "2,0.058,3,0.04,44.44444444444444,0.04,3" ]
ok $? "fwd: 2 ranges, 0.058 ms CPU, 3 kernels (inner's included), busy 0.04 ms (44.4 %), projected 0.04"
[ "$(row "$TMP/fx.csv" 'ProfilerStep#1' cpu)" = "1,0.1,4,0.06,66.66666666666666,0.07,2" ]
ok $? "ProfilerStep#1: the launches of its own thread only (4), projected first start to last end 0.07"
[ "$(row "$TMP/fx.csv" fwd gpu)" = "1,0.0,2,0.03,33.33333333333333,0.03,36" ] &&
	[ "$(row "$TMP/fx.csv" 'ProfilerStep#1' gpu)" = "1,0.0,4,0.045,50.0,0.07,37" ]
ok $? "gpu_user_annotation ranges: the GPU events of their stream that start inside"

run tl annotations -i "$F" --name '^f' -j
[ "$RC" -eq 0 ] && [ "$(grep -c . "$TMP/out")" -eq 2 ] && "$PYTHON" -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert {r["name"] for r in rows} == {"fwd"} and {r["where"] for r in rows} == {"cpu", "gpu"}
c = [r for r in rows if r["where"] == "cpu"][0]
assert c["count"] == 2 and c["gpu_events"] == 3 and c["gpu_busy_ms"] == 0.04 and c["gpu_proj_ms"] == 0.04
' "$TMP/out"
ok $? "--name '^f' -j: fwd only, as JSON lines"

run tl annotations -i "$F"
[ "$RC" -eq 0 ] && grep -q "GPU busy 0.090 ms" "$TMP/out" && grep -q "inclusively" "$TMP/out"
ok $? "annotations: the human table says the GPU busy time and that nesting is inclusive"

run tl annotations -i "$F" --step 2 -x,
[ "$RC" -eq 0 ] && [ "$(row "$TMP/out" fwd cpu)" = "1,0.018,1,0.01,33.33333333333333,0.01,31" ]
ok $? "annotations --step 2: the second fwd only, share of step 2's busy time"

# bad input
run tl annotations -i "$F" --name 'nomatch$x'
[ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "no annotation matches" "$TMP/err"
ok $? "--name that matches nothing: one-line error"
run tl annotations -i "$F" --name '('
[ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "bad --name regex" "$TMP/err"
ok $? "--name '(': bad regex"
"$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["traceEvents"] = [e for e in d["traceEvents"] if "user_annotation" not in e.get("cat", "")]
json.dump(d, open(sys.argv[2], "w"))
' "$F" "$TMP/noann.json"
run tl annotations -i "$TMP/noann.json"
[ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "no user annotation in the trace" "$TMP/err"
ok $? "a trace without annotations: one-line error"
run tl annotations -i "$TMP/missing.json"
[ "$RC" -ne 0 ] && [ -s "$TMP/err" ]
ok $? "missing trace: an error"

T=$SHARED/traces/HolisticTraceAnalysis/tests/data/negative_queue_length_values_check/rank0.json.gz
if [ -r "$T" ]; then
	"$PYTHON" "$ROOT/tests/cli/steps_ref.py" "$T" | grep '^ann ' >"$TMP/ref"
	run tl annotations -i "$T" -j
	"$PYTHON" -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
for r in sorted(rows, key=lambda r: r["name"]):
    if r["where"] == "cpu":
        print("ann %s\t%d %d %.3f %.3f" % (r["name"], r["count"], r["gpu_events"], r["gpu_busy_ms"], r["gpu_proj_ms"]))
' "$TMP/out" >"$TMP/mine"
	[ "$RC" -eq 0 ] && [ "$(wc -l <"$TMP/ref")" -eq 45 ] && diff "$TMP/ref" "$TMP/mine" >&2
	ok $? "HTA rank0: 45 range names, count/GPU events/busy/projected as the Python reference"
else
	skip "$T not found"
fi

done_testing
