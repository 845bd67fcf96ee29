# SPDX-License-Identifier: MIT
"""tlreplay in gdb: navigate a PyTorch profiler trace, and replay the op a
stopped program is in.

Load with `gdb -x gdb/tlreplay.py` or `(gdb) source .../tlreplay.py`, then see
`help tlreplay` and docs/gdb.md. Sourcing it again changes nothing.

gdb runs this file in its __main__ namespace, so it only puts its own
directory on sys.path and imports the tlreplay_gdb package beside it: the
commands are in tlreplay_gdb/commands.py (their settings in params.py), the
logic (which runs without gdb) in the package's other modules.
"""


def _tlreplay_load(path):
    import os
    import sys

    # realpath: a symbolic link to this file (in /etc/gdb/gdbinit.d, say) finds the package
    here = os.path.dirname(os.path.realpath(path))
    if here not in sys.path:
        sys.path.insert(0, here)
    from tlreplay_gdb import commands
    commands.register()


_tlreplay_load(__file__)
del _tlreplay_load
