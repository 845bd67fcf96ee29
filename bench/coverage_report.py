#!/usr/bin/env python3
"""Summarise bench/replay_coverage.sh's results as the markdown of docs/BENCHMARKS.md.

Usage: coverage_report.py OUT_DIR

For each trace: the --launchers --unique groups written to IR, how many
replayed (status ok), and every other one classified:
  gpu-backend   bound to a GPU backend: cuDNN/MIOpen, flash or memory-efficient
                attention
  gpu-library   an op of a GPU kernel library that cannot be installed here
                (vLLM, aiter, fbgemm_gpu and Meta's fb::, SGLang, Triton, and
                torch's CUDA-only symmetric-memory collectives)
  newer-torch   an aten op this torch (1.13) does not have yet
  refused       torch refuses the recorded arguments: a CPU kernel without the
                GPU's dtype mix, an output dtype the result cannot be cast to
  unrecorded    the profile lacks what a faithful replay needs (values an older
                profiler did not record, TensorList shapes)
  no-overload   the recorded arguments fit no overload of the op in this torch
                (inconsistent records, or a signature that changed)
  failed        anything else: the bugs to fix
The target is the share of ok among the groups that are neither gpu-backend
nor gpu-library.
"""
import glob
import json
import os
import re
import sys
from collections import Counter, defaultdict

GPU_BACKEND = re.compile(r"cudnn|miopen|flash|efficient_attention|_efficient|cutlass|nccl")
GPU_LIBRARY = re.compile(r"^(vllm|_C|_rocm_C|_C_cache_ops|aiter|fbgemm|fb|sgl_kernel|sglang|sglang_profiler|"
                         r"triton|trtllm|_moe_C|_vllm_fa\d?_C|torch_ipex|symm_mem)::")
REFUSED = re.compile(r"expected scalar type|not implemented for|\"[a-z0-9_]+_cpu\" not implemented|"
                     r"from the 'CPU' backend|only supports CUDA|is not supported on CPU|"
                     r"can't be cast to the desired output type|must have the same dtype")
UNRECORDED = re.compile(r"recorded as None|not recorded|without its value")
NO_OVERLOAD = re.compile(r"arguments recorded, the schema has|where the schema has|does not fit")


def classify(entry, res):
    op = entry["op_name"]
    if res["status"] == "ok":
        return "ok"
    err = res.get("error") or ""
    if GPU_BACKEND.search(op):
        return "gpu-backend"
    if GPU_LIBRARY.search(op):
        return "gpu-library"
    if res["status"] == "unavailable" and op.startswith("aten::"):
        return "newer-torch"
    if REFUSED.search(err):
        return "refused"
    reason = entry.get("schemaless_reason", "")
    if entry.get("unrecorded_args") or UNRECORDED.search(reason + err):
        return "unrecorded"
    if NO_OVERLOAD.search(reason):
        return "no-overload"
    return "failed"


def main():
    out = sys.argv[1]
    rows, failures = [], defaultdict(Counter)
    tot = Counter()
    for res_path in sorted(glob.glob(os.path.join(out, "*.res.jsonl"))):
        name = os.path.basename(res_path)[: -len(".res.jsonl")]
        entries = json.load(open(os.path.join(out, name + ".ir.json")))
        results = [json.loads(l) for l in open(res_path) if l.strip()]
        c = Counter()
        for r in results:
            e = entries[r["index"]]
            k = classify(e, r)
            c[k] += 1
            if k not in ("ok",):
                why = r.get("error") or ""
                if k in ("no-overload", "unrecorded") and e.get("schemaless_reason"):
                    why = e["schemaless_reason"]
                failures[k][(e["op_name"], why[:110])] += 1
        n = len(entries)
        target = n - c["gpu-backend"] - c["gpu-library"]
        rows.append((name, n, c, target))
        tot.update(c)
        tot["groups"] += n
    cols = ("ok", "gpu-backend", "gpu-library", "newer-torch", "refused", "unrecorded", "no-overload", "failed")
    print("| trace | groups | " + " | ".join(cols) + " | ok of the rest |")
    print("|---|" + "---:|" * (len(cols) + 2))
    for name, n, c, target in rows:
        pct = "%.1f%%" % (100.0 * c["ok"] / target) if target else "-"
        print("| %s | %d | %s | %s |" % (
            name.replace(".json.gz", "").replace(".json", "").replace("_tests_", "/")[:80], n,
            " | ".join(str(c[k]) for k in cols), pct))
    target = tot["groups"] - tot["gpu-backend"] - tot["gpu-library"]
    print("| **all** | %d | %s | **%.1f%%** |" % (
        tot["groups"], " | ".join(str(tot[k]) for k in cols), 100.0 * tot["ok"] / target if target else 0))
    for k in ("failed", "no-overload", "unrecorded", "refused", "newer-torch", "gpu-library", "gpu-backend"):
        if not failures[k]:
            continue
        print("\n%s (%d groups):\n" % (k, sum(failures[k].values())))
        for (op, err), v in failures[k].most_common(25):
            print("- %d x `%s`: %s" % (v, op, err.replace("|", "/")))


if __name__ == "__main__":
    main()
