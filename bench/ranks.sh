#!/bin/sh
# Multi-rank benchmark (docs/BENCHMARKS.md, "Multi-rank jobs").
# Usage: bench/ranks.sh TLREPLAY SHARED_DIR [RUNS]
#
# Makes 64 rank traces from rank 3 of HTA's 8-rank job
# (trace_diff/control/control.json.gz: 34.8 MB of JSON, 109k events, 60 NCCL
# kernels) in bench/out/ranks/: each copy gets its own distributedInfo.rank
# (world size 64) and a baseTimeNanoseconds a few hundred microseconds apart,
# so that the collectives have skews to find. Then, for 1, 2, 4, 8, 16, 32 and
# 64 ranks (directories of links), times `breakdown -i DIR -x,` and
# `collectives -i DIR -x,` (every rank loaded, summarised and closed, --jobs
# automatic), `collectives` with --jobs 1, and for 64 ranks `summarize` into
# rank summaries and `collectives` over the summaries (the merge step of a
# job array), with their peak RSS and CPU time.
# BENCH_PYTHON_JSON=0 skips timing Python's json.load of 8 ranks.
# Times: the best of RUNS (default 5) runs, the median in parentheses.
set -eu
tl=$1
shared=$2
runs=${3:-5}
py=${PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
out=$here/out/ranks
src=$shared/traces/HolisticTraceAnalysis/tests/data/trace_diff/control/control.json.gz
mkdir -p "$out"

if [ ! -f "$src" ]; then
	echo "bench: $src not found (../shared must be beside the checkout)" >&2
	exit 1
fi
[ -f "$out/control.json" ] || zcat "$src" >"$out/control.json"
r=0
while [ $r -lt 64 ]; do
	f=$out/rank-$r.json
	if [ ! -f "$f" ]; then
		# the rank, the world, and a base time (us apart) before traceEvents
		base=$(((r * 7919 % 997) * 1000))
		sed -e "s/\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8},/\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": $r, \"world_size\": 64},\n  \"baseTimeNanoseconds\": $base,/" \
			"$out/control.json" >"$f.tmp" && mv "$f.tmp" "$f"
	fi
	r=$((r + 1))
done
for n in 1 2 4 8 16 32 64; do
	d=$out/n$n
	if [ ! -d "$d" ]; then
		mkdir "$d"
		r=0
		while [ $r -lt $n ]; do
			ln -s "../rank-$r.json" "$d/rank-$r.json"
			r=$((r + 1))
		done
	fi
done

# over $runs runs of "$@": the best and the median wall time, the highest
# peak RSS and the least CPU time (user + system). The best wall time is the
# one to compare when other jobs share the machine.
measure() {
	i=0
	: >"$out/times"
	while [ $i -lt "$runs" ]; do
		/usr/bin/time -f "%e %M %U %S" -o "$out/one" "$@" >/dev/null 2>&1
		cat "$out/one" >>"$out/times"
		i=$((i + 1))
	done
	sort -n "$out/times" | awk '{ t[NR] = $1; if ($2 > m) m = $2; c = $3 + $4; if (NR == 1 || c < cpu) cpu = c }
		END { printf "%.2f %.2f %d %.2f\n", t[1], t[int((NR + 1) / 2)], m / 1024, cpu }'
}

echo "$(nproc) cores, $(awk '/MemAvailable/ { printf "%d", $2 / 1048576 }' /proc/meminfo) GiB available"
echo
echo "| ranks | JSON | breakdown | collectives (median) | CPU | per rank (CPU) | peak RSS | collectives --jobs 1 |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in 1 2 4 8 16 32 64; do
	d=$out/n$n
	set -- $(measure "$tl" breakdown -i "$d" -x,)
	tb=$1
	set -- $(measure "$tl" collectives -i "$d" -x,)
	tc=$1
	tcm=$2
	rss=$3
	cpu=$4
	set -- $(measure "$tl" collectives -i "$d" -x, --jobs 1)
	t1=$1
	mb=$(($(stat -L -c %s "$out/rank-0.json") * n / 1000000))
	per=$(awk -v t="$cpu" -v n="$n" 'BEGIN { printf "%.3f", t / n }')
	echo "| $n | $mb MB | $tb s | $tc s ($tcm) | $cpu s | $per s | $rss MB | $t1 s |"
done

rm -rf "$out/sums"
set -- $(measure "$tl" summarize -i "$out/n64" -o "$out/sums")
ts=$1
set -- $(measure "$tl" collectives -i "$out/sums" -x,)
tm=$1
kb=$(du -sk "$out/sums" | cut -f1)
echo
echo "64 ranks: summarize into rank summaries $ts s; collectives over the 64 summaries ($kb KB) $tm s, $3 MB"
# the answers must not depend on the route
"$tl" collectives -i "$out/n64" -x, >"$out/direct.csv"
"$tl" collectives -i "$out/sums" -x, >"$out/merged.csv"
cmp -s "$out/direct.csv" "$out/merged.csv" && echo "(the same collectives table from the traces and from the summaries)"

if [ "${BENCH_PYTHON_JSON:-1}" != 0 ]; then
	set -- $(measure "$py" -c '
import json, sys
for p in sys.argv[1:]:
    with open(p) as f:
        json.load(f)' $(ls "$out"/n8/*.json))
	echo "Python json.load of the 8 rank files, one after the other (the first step of TraceLens's NcclAnalyser): $1 s, $3 MB"
fi
