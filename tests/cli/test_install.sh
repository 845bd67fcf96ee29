#!/bin/sh
# make install / uninstall honour PREFIX and DESTDIR; the installed library,
# headers and pkg-config file are enough to build and run a program.
. "$(dirname "$0")/../taplib.sh"

BUILD=${TLREPLAY_BUILD:-$ROOT/build}
D=$TMP/stage
make -s -C "$ROOT" O="$BUILD" DESTDIR="$D" PREFIX=/opt/tl install >"$TMP/out" 2>&1
ok $? "make install DESTDIR=... PREFIX=/opt/tl"

missing=
for f in bin/tlreplay bin/perf-tlreplay lib/libtlreplay.a lib/libtlreplay.so.0.1.0 lib/libtlreplay.so.0 \
	lib/libtlreplay.so include/tlreplay/tlreplay.h include/tlreplay/trace.h include/tlreplay/tree.h \
	include/tlreplay/analysis.h include/tlreplay/common.h lib/pkgconfig/tlreplay.pc \
	share/man/man1/tlreplay.1 share/bash-completion/completions/tlreplay \
	share/tlreplay/replay/tlreplay_worker.py; do
	[ -e "$D/opt/tl/$f" ] || missing="$missing $f"
done
for f in "$ROOT"/core/replay/tlreplay_replay/*.py; do
	f=share/tlreplay/replay/tlreplay_replay/${f##*/}
	[ -e "$D/opt/tl/$f" ] || missing="$missing $f"
done
[ -z "$missing" ]
ok $? "every file in place under DESTDIR/PREFIX${missing:+ (missing:$missing)}"

# the installed worker script finds its package beside it (argparse's --help imports it all)
run env -i PATH=/usr/bin:/bin "$PYTHON" "$D/opt/tl/share/tlreplay/replay/tlreplay_worker.py" --help
[ "$RC" -eq 0 ] && grep -q "schemas" "$TMP/out"
ok $? "the installed tlreplay_worker.py runs from its package"

grep -q '^libdir=/opt/tl/lib$' "$D/opt/tl/lib/pkgconfig/tlreplay.pc"
ok $? "tlreplay.pc points at PREFIX, not at DESTDIR"

cat >"$TMP/prog.c" <<'C'
#include <stdio.h>
#include <tlreplay/tlreplay.h>
int main(int argc, char **argv)
{
	struct tl_trace *tr;
	struct tl_breakdown_set *bd;

	if (argc < 2 || tl_trace_open(argv[1], NULL, &tr)) {
		fprintf(stderr, "%s\n", tl_last_error());
		return 1;
	}
	if (tl_breakdown(tr, NULL, &bd))
		return 1;
	printf("%s %llu %.3f\n", tl_version(), (unsigned long long)tl_trace_nevents(tr),
	       bd->v[0].us[TL_BD_TOTAL]);
	tl_breakdown_free(bd);
	tl_trace_close(tr);
	return 0;
}
C
flags=$(PKG_CONFIG_PATH="$D/opt/tl/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D" pkg-config --cflags --libs tlreplay 2>"$TMP/err")
cc -std=c11 -Wall -Werror ${TLREPLAY_CFLAGS:-} -o "$TMP/prog" "$TMP/prog.c" $flags 2>>"$TMP/err" &&
	LD_LIBRARY_PATH="$D/opt/tl/lib" "$TMP/prog" "$ROOT/tests/fixtures/mini.json" >"$TMP/out" 2>>"$TMP/err" &&
	grep -q '^0\.1\.0 22 38\.000$' "$TMP/out"
ok $? "a program built with pkg-config --cflags --libs tlreplay links and runs"
[ -s "$TMP/err" ] && diag "$(cat "$TMP/err")"

nm -D --defined-only "$D/opt/tl/lib/libtlreplay.so" | awk '{ print $3 }' | grep -v '^tl_' | grep -v '^TLREPLAY' >"$TMP/leak"
[ ! -s "$TMP/leak" ]
ok $? "the shared library exports only tl_ symbols$( [ -s "$TMP/leak" ] && echo ": $(head -3 "$TMP/leak" | tr '\n' ' ')")"

make -s -C "$ROOT" O="$BUILD" DESTDIR="$D" PREFIX=/opt/tl uninstall >"$TMP/out" 2>&1
left=$(find "$D" -type f | head -5)
[ -z "$left" ]
ok $? "make uninstall removes every file${left:+ (left: $left)}"
done_testing
