# SPDX-License-Identifier: MIT
"""`tlreplay here` without gdb: which op of the stopped program's stack to look for (the
innermost one the trace has), and which of its trace events the program is at: the events
grouped by recorded arguments, matched against the arguments read from the program, or picked
by the call ordinal `tlreplay break` counted. In a stopped tlreplay process, the UID it works on.
"""

import os

from . import frames, groups
from .session import UserError, plural, uid_list


def pick_op(session, found):
    """The op of the stack to look for: the innermost op frame whose op the
    trace has. @found: frames.scan() of the stack from the selected frame
    outward, as (gdb frame level, FrameOp). Returns (level, FrameOp,
    launch, missing): launch is the innermost kernel launch frame or None,
    missing the ops further in that the trace lacks."""
    _, fop, launch = frames.innermost_op(found)
    if fop is None:
        if launch is not None:
            raise UserError("Frame #%d is a kernel launch (%s), but no PyTorch op frame is "
                            "above it." % (launch[0], launch[1].func))
        raise UserError("No PyTorch op on the stack (looked for at::_ops::<op>::call, "
                        "at::native::<op>, wrapper_<op>, cudaLaunchKernel/hipLaunchKernel).")
    tr = session.require_trace()
    missing = []
    for i, f in found:
        if f.kind != "op":
            continue
        if tr.find(name=f.op, limit=1):
            return i, f, launch, missing
        if f.op not in missing:
            missing.append(f.op)
    if len(missing) == 1:
        raise UserError("%s is not in the trace %s." % (missing[0], tr.path))
    raise UserError("None of the ops on the stack (%s) is in the trace %s."
                    % (", ".join(missing), tr.path))


def choose(session, found, live=None, live_note=None, ordinal=None, is_main=True, pick=None,
         thread_label="this thread", choice=None):
    """Choose the trace event of the op a stopped program is in.

    @found: as for pick_op(); @choice: pick_op()'s answer if already asked.
    @live: [(position, arg name, TensorInfo)] read from the program, or
    None (@live_note says why). @ordinal: the call's ordinal on its thread
    (from tlreplay break). Returns (lines, uid or None)."""
    idx, fop, launch, missing = choice or pick_op(session, found)
    tr = session.trace
    out = []
    op = fop.op
    how = "frame #%d %s (%s)" % (idx, fop.func, fop.how)
    out.append("The program is in %s: %s." % (fop.full_name, how))
    if missing:
        out.append("(%s, further in, %s not in the trace.)" % (
            ", ".join(missing), "is" if len(missing) == 1 else "are"))
    if launch is not None and launch[0] < idx:
        out.append("It is launching a GPU kernel (frame #%d %s)." % (launch[0], launch[1].func))
    uids = tr.find(name=op)
    same = tr.same_thread_sorted(uids)
    evs = {u: tr.event(u) for u in uids}
    ordered = sorted(uids, key=lambda u: (evs[u].ts or 0.0, u))
    gs = groups.group([(u, evs[u].args) for u in ordered])
    evs = None
    live_t = [(pos, t.dims, t.strides, t.dtype) for pos, _, t in live] if live else None
    if live:
        out.append("Live arguments (read from the program's memory): " + ", ".join(
            "%s %s%s" % (name, t.dtype or "?", groups._fmt_list(t.dims)) +
            ("{%s}" % ", ".join(str(x) for x in t.strides)
             if t.strides != groups.contiguous_strides(t.dims) else "")
            for _, name, t in live) + ".")
    else:
        out.append("Shapes come from the trace%s." % (": " + live_note if live_note else ""))
    # the call ordinal -> one UID
    ord_uid = None
    if ordinal:
        th = groups.main_thread(same) if is_main else _other_thread(same)
        n_th = len(same.get(th, [])) if th else 0
        if th is not None and ordinal <= n_th:
            ord_uid = same[th][ordinal - 1]
            out.append("This is call %d of %s on %s (counted by tlreplay break): UID %d in "
                       "the trace." % (ordinal, op, thread_label, ord_uid))
        else:
            out.append("This is call %d of %s on %s (counted by tlreplay break), but the "
                       "trace has %d on that thread: no UID for it." %
                       (ordinal, op, thread_label, n_th))
    out.append("%s in %s: %s, %s:" % (op, os.path.basename(tr.path), plural(len(uids), "call"),
                                     plural(len(gs), "distinct argument set")))
    matches = []
    for i, g in enumerate(gs, 1):
        notes = []
        m = groups.live_match(g.args, live_t)
        if m:
            matches.append(i)
            notes.append("matches the live arguments")
        if ord_uid is not None and ord_uid in g.uids:
            notes.append("call %d is UID %d" % (ordinal, ord_uid))
        out.append("  [%d] %-9s UID%s %s  %s%s" % (
            i, plural(g.n, "call"), "s" if g.n > 1 else "", uid_list(g.uids, 4),
            groups.describe(g.args), ("   <- " + "; ".join(notes)) if notes else ""))
    chosen = None
    why = None
    if pick is not None:
        if not 1 <= pick <= len(gs):
            raise UserError("There is no argument set [%d]: pick 1 to %d." % (pick, len(gs)))
        g = gs[pick - 1]
        chosen = ord_uid if ord_uid in g.uids else g.first
        why = "[%d], as asked" % pick
    elif ord_uid is not None:
        chosen, why = ord_uid, "the call ordinal"
    elif len(gs) == 1:
        chosen, why = gs[0].first, "the only argument set"
    elif len(matches) == 1:
        chosen, why = gs[matches[0] - 1].first, "the argument set that matches the live " \
            "arguments"
    if chosen is None:
        out.append("Pick one: tlreplay here N (N from the list above).")
    else:
        out.append("Picked UID %d (%s)." % (chosen, why))
        if session.cursor is not None:
            session.cursor.select(chosen)
    return out, chosen


def in_tlreplay(session, job, uid, how):
    """A stopped tlreplay command: the UID it works on. Returns (lines, uid)."""
    out = []
    path = job.trace
    tr = session.trace
    if path:
        path = os.path.abspath(path)
        if tr is None or os.path.realpath(tr.path) != os.path.realpath(path):
            session.open(path)
            out.append("Opened %s, the trace of the tlreplay process." % path)
    tr = session.require_trace()
    if uid is None:
        raise UserError("The tlreplay process (%s) names no UID yet." % (job.cmd or "?"))
    if not tr.valid(uid):
        raise UserError("The tlreplay process works on UID %d, which is not in %s." %
                        (uid, tr.path))
    ev = tr.event(uid)
    out.append("The program is tlreplay %s, on UID %d: %s (%s)." % (job.cmd or "?", uid,
                                                                   ev.name, how))
    session.cursor.select(uid)
    return out, uid


def _other_thread(same):
    main = groups.main_thread(same)
    others = [t for t in same if t != main]
    return others[0] if len(others) == 1 else None
