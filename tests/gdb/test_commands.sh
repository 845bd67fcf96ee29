#!/bin/sh
# The gdb extension without a program: help, completion, settings, errors as one-line
# gdb errors, sourcing twice, crash isolation and Ctrl-C of a replay (tests/fixtures).
. "$(dirname "$0")/../taplib.sh"
. "$ROOT/tests/gdb/helpers.inc"
need_gdb
FIX=$ROOT/tests/fixtures/replay.json
HAVE_TORCH=0
"$PYTHON" -c 'import torch' >/dev/null 2>&1 && HAVE_TORCH=1

gdbx -ex 'help tlreplay'
has 'tlreplay here -- Name the op the stopped program is in' && has 'tlreplay break -- ' &&
	has 'tlreplay up -- ' && clean
ok $? "help tlreplay lists the subcommands with their one-line summaries"

gdbx -ex 'help tlreplay replay'
has 'Usage: tlreplay replay [-r N] [UID]'
ok $? "help tlreplay replay shows the docstring's usage"

gdbx -ex 'complete tlreplay s'
[ "$(cat "$TMP/out")" = "tlreplay select
tlreplay stat" ]
check $? "complete tlreplay s: select and stat"

gdbx -ex "tlreplay open $FIX" -ex 'complete tlreplay list aten::ad' -ex 'complete tlreplay break tlt'
has 'tlreplay list aten::add_' && has 'tlreplay list aten::addmm' && has 'tlreplay break tltest::crash'
check $? "complete op names from the open trace (list, break)"

gdbx -ex 'complete set tlreplay i'
[ "$(cat "$TMP/out")" = "set tlreplay iterations" ]
ok $? "complete set tlreplay i: iterations"

# nothing of the user's gdb settings changes when the script is sourced (twice)
env -u PYTHONHOME -u PYTHONPATH gdb -nx --batch -ex show </dev/null >"$TMP/before" 2>&1
env -u PYTHONHOME -u PYTHONPATH gdb -nx --batch -x "$ROOT/gdb/tlreplay.py" \
	-x "$ROOT/gdb/tlreplay.py" -ex show </dev/null >"$TMP/after" 2>&1
diff "$TMP/before" "$TMP/after" >"$TMP/diff"
! grep -q '^<' "$TMP/diff" && [ "$(grep -c '^>' "$TMP/diff")" -eq "$(grep -c '^> tlreplay ' "$TMP/diff")" ] &&
	[ "$(grep -c '^> tlreplay ' "$TMP/diff")" -ge 10 ]
st=$?
ok $st "sourcing adds the tlreplay settings and changes no other gdb setting"
[ $st -eq 0 ] || diag "$(cat "$TMP/diff")"

env -u PYTHONHOME -u PYTHONPATH gdb -nx --batch -x "$ROOT/gdb/tlreplay.py" -x "$ROOT/gdb/tlreplay.py" \
	-ex 'show tlreplay' -ex 'help tlreplay' </dev/null >"$TMP/out" 2>&1
RC=$?
[ "$RC" -eq 0 ] && [ "$(grep -c 'timed calls of a replay' "$TMP/out")" -eq 1 ] && clean
check $? "sourcing twice is harmless (each setting once, no error)"

gdbx -ex 'set tlreplay device cuda:1' -ex 'set tlreplay iterations 7' -ex 'show tlreplay device' \
	-ex 'show tlreplay iterations'
has 'The device tlreplay replays ops on is "cuda:1".' && has 'The number of timed calls of a replay is 7.'
ok $? "set/show tlreplay device and iterations"

gdbx -ex 'set tlreplay device gpu'
[ "$RC" -eq 1 ] && has "Bad device 'gpu'" && clean
ok $? "a bad device is a one-line error"

gdbx -ex 'set tlreplay device gpu' -ex 'show tlreplay device'
has 'is "cpu".'
ok $? "a refused setting keeps its old value"

# errors: one line each, exit status 1 (the failing command is the last), no traceback
err_case() { # err_case DESCRIPTION TEXT GDB-ARGS...
	d=$1
	t=$2
	shift 2
	gdbx "$@"
	[ "$RC" -eq 1 ] && has "$t" && clean && [ "$(wc -l <"$TMP/out")" -le 3 ]
	check $? "error: $d"
}
err_case "no trace open" "No trace open: tlreplay open TRACE" -ex 'tlreplay list'
err_case "no trace open (info)" "No trace open" -ex 'tlreplay info 3'
err_case "nothing selected" "No op selected" -ex "tlreplay open $FIX" -ex 'tlreplay info'
err_case "a missing trace file" "No such file" -ex 'tlreplay open /nonexistent.json'
err_case "a file that is not a trace" "README.md" -ex "tlreplay open $ROOT/README.md"
err_case "a UID out of range" "No event with UID 999" -ex "tlreplay open $FIX" -ex 'tlreplay select 999'
err_case "not a UID" "'abc' is not a UID" -ex "tlreplay open $FIX" -ex 'tlreplay select abc'
err_case "a bad regex" "Bad regular expression" -ex "tlreplay open $FIX" -ex 'tlreplay list ('
err_case "a root has no parent" "is a root of the call tree" -ex "tlreplay open $FIX" \
	-ex 'tlreplay select 0' -ex 'tlreplay up'
err_case "here without a program" "The program is not being run." -ex "tlreplay open $FIX" -ex 'tlreplay here'
err_case "an unknown op to break at" "Unknown op aten::nosuch" -ex "tlreplay open $FIX" -ex 'tlreplay break nosuch'
err_case "break at a kernel's UID" "not a CPU op" -ex "tlreplay open $FIX" -ex 'tlreplay break 2'
err_case "a missing tlreplay program" "Cannot run /nonexistent/tlreplay: No such file" -ex "tlreplay open $FIX" \
	-ex 'set tlreplay program /nonexistent/tlreplay' -ex 'tlreplay replay 0'
err_case "a replay that fails (no such Python)" "Replay of UID 0 (aten::addmm) failed (exit status 1)." \
	-ex "tlreplay open $FIX" -ex 'set tlreplay python /nonexistent/python3' -ex 'tlreplay replay 0'
gdbx -ex "tlreplay open $FIX" -ex 'set tlreplay python /nonexistent/python3' -ex 'tlreplay replay 2'
[ "$RC" -eq 1 ] && has 'UID 2 is a kernel event; replaying the op that launched it, UID 0 (aten::addmm).' &&
	has "Replay of UID 0 (aten::addmm) failed (exit status 1)." && clean
check $? "replay of a kernel replays the op that launched it"

gdbx -ex "tlreplay open $FIX" -ex 'tlreplay select 0' -ex 'tlreplay info -j'
has '"op_name": "aten::addmm"' && has '"overload": ""'
ok $? "tlreplay info -j prints the IR entry"

if [ "$HAVE_TORCH" -eq 0 ]; then
	skip "$PYTHON has no torch: replay, crash isolation and Ctrl-C not tested"
	done_testing
fi

gdbx -ex "tlreplay open $FIX" -ex 'set tlreplay iterations 3' -ex 'tlreplay replay 0'
[ "$RC" -eq 0 ] && has 'UID 0: aten::addmm' && has 'median'
check $? "tlreplay replay UID prints the child's output"

# the op aborts its worker: gdb reports it and goes on
OPS="--namespace tltest=$ROOT/tests/replay/tlcli_ops.py"
gdbx -ex "tlreplay open $FIX" -ex "set tlreplay replay-options $OPS" -ex 'set tlreplay iterations 2' \
	-ex 'tlreplay replay 25'
[ "$RC" -eq 1 ] && has 'killed by signal 6' && has 'Replay of UID 25 (tltest::crash) failed (exit status 1).' && clean
check $? "an op that crashes its worker: a one-line gdb error"

gdbx -ex "tlreplay open $FIX" -ex "set tlreplay replay-options $OPS" -ex 'set tlreplay iterations 2' \
	-ex 'tlreplay replay 25' -ex 'echo gdb is alive\n'
[ "$RC" -eq 0 ] && has 'gdb is alive'
ok $? "gdb goes on after the crash"

gdbx -ex "tlreplay open $FIX" -ex 'tlreplay select 0' -ex 'tlreplay stat -e task-clock -r 2'
[ "$RC" -eq 0 ] && has 'task-clock' && has "Performance counter stats for 'tlreplay uid 0'"
check $? "tlreplay stat -e task-clock"

# Ctrl-C: SIGINT to gdb stops the replay process and its worker
cp "$FIX" "$TMP/ctrlc.json"
env -u PYTHONHOME -u PYTHONPATH gdb -nx --batch -ex "source $ROOT/gdb/tlreplay.py" \
	-ex "set tlreplay program $TLREPLAY" -ex "set tlreplay library $LIBSO" -ex 'set tlreplay store off' \
	-ex "tlreplay open $TMP/ctrlc.json" -ex 'set tlreplay iterations 1000000000' \
	-ex 'tlreplay replay 0' -ex 'echo after the replay\n' </dev/null >"$TMP/out" 2>&1 &
GDB_PID=$!
child() { ps -eo pid=,args= | grep -F "$TMP/ctrlc.json" | grep -v -e grep -e ' gdb ' | awk '{print $1}' | head -1; }
# alive PID: running, not a zombie
alive() { [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)" != Z ]; }
i=0
while [ $i -lt 200 ] && [ -z "$(child)" ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 3
TLP=$(child)
WORKERS=$(ps -eo pid=,ppid= | awk -v p="$TLP" '$2 == p {print $1}')
kill -INT "$GDB_PID"
i=0
while [ $i -lt 300 ] && kill -0 "$GDB_PID" 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
if kill -0 "$GDB_PID" 2>/dev/null; then
	kill -KILL "$GDB_PID"
	ok 1 "Ctrl-C stops a replay (gdb did not finish)"
else
	wait "$GDB_PID"
	sleep 0.5
	left=""
	for p in $TLP $WORKERS; do
		if alive "$p"; then left="$left $p"; fi
	done
	[ -n "$TLP" ] && [ -n "$WORKERS" ] && [ -z "$left" ] &&
		has 'Interrupted: the tlreplay process was stopped.' && has 'after the replay' && clean
	check $? "Ctrl-C stops the replay process and its worker; gdb goes on"
fi
done_testing
