# SPDX-License-Identifier: MIT
"""tlreplay's replay worker, as a package: core/replay/tlreplay_worker.py (the script tlreplay
starts, and the one `tlreplay pack` ships) puts this folder's parent on sys.path and calls
cli.main(). One concern per module (docs/replay-internals.md, "Package layout"):

  cli           the standalone replayer: `replay IR.json`, `schemas`; main() (also --worker)
  protocol      the pipe protocol: JSON lines on fds 3 and 4, the worker-mode loop
  session       one worker's requests (hello, schemas, replay) and the replay's steps in order
  ops           op resolution: overloads, namespaces' modules (custom ops), aliases, schemas
  arguments     the op's arguments from the IR: conversions, str defaults, the memory check
  tensors       dtypes and tensor values: TensorSpec, empty_strided, the fills
  initializers  custom initializers: plugins, the built-in PagedAttention and MoE routing
  timing        the timed loop: CPU clock, CUDA events, CUDA graphs, L2 flush, kernel names
  gpu_metrics   counting CUPTI metrics over the op's calls, pass by pass
  gpulib        libtlreplay_gpu.so through ctypes, and finding it (and torch's libcupti)
  errors        the failures that pick a reply's status and kind, and their one-line text
  fmt           values and sizes as replies and messages write them
  portable      stand-ins for ops of another backend that have no kernel here
  torchenv      the torch this interpreter imports, or why it cannot
  defaults      the default counts, without torch (cli parses its options before torch)

Python >= 3.8, the standard library and torch (>= 1.13) only: users run it under whichever
Python holds their torch.
"""

PROTOCOL = 1  # the `protocol` of the hello reply: bumped when a request or reply changes shape
__version__ = "0.1.0"
