#!/bin/sh
# The recorder (core/record, libtlreplay-record.so) is preloaded into any
# program: it links nothing of libtlreplay, includes only common/ of it, and its files depend on each
# other without a cycle (rec_real.c holds what they all use). Each file is
# compiled alone here, as the Makefile compiles them together, and nm says
# who uses whom.
. "$(dirname "$0")/../taplib.sh"
. "$(dirname "$0")/../nm_graph.sh"

if ! command -v nm >/dev/null 2>&1 || ! command -v tsort >/dev/null 2>&1; then
	skip "nm or tsort not installed"
	done_testing
fi
CC=${CC:-cc}
mkdir -p "$TMP/rec"
for c in "$ROOT"/core/record/*.c "$ROOT"/core/src/common/sha256.c; do
	$CC -std=c11 -D_GNU_SOURCE -O1 -fPIC -fvisibility=hidden -I"$ROOT/core/include" -I"$ROOT/core/src" \
		-c -o "$TMP/rec/$(basename "$c" .c).o" "$c" || break
done
n=$(ls "$TMP/rec"/*.o 2>/dev/null | wc -l)
[ "$n" -eq $(($(ls "$ROOT"/core/record/*.c | wc -l) + 1)) ]
ok $? "every file of the recorder compiles alone ($n objects)"

edges "$TMP/rec" >"$TMP/edges"
cycles "$TMP/edges" >"$TMP/found"
[ -s "$TMP/edges" ] && [ ! -s "$TMP/found" ]
ok $? "$(wc -l <"$TMP/edges") dependencies between the recorder's files, no cycle: $(tr '\n' ';' <"$TMP/found")"

# nothing of libtlreplay: no tl_ symbol is used
for o in "$TMP/rec"/*.o; do nm -u "$o"; done | awk '{ print $NF }' | grep '^tl_' | sort -u >"$TMP/tl"
[ ! -s "$TMP/tl" ]
ok $? "the recorder uses nothing of libtlreplay: $(tr '\n' ' ' <"$TMP/tl")"

# of the library's headers, only common/ (what the recorder compiles too)
# and the public ones: no subsystem's internal header
grep -h '^#include "' "$ROOT"/core/record/*.[ch] | grep -v -e '"rec\.h"' -e '"common/[a-z_0-9]*\.h"' >"$TMP/bad"
[ ! -s "$TMP/bad" ]
ok $? "the recorder includes only rec.h and common/ of ours: $(tr '\n' ' ' <"$TMP/bad")"

# what every file uses is in rec_real.c, which uses no other file of ours
grep '^rec_real ' "$TMP/edges" >"$TMP/bad"
[ ! -s "$TMP/bad" ] && grep -q ' rec_real$' "$TMP/edges"
ok $? "rec_real.c is used and uses no other file: $(tr '\n' ';' <"$TMP/bad")"

done_testing
