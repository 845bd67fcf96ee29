# SPDX-License-Identifier: MIT
"""The state of tlreplay in one gdb session, and everything the commands
print, without gdb: the open trace, the cursor, the schemas, the `tlreplay
break` counters, and the choice of the event that matches the op a stopped
program is in.

Errors for the user are UserError (one line); the gdb side turns them into
gdb.GdbError.
"""

import os
import shlex

from . import cursor as cursor_mod
from . import frames, groups, libtl, locate
from .schemas import SchemaIndex, ops_symbol


class UserError(Exception):
    """A one-line message for the user."""


def fmt_us(v):
    if v is None:
        return "-"
    return "%.3f us" % v


def plural(n, word, words=None):
    return "%d %s" % (n, word if n == 1 else (words or word + "s"))


def short(name, n=60):
    return name if len(name) <= n else name[:n - 3] + "..."


def uid_list(uids, limit=6):
    s = ", ".join(str(u) for u in uids[:limit])
    if len(uids) > limit:
        s += ", ... (%d more)" % (len(uids) - limit)
    return s


class Settings:
    """What `set tlreplay ...` holds (the gdb side keeps it current)."""

    def __init__(self):
        self.device = "cpu"
        self.iterations = 100
        self.warmup = 10
        self.program = ""
        self.python = ""
        self.library = ""
        self.replay_options = ""
        self.events = ""
        self.store = True
        self.verbose = False

    def program_path(self):
        p = self.program or locate.program()
        if not p:
            raise UserError("Cannot find the tlreplay command: set tlreplay program PATH.")
        return p

    def library_path(self):
        if self.library:
            return self.library
        return locate.library(self.program or None)


# ------------------------------------------------------------------ breakpoints

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


# ------------------------------------------------------------------ the session

class Session:
    def __init__(self):
        self.settings = Settings()
        self.trace = None
        self.cursor = None
        self._schemas = None
        self._schemas_path = None
        self._op_names = None
        self.breaks = []                # BreakGroup
        self.tensor_offset = None       # TensorImpl layout found for this program

    # -------------------------------------------------------------- trace

    def open(self, path):
        path = os.path.abspath(os.path.expanduser(path))
        if not os.path.exists(path):
            raise UserError("%s: No such file." % path)
        try:
            tr = libtl.Trace.open(path, self.settings.library_path())
        except libtl.TlError as e:
            raise UserError(str(e)) from None
        self.close()
        self.trace = tr
        self.cursor = cursor_mod.Cursor(_Tree(tr))
        return tr

    def close(self):
        if self.trace is not None:
            self.trace.close()
        self.trace = None
        self.cursor = None
        self._op_names = None

    def require_trace(self, auto=True):
        """The open trace; else the one the tlreplay command would read
        ($TLREPLAY_TRACE, `tlreplay open` outside gdb), opened now."""
        if self.trace is None and auto:
            t = locate.remembered_trace()
            if t and os.path.exists(t):
                self.open(t)
        if self.trace is None:
            raise UserError("No trace open: tlreplay open TRACE (or set tlreplay trace PATH).")
        return self.trace

    def require_uid(self, arg):
        tr = self.require_trace()
        if arg is None or arg == "":
            if self.cursor.uid is None:
                raise UserError("No op selected: tlreplay select UID (tlreplay list shows UIDs).")
            return self.cursor.uid
        try:
            uid = int(arg, 0)
        except ValueError:
            raise UserError("'%s' is not a UID (an event's index in traceEvents)." % arg) from None
        if not tr.valid(uid):
            raise UserError("No event with UID %d in %s (UIDs go from 0 to %d)."
                            % (uid, tr.path, tr.nevents - 1))
        return uid

    def schemas(self):
        """The schema snapshot bundled with tlreplay (None if there is none)."""
        path = locate.snapshot()
        if path != self._schemas_path:
            self._schemas_path = path
            self._schemas = None
            if path:
                try:
                    self._schemas = SchemaIndex.load(path)
                except (OSError, ValueError):
                    self._schemas = None
        return self._schemas

    def op_names(self):
        if self.trace is None:
            return set()
        if self._op_names is None:
            self._op_names = set(self.trace.op_names())
        return self._op_names

    def known_op(self, name):
        sc = self.schemas()
        return name in self.op_names() or (sc is not None and sc.known(name))

    # -------------------------------------------------------------- printing events

    def event_line(self, uid, level=None, marker=" "):
        """One line, like gdb's frame line:
        #1  42     aten::linear (...)  65.361 us  [cpu_op, tid 1]"""
        tr = self.trace
        ev = tr.event(uid)
        lead = "#%-2d " % level if level is not None else ""
        shapes = ""
        if ev.kind == "cpu_op" and groups.has_shapes(ev.args):
            shapes = " " + groups.describe(ev.args)
        return "%s%s%-6d %s%s  %s  [%s, tid %s]" % (marker, lead, uid, ev.name, shapes,
                                                   fmt_us(ev.dur), ev.kind or ev.cat, ev.tid)

    def frame_line(self):
        c = self.cursor
        return self.event_line(c.uid, c.level, marker="")

    def list_lines(self, regex=None, limit=50, any_kind=False):
        tr = self.require_trace()
        try:
            uids = tr.find(regex=regex, kinds=None if any_kind else (libtl.KIND_CPU_OP,))
        except Exception as e:  # re.error
            raise UserError("Bad regular expression '%s': %s." % (regex, e)) from None
        if not uids:
            raise UserError("No %s matches '%s' in %s." % ("event" if any_kind else "CPU op",
                                                           regex or "", tr.path))
        shown = uids[:limit] if limit else uids
        t0 = tr.t0
        out = ["%-1s %7s %10s %12s  %-8s %s" % ("", "UID", "start ms", "dur", "tid", "name (args)")]
        sel = self.cursor.uid if self.cursor else None
        for u in shown:
            ev = tr.event(u)
            shapes = " " + groups.describe(ev.args) if ev.kind == "cpu_op" and \
                groups.has_shapes(ev.args) else ""
            start = "%.3f" % ((ev.ts - t0) / 1000.0) if ev.ts is not None else "-"
            out.append("%-1s %7d %10s %12s  %-8s %s%s" % ("*" if u == sel else "", u, start,
                                                          fmt_us(ev.dur), ev.tid, ev.name, shapes))
        if len(shown) < len(uids):
            out.append("... %d more (tlreplay list -n 0 shows all)" % (len(uids) - len(shown)))
        return out

    def backtrace_lines(self):
        c = self.cursor
        if c is None or c.uid is None:
            raise UserError("No op selected: tlreplay select UID (tlreplay list shows UIDs).")
        out = []
        for i in range(len(c.path) - 1, -1, -1):
            lvl = len(c.path) - 1 - i
            out.append(self.event_line(c.path[i], lvl, marker="*" if i == c.pos else " "))
        return out

    def ir_entry(self, uid):
        """(entry dict, None) or (None, why not)."""
        snap = locate.snapshot()
        try:
            return self.trace.ir_entry(uid, snap), None
        except libtl.TlError as e:
            return None, str(e)

    def info_lines(self, uid):
        tr = self.require_trace()
        ev = tr.event(uid)
        out = ["UID %d: %s  [%s]" % (uid, ev.name, ev.kind or ev.cat)]
        start = "%.3f ms into the trace" % ((ev.ts - tr.t0) / 1000.0) if ev.ts is not None else "-"
        out.append("  time     %s, duration %s" % (start, fmt_us(ev.dur)))
        th_line = "  thread   pid %s tid %s" % (ev.pid, ev.tid)
        if ev.kind == "cpu_op":
            same = tr.same_thread_sorted(tr.find(name=ev.name))
            th, n = groups.ordinal(same, uid)
            if n:
                th_line += ", call %d of %d to %s on this thread" % (n, len(same[th]), ev.name)
        out.append(th_line)
        stack = tr.stack(uid)
        if len(stack) > 1:
            out.append("  called from " + " <- ".join(
                "%s (%d)" % (tr.event(u).name, u) for u in stack[1:6]) +
                (" <- ..." if len(stack) > 6 else ""))
        kids = tr.children(uid)
        if kids:
            out.append("  calls    " + ", ".join("%s (%d)" % (tr.event(u).name, u)
                                              for u in kids[:6]) +
                       (", ... (%d in all)" % len(kids) if len(kids) > 6 else ""))
        if groups.has_shapes(ev.args):
            out.append("  recorded " + groups.describe(ev.args))
        gpu = tr.gpu_events(uid) if ev.kind not in ("kernel", "gpu_memcpy", "gpu_memset") else []
        if ev.kind == "cpu_op":
            entry, why = self.ir_entry(uid)
            if entry is not None:
                out += self.ir_lines(entry)
            else:
                out.append("  IR       none: %s" % why)
        if gpu:
            busy = 0.0
            lines = []
            for g in gpu:
                ge = tr.event(g)
                busy += ge.dur or 0.0
                a = ge.args
                cfg = ""
                if "grid" in a and "block" in a:
                    cfg = "  grid %s block %s" % (a["grid"], a["block"])
                lines.append("           %-6d %10s  %s%s" % (g, fmt_us(ge.dur), ge.name[:100], cfg))
            out.append("  GPU      %s below it, %s in all:" % (plural(len(gpu), "event"),
                                                              fmt_us(busy)))
            out += lines[:20]
            if len(lines) > 20:
                out.append("           ... %d more" % (len(lines) - 20))
        elif ev.kind == "cpu_op":
            out.append("  GPU      none")
        if ev.kind in ("kernel", "gpu_memcpy", "gpu_memset"):
            lu = tr.launcher(uid)
            if lu is not None:
                out.append("  launched by %s (%d)" % (tr.event(lu).name, lu))
        return out

    @staticmethod
    def ir_lines(entry):
        out = []
        if entry.get("schema"):
            out.append("  schema   %s" % entry["schema"])
        if entry.get("schemaless"):
            out.append("  schema   none matched: argument types from the profile (%s)"
                       % entry.get("schemaless_reason", "schemaless"))
        ir = entry.get("replay_ir") or {}
        for kind, key in (("arg", "list_pos_args"), ("kw ", "list_kwargs")):
            for a in ir.get(key) or []:
                v = a.get("value")
                if isinstance(v, dict) and "shape" in v:
                    txt = "Tensor%s %s" % (v.get("shape"), v.get("dtype"))
                    if v.get("strides") and v["strides"] != groups.contiguous_strides(v["shape"]):
                        txt += " strides %s" % v["strides"]
                else:
                    txt = repr(v) if isinstance(v, str) else str(v)
                out.append("  %s      %s: %s = %s" % (kind, a.get("arg_name"), a.get("arg_type"),
                                                      txt))
        if entry.get("unrecorded_args"):
            out.append("  guessed  %s (not recorded by the profiler)"
                       % ", ".join(entry["unrecorded_args"]))
        return out

    # -------------------------------------------------------------- child processes

    def replay_target(self, uid):
        """The op to replay for the selected event: itself for a CPU op; for a
        GPU event the op that launched it; for a runtime call the CPU op that
        made it. Returns (uid, note or None)."""
        tr = self.require_trace()
        ev = tr.event(uid)
        if ev.kind == "cpu_op":
            return uid, None
        if ev.kind in ("kernel", "gpu_memcpy", "gpu_memset"):
            cand = tr.launcher(uid)
        else:
            cand = next((u for u in tr.stack(uid)[1:] if tr.event(u).kind == "cpu_op"), None)
        if cand is None or tr.event(cand).kind != "cpu_op":
            return uid, None        # tlreplay says why it cannot
        return cand, "UID %d is a %s event; replaying the op that %s it, UID %d (%s)." % (
            uid, ev.kind or ev.cat, "launched" if ev.kind in ("kernel", "gpu_memcpy",
                                                              "gpu_memset") else "called",
            cand, tr.event(cand).name)

    def _replay_opts(self, iterations=None):
        s = self.settings
        argv = ["--device", s.device, "--warmup", str(s.warmup)]
        if s.python:
            argv += ["--python", s.python]
        if not s.store:
            argv.append("--no-store")
        if s.replay_options:
            argv += shlex.split(s.replay_options)
        return argv

    def replay_argv(self, uid, iterations=None):
        s = self.settings
        n = iterations if iterations is not None else s.iterations
        return [s.program_path(), "uid", "-i", self.trace.path, "-r", str(n)] + \
            self._replay_opts() + [str(uid)]

    def stat_argv(self, uid, events=None, repeat=None, iterations=None):
        s = self.settings
        argv = [s.program_path(), "stat", "-i", self.trace.path]
        ev = events if events is not None else s.events
        if ev:
            argv += ["-e", ev]
        if repeat:
            argv += ["-r", str(repeat)]
        argv += ["--iters", str(iterations if iterations is not None else s.iterations)]
        return argv + self._replay_opts() + ["uid", str(uid)]

    # -------------------------------------------------------------- tlreplay break

    def plan_break(self, arg):
        """A BreakGroup (without gdb breakpoints yet) for `tlreplay break ARG`."""
        arg = arg.strip()
        if not arg:
            raise UserError("Usage: tlreplay break OP|UID (e.g. tlreplay break aten::addmm).")
        sc = self.schemas()
        if arg.isdigit():
            tr = self.require_trace()
            uid = self.require_uid(arg)
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
            syms = self._symbols(op, "", sc)
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
        if sc is not None and not sc.known(op) and op not in self.op_names():
            raise UserError("Unknown op %s (not in the schemas of %s nor in the trace)."
                            % (op, sc.label))
        return BreakGroup(op, ov, self._symbols(op, ov, sc))

    @staticmethod
    def _symbols(op, overload, sc):
        if overload:
            return ["at::_ops::%s::call" % ops_symbol(op, overload)]
        ovs = sc.overloads(op) if sc is not None else []
        if not ovs:
            return ["at::_ops::%s::call" % ops_symbol(op, "")]
        return ["at::_ops::%s::call" % s.symbol for s in ovs]

    def break_for(self, op):
        """The BreakGroup that counts every call of @op (for ordinals), if any."""
        for g in self.breaks:
            if g.op == op and not g.overload and g.numbers:
                return g
        return None

    # -------------------------------------------------------------- tlreplay here

    def pick_op(self, found):
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
        tr = self.require_trace()
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

    def here(self, found, live=None, live_note=None, ordinal=None, is_main=True, pick=None,
             thread_label="this thread", choice=None):
        """Choose the trace event of the op a stopped program is in.

        @found: as for pick_op(); @choice: pick_op()'s answer if already asked.
        @live: [(position, arg name, TensorInfo)] read from the program, or
        None (@live_note says why). @ordinal: the call's ordinal on its thread
        (from tlreplay break). Returns (lines, uid or None)."""
        idx, fop, launch, missing = choice or self.pick_op(found)
        tr = self.trace
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
            if self.cursor is not None:
                self.cursor.select(chosen)
        return out, chosen

    def here_tlreplay(self, job, uid, how):
        """A stopped tlreplay command: the UID it works on. Returns (lines, uid)."""
        out = []
        path = job.trace
        tr = self.trace
        if path:
            path = os.path.abspath(path)
            if tr is None or os.path.realpath(tr.path) != os.path.realpath(path):
                self.open(path)
                out.append("Opened %s, the trace of the tlreplay process." % path)
        tr = self.require_trace()
        if uid is None:
            raise UserError("The tlreplay process (%s) names no UID yet." % (job.cmd or "?"))
        if not tr.valid(uid):
            raise UserError("The tlreplay process works on UID %d, which is not in %s." %
                            (uid, tr.path))
        ev = tr.event(uid)
        out.append("The program is tlreplay %s, on UID %d: %s (%s)." % (job.cmd or "?", uid,
                                                                       ev.name, how))
        self.cursor.select(uid)
        return out, uid


def _other_thread(same):
    main = groups.main_thread(same)
    others = [t for t in same if t != main]
    return others[0] if len(others) == 1 else None


class _Tree:
    """The trace as the cursor walks it: roots of a thread are siblings."""

    def __init__(self, tr):
        self.tr = tr

    def stack(self, uid):
        return self.tr.stack(uid)

    def parent(self, uid):
        return self.tr.parent(uid)

    def first_child(self, uid):
        return self.tr.first_child(uid)

    def next_sibling(self, uid):
        s = self.tr.next_sibling(uid)
        if s is None and self.tr.parent(uid) is None:
            roots = self.tr.roots_of_thread(uid)
            if uid in roots:
                i = roots.index(uid)
                s = roots[i + 1] if i + 1 < len(roots) else None
        return s

    def prev_sibling(self, uid):
        if self.tr.parent(uid) is None:
            roots = self.tr.roots_of_thread(uid)
            if uid in roots:
                i = roots.index(uid)
                return roots[i - 1] if i > 0 else None
            return None
        return self.tr.prev_sibling(uid)
