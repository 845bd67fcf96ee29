#!/bin/sh
# `tlreplay report -o FILE.xlsx`: the workbook holds, worksheet by worksheet,
# the cells of the CSVs `tlreplay report -o DIR` writes for the same trace (a
# PyTorch golden trace with collectives and the JAX one); a path it cannot
# write is one line naming it, a non-zero exit and no file left behind.
. "$(dirname "$0")/../taplib.sh"

GOLD=$SHARED/traces/TraceLens/tests/traces

# book_vs_dir LABEL TRACE [OPTIONS]: report to a directory and to a workbook
book_vs_dir() {
	label=$1 t=$2
	shift 2
	rm -rf "$TMP/csv" "$TMP/book.xlsx"
	if ! "$TLREPLAY" report -i "$t" -o "$TMP/csv" "$@" 2>"$TMP/err" ||
		! "$TLREPLAY" report -i "$t" -o "$TMP/book.xlsx" "$@" 2>>"$TMP/err"; then
		diag "$(head -3 "$TMP/err")"
		ok 1 "$label: report to a directory and to a workbook"
		return
	fi
	xlsx_ok "$TMP/book.xlsx" "$TMP/csv" "$label: each worksheet of -o FILE.xlsx holds its CSV's cells"
	! ls -A "$TMP" | grep -q '^book\.xlsx\.'
	ok $? "$label: no temporary file beside the workbook"
}

if [ -f "$GOLD/mi300/resnet_act_checkpoint.json.gz" ]; then
	book_vs_dir resnet_act_checkpoint "$GOLD/mi300/resnet_act_checkpoint.json.gz" --recompute
else
	skip "resnet_act_checkpoint.json.gz absent (../shared is not beside the checkout)"
fi
jax=$(ls "$GOLD"/mi300/jax_conv_minimal_legacy/*.xplane.pb 2>/dev/null | head -1)
if [ -n "$jax" ]; then
	book_vs_dir jax_conv_minimal "$jax"
else
	skip "the JAX golden trace is absent"
fi

# the bad paths, on the small trace of the tests
T=$ROOT/tests/data/mini.json
[ -f "$T" ] || T=${jax:-$GOLD/mi300/resnet_act_checkpoint.json.gz}
run "$TLREPLAY" report -i "$T" -o "$TMP/nosuch/r.xlsx"
[ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "nosuch/r.xlsx" "$TMP/err" &&
	[ ! -e "$TMP/nosuch" ]
ok $? "report -o MISSING_DIR/r.xlsx: one line naming it, non-zero exit, nothing made"
: >"$TMP/afile"
run "$TLREPLAY" report -i "$T" -o "$TMP/afile/r.xlsx"
[ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "afile/r.xlsx" "$TMP/err" &&
	[ ! -s "$TMP/afile" ] && [ "$(ls -A "$TMP" | grep -c '^afile')" -eq 1 ]
ok $? "report -o FILE/r.xlsx (not a directory, unwritable even for root): one line, nothing left"
mkdir "$TMP/ro"
chmod 555 "$TMP/ro"
if [ -w "$TMP/ro" ]; then
	skip "report -o READONLY/r.xlsx (running as root: every directory is writable)"
else
	run "$TLREPLAY" report -i "$T" -o "$TMP/ro/r.xlsx"
	[ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "ro/r.xlsx" "$TMP/err" &&
		[ -z "$(ls -A "$TMP/ro")" ]
	ok $? "report -o READONLY/r.xlsx: one line naming it, non-zero exit, no file left"
fi
chmod 755 "$TMP/ro"
done_testing
