#!/bin/sh
# One command line habit across the commands (issue 29.6): a mistyped command or long option
# gets "did you mean"; -n is --limit (how many rows) and -r how many times to run, in every
# command that has them; report says what it wrote and refuses -o FILE.txt (it would have made
# a directory of that name).
. "$(dirname "$0")/../taplib.sh"

tl() { "$TLREPLAY" "$@"; }
F=$ROOT/tests/fixtures/mini.json

run tl brekdown -i "$F"
[ "$RC" -eq 1 ] && [ "$(cat "$TMP/err")" = "tlreplay: what is 'brekdown'? did you mean breakdown? (\`tlreplay --help\` lists the commands)" ]
ok $? "a mistyped command: did you mean breakdown?"
run tl frobnicate
[ "$RC" -eq 1 ] && grep -q "what is 'frobnicate'? see \`tlreplay --help\` for the commands" "$TMP/err" && ! grep -q "did you mean" "$TMP/err"
ok $? "a word close to no command: no guess"
run tl breakdown -i "$F" --per-devise
[ "$RC" -eq 1 ] && grep -q "unrecognized option '--per-devise'" "$TMP/err" && grep -q '^did you mean --per-device?$' "$TMP/err"
ok $? "a mistyped long option: did you mean --per-device?"
run tl kernels -i "$F" --limt=3
[ "$RC" -eq 1 ] && grep -q "^did you mean --limit?$" "$TMP/err"
ok $? "a mistyped long option with a value: did you mean --limit?"

# -n and -r mean one thing each
bad=
for c in $(tl --list-cmds); do
	h=$(tl "$c" --help 2>/dev/null)
	n=$(echo "$h" | sed -n 's/^ *-n, \(--[a-z-]*\).*/\1/p')
	r=$(echo "$h" | sed -n 's/^ *-r, \(--[a-z-]*\).*/\1/p')
	[ -z "$n" ] || [ "$n" = --limit ] || bad="$bad $c:-n=$n"
	case ${r:---iters} in --iters | --repeat) ;; *) bad="$bad $c:-r=$r" ;; esac
done
[ -z "$bad" ]
ok $? "-n is --limit and -r is --iters or --repeat wherever they exist${bad:+ (not:$bad)}"
run tl seqs -i "$F" --top 2 -x,
[ "$RC" -eq 0 ]
ok $? "seqs --top (the old name of -n) still works"

# report: -o names a directory or a workbook, and it says what it wrote
cd "$TMP" || exit 1
run tl report -i "$F" -o out.txt
[ "$RC" -eq 1 ] && [ ! -e out.txt ] &&
	grep -q "report: -o out.txt: a report is a directory of CSV sheets or one FILE.xlsx; give a directory" "$TMP/err"
ok $? "report -o out.txt: refused, nothing made"
run tl report -i "$F" -o rep
[ "$RC" -eq 0 ] && [ -d rep ] && grep -q "^tlreplay: report: $(ls rep | wc -l) sheets to rep/$" "$TMP/err"
ok $? "report -o DIR: says how many sheets it wrote, and where"
run tl report -i "$F" -o rep.xlsx --html page.html
[ "$RC" -eq 0 ] && grep -q "^tlreplay: report: [0-9]* sheets to rep.xlsx$" "$TMP/err" &&
	grep -q "^tlreplay: report: the page to page.html$" "$TMP/err"
ok $? "report -o FILE.xlsx --html FILE.html: says both"

done_testing
