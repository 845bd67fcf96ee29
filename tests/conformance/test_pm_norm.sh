#!/bin/sh
# The normalization, RMSNorm, RoPE and MoE perf models (core/src/perfmodel/pm_norm.c,
# pm_rope.c, pm_misc.c, pm_moe.c) against every golden TraceLens sheet of those kinds in
# ../shared/traces/TraceLens: each row's first call (UID_first), as
# tests/tools/pm_dump models it, must give the row's parameters, GFLOPS, Data
# Moved (MB) and Compute Spec (tests/conformance/compare_pm.py).
#
# The sheet is "Normalization" in the training reports (h100/, mi300/) and
# "Normalization_fwd" in the inference report (inference/xdit_sd_3.5), which
# splits it by direction; the models give both (pm_sheet_inference()).
#
# One kind of row cannot be found by its UID, for a reason outside the
# models; it is modelled from what the golden row recorded of that call
# instead, and named in a "# by args" line:
# - pseudo_op::moe_triton_unfused_up/down (MoE_unfused_fwd): pseudo-ops that
#   TraceLens's MoE extension inserts into the tree (Trace2Tree extensions);
#   tlreplay inserts none, so no UID holds them. Their two pseudo-op args,
#   "MoE topk" and "MoE GEMM gated", are not in the sheet's recorded args and
#   are taken from the row's topk and gated parameters; everything else
#   (tokens, hidden, experts, the FP4/FP8 weight read off the kernel name,
#   GFLOPS, bytes, Compute Spec) is checked.
. "$(dirname "$0")/../taplib.sh"

GOLD=$SHARED/traces/TraceLens/tests/traces
BUILD=${TLREPLAY_BUILD:-$ROOT/build}
PM_DUMP=$BUILD/tests/tools/pm_dump
SHEETS="Normalization Normalization_fwd RMSNorm_fwd RoPE_fwd MoE_unfused_fwd"

if [ ! -d "$GOLD" ]; then
	echo "1..0 # SKIP $GOLD absent (../shared is not beside the checkout)"
	exit 0
fi
if [ ! -x "$PM_DUMP" ]; then
	ok 1 "$PM_DUMP is built (make unit-tests)"
	done_testing
fi

# golden dir -> the trace it describes (as tests/conformance/test_golden.sh)
trace_for() {
	case "$1" in
	*/perf_csvs) ls "$(dirname "$1")"/*.json.gz 2>/dev/null | head -1 ;;
	*_recompute_perf_report_csvs) echo "${1%_recompute_perf_report_csvs}.json.gz" ;;
	*_perf_report_csvs) echo "${1%_perf_report_csvs}.json.gz" ;;
	esac
}

# A pm_dump for compare_pm.py: the UIDs of the trace (compare_pm.py passes
# --inference for an inference report's sheets, --capture DIR when capture
# traces sit beside it); a row whose UID does not
# hold its op is modelled from the golden row's recorded args with pm_dump
# --call (see the top).
cat >"$TMP/bygold.py" <<'EOF'
import ast, csv, json, os, re, subprocess, sys

pm_dump, rest = sys.argv[1], sys.argv[2:]
cap = None
inference = rest[0] == "--inference"
if inference:
    rest = rest[1:]
if rest[0] == "--capture":
    cap, rest = rest[1], rest[2:]
trace, uids = rest[0], rest[1:]
rows = {r["UID_first"]: r for r in csv.DictReader(open(os.environ["BYGOLD_CSV"], newline="", encoding="utf-8"))}
cmd = [pm_dump] + (["--inference"] if inference else []) + (["--capture", cap] if cap else []) + [trace] + uids
p = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
if p.returncode:
    sys.exit(p.returncode)
log = open(os.environ["BYGOLD_LOG"], "a")
for uid, line in zip(uids, p.stdout.splitlines()):
    g = rows[uid]
    if json.loads(line).get("name") == g["name"] or not g["name"].startswith("pseudo_op::"):
        print(line)
        continue
    args = {k: ast.literal_eval(g[k + "_first"]) for k in ("Input Dims", "Input type", "Input Strides", "Concrete Inputs")}
    if g["name"].startswith("pseudo_op::moe_"):
        args["MoE topk"] = int(g["param: topk"])
        args["MoE GEMM gated"] = g["param: gated"] == "True"
    kernels = re.findall(r"'name': '([^']*)'", g["kernel_details__summarize_kernel_stats"])
    q = subprocess.run([pm_dump, "--call", g["name"], json.dumps(args)] + kernels, stdout=subprocess.PIPE, text=True)
    print(q.stdout.strip())
    held = json.loads(line).get("name")
    log.write("by args: %s uid %s (%s)\n" % (g["name"], uid, "the UID holds " + held if held else "no event has that UID"))
EOF
printf '#!/bin/sh\nexec "%s" "%s" "%s" "$@"\n' "$PYTHON" "$TMP/bygold.py" "$PM_DUMP" >"$TMP/dump.sh"
chmod +x "$TMP/dump.sh"

for d in $(find "$GOLD" -type d \( -name '*_perf_report_csvs' -o -name perf_csvs \) | sort); do
	t=$(trace_for "$d")
	rel=${d#"$GOLD"/}
	for s in $SHEETS; do
		[ -f "$d/$s.csv" ] || continue
		if [ ! -f "$t" ]; then
			skip "$rel/$s: no trace beside it"
			continue
		fi
		: >"$TMP/log"
		BYGOLD_CSV=$d/$s.csv BYGOLD_LOG=$TMP/log \
			"$PYTHON" "$ROOT/tests/conformance/compare_pm.py" "$TMP/dump.sh" "$t" "$d" "$s" >"$TMP/res" 2>&1
		while IFS= read -r line; do
			case "$line" in
			"ok - "*) TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $rel/$s: ${line#ok - *: }" ;;
			"not ok - "*)
				TAP_N=$((TAP_N + 1))
				TAP_FAILED=$((TAP_FAILED + 1))
				echo "not ok $TAP_N - $rel/$s: ${line#not ok - *: }"
				;;
			*) echo "$line" ;;
			esac
		done <"$TMP/res"
		sed 's/^/# /' "$TMP/log" >&2
	done
done
done_testing
