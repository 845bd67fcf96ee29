#!/bin/sh
# tlreplay ir, uid, replay and pack end to end on tests/fixtures/replay.json: the C
# side (selection, schemas, IR, worker management, output, exit status) with the
# real worker and Debian's torch. Custom ops come from tests/replay/tlcli_ops.py
# (torch.library), an initializer from tests/replay/init_plugin.py.
. "$(dirname "$0")/../taplib.sh"

if ! "$PYTHON" -c 'import torch' >/dev/null 2>&1; then
	echo "1..0 # SKIP $PYTHON has no torch"
	exit 0
fi
export TLREPLAY_PYTHON="$PYTHON"
F=$ROOT/tests/fixtures/replay.json
NS="--namespace tltest=$ROOT/tests/replay/tlcli_ops.py"
PLUGIN=$ROOT/tests/replay/init_plugin.py
tl() { "$TLREPLAY" "$@"; }
# py EXPR: evaluate a Python expression over J = the JSON in $TMP/out, L = its lines as JSON
py() {
	"$PYTHON" - "$TMP/out" "$1" <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
try:
    J = json.loads(text)
except ValueError:
    J = None
L = []
for line in text.splitlines():
    try:
        L.append(json.loads(line))
    except ValueError:
        pass
L = [x for x in L if isinstance(x, dict)]
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)
EOF
}
one_line_err() { [ "$(wc -l <"$TMP/err")" -eq 1 ]; }

# ---------------------------------------------------------------- ir
run tl ir -i "$F" 0
[ "$RC" -eq 0 ] && py 'len(J) == 1 and J[0]["op_name"] == "aten::addmm" and J[0]["uid"] == 0 and
	J[0]["schema"].startswith("aten::addmm(Tensor self, Tensor mat1, Tensor mat2") and
	J[0]["overload"] == "" and J[0]["trace_dur_us"] == 20 and J[0]["gpu_time_us"] == 5 and
	J[0]["kernels"] == [{"name": "gemm_kernel_sm90", "dur": 5, "grid": [1, 1, 1], "block": [128, 1, 1]}] and
	J[0]["source"]["tlreplay"] and "replay.json" in J[0]["source"]["trace"]'
ok $? "ir UID: one entry with uid, schema, overload, trace_dur_us, gpu_time_us, kernels, source"
py '[a["arg_name"] for a in J[0]["replay_ir"]["list_pos_args"]] == ["self", "mat1", "mat2"] and
	J[0]["replay_ir"]["list_pos_args"][1]["value"] == {"shape": [3, 8], "dtype": "float", "strides": [8, 1], "init": "normal"} and
	[(a["arg_name"], a["value"]) for a in J[0]["replay_ir"]["list_kwargs"]] == [("beta", 1), ("alpha", 1)]'
ok $? "ir: TraceLens's replay_ir layout (list_pos_args, list_kwargs, tensors {shape,dtype,strides,init})"

run tl ir -i "$F" --launchers --unique --no-torch
[ "$RC" -eq 0 ] && py 'J[0]["op_name"] != "" and
	[(e["op_name"], e["count"], e["uids"]) for e in J if e["op_name"] == "aten::addmm"] == [("aten::addmm", 2, [0, 5])] and
	sum(e["count"] for e in J) == len(J) + 1'
ok $? "ir --launchers --unique: the two identical addmm calls are one entry with count 2 and both uids"
grep -q "left out 1: 1 without recorded shapes" "$TMP/err"
ok $? "ir: what was left out and why is said on stderr ($(cat "$TMP/err"))"

run tl ir -i "$F" --top 1 --no-torch
[ "$RC" -eq 0 ] && py 'len(J) == 1 and J[0]["uid"] == 30'
ok $? "ir --top 1: the op with the most GPU time (aten::mm, 900 us)"
run tl ir -i "$F" --filter '^aten::(addmm|mm)$' --no-torch
[ "$RC" -eq 0 ] && py '[e["uid"] for e in J] == [0, 5, 30]'
ok $? "ir --filter REGEX: matching ops in trace order"

run tl ir -i "$F" 20 --no-torch
[ "$RC" -eq 0 ] && py 'J[0].get("schemaless") is True and J[0]["replay_ir"]["list_pos_args"][1]["value"] == 2.5'
ok $? "ir: an op unknown to the snapshot is schemaless, typed from the profile"
run tl ir -i "$F" 20 $NS
[ "$RC" -eq 0 ] && py 'J[0]["schema"] == "tltest::scale(Tensor x, float s) -> Tensor" and "schemaless" not in J[0]'
ok $? "ir --namespace: the live registry knows the torch.library op (schema from the worker)"
run tl ir -i "$F" 20 --no-torch --strict
[ "$RC" -eq 1 ] && grep -q "tltest::scale is not in the schema database" "$TMP/err" && one_line_err && [ ! -s "$TMP/out" ]
ok $? "ir --strict: no schemaless entry; one line, nothing written"

run tl ir -i "$F" 35
[ "$RC" -eq 1 ] && grep -q "no recorded shapes" "$TMP/err" && one_line_err
ok $? "ir of an op without shapes: one line naming the cause"
run tl ir -i "$F" 12345
[ "$RC" -eq 1 ] && grep -q "no event with UID 12345" "$TMP/err" && one_line_err
ok $? "ir of an unknown UID: one line"
run tl ir -i "$F" 0 --top 3
[ "$RC" -eq 1 ] && grep -q "not both" "$TMP/err"
ok $? "ir: UIDs and a selection together are refused"
run tl ir -i "$F" 0 -o "$TMP/nodir/x.json"
[ "$RC" -eq 1 ] && [ ! -e "$TMP/nodir/x.json" ] && one_line_err
ok $? "ir -o into a missing directory: one line, nothing written"

# ---------------------------------------------------------------- uid
run tl uid -i "$F" 0 -r 5 --warmup 2
[ "$RC" -eq 0 ] && grep -q "^UID 0: aten::addmm" "$TMP/out" && grep -q "arg mat1  = Tensor\[3, 8\] float strides \[8,1\]" "$TMP/out" &&
	grep -q "time   median .* (5 timed calls after 2 warm-up)" "$TMP/out" && grep -q "result Tensor\[3, 4\] float32" "$TMP/out"
ok $? "uid: arguments, times and result"
run tl uid -i "$F" 0 -r 5 -j
[ "$RC" -eq 0 ] && py 'len(L) == 1 and L[0]["status"] == "ok" and L[0]["iters"] == 5 and L[0]["uid"] == 0 and
	L[0]["min_us"] <= L[0]["median_us"] <= L[0]["max_us"] and L[0]["trace_gpu_us"] == 5'
ok $? "uid -j: status ok, 5 iterations, median within min..max"
run tl uid -i "$F" 10 -r 3 -j
[ "$RC" -eq 0 ] && py 'L[0]["status"] == "ok"'
ok $? "uid: aten::embedding replays (indices bounded by the table's rows)"
run tl uid -i "$F" 20 -r 3 -j $NS
[ "$RC" -eq 0 ] && py 'L[0]["status"] == "ok" and L[0]["result"] == "Tensor[5] float32"'
ok $? "uid: a torch.library custom op replays with --namespace"
run tl uid -i "$F" 45 -r 3 -j $NS --init-plugin "$PLUGIN"
[ "$RC" -eq 0 ] && py 'L[0]["status"] == "ok" and any("checkfill-init" in i for i in L[0]["init"])'
ok $? "uid --init-plugin: the plugin's initializer fills the argument"
run tl uid -i "$F" 45 -r 3 -j $NS
[ "$RC" -eq 1 ] && py 'L[0]["status"] == "failed" and "not filled" in L[0]["error"]'
ok $? "uid without the plugin: the op fails, status failed, exit 1"
run tl uid -i "$F" 25 -r 3 $NS
[ "$RC" -eq 1 ] && grep -q "killed by signal 6" "$TMP/err" && grep -q 'tlcli_ops.py", line' "$TMP/err" && one_line_err
ok $? "uid of an op that aborts: reported with the signal and the frame, exit 1"
run tl uid -i "$F" 30 -j
[ "$RC" -eq 1 ] && py 'L[0]["status"] == "failed" and L[0]["kind"] == "memory" and "GiB" in L[0]["error"]'
ok $? "uid of an op too big for memory: refused before allocating (kind memory)"
run tl uid -i "$F" 40 -j
[ "$RC" -eq 1 ] && py 'L[0]["status"] == "unavailable" and "not in torch" in L[0]["error"]'
ok $? "uid of an op this torch lacks: status unavailable, exit 1"
if "$PYTHON" -c 'import torch, sys; sys.exit(torch.cuda.is_available())'; then
	run tl uid -i "$F" 0 --device cuda
	[ "$RC" -eq 1 ] && grep -q "sees no CUDA" "$TMP/err" && one_line_err
	ok $? "uid --device cuda without a GPU: one line naming the interpreter"
else
	skip "this machine has a GPU: --device cuda is tested by the GPU runs"
fi
run tl uid -i "$F" 0 --python "$TMP/nonexistent"
[ "$RC" -eq 1 ] && grep -q "$TMP/nonexistent: no such Python interpreter" "$TMP/err" && one_line_err
ok $? "uid --python PATH that does not exist: one line"
printf '#!/bin/sh\nexec %s -S "$@"\n' "$PYTHON" >"$TMP/notorch" && chmod +x "$TMP/notorch"
run env TLREPLAY_PYTHON="$TMP/notorch" "$TLREPLAY" uid -i "$F" 0
[ "$RC" -eq 1 ] && grep -q "$TMP/notorch cannot replay: torch cannot be imported" "$TMP/err" && one_line_err
ok $? "TLREPLAY_PYTHON without torch: one line naming the interpreter and the import error"
run tl uid -i "$F" 0 --device tpu
[ "$RC" -eq 1 ] && grep -q "neither cpu nor cuda" "$TMP/err"
ok $? "uid --device with an unknown device: refused"

# ---------------------------------------------------------------- replay
run tl ir -i "$F" -o "$TMP/all.json" $NS 0 10 15 20 25 30 40 45
[ "$RC" -eq 0 ] && [ -s "$TMP/all.json" ]
ok $? "ir -o: eight entries written"
run tl replay "$TMP/all.json" -r 3 --warmup 1 $NS --init-plugin "$PLUGIN"
[ "$RC" -eq 1 ] && grep -q "^entries in file *8$" "$TMP/out" && grep -q "^attempted *8$" "$TMP/out" &&
	grep -q "^ok *5$" "$TMP/out" && grep -q "^failed *2$" "$TMP/out" && grep -q "^unavailable *1$" "$TMP/out"
ok $? "replay: summary 8 entries, 8 attempted, 5 ok, 2 failed (abort, memory), 1 unavailable; exit 1"
grep -q "^\[8/8\] tltest::checkfill" "$TMP/out" && grep -q "killed by signal 6" "$TMP/out"
ok $? "replay: the batch goes on after the op that killed the worker"
run tl replay "$TMP/all.json" -r 3 --warmup 1 -j $NS --init-plugin "$PLUGIN"
py '[l["status"] for l in L] == ["ok", "ok", "ok", "ok", "failed", "failed", "unavailable", "ok"] and
	[l["index"] for l in L] == list(range(8)) and all("error" in l for l in L if l["status"] != "ok")'
ok $? "replay -j: one object per entry with status and, when not ok, the reason"
grep -q "8 entries, 8 attempted: 5 ok, 2 failed, 1 unavailable" "$TMP/err"
ok $? "replay -j: the summary on stderr"
run tl replay "$TMP/all.json" -r 2 --warmup 0 --op-filter aten:: --op-limit 2
[ "$RC" -eq 0 ] && grep -q "^matching 'aten::' *4$" "$TMP/out" && grep -q "^attempted *2$" "$TMP/out" &&
	grep -q "^\[2/2\] aten::embedding" "$TMP/out"
ok $? "replay --op-filter/--op-limit: 4 match, 2 attempted"
run tl replay "$TMP/all.json" -r 2 --warmup 0 --stop-on-error $NS --init-plugin "$PLUGIN"
[ "$RC" -eq 1 ] && grep -q "^attempted *5$" "$TMP/out"
ok $? "replay --stop-on-error: stops at the first failure (the 5th entry)"

# a file in TraceLens's own format: no tlreplay keys
cat >"$TMP/tracelens.json" <<'EOF'
[{"op_name": "aten::mm", "replay_ir": {"list_pos_args": [
  {"arg_name": "self", "arg_type": "Tensor", "value": {"shape": [16, 32], "dtype": "c10::BFloat16", "strides": [32, 1], "init": "normal"}},
  {"arg_name": "mat2", "arg_type": "Tensor", "value": {"shape": [32, 8], "dtype": "c10::BFloat16", "strides": [1, 32], "init": "normal"}}],
  "list_kwargs": []}}]
EOF
run tl replay "$TMP/tracelens.json" -r 2 -j
[ "$RC" -eq 0 ] && py 'L[0]["status"] == "ok" and L[0]["result"] == "Tensor[16, 8] bfloat16"'
ok $? "replay reads TraceLens's IR files"
gzip -c "$TMP/tracelens.json" >"$TMP/tracelens.json.gz"
run tl replay "$TMP/tracelens.json.gz" -r 2 -j
[ "$RC" -eq 0 ]
ok $? "replay reads gzipped IR files"
head -c 200 "$TMP/tracelens.json" >"$TMP/trunc.json"
run tl replay "$TMP/trunc.json"
[ "$RC" -eq 1 ] && grep -q "trunc.json: not valid JSON" "$TMP/err" && one_line_err
ok $? "replay of a truncated IR file: one line"
echo '{"op_name": "aten::mm"}' >"$TMP/obj.json"
run tl replay "$TMP/obj.json"
[ "$RC" -eq 1 ] && grep -q "not a replay IR file" "$TMP/err"
ok $? "replay of a JSON object instead of a list: one line"

# ---------------------------------------------------------------- pack
run tl pack -i "$F" -o "$TMP/ops.zip" --init-plugin "$PLUGIN" 0 10 15
# replay.py is core/replay/tlreplay_worker.py, which imports its package from beside it
want=$( (printf 'ops/%s\n' README.md ir.json plugins/init_plugin.py replay.py
	cd "$ROOT/core/replay" && printf 'ops/%s\n' tlreplay_replay/*.py) | sort | tr '\n' ' ')
listing=$("$PYTHON" -m zipfile -l "$TMP/ops.zip" | awk 'NR > 1 { print $1 }' | sort | tr '\n' ' ')
[ "$RC" -eq 0 ] && "$PYTHON" -m zipfile -t "$TMP/ops.zip" >/dev/null && [ "$listing" = "$want" ]
rc=$?
ok $rc "pack: a valid zip with README.md, ir.json, replay.py, its package and the plugin"
mkdir "$TMP/unpacked" && "$PYTHON" -m zipfile -e "$TMP/ops.zip" "$TMP/unpacked" &&
	(cd "$TMP/unpacked/ops" && env -i PATH=/usr/bin:/bin "$PYTHON" replay.py replay ir.json -r 2 --warmup 1 \
		--init-plugin plugins/init_plugin.py) >"$TMP/out" 2>&1
[ $? -eq 0 ] && grep -q "OK: 3" "$TMP/out"
ok $? "pack: unpacked, replay.py replays the three ops with $PYTHON alone"
grep -q "python3 replay.py replay ir.json --init-plugin plugins/init_plugin.py" "$TMP/unpacked/ops/README.md" &&
	grep -q '| 0 | `aten::addmm` | 0 | 5.000 |' "$TMP/unpacked/ops/README.md"
ok $? "pack: the README says how to run it and lists the ops"
grep -q '^Each op was replayed once on `cpu` with torch .* where this was packed;$' "$TMP/unpacked/ops/README.md" &&
	[ "$(grep -c '^| [0-9] | .* | yes |$' "$TMP/unpacked/ops/README.md")" = 3 ]
ok $? "pack: each op was replayed here once first; the README says so and that all three ran"

# unpack NAME: $TMP/NAME.zip into $TMP/pk (its folder is $TMP/pk/NAME)
unpack() { mkdir -p "$TMP/pk" && "$PYTHON" -m zipfile -e "$TMP/$1.zip" "$TMP/pk"; }
# issue 29.4: a selection packs only ops that run where the pack targets (the CPU here), going
# down its ranking: the 900 us GEMM needs 298 GiB, mha_fwd is not in this torch, tltest::crash
# kills the worker (which comes back), checkfill wants its init plugin
# shellcheck disable=SC2086
run tl pack -i "$F" -o "$TMP/top.zip" --top 7 --launchers $NS
unpack top && cp "$TMP/pk/top/ir.json" "$TMP/out"
[ "$RC" -eq 0 ] && py '[e["uid"] for e in J] == [5, 0, 10, 15, 20]' &&
	grep -q '^tlreplay: pack: left out UID 30 aten::mm: it does not run on cpu here: the 2 tensors need 298.0 GiB' "$TMP/err" &&
	grep -q "^tlreplay: pack: left out UID 40 aiter::mha_fwd: it does not run on cpu here: op aiter::mha_fwd is not in torch" "$TMP/err" &&
	grep -q "^tlreplay: pack: left out UID 25 tltest::crash: it does not run on cpu here: the replay worker .* died" "$TMP/err" &&
	grep -q "^tlreplay: pack: left out UID 45 tltest::checkfill: .*not filled by the init plugin" "$TMP/err" &&
	grep -q "^tlreplay: pack: 5 entries to .*top.zip; left out 5: 1 without recorded shapes, 4 that do not run on cpu here (first: uid 35" "$TMP/err" &&
	grep -q '^Each op was replayed once on `cpu` with torch .*,$' "$TMP/pk/top/README.md" &&
	grep -q '^and only ops that ran were packed;$' "$TMP/pk/top/README.md" &&
	grep -q '^| # | op | UID | trace GPU time (us) | runs on cpu |$' "$TMP/pk/top/README.md"
ok $? "pack --top 7 --launchers: the 5 launchers that run on the CPU, each op left out named with why"
[ "$RC" -eq 0 ] || diag "$(cat "$TMP/err")"
run tl pack -i "$F" -o "$TMP/asked.zip" 40 0
unpack asked
[ "$RC" -eq 0 ] && grep -q "^tlreplay: pack: UID 40 aiter::mha_fwd does not run on cpu here (op aiter::mha_fwd is not in torch .*); packed as asked$" "$TMP/err" &&
	grep -q '^| 0 | `aiter::mha_fwd` | 40 | 4.000 | no: op aiter::mha_fwd is not in torch .* |$' "$TMP/pk/asked/README.md" &&
	grep -q '^| 1 | `aten::addmm` | 0 | 5.000 | yes |$' "$TMP/pk/asked/README.md"
ok $? "pack of UIDs: packed as asked; one that does not run here is named, and the README says why"
run tl pack -i "$F" -o "$TMP/none.zip" --filter mha_fwd
[ "$RC" -eq 1 ] && [ ! -e "$TMP/none.zip" ] &&
	[ "$(tail -1 "$TMP/err")" = "tlreplay: pack: none of the 1 selected ops of $F runs on cpu here (each is named above); --no-check packs them anyway" ]
ok $? "pack of a selection of which nothing runs here: refused, no zip, --no-check named"
run tl pack -i "$F" -o "$TMP/nocheck.zip" --filter mha_fwd --no-check
unpack nocheck
[ "$RC" -eq 0 ] && grep -q '^Whether these ops run on `cpu` was not checked: packed with --no-check.$' "$TMP/pk/nocheck/README.md" &&
	grep -q '^| 0 | `aiter::mha_fwd` | 40 | 4.000 |$' "$TMP/pk/nocheck/README.md"
ok $? "pack --no-check: packed unchecked, and the README says so"
run tl pack -i "$F" -o "$TMP/cuda.zip" --top 2 --launchers --device cuda
unpack cuda && cp "$TMP/pk/cuda/ir.json" "$TMP/out"
[ "$RC" -eq 0 ] && grep -q '^tlreplay: pack: note: not checking that the ops run: .*cuda' "$TMP/err" &&
	py '[e["uid"] for e in J] == [30, 5]' && grep -q '^Whether these ops run on `cuda` was not checked: ' "$TMP/pk/cuda/README.md"
ok $? "pack --device cuda on a machine without one: the top 2 unchecked, said on stderr and in the README"
run tl pack -i "$F" -o "$TMP/notorch.zip" --top 2 --launchers --python /bin/true
unpack notorch && cp "$TMP/pk/notorch/ir.json" "$TMP/out"
[ "$RC" -eq 0 ] && grep -q '^tlreplay: pack: note: .*; matching schemas against the bundled snapshot, and not checking that the ops run$' "$TMP/err" &&
	py '[e["uid"] for e in J] == [30, 5]'
ok $? "pack with no torch to ask: the snapshot's schemas, unchecked, said once"
[ "$RC" -eq 0 ] || diag "$(cat "$TMP/err")"
run tl pack -i "$F" 0
[ "$RC" -eq 1 ] && grep -q "where to?" "$TMP/err"
ok $? "pack without -o: refused"
run tl pack -i "$F" -o "$TMP/nodir/ops.zip" 0
[ "$RC" -eq 1 ] && [ ! -e "$TMP/nodir" ] && one_line_err
ok $? "pack into a missing directory: one line, nothing left"

mkdir "$TMP/lonely" && cp "$ROOT/core/replay/tlreplay_worker.py" "$TMP/lonely/"
TLREPLAY_WORKER=$TMP/lonely/tlreplay_worker.py run tl pack -i "$F" -o "$TMP/lonely.zip" 0
[ "$RC" -eq 1 ] && [ ! -e "$TMP/lonely.zip" ] && one_line_err && grep -q 'lonely/tlreplay_replay/\*.py' "$TMP/err"
ok $? "pack with a replay script whose package is not beside it: one line naming it, no zip"

done_testing
