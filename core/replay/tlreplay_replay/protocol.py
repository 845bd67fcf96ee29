# SPDX-License-Identifier: MIT
"""The worker's pipe protocol (docs/replay-internals.md): one JSON object per line, requests on
fd 3 and replies on fd 4, ASCII JSON without NaN or Infinity; and worker mode, the loop that
reads requests, hands them to a Session and writes the replies, with its exit statuses."""

import faulthandler
import io
import json
import math
import os
import sys
import traceback

from .errors import ParentGone, Unavailable, one_line
from .session import Session
from .torchenv import no_torch, torch


def _json_safe(obj):
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if obj is None or isinstance(obj, (str, int, bool)):
        return obj
    return str(obj)


def dumps(obj):
    """One line of the protocol (also the standalone mode's -j lines): a non-finite number is
    sent as null, anything else JSON lacks as its str()."""
    return json.dumps(_json_safe(obj), separators=(",", ":"), allow_nan=False)


class Channel:
    """The two pipes of worker mode."""

    def __init__(self, rfd, wfd):
        self._r = io.open(rfd, "rb", buffering=65536, closefd=False)
        self._wfd = wfd

    def read(self):
        line = self._r.readline()
        if not line:
            return None
        return line

    def send(self, obj):
        data = (dumps(obj) + "\n").encode("utf-8")
        view = memoryview(data)
        while view:
            try:
                n = os.write(self._wfd, view)
            except BrokenPipeError:
                raise ParentGone()
            view = view[n:]

    def wait_go(self):
        """Wait for the parent's answer to a region event: True for `go`, False for `stop`."""
        while True:
            line = self.read()
            if line is None:
                raise ParentGone()
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if isinstance(msg, dict):
                if msg.get("cmd") == "go":
                    return True
                if msg.get("cmd") == "stop":
                    return False
                if msg.get("cmd") == "quit":
                    raise ParentGone()


def worker_main(argv):
    fds = os.environ.get("TLREPLAY_WORKER_FDS", "3,4")
    try:
        rfd, wfd = (int(x) for x in fds.split(","))
        os.fstat(rfd)
        os.fstat(wfd)
    except (ValueError, OSError) as exc:
        sys.stderr.write("tlreplay_worker: bad TLREPLAY_WORKER_FDS=%r: %s\n" % (fds, exc))
        return 2
    # whatever an op prints goes to stderr, never into the protocol
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    for fd in (rfd, wfd):  # children of ops (compilers ...) must not hold the pipes open
        os.set_inheritable(fd, False)
    os.environ.pop("TLREPLAY_WORKER_FDS", None)
    try:
        faulthandler.enable(file=sys.stderr)
    except Exception:
        pass
    chan = Channel(rfd, wfd)
    session = Session(chan) if torch is not None else None
    try:
        while True:
            line = chan.read()
            if line is None:
                return 0
            if not line.strip():
                continue
            try:
                req = json.loads(line)
                if not isinstance(req, dict):
                    raise ValueError("not a JSON object")
            except ValueError as exc:
                chan.send({"id": None, "status": "failed", "kind": "args", "error": "bad request: %s" % exc})
                continue
            cmd = req.get("cmd")
            rid = req.get("id")
            if cmd == "quit":
                return 0
            if cmd in ("go", "stop"):  # a stray answer outside a region
                continue
            if session is None:
                chan.send({"id": rid, "status": "failed", "kind": "error", "error": no_torch()})
                return 1
            try:
                reply = session.handle(req)
            except (ParentGone, KeyboardInterrupt):
                raise
            except Unavailable as exc:
                reply = {"id": rid, "status": "unavailable", "error": one_line(exc)}
            except BaseException as exc:
                if req.get("verbose"):
                    traceback.print_exc(file=sys.stderr)
                reply = {"id": rid, "status": "failed", "kind": getattr(exc, "kind", "error"),
                         "error": one_line(exc)}
            chan.send(reply)
            if reply.get("fatal"):
                sys.stderr.write("tlreplay_worker: the CUDA context is unusable after this error; exiting\n")
                return 3
    except ParentGone:
        return 0
    except KeyboardInterrupt:
        return 130
