# SPDX-License-Identifier: MIT
"""Where things are: the tlreplay command, libtlreplay.so, the schema snapshot
and the trace the tlreplay command remembers.

The package sits in one of three layouts:
  the source tree   gdb/tlreplay_gdb         command in build/, snapshots in core/replay/schemas
  make install      $DATADIR/tlreplay/gdb    command in $DATADIR/../bin, library in ../lib
  make bundle       share/tlreplay/gdb       the same, relative to the bundle's root
"""

import ctypes.util
import os
import re
import shutil

PKG_DIR = os.path.dirname(os.path.realpath(__file__))
SCRIPT_DIR = os.path.dirname(PKG_DIR)          # gdb/ or $DATADIR/tlreplay/gdb


def _first_file(cands):
    for c in cands:
        if c and os.path.isfile(c):
            return os.path.abspath(c)
    return None


def program():
    """The tlreplay command: the source tree's build, the installed one beside
    this package, else the first on PATH. None if there is none."""
    found = _first_file([
        os.path.join(SCRIPT_DIR, "..", "build", "tlreplay"),
        os.path.join(SCRIPT_DIR, "..", "..", "..", "bin", "tlreplay"),
    ])
    return found or shutil.which("tlreplay")


def library(prog=None):
    """libtlreplay.so: beside the command's build, in ../lib of an install or a
    bundle, else as the dynamic linker finds it."""
    prog = prog or program()
    cands = []
    if prog:
        d = os.path.dirname(os.path.realpath(prog))
        cands += [os.path.join(d, "libtlreplay.so"), os.path.join(d, "libtlreplay.so.0"),
                  os.path.join(d, "..", "lib", "libtlreplay.so.0"),
                  os.path.join(d, "..", "lib", "libtlreplay.so")]
        # Debian-style multiarch libdir
        libdir = os.path.join(d, "..", "lib")
        if os.path.isdir(libdir):
            for sub in sorted(os.listdir(libdir)):
                cands.append(os.path.join(libdir, sub, "libtlreplay.so.0"))
    cands += [os.path.join(SCRIPT_DIR, "..", "build", "libtlreplay.so"),
              os.path.join(SCRIPT_DIR, "..", "..", "..", "lib", "libtlreplay.so.0")]
    found = _first_file(cands)
    if found:
        return found
    return ctypes.util.find_library("tlreplay") or "libtlreplay.so.0"


def _version_key(name):
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", name)]


def snapshot():
    """The newest bundled schema snapshot (torch-*.json.gz), or $TLREPLAY_SCHEMAS."""
    env = os.environ.get("TLREPLAY_SCHEMAS")
    if env:
        return env
    dirs = [os.path.join(SCRIPT_DIR, "..", "core", "replay", "schemas"),
            os.path.join(SCRIPT_DIR, "..", "schemas")]
    prog = program()
    if prog:
        d = os.path.dirname(os.path.realpath(prog))
        dirs += [os.path.join(d, "..", "share", "tlreplay", "schemas"),
                 os.path.join(d, "..", "core", "replay", "schemas")]
    for d in dirs:
        if not os.path.isdir(d):
            continue
        names = [n for n in os.listdir(d) if n.startswith("torch-") and ".json" in n]
        if names:
            return os.path.abspath(os.path.join(d, max(names, key=_version_key)))
    return None


def state_file(env=None):
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "tlreplay", "current-trace")


def remembered_trace(env=None):
    """The trace the tlreplay command would read without -i: $TLREPLAY_TRACE,
    else the one `tlreplay open` remembers. None if neither."""
    env = os.environ if env is None else env
    t = env.get("TLREPLAY_TRACE")
    if t:
        return t
    try:
        with open(state_file(env)) as f:
            line = f.readline().strip()
    except OSError:
        return None
    return line or None
