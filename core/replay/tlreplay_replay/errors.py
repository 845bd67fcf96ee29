# SPDX-License-Identifier: MIT
"""How a replay fails: the exceptions that pick a reply's `status` and `kind`, the one-line
`error` text every reply carries, and the two questions asked after an error (out of memory?
is the CUDA context still usable?)."""

from .torchenv import torch


class ReplayFailure(Exception):
    kind = "error"


class ArgsError(ReplayFailure):
    kind = "args"


class MemoryRefused(ReplayFailure):
    kind = "memory"


class Unavailable(Exception):
    pass


class ParentGone(Exception):
    pass


class RegionStopped(ReplayFailure):
    """The parent answered region_begin with `stop` (its counters could not start)."""


def one_line(exc, limit=500):
    """`Type: first line of the message`, never a traceback."""
    if isinstance(exc, (ReplayFailure, Unavailable)):
        name = ""
    else:
        name = type(exc).__name__
    text = ""
    for line in str(exc).splitlines():
        if line.strip():
            text = line.strip()
            break
    if name:
        text = "%s: %s" % (name, text) if text else name
    return text[:limit]


def is_oom(exc):
    oom = getattr(torch.cuda, "OutOfMemoryError", None) if torch is not None else None
    if oom is not None and isinstance(exc, oom):
        return True
    return isinstance(exc, (MemoryError,)) or "out of memory" in str(exc).lower()


def cuda_broken(req):
    """After an error on CUDA: is the context unusable (illegal address, device assert)?"""
    dev = req.get("device")
    if torch is None or not isinstance(dev, str) or not dev.startswith("cuda"):
        return False
    try:
        if not torch.cuda.is_available():
            return False
        torch.cuda.synchronize()
        return False
    except Exception:
        return True
