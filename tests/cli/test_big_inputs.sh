#!/bin/sh
# Inputs bigger than memory: a gzip trace goes through an unlinked file in
# $TMPDIR and gives the same results as the plain one (small-file path,
# file path, pipe); the size and ratio limits (--max-text, TLREPLAY_MAX_TEXT,
# TLREPLAY_MAX_RATIO) are one-line errors; a missing or full $TMPDIR is named
# with the space needed; nothing is left behind in $TMPDIR.
. "$(dirname "$0")/../taplib.sh"

one_line() { # one_line WORD...: stderr is one "tlreplay: ..." line holding every WORD
	[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q '^tlreplay: ' "$TMP/err" || return 1
	for w in "$@"; do
		grep -q -- "$w" "$TMP/err" || return 1
	done
}

bad() { # bad NAME "WORD..." CMD...: exit 1, one error line with the words, no stdout
	name=$1
	words=$2
	shift 2
	run "$@"
	# shellcheck disable=SC2086 # the words are split on purpose
	[ "$RC" -eq 1 ] && one_line $words && [ ! -s "$TMP/out" ]
	ok $? "$name: $(head -c 200 "$TMP/err")"
}

T=$TMP/tmpdir
mkdir "$T"
export TMPDIR="$T"

trace=$SHARED/traces/TraceLens/tests/traces/h100/google_owlv2-large-patch14-ensemble__1016001.json.gz
if [ -r "$trace" ]; then
	gzip -dc "$trace" >"$TMP/real.json"
else
	# our own fixture, big enough to be split between two loader threads
	"$PYTHON" - "$ROOT/tests/fixtures/mini.json" "$TMP/real.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
base = max(e.get("ts", 0) + e.get("dur", 0) for e in ev) + 10
out = []
for k in range(400):
    for e in ev:
        e = dict(e)
        if "ts" in e:
            e["ts"] = e["ts"] + k * base
        out.append(e)
d["traceEvents"] = out
json.dump(d, open(sys.argv[2], "w"))
EOF
	diag "SKIP-ish: $trace absent; using a fixture of our own"
fi
gzip -c "$TMP/real.json" >"$TMP/real.json.gz"

# The same breakdown from every way in.
"$TLREPLAY" breakdown -x, -i "$TMP/real.json" >"$TMP/want" 2>"$TMP/err"
ok $? "plain trace: breakdown"
cp "$TMP/want" "$TMP/want.bd"
for how in "1G:in memory" "0:through a file in TMPDIR"; do
	TLREPLAY_SPILL_MIN=${how%%:*} "$TLREPLAY" breakdown -x, -i "$TMP/real.json.gz" >"$TMP/got" 2>"$TMP/err"
	cmp -s "$TMP/want" "$TMP/got"
	ok $? "gzip inflated ${how#*:}: the same breakdown as the plain file"
done
gzip -c "$TMP/real.json" | "$TLREPLAY" breakdown -x, -i /dev/stdin >"$TMP/got" 2>"$TMP/err"
cmp -s "$TMP/want" "$TMP/got"
ok $? "gzip from a pipe: the same breakdown"
"$TLREPLAY" breakdown -x, -i /dev/stdin <"$TMP/real.json" >"$TMP/got" 2>"$TMP/err"
cmp -s "$TMP/want" "$TMP/got"
ok $? "plain text from standard input: the same breakdown"
TLREPLAY_SPILL_MIN=0 "$TLREPLAY" ops -x, -i "$TMP/real.json.gz" >"$TMP/got" 2>"$TMP/err" &&
	"$TLREPLAY" ops -x, -i "$TMP/real.json" >"$TMP/want" 2>>"$TMP/err" && cmp -s "$TMP/want" "$TMP/got"
ok $? "the op summary (args read back from the mapped file) is the same too"
# Reading args with the text's pages let go every 32 MB (what a text of over
# a quarter of memory gets) changes nothing in the whole report.
TLREPLAY_SPILL_MIN=0 TLREPLAY_TEXT_WINDOW=never "$TLREPLAY" report -i "$TMP/real.json.gz" -o "$TMP/rep-never" \
	>/dev/null 2>"$TMP/err" &&
	TLREPLAY_SPILL_MIN=0 TLREPLAY_TEXT_WINDOW=always "$TLREPLAY" report -i "$TMP/real.json.gz" \
		-o "$TMP/rep-always" >/dev/null 2>>"$TMP/err" && diff -r "$TMP/rep-never" "$TMP/rep-always" >/dev/null
ok $? "the report with the args window forced on: the same sheets ($(ls "$TMP/rep-always" 2>/dev/null | wc -l))"
# diff -o holds two traces: it keeps each one's text window on (the merged
# tree reads both traces' args in turn), which changes no sheet either.
TLREPLAY_TEXT_WINDOW=never "$TLREPLAY" diff -i "$TMP/real.json" -i "$TMP/real.json.gz" -o "$TMP/diff-never" \
	>/dev/null 2>"$TMP/err" &&
	"$TLREPLAY" diff -i "$TMP/real.json" -i "$TMP/real.json.gz" -o "$TMP/diff-win" >/dev/null 2>>"$TMP/err" &&
	diff -r "$TMP/diff-never" "$TMP/diff-win" >/dev/null
ok $? "diff -o with both texts windowed: the same sheets ($(ls "$TMP/diff-win" 2>/dev/null | wc -l))"
[ -z "$(ls -A "$T")" ]
ok $? "nothing left in TMPDIR"

# Limits.
bad "--max-text below a plain trace" "real.json limit --max-text" \
	"$TLREPLAY" --max-text 1K breakdown -i "$TMP/real.json"
bad "--max-text=SIZE below a gzip trace (its trailer)" "real.json.gz trailer" \
	"$TLREPLAY" --max-text=1K breakdown -i "$TMP/real.json.gz"
bad "TLREPLAY_MAX_TEXT, as --max-text" "real.json limit" \
	env TLREPLAY_MAX_TEXT=1K "$TLREPLAY" info -i "$TMP/real.json"
bad "a --max-text that is not a size" "max-text 12Q size" \
	"$TLREPLAY" --max-text 12Q breakdown -i "$TMP/real.json"
run "$TLREPLAY" --max-text none breakdown -x, -i "$TMP/real.json.gz"
cmp -s "$TMP/want.bd" "$TMP/out"
ok $? "--max-text none: no limit"
run "$TLREPLAY" --max-text 1G diff -i "$TMP/real.json" -i "$TMP/real.json.gz"
ok $RC "--max-text before a command of two traces (diff)"

# A gzip bomb: 40 MB of blanks in 40 KB.
"$PYTHON" - "$TMP/bomb.json.gz" <<'EOF'
import gzip, sys
with gzip.open(sys.argv[1], "wb", 9) as f:
    f.write(b'{"traceEvents": [')
    for _ in range(40):
        f.write(b" " * (1 << 20))
    f.write(b"]}")
EOF
bad "gzip bomb: refused by its ratio" "bomb.json.gz 200:1 TLREPLAY_MAX_RATIO" \
	"$TLREPLAY" breakdown -i "$TMP/bomb.json.gz"
bad "TLREPLAY_MAX_RATIO=0 lets it inflate: then its own error" "bomb.json.gz traceEvents" \
	env TLREPLAY_MAX_RATIO=0 "$TLREPLAY" breakdown -i "$TMP/bomb.json.gz"
[ -z "$(ls -A "$T")" ]
ok $? "nothing left in TMPDIR after the errors"

# Where the text goes.
bad "TMPDIR missing" "$TMP/nowhere TMPDIR" \
	env TMPDIR="$TMP/nowhere" TLREPLAY_SPILL_MIN=0 "$TLREPLAY" breakdown -i "$TMP/real.json.gz"
mkdir "$TMP/small"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k tmpfs "$TMP/small" 2>/dev/null; then
	bad "a full TMPDIR: named, with the space needed" "$TMP/small needed free" \
		env TMPDIR="$TMP/small" TLREPLAY_SPILL_MIN=0 "$TLREPLAY" breakdown -i "$TMP/real.json.gz"
	umount "$TMP/small"
else
	skip "a full TMPDIR: no tmpfs to mount here (not root, or in a container without it)"
fi

done_testing
