#!/bin/sh
# make demo as a newcomer meets it (issue 29.1): it runs whole; every command it shows works
# when pasted in the checkout, including its "Next:" line, where tlreplay is build/tlreplay and
# not on PATH (it says how to put it there); with tlreplay on PATH it shows plain tlreplay.
. "$(dirname "$0")/../taplib.sh"

cd "$ROOT" || exit 1
# the demo shows the binary by its path from the checkout; from elsewhere, by its full path
run sh scripts/demo.sh "$TLREPLAY" "$TMP/demo"
case $TLREPLAY in "$ROOT"/*) shown=${TLREPLAY#"$ROOT"/} ;; *) shown=$TLREPLAY ;; esac
[ "$RC" -eq 0 ] && [ "$(grep -c "^\\\$ $shown " "$TMP/out")" -ge 10 ] && ! grep -q '^\$ tlreplay ' "$TMP/out"
ok $? "make demo: exit 0, each command shown as $shown (tlreplay is not on PATH here)"
[ "$RC" -eq 0 ] || diag "$(tail -5 "$TMP/err")"
# each analysis command as pasted (the replays ran above already)
fails=
grep "^\\\$ $shown " "$TMP/out" | sed 's/^\$ //' | grep -v " uid \| replay " >"$TMP/cmds"
while IFS= read -r c; do
	sh -c "$c" >/dev/null 2>&1 || fails="$fails [$c]"
done <"$TMP/cmds"
[ -s "$TMP/cmds" ] && [ -z "$fails" ]
ok $? "the demo's commands work as pasted ($(wc -l <"$TMP/cmds") of them)${fails:+: failed$fails}"
next=$(sed -n 's/^Next: \([^ ]* --help\) .*/\1/p' "$TMP/out")
[ -n "$next" ] && sh -c "$next" >/dev/null 2>&1 && grep -q '^  make install PREFIX=~/.local ' "$TMP/out" &&
	grep -q "^tlreplay is $shown here; to call it tlreplay, put it on your PATH:" "$TMP/out"
ok $? "its Next: line works as pasted ($next) and says how to put tlreplay on PATH"
# with the build on PATH, the demo shows tlreplay itself
PATH=$(dirname "$TLREPLAY"):$PATH run sh scripts/demo.sh "$TLREPLAY" "$TMP/demo2"
[ "$RC" -eq 0 ] && grep -q '^\$ tlreplay check -i ' "$TMP/out" && grep -q '^Next: tlreplay --help ' "$TMP/out" &&
	! grep -q 'put it on your PATH' "$TMP/out"
ok $? "with tlreplay on PATH: commands shown as tlreplay, no PATH advice"
# the README's first lines say where the binary is and how to install it
grep -q '^    make install PREFIX=~/.local ' "$ROOT/README.md" && grep -q 'built as `build/tlreplay`' "$ROOT/README.md"
ok $? "README: build/tlreplay and make install PREFIX=~/.local beside the first two commands"

done_testing
