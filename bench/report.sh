#!/bin/sh
# The whole perf report on the x8 OWLv2 trace, beside TraceLens's own report
# generator on the same file (docs/BENCHMARKS.md, "perf report").
# Usage: bench/report.sh TLREPLAY SHARED_DIR [RUNS] [TRACELENS_CHECKOUT]
#
# Times `tlreplay report -i owlv2_x8.json -o DIR` (median of RUNS, default 5, and
# the peak RSS), then, when a TraceLens checkout is given (its Python needs
# pandas and tqdm: Debian's python3-pandas, python3-tqdm), one run of
# `python3 -m TraceLens.Reporting.generate_perf_report_pytorch` writing CSVs of
# the same file, and how many of its sheets ours match (sheet_compare.py).
set -eu
. "$(dirname "$0")/x8.sh"
runs=${3:-5}
tlsrc=${4:-}

i=0
: >"$out/report-times"
while [ $i -lt "$runs" ]; do
	rm -rf "$out/report-ours"
	/usr/bin/time -f "%e %M" -o "$out/one" "$tl" report -i "$out/owlv2_x8.json" -o "$out/report-ours" >/dev/null
	cat "$out/one" >>"$out/report-times"
	i=$((i + 1))
done
set -- $(sort -n "$out/report-times" | awk '{ t[NR] = $1; if ($2 > m) m = $2 } END { printf "%.2f %d\n", t[int((NR + 1) / 2)], m / 1024 }')
echo "| tool | sheets | time | peak RSS |"
echo "|---|---|---|---|"
echo "| tlreplay report (median of $runs) | $(ls "$out/report-ours" | wc -l) | $1 s | $2 MB |"

if [ -n "$tlsrc" ]; then
	rm -rf "$out/report-tracelens"
	(cd "$tlsrc" && /usr/bin/time -f "%e %M" -o "$out/one" "$py" -m TraceLens.Reporting.generate_perf_report_pytorch \
		--profile_json_path "$out/owlv2_x8.json" --output_csvs_dir "$out/report-tracelens" >"$out/tracelens.log" 2>&1)
	set -- $(awk '{ printf "%.2f %d\n", $1, $2 / 1024 }' "$out/one")
	echo "| TraceLens generate_perf_report_pytorch (1 run) | $(ls "$out/report-tracelens" | wc -l) | $1 s | $2 MB |"
	same=0
	n=0
	for f in "$out"/report-tracelens/*.csv; do
		n=$((n + 1))
		"$py" "$here/../tests/conformance/sheet_compare.py" "$out/report-ours/$(basename "$f")" "$f" >/dev/null 2>&1 &&
			same=$((same + 1))
	done
	echo
	echo "Sheets of TraceLens's run that ours match (tests/conformance/sheet_compare.py): $same of $n"
fi
