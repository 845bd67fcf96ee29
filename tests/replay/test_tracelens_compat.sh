#!/bin/sh
# Our IR files read by TraceLens's reader contract (tests/replay/tracelens_reader.py):
# TensorCfg(**value) for every positional tensor, raw values for the rest, count an
# integer, extra keys ignored; and the aten ops replayed from that reading alone.
. "$(dirname "$0")/../taplib.sh"

if ! "$PYTHON" -c 'import torch' >/dev/null 2>&1; then
	echo "1..0 # SKIP $PYTHON has no torch"
	exit 0
fi
reader=$ROOT/tests/replay/tracelens_reader.py
"$TLREPLAY" ir -i "$ROOT/tests/fixtures/replay.json" --launchers --unique -o "$TMP/f.json" 2>/dev/null
run "$PYTHON" "$reader" "$TMP/f.json"
[ "$RC" -eq 0 ] && grep -q "^read 8 entries, replayed 3 (0 failed in torch)$" "$TMP/out"
ok $? "fixture: TraceLens's reader takes all 8 entries and replays the 3 aten ops it can build ($(cat "$TMP/out"))"
GOLD=$SHARED/traces/TraceLens/tests/traces
for t in h100/gaunernst_bert-small-uncased__1016001 mi300/Qwen_Qwen1.5-0.5B-Chat__1016005 \
	mi300/resnet_act_checkpoint; do
	if [ ! -f "$GOLD/$t.json.gz" ]; then
		skip "$GOLD/$t.json.gz absent (../shared is not beside the checkout)"
		continue
	fi
	"$TLREPLAY" ir -i "$GOLD/$t.json.gz" --launchers --unique --top 40 -o "$TMP/t.json" 2>/dev/null
	run "$PYTHON" "$reader" "$TMP/t.json"
	[ "$RC" -eq 0 ]
	ok $? "$t: TraceLens's reader takes our IR ($(cat "$TMP/out"))"
done
done_testing
