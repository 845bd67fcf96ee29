#!/bin/sh
# Remake tests/conformance/tracelens-plain/: TraceLens's plain report (generate_perf_report_pytorch,
# default options) of every Kineto trace in ../shared/traces, each sheet gzipped, for
# test_tracelens_plain.sh. What made the committed copy: TraceLens 171dd74721ca (the commit of the
# shared goldens; `fetch github:AMD-AGI/TraceLens`, then `git archive HEAD TraceLens`), Debian 12's
# python3-pandas 1.5.3, python3-numpy 1.24.2 and python3-tqdm, on 2026-11-29.
# Usage: scripts/make-tracelens-plain.sh TRACELENS_SRC [SHARED]   (TRACELENS_SRC holds the TraceLens package)
set -u
src=${1:?usage: make-tracelens-plain.sh TRACELENS_SRC [SHARED]}
shared=${2:-$(cd "$(dirname "$0")/../.." && pwd)/shared}
out=$(cd "$(dirname "$0")/.." && pwd)/tests/conformance/tracelens-plain
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$shared/traces" || exit 1
# the sheets and REFUSED are remade; KNOWN (written by hand) stays
mkdir -p "$out" && find "$out" -name '*.csv.gz' -delete && find "$out" -mindepth 1 -type d -empty -delete
printf '%s\n' "# Traces TraceLens's plain report refuses (its last error line); not compared." >"$out/REFUSED"
find . \( -name '*.json.gz' -o -name '*.json' \) -not -path '*_csvs/*' -not -name '*execution_details*' | sort |
	while read -r f; do
		t=${f#./}
		rm -rf "$tmp/r"
		if PYTHONPATH=$src /usr/bin/python3 -m TraceLens.Reporting.generate_perf_report_pytorch \
			--profile_json_path "$f" --output_csvs_dir "$tmp/r" >"$tmp/log" 2>&1; then
			mkdir -p "$out/$t"
			for c in "$tmp"/r/*.csv; do
				gzip -9 -n -c "$c" >"$out/$t/$(basename "$c").gz"
			done
		else
			printf '%s: %s\n' "$t" "$(grep -E 'Error|error' "$tmp/log" | tail -1)" >>"$out/REFUSED"
		fi
	done
