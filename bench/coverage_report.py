#!/usr/bin/env python3
"""Summarise bench/replay_coverage.sh's results as the markdown of docs/BENCHMARKS.md.

Usage: coverage_report.py OUT_DIR

For each trace: the --launchers --unique groups written to IR, how many
replayed (status ok), and every other one classified:
  gpu-backend   bound to a GPU backend: cuDNN/MIOpen, flash or memory-efficient
                attention
  gpu-library   an op of a GPU kernel library that cannot be installed here
                (vLLM, aiter, fbgemm_gpu and Meta's fb::, SGLang, Triton)
  newer-torch   an aten op this torch (1.13) does not have yet
  cpu-kernel    this torch's CPU kernel refuses what the GPU ran (a dtype mix)
  unrecorded    the profile lacks what a faithful replay needs (values an older
                profiler did not record, TensorList shapes)
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
GPU_LIBRARY = re.compile(r"^(vllm|_C|_rocm_C|_C_cache_ops|aiter|fbgemm|fb|sgl_kernel|triton|trtllm|"
                         r"_moe_C|_vllm_fa\d?_C|torch_ipex)::")
CPU_KERNEL = re.compile(r"expected scalar type|not implemented for|\"[a-z0-9_]+_cpu\" not implemented|"
                        r"from the 'CPU' backend|only supports CUDA|is not supported on CPU")
UNRECORDED = re.compile(r"recorded as None|not recorded|without its value")


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
    if CPU_KERNEL.search(err):
        return "cpu-kernel"
    if entry.get("unrecorded_args") or UNRECORDED.search(entry.get("schemaless_reason", "") + err):
        return "unrecorded"
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
                failures[k][(e["op_name"], (r.get("error") or "")[:90])] += 1
        n = len(entries)
        target = n - c["gpu-backend"] - c["gpu-library"]
        rows.append((name, n, c, target))
        tot.update(c)
        tot["groups"] += n
    cols = ("ok", "gpu-backend", "gpu-library", "newer-torch", "cpu-kernel", "unrecorded", "failed")
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
    for k in ("failed", "unrecorded", "cpu-kernel", "newer-torch", "gpu-library", "gpu-backend"):
        if not failures[k]:
            continue
        print("\n%s (%d groups):\n" % (k, sum(failures[k].values())))
        for (op, err), v in failures[k].most_common(25):
            print("- %d x `%s`: %s" % (v, op, err.replace("|", "/")))


if __name__ == "__main__":
    main()
