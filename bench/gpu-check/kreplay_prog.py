#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The program the GPU check's kreplay phase records (docs/kernel-replay.md):

    python3 kreplay_prog.py TRACE.json

A cuBLAS GEMM (aten::mm), an ATen elementwise kernel (aten::add) and, when torch.compile can
make one, a Triton kernel, three times each, on cuda:0, all under torch.profiler from the first
CUDA call, so that a kernel's count of launches in TRACE.json is its count in the process
(`tlreplay record --uid` finds the same launch). Deterministic: the same kernels in the same
order on every run."""
import sys

import torch


def fused(x, y):
    return torch.relu(x * y) + 1.0


def main():
    trace = sys.argv[1]
    torch.manual_seed(0)
    compiled = None
    try:
        compiled = torch.compile(fused)
    except Exception as exc:  # no Triton here: the other two kernels still run
        sys.stderr.write("kreplay_prog: no torch.compile (%s)\n" % exc)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                            torch.profiler.ProfilerActivity.CUDA],
                                record_shapes=True) as prof:
        a = torch.randn(1024, 1024, device="cuda")
        b = torch.randn(1024, 1024, device="cuda")
        for _ in range(3):
            c = torch.mm(a, b)
            d = torch.add(a, c)
            if compiled is not None:
                try:
                    e = compiled(a, d)
                except Exception as exc:
                    sys.stderr.write("kreplay_prog: torch.compile failed (%s)\n" % exc)
                    compiled = None
        torch.cuda.synchronize()
    prof.export_chrome_trace(trace)
    print("kreplay_prog: checksum %.6f" % float(d.sum() + (e.sum() if compiled is not None else 0)))


if __name__ == "__main__":
    main()
