#!/bin/sh
# Ops of another backend on the CPU (issue 29.4): a ROCm trace's aten::miopen_convolution and a
# CUDA trace's aten::cudnn_convolution replay as aten::convolution with the same arguments,
# flash and memory-efficient attention as the math of attention, each saying so; an op with
# neither a kernel here nor a stand-in is unavailable in one short line that names --alias,
# and --alias applies to it.
. "$(dirname "$0")/../taplib.sh"

use_torch_worker
tl() { "$TLREPLAY" "$@"; }

"$PYTHON" - "$TMP/t.json" <<'PY'
import json, sys
ops = [
    # name, Input Dims, Input type, Concrete Inputs
    ("aten::miopen_convolution", [[2, 8, 14, 14], [16, 8, 3, 3], [], [], [], [], [], [], []],
     ["c10::BFloat16", "c10::BFloat16", "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "Scalar", "Scalar"],
     ["", "", "", "[1, 1]", "[2, 2]", "[1, 1]", "1", "False", "False"]),
    ("aten::cudnn_convolution", [[2, 8, 14, 14], [16, 8, 3, 3], [], [], [], [], [], [], []],
     ["float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar", "Scalar", "Scalar", "Scalar"],
     ["", "", "[1, 1]", "[1, 1]", "[1, 1]", "1", "False", "False", "True"]),
    ("aten::_scaled_dot_product_flash_attention", [[2, 4, 16, 32], [2, 4, 16, 32], [2, 4, 16, 32], [], [], []],
     ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar", "Scalar"],
     ["", "", "", "0.", "True", "False"]),
    ("aten::_flash_attention_forward", [[2, 16, 4, 32], [2, 16, 2, 32], [2, 16, 2, 32], [], [], [], [], [], [], []],
     ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "", "", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar"],
     ["", "", "", "", "", "16", "16", "0.", "True", "False"]),
    ("aten::cudnn_batch_norm", [[4, 8, 6, 6], [8], [8], [8], [8], [], [], []],
     ["float", "float", "float", "float", "float", "Scalar", "Scalar", "Scalar"],
     ["", "", "", "", "", "False", "0.1", "1e-05"]),
]
ev = []
for i, (name, dims, types, conc) in enumerate(ops):
    ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": 100 * i, "dur": 50,
               "args": {"Input Dims": dims, "Input type": types, "Concrete Inputs": conc}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
T=$TMP/t.json
run tl uid -i "$T" 0 -r 2 --warmup 0
[ "$RC" -eq 0 ] && grep -q '^  note   aten::miopen_convolution has no cpu kernel in torch .*: replayed as aten::convolution with the same arguments' "$TMP/out" &&
	grep -q '^  result Tensor\[2, 16, 7, 7\] bfloat16$' "$TMP/out"
ok $? "aten::miopen_convolution on the CPU: replayed as aten::convolution, said; stride 2 gives [2, 16, 7, 7]"
[ "$RC" -eq 0 ] || diag "$(cat "$TMP/out" "$TMP/err")"
run tl uid -i "$T" 1 -r 2 --warmup 0
[ "$RC" -eq 0 ] && grep -q 'aten::cudnn_convolution has no cpu kernel .*replayed as aten::convolution' "$TMP/out" &&
	grep -q '^  result Tensor\[2, 16, 14, 14\] float32$' "$TMP/out"
ok $? "aten::cudnn_convolution on the CPU: the same, padding 1 keeps 14x14"
run tl uid -i "$T" 2 -r 2 --warmup 0
[ "$RC" -eq 0 ] && grep -q 'aten::_scaled_dot_product_flash_attention .*replayed as attention math' "$TMP/out" &&
	grep -q '^  result Tensor\[2, 4, 16, 32\] bfloat16$' "$TMP/out"
ok $? "flash SDPA on the CPU: the math of attention, [B, H, L, D] out"
run tl uid -i "$T" 3 -r 2 --warmup 0
[ "$RC" -eq 0 ] && grep -q 'aten::_flash_attention_forward .*replayed as attention math' "$TMP/out" &&
	grep -q '^  result Tensor\[2, 16, 4, 32\] bfloat16$' "$TMP/out"
ok $? "_flash_attention_forward ([B, L, H, D], 2 KV heads for 4: grouped-query) on the CPU: the math"
run tl uid -i "$T" 4 -r 2 --warmup 0
[ "$RC" -ne 0 ] && [ "$(grep -c 'cudnn_batch_norm has no cpu kernel' "$TMP/out")" = 1 ] &&
	grep -q 'an op of another backend): replay it on the device it ran on, or give --alias aten::cudnn_batch_norm=OTHER' "$TMP/out" &&
	! grep -q 'This could be because' "$TMP/out" "$TMP/err" && [ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$TMP/out")" -lt 300 ]
ok $? "no kernel and no stand-in: unavailable, in one short line naming --alias (not torch's 600 characters)"
if command -v script >/dev/null 2>&1; then
	script -qec "$TLREPLAY uid -i $T 4 -r 2 --warmup 0" "$TMP/tty" >/dev/null 2>&1
	[ "$(grep -c 'has no cpu kernel' "$TMP/tty")" = 1 ] && grep -q 'replay unavailable (why: above)' "$TMP/tty"
	ok $? "on a terminal the reason shows once (stderr points above)"
else
	skip "no script(1) for a terminal"
fi
run tl uid -i "$T" 4 -r 2 --warmup 0 --alias aten::cudnn_batch_norm=aten::native_batch_norm
[ "$RC" -eq 0 ] && grep -q 'aten::cudnn_batch_norm has no cpu kernel: replayed as its alias aten::native_batch_norm' "$TMP/out"
ok $? "--alias applies to an op that has no kernel here (cudnn_batch_norm as native_batch_norm)"
# pack (issue 29.4): a selection takes what runs on the CPU here, a stand-in counting as running
# and named in the README; the op with neither is left out with why
run tl pack -i "$T" -o "$TMP/p.zip" --filter 'convolution|batch_norm'
mkdir "$TMP/pk" && "$PYTHON" -m zipfile -e "$TMP/p.zip" "$TMP/pk"
R=$TMP/pk/p/README.md
[ "$RC" -eq 0 ] && grep -q '^| 0 | `aten::miopen_convolution` | 0 | 0.000 | yes, as aten::convolution |$' "$R" &&
	grep -q '^| 1 | `aten::cudnn_convolution` | 1 | 0.000 | yes, as aten::convolution |$' "$R" && ! grep -q 'cudnn_batch_norm' "$R" &&
	grep -q '^tlreplay: pack: left out UID 4 aten::cudnn_batch_norm: it does not run on cpu here: aten::cudnn_batch_norm has no cpu kernel' "$TMP/err" &&
	grep -q '^tlreplay: pack: 2 entries to .*p.zip.*; left out 1: 1 that does not run on cpu here$' "$TMP/err"
ok $? "pack of another backend's ops: the stand-ins' ops packed and named, the op without one left out"
[ "$RC" -eq 0 ] || diag "$(cat "$TMP/err" "$R")"
# the stand-ins compute what the op computes: attention math against torch's own SDPA
PYTHONPATH=$ROOT/core/replay "$PYTHON" -c '
import torch
from tlreplay_replay import portable
q, k, v = (torch.randn(2, 4, 8, 16) for _ in range(3))
_, fn = portable.stand_in("aten::_scaled_dot_product_flash_attention")
s = torch.softmax(q @ k.transpose(-2, -1) / 4.0 + torch.full((8, 8), float("-inf")).triu(1), -1) @ v
assert torch.allclose(fn(q, k, v, 0.0, True), s, atol=1e-5)
x, w = torch.randn(1, 3, 9, 9), torch.randn(5, 3, 3, 3)
_, conv = portable.stand_in("aten::miopen_convolution")
assert torch.allclose(conv(x, w, None, [1, 1], [2, 2], [1, 1], 1, False, False),
                      torch.nn.functional.conv2d(x, w, None, 2, 1), atol=1e-5)
'
ok $? "the stand-ins compute the op: causal attention and a strided convolution against torch's"

done_testing
