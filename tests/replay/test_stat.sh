#!/bin/sh
# tlreplay stat (perf stat over the timed replay only), perf's control protocol
# from the workload side, and the results store + fold round trip, on
# tests/fixtures/replay.json with the real worker. Software events only: the
# VMs this runs on count no hardware events (they print <not supported>).
. "$(dirname "$0")/../taplib.sh"

if ! "$PYTHON" -c 'import torch' >/dev/null 2>&1; then
	echo "1..0 # SKIP $PYTHON has no torch"
	exit 0
fi
export TLREPLAY_PYTHON="$PYTHON"
export TLREPLAY_STORE="$TMP/store/results.jsonl"
F=$ROOT/tests/fixtures/replay.json
tl() { "$TLREPLAY" "$@"; }
py() { # py FILE EXPR: EXPR over L = the JSON objects of FILE's lines
	"$PYTHON" - "$1" "$2" <<'EOF'
import json, sys
L = []
for line in open(sys.argv[1]):
    try:
        L.append(json.loads(line))
    except ValueError:
        pass
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)
EOF
}

# ---------------------------------------------------------------- output formats
run tl stat -i "$F" -e task-clock,page-faults,cycles uid 0 --iters 500
[ "$RC" -eq 0 ] && [ ! -s "$TMP/out" ] &&
	grep -q "Performance counter stats for 'tlreplay uid 0' (aten::addmm on cpu, 500 calls per run)" "$TMP/err" &&
	grep -Eq '^ +[0-9]+\.[0-9]{2} msec task-clock +# +[0-9.]+ CPUs utilized' "$TMP/err" &&
	grep -Eq '^ +[0-9]+ +page-faults' "$TMP/err" && grep -q "seconds time elapsed" "$TMP/err"
ok $? "stat: perf's human table, on stderr"
grep -Eq '^ +(<not supported>|[0-9]+) +cycles' "$TMP/err"
ok $? "stat: a hardware event is counted or <not supported>, and the others still count"

run tl stat -i "$F" -x, -e task-clock,page-faults uid 0 --iters 200
awk -F, 'NR == 1 { exit !(NF == 7 && $2 == "msec" && $3 == "task-clock" && $5 == "100.00" && $7 == "CPUs utilized") }' "$TMP/err" &&
	awk -F, 'NR == 2 { exit !($3 == "page-faults" && $2 == "") }' "$TMP/err" && [ "$(wc -l <"$TMP/err")" -eq 2 ]
ok $? "stat -x,: perf's shape, a row per counter (value,unit,event,run,pcnt,metric,metric unit)"
run tl stat -i "$F" -x, --per-call -e task-clock,page-faults uid 0 --iters 200
awk -F, 'NR == 1 { exit !(NF == 7 && $3 == "task-clock") }' "$TMP/err" &&
	awk -F, 'NR == 2 { exit !(NF == 7 && $1 == "" && $6 > 0 && $7 == "msec per call") }' "$TMP/err" &&
	awk -F, 'NR == 3 { exit !($3 == "page-faults" && $2 == "") }' "$TMP/err"
ok $? "stat -x, --per-call: a metric-only row per counter with its value per call (perf's continuation form)"
run tl stat -i "$F" -x, -r 3 -e task-clock uid 0 --iters 200
awk -F, 'NR == 1 { exit !(NF == 8 && $3 == "task-clock" && $4 ~ /^[0-9]+\.[0-9][0-9]%$/) }' "$TMP/err"
ok $? "stat -x, -r 3: the variance field comes before the run time, as perf prints it"
run tl stat -i "$F" -j -r 2 -e task-clock,cycles uid 0 --iters 200
py "$TMP/err" 'len(L) == 2 and isinstance(L[0]["counter-value"], str) and L[0]["unit"] == "msec" and
	L[0]["event"] == "task-clock" and "variance" in L[0] and isinstance(L[0]["event-runtime"], int) and
	L[0]["metric-unit"] == "CPUs utilized" and L[0]["calls"] == 200 and
	abs(L[0]["per-call"] * 200 - float(L[0]["counter-value"])) < 1e-3 and
	L[1]["event"] == "cycles" and L[1]["counter-value"] in ("<not supported>",) + tuple([L[1]["counter-value"]] if L[1]["counter-value"][0].isdigit() else [])'
ok $? "stat -j: perf's keys and types (counter-value a string), per-call and calls"
# A hybrid CPU (cpu_core + cpu_atom PMUs, no cpu PMU) in a stand-in sysfs:
# generic hardware events become one per core PMU, named as perf names them
for p in cpu_core:4 cpu_atom:10; do
	mkdir -p "$TMP/sysfs/bus/event_source/devices/${p%:*}" &&
		echo "${p#*:}" >"$TMP/sysfs/bus/event_source/devices/${p%:*}/type" &&
		echo 0-3 >"$TMP/sysfs/bus/event_source/devices/${p%:*}/cpus"
done
run env TLREPLAY_SYSFS_ROOT="$TMP/sysfs" "$TLREPLAY" stat -i "$F" -j -e task-clock,cycles,instructions uid 0 --iters 50 --no-store
py "$TMP/err" '[l["event"] for l in L] == ["task-clock", "cpu_atom/cycles/", "cpu_core/cycles/",
	"cpu_atom/instructions/", "cpu_core/instructions/"] and float(L[0]["counter-value"]) > 0'
ok $? "stat on a hybrid CPU: cycles and instructions counted on each core PMU (cpu_atom/, cpu_core/)"

run tl stat -i "$F" -e task-clock -o "$TMP/stat.txt" uid 0 --iters 100
[ "$RC" -eq 0 ] && grep -q "task-clock" "$TMP/stat.txt" && ! grep -q "task-clock" "$TMP/err"
ok $? "stat -o FILE: the table goes to the file"

# ---------------------------------------------------------------- GPU metrics and energy
# (no GPU here: both are <not supported>, with the reason, and the rest counts)
run tl stat -i "$F" -j -e 'task-clock,nvgpu/dram__bytes_read.sum/,nvml/energy-gpu0/' uid 0 --iters 50 --no-store
py "$TMP/err" '[l["event"] for l in L] == ["task-clock", "nvgpu/dram__bytes_read.sum/", "nvml/energy-gpu0/"] and
	float(L[0]["counter-value"]) > 0 and L[1]["counter-value"] == "<not supported>" and
	L[1]["why"] == "the replay device is cpu" and L[2]["counter-value"] == "<not supported>" and "NVML" in L[2]["why"]'
ok $? "stat -e nvgpu/METRIC/,nvml/energy-gpu0/ without a GPU: <not supported> with the reason, in the order typed"
run tl stat -i "$F" -e '{task-clock,nvgpu/dram__bytes_read.sum/}' uid 0
[ "$RC" -eq 1 ] && grep -q "cannot be in a {group}" "$TMP/err"
ok $? "a GPU metric inside a {group} of CPU events: refused"
run tl stat -i "$F" -e 'nvml/power/' uid 0
[ "$RC" -eq 1 ] && grep -q "nvml/energy-gpuN/" "$TMP/err"
ok $? "an NVML event that is not nvml/energy-gpuN/: refused"

# ---------------------------------------------------------------- the region only
run tl stat -i "$F" -x, -e task-clock uid 0 --iters 3000 --warmup 0
ours=$(awk -F, 'NR == 1 { print $1 }' "$TMP/err")
if command -v perf >/dev/null 2>&1 && perf stat -e task-clock true >/dev/null 2>&1; then
	rm -f "$TMP/ctl" "$TMP/ack" && mkfifo "$TMP/ctl" "$TMP/ack"
	# perf counts the whole tlreplay process tree, but only between the enable
	# and the disable that tlreplay sends around the timed calls
	perf stat -D -1 --control "fifo:$TMP/ctl,$TMP/ack" -x, -e task-clock -o "$TMP/perf.csv" -- \
		env PERF_STAT_CTL_FIFO="$TMP/ctl" PERF_STAT_ACK_FIFO="$TMP/ack" \
		"$TLREPLAY" uid -i "$F" 0 -r 3000 --warmup 0 --no-store >/dev/null 2>"$TMP/err"
	theirs=$(awk -F, '$3 == "task-clock" { print $1 }' "$TMP/perf.csv")
	perf stat -x, -e task-clock -o "$TMP/whole.csv" -- "$TLREPLAY" uid -i "$F" 0 -r 3000 --warmup 0 \
		--no-store >/dev/null 2>&1
	whole=$(awk -F, '$3 == "task-clock" { print $1 }' "$TMP/whole.csv")
	"$PYTHON" -c "import sys; a, b, w = $ours, ${theirs:-0}, ${whole:-0}; sys.exit(not (0.4 < a / b < 2.5 and w > 3 * b))"
	ok $? "perf stat --control around tlreplay uid agrees with tlreplay stat (task-clock $theirs vs $ours msec; whole run $whole)"
	exec 7<>"$TMP/ctl" 8<>"$TMP/ack"
	perf stat -D -1 --control fd:7,8 -x, -e task-clock -o "$TMP/perf2.csv" -- \
		env PERF_CTL_FD=7 PERF_ACK_FD=8 "$TLREPLAY" uid -i "$F" 0 -r 3000 --warmup 0 --no-store >/dev/null 2>&1
	RC=$?
	exec 7>&- 8>&-
	theirs=$(awk -F, '$3 == "task-clock" { print $1 }' "$TMP/perf2.csv")
	[ "$RC" -eq 0 ] && "$PYTHON" -c "import sys; sys.exit(not (0.4 < $ours / ${theirs:-0.000001} < 2.5))"
	ok $? "the same through --control fd:CTL,ACK and PERF_CTL_FD/PERF_ACK_FD ($theirs msec)"
	# the README's line as pasted (issue 29.5): no env, relative fifos; tlreplay reads the
	# channel from the perf that started it
	(cd "$TMP" && rm -f ctl ack && mkfifo ctl ack &&
		perf stat -D -1 --control fifo:ctl,ack -x, -e task-clock -o perf3.csv -- \
			"$TLREPLAY" uid -i "$F" 0 -r 3000 --warmup 0 --no-store >/dev/null 2>&1)
	RC=$?
	theirs=$(awk -F, '$3 == "task-clock" { print $1 }' "$TMP/perf3.csv")
	[ "$RC" -eq 0 ] && "$PYTHON" -c "import sys; sys.exit(not (0.4 < $ours / ${theirs:-0.000001} < 2.5))"
	ok $? "perf stat -D -1 --control fifo:ctl,ack -- tlreplay uid: the channel read from perf's command line ($theirs msec)"
	(cd "$TMP" && exec 7<>ctl 8<>ack && perf stat -D -1 --control fd:7,8 -x, -e task-clock -o perf4.csv -- \
		"$TLREPLAY" uid -i "$F" 0 -r 3000 --warmup 0 --no-store >/dev/null 2>&1)
	RC=$?
	theirs=$(awk -F, '$3 == "task-clock" { print $1 }' "$TMP/perf4.csv")
	[ "$RC" -eq 0 ] && "$PYTHON" -c "import sys; sys.exit(not (0.4 < $ours / ${theirs:-0.000001} < 2.5))"
	ok $? "perf stat -D -1 --control fd:7,8 -- tlreplay uid, no env: the same ($theirs msec)"
else
	skip "perf cannot count here"
	skip "perf cannot count here"
	skip "perf cannot count here"
	skip "perf cannot count here"
fi
run tl uid -i "$F" 0 -r 2 --control "fd:99,98"
[ "$RC" -eq 1 ] && grep -q "fd 99 or 98 is not open" "$TMP/err"
ok $? "--control with fds that are not open: one line"
run tl uid -i "$F" 0 -r 2 --control "pipe:1"
[ "$RC" -eq 1 ] && grep -q "neither fd:CTL" "$TMP/err"
ok $? "--control with a bad spec: one line"

# ---------------------------------------------------------------- bad input
run tl stat -i "$F" -e instrctions uid 0
[ "$RC" -eq 1 ] && grep -q "instrctions" "$TMP/err" && grep -q "instructions" "$TMP/err" && [ "$(wc -l <"$TMP/err")" -eq 1 ]
ok $? "stat -e with a typo: one line naming it and the close names ($(cat "$TMP/err"))"
run tl stat -i "$F" -r 0 uid 0
[ "$RC" -eq 1 ] && grep -q "number of runs" "$TMP/err"
ok $? "stat -r 0: refused"
run tl stat -i "$F" -e task-clock 0
[ "$RC" -eq 1 ] && grep -q "usage: tlreplay stat" "$TMP/err"
ok $? "stat without 'uid UID': usage"
run tl stat -i "$F" -e task-clock uid 99999
[ "$RC" -eq 1 ] && grep -q "no event with UID 99999" "$TMP/err"
ok $? "stat of an unknown UID: one line"

# ---------------------------------------------------------------- store and fold
rm -rf "$TMP/store"
tl uid -i "$F" 0 -r 3 >/dev/null 2>&1
tl stat -i "$F" -e task-clock,page-faults uid 10 --iters 50 2>/dev/null
tl ir -i "$F" 15 --no-torch -o "$TMP/ir.json" 2>/dev/null
tl replay "$TMP/ir.json" -r 3 >/dev/null 2>&1
py "$TLREPLAY_STORE" '[l["command"] for l in L] == ["uid", "stat", "replay"] and
	[l["uid"] for l in L] == [0, 10, 15] and all(l["status"] == "ok" and l["trace"]["sig"] for l in L) and
	[c["event"] for c in L[1]["counters"]] == ["task-clock", "page-faults"] and
	L[1]["counters"][0]["per_call"] > 0 and L[2]["ir"]["index"] == 0'
ok $? "uid, stat and replay append records (trace identity, counters per call, IR source)"
run tl fold -i "$F" -o "$TMP/folded.json"
[ "$RC" -eq 0 ] && "$PYTHON" - "$TMP/folded.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
assert ev[0]["args"]["tlreplay"]["cpu_median_us"] > 0
t10 = ev[10]["args"]["tlreplay"]
assert any("task-clock" in json.dumps(r) for r in t10["replays"]), t10
assert ev[15]["args"]["tlreplay"]["cpu_median_us"] > 0
assert any(e.get("ph") == "C" and e.get("name") == "tlreplay" for e in ev)
assert d["tlreplay"]["ops"] == 3
EOF
ok $? "fold: the three ops carry their results, with counters; tracks and summary"
# a directory where the store should be (root ignores file modes, so no chmod)
run tl uid -i "$F" 0 -r 2 --store "$TMP/store"
[ "$RC" -eq 1 ] && grep -q "results store .*was not recorded" "$TMP/err" && grep -q "median" "$TMP/out"
ok $? "a store that cannot be written: the result is printed, one line says it was not recorded, exit 1"
run tl uid -i "$F" 0 -r 2 --no-store --store /nonexistent/x.jsonl
[ "$RC" -eq 0 ]
ok $? "--no-store records nothing"

done_testing
