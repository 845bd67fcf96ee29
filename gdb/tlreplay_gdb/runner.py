# SPDX-License-Identifier: MIT
"""Child tlreplay processes whose output streams into gdb.

A replay runs as its own process (`tlreplay uid ...`, `tlreplay stat ... uid
...`), so an op that crashes takes down only that process (and its Python
worker), never gdb. The child gets a session of its own: a Ctrl-C at gdb's
terminal reaches gdb, which raises KeyboardInterrupt in Python; run() then
stops the child's whole process group (SIGINT, then SIGKILL after a grace
period) and raises Interrupted.
"""

import codecs
import os
import select
import signal
import subprocess
import time


class Interrupted(Exception):
    pass


class StartError(Exception):
    pass


def _killpg(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def stop(proc, grace=2.0):
    """Stop @proc and everything it started (its process group)."""
    if proc.poll() is None:
        _killpg(proc.pid, signal.SIGINT)
        t_end = time.monotonic() + grace
        while proc.poll() is None and time.monotonic() < t_end:
            time.sleep(0.05)
    _killpg(proc.pid, signal.SIGKILL)       # the worker may outlive tlreplay
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        pass


def run(argv, write, env=None, poll=0.1, on_start=None):
    """Run @argv with stdout and stderr merged, passing its output to
    @write(str) as it comes. Returns the exit status (negative: killed by that
    signal). Raises StartError if it cannot start, Interrupted on Ctrl-C."""
    env = dict(os.environ if env is None else env)
    env["TLREPLAY_PARENT_PID"] = str(os.getpid())
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True,
                                bufsize=0)
    except OSError as e:
        raise StartError("Cannot run %s: %s (set tlreplay program PATH)."
                         % (argv[0], e.strerror or e)) from None
    if on_start:
        on_start(proc)
    dec = codecs.getincrementaldecoder("utf-8")("replace")
    fd = proc.stdout.fileno()
    try:
        while True:
            r, _, _ = select.select([fd], [], [], poll)
            if not r:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            text = dec.decode(chunk)
            if text:
                write(text)
        tail = dec.decode(b"", final=True)
        if tail:
            write(tail)
        return proc.wait()
    except KeyboardInterrupt:
        stop(proc)
        raise Interrupted() from None
    finally:
        if proc.poll() is None:
            stop(proc)
        proc.stdout.close()


def describe_status(rc):
    if rc is None:
        return "did not finish"
    if rc < 0:
        try:
            return "killed by %s" % signal.Signals(-rc).name
        except ValueError:
            return "killed by signal %d" % -rc
    return "exit status %d" % rc
