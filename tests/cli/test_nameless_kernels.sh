#!/bin/sh
# Kernels without a name, or with "name": "", in a trace without CPU ops
# (tests/fixtures/nameless_kernels.json). The short-kernel sheet grouped them
# under the interned id of "" (0) and wrote before its array (g.v[id - 1]):
# SIGSEGV here, heap corruption elsewhere. Now they are a group of their own,
# named "", and every command that reads kernel names takes them.
. "$(dirname "$0")/../taplib.sh"

F=$ROOT/tests/fixtures/nameless_kernels.json
run "$TLREPLAY" report -i "$F" -o "$TMP/rep" --short-kernels --kernel-summary
[ "$RC" -eq 0 ] && [ "$(cat "$TMP/rep/short_kernels_summary.csv")" = "Kernel name,Short Kernel duration (µs) sum,Short Kernel count,Short Kernel duration (µs) mean,Short Kernel duration (µs) percent of total time
,7.0,2,3.5,21.875
k1,7.0,2,3.5,21.875" ]
ok $? "report --short-kernels: the nameless kernels are one group, \"\", first seen first (exit $RC: $(head -c 200 "$TMP/err"))"

for c in "report --html $TMP/p.html --short-kernels" "kernels --unique" "kernels" "ops" "breakdown" \
	"idle" "critpath" "launches" "check" "seqs"; do
	# shellcheck disable=SC2086 # the command's words
	run "$TLREPLAY" $c -i "$F"
	[ "$RC" -eq 0 ]
	ok $? "$c on nameless kernels (exit $RC: $(head -c 200 "$TMP/err"))"
done
done_testing
