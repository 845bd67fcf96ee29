# SPDX-License-Identifier: MIT
"""Values and sizes as replies and messages write them: describe() for a reply's `args` and
`result` (`Tensor[141, 512] bfloat16`, `[...]`, `(...)`), human_bytes() for the memory and
L2 messages."""

from .tensors import dtype_name
from .torchenv import torch


def describe(value, depth=0):
    if torch is not None and isinstance(value, torch.Tensor):
        return "Tensor[%s] %s" % (", ".join(str(int(d)) for d in value.shape), dtype_name(value.dtype))
    if value is None:
        return "None"
    if torch is not None and isinstance(value, torch.dtype):
        return dtype_name(value)
    if torch is not None and isinstance(value, (torch.device, torch.layout, torch.memory_format)):
        return str(value).replace("torch.", "")
    if isinstance(value, (list, tuple)):
        if depth > 2:
            return "..."
        items = [describe(v, depth + 1) for v in list(value)[:8]]
        if len(value) > 8:
            items.append("... %d more" % (len(value) - 8))
        if isinstance(value, tuple):
            return "(%s)" % ", ".join(items)
        return "[%s]" % ", ".join(items)
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def human_bytes(n):
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            return ("%d %s" % (value, unit)) if unit == "B" else ("%.1f %s" % (value, unit))
        value /= 1024.0
    return "%d B" % n
