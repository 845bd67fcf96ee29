#!/bin/sh
# Graph-capture merge (tlreplay ops --capture DIR) on replay traces without a
# vLLM/SGLang iteration annotation: xDiT's execute_diffusion_BATCH_WxH, and none
# at all (torch.compile runs: only "Torch-Compiled Region" and graph launches),
# made from the vLLM decode trace of ../shared by renaming its one annotation.
# Each must give the ops-by-module summary the annotated trace gives (which
# tests/conformance holds against TraceLens's golden).
. "$(dirname "$0")/../taplib.sh"

D=$SHARED/traces/TraceLens/tests/traces/inference/vllm_decode_full
if [ ! -f "$D/graph_execution.json.gz" ]; then
	echo "1..0 # SKIP no ../shared (the vLLM decode trace and its capture)"
	exit 0
fi
ANN='"execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)"'
gzip -dc "$D/graph_execution.json.gz" >"$TMP/annotated.json"
grep -q "$ANN" "$TMP/annotated.json"
ok $? "the vLLM trace has the one iteration annotation this test renames"
sed "s/$ANN/\"Torch-Compiled Region: 0\\/0\"/" "$TMP/annotated.json" >"$TMP/none.json"
sed "s/$ANN/\"execute_diffusion_32_1024x1024\"/" "$TMP/annotated.json" >"$TMP/diffusion.json"
cap=$(ls "$D"/capture_traces/*.json.gz)
mkdir "$TMP/cap" && ln -s "$cap" "$TMP/cap/" &&
	printf '[{"file": "%s", "batch_size": 32, "mode": "FULL"}]\n' "$(basename "$cap")" >"$TMP/cap/execution_details.json"

"$TLREPLAY" ops -i "$TMP/annotated.json" --by-module --capture "$D/capture_traces" -x, >"$TMP/want.csv" 2>/dev/null
[ "$(wc -l <"$TMP/want.csv")" -gt 10 ]
ok $? "the annotated trace, merged: the summary by module"

run "$TLREPLAY" ops -i "$TMP/diffusion.json" --by-module --capture "$D/capture_traces" -x,
[ "$RC" -eq 0 ] && cmp -s "$TMP/out" "$TMP/want.csv" && [ ! -s "$TMP/err" ]
ok $? "xDiT's execute_diffusion_32_1024x1024 is an iteration annotation: the same summary"

run "$TLREPLAY" ops -i "$TMP/none.json" --by-module --capture "$TMP/cap" -x,
[ "$RC" -eq 0 ] && cmp -s "$TMP/out" "$TMP/want.csv" &&
	grep -q "no iteration annotation .*its 1 graph launches were merged with the one captured batch size" "$TMP/err"
ok $? "no annotation, execution_details.json says FULL: every launch merged with it, and a note says so"

run "$TLREPLAY" ops -i "$TMP/none.json" --by-module --capture "$D/capture_traces" -x,
[ "$RC" -eq 0 ] && cmp -s "$TMP/out" "$TMP/want.csv"
ok $? "no annotation, the capture's batch size and mode inferred: the same"

printf '[{"file": "%s", "batch_size": 32, "mode": "FULL"}, {"file": "%s", "batch_size": 64, "mode": "FULL"}]\n' \
	"$(basename "$cap")" "$(basename "$cap")" >"$TMP/cap/execution_details.json"
run "$TLREPLAY" ops -i "$TMP/none.json" --by-module --capture "$TMP/cap" -x,
[ "$RC" -eq 0 ] && ! cmp -s "$TMP/out" "$TMP/want.csv" &&
	grep -q "no iteration annotation and the captures are of several batch sizes: 1 graph launches left unmerged" "$TMP/err"
ok $? "no annotation, captures of two batch sizes: nothing merged, a warning says why"

done_testing
