# SPDX-License-Identifier: MIT
"""The replay's default counts, in a module without torch: the standalone replayer's argument
parser needs them before it imports torch (its usage errors and --help answer at once)."""

DEFAULT_WARMUP = 10
DEFAULT_ITERS = 100
DEFAULT_BUDGET_S = 10.0  # seconds per op on the CPU when the calls are not counted out (timing.plan_calls)
