#!/bin/sh
# The HTML report on the x8 OWLv2 trace (docs/BENCHMARKS.md, "The HTML page").
# Usage: bench/html.sh TLREPLAY SHARED_DIR [RUNS]
#
# Times `tlreplay report -i owlv2_x8.json --html PAGE` on the plain and the
# gzipped trace (median of RUNS, default 5, and the peak RSS) beside
# `report -o DIR` of the plain one in the same rounds (the page costs the
# report plus its own analyses), and gives the page's size and what its
# timeline drew.
set -eu
. "$(dirname "$0")/x8.sh"
runs=${3:-5}

: >"$out/html-times"
i=0
while [ $i -lt "$runs" ]; do
	for what in html html-gz report; do
		case $what in
		html) set -- -i "$out/owlv2_x8.json" --html "$out/x8.html" ;;
		html-gz) set -- -i "$out/owlv2_x8.json.gz" --html "$out/x8gz.html" ;;
		report) rm -rf "$out/report-ours"; set -- -i "$out/owlv2_x8.json" -o "$out/report-ours" ;;
		esac
		/usr/bin/time -f "$what %e %M" -a -o "$out/html-times" "$tl" report "$@" >/dev/null 2>&1
	done
	i=$((i + 1))
done
echo "| command (median of $runs) | time | peak RSS |"
echo "|---|---|---|"
for what in html html-gz report; do
	case $what in
	html) name="report --html (plain)" ;;
	html-gz) name="report --html (gzip)" ;;
	report) name="report -o DIR (plain)" ;;
	esac
	grep "^$what " "$out/html-times" | sort -k2 -n | awk -v w="$name" '{ t[NR] = $2; if ($3 > m) m = $3 }
		END { printf "| %s | %.2f s | %d MB |\n", w, t[int((NR + 1) / 2)], m / 1024 }'
done
echo
echo "page: $(stat -c %s "$out/x8.html") bytes"
grep -o '<p class="note">[0-9]* GPU events on[^<]*' "$out/x8.html" | sed 's/<p class="note">/timeline: /'
