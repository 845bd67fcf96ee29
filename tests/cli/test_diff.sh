#!/bin/sh
# tlreplay diff on two small hand-written traces (tests/fixtures/cmp_base.json,
# cmp_variant.json): aten::mm's two GEMMs 10 -> 14 us each, aten::add 6 -> 3
# us, aten::relu (4 us) only in the baseline, aten::gelu (5 us) only in the
# variant; the summary in its three formats, the sheets, and bad input.
. "$(dirname "$0")/../taplib.sh"

B=$ROOT/tests/fixtures/cmp_base.json
V=$ROOT/tests/fixtures/cmp_variant.json

run "$TLREPLAY" diff -i "$B" -i "$V"
[ $RC -eq 0 ] && grep -q "^baseline cmp_base: " "$TMP/out" && grep -q "^variant  cmp_variant: " "$TMP/out"
ok $? "diff: the tags are the file names"
grep -A2 "^ops that gained" "$TMP/out" | grep -Eq "0\.020 +0\.028 +\+0\.008 +\+40\.0%  aten::mm$"
ok $? "aten::mm gained 0.008 ms (+40%)"
grep -A1 "^ops that lost" "$TMP/out" | grep -Eq "0\.006 +0\.003 +-0\.003 +-50\.0%  aten::add$"
ok $? "aten::add lost 0.003 ms (-50%)"
grep -A1 "^ops only in cmp_base" "$TMP/out" | grep -q "aten::relu$" &&
	grep -A1 "^ops only in cmp_variant" "$TMP/out" | grep -q "aten::gelu$"
ok $? "relu only in the baseline, gelu only in the variant"
grep -Eq "0\.060 +0\.066 +\+0\.006 +\+10\.0%  total_time$" "$TMP/out"
ok $? "total_time 0.060 -> 0.066 ms"

run "$TLREPLAY" diff -i "$B" -i "$V" -x, --names a,b
[ $RC -eq 0 ] && [ "$(head -1 "$TMP/out")" = "section,name,a,b,diff,pct,unit" ] &&
	grep -q "^ops,aten::mm,0.02,0.028,0.008" "$TMP/out" && grep -q "^ops,aten::gelu,,0.005,0.005,,ms$" "$TMP/out"
ok $? "-x, with --names: a header, then one row per line"

run "$TLREPLAY" diff -i "$B" -i "$V" -j
[ $RC -eq 0 ] && "$PYTHON" - "$TMP/out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
mm = [r for r in rows if r["section"] == "ops" and r["name"] == "aten::mm"][0]
relu = [r for r in rows if r["name"] == "aten::relu"][0]
assert abs(mm["diff"] - 0.008) < 1e-12 and abs(mm["pct"] - 40) < 1e-9, mm
assert relu["variant"] is None and relu["pct"] is None, relu
PY
ok $? "-j: one JSON object per line, null where a side has none"

run "$TLREPLAY" diff -i "$B" -i "$V" -o "$TMP/sheets"
[ $RC -eq 0 ] && [ -f "$TMP/sheets/ops_summary.csv" ] && [ -f "$TMP/sheets/gpu_timeline.csv" ] &&
	[ -f "$TMP/sheets/ops_unique_args_only_variant_cmp_variant.csv" ] &&
	[ -f "$TMP/sheets/GEMM_intersect_cmp_variant.csv" ]
ok $? "-o DIR: the comparison sheets"
run "$TLREPLAY" diff -i "$B" -i "$V" -o "$TMP/book.xlsx"
[ $RC -eq 0 ] && [ -s "$TMP/book.xlsx" ]
ok $? "-o FILE.xlsx: a workbook"
xlsx_ok "$TMP/book.xlsx" "$TMP/sheets" "-o FILE.xlsx: the cells of every CSV of -o DIR, TraceDiff's diff_stats two included"
"$PYTHON" - "$TMP/sheets" <<'PY'
import csv, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/ops_summary.csv")))
assert [r["name"] for r in rows] == ["aten::mm", "aten::add", "aten::relu", "aten::gelu"], rows
mm = rows[0]
assert float(mm["total_direct_kernel_time_ms__cmp_variant_diff"]) == 0.008
assert float(mm["total_direct_kernel_time_ms__cmp_variant_pct"]) == 40.0
assert rows[2]["total_direct_kernel_time_ms__cmp_variant_diff"] == ""
assert "cmp_variant::Cumulative Percentage (%)" not in rows[0]
only = list(csv.reader(open(d + "/ops_unique_args_only_baseline_cmp_variant.csv")))
assert only[1][0] == "aten::relu" and not any(c.startswith("cmp_variant::") for c in only[0]), only[0]
tl = list(csv.DictReader(open(d + "/gpu_timeline.csv")))
assert [r["type"] for r in tl] == sorted(r["type"] for r in tl)
PY
ok $? "ops_summary joined (sorted by the baseline's time, empty diff on one-side rows); a split keeps its side's columns; gpu_timeline in key order"

run "$TLREPLAY" diff -i "$B" -i "$V" --chart "$TMP/d.svg"
[ $RC -eq 0 ] && [ "$(grep -c 'class="bar baseline"' "$TMP/d.svg")" -eq 3 ] &&
	[ "$(grep -c 'class="bar variant"' "$TMP/d.svg")" -eq 3 ] && grep -q "not in the baseline" "$TMP/d.svg" &&
	"$PYTHON" -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$TMP/d.svg"
ok $? "--chart FILE.svg: 4 ops, a bar per side that has it, valid XML"
run "$TLREPLAY" diff -i "$B" -i "$V" --chart "$TMP/nodir/d.svg"
[ $RC -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "nodir" "$TMP/err"
ok $? "--chart into a missing directory: one line naming it"
run "$TLREPLAY" diff -i "$B" -i "$V" -o "$TMP/half" --chart "$TMP/nodir/d.svg"
[ $RC -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ -d "$TMP/half" ] && [ -z "$(ls -A "$TMP/half")" ]
ok $? "-o DIR with a chart that cannot be written: no sheet named, the merged tree's neither (all or nothing)"

# two directories of ranks: rank 0 changed, rank 1 did not, rank 2 only in the baseline
mkdir -p "$TMP/rb" "$TMP/rv"
cp "$B" "$TMP/rb/rank0.json"; cp "$B" "$TMP/rb/rank1.json"; cp "$B" "$TMP/rb/rank2.json"
cp "$V" "$TMP/rv/rank0.json"; cp "$B" "$TMP/rv/rank1.json"
run "$TLREPLAY" diff -i "$TMP/rb" -i "$TMP/rv" -o "$TMP/rankcmp"
[ $RC -eq 0 ] && grep -q "^== rank 0 ==" "$TMP/out" && grep -q "^== rank 1 ==" "$TMP/out" &&
	! grep -q "^== rank 2 ==" "$TMP/out" && grep -q "rank 2 is only in rb" "$TMP/err" &&
	grep -Eq "^ +\+0\.000 +\+0\.003 +\+0\.006  total_time$" "$TMP/out" &&
	[ -f "$TMP/rankcmp/rank0/ops_summary.csv" ] && [ -f "$TMP/rankcmp/rank1/gpu_timeline.csv" ]
ok $? "two directories of ranks: a block per rank both have, the spread of the change (0 / 0.003 / 0.006 ms), -o DIR/rankN"
run "$TLREPLAY" diff -i "$TMP/rb" -i "$TMP/rv" -x,
[ $RC -eq 0 ] && [ "$(head -1 "$TMP/out")" = "rank,section,name,rb,rv,diff,pct,unit" ] &&
	grep -q "^0,ops,aten::mm," "$TMP/out" && grep -q "^1,gpu_timeline,total_time," "$TMP/out" && grep -q "^,spread,total_time,0.0,0.00" "$TMP/out"
ok $? "ranks with -x,: a rank column, the spread rows last"
run "$TLREPLAY" diff -i "$TMP/rb" -i "$B"
[ $RC -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "is a directory and" "$TMP/err"
ok $? "a directory against a trace: one line"
mkdir -p "$TMP/other"; cp "$B" "$TMP/other/rank5.json"
run "$TLREPLAY" diff -i "$TMP/rb" -i "$TMP/other"
[ $RC -ne 0 ] && grep -q "no rank is in both" "$TMP/err"
ok $? "two directories with no rank in common: said, non-zero exit"

# the merged call tree (TraceLens's TraceDiff; its rules: tests/cli/test_diff_tree.sh)
run "$TLREPLAY" diff -i "$B" -i "$V" --tree
[ $RC -eq 0 ] && grep -q "^aten::mm  \[10.000 / 14.000 / +4.000\]$" "$TMP/out" &&
	grep -q "^aten::relu | aten::gelu  \[4.000 / 5.000 / +1.000\]$" "$TMP/out"
ok $? "--tree: the merged tree, relu and gelu matched at one place, GPU us of each side"
run "$TLREPLAY" diff -i "$B" -i "$V" --tree 2
[ $RC -eq 0 ] && [ "$(grep -vc '^#' "$TMP/out")" -eq 3 ]
ok $? "--tree UID: that op's subtree (op, launch, kernel)"
run "$TLREPLAY" diff -i "$B" -i "$V" --tree x
[ $RC -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "'x' is not a UID" "$TMP/err"
ok $? "--tree with a bad UID: one line"
run "$TLREPLAY" diff -i "$B" -i "$V" --tree -o "$TMP/treeout"
[ $RC -ne 0 ] && [ ! -e "$TMP/treeout" ]
ok $? "--tree with -o refused, nothing written"
[ -s "$TMP/sheets/diff_stats.csv" ] && [ -s "$TMP/sheets/diff_stats_unique_args_summary.csv" ]
ok $? "-o DIR also holds TraceDiff's diff_stats.csv and diff_stats_unique_args_summary.csv"

# bad input: one line naming the thing, non-zero exit, nothing written
run "$TLREPLAY" diff -i "$B"
[ $RC -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "BASE -i VARIANT" "$TMP/err"
ok $? "one -i: one line asking for two"
run "$TLREPLAY" diff -i "$B" -i "$TMP/nosuch.json" -o "$TMP/none"
[ $RC -ne 0 ] && grep -q "nosuch.json" "$TMP/err" && [ ! -e "$TMP/none" ]
ok $? "a missing trace: named, nothing written"
run "$TLREPLAY" diff -i "$B" -i "$V" --names same,same
[ $RC -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "differ" "$TMP/err"
ok $? "--names with equal tags refused"
run "$TLREPLAY" diff -i "$B" -i "$V" --names onlyone
[ $RC -ne 0 ] && grep -q "two tags" "$TMP/err"
ok $? "--names with one tag refused"
run "$TLREPLAY" diff -i "$B" -i "$B"
[ $RC -eq 0 ] && grep -q "^baseline baseline: " "$TMP/out" && grep -q "^ops that gained" "$TMP/out"
ok $? "a trace against itself: tags baseline/variant, nothing gained"
run "$TLREPLAY" diff -i "$B" -i "$ROOT/tests/fixtures/mini.json"
[ $RC -eq 0 ] && grep -q "^ops only in cmp_base" "$TMP/out" && grep -q "^ops only in mini" "$TMP/out" &&
	grep -q "no op in common" "$TMP/out"
ok $? "two traces with no op in common: a report that says so"
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2, "args": {"stream": 7, "device": 0}}]}\n' >"$TMP/gpu_only.json"
run "$TLREPLAY" diff -i "$B" -i "$TMP/gpu_only.json"
[ $RC -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "gpu_only.json" "$TMP/err"
ok $? "a trace no report can be built for: one line naming it"
# one kernel under two ops (2 and 50 us): the joined kernel_summary pairs
# every row of a name with every other, as pandas' merge does; the summary
# weighs each kernel name's total, so a trace against itself changed nothing
S=$ROOT/tests/fixtures/cmp_shared_kernel.json
run "$TLREPLAY" diff -i "$S" -i "$S"
[ $RC -eq 0 ] && grep -A2 "^kernels that gained" "$TMP/out" | grep -q "(none)" &&
	grep -A1 "^kernels that lost" "$TMP/out" | grep -q "(none)"
ok $? "a kernel under two ops against itself: no kernel gained or lost"
run "$TLREPLAY" diff -i "$S" -i "$B" -x,
[ $RC -eq 0 ] && grep -q "^kernels,copy_kernel,0.052,,-0.052,,ms$" "$TMP/out"
ok $? "a kernel under two ops only in the baseline: its total, once"
done_testing
