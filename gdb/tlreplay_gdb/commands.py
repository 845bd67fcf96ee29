# SPDX-License-Identifier: MIT
"""The gdb commands of tlreplay: one gdb.Command per verb under the `tlreplay`
prefix, the breakpoints `tlreplay break` makes, and the stop and exit handlers.

gdb/tlreplay.py imports this module and calls register() once per gdb. With
params (the `set tlreplay` settings) and inferior (reading the stopped
program) it is all of the package that imports gdb; the commands never change
gdb's own settings. The logic lives in the other modules, which run without
gdb.
"""

import functools
import json
import traceback

import gdb

import tlreplay_gdb
from . import breaks, cursor, frames, here, inferior, libtl, params, runner
from .session import Session, UserError, plural, short


# the state of this gdb: the module is imported once, however often tlreplay.py is sourced
S = Session()


def _out(text):
    gdb.write(text)
    gdb.flush()


def _lines(lines):
    for line in lines:
        gdb.write(line + "\n")
    gdb.flush()


def _guard(fn):
    """Every user error as a one-line gdb.GdbError; never a traceback
    (`set tlreplay verbose on` prints it for internal errors)."""
    @functools.wraps(fn)
    def invoke(self, arg, from_tty):
        try:
            return fn(self, arg, from_tty)
        except gdb.GdbError:
            raise
        except (UserError, cursor.CursorError, libtl.TlError, runner.StartError) as e:
            raise gdb.GdbError(str(e)) from None
        except runner.Interrupted:
            raise gdb.GdbError("Interrupted: the tlreplay process was stopped.") from None
        except gdb.error as e:
            raise gdb.GdbError(str(e)) from None
        except KeyboardInterrupt:
            raise gdb.GdbError("Quit") from None
        except Exception as e:  # noqa: BLE001 - a bug of ours, still one line
            if S.settings.verbose:
                gdb.write(traceback.format_exc())
            raise gdb.GdbError("tlreplay: internal error: %s: %s (set tlreplay verbose on "
                               "shows where)" % (type(e).__name__, e)) from None
    return invoke


def _argv(arg):
    return gdb.string_to_argv(arg or "")


def _count(word, what):
    try:
        n = int(word, 0)
    except ValueError:
        raise UserError("%s: '%s' is not a number." % (what, word)) from None
    if n < 1:
        raise UserError("%s must be at least 1." % what)
    return n


def _complete_from(cands, text, word):
    """Completions of @text among @cands, relative to gdb's current @word (op
    names hold ':' and '.', which end words for gdb)."""
    cut = len(text) - len(word or "")
    return [c[cut:] for c in cands if c.startswith(text)][:500]


def _complete_uids(text, word):
    if S.trace is None or (text and not text.isdigit()):
        return []
    cands = [str(u) for u in S.trace.find(kinds=(libtl.KIND_CPU_OP,))]
    return _complete_from(cands, text, word)


def _complete_ops(text, word):
    if S.trace is None:
        return []
    names = sorted(S.op_names())
    cands = names + [n.split("::", 1)[1] for n in names if n.startswith("aten::")]
    return _complete_from(sorted(set(cands)), text, word)


# ------------------------------------------------------------------ child processes

def _run_child(argv, what):
    if S.settings.verbose:
        _out("+ %s\n" % " ".join(argv))
    rc = runner.run(argv, _out)
    if rc != 0:
        raise UserError("%s failed (%s)." % (what, runner.describe_status(rc)))


def _target(uid):
    uid, note = S.replay_target(uid)
    if note:
        _out(note + "\n")
    return uid


def _replay(uid, iterations=None):
    tr = S.require_trace()
    uid = _target(uid)
    ev = tr.event(uid)
    _run_child(S.replay_argv(uid, iterations), "Replay of UID %d (%s)" % (uid, short(ev.name)))


# ------------------------------------------------------------------ commands

class TlreplayPrefix(gdb.Command):
    """Replay PyTorch ops of a profiler trace, or the op the program is in.

Usage: tlreplay SUBCOMMAND [ARGS]

Trace cursor: open, list, select, info, bt, up, down, next, prev, replay, stat.
Live program: here, break.
Settings: set tlreplay ... / show tlreplay. See docs/gdb.md."""

    def __init__(self):
        super().__init__("tlreplay", gdb.COMMAND_USER, gdb.COMPLETE_NONE, True)


class OpenCmd(gdb.Command):
    """Open a PyTorch profiler trace (Kineto JSON, .json or .json.gz).

Usage: tlreplay open [TRACE]

The trace is loaded once (libtlreplay through ctypes) and every other
tlreplay command reads it in memory. Without TRACE, print the open trace.
`set tlreplay trace TRACE` does the same. Without an open trace, the commands
use the one the tlreplay command would ($TLREPLAY_TRACE, then the trace
remembered by `tlreplay open` in the shell)."""

    def __init__(self):
        super().__init__("tlreplay open", gdb.COMMAND_USER, gdb.COMPLETE_FILENAME)

    @_guard
    def invoke(self, arg, from_tty):
        self.dont_repeat()
        args = _argv(arg)
        if not args:
            tr = S.require_trace()
            _out("%s: %s, libtlreplay %s\n" % (tr.path, plural(tr.nevents, "event"),
                                              tr.lib.version))
            return
        if len(args) > 1:
            raise UserError("Usage: tlreplay open [TRACE]")
        tr = S.open(args[0])
        _TRACE_PARAM.sync(tr.path)
        _out("Opened %s: %s (UIDs 0 to %d).\n" % (tr.path, plural(tr.nevents, "event"),
                                                  tr.nevents - 1))


class ListCmd(gdb.Command):
    """List the CPU ops of the trace whose names match REGEX, with their UIDs.

Usage: tlreplay list [-n N] [-a] [REGEX]

REGEX is a Python regular expression searched in the op names (`addmm`,
`^aten::(mm|bmm)$`). Each line shows the UID, the start (ms into the trace),
the duration, the thread, the name and the recorded arguments; `*` marks the
selected op. -n N shows at most N lines (default 50, 0 for all); -a lists
events of every kind (runtime calls, kernels ...), not only CPU ops."""

    def __init__(self):
        super().__init__("tlreplay list", gdb.COMMAND_USER)

    def complete(self, text, word):
        return _complete_ops(text, word)

    @_guard
    def invoke(self, arg, from_tty):
        args = _argv(arg)
        limit, any_kind, rx = 50, False, None
        i = 0
        while i < len(args):
            a = args[i]
            if a == "-n" and i + 1 < len(args):
                try:
                    limit = int(args[i + 1])
                except ValueError:
                    raise UserError("-n: '%s' is not a number." % args[i + 1]) from None
                i += 2
                continue
            if a == "-a":
                any_kind = True
            elif rx is None:
                rx = a
            else:
                raise UserError("Usage: tlreplay list [-n N] [-a] [REGEX]")
            i += 1
        _lines(S.list_lines(rx, limit, any_kind))


class SelectCmd(gdb.Command):
    """Select an event of the trace by UID, as `frame` selects a frame.

Usage: tlreplay select [UID]

The other cursor commands (info, up, down, next, prev, bt, replay, stat)
start from the selected event. Without UID, print the selected one.
UIDs are TraceLens's: the index of the event in traceEvents."""

    def __init__(self):
        super().__init__("tlreplay select", gdb.COMMAND_USER)

    def complete(self, text, word):
        return _complete_uids(text, word)

    @_guard
    def invoke(self, arg, from_tty):
        args = _argv(arg)
        if len(args) > 1:
            raise UserError("Usage: tlreplay select [UID]")
        uid = S.require_uid(args[0] if args else None)
        if args:
            S.cursor.select(uid)
        _out(S.frame_line() + "\n")


class InfoCmd(gdb.Command):
    """Show the selected op: timing, thread, callers, arguments, IR, GPU kernels.

Usage: tlreplay info [-j] [UID]

Shows the event's start and duration, its call ordinal on its thread, who
called it and what it calls, the arguments the profiler recorded, its replay
IR (schema and arguments, from the schema snapshot bundled with tlreplay),
and the GPU kernels below it with their times and launch configurations.
-j prints the IR entry as JSON (docs/ir.md)."""

    def __init__(self):
        super().__init__("tlreplay info", gdb.COMMAND_USER)

    def complete(self, text, word):
        return _complete_uids(text, word)

    @_guard
    def invoke(self, arg, from_tty):
        args = _argv(arg)
        as_json = "-j" in args
        args = [a for a in args if a != "-j"]
        if len(args) > 1:
            raise UserError("Usage: tlreplay info [-j] [UID]")
        uid = S.require_uid(args[0] if args else None)
        if as_json:
            entry, why = S.ir_entry(uid)
            if entry is None:
                raise UserError("UID %d has no IR: %s" % (uid, why))
            _out(json.dumps(entry, indent=2) + "\n")
            return
        _lines(S.info_lines(uid))


class BtCmd(gdb.Command):
    """Print the cursor's call path, the deepest event first, like backtrace.

Usage: tlreplay bt

`*` marks the selected event; `tlreplay up`/`down` move along this path."""

    def __init__(self):
        super().__init__("tlreplay bt", gdb.COMMAND_USER, gdb.COMPLETE_NONE)

    @_guard
    def invoke(self, arg, from_tty):
        S.require_trace()
        _lines(S.backtrace_lines())


class _MoveCmd(gdb.Command):
    def __init__(self, name):
        super().__init__("tlreplay " + name, gdb.COMMAND_USER, gdb.COMPLETE_NONE)
        self.verb = name

    @_guard
    def invoke(self, arg, from_tty):
        S.require_trace()
        args = _argv(arg)
        n = _count(args[0], "Count") if args else 1
        getattr(S.cursor, self.verb)(n)
        _out(S.frame_line() + "\n")


class UpCmd(_MoveCmd):
    """Select the event that called the selected one (N levels up).

Usage: tlreplay up [N]

Like gdb's up: toward the root of the call tree (an op's caller, a kernel's
runtime call ...)."""

    def __init__(self):
        super().__init__("up")


class DownCmd(_MoveCmd):
    """Select an event called by the selected one (N levels down).

Usage: tlreplay down [N]

Goes back down the path `up` came along, then to the first callee (an op's
first child, a runtime call's kernel)."""

    def __init__(self):
        super().__init__("down")


class NextCmd(_MoveCmd):
    """Select the next event called by the same caller (N siblings on).

Usage: tlreplay next [N]

At the root of a thread, the next root of that thread."""

    def __init__(self):
        super().__init__("next")


class PrevCmd(_MoveCmd):
    """Select the previous event called by the same caller (N siblings back).

Usage: tlreplay prev [N]"""

    def __init__(self):
        super().__init__("prev")


class ReplayCmd(gdb.Command):
    """Replay the selected op alone in a tlreplay process, and time it.

Usage: tlreplay replay [-r N] [UID]

Runs `tlreplay uid -i TRACE -r N UID` with the settings of `show tlreplay`
(device, iterations, warmup, python, replay-options) and prints its output
here. The op runs in that process, so a crash does not touch gdb; Ctrl-C
stops it. -r N: timed calls (default: set tlreplay iterations). With a GPU
event selected, the op that launched it is replayed; with a runtime call,
the op that made it."""

    def __init__(self):
        super().__init__("tlreplay replay", gdb.COMMAND_USER)

    def complete(self, text, word):
        return _complete_uids(text, word)

    @_guard
    def invoke(self, arg, from_tty):
        self.dont_repeat()
        args = _argv(arg)
        iters, rest = None, []
        i = 0
        while i < len(args):
            if args[i] == "-r" and i + 1 < len(args):
                iters = _count(args[i + 1], "-r")
                i += 2
                continue
            rest.append(args[i])
            i += 1
        if len(rest) > 1:
            raise UserError("Usage: tlreplay replay [-r N] [UID]")
        uid = S.require_uid(rest[0] if rest else None)
        _replay(uid, iters)


STAT_EVENTS = ("task-clock", "cycles", "instructions", "cache-misses", "cache-references",
               "branches", "branch-misses", "page-faults", "context-switches", "cpu-migrations",
               "L1-dcache-load-misses", "LLC-load-misses", "nvgpu/", "nvml/energy-gpu0/")


class StatCmd(gdb.Command):
    """Count perf events over the timed replay of the selected op.

Usage: tlreplay stat [-e EVENTS] [-r N] [UID]

Runs `tlreplay stat -e EVENTS -r N uid UID` (perf stat's event syntax:
task-clock,cycles,instructions, {a,b} groups, nvgpu/METRIC/ on a GPU) and
prints its report here. Without -e, the events of `set tlreplay events`,
else perf stat's default set. -r N repeats the counted region N times."""

    def __init__(self):
        super().__init__("tlreplay stat", gdb.COMMAND_USER)

    def complete(self, text, word):
        if text.rstrip().endswith("-e") or (word and text.split()[-2:-1] == ["-e"]):
            last = (word or "").split(",")[-1]
            return [e for e in STAT_EVENTS if e.startswith(last)]
        return _complete_uids(text, word)

    @_guard
    def invoke(self, arg, from_tty):
        self.dont_repeat()
        args = _argv(arg)
        events, repeat, rest = None, None, []
        i = 0
        while i < len(args):
            a = args[i]
            if a == "-e" and i + 1 < len(args):
                events = args[i + 1]
                i += 2
                continue
            if a == "-r" and i + 1 < len(args):
                repeat = _count(args[i + 1], "-r")
                i += 2
                continue
            rest.append(a)
            i += 1
        if len(rest) > 1:
            raise UserError("Usage: tlreplay stat [-e EVENTS] [-r N] [UID]")
        uid = _target(S.require_uid(rest[0] if rest else None))
        ev = S.trace.event(uid)
        _run_child(S.stat_argv(uid, events, repeat), "tlreplay stat of UID %d (%s)"
                   % (uid, short(ev.name)))


# ------------------------------------------------------------------ the live program

class HereCmd(gdb.Command):
    """Name the op the stopped program is in, find it in the trace, replay it.

Usage: tlreplay here [-l] [N]

Walks the stack from the selected frame outward for the innermost PyTorch op:
at::_ops::<op>::call or ::redispatch (the dispatcher's entry: at::_ops::
add_Tensor::call is aten::add.Tensor), at::native::<op> kernels, generated
wrapper_..._<op> functions; a kernel launch (cudaLaunchKernel,
hipLaunchKernel, cuLaunchKernel) names the op above it. In a stopped tlreplay
process it takes the UID that process works on (and its trace).

The op's events in the open trace are listed by distinct recorded arguments,
numbered. At the op's entry its tensor arguments are read from memory and
compared (otherwise the shapes come from the trace alone); when `tlreplay
break` counted the program's calls, the call's ordinal picks the exact UID.
The chosen event is selected and replayed: the single match, or the argument
set N. -l lists without replaying. Select an outer frame (up, frame N) to
take an outer op."""

    def __init__(self):
        super().__init__("tlreplay here", gdb.COMMAND_USER, gdb.COMPLETE_NONE)

    @_guard
    def invoke(self, arg, from_tty):
        self.dont_repeat()
        args = _argv(arg)
        list_only = False
        pick = None
        for a in args:
            if a in ("-l", "--list"):
                list_only = True
            elif a.isdigit():
                pick = int(a)
            else:
                raise UserError("Usage: tlreplay here [-l] [N]")
        inf, th = inferior.require_live()
        stack = inferior.stack()
        names = [n for _, n in stack]
        found = frames.scan(names, S.schemas(), S.known_op)
        found = [(stack[i][0].level(), f) for i, f in found]
        if any(f.kind == "tlreplay" for _, f in found):
            job, uid, how = inferior.tlreplay_job(stack, inf)
            lines, chosen = here.in_tlreplay(S, job, uid, how)
        else:
            S.require_trace()
            choice = here.pick_op(S, found)
            idx, fop = choice[0], choice[1]
            frame = next(f for f, _ in stack if f.level() == idx)
            live, note = inferior.read_live(S, frame, fop, inf)
            pid, lwp, _ = th.ptid
            g = breaks.counting(S.breaks, fop.op)
            ordinal = g.count(pid, lwp) if g is not None else None
            lines, chosen = here.choose(S, found, live, note, ordinal, is_main=(lwp == pid),
                                        pick=pick, thread_label="thread %d" % th.num, choice=choice)
        _lines(lines)
        if chosen is not None and not list_only:
            _replay(chosen)


class _OpBreakpoint(gdb.Breakpoint):
    """A breakpoint at one at::_ops::<op>::call that counts the calls."""

    def __init__(self, spec, group):
        self.tl_group = group
        super().__init__(spec, gdb.BP_BREAKPOINT)

    def stop(self):
        try:
            name = gdb.newest_frame().name() or ""
        except gdb.error:
            name = ""
        if name.endswith("@plt"):       # the stub that jumps to the real entry
            return False
        th = gdb.selected_thread()
        pid, lwp, _ = th.ptid
        n, stop = self.tl_group.hit(pid, lwp, lwp == pid)
        if stop:
            self.tl_group.last = (th.num, n)
        return stop


class BreakCmd(gdb.Command):
    """Stop the program when it calls an op, or at the call a trace UID recorded.

Usage: tlreplay break [OP|UID]

OP (aten::addmm, addmm, aten::add.Tensor): a breakpoint at
at::_ops::<op>::call for each overload of the op (pending until libtorch is
loaded); the program stops at every call, and the calls are counted per
thread so that `tlreplay here` knows which call of the trace this is.
UID: the N-th call, where N is the ordinal of that event among the events of
the same op on its thread in the trace, counted from the start of the trace.
This assumes the program runs the same code as the profiled one, from its
start (a profile taken from the first step, the same inputs). Without an
argument, list the breakpoints made by tlreplay break and their counts.
`delete` removes them as any breakpoint."""

    def __init__(self):
        super().__init__("tlreplay break", gdb.COMMAND_BREAKPOINTS)

    def complete(self, text, word):
        return _complete_ops(text, word) + _complete_uids(text, word)

    @_guard
    def invoke(self, arg, from_tty):
        self.dont_repeat()
        _prune_breaks()
        if not (arg or "").strip():
            if not S.breaks:
                _out("No breakpoints made by tlreplay break.\n")
                return
            for g in S.breaks:
                counts = ", ".join("LWP %d: %s" % (lwp, plural(n, "call"))
                                   for lwp, n in sorted(g.counts.items())) or "no calls yet"
                _out("Breakpoint%s %s: %s; counted: %s.\n" % (
                    "s" if len(g.numbers) > 1 else "", _numbers(g.numbers), g.describe(), counts))
            return
        g = breaks.plan(S, arg)
        # gdb prints two lines per pending breakpoint; one summary says it all
        global _PENDING_GROUP
        _PENDING_GROUP = g
        try:
            gdb.execute("python import tlreplay_gdb.commands as c; c._make_breakpoints()",
                        to_string=True)
        finally:
            _PENDING_GROUP = None
        if not g.numbers:
            raise UserError("No breakpoint could be made at %s." % ", ".join(g.symbols))
        S.breaks.append(g)
        bps = [b for b in gdb.breakpoints() if b.number in g.numbers]
        pending = all(b.pending for b in bps)
        _out("Breakpoint%s %s at %s%s: %s.\n" % (
            "s" if len(g.numbers) > 1 else "", _numbers(g.numbers),
            g.symbols[0] if len(g.symbols) == 1 else "at::_ops::{%s}::call" % ",".join(
                s.split("::")[2] for s in g.symbols),
            " (pending: libtorch is not loaded yet)" if pending else "", g.describe()))
        if g.uid is not None:
            _out("This assumes the program runs as the profiled one did, from its start.\n")


_PENDING_GROUP = None


def _make_breakpoints():
    """Run by BreakCmd through gdb.execute(to_string=True), to keep gdb's
    per-breakpoint messages out of the way."""
    g = _PENDING_GROUP
    for sym in g.symbols:
        bp = _OpBreakpoint(sym, g)
        g.numbers.append(bp.number)


def _numbers(nums):
    if len(nums) > 2 and nums == list(range(nums[0], nums[-1] + 1)):
        return "%d-%d" % (nums[0], nums[-1])
    return ", ".join(str(n) for n in nums)


def _prune_breaks():
    alive = {b.number for b in gdb.breakpoints()}
    for g in S.breaks:
        g.numbers = [n for n in g.numbers if n in alive]
    S.breaks[:] = [g for g in S.breaks if g.numbers]


def _on_stop(event):
    bps = getattr(event, "breakpoints", None) or []
    nums = {b.number for b in bps}
    for g in S.breaks:
        if nums & set(g.numbers) and g.last:
            thnum, n = g.last
            msg = "tlreplay: call %d of %s on thread %d" % (n, g.op, thnum)
            if g.uid is not None and g.target == n:
                msg += ", UID %d in the trace" % g.uid
            _out(msg + ".\n")
            g.last = None


def _on_exit(event):
    for g in S.breaks:
        g.reset()


_TRACE_PARAM = None


def register():
    """Create the commands, the settings (params.register) and event handlers (once per gdb)."""
    global _TRACE_PARAM
    if getattr(tlreplay_gdb, "_gdb_registered", False):
        return
    tlreplay_gdb._gdb_registered = True
    TlreplayPrefix()
    for cls in (OpenCmd, ListCmd, SelectCmd, InfoCmd, BtCmd, UpCmd, DownCmd, NextCmd, PrevCmd,
                ReplayCmd, StatCmd, HereCmd, BreakCmd):
        cls()
    _TRACE_PARAM = params.register(S)
    gdb.events.stop.connect(_on_stop)
    gdb.events.exited.connect(_on_exit)

