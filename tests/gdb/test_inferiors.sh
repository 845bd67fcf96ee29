#!/bin/sh
# tlreplay here / break on small inferiors built here with -g: a C program with no op on its
# stack (and a stand-in cudaLaunchKernel), a C++ program whose frames are named as
# libtorch's (at::_ops::addmm::call -> at::native::addmm_out_cpu -> cudaLaunchKernel), and
# the tlreplay command itself stopped in the middle of `tlreplay uid`.
. "$(dirname "$0")/../taplib.sh"
. "$ROOT/tests/gdb/helpers.inc"
need_gdb
INF=$ROOT/tests/gdb/inferiors
CC=${CC:-cc}
CXX=${CXX:-c++}

# the C program: no op on the stack
if $CC -g -O0 -o "$TMP/plain" "$INF/plain.c" 2>"$TMP/cc.err"; then
	gdbx -ex "tlreplay open $ROOT/tests/fixtures/mini.json" -ex 'break work' -ex run -ex 'tlreplay here' "$TMP/plain"
	[ "$RC" -eq 1 ] && has 'No PyTorch op on the stack (looked for at::_ops::<op>::call' && clean
	check $? "C program: here with no op on the stack is a one-line error"

	gdbx -ex "tlreplay open $ROOT/tests/fixtures/mini.json" -ex 'break cudaLaunchKernel' -ex run \
		-ex 'tlreplay here' "$TMP/plain"
	[ "$RC" -eq 1 ] && has 'Frame #0 is a kernel launch (cudaLaunchKernel), but no PyTorch op frame is above it.' && clean
	check $? "C program: a kernel launch with no op above it"

	gdbx -ex 'break work' -ex run -ex 'tlreplay here' "$TMP/plain"
	[ "$RC" -eq 1 ] && has 'No trace open' && clean
	check $? "C program: here without a trace"
else
	skip "no C compiler: $(head -1 "$TMP/cc.err")"
fi

# the C++ program named like libtorch, against a trace of four addmm calls and an add
cat >"$TMP/fake.json" <<'JSON'
{"traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
 "args": {"Input Dims": [[4], [8, 16], [16, 4], [], []], "Input type": ["float", "float", "float", "Scalar", "Scalar"],
          "Input Strides": [[1], [16, 1], [4, 1], [], []], "Concrete Inputs": ["", "", "", "1", "1"]}},
{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 20, "dur": 5,
 "args": {"Input Dims": [[4], [8, 16], [16, 4], [], []], "Input type": ["float", "float", "float", "Scalar", "Scalar"],
          "Input Strides": [[1], [16, 1], [4, 1], [], []], "Concrete Inputs": ["", "", "", "1", "1"]}},
{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 30, "dur": 5,
 "args": {"Input Dims": [[4], [2, 16], [16, 4], [], []], "Input type": ["float", "float", "float", "Scalar", "Scalar"],
          "Input Strides": [[1], [16, 1], [4, 1], [], []], "Concrete Inputs": ["", "", "", "1", "1"]}},
{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 2, "ts": 35, "dur": 5,
 "args": {"Input Dims": [[4], [9, 16], [16, 4], [], []], "Input type": ["float", "float", "float", "Scalar", "Scalar"],
          "Input Strides": [[1], [16, 1], [4, 1], [], []], "Concrete Inputs": ["", "", "", "1", "1"]}},
{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 40, "dur": 5,
 "args": {"Input Dims": [[4], [2, 16], [16, 4], [], []], "Input type": ["float", "float", "float", "Scalar", "Scalar"],
          "Input Strides": [[1], [16, 1], [1, 16], [], []], "Concrete Inputs": ["", "", "", "1", "1"]}},
{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 50, "dur": 5,
 "args": {"Input Dims": [[], [], []], "Input type": ["float", "Scalar", "Scalar"],
          "Input Strides": [[], [], []], "Concrete Inputs": ["", "1", "1"]}}
]}
JSON
if $CXX -g -O0 -o "$TMP/fake" "$INF/fake_torch.cc" 2>"$TMP/cxx.err"; then
	# UID 2 is the 3rd addmm of the main thread (UID 3 ran on another thread)
	gdbx -ex "tlreplay open $TMP/fake.json" -ex 'tlreplay break 2' -ex run -ex 'print n' "$TMP/fake"
	has 'stop at call 3 of aten::addmm on the main thread (UID 2)' &&
		has 'tlreplay: call 3 of aten::addmm on thread 1, UID 2 in the trace.' && has '$1 = 2'
	check $? "C++ program: tlreplay break UID stops at that call (the 3rd)"

	gdbx -ex "tlreplay open $TMP/fake.json" -ex 'tlreplay break aten::addmm' -ex 'break cudaLaunchKernel' \
		-ex run -ex continue -ex continue -ex continue -ex 'tlreplay here -l' "$TMP/fake"
	has 'The program is in aten::addmm: frame #1 at::native::addmm_out_cpu (native kernel).' &&
		has 'It is launching a GPU kernel (frame #0 cudaLaunchKernel).' &&
		has "Shapes come from the trace: the op's frame is not the innermost one" &&
		has 'This is call 2 of aten::addmm on thread 1 (counted by tlreplay break): UID 1 in the trace.' &&
		has 'Picked UID 1 (the call ordinal).' && [ "$RC" -eq 0 ]
	check $? "C++ program: here from a kernel launch names the op above it, the ordinal picks the UID"

	gdbx -ex "tlreplay open $TMP/fake.json" -ex 'tlreplay break add.Tensor' -ex run -ex 'tlreplay here -l' "$TMP/fake"
	has 'The program is in aten::add.Tensor: frame #0 at::_ops::add_Tensor::call (dispatcher entry).' &&
		has 'Shapes come from the trace: the argument registers do not point to tensors' &&
		has 'Picked UID 5 (the only argument set).' && [ "$RC" -eq 0 ] && clean
	check $? "C++ program: no tensors in the registers: shapes from the trace"

	gdbx -ex "tlreplay open $TMP/fake.json" -ex 'tlreplay break aten::addmm' -ex run -ex 'tlreplay here -l 3' "$TMP/fake"
	has 'Picked UID 3 ([3], as asked).'
	check $? "C++ program: here N picks argument set N"

	env -u PYTHONHOME -u PYTHONPATH gdb -nx --batch -x "$ROOT/gdb/tlreplay.py" -x "$ROOT/gdb/tlreplay.py" \
		-ex "set tlreplay library $LIBSO" -ex "tlreplay open $TMP/fake.json" -ex 'tlreplay break 1' \
		-ex run "$TMP/fake" </dev/null >"$TMP/out" 2>&1
	[ "$(grep -c 'tlreplay: call 2 of aten::addmm' "$TMP/out")" -eq 1 ]
	check $? "sourced twice: one stop message per stop"
else
	skip "no C++ compiler: $(head -1 "$TMP/cxx.err")"
fi

# the tlreplay command itself, stopped while it prepares `tlreplay uid 5`
FIX=$ROOT/tests/fixtures/replay.json
gdbx -ex 'break uid_job_prepare' -ex run -ex 'tlreplay here -l' --args "$TLREPLAY" uid -i "$FIX" --no-store -r 2 5
has 'Opened ' && has 'the trace of the tlreplay process.' &&
	has 'The program is tlreplay uid, on UID 5: aten::addmm (its argument uid_str of uid_job_prepare).' &&
	[ "$RC" -eq 0 ] && clean
check $? "tlreplay stopped in uid_job_prepare: here takes its trace and UID"

if "$PYTHON" -c 'import torch' >/dev/null 2>&1; then
	gdbx -ex 'set tlreplay iterations 2' -ex 'break tl_worker_request' -ex run -ex 'tlreplay here' \
		--args "$TLREPLAY" uid -i "$FIX" --no-store -r 2 5
	has 'The program is tlreplay uid, on UID 5: aten::addmm (its variable job.uid in cmd_uid).' &&
		has 'UID 5: aten::addmm' && has '(2 timed calls after 10 warm-up)' && [ "$RC" -eq 0 ]
	check $? "tlreplay stopped talking to its worker: here replays its UID in another process"
else
	skip "$PYTHON has no torch"
fi
done_testing
