#!/bin/sh
# A CPU replay of an op sized for a GPU fits a time budget (issue 29.3): the worker times the
# checked call, then makes only the calls that fit --budget (default 10 s; -r and --min-time
# choose for themselves), says so before it starts when it cuts or takes a few seconds, and a
# batch replay on a terminal shows "[i/n] op: N calls, about S s". The op here sleeps, so the
# counts do not hang on the machine's speed; a loaded machine (make check runs two test files at
# once) only lengthens a call, which the patterns allow.
. "$(dirname "$0")/../taplib.sh"

use_torch_worker
tl() { "$TLREPLAY" "$@"; }

cat >"$TMP/slow.py" <<'PY'
import time
import torch
lib = torch.library.Library("tlslow", "DEF")
lib.define("nap(Tensor x, float s) -> Tensor")
def nap(x, s):
    time.sleep(s)
    return x + 1
lib.impl("nap", nap, "CPU")
PY
# nap(x, S): op 0 sleeps 0.05 s, op 1 0.03 s
"$PYTHON" - "$TMP/nap.json" <<'PY'
import json, sys
ev = [{"ph": "X", "cat": "cpu_op", "name": "tlslow::nap", "pid": 1, "tid": 1, "ts": 100 * i, "dur": 50,
       "args": {"Input Dims": [[4], []], "Input type": ["float", "Double"], "Input Strides": [[1], []],
                "Concrete Inputs": ["", s]}} for i, s in enumerate(["0.05", "0.03"])]
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
NS="--namespace tlslow=$TMP/slow.py"

# the plan's arithmetic (tlreplay_replay/timing.py): what fits, a tenth as warm-up
PYTHONPATH=$ROOT/core/replay "$PYTHON" -c '
from tlreplay_replay.timing import plan_calls
assert plan_calls(0.001, 10, 100, 10.0) == (10, 100, False)   # fits: as asked
assert plan_calls(7.0, 10, 100, 10.0) == (0, 1, True)         # a 7 s call: one timed call
assert plan_calls(0.05, 10, 100, 1.0) == (2, 18, True)        # 20 fit: 2 warm-up, 18 timed
assert plan_calls(0.05, 10, 100, 0.0) == (10, 100, False)     # no budget
'
ok $? "plan_calls: the asked counts when they fit; else what fits, a tenth warm-up, at least one timed call"

run tl uid -i "$TMP/nap.json" 0 --budget 1 $NS
[ "$RC" -eq 0 ] &&
	grep -Eq '^tlreplay: tlslow::nap \(UID 0\): a call takes 0\.0[5-9][0-9]* s on cpu: 1[0-9] timed calls after [12] warm-up, about (0\.9[0-9]*|1) s \(fitted to the --budget; -r N or --min-time S to choose\)$' "$TMP/err" &&
	grep -Eq '^  time   median [5-9][0-9]\.[0-9]+ ms .*\(1[0-9] timed calls after [12] warm-up, fitted to the --budget\)$' "$TMP/out"
ok $? "uid --budget 1 on a 50 ms op: said before it runs, about 20 calls instead of 110"
[ "$RC" -eq 0 ] || diag "$(cat "$TMP/err")"
run tl uid -i "$TMP/nap.json" 1 $NS
[ "$RC" -eq 0 ] && grep -Eq '^tlreplay: tlslow::nap \(UID 1\): a call takes 0\.0[3-8][0-9]* s on cpu: 100 timed calls after 10 warm-up, about [3-9]\.[0-9] s$' "$TMP/err" &&
	grep -q '(100 timed calls after 10 warm-up)$' "$TMP/out"
ok $? "default budget (10 s): 110 calls of 30 ms fit; the 3.3 s it takes is said first"
# stat -x and -j write perf's table to stderr: there the line would be a row no reader expects
run tl stat -i "$TMP/nap.json" -x, -e task-clock uid 0 --iters 61 --warmup 0 --no-store $NS
[ "$RC" -eq 0 ] && ! grep -q 'a call takes' "$TMP/err" && awk -F, 'NR == 1 { exit !($3 == "task-clock") }' "$TMP/err"
ok $? "stat -x, of a 3 s replay: perf's CSV alone on stderr, no line saying how long it takes"
run tl stat -i "$TMP/nap.json" -e task-clock uid 0 --iters 61 --warmup 0 --no-store $NS
[ "$RC" -eq 0 ] && grep -q '^tlreplay: tlslow::nap (UID 0): a call takes .* about [3-9]\.[0-9] s$' "$TMP/err"
ok $? "stat's human table: the line is said before it runs"
run tl uid -i "$TMP/nap.json" 0 -r 3 --warmup 1 $NS
[ "$RC" -eq 0 ] && ! grep -q 'a call takes' "$TMP/err" && grep -q '(3 timed calls after 1 warm-up)$' "$TMP/out"
ok $? "-r 3: the counts asked, no budget, nothing to say"
run tl uid -i "$TMP/nap.json" 0 --min-time 0.2 --warmup 0 $NS
[ "$RC" -eq 0 ] && ! grep -q 'fitted' "$TMP/out" "$TMP/err"
ok $? "--min-time: no budget"
run tl uid -i "$TMP/nap.json" 0 --budget -1 $NS
[ "$RC" -eq 1 ] && grep -q "bad seconds '-1'" "$TMP/err"
ok $? "--budget -1: refused"

# a batch's results come as each op is done, not when the batch ends: a reader of the pipe
# (the GPU check stops a batch at its deadline) has the first op's line while the second,
# which sleeps 1.5 s a call, still runs (they all came at the end, stdout being a pipe)
"$PYTHON" - "$TMP/nap2.json" <<'PY'
import json, sys
ev = [{"ph": "X", "cat": "cpu_op", "name": "tlslow::nap", "pid": 1, "tid": 1, "ts": 100 * i, "dur": 50,
       "args": {"Input Dims": [[4], []], "Input type": ["float", "Double"], "Input Strides": [[1], []],
                "Concrete Inputs": ["", s]}} for i, s in enumerate(["0.01", "1.5"])]
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
tl ir -i "$TMP/nap2.json" -o "$TMP/ir2.json" $NS 2>/dev/null
# each line stamped as the reader gets it (dash has no $EPOCHREALTIME: date +%s%N)
"$TLREPLAY" replay "$TMP/ir2.json" -j -r 1 --warmup 0 --no-store $NS 2>"$TMP/err" |
	while IFS= read -r line; do echo "$(date +%s%N) $line"; done >"$TMP/stamped"
t0=$(awk 'NR == 1 { print $1 }' "$TMP/stamped")
t1=$(awk 'NR == 2 { print $1 }' "$TMP/stamped")
[ "$(wc -l <"$TMP/stamped")" -eq 2 ] && grep -q '^[0-9]* {"index":0,' "$TMP/stamped" &&
	[ $(((t1 - t0) / 1000000)) -ge 1000 ]
ok $? "replay -j into a pipe: the first op's line comes when it is done, $(((${t1:-0} - ${t0:-0}) / 1000000)) ms before the second's (it sleeps 1.5 s a call)"

# a batch on a terminal: the progress line gives each op's calls and time
tl ir -i "$TMP/nap.json" -o "$TMP/ir.json" $NS 2>/dev/null
if command -v script >/dev/null 2>&1; then
	script -qec "$TLREPLAY replay $TMP/ir.json --budget 0.5 $NS >$TMP/batch.out" "$TMP/tty" >/dev/null 2>&1
	tr '\r' '\n' <"$TMP/tty" | sed 's/\x1b\[K//g' >"$TMP/tty.txt"
	grep -Eq '^\[1/2\] tlslow::nap: [0-9]+ calls, about 0\.[0-9] s' "$TMP/tty.txt" &&
		grep -Eq '^\[2/2\] tlslow::nap: [0-9]+ calls, about 0\.[0-9] s' "$TMP/tty.txt" &&
		grep -q '^ok  *2$' "$TMP/batch.out"
	ok $? "replay on a terminal: [i/n] op: N calls, about S s, as each op starts"
else
	skip "no script(1) to give the replay a terminal"
fi

done_testing
