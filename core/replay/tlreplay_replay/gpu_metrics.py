# SPDX-License-Identifier: MIT
"""GPU metrics in a replay (`gpu_metrics`, docs/replay-internals.md): CUPTI counts ncu's metrics
over `calls` calls of the op per pass, as many passes as CUPTI needs, the tensors the op writes
put back before each pass but the first so that every pass counts the same work. A metric
problem never fails the replay: it is that metric's `not supported` and its `why`."""

import re

from .errors import cuda_broken, is_oom, one_line
from .fmt import human_bytes
from .gpulib import TLG_KIND_COUNTER, GpuMetricsUnavailable, preload_cupti
from .tensors import storage_elements
from .torchenv import torch


def parse_gpu_metric(text):
    """`sm__x.sum`, `nvgpu/sm__x.sum/` or `nvgpu0/sm__x.sum/` -> (gpu index or None, metric)."""
    m = re.match(r"^nvgpu(\d*)/(.+?)/?$", text)
    if not m:
        return None, text
    return (int(m.group(1)) if m.group(1) else None), m.group(2)


def gpu_metric_per_call(metric, kind):
    """Whether a value over N calls divides by N: plain counters only (`dram__bytes_read.sum`),
    not ratios, throughputs or a counter's submetrics (`.per_second`, `.pct_of_peak_...`)."""
    return kind == TLG_KIND_COUNTER and len(metric.split(".")) <= 2


def _tensors_in(value):
    if torch is not None and isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors_in(v)]
    return []


def _schema_writes(op):
    """Positions and names of the arguments the op's schema marks as written (`Tensor(a!)`)."""
    out = set()
    schema = getattr(op, "_schema", None)  # an OpOverload has one; a packet does not
    for i, arg in enumerate(getattr(schema, "arguments", None) or []):
        info = getattr(arg, "alias_info", None)
        if info is not None and getattr(info, "is_write", False):
            out.add(arg.name)
            if not getattr(arg, "kwarg_only", False):
                out.add(i)
    return out


def written(op, args, kwargs, arg_names, pos_marks, kw_marks):
    """The tensors the op may write, to restore between counting passes: arguments whose IR
    type is mutable (`Tensor(a!)`), that were built uninitialised (`init` null: outputs), or
    that the op's schema marks as written."""
    writes = _schema_writes(op)
    out = []
    for i, a in enumerate(args):
        arg_type, null = pos_marks[i] if i < len(pos_marks) else ("", False)
        if "!" in arg_type or null or i in writes or (i < len(arg_names) and arg_names[i] in writes):
            out += _tensors_in(a)
    for k, v in kwargs.items():
        arg_type, null = kw_marks.get(k, ("", False))
        if "!" in arg_type or null or k in writes:
            out += _tensors_in(v)
    return out


class TensorSnapshot:
    """A copy of the storage the written tensors address, put back before each counting pass
    but the first (ncu's kernel replay does the same with the memory a kernel writes)."""

    def __init__(self, tensors):
        self.pairs = []
        seen = set()
        for t in tensors:
            n = storage_elements(list(t.shape), list(t.stride()))
            key = (t.data_ptr(), n, t.dtype)
            if n == 0 or key in seen:
                continue
            seen.add(key)
            flat = t.as_strided((n,), (1,))  # the whole span, overlaps (stride 0) included
            try:
                copy = flat.clone()
            except Exception as exc:
                if not is_oom(exc):
                    raise
                copy = flat.to("cpu")  # slower to put back, but it fits
            self.pairs.append((flat, copy))

    def restore(self):
        for flat, copy in self.pairs:
            flat.copy_(copy)

    def nbytes(self):
        return sum(c.numel() * c.element_size() for _f, c in self.pairs)


def count(loader, names, req, device, call, written_tensors, flush, calls, warn):
    """CUPTI metrics over `calls` calls of the op per pass, one pass per replay of the region:
    ([{"name", "status": "ok", "value", "unit", "passes", "calls"} | {"name", "status":
    "not supported", "why"}], the backend's description or None). Never raises for a metric
    problem; an op or CUDA failure inside a pass is reported per metric too, unless the context
    is dead (then it propagates). loader: the worker's gpulib.Loader; flush: the L2 buffer to
    zero before each pass, or None."""
    out = [None] * len(names)
    wanted = []  # (index in names, metric)
    for i, text in enumerate(names):
        gpu, metric = parse_gpu_metric(text)
        if device.type != "cuda":
            out[i] = "the replay device is %s" % device.type
        elif getattr(torch.version, "hip", None):
            out[i] = "CUPTI metrics need an NVIDIA GPU (torch %s runs on ROCm)" % torch.__version__
        elif gpu is not None and gpu != device.index:
            out[i] = "%s asks for GPU %d, the replay runs on %s" % (text, gpu, device)
        else:
            wanted.append((i, metric))
    backend = None
    if wanted:
        try:
            backend = _count_passes(loader, names, wanted, out, req, device, call, written_tensors,
                                    flush, calls, warn)
        except GpuMetricsUnavailable as exc:
            for i, _m in wanted:
                out[i] = str(exc)
    return [r if isinstance(r, dict) else {"name": names[i], "status": "not supported", "why": r}
            for i, r in enumerate(out)], backend


def _count_passes(loader, names, wanted, out, req, device, call, written_tensors, flush, calls, warn):
    gpu = loader.load(req.get("gpu_lib"))
    preload_cupti()
    sess = gpu.open(device.index, [m for _i, m in wanted])
    try:
        snap = None
        if sess.passes > 1 and written_tensors:
            try:
                snap = TensorSnapshot(written_tensors)
            except Exception as exc:
                raise GpuMetricsUnavailable("%d passes needed, but the op's written tensors cannot be "
                                            "kept between them: %s" % (sess.passes, one_line(exc)))
        runs = 0
        limit = 2 * max(sess.passes, 1) + 8  # the library gives up first; a backstop
        try:
            for p in range(limit):
                if p and snap is not None:
                    snap.restore()
                if flush is not None:
                    flush.zero_()  # as ncu's --cache-control all: each pass starts cold
                sess.begin(p)  # synchronizes first: the restore is not counted
                for _ in range(calls):
                    call()
                runs += 1
                if sess.end(p):  # synchronizes, then stops counting
                    break
            values = sess.values()
        except GpuMetricsUnavailable:
            raise
        except Exception as exc:
            if cuda_broken(req):
                raise
            raise GpuMetricsUnavailable("the op failed during counting pass %d: %s" % (runs, one_line(exc)))
        if snap is not None and snap.pairs:
            warn("GPU metrics: %d pass%s, the op's written tensors (%s) restored before each" % (
                runs, "" if runs == 1 else "es", human_bytes(snap.nbytes())))
        for k, (i, metric) in enumerate(wanted):
            if sess.status[k]:
                out[i] = sess.why[k] or "not counted"
                continue
            total = values[k]
            summed = gpu_metric_per_call(metric, sess.kind[k])
            # value: per call; total: over the pass's calls (perf's counter-value)
            out[i] = {"name": names[i], "status": "ok", "value": total / calls if summed else total,
                      "total": total, "summed": summed, "unit": sess.unit[k], "passes": runs, "calls": calls}
        return sess.backend
    finally:
        sess.close()
