# SPDX-License-Identifier: MIT
"""The torch this interpreter imports, or why it cannot.

Every module takes `torch` from here: the worker must answer its first request (and exit) even
when torch is missing or broken, so no module imports torch unguarded."""

import sys

try:
    import torch
    TORCH_ERROR = None
except Exception as _exc:  # ImportError, OSError from a broken .so, RuntimeError ...
    torch = None
    TORCH_ERROR = "%s: %s" % (type(_exc).__name__, (str(_exc).strip().splitlines() or [""])[0])


def torch_version():
    return torch.__version__ if torch is not None else None


def no_torch():
    """What the worker and the standalone modes say when torch cannot be imported."""
    return "torch cannot be imported by %s: %s" % (sys.executable, TORCH_ERROR)
