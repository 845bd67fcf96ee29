# SPDX-License-Identifier: MIT
"""`tlreplay break` without gdb: which at::_ops::<op>::call symbols to stop at for an op or
for a UID of the trace (and at which call of its thread), and the per-thread call counts the
gdb breakpoints keep, from which `tlreplay here` takes a call's ordinal.
"""

from . import groups
from .schemas import ops_symbol
from .session import UserError, short


class BreakGroup:
    """The gdb breakpoints of one `tlreplay break` (one per overload of the op)
    and the calls they counted, per thread of the program.

    A call is counted once: the stop at the PLT stub that leads to
    at::_ops::<op>::call is not a call (the gdb side does not count it)."""

    def __init__(self, op, overload, symbols, uid=None, target=None, target_main=None,
                 trace_thread=None):
        self.op = op                    # aten::addmm
        self.overload = overload        # "" or the one overload asked for
        self.symbols = symbols          # at::_ops::addmm::call ...
        self.uid = uid                  # the UID asked for, if any
        self.target = target            # stop at this call (1-based), None: every call
        self.target_main = target_main  # the call is on the main thread (True) or another (False)
        self.trace_thread = trace_thread
        self.counts = {}
        self.pid = None
        self.numbers = []               # gdb breakpoint numbers
        self.last = None                # (gdb thread number, ordinal) of the last stop

    @property
    def label(self):
        return self.op + ("." + self.overload if self.overload else "")

    def reset(self, pid=None):
        self.counts = {}
        self.pid = pid

    def hit(self, pid, thread, is_main):
        """Count a call on @thread of process @pid. Returns (n, stop): n is the
        call's ordinal on its thread."""
        if pid != self.pid:
            self.reset(pid)
        n = self.counts.get(thread, 0) + 1
        self.counts[thread] = n
        if self.target is None:
            return n, True
        if self.target_main is not None and bool(is_main) != self.target_main:
            return n, False
        return n, n == self.target

    def count(self, pid, thread):
        if pid != self.pid:
            return None
        return self.counts.get(thread)

    def describe(self):
        if self.target is None:
            what = "stop at every call of %s" % self.label
        else:
            where = "the main thread" if self.target_main else "a thread other than the main one"
            what = "stop at call %d of %s on %s (UID %d)" % (self.target, self.op, where,
                                                            self.uid)
        return what


def plan(session, arg):
    """A BreakGroup (without gdb breakpoints yet) for `tlreplay break ARG`."""
    arg = arg.strip()
    if not arg:
        raise UserError("Usage: tlreplay break OP|UID (e.g. tlreplay break aten::addmm).")
    sc = session.schemas()
    if arg.isdigit():
        tr = session.require_trace()
        uid = session.require_uid(arg)
        ev = tr.event(uid)
        if ev.kind != "cpu_op":
            raise UserError("UID %d is a %s event (%s), not a CPU op."
                            % (uid, ev.kind or ev.cat, short(ev.name)))
        op = ev.name
        if not op.startswith("aten::"):
            raise UserError("%s has no at::_ops entry point to stop at (only aten ops do)."
                            % op)
        same = tr.same_thread_sorted(tr.find(name=op))
        th, n = groups.ordinal(same, uid)
        main = groups.main_thread(same)
        syms = _symbols(op, "", sc)
        return BreakGroup(op, "", syms, uid=uid, target=n,
                          target_main=(th == main) if th is not None else None,
                          trace_thread=th)
    op, _, ov = arg.partition(".")
    if "::" not in op:
        op = "aten::" + op
    if not op.startswith("aten::"):
        raise UserError("%s has no at::_ops entry point to stop at (only aten ops do)." % op)
    if sc is not None and sc.known(op) and ov and sc.find(op, ov) is None:
        raise UserError("%s has no overload '%s' (%s)." % (
            op, ov, ", ".join(s.overload or "(default)" for s in sc.overloads(op))))
    if sc is not None and not sc.known(op) and op not in session.op_names():
        raise UserError("Unknown op %s (not in the schemas of %s nor in the trace)."
                        % (op, sc.label))
    return BreakGroup(op, ov, _symbols(op, ov, sc))


def _symbols(op, overload, sc):
    if overload:
        return ["at::_ops::%s::call" % ops_symbol(op, overload)]
    ovs = sc.overloads(op) if sc is not None else []
    if not ovs:
        return ["at::_ops::%s::call" % ops_symbol(op, "")]
    return ["at::_ops::%s::call" % s.symbol for s in ovs]


def counting(breaks, op):
    """The BreakGroup of @breaks that counts every call of @op (for ordinals), if any."""
    for g in breaks:
        if g.op == op and not g.overload and g.numbers:
            return g
    return None
