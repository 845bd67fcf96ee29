#!/bin/sh
# tlreplay sweep on tests/fixtures/replay.json: ops x event groups into the
# results store, resuming, sharding, the summary, the chart, the fold, and the
# SLURM example with a stand-in sbatch.
. "$(dirname "$0")/../taplib.sh"

if ! "$PYTHON" -c 'import torch' >/dev/null 2>&1; then
	echo "1..0 # SKIP $PYTHON has no torch"
	exit 0
fi
export TLREPLAY_PYTHON="$PYTHON"
export TLREPLAY_STORE="$TMP/store.jsonl"
F=$ROOT/tests/fixtures/replay.json
NS="--namespace tltest=$ROOT/tests/replay/tlcli_ops.py"
tl() { "$TLREPLAY" "$@"; }
records() { "$PYTHON" -c 'import json,sys; L=[json.loads(l) for l in open(sys.argv[1])]; print(eval(sys.argv[2]))' "$TLREPLAY_STORE" "$1"; }

# the fixture's top 4 by GPU time: mm (too big: refused), addmm x2 (one group), embedding, flash (unavailable)
run tl sweep -i "$F" --top 4 -e task-clock -e page-faults,context-switches --iters 20 $NS
[ "$RC" -eq 0 ] && grep -q "4 ops x 2 event groups: 6 measured, 0 already in .*, 2 failed" "$TMP/err"
ok $? "sweep: 4 ops x 2 groups; the two ops that cannot replay are tried once each ($(tail -1 "$TMP/err"))"
grep -q '^tlreplay: sweep: op [0-9]* (UID 30) aten::mm: replay failed: the 2 tensors need .* GiB' "$TMP/err" &&
	grep -q '^tlreplay: sweep: op [0-9]* (UID 40) aiter::mha_fwd: replay unavailable: op aiter::mha_fwd is not in torch' "$TMP/err" &&
	grep -q '2 failed (each named above, with why; --retry-failed runs them again)$' "$TMP/err"
ok $? "sweep: each failed op named as it fails, with its UID and why (issue 29.6)"
[ "$(records 'sum(1 for l in L if l["command"] == "sweep")')" = 6 ] &&
	[ "$(records 'sorted(set(l["events"] for l in L if l["status"] == "ok"))')" = "['page-faults,context-switches', 'task-clock']" ]
ok $? "sweep: every result is in the store with its event group"
grep -q "^aten::addmm (uid 0)" "$TMP/out" && grep -Eq "^    task-clock \(msec\) +[0-9.e-]+ per call" "$TMP/out" &&
	grep -q "^aten::mm (uid 30) *- " "$TMP/out"
ok $? "sweep: the summary has each op, its counters per call, and - where it could not replay"

run tl fold -i "$F" -o "$TMP/groups.json"
"$PYTHON" - "$TMP/groups.json" <<'EOF2'
import json, sys
t = json.load(open(sys.argv[1]))["traceEvents"][0]["args"]["tlreplay"]
pc = {}
for r in t["replays"]:
    pc.update(r.get("per_call", {}))
assert {"task-clock", "page-faults", "context-switches"} <= set(pc), t
EOF2
ok $? "fold keeps every event group of a sweep (one result per group, not only the last)"

run tl sweep -i "$F" --top 4 -e task-clock -e page-faults,context-switches --iters 20 $NS
[ "$RC" -eq 0 ] && grep -q "0 measured, 8 already in" "$TMP/err"
ok $? "sweep again: everything is in the store, nothing runs again"
run tl sweep -i "$F" --top 4 -e task-clock -e cpu-migrations --iters 20 $NS
grep -q "2 measured, 6 already in" "$TMP/err"
ok $? "sweep with a new group: only the new group runs ($(tail -1 "$TMP/err"))"
run tl sweep -i "$F" --top 4 -e task-clock --iters 20 --retry-failed $NS
grep -q "2 measured, 2 already in" "$TMP/err"
ok $? "--retry-failed: the failed ops run again"

# sharding: two shards of the same sweep cover it exactly once
rm -f "$TMP/s0.jsonl" "$TMP/s1.jsonl"
tl sweep -i "$F" --top 4 -e task-clock --iters 20 --shard 0/2 --store "$TMP/s0.jsonl" $NS >/dev/null 2>&1
tl sweep -i "$F" --top 4 -e task-clock --iters 20 --shard 1/2 --store "$TMP/s1.jsonl" $NS >/dev/null 2>&1
[ "$(cat "$TMP/s0.jsonl" "$TMP/s1.jsonl" | wc -l)" -eq 4 ] &&
	[ "$(cat "$TMP/s0.jsonl" "$TMP/s1.jsonl" | "$PYTHON" -c 'import json,sys; print(len({json.loads(l)["uid"] for l in sys.stdin}))')" -eq 4 ]
ok $? "--shard 0/2 and 1/2: each op measured once over the two stores"
run tl fold -i "$F" -o "$TMP/merged.json" --store "$TMP/s0.jsonl" --store "$TMP/s1.jsonl"
[ "$RC" -eq 0 ] && grep -q "folded 2 results" "$TMP/err"
ok $? "fold --store A --store B: the shards' results fold together ($(cat "$TMP/err"))"

# two sweeps of one store side by side share the work: each measurement
# runs once (each used to run all 6, 12 records)
rm -f "$TMP/both.jsonl"
tl sweep -i "$F" --top 4 -e task-clock -e page-faults --iters 3000 --store "$TMP/both.jsonl" $NS >/dev/null 2>"$TMP/a.err" &
pa=$!
tl sweep -i "$F" --top 4 -e task-clock -e page-faults --iters 3000 --store "$TMP/both.jsonl" $NS >/dev/null 2>"$TMP/b.err"
rb=$?
wait $pa
ra=$?
ma=$(sed -n 's/.*: \([0-9]*\) measured.*/\1/p' "$TMP/a.err")
mb=$(sed -n 's/.*: \([0-9]*\) measured.*/\1/p' "$TMP/b.err")
[ "$ra$rb" = 00 ] && [ "$(wc -l <"$TMP/both.jsonl")" -eq 6 ] && [ $((ma + mb)) -eq 6 ]
ok $? "two sweeps of one store at once: 6 records, each measured once ($ma + $mb measured)"
[ "$(stat -c %a "$TMP/both.jsonl.claims")" = "$(printf '%o' $((0666 & ~$(umask))))" ] && [ ! -s "$TMP/both.jsonl.claims" ]
ok $? "the claims beside the store: an empty file of mode 0666 & ~umask"

# a claim held by a sweep that dies before its result: waited for, then run
rm -f "$TMP/held.jsonl"
"$PYTHON" - "$TMP/held.jsonl.claims" <<'EOF2' &
import fcntl, os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o666)
fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0))
open(sys.argv[1] + ".held", "w").close()
time.sleep(2)
os._exit(9)
EOF2
hp=$!
for _ in $(seq 100); do [ -e "$TMP/held.jsonl.claims.held" ] && break; sleep 0.05; done
t0=$(date +%s.%N)
run tl sweep -i "$F" --top 4 -e task-clock --iters 20 --store "$TMP/held.jsonl" $NS
t1=$(date +%s.%N)
wait $hp
[ "$RC" -eq 0 ] && grep -q "4 measured, 0 already in" "$TMP/err" && [ "$(wc -l <"$TMP/held.jsonl")" -eq 4 ] &&
	"$PYTHON" -c 'import sys; sys.exit(float(sys.argv[2]) - float(sys.argv[1]) < 1.5)' "$t0" "$t1"
ok $? "a claim held by a sweep that died: waited for, then measured here ($(tail -1 "$TMP/err"))"

run tl sweep -i "$F" --top 4 -e task-clock --iters 20 --chart "$TMP/chart.svg" -o "$TMP/folded.json.gz" $NS
[ "$RC" -eq 0 ] && "$PYTHON" -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$TMP/chart.svg" &&
	grep -q "aten::addmm (uid 0)" "$TMP/chart.svg" && grep -q "task-clock (msec)" "$TMP/chart.svg"
ok $? "--chart FILE.svg: a well-formed SVG with the ops and the counter panels"
"$PYTHON" -c 'import gzip, json, sys; d = json.load(gzip.open(sys.argv[1])); assert d["traceEvents"][0]["args"]["tlreplay"]' "$TMP/folded.json.gz"
ok $? "-o FOLDED.json.gz: the results folded into a copy of the trace"
if command -v rsvg-convert >/dev/null 2>&1; then
	run tl sweep -i "$F" --top 4 -e task-clock --iters 20 --chart "$TMP/chart.png" --peak-gflops 100 --peak-gbs 20 $NS
	[ "$RC" -eq 0 ] && [ "$(head -c 4 "$TMP/chart.png" | od -An -c | tr -d ' ')" = "211PNG" ]
	ok $? "--chart FILE.png through rsvg-convert"
else
	skip "rsvg-convert not installed"
fi

# an IR file instead of a trace
tl ir -i "$F" 0 10 --no-torch -o "$TMP/two.json" 2>/dev/null
run tl sweep "$TMP/two.json" -e task-clock --iters 20 --store "$TMP/ir-store.jsonl"
[ "$RC" -eq 0 ] && grep -q "2 ops x 1 event groups: 2 measured" "$TMP/err"
ok $? "sweep IR.json: the file's entries"

# bad input
run tl sweep -i "$F" --shard 2/2
[ "$RC" -eq 1 ] && grep -q "not K/N" "$TMP/err"
ok $? "--shard K/N with K >= N: refused"
run tl sweep -i "$F" --no-store
[ "$RC" -eq 1 ] && grep -q "lives in its results store" "$TMP/err"
ok $? "--no-store: refused"
run tl sweep -i "$F" -e bogus-event --top 1 --iters 5
[ "$RC" -eq 1 ] && grep -q "bogus-event" "$TMP/err"
ok $? "an unknown event: the sweep stops with one line naming it"
run tl sweep -i "$F" --top 1 --chart "$TMP/chart.gif" -e task-clock --iters 5
[ "$RC" -eq 1 ] && grep -qi "gif\|extension\|svg" "$TMP/err"
ok $? "--chart with an unknown format: an error ($(tail -1 "$TMP/err"))"

# the SLURM example with a stand-in sbatch that runs each job at once
mkdir "$TMP/bin"
cat >"$TMP/bin/sbatch" <<'EOF'
#!/bin/bash
arr="" wrap=""
for a in "$@"; do case "$a" in --array=*) arr=${a#--array=} ;; --wrap=*) wrap=${a#--wrap=} ;; esac; done
if [ -n "$arr" ]; then
	for ((i = ${arr%-*}; i <= ${arr#*-}; i++)); do SLURM_ARRAY_TASK_ID=$i bash -c "$wrap" >>"$SBATCH_LOG" 2>&1; done
else
	bash -c "$wrap" >>"$SBATCH_LOG" 2>&1
fi
echo 42
EOF
chmod +x "$TMP/bin/sbatch"
run env PATH="$TMP/bin:$PATH" SBATCH_LOG="$TMP/sbatch.log" TLREPLAY="$TLREPLAY" \
	bash "$ROOT/scripts/slurm-sweep.sh" "$F" "$TMP/slurm" 3 -- --top 4 -e task-clock --iters 20 $NS
[ "$RC" -eq 0 ] && [ -s "$TMP/slurm/results-0.jsonl" ] && [ -s "$TMP/slurm/results-2.jsonl" ] &&
	[ "$(wc -l <"$TMP/slurm/merged.jsonl")" -eq 4 ] && [ -s "$TMP/slurm/folded.json.gz" ] && [ -s "$TMP/slurm/chart.png" -o ! -x "$(command -v rsvg-convert)" ]
ok $? "scripts/slurm-sweep.sh: 3 array tasks, stores merged, chart and fold from the merged store"

done_testing
