#!/bin/sh
# Every subcommand on a small hand-written trace whose answers are known.
. "$(dirname "$0")/../taplib.sh"

T=$ROOT/tests/fixtures/mini.json
tl() { "$TLREPLAY" "$@"; }

# field FILE KEY COLUMN: value in the -x, CSV row whose first column is KEY
field() { awk -F, -v k="$2" -v c="$3" '$1 == k { print $c }' "$1"; }

jsonl_ok() { # every line of $TMP/out is a JSON object
	"$PYTHON" -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1]) if l.strip()]' "$TMP/out"
}

# ---------------------------------------------------------------- breakdown
run tl breakdown -i "$T" -x,
[ "$RC" -eq 0 ] && [ "$(head -1 "$TMP/out")" = "type,time ms,percent" ] && [ "$(wc -l <"$TMP/out")" -eq 9 ]
ok $? "breakdown -x,: header and eight rows"
[ "$(field "$TMP/out" computation_time 2)" = "0.01" ] &&
	[ "$(field "$TMP/out" exposed_comm_time 2)" = "0.026" ] &&
	[ "$(field "$TMP/out" exposed_memcpy_time 2)" = "0.002" ] &&
	[ "$(field "$TMP/out" idle_time 2)" = "0.0" ] &&
	[ "$(field "$TMP/out" total_time 3)" = "100.0" ]
ok $? "breakdown values: compute 0.01 ms, exposed comm 0.026, exposed memcpy 0.002, idle 0"

run tl breakdown -i "$T" -j
[ "$RC" -eq 0 ] && jsonl_ok && [ "$(wc -l <"$TMP/out")" -eq 8 ] && grep -q '"type":"busy_time","time_ms":0.038' "$TMP/out"
ok $? "breakdown -j: eight JSON objects"

run tl breakdown -i "$T" --include-unlinked -x,
[ "$(field "$TMP/out" total_time 2)" = "0.055" ]
ok $? "--include-unlinked counts the orphan kernel (span grows to 55 us)"

run tl breakdown -i "$T" --per-stream -x,
[ "$(head -1 "$TMP/out")" = "device,stream,type,time ms,percent" ] &&
	[ "$(grep -c ',total_time,' "$TMP/out")" -eq 3 ]
ok $? "--per-stream: one block per (device, stream), three streams"

run tl breakdown -i "$T" --per-device
[ "$RC" -eq 0 ] && grep -q "^device 0: 3 GPU events" "$TMP/out"
ok $? "--per-device human output names the device"

# ---------------------------------------------------------------- info
run tl info -i "$T"
[ "$RC" -eq 0 ] && grep -q "^events       22:" "$TMP/out" && grep -q "^device 0     Test GPU, compute 9.0, 132 SMs, 80 GiB" "$TMP/out" &&
	grep -q "^distributed  nccl, rank 0 of 2" "$TMP/out" && grep -q "^GPU events   4, 3 linked" "$TMP/out"
ok $? "info: events, devices, distributed setup, links"
run tl info -i "$T" -j
[ "$RC" -eq 0 ] && jsonl_ok && grep -q '"gpu_events_linked":3' "$TMP/out" && grep -q '"baseTimeNanoseconds"' "$TMP/out"
ok $? "info -j: one object with the metadata"

# ---------------------------------------------------------------- ops / kernels
run tl ops -i "$T" -x,
[ "$RC" -eq 0 ] && head -1 "$TMP/out" | grep -q '^name,total_direct_kernel_time_sum,total_subtree_kernel_time_sum' &&
	grep -q "^aten::copy_,15.0,15.0,0.015,0.015,1,\['elementwise'\],60.0,60.0,9$" "$TMP/out" &&
	grep -q "^aten::addmm,10.0,10.0,0.01,0.01,1,\['GEMM'\],40.0,100.0,4$" "$TMP/out"
ok $? "ops -x,: TraceLens columns, NCCL launcher left out"
run tl ops -i "$T" --include-nccl -j
[ "$RC" -eq 0 ] && jsonl_ok && grep -q '"name":"nccl:all_reduce"' "$TMP/out"
ok $? "ops --include-nccl -j"

run tl kernels -i "$T" -x,
[ "$RC" -eq 0 ] && head -1 "$TMP/out" | grep -q '^Parent op category,Parent cpu_op,Kernel name,Kernel stream,' &&
	grep -q '^GEMM,aten::addmm,void gemm_kernel<float>(Params),7,10.0,1,' "$TMP/out" &&
	grep -q '^,,void orphan_kernel(),7,5.0,1,' "$TMP/out"
ok $? "kernels -x,: parent op, category, the unlinked kernel with empty parent"
run tl kernels -i "$T" --unique -j
[ "$RC" -eq 0 ] && jsonl_ok && grep -q '"grid":\[4,1,1\],"block":\[128,1,1\],"registers":64,"shared_memory":4096' "$TMP/out"
ok $? "kernels --unique -j: grid, block, registers, shared memory"

# ---------------------------------------------------------------- navigation
run tl list -i "$T" addmm
[ "$RC" -eq 0 ] && grep -q "^ *4 .*aten::addmm" "$TMP/out" && [ "$(grep -c addmm "$TMP/out")" -eq 1 ]
ok $? "list REGEX"
run tl list -i "$T" --gpu -x,
[ "$(tail -n +2 "$TMP/out" | wc -l)" -eq 4 ]
ok $? "list --gpu: the four GPU events"
run tl list -i "$T" -c cpu_op --from 60 --to 80 -j
[ "$RC" -eq 0 ] && jsonl_ok && grep -q '"name":"aten::copy_"' "$TMP/out" && ! grep -q aten::addmm "$TMP/out"
ok $? "list -c cpu_op --from/--to: time window relative to the first event"

run tl show -i "$T" -j 4
[ "$RC" -eq 0 ] && jsonl_ok && grep -q '"parents":\[3\],"children":\[5\],"gpu_events":\[7\]' "$TMP/out" &&
	grep -q '"bwd":\[20\]' "$TMP/out"
ok $? "show -j: parents, children, GPU events, backward link"
run tl show -i "$T" 7
[ "$RC" -eq 0 ] && grep -q "launcher 4 " "$TMP/out" && grep -q '"registers per thread": 64' "$TMP/out"
ok $? "show a kernel: its launcher and args"

run tl tree -i "$T" 3
[ "$RC" -eq 0 ] && grep -q "└── 4 aten::addmm" "$TMP/out" && grep -q "└── 7 void gemm_kernel" "$TMP/out"
ok $? "tree UID"
run tl tree -i "$T"
[ "$RC" -eq 0 ] && grep -q "^3 aten::linear" "$TMP/out" && grep -q "^14 nccl:all_reduce" "$TMP/out"
ok $? "tree: roots that lead to GPU work"

# ---------------------------------------------------------------- check
run tl check -i "$T"
[ "$RC" -eq 1 ] && grep -q "unlinked-gpu-events" "$TMP/out"
ok $? "check: unlinked GPU time above 5% is an error (exit 1)"
grep -v orphan_kernel "$T" >"$TMP/clean.json"
run tl check -i "$TMP/clean.json" -j
[ "$RC" -eq 0 ] && [ ! -s "$TMP/out" ] || { [ "$RC" -eq 0 ] && jsonl_ok; }
ok $? "check: a clean trace exits 0"
"$PYTHON" - "$T" "$TMP/overflow.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["traceEvents"]:
    if e.get("name") == "void gemm_kernel<float>(Params)":
        e["dur"] = 500.0          # runs past the memcpy... on its own stream
    if e.get("name") == "void orphan_kernel()":
        e["args"]["stream"] = 7   # next kernel on stream 7
json.dump(d, open(sys.argv[2], "w"))
EOF
run tl check -i "$TMP/overflow.json" -x,
[ "$RC" -eq 1 ] && grep -q "^error,kernel-runs-past-next,1,7," "$TMP/out"
ok $? "check: a kernel running past the next one on its stream"

# ---------------------------------------------------------------- open, env, help
run tl open "$T"
[ "$RC" -eq 0 ] && [ -f "$XDG_STATE_HOME/tlreplay/current-trace" ]
ok $? "open remembers the trace"
run tl breakdown -x,
[ "$RC" -eq 0 ] && [ "$(field "$TMP/out" computation_time 2)" = "0.01" ]
ok $? "later commands use it without -i"
run tl open
[ "$RC" -eq 0 ] && grep -q "mini.json" "$TMP/out"
ok $? "open without argument prints it"
run tl open --forget
run tl breakdown
[ "$RC" -ne 0 ]
ok $? "open --forget"
TLREPLAY_TRACE=$T "$TLREPLAY" ops -x, >"$TMP/out" 2>&1
ok $? "TLREPLAY_TRACE names the trace"

fails=0
for c in $("$TLREPLAY" --list-cmds); do
	"$TLREPLAY" "$c" --help >"$TMP/out" 2>&1 && head -1 "$TMP/out" | grep -q "^usage: tlreplay $c" || {
		diag "--help of $c"
		fails=1
	}
done
ok $fails "--help on every subcommand"
# --help, --list-opts (bash completion, the man page test) and the parser
# are made from one option table: each listed option is in --help and taken
fails=0
for c in $("$TLREPLAY" --list-cmds); do
	"$TLREPLAY" "$c" --help >"$TMP/help" 2>&1
	for o in $("$TLREPLAY" --list-opts "$c"); do
		grep -Eq -- "(^| )$o( |,|\$)" "$TMP/help" || {
			diag "$c: $o is not in --help"
			fails=1
		}
		"$TLREPLAY" "$c" "$o" >/dev/null 2>"$TMP/err"
		! grep -q "unrecognized option" "$TMP/err" || {
			diag "$c: $o: $(head -1 "$TMP/err")"
			fails=1
		}
	done
done
ok $fails "every option of --list-opts CMD is in CMD --help and CMD takes it"
TLREPLAY_PROGRESS=always "$TLREPLAY" breakdown -i "$T" >/dev/null 2>"$TMP/err"
grep -q "^tlreplay: loading .*mini.json: 100%" "$TMP/err"
ok $? "TLREPLAY_PROGRESS=always: load progress on stderr"
TLREPLAY_PROGRESS=never "$TLREPLAY" breakdown -i "$T" >/dev/null 2>"$TMP/err"
[ ! -s "$TMP/err" ]
ok $? "no progress (or anything) on stderr otherwise"
run tl --version
[ "$RC" -eq 0 ] && grep -q '^tlreplay [0-9]' "$TMP/out"
ok $? "--version"
run tl bre -i "$T" -x,
[ "$RC" -eq 0 ]
ok $? "an unambiguous prefix selects the command"
run tl o
[ "$RC" -ne 0 ] && grep -q ambiguous "$TMP/err"
ok $? "an ambiguous prefix is refused"
run "$(dirname "$TLREPLAY")/perf-tlreplay" breakdown -i "$T" -x,
[ "$RC" -eq 0 ] && [ "$(field "$TMP/out" computation_time 2)" = "0.01" ]
ok $? "perf-tlreplay shim (what \`perf tlreplay\` runs)"
if command -v perf >/dev/null 2>&1; then
	run env PATH="$(dirname "$TLREPLAY"):$PATH" perf tlreplay breakdown -i "$T" -x,
	[ "$RC" -eq 0 ] && [ "$(field "$TMP/out" computation_time 2)" = "0.01" ]
	ok $? "perf tlreplay breakdown: perf finds perf-tlreplay on PATH"
else
	skip "perf not installed"
fi

# ---------------------------------------------------------------- report
run tl report -i "$T" -o "$TMP/rep"
[ "$RC" -eq 0 ] && [ -f "$TMP/rep/gpu_timeline.csv" ] && [ -f "$TMP/rep/ops_summary.csv" ] &&
	[ -f "$TMP/rep/ops_summary_by_category.csv" ] && [ -f "$TMP/rep/ops_unique_args.csv" ] &&
	! ls -A "$TMP/rep" | grep -q '^\.'
ok $? "report -o DIR: makes DIR, writes the sheets, leaves no temporary file"
tl breakdown -i "$T" -x, >"$TMP/bd.csv"
cmp -s "$TMP/bd.csv" "$TMP/rep/gpu_timeline.csv"
ok $? "report's gpu_timeline.csv is breakdown -x,"
run tl report -i "$T"
[ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q -- '-o DIR' "$TMP/err"
ok $? "report without -o: one line naming -o DIR, non-zero exit"
run tl report -i "$TMP/nosuch.json" -o "$TMP/rep2"
[ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q nosuch.json "$TMP/err" &&
	[ ! -e "$TMP/rep2" ]
ok $? "report of a missing trace: one line naming it, no directory made"
: >"$TMP/afile"
run tl report -i "$T" -o "$TMP/afile"
[ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "afile: not a directory" "$TMP/err"
ok $? "report -o FILE: one line, not a directory"
run tl report --help
[ "$RC" -eq 0 ] && grep -q -- "--kernel-summary" "$TMP/out" && grep -q "usage: tlreplay report" "$TMP/out"
ok $? "report --help from the option table"

done_testing
