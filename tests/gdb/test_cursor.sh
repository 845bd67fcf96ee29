#!/bin/sh
# The trace cursor in gdb on a real trace (../shared/traces: BERT on an H100, where UID 48 is
# an aten::addmm under aten::linear 42): open, list, select, info, up/down/next/prev, bt,
# replay and stat of the selected op.
. "$(dirname "$0")/../taplib.sh"
. "$ROOT/tests/gdb/helpers.inc"
need_gdb
T=$SHARED/traces/TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz
if [ ! -f "$T" ]; then
	echo "1..0 # SKIP $T absent (../shared is not beside the checkout)"
	exit 0
fi

gdbx -ex "tlreplay open $T" -ex 'tlreplay list addmm -n 3'
has 'Opened ' && has '2551 events' && grep -qE '^ +48 +1\.394 +39\.420 us +19392 +aten::addmm \(c10::BFloat16\[512\], c10::BFloat16\[141, 512\], c10::BFloat16\[512, 512\]\{1, 512\}, 1, 1\)' "$TMP/out" &&
	has '... 23 more'
check $? "open and list: UIDs, start, duration, thread, recorded arguments"

gdbx -ex "tlreplay open $T" -ex 'tlreplay select 48'
grep -qE '^#0  48 +aten::addmm \(.*\)  39\.420 us  \[cpu_op, tid 19392\]$' "$TMP/out"
check $? "select 48 prints its frame line"

gdbx -ex "tlreplay open $T" -ex 'tlreplay select 48' -ex 'tlreplay info'
has 'UID 48: aten::addmm  [cpu_op]' && has 'call 1 of 26 to aten::addmm on this thread' &&
	has 'called from aten::linear (42)' && has 'calls    aten::empty (49), cudaDeviceGetAttribute (2141), cudaMemsetAsync (2143), cuLaunchKernel (2147)' &&
	has 'schema   aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor' &&
	has 'arg      mat2: Tensor = Tensor[512, 512] c10::BFloat16 strides [1, 512]' &&
	has 'GPU      1 event below it, 5.824 us in all:' && has 'grid [40, 2, 1] block [128, 1, 1]'
check $? "info: thread ordinal, callers, callees, IR, the GPU kernel"

gdbx -ex "tlreplay open $T" -ex 'tlreplay select 48' -ex 'tlreplay up' -ex 'tlreplay down' \
	-ex 'tlreplay down' -ex 'tlreplay next' -ex 'tlreplay next 2' -ex 'tlreplay down' \
	-ex 'tlreplay bt'
sed -n 's/^\(#[0-9]*\) *\([0-9]*\) *\([^ ]*\).*/\1 \2 \3/p' "$TMP/out" >"$TMP/moves"
diag "$(cat "$TMP/moves")"
[ "$(head -7 "$TMP/moves" | tr '\n' ' ')" = "#0 48 aten::addmm #1 42 aten::linear #0 48 aten::addmm #0 49 aten::empty #0 2141 cudaDeviceGetAttribute #0 2147 cuLaunchKernel #0 2145 void " ]
check $? "up, down, next, next 2, down (to the kernel)"
has ' #1  2147   cuLaunchKernel' && grep -q '^\*#0  2145' "$TMP/out" && has ' #3  42     aten::linear'
check $? "bt shows the path, the selected event marked"

gdbx -ex "tlreplay open $T" -ex 'tlreplay select 49' -ex 'tlreplay prev'
[ "$RC" -eq 1 ] && has 'UID 49 is the first call of its parent' && clean
ok $? "prev at the first callee is a one-line error"

gdbx -ex "tlreplay open $T" -ex 'tlreplay select 42' -ex 'tlreplay next' -ex 'tlreplay prev'
grep -qE '^#0  51 +aten::view' "$TMP/out" && grep -qE '^#0  42 +aten::linear' "$TMP/out"
check $? "next/prev at the root of a thread go to the next/previous root"

if ! "$PYTHON" -c 'import torch' >/dev/null 2>&1; then
	skip "$PYTHON has no torch: replay and stat not tested"
	done_testing
fi

gdbx -ex "tlreplay open $T" -ex 'tlreplay select 48' -ex 'set tlreplay verbose on' -ex 'tlreplay replay -r 3'
[ "$RC" -eq 0 ] && has "+ $TLREPLAY uid -i " && has " -r 3 --device cpu --warmup 10 --no-store 48" &&
	has 'UID 48: aten::addmm' && has '(3 timed calls after 10 warm-up)' && has 'result Tensor[141, 512] bfloat16'
check $? "replay -r 3 runs tlreplay uid and prints its output"

gdbx -ex "tlreplay open $T" -ex 'tlreplay select 48' -ex 'set tlreplay iterations 5' \
	-ex 'tlreplay stat -e task-clock,page-faults'
[ "$RC" -eq 0 ] && has 'task-clock' && has 'page-faults' && has '5 calls per run'
check $? "stat -e task-clock,page-faults counts the timed replay"
done_testing
