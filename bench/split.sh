#!/bin/sh
# SPDX-License-Identifier: MIT
# tlreplay split on the x8 OWLv2 trace (bench/x8.sh makes it: 8 copies of the H100 trace, one
# ProfilerStep each), plain and gzipped: wall time and peak RSS beside `breakdown` (the loader
# alone), the files written and their size; and steps finding the iterations by ProfilerStep#N
# and, on a copy without them, in the call tree. docs/BENCHMARKS.md has the results.
#     sh bench/split.sh build/tlreplay ../shared [REPEATS]
set -eu
. "$(dirname "$0")/x8.sh"
reps=${3:-3}
measure() {
	# best of $reps: seconds and peak RSS (MB)
	best=
	i=0
	while [ $i -lt "$reps" ]; do
		rm -rf "$out/split"
		/usr/bin/time -f "%e %M" -o "$out/time" "$@" >/dev/null 2>&1
		t=$(cut -d' ' -f1 "$out/time")
		m=$(cut -d' ' -f2 "$out/time")
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then
			best=$t
			mem=$m
		fi
		i=$((i + 1))
	done
	echo "$best s, $((mem / 1024)) MB"
}
echo "| command | input | wall (best of $reps) and peak RSS |"
echo "|---|---|---|"
for f in owlv2_x8.json owlv2_x8.json.gz; do
	echo "| \`breakdown\` (the loader) | $f | $(measure "$tl" breakdown -i "$out/$f" -x,) |"
	echo "| \`split -o DIR\` | $f | $(measure "$tl" split -i "$out/$f" -o "$out/split") |"
done
# steps finding the loop in the call tree (issue 28.1): the same trace, its ProfilerSteps renamed
sed 's/ProfilerStep#/Prof Step /g' "$out/owlv2_x8.json" >"$out/owlv2_x8_noprof.json"
echo "| \`steps\` (ProfilerStep#N) | owlv2_x8.json | $(measure "$tl" steps -i "$out/owlv2_x8.json") |"
echo "| \`steps\` (the call tree's loop) | owlv2_x8_noprof.json | $(measure "$tl" steps -i "$out/owlv2_x8_noprof.json") |"
rm -f "$out/owlv2_x8_noprof.json"
"$tl" split -i "$out/owlv2_x8.json" -o "$out/split" >/dev/null 2>&1
n=$(ls "$out/split" | grep -c 'iteration-')
size=$(du -sm "$out/split" | cut -f1)
echo
echo "split wrote $n iteration files and manifest.json, $size MB in all ($(du -m "$out/owlv2_x8.json" | cut -f1) MB of input)."
