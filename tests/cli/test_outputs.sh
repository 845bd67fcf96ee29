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
# a store with one result for replay.json's UID 0, for fold
printf '{"v":1,"time":"2026-11-28T10:00:00Z","host":"h","pid":1,"command":"uid","tlreplay":"0.1.0","device":"cpu","trace":%s,"uid":0,"op":"aten::addmm","status":"ok","iters":10,"warmup":2,"time_us":{"median":5,"mean":5,"std":0.1,"min":5,"max":5}}\n' \
	"$(store_trace_id "$F/replay.json")" >"$TMP/replay-store.jsonl"

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
			tl fold -i "$F/replay.json" --store "$TMP/replay-store.jsonl" -o "$o/folded.json" &&
			tl pack -i "$F/replay.json" -o "$o/ops.zip" 0 &&
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
	[ -z "$bad" ] && [ "$n" -ge 17 ]
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
"$PYTHON" "$ROOT/bench/gen_small_events.py" 100000 "$T" 2>/dev/null
ID=$(store_trace_id "$T")
printf '{"v":1,"time":"2026-11-28T10:00:00Z","host":"h","pid":1,"command":"uid","tlreplay":"0.1.0","device":"cpu","trace":%s,"uid":12,"op":"aten::addmm","status":"ok","iters":10,"warmup":2,"time_us":{"median":5,"mean":5,"std":0.1,"min":5,"max":5}}\n' \
	"$ID" >"$TMP/store.jsonl"
ms() { date +%s%3N; }
# the whole outputs, and how long each writer takes uninterrupted
t0=$(ms)
tl fold -i "$T" --store "$TMP/store.jsonl" -o "$TMP/ref.json" >/dev/null 2>&1
FOLD_MS=$(($(ms) - t0))
t0=$(ms)
tl report -i "$T" -o "$TMP/refrep" >/dev/null 2>&1
REP_MS=$(($(ms) - t0))
NREF=$(ls -A "$TMP/refrep" | wc -l)
[ -s "$TMP/ref.json" ] && [ "$NREF" -ge 3 ]
ok $? "fold ($FOLD_MS ms) and report -o DIR ($REP_MS ms, $NREF sheets) of 100k events, uninterrupted"
SEED=${TLREPLAY_TEST_SEED:-$(date +%s)}
diag "kill moments from seed $SEED (TLREPLAY_TEST_SEED=$SEED repeats them)"

# N moments in seconds, uniform over 0 .. 1.2 x MS milliseconds (past the
# end too), the Kth series of the seed
moments() {
	awk -v s=$((SEED + $3)) -v n="$1" -v d="$2" 'BEGIN { srand(s); for (i = 0; i < n; i++) printf "%.3f\n", rand() * d * 1.2 / 1000 }'
}
# start "$@" in the background with SIGINT and SIGTERM at their default (a
# background job of sh ignores SIGINT), kill it with SIG after DELAY, wait
stopped() {
	sig=$1
	delay=$2
	shift 2
	"$PYTHON" -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGTERM):
    signal.signal(s, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@" >/dev/null 2>&1 &
	pid=$!
	sleep "$delay"
	kill -"$sig" "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}
# the signal of round I: INT, TERM, KILL in turn (the fallback cannot clean
# up after SIGKILL: INT and TERM)
signal_of() {
	if [ "$2" = fallback ]; then
		[ $(($1 % 2)) -eq 0 ] && echo INT || echo TERM
	else
		case $(($1 % 3)) in 0) echo INT ;; 1) echo TERM ;; *) echo KILL ;; esac
	fi
}
# whether $1 is a whole fold output: the reference's size and end, but for
# the time of the fold
fold_end() { tail -c 300 "$1" | sed 's/"folded_at":"[^"]*"/"folded_at":"X"/'; }
whole_fold() {
	[ "$(stat -c %s "$1" 2>/dev/null)" = "$(stat -c %s "$TMP/ref.json")" ] &&
		[ "$(fold_end "$1")" = "$(fold_end "$TMP/ref.json")" ]
}

# fold -o OUT over an old OUT, stopped at 12 random moments: OUT.tmp.XXXXXX
# was left on each (made before the trace loaded)
stop_fold() {
	i=0
	left=
	torn=
	for d in $(moments 12 "$FOLD_MS" "$2"); do
		sig=$(signal_of $i "$1")
		rm -rf "$TMP/k" && mkdir -p "$TMP/k"
		echo old >"$TMP/k/out.json"
		[ "$1" = fallback ] && export TLREPLAY_TEST_NO_O_TMPFILE=1
		stopped $sig "$d" "$TLREPLAY" fold -i "$T" --store "$TMP/store.jsonl" -o "$TMP/k/out.json"
		unset TLREPLAY_TEST_NO_O_TMPFILE
		[ "$(ls -A "$TMP/k")" = out.json ] || left="$left [$sig ${d}s: $(ls -A "$TMP/k" | tr '\n' ' ')]"
		[ "$(cat "$TMP/k/out.json" 2>/dev/null | head -c 4)" = old ] || whole_fold "$TMP/k/out.json" ||
			torn="$torn [$sig ${d}s]"
		i=$((i + 1))
	done
	[ -z "$left" ]
	ok $? "fold ($1) stopped 12 times at random: nothing beside the output ($left)"
	[ -z "$torn" ]
	ok $? "fold ($1): the old output or a whole new one every time ($torn)"
}
stop_fold O_TMPFILE 1
stop_fold fallback 2

# report -o DIR over an old report, stopped at 9 random moments: only the
# sheets' names, each old or whole new; after SIGINT or SIGTERM all old or
# all new (they are named together)
stop_report() {
	i=0
	left=
	torn=
	mixed=
	for d in $(moments 9 "$REP_MS" "$2"); do
		sig=$(signal_of $i "$1")
		rm -rf "$TMP/rk" && cp -r "$TMP/refrep" "$TMP/rk"
		for f in "$TMP"/rk/*; do echo old >"$f"; done
		[ "$1" = fallback ] && export TLREPLAY_TEST_NO_O_TMPFILE=1
		stopped $sig "$d" "$TLREPLAY" report -i "$T" -o "$TMP/rk"
		unset TLREPLAY_TEST_NO_O_TMPFILE
		[ "$(ls -A "$TMP/rk")" = "$(ls -A "$TMP/refrep")" ] || left="$left [$sig ${d}s: $(ls -A "$TMP/rk" | tr '\n' ' ')]"
		nold=0
		nnew=0
		for f in $(ls "$TMP/refrep"); do
			if [ "$(cat "$TMP/rk/$f")" = old ]; then
				nold=$((nold + 1))
			elif cmp -s "$TMP/rk/$f" "$TMP/refrep/$f"; then
				nnew=$((nnew + 1))
			else
				torn="$torn [$sig ${d}s: $f]"
			fi
		done
		[ $sig = KILL ] || [ $nold -eq 0 ] || [ $nnew -eq 0 ] || mixed="$mixed [$sig ${d}s: $nold old, $nnew new]"
		i=$((i + 1))
	done
	[ -z "$left" ]
	ok $? "report -o DIR ($1) stopped 9 times at random: only the sheets there ($left)"
	[ -z "$torn$mixed" ]
	ok $? "report -o DIR ($1): each sheet old or whole new, all of one kind after SIGINT/SIGTERM ($torn$mixed)"
}
stop_report O_TMPFILE 3
stop_report fallback 4
done_testing
