#!/bin/sh
# `tlreplay report` against TraceLens's plain report (generate_perf_report_pytorch, default
# options) on every Kineto trace of ../shared/traces it reads: every sheet TraceLens writes, cell
# by cell (tests/conformance/plain_compare.py, sheet_compare.py's rules; pandas 1.5's 'None'
# parameters taken as the goldens' empty fields), and no sheet it does not write. The expected
# CSVs are in tests/conformance/tracelens-plain/, made by scripts/make-tracelens-plain.sh with the commit
# and versions it names; KNOWN lists the differences not fixed yet (TODO), REFUSED the traces
# TraceLens cannot read.
. "$(dirname "$0")/../taplib.sh"
DATA=$ROOT/tests/conformance/tracelens-plain
TRACES=$SHARED/traces
if [ ! -d "$TRACES" ]; then
	echo "1..0 # SKIP $TRACES absent (../shared is not beside the checkout)"
	exit 0
fi

n=0
for d in $(cd "$DATA" && find . -name '*.csv.gz' | sed 's|/[^/]*$||' | sort -u); do
	t=${d#./}
	n=$((n + 1))
	if [ ! -f "$TRACES/$t" ]; then
		skip "$t: not in $TRACES"
		continue
	fi
	"$PYTHON" "$ROOT/tests/conformance/plain_compare.py" "$TLREPLAY" "$TRACES/$t" "$DATA/$t" "$DATA/KNOWN" "$t" \
		>"$TMP/tap" 2>"$TMP/err"
	rc=$?
	# one test per trace here, its sheets' lines as diagnostics
	grep -v '^1\.\.' "$TMP/tap" | grep -v '^ok ' | sed 's/^/# /'
	todo=$(grep -c '# TODO' "$TMP/tap")
	what="$(grep -c '^ok ' "$TMP/tap") checks as TraceLens's"
	[ "$todo" -eq 0 ] || what="$what, $todo known differences (KNOWN)"
	ok $rc "$t: $what"
done
[ "$n" -gt 20 ]
ok $? "$n traces compared (the data has the 28 TraceLens reads)"
done_testing
