# SPDX-License-Identifier: MIT
# A replay worker that speaks only the protocol (fds 3 and 4, one JSON object per line) and knows
# no torch: the unit tests of the library's worker calls start it with TLREPLAY_WORKER. What it
# answers to "schemas" is chosen by FAKE_WORKER_SCHEMAS: "list" (two schemas, and one per
# namespace it was asked to import), "refuse" (an error reply) or "bare" (ok, without a list).
import json
import os
import sys

mode = os.environ.get("FAKE_WORKER_SCHEMAS", "list")
rd = os.fdopen(3, "rb", buffering=0)
out = 4


def send(obj):
    os.write(out, (json.dumps(obj) + "\n").encode())


for line in iter(rd.readline, b""):
    req = json.loads(line)
    rid, cmd = req.get("id"), req.get("cmd")
    if cmd == "hello":
        send({"id": rid, "status": "ok", "torch": "9.9.9", "python": sys.executable, "cuda": False,
              "devices": []})
    elif cmd == "schemas" and mode == "refuse":
        send({"id": rid, "status": "error", "error": "cannot import tltest"})
    elif cmd == "schemas" and mode == "bare":
        send({"id": rid, "status": "ok", "torch": "9.9.9"})
    elif cmd == "schemas":
        extra = ["%s::op(Tensor self) -> Tensor" % ns for ns in sorted(req.get("namespaces") or {})]
        send({"id": rid, "status": "ok", "torch": "9.9.9",
              "schemas": ["aten::relu(Tensor self) -> Tensor",
                          "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"] + extra})
    elif cmd == "quit":
        send({"id": rid, "status": "ok"})
        break
    else:
        send({"id": rid, "status": "error", "error": "unknown command %s" % cmd})
