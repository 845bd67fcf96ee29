#!/bin/sh
# Replay coverage benchmark (docs/BENCHMARKS.md, issue "Replay"): for every
# Kineto trace in ../shared/traces whose kernel launchers recorded shapes, the
# `tlreplay ir --launchers --unique` groups are replayed on this machine's CPU
# and every failure is classified (bench/coverage_report.py).
# Usage: bench/replay_coverage.sh TLREPLAY SHARED_DIR [OUT_DIR]
# Takes about an hour on 2 cores: many ops are big GEMMs and convolutions.
set -u
tl=$1
shared=$2
here=$(cd "$(dirname "$0")" && pwd)
out=${3:-$here/out/coverage}
py=${PYTHON:-/usr/bin/python3}
mkdir -p "$out"

find "$shared/traces" \( -name '*.json' -o -name '*.json.gz' \) | sort | while read -r t; do
	b=$(echo "${t#"$shared"/traces/}" | tr / _)
	if [ ! -s "$out/$b.ir.json" ]; then
		"$tl" ir -i "$t" --launchers --unique -o "$out/$b.ir.json" 2>"$out/$b.ir.err" || continue
	fi
	[ -s "$out/$b.res.jsonl" ] && continue
	echo "coverage: $b" >&2
	"$tl" replay "$out/$b.ir.json" -j -r 1 --warmup 0 --timeout 300 >"$out/$b.res.jsonl.tmp" 2>"$out/$b.res.err"
	mv "$out/$b.res.jsonl.tmp" "$out/$b.res.jsonl"
done
"$py" "$here/coverage_report.py" "$out"
