#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tlreplay's replay worker, and the standalone replayer that `tlreplay pack` ships.

Worker mode (started by tlreplay, never by hand):

    TLREPLAY_WORKER_FDS=3,4 python3 tlreplay_worker.py --worker

reads one JSON request per line from fd 3 and writes one JSON reply per line to fd 4; the
protocol is described in docs/replay-internals.md.

Standalone mode (for people who only have Python and torch):

    python3 tlreplay_worker.py replay IR.json [--device cpu|cuda[:N]] [-r ITERS] [-j] ...
    python3 tlreplay_worker.py schemas [--namespace NS ...]

Needs Python >= 3.8 and torch >= 1.13; nothing else (stdlib + torch).

The code is the tlreplay_replay package beside this file (its __init__ lists the modules).
This script only finds it: tlreplay starts the worker, and `tlreplay pack` ships it, by this
one file name.
"""

import os
import sys

# The package is beside this file, wherever it was started from: Python puts a script's folder
# first on sys.path, but not under -I or PYTHONSAFEPATH, nor when the file is loaded as a module
# (the tests, the GPU check's stand-in). realpath: a symbolic link to this file finds it too.
_HERE = os.path.dirname(os.path.realpath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

try:
    from tlreplay_replay.cli import main
except ImportError as _exc:
    if getattr(_exc, "name", None) != "tlreplay_replay":
        raise
    sys.stderr.write("tlreplay_worker: the tlreplay_replay package is not beside %s (copy "
                     "core/replay/tlreplay_replay/ there)\n" % os.path.realpath(__file__))
    sys.exit(2)

if __name__ == "__main__":
    sys.exit(main())
