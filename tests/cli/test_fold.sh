#!/bin/sh
# tlreplay fold: results of a hand-written store folded into a copy of
# tests/fixtures/replay.json. The records carry the trace's identity, whose
# sig is computed here from the formula of docs/results-store.md (CRC-32 of
# the size and the first and last MiB), so the C implementation is checked
# against the documentation as well.
. "$(dirname "$0")/../taplib.sh"

if ! "$TLREPLAY" fold --help >/dev/null 2>&1; then
	echo "1..0 # SKIP tlreplay has no fold command"
	exit 0
fi

T=$ROOT/tests/fixtures/replay.json
tl() { "$TLREPLAY" "$@"; }
py() { "$PYTHON" "$@"; }

# record TRACE_ID UID OP DEVICE COMMAND TIME MEDIAN [EXTRA]: one store line
record() {
	printf '{"v":1,"time":"%s","host":"h","pid":1,"command":"%s","tlreplay":"0.1.0","python":"/usr/bin/python3","torch":"2.4.0","device":"%s","device_name":"cpu","trace":%s,"uid":%s,"op":"%s","status":"ok","iters":10,"warmup":2,"time_us":{"median":%s,"mean":%s,"std":0.1,"min":%s,"max":%s}%s}\n' \
		"$6" "$5" "$4" "$1" "$2" "$3" "$7" "$7" "$7" "$7" "$8"
}

ID=$(store_trace_id "$T")
OTHER='{"path":"/elsewhere/other.json","size":12,"sig":"0123456789abcdef"}'
S=$TMP/store.jsonl
{
	record "$ID" 0 aten::addmm cpu uid 2025-01-01T00:00:01.000Z 20
	record "$ID" 0 aten::addmm cpu uid 2025-01-01T00:00:02.000Z 12.5
	record "$ID" 0 aten::addmm cuda:0 uid 2025-01-01T00:00:03.000Z 4 ',"kernels":["gemm_kernel_sm90"],"kernels_vs_trace":"MATCH"'
	record "$ID" 0 aten::addmm cpu stat 2025-01-01T00:00:04.000Z 13 ',"counters":[{"event":"task-clock","value":1.5,"unit":"msec","raw":1500000,"enabled_ns":1500000,"running_ns":1500000,"status":"counted","per_call":0.15,"variance":1.2},{"event":"cycles","value":null,"unit":"","raw":0,"enabled_ns":0,"running_ns":0,"status":"not supported"}]'
	record "$ID" 10 aten::embedding cpu uid 2025-01-01T00:00:05.000Z 3.25
	record "$OTHER" 0 aten::addmm cpu uid 2025-01-01T00:00:06.000Z 99
	record "$ID" 15 aten::add_ cpu uid 2025-01-01T00:00:07.000Z 1 | sed 's/"status":"ok"/"status":"failed","error":"boom"/'
} >"$S"

# compare IN OUT: every event of IN is in OUT unchanged but for args.tlreplay,
# the rest of OUT's events are appended tlreplay counter events, top-level
# keys unchanged, plus a "tlreplay" summary
compare() {
	py - "$1" "$2" <<'EOF'
import gzip, json, sys
def load(p):
    return json.load(gzip.open(p) if p.endswith(".gz") else open(p))
a, b = load(sys.argv[1]), load(sys.argv[2])
ea, eb = a["traceEvents"], b["traceEvents"]
n = len(ea)
assert len(eb) > n, "no counter events"
for e in eb[n:]:
    assert e["ph"] == "C" and e["cat"] == "tlreplay" and e["name"] == "tlreplay", e
    assert all(isinstance(v, (int, float)) for v in e["args"].values()), e
for i, (x, y) in enumerate(zip(ea, eb)):
    args = y.get("args")
    if isinstance(args, dict) and "tlreplay" in args:
        del args["tlreplay"]
        if not args and "args" not in x:
            del y["args"]
    assert x == y, (i, x, y)
for k in a:
    if k != "traceEvents":
        assert a[k] == b[k], k
assert isinstance(b.get("tlreplay"), dict)
EOF
}

# ---------------------------------------------------------------- fold
cp "$T" "$TMP/copy.json"	# a copy still matches its results by sig
SUM=$(sha256sum <"$TMP/copy.json")
run tl fold -i "$TMP/copy.json" --store "$S" -o "$TMP/out.json"
[ "$RC" -eq 0 ] && [ -s "$TMP/out.json" ] && grep -q "folded 4 results (2 ops, 2 kernels" "$TMP/err"
ok $? "fold -o: exit 0, 4 results, 2 ops, 2 kernels"
[ "$RC" -eq 0 ] || diag "$(cat "$TMP/err")"
[ "$(sha256sum <"$TMP/copy.json")" = "$SUM" ]
ok $? "the input is unchanged (sha256)"
compare "$TMP/copy.json" "$TMP/out.json" 2>"$TMP/cmp"
ok $? "Python reads it; original events unchanged but for args.tlreplay; C events appended"
[ -s "$TMP/cmp" ] && diag "$(tail -3 "$TMP/cmp")"

py - "$TMP/out.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
a = ev[0]["args"]["tlreplay"]
assert a["cpu_median_us"] == 12.5 and a["cuda_median_us"] == 4, a
assert a["trace_gpu_us"] == 5 and abs(a["replay_over_trace"] - 0.8) < 1e-12, a
assert [(r["device"], r["command"]) for r in a["replays"]] == [("cpu", "stat"), ("cpu", "uid"), ("cuda:0", "uid")], a
st = a["replays"][0]
assert st["counters"] == {"task-clock": 1.5, "cycles": "<not supported>"}, st
assert st["per_call"] == {"task-clock": 0.15} and st["counter_units"] == {"task-clock": "msec"}, st
assert a["replays"][2]["kernels_vs_trace"] == "MATCH"
k = ev[2]["args"]["tlreplay"]
assert k["op_uid"] == 0 and k["op"] == "aten::addmm" and k["cuda_median_us"] == 4, k
assert ev[10]["args"]["tlreplay"]["cpu_median_us"] == 3.25
assert ev[12]["args"]["tlreplay"]["op_uid"] == 10 and "cuda_median_us" not in ev[12]["args"]["tlreplay"]
assert "tlreplay" not in ev[15]["args"] and "tlreplay" not in ev[5]["args"]
c = [e for e in ev if e.get("ph") == "C"]
assert {"ts": 10, "pid": 1} == {k: c[0][k] for k in ("ts", "pid")} and c[0]["args"]["cpu replay us"] == 12.5, c[0]
assert any(e["ts"] == 30 and e["args"].get("cpu replay us") == 0 for e in c), c
t = d["tlreplay"]
assert t["records_used"] == 4 and t["records_other_traces"] == 1 and t["records_not_ok"] == 1, t
assert t["records_superseded"] == 1 and t["ops"] == 2 and t["kernels"] == 2, t
assert sorted(t["devices"]) == ["cpu", "cuda:0"] and t["store"].endswith("store.jsonl"), t
EOF
ok $? "args.tlreplay on ops 0 and 10 and on their kernels 2 and 12; counter tracks; summary"

run tl info -i "$TMP/out.json"
[ "$RC" -eq 0 ]
ok $? "tlreplay loads the folded trace"
run tl show -i "$TMP/out.json" 0
[ "$RC" -eq 0 ] && grep -q "cpu_median_us" "$TMP/out"
ok $? "tlreplay show prints the folded args"

# ---------------------------------------------------------------- gzip, default store
TLREPLAY_STORE=$S run tl fold -i "$TMP/copy.json" -o "$TMP/out.json.gz"
[ "$RC" -eq 0 ] && py -c 'import gzip,json,sys; json.load(gzip.open(sys.argv[1]))' "$TMP/out.json.gz" &&
	compare "$TMP/copy.json" "$TMP/out.json.gz"
ok $? ".gz output (store from \$TLREPLAY_STORE) is gzip JSON Python reads"
run tl info -i "$TMP/out.json.gz"
[ "$RC" -eq 0 ]
ok $? "tlreplay loads the .gz output"
[ -z "$(find "$TMP" -name '*.tmp.*')" ]
ok $? "no temporary files left behind"

# ---------------------------------------------------------------- refusals
run tl fold -i "$TMP/copy.json" --store "$S" -o "$TMP/copy.json"
[ "$RC" -eq 1 ] && grep -q "an input of this command" "$TMP/err" && [ "$(sha256sum <"$TMP/copy.json")" = "$SUM" ]
ok $? "-o onto the input is refused, the input untouched"
ln -s "$TMP/copy.json" "$TMP/link.json"
run tl fold -i "$TMP/copy.json" --store "$S" -o "$TMP/link.json"
[ "$RC" -eq 1 ] && grep -q "an input of this command" "$TMP/err"
ok $? "... also through a symlink"
run tl fold -i "$TMP/copy.json" --store "$S"
[ "$RC" -eq 1 ] && grep -q -- "-o OUT is required" "$TMP/err"
ok $? "-o is required"

cp "$S" "$TMP/corrupt.jsonl"
echo 'not a record' >>"$TMP/corrupt.jsonl"
record "$ID" 10 aten::embedding cpu uid 2025-01-02T00:00:00.000Z 1 >>"$TMP/corrupt.jsonl"
run tl fold -i "$TMP/copy.json" --store "$TMP/corrupt.jsonl" -o "$TMP/bad.json"
[ "$RC" -eq 1 ] && grep -q "corrupt.jsonl:8:" "$TMP/err" && [ ! -e "$TMP/bad.json" ] &&
	[ -z "$(find "$TMP" -name 'bad.json*')" ]
ok $? "a corrupt store: exit 1 naming file:line, no output file"

run tl fold -i "$TMP/copy.json" --store "$TMP/none.jsonl" -o "$TMP/bad.json"
[ "$RC" -eq 1 ] && grep -q "no results store at" "$TMP/err" && [ ! -e "$TMP/bad.json" ]
ok $? "a missing store: exit 1, clear message, no output"

record "$OTHER" 0 aten::addmm cpu uid 2025-01-01T00:00:06.000Z 99 >"$TMP/other.jsonl"
record "$OTHER" 1 aten::addmm cpu uid 2025-01-01T00:00:06.000Z 99 >>"$TMP/other.jsonl"
run tl fold -i "$TMP/copy.json" --store "$TMP/other.jsonl" -o "$TMP/bad.json"
[ "$RC" -eq 1 ] && grep -q "no results for .* (2 records, all for other traces)" "$TMP/err" && [ ! -e "$TMP/bad.json" ]
ok $? "no records for this trace: exit 1, says how many are for others, no output"

cp "$S" "$TMP/torn.jsonl"
printf '{"v":1,"time":"2025-01-0' >>"$TMP/torn.jsonl"
run tl fold -i "$TMP/copy.json" --store "$TMP/torn.jsonl" -o "$TMP/torn-out.json"
[ "$RC" -eq 0 ] && grep -q "last record is torn" "$TMP/err" && compare "$TMP/copy.json" "$TMP/torn-out.json"
ok $? "a torn last record: warned about and ignored"

done_testing
