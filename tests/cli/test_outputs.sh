#!/bin/sh
# Every output file: the mode a new file gets (0666 & ~umask: report -o DIR's
# CSVs were 0600, the others forced to 0644), whole or absent however the
# writer is stopped (fold left OUT.tmp.XXXXXX, up to the trace's size, on each
# Ctrl-C or kill), and -o a/b/c with missing parents (report and diff failed).
# tlreplay/output.h does it for all: O_TMPFILE, or (TLREPLAY_TEST_NO_O_TMPFILE,
# as on a file system without it) a hidden name removed on SIGINT/SIGTERM.
. "$(dirname "$0")/../taplib.sh"

F=$ROOT/tests/fixtures
R=$F/ranks
tl() { "$TLREPLAY" "$@"; }
mode() { stat -c %a "$1"; }

# every writer, under umask MASK, into $TMP/u$MASK; their files' modes must be WANT
writers() {
	mask=$1
	want=$2
	o=$TMP/u$mask
	mkdir -p "$o"
	(
		umask "$mask"
		export XDG_STATE_HOME="$o/state"
		tl breakdown -i "$F/mini.json" -o "$o/bd.txt" &&
			tl ir -i "$F/replay.json" --no-torch -o "$o/ir.json" 0 &&
			tl report -i "$F/report_perf.json" -o "$o/rep" &&
			tl report -i "$F/report_perf.json" -o "$o/rep.xlsx" &&
			tl report -i "$F/report_perf.json" --html "$o/page.html" &&
			tl diff -i "$F/diff_a.json" -i "$F/diff_b.json" -o "$o/diff" &&
			tl summarize -i "$R/rank0.json" -o "$o/r0.tlrank.jsonl" &&
			tl collectives -i "$R" --chart "$o/coll.svg" >/dev/null &&
			tl open "$F/mini.json" >/dev/null
	) >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$rc" -eq 0 ]
	ok $? "umask $mask: every writer ran ($(head -c 300 "$TMP/err"))"
	bad=$(find "$o" -type f ! -perm "$want" -printf '%p %m\n' | head -n 5)
	n=$(find "$o" -type f | wc -l)
	[ -z "$bad" ] && [ "$n" -ge 15 ]
	ok $? "umask $mask: all $n files are $want ($bad)"
	bad=$(find "$o" -type d ! -path "$o" ! -perm "$3" -printf '%p %m\n' | head -n 5)
	[ -z "$bad" ]
	ok $? "umask $mask: the directories made are $3 ($bad)"
}
writers 022 644 755
writers 077 600 700
writers 007 660 770

# a kdb's index.json, written by record (the stand-in driver)
B=${TLREPLAY_BUILD:-$ROOT/build}
if [ -x "$B/tests/kdrv/kapp" ] && [ -f "$B/libtlreplay-record.so" ]; then
	(umask 077 && TLREPLAY_CUDA_LIB=$B/tests/kdrv/libcuda.so.1 tl record -k saxpy -o "$TMP/db" -- \
		"$B/tests/kdrv/kapp" "$B/tests/kdrv/libkkernels.so") >"$TMP/out" 2>"$TMP/err"
	bad=$(find "$TMP/db" -type f ! -perm 600 -printf '%p %m\n' | head -n 5)
	[ -f "$TMP/db/index.json" ] && [ -n "$(ls "$TMP/db/blobs")" ] && [ -z "$bad" ]
	ok $? "umask 077: a kdb's index.json, launches and blobs are 600 ($bad$(head -c 200 "$TMP/err"))"
else
	skip "no stand-in driver for record"
fi

# ------------------------------------------------ missing parents
run tl report -i "$F/report_perf.json" -o "$TMP/a/b/c"
[ "$RC" -eq 0 ] && [ -f "$TMP/a/b/c/ops_summary.csv" ]
ok $? "report -o a/b/c makes the missing directories ($(head -c 200 "$TMP/err"))"
run tl diff -i "$F/diff_a.json" -i "$F/diff_b.json" -o "$TMP/d/e/f"
[ "$RC" -eq 0 ] && [ -n "$(ls "$TMP/d/e/f")" ]
ok $? "diff -o a/b/c makes the missing directories ($(head -c 200 "$TMP/err"))"
: >"$TMP/plain"
run tl report -i "$F/report_perf.json" -o "$TMP/plain/x"
[ "$RC" -eq 1 ] && grep -q "plain: not a directory" "$TMP/err"
ok $? "report -o under a file: one line ($(cat "$TMP/err"))"

# ------------------------------------------------ stopped at any moment
T=$TMP/big.json
"$PYTHON" "$ROOT/bench/gen_small_events.py" 200000 "$T" 2>/dev/null
ID=$(store_trace_id "$T")
printf '{"v":1,"time":"2026-11-28T10:00:00Z","host":"h","pid":1,"command":"uid","tlreplay":"0.1.0","device":"cpu","trace":%s,"uid":12,"op":"aten::addmm","status":"ok","iters":10,"warmup":2,"time_us":{"median":5,"mean":5,"std":0.1,"min":5,"max":5}}\n' \
	"$ID" >"$TMP/store.jsonl"
mkdir -p "$TMP/k"
# stop WHAT: fold and report of the big trace, killed after 0 to 0.8 s with
# SIGINT, SIGTERM or SIGKILL (with the fallback: SIGINT and SIGTERM), 12 times;
# the folder must hold the old output or a whole new one, nothing else
stop() {
	i=0
	left=
	torn=
	while [ $i -lt 12 ]; do
		case $((i % 3)) in 0) sig=INT ;; 1) sig=TERM ;; 2) sig=KILL ;; esac
		[ "$1" = fallback ] && [ $sig = KILL ] && sig=TERM
		rm -rf "$TMP/k" && mkdir -p "$TMP/k"
		echo old >"$TMP/k/out.json"
		if [ "$1" = fallback ]; then export TLREPLAY_TEST_NO_O_TMPFILE=1; fi
		"$PYTHON" -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGTERM):
    signal.signal(s, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$TLREPLAY" fold -i "$T" --store "$TMP/store.jsonl" -o "$TMP/k/out.json" \
			>/dev/null 2>&1 &
		pid=$!
		unset TLREPLAY_TEST_NO_O_TMPFILE
		sleep "0.$(( (i * 7) % 9 ))"
		kill -$sig "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		n=$(ls -A "$TMP/k" | wc -l)
		[ "$n" -eq 1 ] || left="$left $(ls -A "$TMP/k" | tr '\n' ' ')"
		if [ "$(cat "$TMP/k/out.json")" != old ] &&
			! "$PYTHON" -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/k/out.json" 2>/dev/null; then
			torn="$torn $i"
		fi
		i=$((i + 1))
	done
	[ -z "$left" ]
	ok $? "fold ($1) stopped 12 times at random: nothing left beside the output ($left)"
	[ -z "$torn" ]
	ok $? "fold ($1): the output is the old one or a whole new one every time ($torn)"
}
stop O_TMPFILE
stop fallback

# report -o DIR stopped: the sheets that are there are whole, nothing else
rm -rf "$TMP/rk"
tl report -i "$T" -o "$TMP/rk" >/dev/null 2>&1 &
pid=$!
sleep 0.5
kill -TERM "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[ -z "$(find "$TMP/rk" -name '.*' 2>/dev/null)" ]
ok $? "report -o DIR stopped: no hidden temporaries"
done_testing
