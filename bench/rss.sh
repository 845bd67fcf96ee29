#!/bin/sh
# Peak RSS and time of every subcommand that reads a trace, on the x8 OWLv2
# trace, plain and gzipped (docs/BENCHMARKS.md, "footprint"). RSS is given
# as a fraction of the trace's text size (both traces' for diff): anything
# above 1.0x is a bug. uid, stat, ir and pack run the torch worker, whose own
# peak (about 240 MB: Python and torch) is what they show.
# Usage: bench/rss.sh TLREPLAY SHARED_DIR [COMMAND...]
# (default: every command; the replaying ones need $PYTHON with torch)
set -eu
. "$(dirname "$0")/x8.sh"
shift 2
plain=$out/owlv2_x8.json
text=$(stat -c %s "$plain")
work=$out/rss-work
rm -rf "$work"
mkdir -p "$work"

# One op to navigate, replay and measure: the first aten::linear.
uid=$("$tl" list -i "$plain" -c cpu_op --name '^aten::linear$' -n 1 -x, | awk -F, 'NR == 2 { print $1 }')
# A results store with one replay, for fold.
store=$work/store.jsonl

cmds=${*:-info breakdown idle launches steps annotations critpath critpath-fold summarize ops kernels seqs report diff diff-o list show tree check ir pack uid stat fold}

# run LABEL TRACE: one command on one input; prints "time rss_mb ratio" or "error"
run() {
	c=$1
	t=$2
	case $c in
	critpath-fold) set -- critpath -i "$t" --fold "$work/critical.json" ;;
	summarize) set -- summarize -i "$t" -o "$work/sum.json" ;;
	report) rm -rf "$work/report"; set -- report -i "$t" -o "$work/report" ;;
	diff) set -- diff -i "$t" -i "$t" ;;
	diff-o) rm -rf "$work/diff"; set -- diff -i "$t" -i "$t" -o "$work/diff" ;;
	list) set -- list -i "$t" -n 0 -x, ;;
	show | tree) set -- "$c" -i "$t" "$uid" ;;
	ir) set -- ir -i "$t" --unique -o "$work/ir.json" ;;
	pack) set -- pack -i "$t" -o "$work/pack.zip" "$uid" ;;
	uid) set -- uid -i "$t" --store "$store" "$uid" ;;
	stat) set -- stat -e task-clock,page-faults -r 3 -i "$t" uid "$uid" ;;
	fold) set -- fold -i "$t" --store "$store" -o "$work/folded.json" ;;
	*) set -- "$c" -i "$t" ;;
	esac
	# diff reads two traces: its RSS is against both texts
	n=1
	case $c in diff*) n=2 ;; esac
	if /usr/bin/time -f "%e %M" -o "$work/one" "$tl" "$@" >/dev/null 2>"$work/err"; then
		awk -v text="$((text * n))" '{ printf "%.2f s | %d MB | %.2fx", $1, $2 / 1024, $2 * 1024 / text }' "$work/one"
	else
		printf 'error: %s | | ' "$(head -c 80 "$work/err")"
	fi
}

echo "Text: $((text / 1048576)) MB ($(basename "$plain")); gzip: $(($(stat -c %s "$plain.gz") / 1048576)) MB; UID $uid"
echo
echo "| command | plain: time | peak RSS | RSS / text | gzip: time | peak RSS | RSS / text |"
echo "|---|---|---|---|---|---|---|"
for c in $cmds; do
	a=$(run "$c" "$plain")
	b=$(run "$c" "$plain.gz")
	echo "| $c | $a | $b |"
done
