# SPDX-License-Identifier: MIT
"""A trace held by libtlreplay.so, through ctypes.

The trace is loaded once (Trace.open) and stays loaded until close(): every
cursor command, list and `here` reads it in memory. Strings and numbers come
from the library's public C API (core/include/tlreplay/*.h); the args of an
event are its raw JSON text, parsed here with json.

Nothing here imports gdb.
"""

import ctypes
import ctypes.util
import json
import os
import re

from . import locate

# enum tl_kind, in the order of trace.h
KINDS = ("other", "cpu_op", "runtime", "driver", "kernel", "gpu_memcpy", "gpu_memset",
         "flow", "fwdbwd", "python_function", "user_annotation", "gpu_user_annotation",
         "cpu_instant_event", "cuda_sync", "metadata", "trace_span")
KIND_CPU_OP = 1
GPU_KINDS = (4, 5, 6)
NOID = -(2 ** 63)


class TlError(Exception):
    """A failure of the library or of loading it: one line for the user."""


class _OpenOpts(ctypes.Structure):
    _fields_ = [("sz", ctypes.c_size_t), ("progress", ctypes.c_void_p),
                ("progress_ctx", ctypes.c_void_p), ("rank", ctypes.c_int)]


class _LinkOpts(ctypes.Structure):
    _fields_ = [("sz", ctypes.c_size_t), ("with_python", ctypes.c_bool)]


class _IrOpts(ctypes.Structure):
    _fields_ = [("sz", ctypes.c_size_t), ("db", ctypes.c_void_p),
                ("allow_schemaless", ctypes.c_bool), ("trace_label", ctypes.c_char_p)]


class _EventInfo(ctypes.Structure):
    _fields_ = [("uid", ctypes.c_uint64), ("name", ctypes.c_void_p), ("cat", ctypes.c_void_p),
                ("kind", ctypes.c_int), ("ph", ctypes.c_char), ("has_ts", ctypes.c_bool),
                ("has_dur", ctypes.c_bool), ("ts", ctypes.c_double), ("dur", ctypes.c_double),
                ("pid", ctypes.c_void_p), ("tid", ctypes.c_void_p), ("args", ctypes.c_void_p),
                ("args_len", ctypes.c_size_t), ("correlation", ctypes.c_int64),
                ("external_id", ctypes.c_int64), ("seq", ctypes.c_int64),
                ("stream", ctypes.c_int64), ("device", ctypes.c_int64)]


def _str(p):
    return ctypes.string_at(p).decode("utf-8", "replace") if p else ""


class Library:
    """libtlreplay.so and libcjson, loaded once per path."""

    _loaded = {}

    def __init__(self, path):
        try:
            self.so = ctypes.CDLL(path)
        except OSError as e:
            raise TlError("cannot load %s: %s (set tlreplay library PATH)" % (path, e)) from None
        self.path = path
        so = self.so
        try:
            so.tl_version.restype = ctypes.c_char_p
            so.tl_last_error.restype = ctypes.c_char_p
            so.tl_trace_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(_OpenOpts),
                                         ctypes.POINTER(ctypes.c_void_p)]
            so.tl_trace_close.argtypes = [ctypes.c_void_p]
            so.tl_trace_close.restype = None
            so.tl_trace_path.argtypes = [ctypes.c_void_p]
            so.tl_trace_path.restype = ctypes.c_char_p
            so.tl_trace_nevents.argtypes = [ctypes.c_void_p]
            so.tl_trace_nevents.restype = ctypes.c_uint64
            so.tl_trace_event.argtypes = [ctypes.c_void_p, ctypes.c_uint64,
                                          ctypes.POINTER(_EventInfo)]
            so.tl_trace_link.argtypes = [ctypes.c_void_p, ctypes.POINTER(_LinkOpts)]
            for fn in ("tl_event_parent", "tl_event_first_child", "tl_event_next_sibling",
                       "tl_event_launcher"):
                f = getattr(so, fn)
                f.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
                f.restype = ctypes.c_int64
            so.tl_event_in_tree.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
            so.tl_event_in_tree.restype = ctypes.c_bool
            so.tl_event_gpu_events.argtypes = [ctypes.c_void_p, ctypes.c_uint64,
                                               ctypes.POINTER(ctypes.POINTER(ctypes.c_uint64))]
            so.tl_event_gpu_events.restype = ctypes.c_int64
            so.tl_schema_db_load.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
            so.tl_schema_db_free.argtypes = [ctypes.c_void_p]
            so.tl_schema_db_free.restype = None
            so.tl_schema_db_label.argtypes = [ctypes.c_void_p]
            so.tl_schema_db_label.restype = ctypes.c_char_p
            so.tl_ir_entry.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.POINTER(_IrOpts),
                                       ctypes.POINTER(ctypes.c_void_p)]
        except AttributeError as e:
            raise TlError("%s is not libtlreplay: %s" % (path, e)) from None
        self.version = so.tl_version().decode()
        self.cjson = self._load_cjson()
        libc = ctypes.CDLL(None)
        self.free = libc.free
        self.free.argtypes = [ctypes.c_void_p]
        self.free.restype = None

    def _load_cjson(self):
        # libtlreplay.so needs libcjson.so.1, so it is loaded already (beside
        # it in a bundle); the soname finds that copy.
        for name in (os.path.join(os.path.dirname(self.path), "libcjson.so.1"), "libcjson.so.1",
                     ctypes.util.find_library("cjson")):
            if not name:
                continue
            try:
                cj = ctypes.CDLL(name)
                cj.cJSON_PrintUnformatted.argtypes = [ctypes.c_void_p]
                cj.cJSON_PrintUnformatted.restype = ctypes.c_void_p
                cj.cJSON_Delete.argtypes = [ctypes.c_void_p]
                cj.cJSON_Delete.restype = None
                cj.cJSON_free.argtypes = [ctypes.c_void_p]
                cj.cJSON_free.restype = None
                return cj
            except (OSError, AttributeError):
                continue
        return None

    def error(self, rc):
        msg = (self.so.tl_last_error() or b"").decode("utf-8", "replace")
        return msg or os.strerror(-rc)

    @classmethod
    def get(cls, path):
        path = os.path.realpath(path)
        lib = cls._loaded.get(path)
        if lib is None:
            lib = cls._loaded[path] = Library(path)
        return lib


class Event:
    """One event of the trace (the fields of struct tl_event_info)."""

    __slots__ = ("uid", "name", "cat", "kind", "ph", "ts", "dur", "pid", "tid", "args_text",
                 "external_id", "correlation", "_args")

    def __init__(self, ev):
        self.uid = ev.uid
        self.name = _str(ev.name)
        self.cat = _str(ev.cat)
        self.kind = KINDS[ev.kind] if 0 <= ev.kind < len(KINDS) else "other"
        self.ph = ev.ph.decode("latin-1") if ev.ph else ""
        self.ts = ev.ts if ev.has_ts else None
        self.dur = ev.dur if ev.has_dur else None
        self.pid = _str(ev.pid)
        self.tid = _str(ev.tid)
        self.args_text = ctypes.string_at(ev.args, ev.args_len).decode("utf-8", "replace") \
            if ev.args else None
        self.external_id = None if ev.external_id == NOID else ev.external_id
        self.correlation = None if ev.correlation == NOID else ev.correlation
        self._args = None

    @property
    def args(self):
        """The event's args as a dict ({} when it has none or they do not parse)."""
        if self._args is None:
            try:
                self._args = json.loads(self.args_text) if self.args_text else {}
            except ValueError:
                self._args = {}
            if not isinstance(self._args, dict):
                self._args = {}
        return self._args


class Trace:
    """A loaded, linked trace. close() releases it."""

    def __init__(self, lib, path):
        self.lib = lib
        self.handle = ctypes.c_void_p()
        opts = _OpenOpts(ctypes.sizeof(_OpenOpts), None, None, -1)
        rc = lib.so.tl_trace_open(os.fsencode(path), ctypes.byref(opts), ctypes.byref(self.handle))
        if rc:
            self.handle = None
            raise TlError(lib.error(rc))
        lopts = _LinkOpts(ctypes.sizeof(_LinkOpts), False)
        rc = lib.so.tl_trace_link(self.handle, ctypes.byref(lopts))
        if rc:
            msg = lib.error(rc)
            self.close()
            raise TlError(msg)
        self.path = lib.so.tl_trace_path(self.handle).decode("utf-8", "replace")
        self.nevents = lib.so.tl_trace_nevents(self.handle)
        self._ev = _EventInfo()
        self._scan = None
        self._names = {}
        self._roots = {}
        self._db = None
        self._db_path = None

    @classmethod
    def open(cls, path, library=None):
        lib = Library.get(library or locate.library())
        return cls(lib, path)

    def close(self):
        if self.handle:
            if self._db:
                self.lib.so.tl_schema_db_free(self._db)
                self._db = None
            self.lib.so.tl_trace_close(self.handle)
            self.handle = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    # ---------------------------------------------------------------- events

    def valid(self, uid):
        return isinstance(uid, int) and 0 <= uid < self.nevents

    def event(self, uid):
        """The Event of @uid; TlError if it is not a UID of the trace."""
        if not self.valid(uid):
            raise TlError("no event with UID %s in %s (UIDs go from 0 to %d)"
                          % (uid, self.path, self.nevents - 1))
        rc = self.lib.so.tl_trace_event(self.handle, uid, ctypes.byref(self._ev))
        if rc:
            raise TlError(self.lib.error(rc))
        return Event(self._ev)

    def parent(self, uid):
        p = self.lib.so.tl_event_parent(self.handle, uid)
        return None if p < 0 else p

    def first_child(self, uid):
        c = self.lib.so.tl_event_first_child(self.handle, uid)
        return None if c < 0 else c

    def next_sibling(self, uid):
        s = self.lib.so.tl_event_next_sibling(self.handle, uid)
        return None if s < 0 else s

    def in_tree(self, uid):
        return bool(self.lib.so.tl_event_in_tree(self.handle, uid))

    def roots_of_thread(self, uid):
        """The roots of the call tree on the thread of @uid, in call order."""
        s = self._scan_all()
        key = s["thread"][uid]
        cache = self._roots.get(key)
        if cache is None:
            th, ts = s["thread"], s["ts"]
            cache = [u for u in range(self.nevents) if th[u] == key and self.in_tree(u)
                     and self.parent(u) is None and s["kind"][u] not in GPU_KINDS]
            cache.sort(key=lambda u: (ts[u], u))
            self._roots[key] = cache
        return cache

    def children(self, uid):
        out = []
        c = self.first_child(uid)
        while c is not None:
            out.append(c)
            c = self.next_sibling(c)
        return out

    def prev_sibling(self, uid):
        p = self.parent(uid)
        if p is None:
            return None
        prev = None
        for c in self.children(p):
            if c == uid:
                return prev
            prev = c
        return None

    def stack(self, uid):
        """@uid and its ancestors, innermost first."""
        out = [uid]
        p = self.parent(uid)
        while p is not None and len(out) < 10000:
            out.append(p)
            p = self.parent(p)
        return out

    def gpu_events(self, uid):
        """UIDs of the GPU events in the subtree of @uid."""
        arr = ctypes.POINTER(ctypes.c_uint64)()
        n = self.lib.so.tl_event_gpu_events(self.handle, uid, ctypes.byref(arr))
        if n < 0:
            raise TlError(self.lib.error(n))
        out = [arr[i] for i in range(n)]
        if arr:
            self.lib.free(arr)
        return out

    def launcher(self, gpu_uid):
        u = self.lib.so.tl_event_launcher(self.handle, gpu_uid)
        return None if u < 0 else u

    # ---------------------------------------------------------------- scans

    def _scan_all(self):
        """One pass over every event: name, kind, thread and ts, kept for later."""
        if self._scan is not None:
            return self._scan
        get = self.lib.so.tl_trace_event
        h = self.handle
        ev = self._ev
        ref = ctypes.byref(ev)
        names = self._names
        name_of = []
        kind_of = bytearray(self.nevents)
        thread_of = []
        ts_of = []
        threads = {}
        t0 = None
        for uid in range(self.nevents):
            if get(h, uid, ref):
                name_of.append("")
                thread_of.append(0)
                ts_of.append(0.0)
                continue
            p = ev.name
            n = names.get(p)
            if n is None:
                n = names[p] = _str(p)
            name_of.append(n)
            kind_of[uid] = ev.kind
            key = (ev.pid, ev.tid)
            t = threads.get(key)
            if t is None:
                t = threads[key] = len(threads)
            thread_of.append(t)
            ts = ev.ts if ev.has_ts else 0.0
            ts_of.append(ts)
            if ev.has_ts and ev.ph not in (b"M",) and (t0 is None or ts < t0):
                t0 = ts
        thread_names = [None] * len(threads)
        for (p, t), i in threads.items():
            thread_names[i] = (_str(p), _str(t))
        self._scan = {"name": name_of, "kind": kind_of, "thread": thread_of, "ts": ts_of,
                      "threads": thread_names, "t0": t0 or 0.0}
        return self._scan

    @property
    def t0(self):
        return self._scan_all()["t0"]

    def op_names(self):
        """Distinct names of the CPU ops, sorted."""
        s = self._scan_all()
        kind = s["kind"]
        return sorted({n for u, n in enumerate(s["name"]) if kind[u] == KIND_CPU_OP and n})

    def find(self, regex=None, name=None, kinds=(KIND_CPU_OP,), limit=0):
        """UIDs whose name matches @regex (re.search) or equals @name, of @kinds
        (None: any), in UID order."""
        s = self._scan_all()
        names, kind = s["name"], s["kind"]
        rx = re.compile(regex) if regex else None
        ok = {}
        out = []
        for uid, n in enumerate(names):
            if kinds is not None and kind[uid] not in kinds:
                continue
            if name is not None:
                if n != name:
                    continue
            elif rx is not None:
                m = ok.get(n)
                if m is None:
                    m = ok[n] = rx.search(n) is not None
                if not m:
                    continue
            out.append(uid)
            if limit and len(out) >= limit:
                break
        return out

    def thread_key(self, uid):
        """(pid, tid) of @uid as printable strings."""
        s = self._scan_all()
        return s["threads"][s["thread"][uid]]

    def same_thread_sorted(self, uids):
        """@uids grouped by thread, each group in call order (ts, ties by UID).
        Returns {(pid, tid): [uid...]}."""
        s = self._scan_all()
        by = {}
        for u in uids:
            by.setdefault(s["threads"][s["thread"][u]], []).append(u)
        ts = s["ts"]
        for k in by:
            by[k].sort(key=lambda u: (ts[u], u))
        return by

    # ---------------------------------------------------------------- IR

    def schema_db(self, path):
        """Load the schema snapshot at @path (kept for later calls)."""
        if self._db and self._db_path == path:
            return self._db
        if self._db:
            self.lib.so.tl_schema_db_free(self._db)
            self._db = None
        db = ctypes.c_void_p()
        rc = self.lib.so.tl_schema_db_load(os.fsencode(path), ctypes.byref(db))
        if rc:
            raise TlError(self.lib.error(rc))
        self._db, self._db_path = db, path
        return db

    def ir_entry(self, uid, snapshot=None):
        """The replay IR entry of cpu_op @uid (docs/ir.md) as a dict, with the
        schemas of @snapshot (schemaless without one). TlError if the op
        cannot be extracted (no shapes, not a CPU op)."""
        if self.lib.cjson is None:
            raise TlError("libcjson.so.1 could not be loaded: no IR")
        db = self.schema_db(snapshot) if snapshot else None
        opts = _IrOpts(ctypes.sizeof(_IrOpts), db, True, None)
        out = ctypes.c_void_p()
        rc = self.lib.so.tl_ir_entry(self.handle, uid, ctypes.byref(opts), ctypes.byref(out))
        if rc:
            raise TlError(self.lib.error(rc))
        try:
            text = self.lib.cjson.cJSON_PrintUnformatted(out)
            try:
                return json.loads(ctypes.string_at(text).decode("utf-8", "replace"))
            finally:
                self.lib.cjson.cJSON_free(text)
        finally:
            self.lib.cjson.cJSON_Delete(out)

    def schema_label(self):
        if not self._db:
            return None
        return self.lib.so.tl_schema_db_label(self._db).decode("utf-8", "replace")
