#!/usr/bin/env python3
"""Compare `tlreplay report` with TraceLens's plain report of the same trace.

Usage: plain_compare.py TLREPLAY TRACE TRACELENS_DIR KNOWN_FILE LABEL

TRACELENS_DIR holds the CSVs (gzipped) that TraceLens's generate_perf_report_pytorch wrote for
TRACE (tests/conformance/tracelens-plain/, made by scripts/make-tracelens-plain.sh). Prints TAP lines, one
per sheet TraceLens wrote, and one that the report writes no sheet TraceLens does not (roofline.csv,
ours, aside). A sheet listed in KNOWN_FILE ("LABEL SHEET reason" lines) is a known, documented
difference: it is reported as TODO with the reason. Cells compare as sheet_compare.py says.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sheet_compare  # noqa: E402

sheet_compare.NONE_IS_EMPTY = True

OURS_ONLY = {"roofline.csv"}


def known(path, label):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) == 3 and parts[0] == label:
                out[parts[1]] = parts[2]
    return out


def main(argv):
    if len(argv) != 6:
        sys.stderr.write(__doc__)
        return 2
    tl, trace, tdir, kfile, label = argv[1:]
    todo = known(kfile, label)
    n = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([tl, "report", "-i", trace, "-o", tmp + "/r"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        theirs = sorted(f[:-3] for f in os.listdir(tdir) if f.endswith(".csv.gz"))
        if p.returncode != 0:
            print("not ok 1 - %s: tlreplay report failed: %s" % (label, p.stderr.strip()[:300]))
            print("1..1")
            return 1
        ours = set(os.listdir(tmp + "/r")) - OURS_ONLY
        for sheet in theirs:
            n += 1
            name = sheet[:-4]
            mine = os.path.join(tmp, "r", sheet)
            if not os.path.exists(mine):
                errs = ["TraceLens writes %s, we do not" % sheet]
            else:
                errs = sheet_compare.compare(mine, os.path.join(tdir, sheet + ".gz"), most=3)
            directive = " # TODO %s" % todo[name] if name in todo else ""
            print("%s %d - %s/%s%s" % ("not ok" if errs else "ok", n, label, name, directive))
            for e in errs:
                print("# " + e[:400])
            failed += bool(errs) and not directive
        n += 1
        extra = sorted(ours - set(theirs))
        directive = " # TODO %s" % todo["EXTRA"] if "EXTRA" in todo else ""
        print("%s %d - %s: no sheet TraceLens does not write%s%s" % (
            "not ok" if extra else "ok", n, label, (" (%s)" % ", ".join(extra)) if extra else "", directive))
        failed += bool(extra) and not directive
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
