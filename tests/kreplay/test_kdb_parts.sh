#!/bin/sh
# The parts of a kernel record database as they can arrive in a shared
# directory or an archive (docs/limits.md): an index.json or a launches/ file
# that is a symbolic link (to /dev/zero, to a valid index elsewhere) or a
# FIFO, a blob that is a link, a blob whose bytes are not its SHA-256 name:
# each refused in one line naming it, before anything runs. And -e with an
# empty event ('' or ','), an error as perf says, not nothing counted.
# Commands run under taplib's guard: the old hang on a FIFO, or a copy of
# /dev/zero into $TMPDIR, fails the test instead of stalling it.
. "$(dirname "$0")/../taplib.sh"

use_kdrv
cd "$TMP" || exit 1
mkdir tmpdir
export TMPDIR="$TMP/tmpdir"

# copy DB NEW: a copy of database DB that can be spoiled
copy() {
	cp -r "$1" "$2" && chmod -R u+w "$2"
}

run "$TLREPLAY" record -k '^saxpy$' --nth 1 -o db -- "$K/kapp" "$K/libkkernels.so"
[ "$RC" -eq 0 ] && [ -f db/index.json ]
ok $? "record: a database of one launch"
run guarded "$TLREPLAY" kreplay --verify db
[ "$RC" -eq 0 ] && grep -q "verify match" "$TMP/out"
ok $? "kreplay --verify: it replays and matches, as recorded"

# ------------------------------------------------------------------ index.json
copy db dbzero
rm dbzero/index.json
ln -s /dev/zero dbzero/index.json
refused "index.json a symbolic link to /dev/zero: refused, nothing copied to TMPDIR" \
	"dbzero/index.json: a symbolic link, refused: a kernel record index must be a regular file" \
	"$TLREPLAY" kreplay dbzero
[ -z "$(ls -A "$TMPDIR")" ]
ok $? "TMPDIR is empty"
copy db dblink
rm dblink/index.json
ln -s ../db/index.json dblink/index.json
refused "index.json a symbolic link to a valid index: refused too" "dblink/index.json: a symbolic link" \
	"$TLREPLAY" kreplay dblink
copy db dbfifo
rm dbfifo/index.json
mkfifo dbfifo/index.json
refused "index.json a FIFO: refused, not waited on" "dbfifo/index.json: a FIFO, not a kernel record index" \
	"$TLREPLAY" kreplay dbfifo
refused "pack --kdb of it: the same" "dbfifo/index.json: a FIFO" "$TLREPLAY" pack --kdb dbfifo -o "$TMP/p.zip"
copy db dbbig
"$PYTHON" -c 'import sys; sys.stdout.write("{\"v\": 1, \"launches\": [], \"pad\": \"" + "x" * 5000 + "\"}")' \
	>dbbig/index.json
TLREPLAY_MAX_JSON=4K refused "index.json past TLREPLAY_MAX_JSON" "dbbig/index.json: holds more than 4 KiB" \
	"$TLREPLAY" kreplay dbbig

# ------------------------------------------------------------------ launches/
mkdir dbfrag dbfrag/launches
cp -r db/blobs dbfrag/
"$PYTHON" -c 'import json,sys; print(json.dumps(json.load(open("db/index.json"))["launches"][0]))' \
	>dbfrag/launches/1-1.json
run guarded "$TLREPLAY" kreplay dbfrag
[ "$RC" -eq 0 ] && grep -q "time  *median" "$TMP/out"
ok $? "a database of launches/ files and no index: replays (exit $RC)"
mv dbfrag/launches/1-1.json dbfrag/frag.json
ln -s ../frag.json dbfrag/launches/1-1.json
refused "a launches/ file that is a symbolic link: refused" "launches/1-1.json: a symbolic link, refused: a recorded launch" \
	"$TLREPLAY" kreplay dbfrag

# ------------------------------------------------------------------ blobs
after=$("$PYTHON" -c '
import json
m = [x for x in json.load(open("db/index.json"))["launches"][0]["memory"] if x["before"] != x["after"]]
print(m[0]["after"])')
copy db dbcorrupt
printf '\377' | dd of="dbcorrupt/blobs/$after" bs=1 seek=100 conv=notrunc 2>/dev/null
got=$(sha256sum "dbcorrupt/blobs/$after" | cut -c1-12)
refused "kreplay --verify, a corrupt blob: named with both SHA-256s, refused before running (not 'DIFFERS')" \
	"dbcorrupt/blobs/$after: corrupt: its SHA-256 is $got..., not the $(echo "$after" | cut -c1-12)... of its name" \
	"$TLREPLAY" kreplay --verify dbcorrupt
! grep -q DIFFERS "$TMP/out" "$TMP/err" && ! grep -q "time  *median" "$TMP/out"
ok $? "nothing ran, and no DIFFERS blamed on the kernel"
copy db dbblink
mv "dbblink/blobs/$after" "dbblink/$after"
ln -s "../$after" "dbblink/blobs/$after"
refused "a blob that is a symbolic link: refused" "blobs/$after: a symbolic link, refused" "$TLREPLAY" kreplay dbblink
refused "pack --kdb of it: refused too" "blobs/$after: a symbolic link" "$TLREPLAY" pack --kdb dbblink -o "$TMP/p.zip"
[ ! -e "$TMP/p.zip" ]
ok $? "no zip written"

# ------------------------------------------------------------------ -e
for ev in "" "," "task-clock," "task-clock,,page-faults"; do
	refused "kreplay -e '$ev': an error, as perf stat -e '$ev' is" "bad event list \"$ev\": an event is missing at column" \
		"$TLREPLAY" kreplay -e "$ev" db
done
refused "stat -e '' kreplay: the same" 'bad event list "": an event is missing at column 1' \
	"$TLREPLAY" stat -e '' kreplay db
run guarded "$TLREPLAY" kreplay -e task-clock db
[ "$RC" -eq 0 ] && grep -q "task-clock" "$TMP/out"
ok $? "kreplay -e task-clock still counts (exit $RC)"

done_testing
