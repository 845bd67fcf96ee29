#!/bin/sh
# Loader + breakdown benchmark (docs/BENCHMARKS.md).
# Usage: bench/run.sh TLREPLAY SHARED_DIR [RUNS]
#
# Makes the x8 and x16 copies of the H100 OWLv2 trace with
# ../shared/scripts/scale_trace.py (cached in bench/out), then times
# `tlreplay breakdown` on the plain x8, the plain x16 and the gzipped x8, next
# to `cat`/`zcat` of the same files and Python's json.load (the first step of
# TraceLens). Reports the median of RUNS runs (default 5) and the peak RSS.
set -eu
. "$(dirname "$0")/x8.sh"
runs=${3:-5}
[ -f "$out/owlv2_x16.json" ] || "$py" "$shared/scripts/scale_trace.py" "$src" 16 "$out/owlv2_x16.json"

# median of the wall times and max of the RSS over $runs runs of "$@"
measure() {
	i=0
	: >"$out/times"
	while [ $i -lt "$runs" ]; do
		/usr/bin/time -f "%e %M" -o "$out/one" "$@" >/dev/null
		cat "$out/one" >>"$out/times"
		i=$((i + 1))
	done
	sort -n "$out/times" | awk '{ t[NR] = $1; if ($2 > m) m = $2 } END { printf "%.2f %d\n", t[int((NR + 1) / 2)], m / 1024 }'
}

mb() { echo "$(($(stat -L -c %s "$1") / 1000000))"; }

events=$("$tl" list -i "$out/owlv2_x8.json" --gpu -n 1 -j >/dev/null && "$py" -c "
import sys
n = 0
with open(sys.argv[1], 'rb') as f:
    for line in f:
        n += line.count(b'\"ph\"')
print(n)" "$out/owlv2_x8.json")

echo "| input | size | events | tlreplay breakdown | peak RSS | tlreplay MB/s | cat/zcat | cat/zcat MB/s |"
echo "|---|---|---|---|---|---|---|---|"
for f in owlv2_x8.json owlv2_x16.json owlv2_x8.json.gz; do
	p=$out/$f
	set -- $(measure "$tl" breakdown -i "$p" -x,)
	t=$1
	rss=$2
	case $f in
	*.gz) set -- $(measure zcat "$p") ;;
	*) set -- $(measure cat "$p") ;;
	esac
	ct=$1
	raw=$(case $f in *.gz) mb "$out/owlv2_x8.json" ;; *) mb "$p" ;; esac)
	n=$(case $f in *x16*) echo $((events * 2)) ;; *) echo "$events" ;; esac)
	echo "| $f | $(mb "$p") MB | $n | $t s | $rss MB | $(awk "BEGIN { printf \"%d\", $raw / $t }") | $ct s | $(awk "BEGIN { printf \"%d\", $raw / ($ct > 0 ? $ct : 0.01) }") |"
done

if [ "${BENCH_PYTHON_JSON:-1}" = 1 ]; then
	set -- $(runs=1 measure "$py" -c "import json; json.load(open('$out/owlv2_x8.json'))")
	echo
	echo "Python 3 json.load of owlv2_x8.json alone (TraceLens's first step): $1 s, $2 MB peak RSS"
fi
