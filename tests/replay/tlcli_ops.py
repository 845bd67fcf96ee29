# SPDX-License-Identifier: MIT
"""Custom ops of tests/fixtures/replay.json, registered with torch.library, for the CLI
replay tests (tests/replay/test_cli.sh): --namespace tltest=tests/replay/tlcli_ops.py."""
import os

import torch

lib = torch.library.Library("tltest", "DEF")


def _def(schema, fn):
    lib.define(schema)
    lib.impl(schema.split("(")[0], fn, "CPU")


def scale(x, s):
    return x * s


def crash(x):
    os.abort()  # SIGABRT, as a failing assert in a C++ extension would


def checkfill(x):
    # the plugin tests/replay/init_plugin.py fills x with 7 * arange
    if not torch.equal(x, 7 * torch.arange(x.numel(), dtype=x.dtype).reshape(x.shape)):
        raise RuntimeError("checkfill: x was not filled by the init plugin: %s" % x.tolist())
    return x.sum()


_def("scale(Tensor x, float s) -> Tensor", scale)
_def("crash(Tensor x) -> Tensor", crash)
_def("checkfill(Tensor x) -> Tensor", checkfill)
