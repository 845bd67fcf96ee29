#!/bin/sh
# tlreplay launches: a hand-written trace whose answers were worked out by
# hand (tests/fixtures/launch_basic.json, timeline below), real traces
# checked launch by launch against a Python reference written from the
# definitions (launch_ref.py), a few exact numbers of real traces, and bad input.
. "$(dirname "$0")/../taplib.sh"

F=$ROOT/tests/fixtures/launch_basic.json
tl() { "$TLREPLAY" "$@"; }
# col FILE KEY1 KEY2 COLUMN: the named column of the -x, row whose first two fields are KEY1,KEY2
col() {
	"$PYTHON" - "$@" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
i = rows[0].index(sys.argv[4])
print([r[i] for r in rows[1:] if r[0] == sys.argv[2] and r[1] == sys.argv[3]][0])
PY
}

# The fixture (us; launch calls cudaLaunchKernel on one host thread, device 0):
#   aten::mul 100-200: calls 110+5, 130+5, 150+5 -> k_a 120-124, k_a 140-144, k_b 158-160 (stream 7)
#   aten::addmm 300-400: calls 305+60 -> k_big 310-410; 370+5 -> k_a 520-524 (stream 7)
#   aten::relu 600-660: calls 602+4, 620+4, 640+4 -> k_c 610-613, 626-629, 645-648 (stream 9)
#   k_unlinked 700-703 on stream 9 (correlation of no call): not a launch
# latency = start - call start; delay = max(0, start - call end); queue = start -
# max(call start, previous end on the stream):
#   k_a@120: 10 5 10   k_a@140: 10 5 10 (prev end 124 < call 130)   k_b: 8 3 8
#   k_big: 5 0 (-55 clipped) 5   k_a@520: 150 145 110 (stream busy with k_big until 410)
#   k_c: 8 4 8, 6 2 6, 5 1 5
# All delays 0 1 2 3 4 5 5 145: mean 20.625, p50 3.5, max 145. HTA's outliers: k_big's call
# (60 > 50 us), k_a@520's delay (145 > 100 us); short (GPU < call <= 50): all but k_big.
# Launch-bound (< 10 us): stream 7's gaps 124-140 and 144-158 are bound (short after short,
# launched after the GPU ran dry), 160-310 (k_big is long) and 410-520 (after k_big) are not:
# 30 of 290 us idle, no. Stream 9: 13 + 16 of 29 us, yes. Device 0 adds 524-610 (86, bound):
# 145 of 405 us, no.

run tl launches -i "$F" -x,
cp "$TMP/out" "$TMP/op.csv"
[ "$RC" -eq 0 ] && [ "$(wc -l <"$TMP/op.csv")" -eq 5 ] &&
	[ "$(sed -n 3,5p "$TMP/op.csv" | cut -d, -f2,3 | tr '\n' ' ')" = "aten::mul,3 aten::relu,3 aten::addmm,2 " ]
ok $? "launches -x,: header, all, 3 ops by launches (mul, relu: 3, name order; addmm: 2)"

[ "$(col "$TMP/op.csv" all all count)" = 8 ] &&
	[ "$(col "$TMP/op.csv" all all 'delay mean us')" = 20.625 ] &&
	[ "$(col "$TMP/op.csv" all all 'delay p50 us')" = 3.5 ] &&
	[ "$(col "$TMP/op.csv" all all 'delay max us')" = 145.0 ] &&
	[ "$(col "$TMP/op.csv" all all 'queue max us')" = 110.0 ] &&
	[ "$(col "$TMP/op.csv" all all 'latency max us')" = 150.0 ] &&
	[ "$(col "$TMP/op.csv" all all 'cpu outliers')" = 1 ] &&
	[ "$(col "$TMP/op.csv" all all 'delay outliers')" = 1 ] &&
	[ "$(col "$TMP/op.csv" all all short)" = 7 ]
ok $? "all: 8 launches (the unlinked kernel left out), delay mean 20.625 p50 3.5 max 145, 1+1 outliers, 7 short"

[ "$(col "$TMP/op.csv" op aten::addmm 'cpu mean us')" = 32.5 ] &&
	[ "$(col "$TMP/op.csv" op aten::addmm 'cpu p90 us')" = 54.5 ] &&
	[ "$(col "$TMP/op.csv" op aten::addmm 'delay p50 us')" = 72.5 ] &&
	[ "$(col "$TMP/op.csv" op aten::addmm 'queue mean us')" = 57.5 ] &&
	[ "$(col "$TMP/op.csv" op aten::mul 'queue p50 us')" = 10.0 ] &&
	[ "$(col "$TMP/op.csv" op aten::relu 'latency mean us')" = 6.333333333333333 ]
ok $? "per op: addmm cpu mean 32.5 p90 54.5 (linear percentiles), delay p50 72.5, queue 57.5; mul queue p50 10"

run tl launches -i "$F" -x, --by kernel
[ "$RC" -eq 0 ] && [ "$(sed -n 3,6p "$TMP/out" | cut -d, -f2,3 | tr '\n' ' ')" = "k_a,3 k_c,3 k_b,1 k_big,1 " ] &&
	[ "$(col "$TMP/out" kernel k_a 'queue max us')" = 110.0 ] &&
	[ "$(col "$TMP/out" kernel k_big 'delay max us')" = 0.0 ]
ok $? "--by kernel: k_a 3 (queue max 110), k_c 3, k_b, k_big (delay clipped to 0)"

run tl launches -i "$F" -x, --by stream
[ "$RC" -eq 0 ] &&
	[ "$(sed -n 2p "$TMP/out")" = "device,0,,8,7,528.0,123.0,405.0,5,145.0,35.80246913580247,18.69918699186992,20.0,3.5,no" ] &&
	[ "$(sed -n 3p "$TMP/out")" = "stream,0,7,5,4,404.0,114.0,290.0,2,30.0,10.344827586206897,12.280701754385964,42.5,4.0,no" ] &&
	[ "$(sed -n 4p "$TMP/out")" = "stream,0,9,3,3,38.0,9.0,29.0,2,29.0,100.0,100.0,19.0,3.0,yes" ]
ok $? "--by stream: stream 9 launch-bound (29 of 29 us), stream 7 not (30 of 290), device 0 not (145 of 405)"

run tl launches -i "$F" -x, --launch-bound-thresh-us 200 --by stream
[ "$RC" -eq 0 ] && [ "$(sed -n 3p "$TMP/out" | cut -d, -f4,5,9,10,15)" = "5,5,3,180.0,yes" ]
ok $? "--launch-bound-thresh-us 200: k_big is short now: 3 bound gaps, 180 of 290 us (k_a@520 was queued), yes"

run tl launches -i "$F" -x, --by launch --top 2
[ "$RC" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 3 ] &&
	[ "$(sed -n 2p "$TMP/out")" = "15,6,4,0,7,k_a,cudaLaunchKernel,aten::addmm,520.0,4.0,5.0,145.0,150.0,110.0,no" ] &&
	[ "$(sed -n 3p "$TMP/out" | cut -d, -f1,6,12)" = "11,k_a,5.0" ]
ok $? "--by launch --top 2: the longest delays first (UID 15: 145 us, its call and op), ties by UID"

run tl launches -i "$F" -x, --runtime-cutoff-us 4.5 --delay-cutoff-us 4.5
[ "$RC" -eq 0 ] && [ "$(col "$TMP/out" all all 'cpu outliers')" = 5 ] &&
	[ "$(col "$TMP/out" all all 'delay outliers')" = 3 ] && [ "$(col "$TMP/out" all all short)" = 3 ]
ok $? "cutoffs 4.5 us: 5 calls (stream 7's), 3 delays (5, 5, 145) are outliers; 3 short (k_c's 4 us calls)"

run tl launches -i "$F" -j --by launch
[ "$RC" -eq 0 ] && "$PYTHON" -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 8 and rows[0]["gpu_uid"] == 11 and rows[0]["op"] == "aten::mul", rows[0]
assert [r["bound_gap"] for r in rows] == [False, True, True, False, False, False, True, True]
assert rows[3]["kernel"] == "k_big" and rows[3]["delay_us"] == 0.0 and rows[3]["latency_us"] == 5.0
' "$TMP/out"
ok $? "-j --by launch: one JSON object per launch, in UID order, bound gaps flagged"

run tl launches -i "$F"
[ "$RC" -eq 0 ] && grep -q '^0/9  *YES  *3 ' "$TMP/out" && grep -q '^0/7  *no ' "$TMP/out" &&
	grep -q 'aten::addmm$' "$TMP/out" && grep -q '^delay  *20.62  *3.50 ' "$TMP/out"
ok $? "human output: distributions, per op, launch-bound table"

# Real traces: launch by launch, per kernel, per op, per stream against the Python reference.
TL=$SHARED/traces/TraceLens/tests/traces
HTA=$SHARED/traces/HolisticTraceAnalysis/tests/data
for t in "$HTA/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz" \
	"$HTA/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz" \
	"$HTA/trace_file_list/inference_rank_1.json.gz" \
	"$TL/h100/gaunernst_bert-small-uncased__1016001.json.gz" \
	"$TL/inference/vllm_decode_full/graph_execution.json.gz" \
	"$TL/mi210/gpu_only_trace/gpu_only_trace.json.gz"; do
	if [ ! -r "$t" ]; then
		skip "$(basename "$t") not in $SHARED/traces"
		continue
	fi
	: >"$TMP/err"
	for b in launch kernel op stream; do
		tl launches -i "$t" -j --by $b >"$TMP/$b.jsonl" 2>>"$TMP/err"
	done
	"$PYTHON" "$ROOT/tests/cli/launch_ref.py" "$t" "$TMP/launch.jsonl" "$TMP/kernel.jsonl" "$TMP/op.jsonl" \
		"$TMP/stream.jsonl" 2>>"$TMP/err" | sed "s/^\(n*o*t* *ok - \)/\1$(basename "$t"): /" >"$TMP/ref"
	[ -s "$TMP/ref" ] || echo "not ok - $(basename "$t"): $(head -3 "$TMP/err")" >"$TMP/ref"
	tap_relay "$TMP/ref"
done

# Exact numbers of two real traces (checked with launch_ref.py above and by hand in Python).
t=$HTA/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz
if [ -r "$t" ]; then
	run tl launches -i "$t" -x,
	[ "$(col "$TMP/out" all all count)" = 98 ] && [ "$(col "$TMP/out" all all 'delay max us')" = 1533.0 ] &&
		[ "$(col "$TMP/out" all all 'delay p50 us')" = 32.5 ] &&
		[ "$(col "$TMP/out" all all 'cpu outliers')" = 11 ] && [ "$(col "$TMP/out" all all 'delay outliers')" = 43 ] &&
		[ "$(col "$TMP/out" all all short)" = 23 ] && [ "$(col "$TMP/out" op aten::cudnn_convolution count)" = 31 ]
	ok $? "alexnet: 98 launches, delay p50 32.5 max 1533 us, 11 call and 43 delay outliers, 23 short"
else
	skip "alexnet trace not in $SHARED/traces"
fi
t=$TL/h100/gaunernst_bert-small-uncased__1016001.json.gz
if [ -r "$t" ]; then
	run tl launches -i "$t" -x, --by stream
	[ "$(sed -n 3p "$TMP/out" | cut -d, -f1-5,9,15)" = "stream,0,7,61,59,57,yes" ]
	ok $? "bert-small: stream 7 launch-bound, 57 bound gaps among 61 events, 59 short"
else
	skip "bert-small trace not in $SHARED/traces"
fi

t=$HTA/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz
if [ -r "$t" ]; then
	run tl launches -i "$t" --by kernel -x,
	"$PYTHON" -c '
import csv, sys
r = list(csv.reader(open(sys.argv[1])))
assert len(r) == 15 and {len(x) for x in r} == {31} and sum("," in x[1] for x in r) == 10, r[:2]
' "$TMP/out"
	ok $? "mi250: -x, quotes kernel names with commas (14 rows of 31 fields, 10 names with commas)"
else
	skip "mi250 trace not in $SHARED/traces"
fi

# --hta: HTA's get_cuda_kernel_launch_stats, run on each trace alone (HolisticTraceAnalysis at
# the mirror's HEAD, Debian's pandas 1.5): its launch count and the means of cpu_duration,
# gpu_duration and launch_delay. bert-small on MI300 has no launch HTA counts (hipLaunchKernel).
hta_launches() { # TRACE COUNT CPU GPU DELAY
	if [ ! -r "$1" ]; then
		skip "$(basename "$1") not in $SHARED/traces"
		return
	fi
	run tl launches --hta -i "$1" -x,
	[ "$RC" -eq 0 ] && "$PYTHON" -c '
import csv, sys
r = [x for x in csv.DictReader(open(sys.argv[1])) if x["by"] == "all"][0]
want = [float(v) for v in sys.argv[2:]]
got = [float(r["count"]), float(r["cpu mean us"]), float(r["gpu mean us"]), float(r["delay mean us"])]
assert all(abs(a - b) <= 1e-6 * max(1, abs(b)) for a, b in zip(got, want)), (got, want)
' "$TMP/out" "$2" "$3" "$4" "$5"
	ok $? "--hta: $(basename "$1"): $2 launches, mean cpu $3, gpu $4, delay $5 us, as HTA"
}
hta_launches "$HTA/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz" 98 31771.591837 675.540816 400.846939
hta_launches "$HTA/trace_filter/sampled_rank-0.json.gz" 602 8.486711 502.061462 16412.162791
hta_launches "$HTA/negative_queue_length_values_check/rank0.json.gz" 5224 131.029862 44.771440 121668.754786
hta_launches "$HTA/nccl_parser_config/nccl_data.json.gz" 2516 8.461447 39.929253 28.069555
hta_launches "$TL/h100/Falconsai_nsfw_image_detection__1016002.json.gz" 107 4.168224 6.691589 4.803738
t=$TL/mi300/gaunernst_bert-small-uncased__1016001.json.gz
if [ -r "$t" ]; then
	run tl launches --hta -i "$t"
	[ "$RC" -eq 1 ] && grep -q "none of the 61 GPU events was launched by a call HTA counts" "$TMP/err"
	ok $? "--hta on an AMD trace: no launch HTA counts, said so (exit $RC)"
else
	skip "bert-small MI300 trace not in $SHARED/traces"
fi

# --capture: the graph kernels get the ops that captured them; the times stay the replay's.
V=$TL/inference/vllm_decode_full
if [ -r "$V/graph_execution.json.gz" ] && [ -d "$V/capture_traces" ]; then
	tl launches -i "$V/graph_execution.json.gz" -x, >"$TMP/plain.csv" 2>"$TMP/err"
	run tl launches -i "$V/graph_execution.json.gz" --capture "$V/capture_traces" -x,
	[ "$RC" -eq 0 ] && [ "$(col "$TMP/plain.csv" op hipGraphLaunch count)" = 421 ] &&
		[ "$(col "$TMP/out" op aten::addmm count)" = 72 ] && ! grep -q '^op,hipGraphLaunch,' "$TMP/out" &&
		[ "$(sed -n 2p "$TMP/out")" = "$(sed -n 2p "$TMP/plain.csv")" ]
	ok $? "vllm graph replay: 421 kernels of hipGraphLaunch; with --capture their ops (72 aten::addmm), same times"
else
	skip "vllm_decode_full traces not in $SHARED/traces"
fi

# Bad input.
run tl launches -i "$TMP/nope.json"
[ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q nope.json "$TMP/err"
ok $? "a missing trace: one line naming it, non-zero"
run tl launches -i "$ROOT/tests/fixtures/launch_unlinked.json"
[ "$RC" -ne 0 ] && grep -q 'none of the 1 GPU events is linked to a launch call' "$TMP/err"
ok $? "no GPU event linked to a launch call: said, non-zero"
printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":2}]}' >"$TMP/cpu.json"
run tl launches -i "$TMP/cpu.json"
[ "$RC" -ne 0 ] && grep -q 'no GPU events' "$TMP/err"
ok $? "a trace without GPU events: said, non-zero"
for bad in "--by thread" "--launch-bound-thresh-us 0" "--launch-bound-thresh-us x" "--runtime-cutoff-us -1" \
	"--delay-cutoff-us nan" "--top x"; do
	# shellcheck disable=SC2086
	run tl launches -i "$F" $bad
	[ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -ge 1 ] && grep -q "bad --" "$TMP/err"
	ok $? "bad option value '$bad': an error naming it, non-zero"
done
run tl launches -i "$F" extra
[ "$RC" -ne 0 ]
ok $? "a stray argument: non-zero"

done_testing
