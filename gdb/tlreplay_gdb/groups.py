# SPDX-License-Identifier: MIT
"""Events of one op grouped by the arguments the profiler recorded, and the
call ordinal of an event on its thread.

A group is what TraceLens calls a set of unique args: (Input Dims, Input type,
Input Strides, Concrete Inputs). The ordinal of an event is its position
(1-based) among the events of the same name on the same thread, in call order
(start time, ties by UID), counted from the start of the trace: the N-th time
the program called the op, if the profile starts with the program (see
docs/gdb.md).
"""

import json

ARG_KEYS = ("Input Dims", "Input type", "Input Strides", "Concrete Inputs")


def signature(args):
    """Hashable key of the recorded arguments of an event's args."""
    return tuple(json.dumps(args.get(k), sort_keys=True) for k in ARG_KEYS)


def has_shapes(args):
    return "Input Dims" in args or "Input type" in args


class Group:
    __slots__ = ("sig", "uids", "args", "n")

    def __init__(self, sig, args):
        self.sig, self.args, self.uids, self.n = sig, args, [], 0

    @property
    def first(self):
        return self.uids[0]


def group(events):
    """@events: [(uid, args dict)] in call order. Returns the groups in order
    of their first call."""
    by = {}
    order = []
    for uid, args in events:
        sig = signature(args)
        g = by.get(sig)
        if g is None:
            g = by[sig] = Group(sig, args)
            order.append(g)
        g.uids.append(uid)
        g.n += 1
    return order


def _fmt_list(v):
    return "[" + ", ".join(str(x) for x in v) + "]"


def contiguous_strides(dims):
    st, acc = [], 1
    for d in reversed(dims):
        st.append(acc)
        acc *= max(int(d), 1)
    return list(reversed(st))


def describe_arg(dims, typ, strides, concrete):
    """One recorded argument, short: float[8, 16], float[16, 4]{1, 16}, 1, None."""
    if typ in ("", None):
        return "None" if concrete in ("", None) else str(concrete)
    if isinstance(dims, list) and (dims or concrete in ("", None)) and \
            typ not in ("Scalar", "ScalarList", "TensorList", "GenericList", "Int", "Double",
                        "Bool", "ScalarType", "Device", "Layout"):
        if dims and isinstance(dims[0], list):          # a tensor list
            return "%s[%s]" % (typ, ", ".join(_fmt_list(d) for d in dims))
        s = "%s%s" % (typ, _fmt_list(dims))
        if isinstance(strides, list) and strides and strides != contiguous_strides(dims):
            s += "{%s}" % ", ".join(str(x) for x in strides)
        return s
    if concrete not in ("", None):
        return str(concrete)
    return typ


def describe(args):
    """The recorded arguments of an event, one short line."""
    dims = args.get("Input Dims") or []
    types = args.get("Input type") or []
    strides = args.get("Input Strides") or []
    conc = args.get("Concrete Inputs") or []
    n = max(len(dims), len(types))
    if n == 0:
        return "(no shapes recorded)"
    out = []
    for i in range(n):
        out.append(describe_arg(dims[i] if i < len(dims) else None,
                                types[i] if i < len(types) else "",
                                strides[i] if i < len(strides) else None,
                                conc[i] if i < len(conc) else None))
    return "(" + ", ".join(out) + ")"


def ordinal(by_thread, uid):
    """(thread, N): the N-th call (1-based) of its thread. @by_thread is
    {thread: [uid...]} in call order."""
    for th, uids in by_thread.items():
        if uid in uids:
            return th, uids.index(uid) + 1
    return None, None


def main_thread(by_thread):
    """The thread of the program's main thread: tid == pid as Kineto records
    it, else the one with the most calls."""
    best = None
    for th in by_thread:
        pid, tid = th
        if pid == tid:
            return th
    for th, uids in by_thread.items():
        if best is None or len(uids) > len(by_thread[best]):
            best = th
    return best


def live_match(args, live):
    """Does an event's recorded args agree with the tensors read from the live
    process? @live: [(position, dims, strides, dtype or None)]."""
    if not live:
        return None
    dims = args.get("Input Dims") or []
    types = args.get("Input type") or []
    strides = args.get("Input Strides") or []
    for pos, d, st, dt in live:
        if pos >= len(dims) or list(dims[pos]) != list(d):
            return False
        if pos < len(strides) and strides[pos] and st is not None and \
                list(strides[pos]) != list(st):
            return False
        if dt is not None and pos < len(types) and types[pos] and types[pos] != dt:
            return False
    return True
