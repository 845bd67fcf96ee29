#!/bin/sh
# An output that is one of the command's inputs, by any name (the same device
# and inode: a symbolic or hard link, ./x, an absolute path), is refused with
# one line before anything is written, and the input stays as it was. fold -o
# STORE replaced the results store, the machine's record of every replay, with
# a trace without a word.
. "$(dirname "$0")/../taplib.sh"
export TLREPLAY_LOG_LEVEL=error

cp "$ROOT/tests/fixtures/replay.json" "$TMP/t.json"
T=$TMP/t.json
ln -s "$T" "$TMP/sym.json"
ln "$T" "$TMP/hard.json"
ID=$(store_trace_id "$T")
S=$TMP/store.jsonl
printf '{"v":1,"time":"2026-11-28T10:00:00Z","host":"h","pid":1,"command":"uid","tlreplay":"0.1.0","device":"cpu","trace":%s,"uid":0,"op":"aten::addmm","status":"ok","iters":10,"warmup":2,"time_us":{"median":5,"mean":5,"std":0.1,"min":5,"max":5}}\n' "$ID" >"$S"
cp "$T" "$TMP/t.orig"
cp "$S" "$TMP/s.orig"
intact() { cmp -s "$T" "$TMP/t.orig" && cmp -s "$S" "$TMP/s.orig"; }

# refused WHY CMD...: exit 1 saying WHY, the inputs intact
refused() {
	why=$1
	shift
	run "$TLREPLAY" "$@"
	[ "$RC" -eq 1 ] && grep -q "$why" "$TMP/err" && intact
}

refused "an input of this command" fold -i "$T" --store "$S" -o "$S"
ok $? "fold -o STORE: refused, the store intact ($(tail -n 1 "$TMP/err"))"
refused "an input of this command" fold -i "$T" --store "$S" -o "$TMP/hard.json"
ok $? "fold -o a hard link of the trace: refused"
refused "an input of this command" breakdown -i "$T" -o "$TMP/sym.json"
ok $? "breakdown -o a symbolic link to the trace: refused"
refused "an input of this command" ir -i "$T" --no-torch -o "$TMP/./t.json" 0
ok $? "ir -o the trace by another path: refused"
refused "an input of this command" report -i "$T" --html "$T"
ok $? "report --html the trace: refused"
refused "a report is a directory of CSV sheets" report -i "$TMP/sym.json" -o "$T"
ok $? "report -o the trace: refused (a file, not a directory to make)"
refused "an input of this command" diff -i "$T" -i "$ROOT/tests/fixtures/diff_b.json" --chart "$TMP/hard.json" -o "$TMP/d"
ok $? "diff --chart over an input: refused"
if "$TLREPLAY" sweep --help >/dev/null 2>&1; then
	refused "an input of this command" sweep -i "$T" --store "$S" --top 1 -e task-clock -o "$S"
	ok $? "sweep -o STORE: refused ($(tail -n 1 "$TMP/err"))"
fi
run "$TLREPLAY" fold -i "$T" --store "$S" -o "$TMP/new.json"
[ "$RC" -eq 0 ] && [ -s "$TMP/new.json" ] && intact
ok $? "fold -o another file still works"
done_testing
