#!/usr/bin/env python3
"""Hold tlreplay's perf models against TraceLens's perf-model sheets, row by row.

Usage: compare_pm.py PM_DUMP TRACE GOLDEN_DIR [SHEET...]

A perf-model sheet (GEMM.csv, SDPA_fwd.csv, UnaryElementwise.csv, ...: every CSV
of GOLDEN_DIR with UID_first and GFLOPS_first columns, or the SHEETs named) groups
calls by op name and parameters and names its first call (UID_first). For each
row, pm_dump (tests/tools/pm_dump.c) says what our model makes of that call; it
must be the same class's sheet, the same parameters in the same order with the
same values (strings equal, numbers within 1e-6 relative), the same GFLOPS, Data
Moved (MB) and Compute Spec. Graph-capture traces in a capture_traces folder
beside TRACE are merged first (pm_dump --capture), as TraceLens's inference
report does. Prints one TAP line per sheet ("ok - ..." / "not ok - ...", the
first differences as "# " lines); exits 1 if any failed.
Stdlib only.
"""
import csv
import glob
import json
import math
import os
import subprocess
import sys

REL = 1e-6


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def same(ours, gold):
    """Cell texts: equal, or both numbers within REL, or both empty/NaN."""
    if ours == gold:
        return True
    a, b = num(ours), num(gold)
    if a is None or b is None:
        return False
    if math.isnan(a) and math.isnan(b):
        return True
    return abs(a - b) <= max(1e-12, REL * max(abs(a), abs(b)))


def fmt_num(v):
    return "" if v is None else repr(float(v))


def perf_sheets(golden):
    out = []
    for path in sorted(glob.glob(os.path.join(golden, "*.csv"))):
        with open(path, newline="", encoding="utf-8") as f:
            head = next(csv.reader(f), [])
        if "UID_first" in head and "GFLOPS_first" in head:
            out.append(path)
    return out


def compare_sheet(pm_dump, trace, path):
    stem = os.path.splitext(os.path.basename(path))[0]
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return stem, 0, []
    uids = [r["UID_first"] for r in rows]
    # TraceLens's inference report merges the graph-capture traces kept beside
    # the trace first; its rows name UIDs of the merged copies
    cap = os.path.join(os.path.dirname(trace), "capture_traces")
    extra = ["--capture", cap] if os.path.isdir(cap) else []
    # an inference report's sheets (perf_csvs/) are read under its view of the
    # trace: SGLang's op names without their counter, every annotated op
    if os.path.basename(os.path.dirname(path)) == "perf_csvs":
        extra = ["--inference"] + extra
    p = subprocess.run([pm_dump] + extra + [trace] + uids, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        return stem, len(rows), ["pm_dump failed (%d): %s" % (p.returncode, p.stderr.strip())]
    ours = [json.loads(l) for l in p.stdout.splitlines()]
    classes = {o.get("class") for o in ours}
    errs = []
    for g, o in zip(rows, ours):
        where = "%s uid %s" % (g["name"], g["UID_first"])
        if o.get("name") != g["name"]:
            errs.append("%s: pm_dump read op %r" % (where, o.get("name")))
            continue
        if not o.get("class"):
            errs.append("%s: no perf-model class" % where)
            continue
        # the inference report splits Normalization by direction (sheet_inference)
        if stem not in (o["sheet"], o.get("sheet_inference")):
            errs.append("%s: class %s goes to sheet %s" % (where, o["class"], o["sheet"]))
        gp = [(k[len("param: "):], v) for k, v in g.items() if k.startswith("param: ")]
        op = [tuple(x) for x in o["params"]]
        # A sheet that several classes feed has the union of their param
        # columns, in the order pandas first met them; a row leaves the
        # columns of other classes empty. Where one class feeds the sheet,
        # the columns must be in its order.
        ours, gold = [k for k, _ in op], [k for k, _ in gp]
        gd = dict(gp)
        if (any(k not in gd for k in ours) or any(gd[k] != "" for k in gold if k not in ours)
                or (len(classes) == 1 and ours != gold)):
            errs.append("%s: params %s, golden %s" % (where, ours, gold))
        else:
            for k, a in op:
                if not same(a, gd[k]):
                    errs.append("%s: param %s = %s, golden %s" % (where, k, a, gd[k]))
        if not same(fmt_num(o["gflops"]), g["GFLOPS_first"]):
            errs.append("%s: GFLOPS %s, golden %s (%s)" % (where, o["gflops"], g["GFLOPS_first"], o.get("note")))
        mb = None if o["bytes"] is None else o["bytes"] / 2.0 ** 20
        if not same(fmt_num(mb), g["Data Moved (MB)_first"]):
            errs.append("%s: Data Moved (MB) %s, golden %s" % (where, mb, g["Data Moved (MB)_first"]))
        if "Compute Spec" in g and o["compute_spec"] != g["Compute Spec"]:
            errs.append("%s: Compute Spec %r, golden %r" % (where, o["compute_spec"], g["Compute Spec"]))
    return stem, len(rows), errs


def main(argv):
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    pm_dump, trace, golden = argv[1:4]
    sheets = [os.path.join(golden, s + ".csv") for s in argv[4:]] or perf_sheets(golden)
    bad = 0
    for path in sheets:
        stem, n, errs = compare_sheet(pm_dump, trace, path)
        label = "%s/%s: %d rows" % (os.path.basename(golden.rstrip("/")), stem, n)
        if errs:
            bad += 1
            print("not ok - %s: %d differ" % (label, len(errs)))
            for e in errs[:15]:
                print("# " + e)
        else:
            print("ok - %s" % label)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
