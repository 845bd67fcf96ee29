#!/bin/sh
# Memory per event: on a generated trace of 1 M small events (135 MB of
# text, bench/gen_small_events.py), `report -o DIR`, `critpath` and
# `critpath --fold` peak under twice the text's size, and `diff -o DIR` of
# two of them under twice both texts (peak RSS, the texts' resident pages
# included), the rule of the README's "Big traces". They were at 3.0x,
# 2.3x, 5.1x and 2.4x;
# bench/mem_events.sh gives the figures of 10 M events.
. "$(dirname "$0")/../taplib.sh"

if [ ! -x /usr/bin/time ]; then
	skip "no /usr/bin/time to measure the peak RSS"
	done_testing
fi
T=$TMP/small.json
"$PYTHON" "$ROOT/bench/gen_small_events.py" 1000000 "$T" 2>/dev/null
ok $? "generated 1 M small events"
text=$(stat -c %s "$T")

# peak COMMAND...: the command's peak RSS in bytes into $PEAK, its status in $RC
peak() {
	/usr/bin/time -f %M -o "$TMP/rss" "$TLREPLAY" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	PEAK=$(($(tail -n 1 "$TMP/rss") * 1024))
}

peak report -i "$T" -o "$TMP/report"
[ "$RC" -eq 0 ] && [ -s "$TMP/report/unified_perf_summary.csv" ]
ok $? "report ran"
[ "$PEAK" -le $((2 * text)) ]
ok $? "report: peak RSS $((PEAK / 1000000)) MB, at most twice the $((text / 1000000)) MB of text"

peak critpath -i "$T"
[ "$RC" -eq 0 ] && grep -q '^path: ' "$TMP/out"
ok $? "critpath ran"
[ "$PEAK" -le $((2 * text)) ]
ok $? "critpath: peak RSS $((PEAK / 1000000)) MB, at most twice the $((text / 1000000)) MB of text"

peak critpath -i "$T" --fold "$TMP/critical.json"
[ "$RC" -eq 0 ] && [ -s "$TMP/critical.json" ]
ok $? "critpath --fold ran"
[ "$PEAK" -le $((2 * text)) ]
ok $? "critpath --fold: peak RSS $((PEAK / 1000000)) MB, at most twice the $((text / 1000000)) MB of text"
rm -f "$TMP/critical.json"

# a copy, not a link: the variant's pages are its own, as another run's are
cp "$T" "$TMP/small2.json"
peak diff -i "$T" -i "$TMP/small2.json" -o "$TMP/diff"
[ "$RC" -eq 0 ] && [ -s "$TMP/diff/diff_stats.csv" ] && [ -s "$TMP/diff/ops_summary.csv" ]
ok $? "diff -o ran"
[ "$PEAK" -le $((4 * text)) ]
ok $? "diff -o: peak RSS $((PEAK / 1000000)) MB, at most twice the $((2 * text / 1000000)) MB of both texts"
rm -f "$TMP/small2.json"
done_testing
