#!/usr/bin/env python3
"""`tlreplay report` against one directory of TraceLens's golden CSVs.

Usage: report_golden.py TLREPLAY TRACE GOLDEN_DIR OUTDIR

Runs `tlreplay report` on TRACE into OUTDIR with the options the golden
sheets show (is_recompute columns: --recompute; parent_module: --by-module
with the capture traces beside the trace; kernel_summary.csv: --kernel-summary;
short_kernel_histogram.csv: --short-kernels)
and compares every golden CSV with ours (sheet_compare.py's rules). Prints one
TAP line per golden sheet without its number ("ok - ...", "not ok - ...");
a sheet we did not write fails. The sheets of KNOWN_GAPS below, TraceLens's
that we know we do not match yet, are "not ok ... # TODO <why>", and turn
into plain results when they match. A JAX op_* sheet whose perf model is
not written yet (op_gemm, op_te; op_conv is) is "not ok ... # TODO" for an
.xplane.pb trace. Stdlib only.
"""
import csv
import os
import re
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


# Sheets known not to match yet, each with why (issue 12's open parts). They
# still run and print their differences; prove reports them as TODO, and one
# that starts to match is a plain pass. A sheet not listed here that differs
# fails. Keys: a regex on "GOLDEN_DIR/SHEET.csv" under tests/traces/.
KNOWN_GAPS = [
]


def known_gap(rel):
    for rx, why in KNOWN_GAPS:
        if re.search(rx, rel):
            return why
    return None


def jax_hlo_sheet(trace, name):
    """True for a JAX op_* sheet whose perf model is not written yet
    (jax_gemm's op_gemm, TE attention's op_te); op_conv (jax_conv) is, and
    must match, as the HLO sheets (kernel_launchers, its unique_args,
    df_xla_perf) must."""
    return ".xplane.pb" in trace and name.startswith("op_") and name != "op_conv.csv"


def main(argv):
    if len(argv) != 5:
        sys.stderr.write(__doc__)
        return 2
    tl, trace, gdir, out = argv[1:]
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
        gap = known_gap(os.path.join(gdir.split("/tests/traces/", 1)[-1], name))
        if jax_hlo_sheet(trace, name):
            todo = " # TODO TraceLens's JAX perf model of this op_* sheet is not written yet"
        elif gap:
            todo = " # TODO " + gap
        else:
            todo = ""
        print("not ok - %s/%s%s" % (label, name, todo))
        for e in errs[:5]:
            print("#   " + e[:300])
        failed += not todo
    # and no sheet TraceLens did not write (roofline.csv is ours, beyond it)
    extra = sorted(n for n in (os.listdir(out) if os.path.isdir(out) else [])
                   if n.endswith(".csv") and n != "roofline.csv"
                   and not os.path.exists(os.path.join(gdir, n)))
    print("%s - %s: no sheet TraceLens does not write%s"
          % ("not ok" if extra else "ok", label, (" (" + ", ".join(extra) + ")") if extra else ""))
    failed += bool(extra)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
