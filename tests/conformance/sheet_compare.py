#!/usr/bin/env python3
"""Compare a sheet we wrote with TraceLens's golden CSV of the same name.

Usage: sheet_compare.py OURS.csv GOLDEN.csv   (exit 0 when they match; else the
first differences on stdout, exit 1). As a module: compare(ours, golden) -> [why].

The rules (issue 12): the same columns in the same order, the same rows in the
same order, strings equal, numbers within 1e-6 relative. A cell that holds a
Python literal (a tuple of shapes, a list of kernel-detail dicts, with numpy's
np.float64(...) reprs inside) is compared as a structure, with the same
tolerance on every number in it. Stdlib only.
"""
import ast
import csv
import gzip
import math
import re
import sys

REL = 1e-6
# pandas 1.5 (Debian 12's, which made tests/conformance/tracelens-plain/) writes a None
# parameter as 'None' where pandas 2 (the shared goldens) writes an empty field; the
# library follows the goldens, and plain_compare.py sets this to take both as one.
NONE_IS_EMPTY = False
_NP = re.compile(r"np\.(?:float|int)\d*\(([^()]*)\)")


def _literal(s):
    if not s or s[0] not in "([{'\"":
        return None
    try:
        return ast.literal_eval(_NP.sub(r"\1", s))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def _close(a, b):
    if math.isnan(a) and math.isnan(b):
        return True
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= max(1e-12, REL * max(abs(a), abs(b)))


def same_value(a, b):
    """Two parsed values: structures element by element, numbers with REL."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return _close(float(a), float(b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same_value(a[k], b[k]) for k in a)
    return a == b


def same_cell(a, b):
    """Two CSV cells."""
    if a == b:
        return True
    x, y = _num(a), _num(b)
    if x is not None and y is not None:
        return _close(x, y)
    empty = ("", "nan", "None") if NONE_IS_EMPTY else ("", "nan")
    if a in empty and b in empty:
        return True
    la, lb = _literal(a), _literal(b)
    return la is not None and lb is not None and same_value(la, lb)


def read(path):
    # kernel_details cells of a long trace pass csv's default 128 KiB field limit
    csv.field_size_limit(1 << 30)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return (rows[0], rows[1:]) if rows else ([], [])


def compare(ours, golden, most=10):
    oh, orows = read(ours)
    gh, grows = read(golden)
    errs = []
    if oh != gh:
        errs.append("columns differ: ours %s, golden %s" % (oh, gh))
        return errs
    if len(orows) != len(grows):
        errs.append("%d rows, golden has %d" % (len(orows), len(grows)))
    for i, (o, g) in enumerate(zip(orows, grows)):
        for col, a, b in zip(gh, o, g):
            if not same_cell(a, b):
                errs.append("row %d (%s) %s: %r, golden %r" % (i + 1, g[0] if g else "", col, a[:200], b[:200]))
                break
        if len(errs) >= most:
            break
    return errs


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    errs = compare(argv[1], argv[2])
    for e in errs:
        print(e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
