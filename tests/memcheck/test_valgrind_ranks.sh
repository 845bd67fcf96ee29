#!/bin/sh
# The multi-rank code under valgrind's memcheck: the unit test (threads,
# summaries, matching) and the three commands on the fixture ranks.
. "$(dirname "$0")/../taplib.sh"

if ! command -v valgrind >/dev/null 2>&1; then
	echo "1..0 # SKIP valgrind not installed"
	exit 0
fi
BUILD=${TLREPLAY_BUILD:-$ROOT/build}
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
F=$ROOT/tests/fixtures/ranks

if [ -x "$BUILD/tests/test_ranks" ]; then
	(cd "$ROOT" && $VG "$BUILD/tests/test_ranks") >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ]
	ok $? "valgrind test_ranks"
	[ $rc -ne 0 ] && diag "$(grep -v '^ok' "$TMP/out" | head -5; head -20 "$TMP/err")"
else
	skip "test_ranks not built"
fi

for args in "breakdown -i $F -j" "collectives -i $F -j" "collectives -i $F --summary" \
	"collectives -i $F --stragglers -x," "summarize -i $F -o $TMP/sum" "collectives -i $TMP/sum --per-rank" \
	"breakdown -i $F -i $TMP/sum/rank-1.tlrank.jsonl" "collectives -i $F --chart $TMP/c.svg"; do
	# shellcheck disable=SC2086
	$VG "$TLREPLAY" $args >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -ne 99 ]
	ok $? "valgrind tlreplay $args"
	[ $rc -eq 99 ] && diag "$(head -20 "$TMP/err")"
done

done_testing
