#!/bin/sh
# Bad input: one clear error line on stderr naming the thing, nothing on
# stdout, a non-zero exit, and no half-written output file.
. "$(dirname "$0")/../taplib.sh"

one_line() { # one_line WORD: stderr is exactly one "tlreplay: ..." line containing WORD
	[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q '^tlreplay: ' "$TMP/err" && grep -q -- "$1" "$TMP/err"
}

bad() { # bad NAME WORD CMD...: fails with one line containing WORD, no stdout
	name=$1
	word=$2
	shift 2
	run "$@"
	[ "$RC" -ne 0 ] && one_line "$word" && [ ! -s "$TMP/out" ]
	st=$?
	ok $st "$name: $(head -c 160 "$TMP/err")"
}

good=$ROOT/tests/fixtures/mini.json

printf '{"traceEvents": [{"ph":"X","name":"a","ts":1' >"$TMP/truncated.json"
printf '{"traceEvents": [{"ph":"X" "name":"a"}]}' >"$TMP/invalid.json"
printf '{"traceEvents": []}' >"$TMP/empty-events.json"
printf '{"schemaVersion": 1}' >"$TMP/no-events.json"
printf '"a string"' >"$TMP/wrong-top.json"
printf '' >"$TMP/empty.json"
printf '\037\213\010\000\000\000\000\000\000\003garbage that is not deflate' >"$TMP/corrupt.json.gz"
gzip -c "$good" | head -c 300 >"$TMP/cut.json.gz"
head -c 700 "$ROOT/tests/fixtures/tiny.xplane.pb" >"$TMP/cut.xplane.pb"
printf '\n\377\377\377\377\017' >"$TMP/bad.xplane.pb"
printf '{"traceEvents": [{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":1,"dur":2}]}' >"$TMP/cpu-only.json"

bad "truncated JSON" "truncated.json" "$TLREPLAY" breakdown -i "$TMP/truncated.json"
bad "truncated JSON says where" "line 1" "$TLREPLAY" ops -i "$TMP/truncated.json"
bad "invalid JSON" "invalid.json" "$TLREPLAY" kernels -i "$TMP/invalid.json"
bad "corrupt gzip" "corrupt gzip" "$TLREPLAY" breakdown -i "$TMP/corrupt.json.gz"
bad "truncated gzip" "cut.json.gz" "$TLREPLAY" list -i "$TMP/cut.json.gz"
bad "wrong top level" "top level" "$TLREPLAY" breakdown -i "$TMP/wrong-top.json"
bad "empty traceEvents" "traceEvents is empty" "$TLREPLAY" breakdown -i "$TMP/empty-events.json"
bad "missing traceEvents" "no traceEvents" "$TLREPLAY" show -i "$TMP/no-events.json" 0
bad "empty file" "empty file" "$TLREPLAY" breakdown -i "$TMP/empty.json"
bad "no GPU events" "no GPU events" "$TLREPLAY" breakdown -i "$TMP/cpu-only.json"
bad "truncated XSpace protobuf" "cut.xplane.pb: truncated XSpace protobuf" "$TLREPLAY" breakdown -i "$TMP/cut.xplane.pb"
bad "corrupt XSpace protobuf" "bad.xplane.pb" "$TLREPLAY" breakdown -i "$TMP/bad.xplane.pb"
bad "a directory" "is a directory" "$TLREPLAY" ops -i "$TMP"
bad "a missing file" "No such file" "$TLREPLAY" breakdown -i "$TMP/nope.json"
bad "unknown UID" "no event with UID 999" "$TLREPLAY" show -i "$good" 999
bad "not a UID" "not a UID" "$TLREPLAY" show -i "$good" abc
bad "unknown UID in tree" "UID 12345" "$TLREPLAY" tree -i "$good" 12345
bad "no trace at all" "no trace given" "$TLREPLAY" breakdown
bad "unknown command" "what is 'frobnicate'" "$TLREPLAY" frobnicate
bad "bad regex" "bad regular expression" "$TLREPLAY" list -i "$good" --name "a("
bad "-x with -j" "exclusive" "$TLREPLAY" ops -i "$good" -x, -j

# Times no clock gives (1e400 reads as inf) are refused at load, where they
# are written, before summarize makes a summary the merge would refuse.
printf '{"traceEvents": [\n{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2},\n{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":5,"dur":1e400}]}' >"$TMP/dur-inf.json"
bad "dur 1e400" "dur-inf.json: dur out of range (infinite, or beyond +-2^63 ns) at byte 152 (line 3, column 66) in traceEvents\[1\]" \
	"$TLREPLAY" breakdown -i "$TMP/dur-inf.json"
bad "summarize: dur 1e400" "in traceEvents\[1\]" "$TLREPLAY" summarize -i "$TMP/dur-inf.json" -o "$TMP/dur-inf.tlrank.jsonl"
[ ! -e "$TMP/dur-inf.tlrank.jsonl" ]
ok $? "summarize: no summary written for it"
"$TLREPLAY" summarize -i "$ROOT/tests/fixtures/ranks/worker1.json" -o "$TMP/w1.tlrank.jsonl" 2>/dev/null &&
	sed '2s/^\(\[[^]]*\),[0-9.]*,\([0-9]*\),\([0-9]*\)\]$/\1,1e400,\2,\3]/' "$TMP/w1.tlrank.jsonl" >"$TMP/dur-inf.tlrank.jsonl"
bad "a summary's dur 1e400" "dur-inf.tlrank.jsonl: line 2: bad ts or dur" \
	"$TLREPLAY" collectives -i "$TMP/dur-inf.tlrank.jsonl"

if [ "$(id -u)" -eq 0 ]; then
	skip "unreadable file: running as root"
else
	cp "$good" "$TMP/secret.json" && chmod 000 "$TMP/secret.json"
	bad "an unreadable file" "Permission denied" "$TLREPLAY" breakdown -i "$TMP/secret.json"
fi

# unknown options print the usage line on stderr and exit 1
run "$TLREPLAY" breakdown --frobnicate -i "$good"
[ "$RC" -eq 1 ] && grep -q "usage: tlreplay breakdown" "$TMP/err"
ok $? "unknown option: usage on stderr, exit 1"

# a failed run leaves an existing -o file untouched and no temporary behind
echo "previous result" >"$TMP/result.csv"
run "$TLREPLAY" breakdown -i "$TMP/invalid.json" -x, -o "$TMP/result.csv"
[ "$RC" -ne 0 ] && [ "$(cat "$TMP/result.csv")" = "previous result" ] &&
	[ -z "$(ls "$TMP" | grep 'result.csv.tmp')" ]
ok $? "failed run: -o FILE untouched, no temporary left"

run "$TLREPLAY" breakdown -i "$good" -x, -o "$TMP/result.csv"
[ "$RC" -eq 0 ] && head -1 "$TMP/result.csv" | grep -q '^type,time ms,percent$' &&
	[ -z "$(ls "$TMP" | grep 'result.csv.tmp')" ]
ok $? "successful run replaces -o FILE atomically"

# output to a full disk is an error, not a silent truncation
if [ -w /dev/full ]; then
	"$TLREPLAY" ops -i "$good" -x, >/dev/full 2>"$TMP/err"
	RC=$?
	[ "$RC" -ne 0 ] && grep -q "No space left" "$TMP/err"
	ok $? "writing to a full disk fails: $(cat "$TMP/err")"
else
	skip "/dev/full not available"
fi

# -o onto something that is not a regular file: written in place, never replaced
mkfifo "$TMP/fifo" && (cat "$TMP/fifo" >"$TMP/from-fifo" &) && sleep 0.1
run "$TLREPLAY" breakdown -i "$good" -x, -o "$TMP/fifo"
sleep 0.2
[ "$RC" -eq 0 ] && [ -p "$TMP/fifo" ] && grep -q '^type,time ms,percent$' "$TMP/from-fifo"
ok $? "-o FIFO: written through the FIFO, which stays a FIFO"
if [ -c /dev/full ]; then
	run "$TLREPLAY" breakdown -i "$good" -o /dev/full
	[ "$RC" -eq 1 ] && [ -c /dev/full ] && grep -q "/dev/full: write failed: No space left" "$TMP/err"
	ok $? "-o /dev/full: an error, and /dev/full is still a device"
else
	skip "/dev/full not available"
fi
run "$TLREPLAY" breakdown -i "$good" -o "$TMP"
[ "$RC" -eq 1 ] && grep -q "is a directory" "$TMP/err"
ok $? "-o DIR: refused"

run "$TLREPLAY" -o "$TMP/x" breakdown
[ "$RC" -ne 0 ]
ok $? "options before the command are refused"

# TLREPLAY_PARENT_PID (what gdb sets: the replay goes when gdb goes; tests/gdb/test_package.py
# kills a gdb stand-in mid-replay): a value that is no pid, or a process already gone, is refused
# in one line before any work; a live one is taken
TLREPLAY_PARENT_PID=12ab run "$TLREPLAY" breakdown -i "$good"
[ "$RC" -eq 1 ] && [ "$(cat "$TMP/err")" = "tlreplay: TLREPLAY_PARENT_PID: '12ab' is not a process id" ] && [ ! -s "$TMP/out" ]
ok $? "TLREPLAY_PARENT_PID=12ab: $(cat "$TMP/err")"
sh -c 'exit 0' &
gone=$!
wait $gone
TLREPLAY_PARENT_PID=$gone run "$TLREPLAY" breakdown -i "$good"
[ "$RC" -eq 1 ] && grep -qx "tlreplay: TLREPLAY_PARENT_PID: process $gone, which started this run, is gone" "$TMP/err" &&
	[ ! -s "$TMP/out" ]
ok $? "TLREPLAY_PARENT_PID of a process that is gone: refused"
TLREPLAY_PARENT_PID=$$ run "$TLREPLAY" breakdown -i "$good"
[ "$RC" -eq 0 ] && [ -s "$TMP/out" ] && [ ! -s "$TMP/err" ]
ok $? "TLREPLAY_PARENT_PID of a live process: the command runs"

done_testing
