#!/usr/bin/env python3
"""Compare tlreplay's breakdown/ops/kernels with TraceLens's golden CSVs.

Usage: compare_golden.py TLREPLAY TRACE GOLDEN_DIR [--only SHEET...]

Prints TAP lines (one test per sheet found in GOLDEN_DIR) and exits 0 when
all pass. Rules (the issue's acceptance criteria):
  gpu_timeline   every row within 1e-6 ms (and percent within 1e-6)
  ops_summary    the same rows; numbers within 1e-6 relative; same categories
  kernel_summary the same rows; numbers within 1e-6 relative
  ops_unique_args the same groups (by args and ex_UID); counts equal, times within 1e-6
Stdlib only, so CI needs nothing beyond python3.
"""
import ast
import csv
import io
import math
import subprocess
import sys

REL = 1e-6


def run(tl, args):
    p = subprocess.run([tl] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError("tlreplay %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return list(csv.DictReader(io.StringIO(p.stdout)))


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def close(a, b, rel=REL, abs_=1e-9):
    a, b = float(a), float(b)
    if math.isnan(a) and math.isnan(b):
        return True
    return abs(a - b) <= max(abs_, rel * max(abs(a), abs(b)))


def fnum(s):
    return float(s) if s not in ("", None) else float("nan")


def cmp_timeline(tl, trace, golden):
    gold = read_csv(golden)
    extra = []
    key_col = None
    if gold and "is_recompute" in gold[0]:
        extra, key_col = ["--recompute"], "is_recompute"
    elif gold and "gpu_pid" in gold[0]:
        extra, key_col = ["--per-device"], "gpu_pid"
    ours = run(tl, ["breakdown", "-i", trace, "-x,"] + extra)
    ours_key = {"is_recompute": "is_recompute", "gpu_pid": "device"}.get(key_col)
    mine = {(r["type"], r.get(ours_key) if ours_key else None): r for r in ours}
    errs = []
    for g in gold:
        k = (g["type"], g.get(key_col) if key_col else None)
        m = mine.get(k)
        if m is None:
            errs.append("missing row %s" % (k,))
            continue
        if abs(float(m["time ms"]) - float(g["time ms"])) > 1e-6:
            errs.append("%s: time ms %s != %s" % (k, m["time ms"], g["time ms"]))
        if abs(float(m["percent"]) - float(g["percent"])) > 1e-6:
            errs.append("%s: percent %s != %s" % (k, m["percent"], g["percent"]))
    if len(mine) != len(gold):
        errs.append("%d rows, golden has %d" % (len(mine), len(gold)))
    return errs


def cmp_ops(tl, trace, golden):
    gold = read_csv(golden)
    extra, keys = [], ["name"]
    if gold and "is_recompute" in gold[0]:
        extra, keys = ["--recompute"], ["name", "is_recompute"]
    if gold and "parent_module" in gold[0]:
        extra, keys = ["--by-module"], ["name", "parent_module"]
        # TraceLens's inference report merges the graph-capture traces kept beside the trace
        import os
        cap = os.path.join(os.path.dirname(trace), "capture_traces")
        if os.path.isdir(cap):
            extra += ["--capture", cap]
    ours = run(tl, ["ops", "-i", trace, "-x,"] + extra)
    mine = {tuple(r[k] for k in keys): r for r in ours}
    errs = []
    for g in gold:
        k = tuple(g[c] for c in keys)
        m = mine.get(k)
        if m is None:
            errs.append("missing row %s" % (k,))
            continue
        for col in ("total_direct_kernel_time_sum", "total_subtree_kernel_time_sum", "Count",
                     "Percentage (%)", "Cumulative Percentage (%)", "total_direct_kernel_time_ms"):
            if col not in g or col not in m:
                continue
            if col == "Cumulative Percentage (%)":
                continue  # depends on the order of rows with equal time
            if not close(m[col], g[col]):
                errs.append("%s %s: %s != %s" % (k, col, m[col], g[col]))
        if "call_stack_first" in g and ast.literal_eval(m["call_stack_first"]) != ast.literal_eval(g["call_stack_first"]):
            errs.append("%s call_stack_first %s != %s" % (k, m["call_stack_first"][:80], g["call_stack_first"][:80]))
        if set(ast.literal_eval(m["Categories"])) != set(ast.literal_eval(g["Categories"])):
            errs.append("%s Categories %s != %s" % (k, m["Categories"], g["Categories"]))
    extra_rows = set(mine) - {tuple(g[c] for c in keys) for g in gold}
    if extra_rows:
        errs.append("%d extra rows, e.g. %s" % (len(extra_rows), sorted(extra_rows)[:3]))
    return errs


def cmp_kernels(tl, trace, golden):
    gold = read_csv(golden)
    ours = run(tl, ["kernels", "-i", trace, "-x,"])
    keys = [c for c in ("Parent op category", "Parent cpu_op", "Kernel name", "Kernel stream") if gold and c in gold[0]]
    if gold and ours and set(keys) != set(k for k in keys if k in ours[0]):
        return ["columns differ: golden %s, ours %s" % (list(gold[0]), list(ours[0]))]

    def norm(r):
        out = []
        for c in keys:
            v = r.get(c, "")
            if c == "Kernel stream" and v not in ("", None):
                v = str(int(float(v)))
            out.append(v)
        return tuple(out)

    mine = {}
    for r in ours:
        mine[norm(r)] = r
    errs = []
    for g in gold:
        k = norm(g)
        m = mine.get(k)
        if m is None:
            errs.append("missing row %s" % (k[:2] + (k[2][:60],) + k[3:],))
            continue
        for col in g:
            if col in keys or col not in m:
                continue
            if not close(fnum(m[col]), fnum(g[col])):
                errs.append("%s %s: %s != %s" % (k[:2] + (k[2][:40],), col, m[col], g[col]))
    extra_rows = set(mine) - {norm(g) for g in gold}
    if extra_rows:
        errs.append("%d extra rows, e.g. %s" % (len(extra_rows), [x[:2] for x in sorted(extra_rows)[:3]]))
    return errs


def cmp_unique_args(tl, trace, golden):
    gold = read_csv(golden)
    if gold and ("parent_module" in gold[0] or "is_recompute" in gold[0]):
        # the inference and recompute reports group by more columns than
        # ops --unique-args does; their groups are checked through ops_summary
        return "SKIP the %s variant of the sheet" % ("inference" if "parent_module" in gold[0] else "recompute")
    ours = run(tl, ["ops", "--unique-args", "-i", trace, "-x,"])
    args = ("name", "op category", "Input Dims", "Input type", "Input Strides", "Concrete Inputs", "ex_UID")
    mine = {tuple(r[c] for c in args): r for r in ours}
    errs = []
    for g in gold:
        k = tuple(g[c] for c in args)
        m = mine.get(k)
        if m is None:
            errs.append("missing group %s" % (k[:1] + (k[2][:60], k[-1])),)
            continue
        if m["operation_count"] != g["operation_count"]:
            errs.append("%s ex_UID %s: count %s != %s" % (k[0], k[-1], m["operation_count"], g["operation_count"]))
        for col in g:
            if col.startswith("total_") or col == "Percentage (%)":
                if not close(fnum(m[col]), fnum(g[col])):
                    errs.append("%s ex_UID %s %s: %s != %s" % (k[0], k[-1], col, m[col], g[col]))
    if len(ours) != len(gold):
        errs.append("%d groups, golden has %d" % (len(ours), len(gold)))
    return errs


SHEETS = {"gpu_timeline": cmp_timeline, "ops_summary": cmp_ops, "kernel_summary": cmp_kernels,
          "ops_unique_args": cmp_unique_args}


def main():
    import os
    tl, trace, gdir = sys.argv[1:4]
    only = sys.argv[5:] if len(sys.argv) > 4 and sys.argv[4] == "--only" else None
    failed = 0
    for sheet, fn in SHEETS.items():
        if only and sheet not in only:
            continue
        path = os.path.join(gdir, sheet + ".csv")
        if not os.path.exists(path):
            continue
        label = "%s %s" % (os.path.relpath(trace, os.path.dirname(os.path.dirname(gdir))), sheet)
        try:
            errs = fn(tl, trace, path)
        except Exception as e:  # report, never crash the TAP stream
            errs = ["error: %s" % e]
        if isinstance(errs, str):
            print("ok - %s # %s" % (label, errs))
        elif errs:
            failed += 1
            print("not ok - %s" % label)
            for e in errs[:15]:
                print("#   " + e)
            if len(errs) > 15:
                print("#   ... %d more" % (len(errs) - 15))
        else:
            print("ok - %s" % label)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
