#!/bin/sh
# The gdb extension as make install and make bundle lay it out: $(DATADIR)/tlreplay/gdb
# with the package, $(BINDIR)/tlreplay-gdb, and the same in the relocatable bundle; each
# finds its own tlreplay, libtlreplay.so and schema snapshot. Also the source tree's
# gdb/tlreplay-gdb.sh and a symbolic link to tlreplay.py (as in /etc/gdb/gdbinit.d).
. "$(dirname "$0")/../taplib.sh"
. "$ROOT/tests/gdb/helpers.inc"
need_gdb
FIX=$ROOT/tests/fixtures/replay.json

# run_gdb GDB-COMMAND...: the command with gdb's batch arguments, output in $TMP/out
run_gdb() {
	env -u PYTHONHOME -u PYTHONPATH "$@" -nx --batch -ex 'show tlreplay program' \
		-ex 'show tlreplay library' -ex "tlreplay open $FIX" -ex 'tlreplay select 0' \
		-ex 'tlreplay info' </dev/null >"$TMP/out" 2>&1
	RC=$?
}

run_gdb sh "$ROOT/gdb/tlreplay-gdb.sh"
[ "$RC" -eq 0 ] && has 'schema   aten::addmm(' && clean
check $? "gdb/tlreplay-gdb.sh loads the extension from the source tree"

ln -s "$ROOT/gdb/tlreplay.py" "$TMP/tlreplay-link.py"
run_gdb gdb -x "$TMP/tlreplay-link.py"
[ "$RC" -eq 0 ] && has 'schema   aten::addmm(' && clean
check $? "a symbolic link to tlreplay.py finds its package"

if ! grep -q 'tlreplay/gdb' "$ROOT/Makefile"; then
	skip "the Makefile does not install the gdb extension yet"
	done_testing
fi

make -s -C "$ROOT" install DESTDIR="$TMP/root" PREFIX=/usr O="$BUILD" >"$TMP/make.out" 2>&1
st=$?
ok $st "make install"
[ $st -eq 0 ] || diag "$(tail -n 20 "$TMP/make.out")"
[ -f "$TMP/root/usr/share/tlreplay/gdb/tlreplay.py" ] &&
	[ -f "$TMP/root/usr/share/tlreplay/gdb/tlreplay_gdb/commands.py" ] && [ -x "$TMP/root/usr/bin/tlreplay-gdb" ]
ok $? "make install: share/tlreplay/gdb and bin/tlreplay-gdb"
run_gdb "$TMP/root/usr/bin/tlreplay-gdb"
[ "$RC" -eq 0 ] && has "The tlreplay command is $TMP/root/usr/bin/tlreplay (found)." &&
	has "The trace library is $TMP/root/usr/lib/libtlreplay.so.0 (found)." &&
	has 'schema   aten::addmm(' && clean
check $? "the installed tlreplay-gdb uses the installed command, library and schemas"

B=$(ls -d "$BUILD"/bundle/tlreplay-*/ 2>/dev/null | head -1)
if [ -n "$B" ] && [ -x "$B/bin/tlreplay-gdb" ]; then
	cp -R "$B" "$TMP/moved"
	run_gdb "$TMP/moved/bin/tlreplay-gdb"
	[ "$RC" -eq 0 ] && has "The tlreplay command is $TMP/moved/bin/tlreplay (found)." &&
		has "The trace library is $TMP/moved/lib/libtlreplay.so.0 (found)." && has 'schema   aten::addmm(' && clean
	check $? "the bundle's tlreplay-gdb, moved elsewhere, uses the bundle's files"
else
	skip "no bundle with bin/tlreplay-gdb in $BUILD/bundle (make bundle)"
fi
done_testing
