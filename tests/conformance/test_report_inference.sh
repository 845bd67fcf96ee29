#!/bin/sh
# report --inference is TraceLens's inference report (--by-module its first name): on the SGLang
# decode trace with its capture, every sheet of the golden perf_csvs/ as TraceLens wrote it, and
# the same files under either spelling; --recompute excludes it.
. "$(dirname "$0")/../taplib.sh"
D=$SHARED/traces/TraceLens/tests/traces/inference/sglang_decode
if [ ! -f "$D/sglang_Qwen3-8B_decode.json.gz" ]; then
	echo "1..0 # SKIP no ../shared (the SGLang decode trace)"
	exit 0
fi
run "$TLREPLAY" report --inference --capture "$D/capture_traces" -i "$D/sglang_Qwen3-8B_decode.json.gz" -o "$TMP/inf"
ok "$RC" "report --inference writes its sheets"
for g in "$D"/perf_csvs/*.csv; do
	s=$(basename "$g")
	"$PYTHON" "$ROOT/tests/conformance/sheet_compare.py" "$TMP/inf/$s" "$g" >"$TMP/diff" 2>&1
	rc=$?
	[ $rc -eq 0 ] || diag "$(head -3 "$TMP/diff")"
	ok $rc "--inference: $s as TraceLens's inference report wrote it"
done
"$TLREPLAY" report --by-module --capture "$D/capture_traces" -i "$D/sglang_Qwen3-8B_decode.json.gz" -o "$TMP/bym" 2>/dev/null
diff -r "$TMP/inf" "$TMP/bym" >/dev/null
ok $? "--by-module writes the same files"
run "$TLREPLAY" report --inference --recompute -i "$D/sglang_Qwen3-8B_decode.json.gz" -o "$TMP/x"
[ "$RC" -eq 1 ] && grep -q "exclusive" "$TMP/err"
ok $? "--inference with --recompute: refused"
done_testing
