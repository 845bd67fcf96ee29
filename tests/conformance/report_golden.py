#!/usr/bin/env python3
"""`tlreplay report` against one directory of TraceLens's golden CSVs.

Usage: report_golden.py TLREPLAY PM_DUMP TRACE GOLDEN_DIR OUTDIR

Runs `tlreplay report` on TRACE into OUTDIR with the options the golden
sheets show (is_recompute columns: --recompute; parent_module: --by-module
with the capture traces beside the trace; kernel_summary.csv: --kernel-summary;
short_kernel_histogram.csv: --short-kernels)
and compares every golden CSV with ours (sheet_compare.py's rules). Prints one
TAP line per golden sheet without its number ("ok - ...", "not ok - ...");
a sheet we did not write fails. A perf-model sheet (UID_first and GFLOPS_first
columns) that differs while pm_dump knows no class for any of its rows' ops is
"not ok ... # TODO perf-model family not merged": its family table is not in
this build, and it turns into a plain result once it is. The JAX sheets that
need the HLO operands of the XLA ops (kernel_launchers,
kernel_launchers_unique_args, df_xla_perf, op_*), which the XSpace reader does
not keep, are "not ok ... # TODO needs HLO operand data the XSpace reader
skips" for an .xplane.pb trace. Stdlib only.
"""
import csv
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sheet_compare  # noqa: E402


def header(path):
    with open(path, newline="", encoding="utf-8") as f:
        return next(csv.reader(f), [])


def options(trace, gdir):
    opts = []
    heads = {n: header(os.path.join(gdir, n + ".csv")) for n in ("gpu_timeline", "ops_summary")
             if os.path.exists(os.path.join(gdir, n + ".csv"))}
    if any("is_recompute" in h for h in heads.values()):
        opts.append("--recompute")
    if "parent_module" in heads.get("ops_summary", []):
        opts.append("--by-module")
        cap = os.path.join(os.path.dirname(trace), "capture_traces")
        if os.path.isdir(cap):
            opts += ["--capture", cap]
    if os.path.exists(os.path.join(gdir, "kernel_summary.csv")):
        opts.append("--kernel-summary")
    if os.path.exists(os.path.join(gdir, "short_kernel_histogram.csv")):
        opts.append("--short-kernels")
    return opts


def family_missing(pm_dump, trace, golden):
    """True when pm_dump has no class for the op of any row of a perf sheet."""
    head = header(golden)
    if "UID_first" not in head or "GFLOPS_first" not in head:
        return False
    with open(golden, newline="", encoding="utf-8") as f:
        uids = [r["UID_first"] for r in csv.DictReader(f)]
    if not uids:
        return False
    # the UIDs of an inference golden are those of the capture-merged trace
    cap = os.path.join(os.path.dirname(trace), "capture_traces")
    extra = ["--capture", cap] if os.path.isdir(cap) else []
    p = subprocess.run([pm_dump] + extra + [trace] + uids, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        return False
    rows = [json.loads(l) for l in p.stdout.splitlines()]
    return bool(rows) and all(r.get("class") is None for r in rows)


JAX_HLO_SHEETS = ("kernel_launchers.csv", "kernel_launchers_unique_args.csv", "df_xla_perf.csv")


def jax_hlo_sheet(trace, name):
    """True for a JAX sheet built from HLO operands, which we do not read."""
    return ".xplane.pb" in trace and (name in JAX_HLO_SHEETS or name.startswith("op_"))


def main(argv):
    if len(argv) != 6:
        sys.stderr.write(__doc__)
        return 2
    tl, pm_dump, trace, gdir, out = argv[1:]
    label = os.path.relpath(gdir, os.path.dirname(os.path.dirname(gdir)))
    p = subprocess.run([tl, "report", "-i", trace, "-o", out] + options(trace, gdir),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    failed = 0
    if p.returncode != 0:
        print("# tlreplay report failed (%d): %s" % (p.returncode, p.stderr.strip()[:300]))
    for name in sorted(os.listdir(gdir)):
        if not name.endswith(".csv"):
            continue
        golden, ours = os.path.join(gdir, name), os.path.join(out, name)
        errs = sheet_compare.compare(ours, golden) if os.path.exists(ours) else ["not written"]
        if not errs:
            print("ok - %s/%s" % (label, name))
            continue
        if jax_hlo_sheet(trace, name):
            todo = " # TODO needs HLO operand data the XSpace reader skips"
        elif family_missing(pm_dump, trace, golden):
            todo = " # TODO perf-model family not merged"
        else:
            todo = ""
        print("not ok - %s/%s%s" % (label, name, todo))
        for e in errs[:5]:
            print("#   " + e[:300])
        failed += not todo
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
