#!/bin/sh
# Memory per event (docs/BENCHMARKS.md, "Memory per event"): peak RSS and
# time of the commands that read a trace, on a generated trace of N small
# events (bench/gen_small_events.py; default 10 M, about 1.37 GB of text),
# plain and gzipped. The peak RSS is /usr/bin/time's, so it counts the
# pages of a plain trace's mapped text that are resident at the peak as
# well as the process's own memory; it is given over the text's size
# (the rule: at most 2x) and per event.
# Usage: bench/mem_events.sh TLREPLAY [EVENTS] [COMMAND...]
# (default: report critpath breakdown ops kernels idle html)
# The traces go to $MEM_EVENTS_DIR (default $TMPDIR or /tmp), are made once
# (about 40 s, and a minute for the gzip) and are left there for the next run.
set -eu
tl=$1
n=${2:-10000000}
if [ $# -gt 2 ]; then
	shift 2
else
	set -- report critpath breakdown ops kernels idle html
fi
py=${PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
dir=${MEM_EVENTS_DIR:-${TMPDIR:-/tmp}}/tlreplay-mem-events
mkdir -p "$dir"
plain=$dir/small_$n.json
if [ ! -f "$plain" ]; then
	"$py" "$here/gen_small_events.py" "$n" "$plain.tmp" 2>/dev/null
	mv "$plain.tmp" "$plain"
fi
if [ ! -f "$plain.gz" ]; then
	gzip -6 -c "$plain" >"$plain.gz.tmp"
	mv "$plain.gz.tmp" "$plain.gz"
fi
text=$(stat -c %s "$plain")
# one event a line, after the line that opens the document
nev=$(($(grep -c '^{' "$plain") - 1))
work=$dir/work
rm -rf "$work"
mkdir -p "$work"

# run COMMAND TRACE: one run; prints "time | rss MB | rss/text | bytes/event"
run() {
	c=$1
	t=$2
	case $c in
	report) rm -rf "$work/report"; set -- report -i "$t" -o "$work/report" ;;
	html) set -- report -i "$t" --html "$work/page.html" ;;
	*) set -- "$c" -i "$t" ;;
	esac
	# report's perf sheets warn of every op without shapes: not timed
	if /usr/bin/time -f "%e %M" -o "$work/one" "$tl" "$@" >/dev/null 2>"$work/err"; then
		awk -v text="$text" -v n="$nev" '{ printf "%.1f s | %d MB | %.2fx | %d", $1, $2 * 1.024 / 1000, $2 * 1024 / text, $2 * 1024 / n }' "$work/one"
	else
		printf 'error: %s | | |' "$(tail -n 1 "$work/err" | head -c 80)"
	fi
}

echo "Text: $((text / 1000000)) MB, $nev events ($((text / nev)) bytes per event), gzip -6: $(($(stat -c %s "$plain.gz") / 1000000)) MB; $(nproc) CPUs, $(awk '/MemTotal/ { printf "%d GiB", $2 / 1048576 }' /proc/meminfo)"
echo
echo "| command | plain: time | peak RSS | RSS / text | bytes / event | gzip: time | peak RSS | RSS / text | bytes / event |"
echo "|---|---|---|---|---|---|---|---|---|"
for c in "$@"; do
	echo "| $c | $(run "$c" "$plain") | $(run "$c" "$plain.gz") |"
done
rm -rf "$work"
