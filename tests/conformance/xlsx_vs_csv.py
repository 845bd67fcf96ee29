#!/usr/bin/env python3
"""Check a workbook against the CSVs of the same sheets.

Usage: xlsx_vs_csv.py BOOK.xlsx NAME=SHEET.csv...  or
       xlsx_vs_csv.py BOOK.xlsx --dir DIR  (every DIR/SHEET.csv, its worksheet
       named SHEET cut to Excel's 31 characters)
(exit 0 when every
worksheet NAME holds its CSV: the header row bold, numbers stored as numbers
and equal to the CSV's within 1e-9, text equal, blanks where the CSV is
empty, and an empty worksheet where pandas wrote its one empty line for a
frame without columns; exit 77 when openpyxl is missing, 1 with the first
differences).
"""
import csv
import os
import sys

try:
    import openpyxl
except ImportError:
    sys.exit(77)


def main(argv):
    book = openpyxl.load_workbook(argv[1])
    errs = []
    specs = argv[2:]
    if specs[:1] == ["--dir"]:
        d = specs[1]
        specs = ["%s=%s" % (f[:-4][:31], os.path.join(d, f)) for f in sorted(os.listdir(d)) if f.endswith(".csv")]
    for spec in specs:
        name, path = spec.split("=", 1)
        if name not in book.sheetnames:
            errs.append("no worksheet %r in %s" % (name, book.sheetnames))
            continue
        ws = book[name]
        with open(path, newline="", encoding="utf-8") as f:
            want = list(csv.reader(f))
        # pandas writes a frame without columns (a comparison's empty split)
        # as one empty line: an empty worksheet
        if want == [[]]:
            want = []
        got = list(ws.iter_rows(values_only=True))
        if len(got) != len(want):
            errs.append("%s: %d rows, the CSV has %d" % (name, len(got), len(want)))
            continue
        if want and not all(c.font.b for c in ws[1]):
            errs.append("%s: header not bold" % name)
        for r, (g, w) in enumerate(zip(got, want)):
            for c, (x, y) in enumerate(zip(g, w)):
                if r and isinstance(x, (int, float)) and not isinstance(x, bool):
                    ok = y != "" and abs(x - float(y)) <= 1e-9 * max(1.0, abs(x))
                elif x is None:
                    ok = y == ""
                else:
                    ok = str(x) == y or (isinstance(x, bool) and str(x) == y)
                if not ok:
                    errs.append("%s row %d col %d: %r, CSV %r" % (name, r + 1, c + 1, x, y))
    for e in errs[:10]:
        print(e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
