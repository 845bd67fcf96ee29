#!/bin/sh
# tlreplay seqs and kernels --short: hand fixtures with hand-counted
# sequences (tests/fixtures/seq_ngrams.json, seq_ops.json, timelines below),
# real traces checked against seqs_ref.py (a plain-json reference written
# from the definitions) and against HTA's stated answer, and bad input.
. "$(dirname "$0")/../taplib.sh"

N=$ROOT/tests/fixtures/seq_ngrams.json
P=$ROOT/tests/fixtures/seq_ops.json
REF=$ROOT/tests/cli/seqs_ref.py
tl() { "$TLREPLAY" "$@"; }
# cols FILE: "count,total,idle,sequence" of an -x, seqs output, header dropped
cols() { awk -F, 'NR > 1 { printf "%s,%.3f,%.3f,%s\n", $1, $3, $5, $8 }' "$1"; }

# seq_ngrams.json (us). GPU 0 stream 7: A 0+10, B 15+5, C 20+10, (a memset at 32,
# not a kernel), A 40+10, B 55+5, C 60+5, A 70+2. GPU 0 stream 9: A 0+4, B 10+4.
# GPU 1 stream 7: B 0+1, C 5+1. A, C carry templates and arguments that HTA's
# shortening drops: "void ns::kA<int, 2>(float*)" -> ns::kA, "void kC<(...)::T>(int)" -> kC.
# Pairs: A B 3x (15+15+8 = 38 us, idle 5+5+6 = 16), B C 3x (15+10+2 = 27, idle 4),
# C A 2x (20+7 = 27, idle 10+5 = 15). All kernel time: 47+8+2 = 57 us.
run tl seqs -i "$N" -x,
cols "$TMP/out" >"$TMP/got"
printf '%s\n' '3,38.000,16.000,ns::kA | kB' '3,27.000,4.000,kB | kC' '2,27.000,15.000,kC | ns::kA' >"$TMP/want"
[ "$RC" -eq 0 ] && [ "$(head -1 "$TMP/out")" = "count,length,total_us,mean_us,idle_us,percent,first_uid,sequence" ] &&
	cmp -s "$TMP/got" "$TMP/want"
ok $? "seqs fixture, pairs: counts, totals, idle, shortened names, order (count, then total)"
[ "$(awk -F, 'NR == 2 { print $4 ":" $6 }' "$TMP/out")" = "12.666666666666666:66.66666666666666" ]
ok $? "seqs fixture: mean 38/3 and 38/57 of all kernel time"

# Triples: A B C 2x (25+20 = 45, idle 5+5), B C A 2x (25+12 = 37, idle 10+5), C A B 1x (25, idle 15)
run tl seqs -i "$N" --length 3 -x,
cols "$TMP/out" >"$TMP/got"
printf '%s\n' '2,45.000,10.000,ns::kA | kB | kC' '2,37.000,15.000,kB | kC | ns::kA' '1,25.000,15.000,kC | ns::kA | kB' >"$TMP/want"
[ "$RC" -eq 0 ] && cmp -s "$TMP/got" "$TMP/want"
ok $? "seqs fixture, --length 3: overlapping runs all count"

run tl seqs -i "$N" --min-length 2 --max-length 3 --top 4 -x,
[ "$RC" -eq 0 ] && [ "$(cols "$TMP/out" | cut -d, -f1,2 | tr '\n' ' ')" = "3,38.000 3,27.000 2,45.000 2,37.000 " ]
ok $? "seqs fixture, lengths 2..3 ranked together, --top 4"

run tl seqs -i "$N" --device 1 -j
[ "$RC" -eq 0 ] && [ "$(cat "$TMP/out")" = '{"count":1,"length":2,"total_us":2.0,"mean_us":2.0,"idle_us":4.0,"percent":100.0,"first_uid":12,"sequence":["kB","kC"]}' ]
ok $? "seqs --device 1 -j: one pair B C, 2 us, idle 4"
cp "$TMP/out" "$TMP/dev1"
run tl seqs -i "$N" --gpu-pid 1 -j
[ "$RC" -eq 0 ] && cmp -s "$TMP/out" "$TMP/dev1"
ok $? "seqs --gpu-pid 1 -j: the same as --device 1"

run tl seqs -i "$N" --raw-names -L 1 -x,
[ "$RC" -eq 0 ] && grep -q '^4,1,.*,"void ns::kA<int, 2>(float\*)"$' "$TMP/out"
ok $? "seqs --raw-names -L 1: names as written"

# seq_ops.json: aten::linear 0+100 launches gemm 205+8, a memset 200+1, add 215+2;
# aten::linear 200+60: memset 300+1, gemm 302+9, add 312+3; aten::linear 300+40:
# gemm, add only (2 events); aten::matmul 400+100 holds an aten::linear (depth 1,
# not counted: HTA starts from the shallowest). Default min length 3.
run tl seqs -i "$P" --op aten::linear -x,
[ "$RC" -eq 0 ] && [ "$(tail -n +2 "$TMP/out")" = "2,24.0,160.0,100.0,aten::linear|Memset (Device)|gemm|add" ]
ok $? "seqs --op aten::linear: HTA's pattern (GPU events by start), count 2, GPU 24, CPU 160"
run tl seqs -i "$P" --op aten::linear --min-length 2 -x,
[ "$RC" -eq 0 ] && [ "$(sed -n 3p "$TMP/out")" = "1,5.0,40.0,17.24137931034483,aten::linear|gemm|add" ]
ok $? "seqs --op --min-length 2: the 2-event linear too, 5 of 29 us"
run tl seqs -i "$P" --op aten::matmul -j
[ "$RC" -eq 0 ] && grep -q '"count":1,"gpu_us":8.0,"cpu_us":100.0,.*"aten::matmul|gemm|add|add"' "$TMP/out"
ok $? "seqs --op aten::matmul: the nested linear's events are the matmul's"

# real traces
D=$SHARED/traces/HolisticTraceAnalysis/tests/data
T=$D/df_index_resolver/df_index_resolver.json.gz
if [ -f "$T" ]; then
	for L in 2 3; do
		run tl seqs -i "$T" -L $L --top 8 -x,
		cols "$TMP/out" >"$TMP/got"
		"$PYTHON" "$REF" ngrams "$T" $L 8 >"$TMP/want"
		[ "$RC" -eq 0 ] && [ -s "$TMP/want" ] && cmp -s "$TMP/got" "$TMP/want"
		ok $? "df_index_resolver, top 8 of length $L: as seqs_ref.py counts them"
	done
	# HTA's test_no_frequent_cuda_kernel_sequences_found: aten::clone on this trace, empty
	run tl seqs -i "$T" --op aten::clone
	[ "$RC" -ne 0 ] && grep -q "no op named like 'aten::clone' launches 3 or more GPU events" "$TMP/err"
	ok $? "df_index_resolver --op aten::clone: none, as HTA's test finds (an error, exit 1)"
	run tl seqs -i "$T" --op aten::clone --min-length 1 -x,
	[ "$RC" -eq 0 ] && [ "$(tail -n +2 "$TMP/out" | awk -F, '{ printf "%s,%.3f,%.3f\n", $1, $2, $3 }')" = \
		"$("$PYTHON" "$REF" op "$T" aten::clone 1 | cut -d, -f1-3)" ]
	ok $? "df_index_resolver --op aten::clone --min-length 1: 120 copies, as seqs_ref.py finds"
	run tl kernels --short --short-thresh-us 5 --bins 7 -i "$T" -x,
	got=$(awk -F, 'NR > 1 { n[$1] += $4; if (!($1 in lo)) lo[$1] = $2; hi[$1] = $3 }
		END { for (d in n) printf "%s,%d,%.4f,%.4f\n", d, n[d], lo[d], hi[d] }' "$TMP/out")
	[ "$RC" -eq 0 ] && [ "$(grep -c . "$TMP/out")" -eq 8 ] && [ "$got" = "$("$PYTHON" "$REF" short "$T" 5)" ]
	ok $? "kernels --short --short-thresh-us 5 --bins 7: 7 bins spanning the short kernels of each device"
else
	skip "df_index_resolver trace not in $D"
fi
A=$D/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz
if [ -f "$A" ]; then
	run tl seqs -i "$A" --op aten::linear --min-length 1 -j
	"$PYTHON" -c 'import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print("%d,%.3f,%.3f,%s" % (r["count"], r["gpu_us"], r["cpu_us"], r["pattern"]))' "$TMP/out" >"$TMP/got"
	"$PYTHON" "$REF" op "$A" aten::linear 1 >"$TMP/want"
	[ "$RC" -eq 0 ] && [ -s "$TMP/want" ] && cmp -s "$TMP/got" "$TMP/want"
	ok $? "alexnet --op aten::linear: the patterns seqs_ref.py finds"
else
	skip "alexnet trace not in $D"
fi

# kernels --short on the fixture: GPU 0 has 6 kernels under 10 us, from 2 (A 70+2) to 5 us;
# GPU 1 two of 1 us, a range numpy widens by half a unit either side
run tl kernels --short --bins 2 -i "$N" -j
[ "$RC" -eq 0 ] && [ "$(head -1 "$TMP/out")" = '{"device":"0","bin_start_us":2.0,"bin_end_us":3.5,"count":1}' ] &&
	[ "$(sed -n 2p "$TMP/out")" = '{"device":"0","bin_start_us":3.5,"bin_end_us":5.0,"count":5}' ] &&
	[ "$(sed -n 3,4p "$TMP/out" | tr '\n' ' ')" = '{"device":"1","bin_start_us":0.5,"bin_end_us":1.0,"count":0} {"device":"1","bin_start_us":1.0,"bin_end_us":1.5,"count":2} ' ]
ok $? "kernels --short --bins 2 -j: per device; GPU 1's two 1 us kernels in numpy's widened range"

# bad input
run tl seqs -i "$ROOT/tests/fixtures/no-such.json"
[ "$RC" -ne 0 ] && [ "$(grep -c . "$TMP/err")" -eq 1 ]
ok $? "seqs: missing trace, one-line error"
for bad in "--length 0" "--min-length 3 --max-length 2" "--length 2 --min-length 2" "--length 2000" \
	"--op aten::linear --length 3" "--op ''" "--device ''"; do
	eval "run tl seqs -i \"$N\" $bad"
	[ "$RC" -ne 0 ] && [ "$(grep -c . "$TMP/err")" -eq 1 ] && grep -q '^tlreplay: seqs: ' "$TMP/err"
	ok $? "seqs $bad: one-line error, exit $RC"
done
run tl seqs -i "$N" --device 5
[ "$RC" -ne 0 ] && grep -q "no kernel on device '5'" "$TMP/err"
ok $? "seqs --device 5: no such device"
run tl seqs -i "$P" --op aten::nope
[ "$RC" -ne 0 ] && grep -q "no op named like 'aten::nope'" "$TMP/err"
ok $? "seqs --op aten::nope: no such op"
echo '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "x", "pid": 1, "tid": 1, "ts": 0, "dur": 1}]}' >"$TMP/cpu.json"
run tl seqs -i "$TMP/cpu.json"
[ "$RC" -ne 0 ] && grep -q "no kernel events" "$TMP/err"
ok $? "seqs on a trace without kernels: error"
run tl kernels --short -i "$TMP/cpu.json"
[ "$RC" -ne 0 ] && grep -q "no kernel events" "$TMP/err"
ok $? "kernels --short on a trace without kernels: error"
for bad in "--short --short-thresh-us 0" "--short --short-thresh-us x" "--bins 4"; do
	eval "run tl kernels -i \"$N\" $bad"
	[ "$RC" -ne 0 ] && [ "$(grep -c . "$TMP/err")" -eq 1 ] && grep -q '^tlreplay: kernels: ' "$TMP/err"
	ok $? "kernels $bad: one-line error"
done
done_testing
