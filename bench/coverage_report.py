#!/usr/bin/env python3
"""Summarise bench/replay_coverage.sh's results as the markdown of docs/BENCHMARKS.md.

Usage: coverage_report.py OUT_DIR

For each trace: the --launchers --unique groups written to IR, how many
replayed (status ok), and every other one classified:
  gpu-backend   bound to a GPU backend: cuDNN/MIOpen, flash or memory-efficient
                attention, and the GPU-only kernel libraries (vLLM, aiter,
                fbgemm_gpu, SGLang, Triton): nothing a CPU can run
  newer-torch   an aten op this torch (1.13) does not have yet
  unrecorded    the profile lacks what a faithful replay needs (no Concrete
                Inputs, TensorList shapes)
  failed        anything else: the bugs to fix
The target is the share of ok among the groups that are not gpu-backend.
"""
import glob
import json
import os
import re
import sys
from collections import Counter, defaultdict

GPU_BACKEND = re.compile(r"cudnn|miopen|flash|efficient_attention|_efficient|cutlass|nccl|"
                         r"^(vllm|_C|_rocm_C|_C_cache_ops|aiter|fbgemm|sgl_kernel|triton|trtllm|"
                         r"_moe_C|_vllm_fa\d?_C|torch_ipex)::")


def classify(entry, res):
    op = entry["op_name"]
    if res["status"] == "ok":
        return "ok"
    err = res.get("error") or ""
    if GPU_BACKEND.search(op) or "cuda" in err.lower() and "not" in err.lower():
        return "gpu-backend"
    if res["status"] == "unavailable" and op.startswith("aten::"):
        return "newer-torch"
    unknown = [a for a in entry["replay_ir"]["list_pos_args"] if a.get("arg_type") == "unknown"]
    if entry.get("unrecorded_args") or unknown or "not recorded" in err:
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
        target = n - c["gpu-backend"]
        rows.append((name, n, c, target))
        tot.update(c)
        tot["groups"] += n
    print("| trace | groups | ok | gpu-backend | newer-torch | unrecorded | failed | ok of non-GPU-backend |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, n, c, target in rows:
        pct = "%.1f%%" % (100.0 * c["ok"] / target) if target else "-"
        print("| %s | %d | %d | %d | %d | %d | %d | %s |" % (
            name.replace(".json.gz", "").replace(".json", "").replace("_tests_", "/")[:80], n, c["ok"],
            c["gpu-backend"], c["newer-torch"], c["unrecorded"], c["failed"], pct))
    target = tot["groups"] - tot["gpu-backend"]
    print("| **all** | %d | %d | %d | %d | %d | %d | **%.1f%%** |" % (
        tot["groups"], tot["ok"], tot["gpu-backend"], tot["newer-torch"], tot["unrecorded"], tot["failed"],
        100.0 * tot["ok"] / target if target else 0))
    for k in ("failed", "unrecorded", "newer-torch", "gpu-backend"):
        if not failures[k]:
            continue
        print("\n%s (%d groups):\n" % (k, sum(failures[k].values())))
        for (op, err), v in failures[k].most_common(25):
            print("- %d x `%s`: %s" % (v, op, err.replace("|", "/")))


if __name__ == "__main__":
    main()
