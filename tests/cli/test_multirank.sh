#!/bin/sh
# Multi-rank analyses from the command line: breakdown over several ranks,
# collectives, summarize and the merge of summaries, the SLURM example (with
# a stand-in sbatch); on the hand-made ranks of tests/fixtures/ranks (exact
# answers, see gen.py there), the 8-rank DLRM job of param and the HTA NCCL
# traces (skipped visibly without ../shared).
. "$(dirname "$0")/../taplib.sh"

F=$ROOT/tests/fixtures/ranks
tl() { "$TLREPLAY" "$@"; }
jsonl_ok() { "$PYTHON" -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1]) if l.strip()]' "$1"; }
# row FILE COL1 COL2 ...: the -x, line whose first columns are these
row() { f=$1; shift; k=$(printf '%s,' "$@"); grep "^$k" "$f"; }

# ---------------------------------------------------------------- breakdown
run tl breakdown -i "$F" -x,
[ "$RC" -eq 0 ] && [ "$(head -1 "$TMP/out")" = "rank,type,time ms,percent" ] && [ "$(wc -l <"$TMP/out")" -eq 49 ]
ok $? "breakdown -i DIR -x,: 3 ranks x 8 rows, then min/median/max x 8"
[ "$(row "$TMP/out" 0 computation_time)" = "0,computation_time,0.05,8.741258741258742" ] &&
	[ "$(row "$TMP/out" 1 idle_time)" = "1,idle_time,0.148,37.94871794871795" ] &&
	[ "$(row "$TMP/out" 2 total_time)" = "2,total_time,0.572,100.0" ] &&
	[ "$(row "$TMP/out" min computation_time | cut -d, -f3)" = "0.05" ] &&
	[ "$(row "$TMP/out" median computation_time | cut -d, -f3)" = "0.065" ] &&
	[ "$(row "$TMP/out" max computation_time | cut -d, -f3)" = "0.08" ] &&
	[ "$(row "$TMP/out" median idle_time | cut -d, -f3)" = "0.318" ]
ok $? "breakdown per rank and its spread: computation 0.05/0.065/0.08 ms, idle median 0.318"
cp "$TMP/out" "$TMP/bd-dir.csv"

run tl breakdown -i "$F/worker1.json" -i "$F/node-b_rank_7.json" -i "$F/rank0.json" -x,
cmp -s "$TMP/out" "$TMP/bd-dir.csv"
ok $? "-i three times, in any order: the same as -i DIR (ranks sorted)"

run tl breakdown -i "$F" -j
[ "$RC" -eq 0 ] && jsonl_ok "$TMP/out" && [ "$(grep -c '"rank":' "$TMP/out")" -eq 24 ] &&
	grep -q '{"spread":true,"type":"computation_time","ranks":3,"min_ms":0.05,"median_ms":0.065,"max_ms":0.08,' "$TMP/out" &&
	grep -q '"type":"idle_time".*"min_rank":1,"max_rank":2}' "$TMP/out"
ok $? "breakdown -j: 24 rank rows, spread rows with min_rank/max_rank"

run tl breakdown -i "$F"
[ "$RC" -eq 0 ] && grep -q "^rank 1 (file name): .*worker1.json: 4 GPU events" "$TMP/out" &&
	grep -q "^rank 2 (distributedInfo): .*node-b_rank_7.json" "$TMP/out" &&
	grep -Eq "^spread over 3 ranks +min +\(rank\) +median +max +\(rank\)" "$TMP/out" &&
	grep -Eq "^  computation_time +0.050000 ms +\(0\) +0.065000 ms +0.080000 ms +\(1\)" "$TMP/out"
ok $? "breakdown human: a block per rank (and where its rank came from), then the spread"

run tl breakdown -i "$F" --include-unlinked -x,
[ "$(row "$TMP/out" 1 total_time)" = "1,total_time,0.665,100.0" ]
ok $? "--include-unlinked over ranks: rank 1's orphan kernel counts"

run tl breakdown -i "$F" --per-device
[ "$RC" -eq 1 ] && grep -q "one trace, not several ranks" "$TMP/err"
ok $? "--per-device with several ranks is refused"

run tl breakdown -i "$F/rank0.json" -x,
[ "$RC" -eq 0 ] && [ "$(head -1 "$TMP/out")" = "type,time ms,percent" ] && [ "$(wc -l <"$TMP/out")" -eq 9 ]
ok $? "one trace: the single-trace breakdown, unchanged"

# ---------------------------------------------------------------- collectives
run tl collectives -i "$F" -x,
[ "$RC" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 6 ] &&
	head -1 "$TMP/out" | grep -q '^process_group,index,collective,type,dtype,in_nelems,out_nelems,size_bytes,group_size,ranks,start_us,start_skew_us,end_skew_us,avg_wait_us,latency_us,sync_us,algbw_gbps,busbw_gbps,slowest_rank,first_rank,implicit_sync,sizes_differ,mismatch,algorithm,protocol$'
ok $? "collectives -x,: header and 5 collectives"
[ "$(row "$TMP/out" 0 0)" = "0,0,allreduce,allreduce,Float,1048576,1048576,4194304.0,3,3,0.0,30.0,2.0,16.666666666666668,104.0,104.0,37.56009615384615,50.080128205128204,2,0,True,False,False,RING,LL" ] &&
	[ "$(row "$TMP/out" stream:21 0 | cut -d, -f24,25)" = "RING,SIMPLE" ] &&
	[ "$(row "$TMP/out" 0 1 | cut -d, -f3-10,12,15,19)" = "_allgather_base,allgather,BFloat16,1000,3000,6000.0,3,3,5.0,15.0,2" ] &&
	[ "$(row "$TMP/out" stream:21 0 | cut -d, -f3,5,8,9,12,15,19)" = "all_to_all,float,1200.0,3,10.0,20.0,1" ] &&
	[ "$(row "$TMP/out" 1 5 | cut -d, -f10,15)" = "1,10.0" ] && [ "$(row "$TMP/out" 1 6 | cut -d, -f10,12,15,19)" = "2,4.0,8.0,2" ]
ok $? "collectives: allreduce skew 30 latency 104 busbw 50.08; allgather 6000 B; alltoall by stream; broadcast by Seq"

run tl collectives -i "$F" -j
[ "$RC" -eq 0 ] && jsonl_ok "$TMP/out" && [ "$(wc -l <"$TMP/out")" -eq 5 ] &&
	grep -q '"parts":\[{"rank":0,"start_us":0.0,"dur_us":132.0,"wait_us":30.0,"uid":11},{"rank":1,"start_us":10.0,"dur_us":123.0,"wait_us":20.0,"uid":8},{"rank":2,"start_us":30.0,"dur_us":104.0,"wait_us":0.0,"uid":11}\]' "$TMP/out"
ok $? "collectives -j: every rank's part with its own UID"

run tl collectives -i "$F" --summary -x,
[ "$RC" -eq 0 ] && [ "$(sed -n 2p "$TMP/out" | cut -d, -f1-8)" = "allreduce,allreduce,Float,1048576,4194304.0,3,1,104.0" ] &&
	[ "$(row "$TMP/out" broadcast | cut -d, -f7-12,18)" = "2,9.0,1.4142135623730951,8.0,9.0,10.0,0.018" ]
ok $? "collectives --summary: by total latency; broadcast x2 mean 9 std 1.414"

run tl collectives -i "$F" --stragglers -x,
[ "$RC" -eq 0 ] && [ "$(sed -n 2p "$TMP/out")" = "2,3,2,0,8.0,2.6666666666666665,155.0" ] &&
	[ "$(sed -n 4p "$TMP/out")" = "0,3,0,3,45.0,15.0,204.0" ]
ok $? "collectives --stragglers: rank 2 (arrived last twice) first, rank 0 waited 45 us"

run tl collectives -i "$F" --per-rank -x,
[ "$RC" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 13 ] && [ "$(row "$TMP/out" 1 6 broadcast 2)" = "1,6,broadcast,2,454.0,8.0,462.0,0.0,27" ]
ok $? "collectives --per-rank: 12 parts"

run tl collectives -i "$F"
[ "$RC" -eq 0 ] && grep -q "^5 collectives of 3 ranks, matched by process group and index (1 with no recorded process group" "$TMP/out" &&
	grep -Eq "^ +0.000 0 +0 allreduce +Float +4.0 MiB +3/3 +30.0 +104.0 +104.0 +37.56 +50.08 +RING/LL +2$" "$TMP/out"
ok $? "collectives human table (NCCL's algorithm/protocol from the kernel names)"

run tl collectives -i "$F" -o "$TMP/c.csv" -x, --limit 2
[ "$RC" -eq 0 ] && [ ! -s "$TMP/out" ] && [ "$(wc -l <"$TMP/c.csv")" -eq 3 ]
ok $? "collectives -o FILE --limit 2"

run tl collectives -i "$F" -x, --chart "$TMP/coll.svg"
[ "$RC" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 6 ] && "$PYTHON" - "$TMP/coll.svg" <<'PYEOF'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
rects = root.iter(ns + "rect")
cls = [r.get("class", "") for r in root.iter(ns + "rect")]
texts = [t.text or "" for t in root.iter(ns + "text")]
dots = list(root.iter(ns + "circle"))
# 12 parts (3 + 3 + 3 + 1 + 2), each with its transfer; those that waited also pale;
# one bar per rank in each half of the waits panel; a dot per collective with a size
ok = (cls.count("bar xfer") == 12 and 1 <= cls.count("bar wait") <= 12 and
      cls.count("bar waited") == 3 and cls.count("bar last") == 3 and cls.count("last") >= 1 and
      len(dots) == 5 and "rank 2" in texts and "allreduce" in texts and "broadcast" in texts and
      any(t.startswith("5 collectives of 3 ranks") for t in texts))
sys.exit(0 if ok else 1)
PYEOF
ok $? "collectives --chart FILE.svg: the timeline (a bar per rank's part), waits per rank, bandwidth dots; the table still printed"
if command -v rsvg-convert >/dev/null 2>&1; then
	run tl collectives -i "$F" --chart "$TMP/coll.png" -o "$TMP/c.txt"
	[ "$RC" -eq 0 ] && [ "$(head -c 8 "$TMP/coll.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]
	ok $? "collectives --chart FILE.png through rsvg-convert"
else
	skip "rsvg-convert not installed (librsvg2-bin)"
fi
run tl collectives -i "$F" --chart "$TMP/nodir/c.svg"
[ "$RC" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "nodir/c.svg" "$TMP/err" && [ ! -s "$TMP/out" ]
ok $? "collectives --chart into a missing directory: one error, no table"

run tl collectives -i "$F" --summary --stragglers
[ "$RC" -eq 1 ] && grep -q "exclusive" "$TMP/err"
ok $? "one view at a time"

run tl collectives -i "$ROOT/tests/fixtures/mini.json" -x,
[ "$RC" -eq 0 ] && [ "$(sed -n 2p "$TMP/out" | cut -d, -f1-4,10)" = "stream:20,0,all_reduce,allreduce,1" ]
ok $? "collectives of one trace: its nccl:all_reduce (no process group recorded)"

# ---------------------------------------------------------------- summaries
run tl summarize -i "$F/worker1.json"
[ "$RC" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 4 ] && head -1 "$TMP/out" | grep -q '^{"tlreplay_rank_summary":1,.*"rank":1,"rank_from":"file name"'
ok $? "summarize one trace to stdout: a header and 3 collectives"

run tl summarize -i "$F" -o "$TMP/sum"
[ "$RC" -eq 0 ] && [ -s "$TMP/sum/rank-0.tlrank.jsonl" ] && [ -s "$TMP/sum/rank-1.tlrank.jsonl" ] && [ -s "$TMP/sum/rank-2.tlrank.jsonl" ]
ok $? "summarize -i DIR -o DIR: rank-N.tlrank.jsonl"
same=0
for v in "" --summary --stragglers --per-rank; do
	# shellcheck disable=SC2086
	tl collectives -i "$F" $v -x, >"$TMP/a" && tl collectives -i "$TMP/sum" $v -x, >"$TMP/b" && cmp -s "$TMP/a" "$TMP/b" || same=1
done
tl breakdown -i "$TMP/sum" -x, >"$TMP/b" && cmp -s "$TMP/bd-dir.csv" "$TMP/b" || same=1
ok $same "breakdown and collectives from the summaries = from the traces"

tl summarize -i "$F/rank0.json" --rank 5 -o "$TMP/r5.jsonl"
run tl collectives -i "$TMP/r5.jsonl" -i "$F/worker1.json" -x,
[ "$RC" -eq 0 ] && [ "$(row "$TMP/out" 0 0 | cut -d, -f10,19,20)" = "2,1,5" ]
ok $? "summarize --rank 5; a summary and a trace mixed (rank 5 arrived first, rank 1 last)"

head -3 "$TMP/sum/rank-1.tlrank.jsonl" >"$TMP/cut.jsonl"
run tl collectives -i "$TMP/cut.jsonl" -i "$F/rank0.json"
[ "$RC" -eq 1 ] && grep -q "cut.jsonl: cut short: 2 of the 3 collectives" "$TMP/err"
ok $? "a summary cut short is an error naming it"
run tl collectives -i "$TMP/cut.jsonl" -i "$F/rank0.json" -i "$F/node-b_rank_7.json" --keep-going -x,
[ "$RC" -eq 0 ] && grep -q "warning: left out .*cut.jsonl" "$TMP/err" && [ "$(row "$TMP/out" 0 0 | cut -d, -f10)" = "2" ]
ok $? "--keep-going leaves it out with a warning"

run tl breakdown -i "$F" -i "$TMP/sum/rank-1.tlrank.jsonl"
[ "$RC" -eq 1 ] && grep -q "rank 1 twice" "$TMP/err"
ok $? "two inputs of one rank are refused"

mkdir "$TMP/bad" "$TMP/none"
cp "$F/rank0.json" "$TMP/bad/" && printf '{"traceEvents": [{"ph": "X"' >"$TMP/bad/rank1.json"
run tl breakdown -i "$TMP/bad"
[ "$RC" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "rank1.json: .*truncated" "$TMP/err"
ok $? "a directory with a broken trace: one error naming it"
printf '{"traceEvents": [{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":1,"dur":2,"args":{"device":0,"stream":7}}]}' >"$TMP/nocomm.json"
run tl collectives -i "$TMP/nocomm.json"
[ "$RC" -eq 1 ] && [ "$(cat "$TMP/err")" = "tlreplay: collectives: $TMP/nocomm.json: no NCCL/RCCL kernel in it" ]
ok $? "a trace without collectives: one line naming it"
run tl collectives -i "$TMP/none"
[ "$RC" -eq 1 ] && grep -q "none: no trace or rank summary in it" "$TMP/err"
ok $? "an empty directory"

# JAX multi-host: one <host>.xplane.pb per host in a directory
mkdir "$TMP/jax"
cp "$ROOT/tests/fixtures/tiny.xplane.pb" "$TMP/jax/host-a.xplane.pb"
gzip -c "$ROOT/tests/fixtures/tiny.xplane.pb" >"$TMP/jax/host-b.xplane.pb.gz"
run tl breakdown -i "$TMP/jax" -x,
[ "$RC" -eq 0 ] && [ "$(row "$TMP/out" 0 total_time)" = "$(row "$TMP/out" 1 total_time | sed 's/^1/0/')" ] &&
	[ "$(row "$TMP/out" 1 total_time | cut -d, -f3)" = "0.27" ] && grep -q "numbered in input order" "$TMP/err"
ok $? "a directory of .xplane.pb and .xplane.pb.gz (JAX hosts): a block each, ranks in input order"

# A directory with one trace stands for it (JAX's plugins/profile/RUN/HOST.xplane.pb)
mkdir -p "$TMP/run1"
cp "$ROOT/tests/fixtures/tiny.xplane.pb" "$TMP/run1/host.xplane.pb"
tl breakdown -i "$ROOT/tests/fixtures/tiny.xplane.pb" --per-device -x, >"$TMP/a" 2>/dev/null
run tl breakdown -i "$TMP/run1" --per-device -x,
[ "$RC" -eq 0 ] && [ -s "$TMP/a" ] && cmp -s "$TMP/a" "$TMP/out" &&
	tl kernels -i "$TMP/run1" -x, >/dev/null 2>&1 &&
	XDG_STATE_HOME=$TMP/state tl open "$TMP/run1" >/dev/null 2>&1 &&
	grep -q "/run1/host.xplane.pb$" "$TMP/state/tlreplay/current-trace"
ok $? "a directory of one trace stands for it: breakdown --per-device, kernels, open"
run tl breakdown -i "$TMP/run1" --per-device
[ "$RC" -eq 0 ] && grep -q "^device 1 (tinyhost /device:GPU:0): 4 GPU events$" "$TMP/out" &&
	grep -q "^device 2 (tinyhost /device:GPU:1): " "$TMP/out"
ok $? "JAX per-device blocks: XProf's pid (TraceLens's gpu_pid) and the GPU it names"
run tl ops -i "$F"
[ "$RC" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
	grep -q "ranks: is a directory of 3 traces or rank summaries (node-b_rank_7.json, rank0.json, ...): name one with -i, or give the directory to breakdown, collectives or summarize" "$TMP/err"
ok $? "a one-trace command on a directory of ranks: one line saying what to do"

# ---------------------------------------------------------------- SLURM example
mkdir "$TMP/bin"
cat >"$TMP/bin/sbatch" <<'EOF'
#!/bin/bash
arr="" wrap=""
for a in "$@"; do case "$a" in --array=*) arr=${a#--array=} ;; --wrap=*) wrap=${a#--wrap=} ;; esac; done
if [ -n "$arr" ]; then
	for ((i = ${arr%-*}; i <= ${arr#*-}; i++)); do SLURM_ARRAY_TASK_ID=$i sh -c "$wrap" >>"$SBATCH_LOG" 2>&1; done
else
	sh -c "$wrap" >>"$SBATCH_LOG" 2>&1
fi
echo 42
EOF
chmod +x "$TMP/bin/sbatch"
run env PATH="$TMP/bin:$PATH" SBATCH_LOG="$TMP/sbatch.log" TLREPLAY="$TLREPLAY" bash "$ROOT/scripts/slurm-ranks.sh" "$F" "$TMP/slurm" 2
[ "$RC" -eq 0 ] && [ "$(ls "$TMP/slurm/summaries" | wc -l)" -eq 3 ] && cmp -s "$TMP/slurm/breakdown.csv" "$TMP/bd-dir.csv" &&
	tl collectives -i "$F" -x, >"$TMP/a" && cmp -s "$TMP/slurm/collectives.csv" "$TMP/a" && [ -s "$TMP/slurm/stragglers.csv" ]
ok $? "scripts/slurm-ranks.sh: 2 array tasks summarise 3 traces, the merge job = the direct analysis"
[ "$RC" -ne 0 ] && diag "$(cat "$TMP/err" "$TMP/sbatch.log" 2>/dev/null | head -20)"

# ---------------------------------------------------------------- real traces
DLRM=$SHARED/traces/param/et_replay/tests/inputs/dlrm_kineto.tar.gz
if [ -f "$DLRM" ]; then
	mkdir "$TMP/dlrm" && tar -xzf "$DLRM" -C "$TMP/dlrm"
	D=$TMP/dlrm/dlrm_kineto
	run tl collectives -i "$D" -x,
	[ "$RC" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 9 ] &&
		[ "$(cut -d, -f1,2,3,10 "$TMP/out" | tail -n +2 | tr '\n' ' ')" = "stream:84,0,all_to_all,8 stream:84,1,all_to_all,8 stream:84,2,all_to_all,8 stream:84,3,all_to_all,8 stream:84,4,all_reduce,8 stream:84,5,all_to_all,8 stream:84,6,all_reduce,8 stream:84,7,all_reduce,8 " ] &&
		[ "$(cut -d, -f23 "$TMP/out" | sort -u | tr '\n' ' ')" = "False mismatch " ]
	ok $? "DLRM, 8 ranks: 5 all_to_all and 3 all_reduce matched on all 8 ranks, no mismatch"
	[ "$(row "$TMP/out" stream:84 4 | cut -d, -f5,6,8,9,12,15,19)" = "float,394241,1576964.0,8,223.0,86.0,7" ]
	ok $? "DLRM: the first all_reduce: 394241 floats (nccl:all_reduce's shape), skew 223 us, latency 86 us, rank 7 last"
	run tl collectives -i "$D" --stragglers -x,
	[ "$RC" -eq 0 ] && [ "$(sed -n 2p "$TMP/out" | cut -d, -f1-3)" = "7,8,5" ]
	ok $? "DLRM stragglers: rank 7 arrived last at 5 of 8 collectives, waited least"
	run tl breakdown -i "$D" -x,
	[ "$RC" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 89 ] && [ "$(row "$TMP/out" max exposed_comm_time | cut -d, -f3)" = "11.056" ] &&
		tl breakdown -i "$D/worker1_step_12.1694128201556.pt.trace.json" -x, >"$TMP/one" &&
		[ "$(grep '^exposed_comm_time' "$TMP/one")" = "$(row "$TMP/out" 1 exposed_comm_time | cut -d, -f2-)" ]
	ok $? "DLRM breakdown: 8 ranks, rank 1's block = its single-trace breakdown, max exposed comm 11.056 ms"
	run tl summarize -i "$D" -o "$TMP/dlrm-sum" --jobs 2
	tl collectives -i "$D" -j >"$TMP/a"
	[ "$RC" -eq 0 ] && tl collectives -i "$TMP/dlrm-sum" -j >"$TMP/b" && cmp -s "$TMP/a" "$TMP/b"
	ok $? "DLRM: summaries with --jobs 2, merged = direct"
else
	for i in 1 2 3 4 5; do skip "$DLRM absent"; done
fi

H=$SHARED/traces/HolisticTraceAnalysis/tests/data
if [ -d "$H" ]; then
	run tl collectives -i "$H/nccl_parser_config/nccl_data.json.gz" --summary -x,
	[ "$RC" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 8 ] && [ "$(grep -c '^allreduce,allreduce,Float,' "$TMP/out")" -eq 5 ] &&
		[ "$(grep -c '^broadcast,broadcast,' "$TMP/out")" -eq 2 ]
	ok $? "HTA nccl_data (rank 0 of 2): 5 kinds of allreduce, 2 of broadcast, from the kernels' args"
	run tl collectives -i "$H/trace_filter/sampled_rank-0.json.gz" -i "$H/trace_filter/sampled_rank-1.json.gz" -x,
	[ "$RC" -eq 0 ] && [ "$(row "$TMP/out" stream:203 0 | cut -d, -f3,9,10,12)" = "_all_gather_base,128,2,84.0" ] &&
		grep -q "warning: at 5 of 10 collectives the ranks disagree" "$TMP/err"
	ok $? "HTA sampled ranks 0 and 1 of 128: allgathers matched, the differently sampled ones flagged"
	run tl collectives -i "$H/negative_queue_length_values_check/rank0.json.gz" -x,
	[ "$RC" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 81 ] && [ "$(cut -d, -f1 "$TMP/out" | sort -u | tr '\n' ' ')" = "process_group stream:285 stream:363 stream:84 " ]
	ok $? "HTA rank 0 of 16: 80 collectives on three streams, a group each"
else
	for i in 1 2 3; do skip "$H absent"; done
fi

done_testing
