# SPDX-License-Identifier: MIT
"""The settings of the tlreplay commands, `set tlreplay SETTING VALUE` and `show tlreplay`:
one gdb.Parameter each, mirroring a field of session.Settings. What gdb says about each
setting is the table _SETTINGS; the few that check a value, or open the trace, are subclasses.
A refused value leaves the old one in place. These are tlreplay's own settings; gdb's are
never changed.
"""

import os
import re

import gdb

from . import locate
from .session import UserError


class SetPrefix(gdb.Command):
    """Settings of the tlreplay commands.

Usage: set tlreplay SETTING VALUE"""

    def __init__(self):
        super().__init__("set tlreplay", gdb.COMMAND_DATA, gdb.COMPLETE_NONE, True)


class ShowPrefix(gdb.Command):
    """Show the settings of the tlreplay commands.

Usage: show tlreplay [SETTING]"""

    def __init__(self):
        super().__init__("show tlreplay", gdb.COMMAND_DATA, gdb.COMPLETE_NONE, True)

    def invoke(self, arg, from_tty):
        for p in _PARAMS:
            gdb.execute("show tlreplay " + p.tl_name, from_tty)


# name -> (gdb kind, what `help set` / `help show` call it ("Set <it>.", "Show <it>."), the
# `show` sentence, the `show` sentence for an empty value (a string, or a function of the
# session for a value found at run time; None: no special case), the help text)
_SETTINGS = {
    "device": (
        gdb.PARAM_STRING, "the device tlreplay replays ops on",
        'The device tlreplay replays ops on is "%s".', None,
        "The device replays run on: cpu, cuda or cuda:N.\n\n"
        "`tlreplay replay`, `stat` and `here` pass it to tlreplay as --device."),
    "iterations": (
        gdb.PARAM_ZUINTEGER, "the number of timed calls of a replay",
        "The number of timed calls of a replay is %s.", None,
        "Timed calls of each replay (tlreplay uid -r, tlreplay stat --iters)."),
    "warmup": (
        gdb.PARAM_ZUINTEGER, "the number of warm-up calls of a replay",
        "The number of warm-up calls of a replay is %s.", None,
        "Untimed calls before the timed ones (tlreplay --warmup)."),
    "program": (
        gdb.PARAM_OPTIONAL_FILENAME, "the tlreplay command that runs replays",
        'The tlreplay command is "%s".',
        lambda s: "The tlreplay command is %s (found)." % (locate.program() or "not found"),
        "The tlreplay command that runs replays (default: the build or install\n"
        "beside this script, else tlreplay on PATH)."),
    "library": (
        gdb.PARAM_OPTIONAL_FILENAME, "the libtlreplay.so that reads traces",
        'The trace library is "%s".',
        lambda s: "The trace library is %s (found)." % s.settings.library_path(),
        "libtlreplay.so, which reads traces for these commands (default: beside\n"
        "the tlreplay command)."),
    "python": (
        gdb.PARAM_OPTIONAL_FILENAME, "the Python interpreter whose torch replays ops",
        'The Python that replays ops is "%s".',
        lambda s: "The Python that replays ops is tlreplay's default (%s)." % (
            os.environ.get("TLREPLAY_PYTHON") or "/usr/bin/python3"),
        "The Python (with torch) that runs the replayed op (tlreplay --python;\n"
        "empty: $TLREPLAY_PYTHON, else /usr/bin/python3)."),
    "replay-options": (
        gdb.PARAM_STRING, "the options passed to tlreplay uid and tlreplay stat",
        'The extra options of tlreplay uid and stat are "%s".',
        "tlreplay uid and stat get no extra options.",
        'More options for tlreplay uid/stat, e.g. "--flush-l2 --seed 3 --init-plugin p.py".'),
    "events": (
        gdb.PARAM_STRING, "the events tlreplay stat counts by default",
        'The events tlreplay stat counts by default are "%s".',
        "tlreplay stat counts perf stat's default events.",
        "The events `tlreplay stat` counts when -e is not given (empty: perf stat's default set)."),
    "store": (
        gdb.PARAM_BOOLEAN, "whether replays record their results",
        "Recording replay results in the results store is %s.", None,
        "Whether replays record their results in tlreplay's results store (tlreplay fold reads it)."),
    "verbose": (
        gdb.PARAM_BOOLEAN, "whether tlreplay prints the commands it runs",
        "Printing the commands tlreplay runs is %s.", None,
        "Print the tlreplay command lines that run, and tracebacks of internal errors."),
    "trace": (
        gdb.PARAM_OPTIONAL_FILENAME, "the trace the tlreplay commands read",
        'The trace tlreplay reads is "%s".', "No trace is open.",
        "The trace the tlreplay commands read (setting it opens it; empty closes it)."),
}
# set_doc worded otherwise than "Set <it>."
_SET_DOCS = {"trace": "Set (open) the trace the tlreplay commands read.",
             "replay-options": "Set more options passed to tlreplay uid and tlreplay stat."}

_PARAMS = []


class _Param(gdb.Parameter):
    """One setting of _SETTINGS, mirroring the field of Settings named like it
    (replay-options: replay_options)."""

    def __init__(self, session, name):
        kind, it, self.tl_what, self.tl_empty, help_text = _SETTINGS[name]
        # gdb reads these from the object while it makes the parameter: set them first
        self.__doc__ = help_text
        self.set_doc = _SET_DOCS.get(name) or "Set %s." % it
        self.show_doc = "Show %s." % it
        super().__init__("tlreplay " + name, gdb.COMMAND_DATA, kind)
        self.tl_name = name
        self.tl_attr = name.replace("-", "_")
        self.tl_session = session
        self.value = getattr(session.settings, self.tl_attr)
        self._good = self.value
        _PARAMS.append(self)

    def check(self, v):
        return v

    def get_set_string(self):
        try:
            v = self.check(self.value)
        except UserError as e:
            self.value = self._good
            raise gdb.GdbError(str(e)) from None
        setattr(self.tl_session.settings, self.tl_attr, v)
        self._good = self.value
        return ""

    def get_show_string(self, svalue):
        if not svalue and self.tl_empty is not None:
            return self.tl_empty(self.tl_session) if callable(self.tl_empty) else self.tl_empty
        return self.tl_what % svalue

    def sync(self, v):
        self.value = self._good = v
        setattr(self.tl_session.settings, self.tl_attr, v)


class _DeviceParam(_Param):
    def check(self, v):
        if not re.fullmatch(r"cpu|cuda(:\d+)?", v or ""):
            raise UserError("Bad device '%s': cpu, cuda or cuda:N." % v)
        return v


class _IterationsParam(_Param):
    def check(self, v):
        if v < 1:
            raise UserError("A replay needs at least 1 timed call.")
        return v


class _TraceParam(_Param):
    """Setting the trace opens it (empty: closes it); the value shown is the path opened."""

    def __init__(self, session, name):
        session.settings.trace = session.trace.path if session.trace is not None else ""
        super().__init__(session, name)

    def check(self, v):
        s = self.tl_session
        if v:
            s.open(v)
            return s.trace.path
        s.close()
        return ""

    def get_set_string(self):
        r = super().get_set_string()
        if self.tl_session.trace is not None:
            self.value = self._good = self.tl_session.trace.path
        return r


def register(session):
    """Create `set tlreplay` / `show tlreplay` and the settings of session (once per gdb), in
    the order `show tlreplay` lists them. Returns the `trace` setting, which `tlreplay open`
    keeps in step with the open trace."""
    SetPrefix()
    ShowPrefix()
    session.settings.trace = ""
    classes = {"device": _DeviceParam, "iterations": _IterationsParam, "trace": _TraceParam}
    made = {name: classes.get(name, _Param)(session, name) for name in _SETTINGS}
    return made["trace"]
