#!/usr/bin/env python3
"""HTA's critical path of one annotation instance of a trace, as JSON on stdout: the reference
numbers for `tlreplay critpath` (issue 25.5). Run by scripts/make-hta-critpath.sh with HTA's
source on PYTHONPATH (HolisticTraceAnalysis, Debian's pandas, networkx and plotly).

Usage: hta_critpath.py TRACE ANNOTATION INSTANCE|none
"""
import json
import logging
import os
import shutil
import sys
import tempfile

logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis  # noqa: E402


def main(argv):
    trace, ann, inst = argv[1], argv[2], argv[3]
    d = tempfile.mkdtemp()
    try:
        shutil.copy(trace, os.path.join(d, os.path.basename(trace)))
        ta = TraceAnalysis(trace_dir=d)
        cp, ok = ta.critical_path_analysis(rank=0, annotation=ann, instance_id=None if inst == "none" else int(inst))
        if not ok:
            print(json.dumps({"annotation": ann, "instance": inst, "error": "HTA found no critical path"}))
            return 1
        bd = cp.get_critical_path_breakdown()
        by = {str(k) or "none": float(v) for k, v in bd.groupby("bound_by").duration.sum().items()}
        by_type = {str(k): float(v) for k, v in bd.groupby("type").duration.sum().items()}
        print(json.dumps({"annotation": ann, "instance": inst, "length_us": float(bd.duration.sum()),
                          "edges": int(len(bd)), "bound_by_us": by, "edge_type_us": by_type}, sort_keys=True))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
