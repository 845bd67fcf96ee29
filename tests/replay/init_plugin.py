# SPDX-License-Identifier: MIT
"""A custom initializer for the CLI replay tests: tltest::checkfill wants 7 * arange."""
import torch


class CheckfillInit:
    name = "checkfill-init"
    op_patterns = ["tltest::checkfill"]

    def initialize(self, ctx):
        x = ctx.tensor(["x"], 0)
        x.copy_(7 * torch.arange(x.numel(), dtype=x.dtype).reshape(x.shape))
        return "checkfill-init: x = 7 * arange(%d)" % x.numel()


INITIALIZERS = [CheckfillInit()]
