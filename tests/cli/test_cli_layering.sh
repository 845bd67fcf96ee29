#!/bin/sh
# The files of the tlreplay command depend on each other without a cycle: a
# file depends on another when it uses a symbol the other defines (nm over
# $TLREPLAY_BUILD/perf-plugin/**/*.o). A cycle is named file by file. The check
# is first run on two objects made to depend on each other, so that a check
# that cannot fail does not pass for one that works.
. "$(dirname "$0")/../taplib.sh"

BUILD=${TLREPLAY_BUILD:-$ROOT/build}
OBJ=$BUILD/perf-plugin

. "$(dirname "$0")/../nm_graph.sh"

if ! command -v nm >/dev/null 2>&1 || ! command -v tsort >/dev/null 2>&1; then
	skip "nm or tsort not installed"
	done_testing
fi

# the check itself: a.c and b.c call each other, c.c calls a.c
CC=${CC:-cc}
mkdir -p "$TMP/cyc"
printf 'int b(void);\nint a(void) { return b(); }\n' >"$TMP/cyc/a.c"
printf 'int a(void);\nint b(void) { return a() + 1; }\n' >"$TMP/cyc/b.c"
printf 'int a(void);\nint c(void) { return a(); }\n' >"$TMP/cyc/c.c"
for f in a b c; do
	$CC -c -o "$TMP/cyc/$f.o" "$TMP/cyc/$f.c" || break
done
if [ -f "$TMP/cyc/c.o" ]; then
	edges "$TMP/cyc" >"$TMP/cyc.edges"
	cycles "$TMP/cyc.edges" >"$TMP/cyc.found"
	grep -q 'a' "$TMP/cyc.found" && grep -q 'b' "$TMP/cyc.found" && ! grep -q 'c' "$TMP/cyc.found" &&
		grep -qx 'c a' "$TMP/cyc.edges"
	ok $? "the check finds the cycle of a.o and b.o it is shown: $(cat "$TMP/cyc.found")"
else
	skip "$CC cannot compile the cycle the check is tried on"
fi

set -- $(find "$OBJ" -name "*.o")
if [ ! -f "$1" ]; then
	skip "no objects in $OBJ (build first)"
	done_testing
fi

edges "$OBJ" >"$TMP/edges"
[ -s "$TMP/edges" ]
ok $? "$# objects in $OBJ, $(wc -l <"$TMP/edges") dependencies between them"

# none FILE WHAT DESC: ok when FILE is empty, else "not ok" and each line of
# it as a diagnostic "WHAT: line"
none() {
	[ ! -s "$1" ]
	st=$?
	while read -r line; do
		diag "$2: $line"
	done <"$1"
	ok $st "$3"
}

cycles "$TMP/edges" >"$TMP/found"
none "$TMP/found" cycle "perf-plugin files depend on each other without a cycle"

# the layers of docs/architecture.md: a folder uses only the folders listed
# for it (util: nothing of the command's), and none uses a command file
# (builtin-*, the command table tlreplay.c) at the top
folder() { case $1 in */*) echo "${1%%/*}" ;; *) echo top ;; esac; }
allowed() {
	case $1 in
	util) echo "" ;;
	chart | replay) echo "util" ;;
	report) echo "util chart" ;;
	stat) echo "util replay chart" ;;
	html) echo "util chart report" ;;
	esac
}
: >"$TMP/bad"
while read -r user definer; do
	fu=$(folder "$user")
	fd=$(folder "$definer")
	[ "$fu" = top ] || [ "$fu" = "$fd" ] && continue
	case " $(allowed "$fu") " in
	*" $fd "*) ;;
	*) echo "$user uses $definer ($fu/ may use: $(allowed "$fu"))" >>"$TMP/bad" ;;
	esac
done <"$TMP/edges"
none "$TMP/bad" "layering" "each folder uses only the folders below it (util < chart, replay < report, stat < html < commands)"
# docs/architecture.md shows the same order
: >"$TMP/bad"
for f in util chart replay report stat html; do
	line=$(echo "$f: $(allowed "$f")" | sed 's/ *$//')
	grep -qx "$line" "$ROOT/docs/architecture.md" || echo "not in docs/architecture.md: $line" >>"$TMP/bad"
done
none "$TMP/bad" "doc" "docs/architecture.md shows the command's order as this test has it"
awk '$2 == "tlreplay"' "$TMP/edges" >"$TMP/bad"
none "$TMP/bad" "uses tlreplay.o" "nothing uses tlreplay.o, the command table"
ls "$ROOT"/perf-plugin/*.c | sed 's|.*/||' | grep -v -e '^builtin-' -e '^tlreplay\.c$' >"$TMP/bad"
none "$TMP/bad" "at the top" "perf-plugin/ holds only builtin-<command>.c and tlreplay.c at its top"

done_testing
