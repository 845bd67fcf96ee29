# SPDX-License-Identifier: MIT
"""A small torch program for the gdb tests: four aten::addmm calls with
three distinct argument sets (the fourth through aten::linear).

    python3 addmm_model.py              run it (under gdb: break at::_ops::addmm::call)
    python3 addmm_model.py TRACE.json   run it under the profiler and write the trace

$ADDMM_MODEL_DEVICE (default cpu) puts the tensors on another device, e.g. cuda for the GPU
check (bench/gpu-check); the profiler then records the GPU's activity too.

The trace is what torch.profiler(record_shapes=True) writes when this torch
has Kineto. Debian's torch 1.13 has not: its profiler writes a legacy trace
without shapes, so then the ops are recorded through a TorchDispatchMode in
the same Kineto layout (cpu_op events with Input Dims, Input type, Input
Strides and Concrete Inputs, pid and tid of the calling thread).
"""

import json
import os
import sys
import threading
import time

import torch


DEVICE = os.environ.get("ADDMM_MODEL_DEVICE", "cpu")


def model():
    torch.manual_seed(0)
    b = torch.randn(4, device=DEVICE)
    w = torch.randn(16, 4, device=DEVICE)
    x = torch.randn(8, 16, device=DEVICE)
    y = torch.addmm(b, x, w)            # call 1: (4) (8,16) (16,4)
    y = torch.addmm(b, x, w)            # call 2: the same arguments
    x2 = torch.randn(2, 16, device=DEVICE)
    z = torch.addmm(b, x2, w)           # call 3: (4) (2,16) (16,4)
    w2 = torch.randn(4, 16, device=DEVICE)
    v = torch.nn.functional.linear(x2, w2, b)       # call 4: mat2 is w2.t(), strides (1, 16)
    return y.sum() + z.sum() + v.sum()


def _profiler_type(v):
    if isinstance(v, torch.Tensor):
        return str(v.dtype).replace("torch.", ""), list(v.shape), list(v.stride()), ""
    if v is None:
        return "", [], [], ""
    if isinstance(v, (bool, int, float)):
        return "Scalar", [], [], repr(v)
    if isinstance(v, (list, tuple)) and all(isinstance(e, (int, float)) for e in v):
        return "ScalarList", [], [], "[" + ", ".join(str(e) for e in v) + "]"
    return "", [], [], ""


# torch dtype names -> the profiler's dtype strings
DTYPES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
          "bool": "bool", "float16": "c10::Half", "bfloat16": "c10::BFloat16"}


def record(path):
    from torch.utils._python_dispatch import TorchDispatchMode

    events = []
    t0 = time.perf_counter_ns()

    class Recorder(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            vals = list(args)
            for a in func._schema.arguments[len(args):]:
                vals.append(kwargs.get(a.name, a.default_value if a.has_default_value() else None))
            dims, typs, strides, conc = [], [], [], []
            for v in vals:
                t, d, s, c = _profiler_type(v)
                typs.append(DTYPES.get(t, t))
                dims.append(d)
                strides.append(s)
                conc.append(c)
            start = time.perf_counter_ns()
            out = func(*args, **kwargs)
            end = time.perf_counter_ns()
            events.append({"ph": "X", "cat": "cpu_op", "name": func._schema.name,
                           "pid": os.getpid(), "tid": threading.get_native_id(),
                           "ts": (start - t0) / 1000.0, "dur": (end - start) / 1000.0,
                           "args": {"External id": len(events) + 1, "Input Dims": dims,
                                    "Input type": typs, "Input Strides": strides,
                                    "Concrete Inputs": conc}})
            return out

    with Recorder():
        model()
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": events,
                   "tlreplay_note": "recorded by tests/gdb/inferiors/addmm_model.py"}, f)


def profile(path):
    from torch.profiler import ProfilerActivity, profile as prof_ctx

    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if DEVICE.startswith("cuda") else [])
    with prof_ctx(activities=acts, record_shapes=True) as prof:
        model()
    prof.export_chrome_trace(path)
    with open(path) as f:
        doc = json.load(f)
    evs = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
    if not any("Input Dims" in (e.get("args") or {}) for e in evs):
        record(path)        # no Kineto: no shapes in the trace


if __name__ == "__main__":
    if len(sys.argv) > 1:
        profile(sys.argv[1])
    else:
        print("result %.4f" % float(model()))
