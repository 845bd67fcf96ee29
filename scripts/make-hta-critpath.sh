#!/bin/sh
# Remake tests/conformance/hta-critpath/: HTA's critical path (critical_path_analysis) of the
# annotation instances its own tests use, and of the step the side-by-side run compared, as
# JSON (length, edges, time by bound_by and by edge type), the reference numbers for
# `tlreplay critpath` (issue 25.5). What made the committed copy: HolisticTraceAnalysis at the
# mirror's HEAD (`fetch github:facebookresearch/HolisticTraceAnalysis`, `git archive HEAD hta`),
# Debian 12's python3-pandas 1.5.3, python3-networkx and python3-plotly, on 2026-11-29.
# Usage: scripts/make-hta-critpath.sh HTA_SRC [SHARED]   (HTA_SRC holds the hta package)
set -u
src=${1:?usage: make-hta-critpath.sh HTA_SRC [SHARED]}
shared=${2:-$(cd "$(dirname "$0")/../.." && pwd)/shared}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/tests/conformance/hta-critpath
H=$shared/traces/HolisticTraceAnalysis/tests/data
mkdir -p "$out"
run() { # NAME TRACE ANNOTATION INSTANCE
	PYTHONPATH=$src /usr/bin/python3 "$root/tests/conformance/hta_critpath.py" "$2" "$3" "$4" >"$out/$1.json.tmp" 2>/dev/null &&
		mv "$out/$1.json.tmp" "$out/$1.json" || { echo "$1: HTA failed" >&2; rm -f "$out/$1.json.tmp"; }
}
run alexnet "$H/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz" \
	"[param|pytorch.model.alex_net|0|0|0|measure|forward]" 1
run event_sync_multi_stream "$H/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz" "" none
run negative_queue_step550 "$H/negative_queue_length_values_check/rank0.json.gz" "ProfilerStep#550" 0
T=$shared/traces/TraceLens/tests/traces
run sampled_rank0_step551 "$H/trace_filter/sampled_rank-0.json.gz" "ProfilerStep#551" 0
run nccl_data_step4 "$H/nccl_parser_config/nccl_data.json.gz" "ProfilerStep#4" 0
run h100_bert_small_step6 "$T/h100/gaunernst_bert-small-uncased__1016001.json.gz" "ProfilerStep#6" 0
run h100_falconsai_step6 "$T/h100/Falconsai_nsfw_image_detection__1016002.json.gz" "ProfilerStep#6" 0
