#!/bin/sh
# `make bundle`: the relocatable folder for machines where nothing can be
# installed. Unpacked somewhere else, with an empty environment, it must find
# its own libraries, replay worker and schema snapshot.
. "$(dirname "$0")/../taplib.sh"

BUILD=${TLREPLAY_BUILD:-$ROOT/build}
tarball=$(ls "$BUILD"/bundle/tlreplay-*.tar.gz 2>/dev/null | head -1)
if [ -z "$tarball" ]; then
	echo "1..0 # SKIP no bundle in $BUILD/bundle (make bundle)"
	exit 0
fi
F=$ROOT/tests/fixtures/replay.json
mkdir "$TMP/elsewhere" && tar -C "$TMP/elsewhere" -xzf "$tarball"
ok $? "the bundle unpacks"
B=$(ls -d "$TMP"/elsewhere/tlreplay-*)
for f in bin/tlreplay bin/perf-tlreplay lib/libcjson.so.1 lib/libtlreplay.so.0 \
	share/tlreplay/replay/tlreplay_worker.py share/man/man1/tlreplay.1; do
	[ -e "$B/$f" ]
	ok $? "bundle has $f"
done
missing=
for f in "$ROOT"/core/replay/tlreplay_replay/*.py; do
	[ -f "$B/share/tlreplay/replay/tlreplay_replay/${f##*/}" ] || missing="$missing ${f##*/}"
done
[ -z "$missing" ]
ok $? "bundle has the worker's package beside it${missing:+ (missing:$missing)}"
ls "$B"/share/tlreplay/schemas/torch-*.json.gz >/dev/null 2>&1
ok $? "bundle has a schema snapshot"
ldd "$B/bin/tlreplay" >"$TMP/ldd" 2>&1
# libz may come in only as libminizip's (libxlsxwriter's), from the bundle too
! grep -q "not found" "$TMP/ldd" && grep -q "libcjson.so.1 => $B/bin/../lib/libcjson.so.1" "$TMP/ldd" &&
	! grep -q "libdeflate\|libprotobuf-c" "$TMP/ldd" &&
	! grep "libz\.so\|libxlsxwriter\|libminizip\|libcrypto" "$TMP/ldd" | grep -vq "=> $B/bin/../lib/"
ok $? "bin/tlreplay: libcjson and libxlsxwriter's libraries from the bundle, libdeflate linked in"
ldd "$B/lib/libtlreplay.so.0" >"$TMP/ldd" 2>&1
! grep -q "not found" "$TMP/ldd" && grep -q "libdeflate.so.0 => $B/lib/libdeflate.so.0" "$TMP/ldd"
ok $? "lib/libtlreplay.so finds its libraries beside it"
run env -i PATH=/usr/bin:/bin "$B/bin/tlreplay" --version
[ "$RC" -eq 0 ] && grep -q "^tlreplay " "$TMP/out"
ok $? "runs with an empty environment"
run env -i PATH=/usr/bin:/bin "$B/bin/tlreplay" breakdown -i "$ROOT/tests/fixtures/tiny.xplane.pb" --per-device -x,
[ "$RC" -eq 0 ] && grep -q "^1,computation_time,0.1," "$TMP/out"
ok $? "reads a JAX .xplane.pb (protobuf-c linked in)"
run env -i PATH=/usr/bin:/bin "$B/bin/tlreplay" ir -i "$F" 0 --no-torch
[ "$RC" -eq 0 ] && grep -Eq '"schemas": ?"torch 1.13' "$TMP/out"
ok $? "ir --no-torch finds the bundled snapshot"
if "$PYTHON" -c 'import torch' >/dev/null 2>&1; then
	run env -i PATH=/usr/bin:/bin TLREPLAY_PYTHON="$PYTHON" "$B/bin/tlreplay" uid -i "$F" 0 -r 2 -j
	[ "$RC" -eq 0 ] && grep -q '"status":"ok"' "$TMP/out"
	ok $? "uid replays with the bundled worker"
else
	skip "$PYTHON has no torch"
fi
done_testing
