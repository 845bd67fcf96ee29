#!/bin/sh
# Small JSON inputs (docs/limits.md): an IR file, --schemas, --gpu, a
# capture's execution_details.json, the results store and the remembered
# trace are refused in one line when they are a device, a FIFO where a file
# must be, or past the limit (1 GiB, TLREPLAY_MAX_JSON), plain or gzip; an
# IR file may come through a pipe. Every command runs under a time, memory
# and file-size guard, so that the old behaviour (reading /dev/zero without
# end, into memory or $TMPDIR; waiting on a FIFO forever) fails the test
# instead of hanging it.
. "$(dirname "$0")/../taplib.sh"

T=$TMP/tmpdir
mkdir "$T"
export TMPDIR="$T"
F=$ROOT/tests/fixtures/replay.json
mkfifo "$TMP/fifo"

"$TLREPLAY" ir -i "$F" 0 --no-torch -o "$TMP/one.json" 2>/dev/null
[ -s "$TMP/one.json" ]
ok $? "an IR file of one entry to read"

# ------------------------------------------------------------------ IR files
refused "replay /dev/zero: refused at once, not read without end" "/dev/zero: a character device, not an IR file" \
	"$TLREPLAY" replay /dev/zero
refused "sweep /dev/zero: the same" "/dev/zero: a character device" "$TLREPLAY" sweep /dev/zero --store "$TMP/s.jsonl"
head -c 3000000 /dev/zero >"$TMP/zeros"
TLREPLAY_MAX_JSON=1M refused "an IR file through a pipe past TLREPLAY_MAX_JSON" \
	"/dev/stdin: holds more than 1 MiB, the limit for an IR file (TLREPLAY_MAX_JSON sets it)" \
	sh -c 'exec "$1" replay /dev/stdin <"$2"' sh "$TLREPLAY" "$TMP/zeros"
gzip -c "$TMP/zeros" >"$TMP/bomb.json.gz"
TLREPLAY_MAX_JSON=1M refused "a gzip IR file that inflates past the limit" "bomb.json.gz: inflates to more than 1 MiB" \
	"$TLREPLAY" replay "$TMP/bomb.json.gz"
TLREPLAY_MAX_JSON=1M refused "the same through a pipe" "inflates to more than 1 MiB" \
	sh -c 'exec "$1" replay /dev/stdin <"$2"' sh "$TLREPLAY" "$TMP/bomb.json.gz"
if "$PYTHON" -c 'import torch' >/dev/null 2>&1; then
	export TLREPLAY_PYTHON="$PYTHON"
	run guarded sh -c 'gzip -c "$2" | exec "$1" replay --op-filter zzz /dev/stdin' sh "$TLREPLAY" "$TMP/one.json"
	[ "$RC" -eq 0 ] && grep -q "entries in file  *1" "$TMP/out"
	ok $? "an IR file through a pipe, gzip: read (exit $RC)"
	run guarded "$PYTHON" "$ROOT/core/replay/tlreplay_worker.py" replay /dev/zero
	[ "$RC" -eq 2 ] && grep -q "^tlreplay_worker: /dev/zero: a character device, not an IR file" "$TMP/err"
	ok $? "replay.py /dev/zero: refused at once (exit $RC): $(head -c 200 "$TMP/err")"
	TLREPLAY_MAX_JSON=1M run guarded "$PYTHON" "$ROOT/core/replay/tlreplay_worker.py" replay "$TMP/bomb.json.gz"
	[ "$RC" -eq 2 ] && grep -q "bomb.json.gz: inflates to more than 1 MiB, the limit for an IR file" "$TMP/err"
	ok $? "replay.py: a gzip bomb stops at TLREPLAY_MAX_JSON (exit $RC): $(head -c 200 "$TMP/err")"
else
	skip "$PYTHON has no torch: replay through a pipe"
	skip "$PYTHON has no torch: replay.py /dev/zero"
	skip "$PYTHON has no torch: replay.py past the limit"
fi

# ------------------------------------------------------------------ schemas, GPU specs
refused "ir --schemas /dev/zero" "/dev/zero: a character device, not a schema snapshot" \
	"$TLREPLAY" ir -i "$F" 0 --schemas /dev/zero
TLREPLAY_MAX_JSON=1M refused "ir --schemas: a gzip bomb" "bomb.json.gz: inflates to more than 1 MiB, the limit for a schema snapshot" \
	"$TLREPLAY" ir -i "$F" 0 --schemas "$TMP/bomb.json.gz"
run guarded sh -c 'cat "$4" >"$2" & exec "$1" ir -i "$3" 0 --schemas "$2" -o "$5"' sh "$TLREPLAY" "$TMP/fifo" "$F" \
	"$ROOT/core/replay/schemas/torch-1.13.json.gz" "$TMP/via-fifo.json"
[ "$RC" -eq 0 ] && [ -s "$TMP/via-fifo.json" ]
ok $? "ir --schemas FIFO: a pipe may carry the snapshot, gzip too (exit $RC)"
refused "report --gpu /dev/zero" "/dev/zero: a character device, not a GPU spec file" \
	"$TLREPLAY" report -i "$F" --gpu /dev/zero -o "$TMP/rep"
[ -z "$(ls -A "$T")" ]
ok $? "nothing was left in TMPDIR"

# ------------------------------------------------------------------ a capture's details
mkdir "$TMP/cap"
mkfifo "$TMP/cap/execution_details.json"
refused "--capture DIR whose execution_details.json is a FIFO: refused, not waited on" \
	"execution_details.json: a FIFO, not a capture's execution_details.json" \
	"$TLREPLAY" ops -i "$ROOT/tests/fixtures/mini.json" --capture "$TMP/cap"

# ------------------------------------------------------------------ the results store
refused "fold --store FIFO: refused, not waited on" "fifo: not a regular file; a results store is one" \
	"$TLREPLAY" fold -i "$F" --store "$TMP/fifo" -o "$TMP/folded.json"
"$PYTHON" -c 'import json; print(json.dumps({"v": 1, "command": "uid", "pad": "x" * 3000}))' >"$TMP/store.jsonl"
TLREPLAY_MAX_JSON=2K refused "a store record past TLREPLAY_MAX_JSON" "store.jsonl:1: a line of more than 2 KiB" \
	"$TLREPLAY" fold -i "$F" --store "$TMP/store.jsonl" -o "$TMP/folded.json"

# ------------------------------------------------------------------ the remembered trace
mkdir -p "$XDG_STATE_HOME/tlreplay"
mkfifo "$XDG_STATE_HOME/tlreplay/current-trace"
refused "open: the remembered trace file is a FIFO: said, not waited on" \
	"current-trace: a FIFO, not the remembered trace file" "$TLREPLAY" open
refused "a command without -i: the same" "current-trace: a FIFO" "$TLREPLAY" breakdown
rm "$XDG_STATE_HOME/tlreplay/current-trace"
ln -s "$ROOT/tests/fixtures/mini.json" "$XDG_STATE_HOME/tlreplay/current-trace"
refused "the remembered trace file is a symbolic link: refused" "current-trace: a symbolic link, refused" "$TLREPLAY" open
rm "$XDG_STATE_HOME/tlreplay/current-trace"
run "$TLREPLAY" open "$ROOT/tests/fixtures/mini.json"
run "$TLREPLAY" open
[ "$RC" -eq 0 ] && [ "$(cat "$TMP/out")" = "$ROOT/tests/fixtures/mini.json" ]
ok $? "open: the trace it remembers, as before"

done_testing
