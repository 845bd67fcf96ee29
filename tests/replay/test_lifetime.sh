#!/bin/sh
# No child outlives tlreplay. A replay worker is killed by the kernel when
# tlreplay dies, however it dies (PR_SET_PDEATHSIG, SIGKILL included), and
# SIGTERM, SIGINT and SIGHUP of tlreplay are passed on to it first; tlreplay
# then dies of the signal (exit 128+N). It once ran on for its whole replay
# (23 s seen; on a GPU it holds the device). record's program is the user's:
# it runs on unless --kill-with-parent asks otherwise.
. "$(dirname "$0")/../taplib.sh"

if ! "$PYTHON" -c 'import torch' >/dev/null 2>&1; then
	echo "1..0 # SKIP $PYTHON has no torch"
	exit 0
fi
export TLREPLAY_PYTHON="$PYTHON"
# a replay of many seconds: a 512x512 matmul, a hundred thousand times
cat >"$TMP/long.json" <<'EOF'
[{"op_name":"aten::mm","overload":"default","replay_ir":{"list_pos_args":[{"arg_name":"self","arg_type":"Tensor","value":{"shape":[512,512],"dtype":"float","strides":[512,1]}},{"arg_name":"mat2","arg_type":"Tensor","value":{"shape":[512,512],"dtype":"float","strides":[512,1]}}],"list_kwargs":[]}}]
EOF

# dflt CMD...: CMD with SIGINT and SIGQUIT as a terminal would give them (a
# shell's background job starts with them ignored)
dflt() {
	exec "$PYTHON" -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

# child_of PID CMDPATTERN: the child of PID whose command line matches, once it runs (10 s at most)
child_of() {
	i=0
	while [ $i -lt 100 ]; do
		for c in $(pgrep -P "$1" 2>/dev/null); do
			if tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null | grep -q -- "$2"; then
				echo "$c"
				return 0
			fi
		done
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# gone PID: the process has ended (no such process, or a zombie nobody reaped) within 3 s
gone() {
	i=0
	while [ $i -lt 30 ]; do
		st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
		[ -z "$st" ] || [ "$st" = Z ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

for sig in KILL TERM INT HUP; do
	dflt "$TLREPLAY" replay "$TMP/long.json" -r 100000 >"$TMP/out" 2>"$TMP/err" &
	tl=$!
	w=$(child_of "$tl" tlreplay_worker.py)
	if [ -z "$w" ]; then
		ok 1 "the worker of tlreplay replay started (signal $sig): $(cat "$TMP/err")"
		kill -KILL "$tl" 2>/dev/null
		continue
	fi
	sleep 1 # into the timed loop
	kill -"$sig" "$tl"
	wait "$tl"
	rc=$?
	if gone "$w"; then r=0; else r=1; kill -KILL "$w" 2>/dev/null; fi
	case $sig in
	KILL) want=137 ;;
	TERM) want=143 ;;
	INT) want=130 ;;
	HUP) want=129 ;;
	esac
	[ "$r" -eq 0 ] && [ "$rc" -eq "$want" ]
	ok $? "SIG$sig of tlreplay replay: its worker is gone within 3 s, exit $rc (want $want)"
done

# tlreplay uid: a trace's op, the same rule
cat >"$TMP/trace.json" <<'EOF'
{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":20,"args":{"External id":1,"Input Dims":[[512,512],[512,512]],"Input type":["float","float"],"Input Strides":[[512,1],[512,1]],"Concrete Inputs":["",""]}}]}
EOF
dflt "$TLREPLAY" uid -i "$TMP/trace.json" 0 -r 100000 >"$TMP/out" 2>"$TMP/err" &
tl=$!
w=$(child_of "$tl" tlreplay_worker.py)
sleep 1
kill -TERM "$tl"
wait "$tl"
rc=$?
[ -n "$w" ] && gone "$w" && [ "$rc" -eq 143 ]
ok $? "SIGTERM of tlreplay uid: its worker is gone, exit $rc"
[ -n "$w" ] && kill -KILL "$w" 2>/dev/null

# record: the program runs on unless --kill-with-parent
B=${TLREPLAY_BUILD:-$ROOT/build}
if [ -f "$B/libtlreplay-record.so" ]; then
	for how in "" --kill-with-parent; do
		# shellcheck disable=SC2086 # $how is one option or none
		dflt "$TLREPLAY" record -k nothing $how -o "$TMP/db$how" -- sleep 30 >"$TMP/out" 2>"$TMP/err" &
		tl=$!
		p=$(child_of "$tl" sleep)
		sleep 0.3
		kill -KILL "$tl"
		wait "$tl" 2>/dev/null
		if [ -z "$how" ]; then
			! gone "$p"
			ok $? "record without --kill-with-parent: the program runs on when tlreplay is killed"
		else
			gone "$p"
			ok $? "record --kill-with-parent: SIGKILL of tlreplay ends the program"
		fi
		[ -n "$p" ] && kill -KILL "$p" 2>/dev/null
	done
	dflt "$TLREPLAY" record -k nothing --kill-with-parent -o "$TMP/dbt" -- sleep 30 >"$TMP/out" 2>"$TMP/err" &
	tl=$!
	p=$(child_of "$tl" sleep)
	sleep 0.3
	kill -TERM "$tl"
	wait "$tl"
	rc=$?
	gone "$p" && [ "$rc" -eq 143 ]
	ok $? "record --kill-with-parent: SIGTERM of tlreplay is passed on to the program (exit $rc)"
	[ -n "$p" ] && kill -KILL "$p" 2>/dev/null
else
	skip "no recorder in $B"
fi
done_testing
