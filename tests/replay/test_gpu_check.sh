#!/bin/sh
# The GPU check (make gpu-check, bench/gpu-check): its arithmetic and parsing (the unittest file
# next to this one), then the dry run of the whole folder against the stand-ins (fake torch.cuda,
# fake CUPTI/CUDA/NVML, fake ncu and nvidia-smi) on the BERT H100 trace: every phase runs, the
# report says it came from stand-ins, its numbers are those of the replays and of the fakes; and
# the bad inputs: no tlreplay, an output that is a file, a missing trace, a broken trace.
. "$(dirname "$0")/../taplib.sh"
# the check's own work folders go here, so that the last test sees only this test's
mkdir "$TMP/tmp" && TMPDIR=$TMP/tmp && export TMPDIR
BUILD=${TLREPLAY_BUILD:-$ROOT/build}
GC=$BUILD/gpu-check
T=$SHARED/traces/TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz

"$PYTHON" "$ROOT/tests/replay/test_gpu_check.py" >"$TMP/unit" 2>&1
st=$?
ok $st "gpu_check.py: statistics, targets, ncu CSV, kernel matching, report (unit tests)"
[ $st -eq 0 ] || diag "$(tail -n 30 "$TMP/unit")"

# bad inputs: one line naming the thing, exit 2, nothing written
run sh "$GC/run.sh" --tlreplay /nonexistent/tlreplay -o "$TMP/o1"
[ "$RC" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q '/nonexistent/tlreplay: no tlreplay there' "$TMP/err" &&
	[ ! -e "$TMP/o1" ]
ok $? "no tlreplay: one line naming it, exit 2"
: >"$TMP/afile"
run sh "$GC/run.sh" --stand-ins -o "$TMP/afile" --traces "$ROOT/tests/fixtures/mini.json"
[ "$RC" -eq 2 ] && grep -q "afile: exists and is not a folder" "$TMP/err"
ok $? "an output that is a file: refused"
run sh "$GC/run.sh" --stand-ins -o "$TMP/o2" --traces "$TMP/nope.json.gz"
[ "$RC" -eq 2 ] && grep -q "nope.json.gz: no such trace or folder" "$TMP/err" && [ ! -e "$TMP/o2" ]
ok $? "a missing trace: named, exit 2"

if ! "$PYTHON" -c 'import torch' >/dev/null 2>&1; then
	skip "$PYTHON has no torch: no dry run"
	done_testing
fi
if [ ! -f "$T" ]; then
	skip "no ../shared (the BERT H100 trace): no dry run"
	done_testing
fi
# a sanitized libtlreplay cannot load into gdb, nor a sanitized libtlreplay_gpu.so into a stat
# run that has no libasan preloaded
case "${TLREPLAY_CFLAGS:-}" in
*-fsanitize*) nogdb="--skip gdb --skip counters" ;;
*) nogdb= ;;
esac
# a truncated trace beside the good one: its IR fails, the rest goes on
head -c 20000 "$ROOT/tests/fixtures/mini.json" >"$TMP/broken.json"
printf '{"traceEvents": [{"ph": "X", "name": ' >"$TMP/broken.json"
OUT=$TMP/gc
# the self trace: one made on the H200 by the same kind of model (a dry run cannot profile a GPU)
SELF=$SHARED/gpu-runs/2026-11-28-h200/h200-torch2.11-inference.json.gz
# shellcheck disable=SC2086
STANDIN_REAL_PYTHON=$PYTHON sh "$GC/run.sh" --stand-ins -o "$OUT" --traces "$T" "$TMP/broken.json" -r 3 --warmup 1 \
	--self-trace "$SELF" $nogdb >"$TMP/out" 2>"$TMP/err"
RC=$?
[ "$RC" -eq 0 ] && [ "$(ls "$OUT")" = "$(printf 'raw.tar.gz\nreport.md')" ] &&
	[ "$(wc -c <"$OUT/raw.tar.gz")" -lt $((16 << 20)) ] &&
	tar -xzf "$OUT/raw.tar.gz" -C "$OUT" raw/report.json && mv "$OUT/raw/report.json" "$OUT/report.json" &&
	tar -tzf "$OUT/raw.tar.gz" | grep -q '^raw/torch-1\.[0-9]*\.json\.gz$'
ok $? "dry run: exit 0, two files to bring back (report.md, raw.tar.gz under 16 MiB with report.json and the snapshot)"
rm -rf "$OUT/raw"
[ "$RC" -eq 0 ] || diag "$(cat "$TMP/err")"
head -n 1 "$OUT/report.md" | grep -q '^# GPU check: DRY RUN AGAINST STAND-INS, no number below was measured on a GPU$'
ok $? "the report's first line says it came from stand-ins"
grep -q '| non-custom groups that replay ok | .* | n/a (stand-ins) |' "$OUT/report.md" &&
	grep -q '^- not replayed: [0-9]* groups (stand-ins replay on the CPU: ' "$OUT/report.md"
ok $? "targets are not judged on stand-ins; the report says which groups a CPU could not replay in time"

"$TLREPLAY" ir -i "$T" --launchers --unique -o "$TMP/bert.ir.json" 2>/dev/null
n=$("$PYTHON" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$TMP/bert.ir.json")
# a toolkit without CUPTI's or the driver's headers builds no libtlreplay_gpu.so: the counters'
# tlreplay side then says why
havegpu=$([ -e "$GC/tlreplay/lib/libtlreplay_gpu.so" ] && echo 1)
"$PYTHON" - "$OUT/report.json" "$n" "$nogdb" "$havegpu" >"$TMP/py" 2>&1 <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
havegpu = bool(sys.argv[4])
ph = rep["phases"]
want = ["env", "schemas", "self", "ir", "replay", "counters", "energy", "flush", "graph", "gdb", "arena", "kreplay",
        "cudaprogs"]
assert sorted(ph) == sorted(want), list(ph)
# the CUDA programs need nvcc: without one the phase says so
cp = ph["cudaprogs"]
if cp["status"] == "skipped":
    assert cp["why"] == "no nvcc on this machine", cp
else:
    rows = {r["program"]: r for r in cp["programs"]}
    assert sorted(rows) == ["rr_gemm", "rr_modload", "rr_vecadd_shared", "rr_vecadd_static"], rows
    # a program whose library the toolkit lacks is named, not run
    rows = {p: r for p, r in rows.items() if "skipped" not in r or print("# not built:", r["skipped"], file=sys.stderr)}
    m = rows["rr_modload"]
    assert m["plain_exit"] == 0 and m["recorded_exit"] == 0 and m["same_output"] and m["verify"] == "match", m
    assert m["in_arena"] == m["allocations"] > 0, m
    # cudart on the stand-in stops at NVIDIA's private tables, recorded or not
    assert all(r["plain_exit"] == r["recorded_exit"] == 1 and r["same_output"] and not r.get("heap")
               for p, r in rows.items() if p != "rr_modload"), rows
want.remove("cudaprogs")
for k in want:
    if k in ("gdb", "counters") and sys.argv[3]:
        assert ph[k]["status"] == "skipped", ph[k]
        continue
    assert ph[k]["status"] == "ok", (k, ph[k])
assert rep["mode"] == "stand-ins"
traces = ph["ir"]["traces"]
# the self trace (--self-trace: the H200's) comes first
assert traces[0]["trace"] == "self" and traces[0]["status"] == "ok" and traces[0]["groups"] > 5, traces
ns = traces[0]["groups"]
assert ph["self"]["device"] == "given (--self-trace)" and ph["self"]["bytes"] > 1000, ph["self"]
assert traces[1]["status"] == "ok" and traces[1]["groups"] == n, traces
assert traces[2]["status"] == "failed" and "broken.json" in traces[2]["why"], traces[2]
# stand-ins replay on the CPU: the self trace's big groups (25 s a call there) are left out, said
nr = ph["replay"].get("not_replayed", {}).get("groups", 0)
assert 0 < nr < ns and "12 us or more" in ph["replay"]["not_replayed"]["why"], ph["replay"]
c = ph["replay"]["summary"]["counts"]
assert c["groups"] == c["attempted"] == n + ns - nr and c["ok"] + c["failed"] + c["unavailable"] == n + ns - nr, c
bt = ph["replay"]["by_trace"]
assert sorted(bt) == ["gaunernst_bert-small-uncased__1016001", "self"], sorted(bt)
cb = bt["gaunernst_bert-small-uncased__1016001"]["counts"]
assert cb["groups"] == n and cb["ok"] >= n - 2, cb
# the targets are judged on the self trace's groups only
assert ph["replay"]["targets"] and all(t["measured"] is not None for t in ph["replay"]["targets"]), ph["replay"]
# the fake profiler names one relu kernel: every verdict is MISMATCH, and says so
k = bt["gaunernst_bert-small-uncased__1016001"]["kernels"]
assert k["MISMATCH"] == cb["ok"], k
assert ph["flush"]["summary"]["counts"]["attempted"] == n + ns - nr
g = ph["graph"]
assert g["summary"]["counts"]["attempted"] == g["groups_under_10us"] > 0, g
# counters: three ops, four metrics; both sides are the fakes' values
ops = ph["counters"].get("ops", []) if sys.argv[3] else ph["counters"]["ops"]
assert not ops or [o["class"] for o in ops] == ["gemm", "normalization/softmax", "elementwise"], ops
fake = {"gpu__time_duration.sum": 1234.5, "smsp__inst_executed.sum": 1e6, "dram__bytes_read.sum": 4096,
        "sm__throughput.avg.pct_of_peak_sustained_elapsed": 42.5}
for o in ops:
    assert [m["metric"] for m in o["metrics"]] == list(fake), o
    for m in o["metrics"]:
        if havegpu:
            assert m["tlreplay"] == fake[m["metric"]] and m["ncu"] == fake[m["metric"]] and m["diff"] == 0, m
        else:
            assert m["tlreplay"] is None and "libtlreplay_gpu.so is not installed" in m["tlreplay_why"], m
            assert m["ncu"] == fake[m["metric"]], m
        assert m["ncu_instances"] == 4, m       # the init kernel is not counted
# kreplay: the stand-in driver's program, three kernels recorded and replayed bit-exactly
kr = ph["kreplay"]["kernels"]
assert [r["class"] for r in kr] == ["gemm", "elementwise", "triton"], kr
assert all(r["recorded"] and r["verify"] == "match" and r["replay_us"] > 0 for r in kr), kr
assert [r["kernel"] for r in kr] == ["saxpy", "scale_fixed", "list_sum"], kr
# every recorded allocation came from the recorder's arena
assert all(r["allocations"] > 0 and r["in_arena"] == r["allocations"] for r in kr), kr
# arena: the base had in three fresh processes on the stand-in driver
ar = ph["arena"]["probes"]
assert [r["process"] for r in ar] == ["bare 1", "bare 2", "bare 3"], ar
assert all(r["ok"] and r["got"] == "0x200000000000" and r["granularity"] == 65536 for r in ar), ar
# energy: the fake NVML moves 5000 mJ a read; the fake nvidia-smi draws 100 W and, as the
# H200's, has no energy counter: its power samples are integrated over the region
e = ph["energy"]
assert e["tlreplay_j"] == 5.0, e
assert e["nvidia_smi_method"].startswith("power.draw sampled") and e["nvidia_smi_samples"] > 10, e
assert 2.5 < e["region_s"] < 60 and abs(e["nvidia_smi_j"] - 100 * e["region_s"]) < 0.02 * 100 * e["region_s"], e
s = ph["schemas"]
assert s["file"].startswith("torch-1.") and s["schemas"] > 1000, s
assert all(isinstance(x["rc"], int) or x["rc"] is None for x in rep["commands"])
print("report.json ok")
PY
st=$?
ok $st "report.json: every phase, the counts of the IR and the replays, the fakes' counter and energy values"
[ $st -eq 0 ] || diag "$(cat "$TMP/py")"

"$PYTHON" -c 'import gzip,json,sys,tarfile
t = tarfile.open(sys.argv[1])
snap = [n for n in t.getnames() if n.startswith("raw/torch-1.")]
d = json.load(gzip.open(t.extractfile(snap[0])))
assert d["schemas"] and d["torch"].startswith("1.")' "$OUT/raw.tar.gz"
ok $? "the schema snapshot is in raw.tar.gz and reads back"
tar -tzf "$OUT/raw.tar.gz" >"$TMP/raw" && grep -q 'raw/.*replay-plain.out' "$TMP/raw" &&
	{ [ -n "$nogdb" ] || grep -q 'raw/ncu-gemm.csv' "$TMP/raw"; }
ok $? "raw.tar.gz holds every command's output"
if [ -z "$nogdb" ] && command -v gdb >/dev/null 2>&1; then
	grep -q '^Inferior on cpu, replay on cuda: stopped in aten::addmm yes, live arguments read yes' "$OUT/report.md"
	ok $? "gdb: tlreplay here at at::_ops::addmm::call, replayed through the stand-ins"
else
	skip "gdb is not usable here"
fi
# the dry run's work folder is gone
! ls -d "$TMPDIR"/tlreplay-gpu-check.* 2>/dev/null | grep -q .
ok $? "no work folder left behind"

# --skip and the phases that need another (the phases the dry run above covered, skipped too)
run sh "$GC/run.sh" --stand-ins -o "$TMP/gc2" --traces "$T" --skip replay --skip gdb --skip schemas --skip self \
	--skip cudaprogs --skip kreplay --skip arena -r 1 --warmup 0
"$PYTHON" -c '
import json, sys, tarfile
ph = json.load(tarfile.open(sys.argv[1]).extractfile("raw/report.json"))["phases"]
assert ph["replay"]["why"] == "--skip replay", ph["replay"]
for k in ("counters", "energy", "graph"):
    assert ph[k]["status"] == "skipped" and ph[k]["why"] == "needs the replay phase, which was skipped", ph[k]
assert ph["flush"]["status"] == "ok"
assert all(ph[k]["status"] == "skipped" and ph[k]["why"] == "--skip " + k for k in ("cudaprogs", "kreplay", "arena"))
' "$TMP/gc2/raw.tar.gz" && [ "$RC" -eq 0 ]
ok $? "--skip replay: the phases that need it are skipped and say why"
# self_model.py, which the self phase runs on the GPU, runs on the CPU (tiny sizes, fp32)
"$PYTHON" "$GC/self_model.py" "$TMP/self.json" --device cpu >"$TMP/sm.out" 2>&1 &&
	"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); ev=d["traceEvents"] if isinstance(d, dict) else d
names={e.get("name") for e in ev}
sys.exit(0 if {"aten::layer_norm", "aten::linear", "aten::convolution", "aten::gelu"} <= names else 1)' "$TMP/self.json"
ok $? "self_model.py profiles the transformer block and the conv net (CPU, dry)"
done_testing
