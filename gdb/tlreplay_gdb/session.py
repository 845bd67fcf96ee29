# SPDX-License-Identifier: MIT
"""The state of tlreplay in one gdb session, without gdb: the settings, the
open trace and its cursor, the schema snapshot, the `tlreplay break` groups;
what the trace commands print (list, bt, info); the command lines of the child
tlreplay processes (replay, stat). breaks and here hold the logic of `tlreplay
break` and `tlreplay here` over this state.

Errors for the user are UserError (one line); the gdb side turns them into
gdb.GdbError.
"""

import os
import shlex

from . import cursor as cursor_mod
from . import groups, libtl, locate
from .schemas import SchemaIndex


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
