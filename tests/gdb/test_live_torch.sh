#!/bin/sh
# tlreplay here / tlreplay break on a live PyTorch program: /usr/bin/python3 running
# tests/gdb/inferiors/addmm_model.py (Debian's torch, no debug info) under gdb. The realistic
# flow: profile the program (record_shapes), then debug it against its own trace: stopped at
# `break at::_ops::addmm::call`, `tlreplay here` names aten::addmm, reads the tensors from
# memory, finds the matching events and replays one. Then against a real trace with other
# shapes (../shared), where the user picks an argument set.
. "$(dirname "$0")/../taplib.sh"
. "$ROOT/tests/gdb/helpers.inc"
need_gdb
if ! "$PYTHON" -c 'import torch' >/dev/null 2>&1; then
	echo "1..0 # SKIP $PYTHON has no torch"
	exit 0
fi
MODEL=$ROOT/tests/gdb/inferiors/addmm_model.py
TRACE=$TMP/model.json

"$PYTHON" "$MODEL" "$TRACE" >"$TMP/prof.out" 2>&1
[ -s "$TRACE" ] && "$TLREPLAY" list -i "$TRACE" -j 'aten::addmm' >"$TMP/addmm" 2>&1 &&
	[ "$(wc -l <"$TMP/addmm")" -eq 4 ]
st=$?
ok $st "profile the program: a trace with its four aten::addmm calls"
[ $st -eq 0 ] || diag "$(cat "$TMP/prof.out" "$TMP/addmm")"
uid_n() { sed -n "${1}p" "$TMP/addmm" | sed 's/.*"uid":\([0-9]*\).*/\1/'; }
U1=$(uid_n 1)
U4=$(uid_n 4)

# 1. the user's own breakpoint, tlreplay here picks the argument set the live tensors match
gdbx -ex "tlreplay open $TRACE" -ex 'set tlreplay iterations 3' -ex 'set breakpoint pending on' \
	-ex 'break at::_ops::addmm::call' -ex run -ex 'tlreplay here' --args "$PYTHON" "$MODEL"
has 'The program is in aten::addmm: frame #0 at::_ops::addmm::call'
check $? "here names aten::addmm from the at::_ops::addmm::call frame"
has 'Live arguments (read from the program'"'"'s memory): self float[4], mat1 float[8, 16], mat2 float[16, 4].'
check $? "here reads the tensor arguments from the program's memory"
has 'aten::addmm in model.json: 4 calls, 3 distinct argument sets:' &&
	grep -qE "^  \[1\] 2 calls +UIDs $U1, .*<- matches the live arguments" "$TMP/out" &&
	has "Picked UID $U1 (the argument set that matches the live arguments)."
check $? "here groups the trace's calls and picks the match"
[ "$RC" -eq 0 ] && has "UID $U1: aten::addmm" && has '(3 timed calls after 10 warm-up)' && clean
check $? "here replays the picked UID"

# 2. tlreplay break UID stops at that call (the 4th, inside aten::linear)
gdbx -ex "tlreplay open $TRACE" -ex "tlreplay break $U4" -ex run -ex 'bt 2' -ex 'tlreplay here -l' \
	--args "$PYTHON" "$MODEL"
has "stop at call 4 of aten::addmm on the main thread (UID $U4)" && has '(pending: libtorch is not loaded yet)'
check $? "break UID: pending breakpoints at the op's entry points"
grep -q '^#1 .* in at::native::linear' "$TMP/out"
check $? "break UID stops at the 4th call, the one from aten::linear"
has "tlreplay: call 4 of aten::addmm on thread 1, UID $U4 in the trace." &&
	has "This is call 4 of aten::addmm on thread 1 (counted by tlreplay break): UID $U4 in the trace." &&
	has 'mat2 float[16, 4]{1, 16}' && grep -qE "UID $U4 .*<- matches the live arguments; call 4 is UID $U4" "$TMP/out" &&
	has "Picked UID $U4 (the call ordinal)." && [ "$RC" -eq 0 ] && clean
check $? "here picks that call's UID by its ordinal (and its shapes agree)"

# 3. a trace of another run (BERT on a GPU): no argument set matches, the user picks one
T=$SHARED/traces/TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz
if [ -f "$T" ]; then
	gdbx -ex "tlreplay open $T" -ex 'set tlreplay iterations 3' -ex 'set breakpoint pending on' \
		-ex 'break at::_ops::addmm::call' -ex run -ex 'tlreplay here' -ex 'tlreplay here 2' \
		--args "$PYTHON" "$MODEL"
	has 'aten::addmm in gaunernst_bert-small-uncased__1016001.json.gz: 26 calls' &&
		has 'Pick one: tlreplay here N' && grep -q '^  \[2\] .*c10::BFloat16\[2048\]' "$TMP/out" &&
		has 'Picked UID 123 ([2], as asked).' && has 'UID 123: aten::addmm' && [ "$RC" -eq 0 ]
	check $? "another trace: here lists its argument sets, here 2 replays the second"
else
	skip "$T absent (../shared is not beside the checkout)"
fi
done_testing
