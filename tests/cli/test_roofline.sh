#!/bin/sh
# tlreplay report's roofline.csv, --gpu-spec, --roofline and ops --perf on
# tests/fixtures/report_roofline.json: an H100 SXM (deviceProperties) running
# two aten::mul of two 1024x1024 bf16 tensors (4 us each) and one
# aten::sigmoid of one (2 us). By hand, from docs/roofline.md:
#   mul: 2^20 FLOPs, 3 x 2 MiB = 6291456 bytes, FLOP/B = 1/6;
#        achieved 2^20 / 4e-6 = 0.262144 TFLOP/s, 6291456 / 4e-6 = 1.572864 TB/s;
#        H100 SXM: 3352 GB/s, vector bf16 134 TFLOP/s: ridge 40 > 1/6, memory-bound,
#        roof 3.352e12 / 6 = 0.558667 TFLOP/s, % of roof = 1.572864 / 3.352 = 46.9232 %.
#   sigmoid: 2^20 FLOPs, 4 MiB, FLOP/B 1/4, 2 us: 2.097152 TB/s = 62.5642 %.
. "$(dirname "$0")/../taplib.sh"

if ! "$TLREPLAY" report --help 2>&1 | grep -q -- --gpu-spec; then
	echo "1..0 # SKIP tlreplay report has no --gpu-spec"
	exit 0
fi

T=$ROOT/tests/fixtures/report_roofline.json
tl() { "$TLREPLAY" "$@"; }

# field CSV SHEET NAME COLUMN: the cell of the first row of SHEET/NAME
field() {
	"$PYTHON" - "$@" <<'PYEOF'
import csv, sys
for r in csv.DictReader(open(sys.argv[1], encoding="utf-8")):
    if r["sheet"] == sys.argv[2] and r["name"] == sys.argv[3]:
        print(r[sys.argv[4]])
        break
PYEOF
}
# near A B: |A - B| <= 1e-6 * |B|
near() { "$PYTHON" -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(a - b) > 1e-6 * abs(b))" "$1" "$2" 2>/dev/null; }

run tl report -i "$T" -o "$TMP/r"
ok $RC "report with roofline.csv"
C=$TMP/r/roofline.csv
[ -f "$C" ]; ok $? "roofline.csv written"
[ "$(head -1 "$C")" = "sheet,name,params,calls,UID_first,GFLOPS,Data Moved (MB),Kernel Time (µs)_sum,Kernel Time (µs)_mean,TFLOPS/s_mean,TB/s_mean,FLOPS/Byte,Compute Spec,device,roof (TFLOP/s),% of roof,bound,why" ]
ok $? "roofline.csv columns"
[ "$(sed -n 2p "$C" | cut -d, -f1-2)" = "BinaryElementwise,aten::mul" ] &&
	[ "$(sed -n 3p "$C" | cut -d, -f1-2)" = "UnaryElementwise,aten::sigmoid" ]
ok $? "rows by Kernel Time sum, descending"
[ "$(field "$C" BinaryElementwise aten::mul device)" = "H100 SXM" ]; ok $? "device from deviceProperties"
near "$(field "$C" BinaryElementwise aten::mul 'roof (TFLOP/s)')" 0.5586666666666667; ok $? "mul roof = 3.352 TB/s x 1/6"
near "$(field "$C" BinaryElementwise aten::mul '% of roof')" 46.92315035799523; ok $? "mul % of roof = 1.572864 / 3.352"
[ "$(field "$C" BinaryElementwise aten::mul bound)" = memory ]; ok $? "mul memory-bound"
near "$(field "$C" BinaryElementwise aten::mul 'FLOPS/Byte')" 0.16666666666666666; ok $? "mul FLOPS/Byte"
near "$(field "$C" UnaryElementwise aten::sigmoid '% of roof')" 62.56420047732697; ok $? "sigmoid % of roof = 2.097152 / 3.352"
[ "$(field "$C" BinaryElementwise aten::mul calls)" = 2 ]; ok $? "mul calls"
# (report's own "N sheets to DIR/" line aside)
! grep -v '^tlreplay: report: [0-9]* sheets to ' "$TMP/err" | grep -q .; ok $? "no note for a known device"
! grep -q roof "$TMP/r/BinaryElementwise.csv"; ok $? "TraceLens's sheets get no roof column"

# a device of our own, claiming the trace's name: 3145.728 GB/s and a bf16
# vector peak of 0.4194304 TFLOP/s put the ridge at 0.1333 < 1/6: mul is
# compute-bound at 0.262144 / 0.4194304 = 62.5 %
cat >"$TMP/gpu.json" <<'JEOF'
{"devices": [{"name": "Test GPU", "match": ["H100 80GB HBM3"], "mem_bw_gbps": 3145.728,
  "max_achievable_tflops": {"vector_bf16": 0.4194304}}]}
JEOF
run tl report -i "$T" -o "$TMP/c" --gpu-spec "$TMP/gpu.json"
ok $RC "report --gpu-spec"
C=$TMP/c/roofline.csv
[ "$(field "$C" BinaryElementwise aten::mul device)" = "Test GPU" ]; ok $? "--gpu-spec device matched"
near "$(field "$C" BinaryElementwise aten::mul '% of roof')" 62.5; ok $? "custom device: mul 62.5 % of roof"
near "$(field "$C" BinaryElementwise aten::mul 'roof (TFLOP/s)')" 0.4194304; ok $? "custom device: roof = the bf16 peak"
[ "$(field "$C" BinaryElementwise aten::mul bound)" = compute ]; ok $? "custom device: compute-bound"

# a bad file: one line naming file and field, non-zero, nothing written
printf '{"devices": [{"name": "X", "mem_bw_gbps": -1}]}\n' >"$TMP/bad.json"
run tl report -i "$T" -o "$TMP/bad" --gpu-spec "$TMP/bad.json"
[ "$RC" -ne 0 ]; ok $? "bad --gpu-spec fails"
[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "bad.json: devices\[0\].mem_bw_gbps" "$TMP/err"
ok $? "bad --gpu-spec: one line naming file and field"
[ ! -e "$TMP/bad" ]; ok $? "bad --gpu-spec: nothing written"
run tl report -i "$T" -o "$TMP/bad" --gpu-spec "$TMP/missing.json"
[ "$RC" -ne 0 ] && [ ! -e "$TMP/bad" ]; ok $? "missing --gpu-spec file fails, nothing written"

# an unknown device: achieved numbers, no roofs, one note
"$PYTHON" -c "
import json, sys
t = json.load(open(sys.argv[1]))
t['deviceProperties'][0]['name'] = 'NVIDIA GeForce RTX 4090'
json.dump(t, open(sys.argv[2], 'w'))" "$T" "$TMP/unknown.json"
run tl report -i "$TMP/unknown.json" -o "$TMP/u"
ok $RC "report on an unknown GPU"
C=$TMP/u/roofline.csv
[ -z "$(field "$C" BinaryElementwise aten::mul 'roof (TFLOP/s)')" ] &&
	[ -z "$(field "$C" BinaryElementwise aten::mul '% of roof')" ] &&
	[ -n "$(field "$C" BinaryElementwise aten::mul why)" ]
ok $? "unknown GPU: roof columns empty, why given"
near "$(field "$C" BinaryElementwise aten::mul 'TB/s_mean')" 1.572864; ok $? "unknown GPU: achieved TB/s kept"
[ "$(grep -vc '^tlreplay: report: [0-9]* sheets to ' "$TMP/err")" -eq 1 ] && grep -q -- "--gpu-spec" "$TMP/err"; ok $? "unknown GPU: one note naming --gpu-spec"

# --roofline: one marker per row with numbers
run tl report -i "$T" -o "$TMP/s" --roofline "$TMP/r.svg"
ok $RC "report --roofline FILE.svg"
[ "$(grep -c '<circle class="pt"' "$TMP/r.svg")" -eq "$(($(wc -l <"$TMP/s/roofline.csv") - 1))" ]
ok $? "one marker per roofline.csv row"
grep -q "Roofline: H100 SXM" "$TMP/r.svg"; ok $? "chart names the device"
run tl report -i "$TMP/unknown.json" -o "$TMP/s2" --roofline "$TMP/r2.svg"
[ "$RC" -ne 0 ] && grep -q -- "--gpu-spec" "$TMP/err"; ok $? "--roofline on an unknown GPU: error naming --gpu-spec"

# ops --perf
run tl ops --perf -i "$T"
ok $RC "ops --perf"
grep -q "^device: H100 SXM" "$TMP/out" && sed -n 3p "$TMP/out" | grep -q "^aten::mul .* 2 .*46.9  memory$"
ok $? "ops --perf: mul first, 46.9 % memory"
run tl ops --perf -n 1 -x , -i "$T"
[ "$(wc -l <"$TMP/out")" -eq 2 ] && [ "$(sed -n 2p "$TMP/out" | cut -d, -f1-2)" = "BinaryElementwise,aten::mul" ]
ok $? "ops --perf -n 1 -x ,: header and one row"
run tl ops --perf -j -i "$T"
"$PYTHON" -c "
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 2 and rows[0]['bound'] == 'memory' and abs(rows[0]['% of roof'] - 46.92315) < 1e-3
assert rows[1]['name'] == 'aten::sigmoid'" "$TMP/out"
ok $? "ops --perf -j: JSON lines"
run tl ops --perf --gpu-spec "$TMP/gpu.json" -i "$T"
grep -q "^device: Test GPU" "$TMP/out" && grep -q "62.5  compute" "$TMP/out"; ok $? "ops --perf --gpu-spec"

done_testing
