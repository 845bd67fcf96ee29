#!/bin/sh
# critpath against HTA's critical_path_analysis on the seven windows of
# tests/conformance/hta-critpath/ (scripts/make-hta-critpath.sh made them).
# With --hta the numbers are HTA's to the microsecond: the path's length, its
# number of edges and its time by HTA's bound_by (cpu, kernel, gpu_gap,
# launch_delay). Without it the graph is the same, on the trace's own
# timestamps: HTA rounds every start up and every end down to whole
# microseconds, so on traces with fractional timestamps each edge of the path
# moves by up to 1 us (the h100 windows: 4-5 %).
. "$(dirname "$0")/../taplib.sh"
REF=$ROOT/tests/conformance/hta-critpath
H=$SHARED/traces/HolisticTraceAnalysis/tests/data
T=$SHARED/traces/TraceLens/tests/traces
if [ ! -d "$H" ]; then
	echo "1..0 # SKIP $H absent (../shared is not beside the checkout)"
	exit 0
fi

# NAME TOLERANCE(% of HTA's length, for the run without --hta) -- critpath arguments
cmp_hta() {
	name=$1 tol=$2
	shift 3
	for mode in hta own; do
		if [ $mode = hta ]; then
			run "$TLREPLAY" critpath -j --hta "$@"
		else
			run "$TLREPLAY" critpath -j "$@"
		fi
		"$PYTHON" - "$TMP/out" "$REF/$name.json" $mode "$tol" <<'PY' >"$TMP/why" 2>&1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
hta = json.load(open(sys.argv[2]))
mode, tol = sys.argv[3], float(sys.argv[4])
s = rows[0]
cat = {r["name"]: r["time_us"] for r in rows if r.get("row") == "category"}
# HTA bound_by -> our category
names = {"cpu_bound": "cpu", "gpu_compute_bound": "kernel", "gpu_kernel_kernel_overhead": "gpu_gap",
         "gpu_kernel_launch_overhead": "launch_delay"}
bad = []
if mode == "hta":
    if abs(s["length_us"] - hta["length_us"]) > 0.5:
        bad.append("length %.1f us, HTA %.1f us" % (s["length_us"], hta["length_us"]))
    if s["path_edges"] != hta["edges"]:
        bad.append("%d edges, HTA %d" % (s["path_edges"], hta["edges"]))
    for k, v in hta["bound_by_us"].items():
        if k != "none" and abs(cat.get(names.get(k, k), 0) - v) > 0.5:
            bad.append("%s %.1f us, HTA %.1f us" % (names.get(k, k), cat.get(names.get(k, k), 0), v))
    print("; ".join(bad) if bad else "%.1f us, %d edges and the time by bound_by as HTA's" % (s["length_us"], s["path_edges"]))
else:
    d = 100 * (s["length_us"] - hta["length_us"]) / hta["length_us"]
    if abs(d) > tol:
        bad.append("off by more than %g %%" % tol)
    print("ours %.1f us, HTA %.1f us (%+.2f %%)%s" % (s["length_us"], hta["length_us"], d, "; " + bad[0] if bad else ""))
sys.exit(1 if bad else 0)
PY
		rc=$?
		[ "$RC" -eq 0 ] || rc=1
		ok $rc "$name ($mode timestamps): $(cat "$TMP/why")"
	done
}

AX=$H/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz
cmp_hta alexnet 0 -- -i "$AX" --window 1695835585827782:1695835585864138
cmp_hta event_sync_multi_stream 0 -- -i "$H/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz"
cmp_hta negative_queue_step550 0 -- -i "$H/negative_queue_length_values_check/rank0.json.gz" --step 550
cmp_hta h100_bert_small_step6 5 -- -i "$T/h100/gaunernst_bert-small-uncased__1016001.json.gz" --step 6
cmp_hta h100_falconsai_step6 5 -- -i "$T/h100/Falconsai_nsfw_image_detection__1016002.json.gz" --step 6
cmp_hta sampled_rank0_step551 0 -- -i "$H/trace_filter/sampled_rank-0.json.gz" --step 551
cmp_hta nccl_data_step4 1 -- -i "$H/nccl_parser_config/nccl_data.json.gz" --step 4

done_testing
