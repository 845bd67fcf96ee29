# SPDX-License-Identifier: MIT
"""libtlreplay_gpu.so (core/gpu/tlreplay_gpu.h) through ctypes: where it is, loading it (once
per worker; a sanitizer build is refused), making torch's libcupti the one it takes, and its C
API as GpuLib (the library) and GpuSession (one set of metrics planned on a device)."""

import ctypes
import os
import sys

from .errors import one_line
from .torchenv import torch

GPU_LIB_NAME = "libtlreplay_gpu.so"
TLG_ABI_VERSION = 1  # tlg_abi_version() of the library this module speaks to
TLG_KIND_COUNTER = 0  # tlg_metric_kind(): a counter (the others are ratios and throughputs)


class GpuMetricsUnavailable(Exception):
    """Why none of the requested GPU metrics can be counted (the replay goes on)."""


def sanitizer_runtime(path):
    """The sanitizer runtime a library needs and this process lacks (an ASan build of
    libtlreplay_gpu.so kills a Python that was not started with it), else None."""
    try:
        with open(path, "rb") as f:
            data = f.read(1 << 20)
    except OSError:
        return None
    for rt in (b"libasan.so", b"libtsan.so"):
        if rt in data:
            try:
                with open("/proc/self/maps") as maps:
                    if rt.decode() in maps.read():
                        return None
            except OSError:
                pass
            return rt.decode()
    return None


def gpu_lib_candidates(requested):
    """Where libtlreplay_gpu.so may be: the request's path (only it), $TLREPLAY_GPU_LIB, then
    beside tlreplay_worker.py as installed ($(DATADIR)/tlreplay/replay -> $(PREFIX)/lib), in a bundle
    (share/tlreplay/replay -> lib), in the source tree (core/replay -> build), and last the
    loader's search path."""
    if requested:
        return [requested]
    env = os.environ.get("TLREPLAY_GPU_LIB")
    if env:
        return [env]
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tlreplay_worker.py's folder
    rel = [".", "../../../lib", "../../../lib64", "../../lib", "../lib", "../../build"]
    multiarch = getattr(sys.implementation, "_multiarch", None)
    if multiarch:
        rel.insert(3, "../../../lib/" + multiarch)
    out = []
    for r in rel:
        path = os.path.normpath(os.path.join(here, r, GPU_LIB_NAME))
        if path not in out:
            out.append(path)
    return out + [GPU_LIB_NAME]


def preload_cupti():
    """Make the libcupti that matches torch's CUDA the one libtlreplay_gpu.so finds (it looks for
    one already loaded first): the CUPTI of torch's pip wheel (nvidia/cuda_cupti) or conda
    environment, else libcupti.so.<torch's CUDA major> from the loader's path. Nothing when
    $TLREPLAY_CUPTI_LIB chooses, or when a libcupti is loaded already (torch's own)."""
    if os.environ.get("TLREPLAY_CUPTI_LIB"):
        return
    try:
        with open("/proc/self/maps") as maps:
            if "/libcupti" in maps.read():
                return
    except OSError:
        pass
    major = str(getattr(torch.version, "cuda", None) or "").split(".")[0]
    dirs = [os.path.join(sys.prefix, "lib"), os.path.join(os.path.dirname(torch.__file__), "lib")]
    for base in sys.path:
        for sub in ("nvidia/cuda_cupti/lib", "nvidia/cu%s/lib" % major):
            dirs.append(os.path.join(base or ".", sub))
    names = []
    for d in dirs:
        try:
            files = sorted(os.listdir(d))
        except OSError:
            continue
        names += [os.path.join(d, f) for f in files
                  if f.startswith("libcupti.so") and (not major or f.startswith("libcupti.so." + major))]
    if major:
        names.append("libcupti.so." + major)
    for name in names:
        try:
            ctypes.CDLL(name)
            return
        except OSError:
            continue


class GpuLib:
    """libtlreplay_gpu.so through ctypes (the C API of core/gpu/tlreplay_gpu.h)."""

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        c_int, c_char_p, c_void_p = ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p
        sigs = {
            "tlg_abi_version": (c_int, []),
            "tlg_error": (c_char_p, []),
            "tlg_open": (c_int, [c_int, ctypes.POINTER(c_char_p), c_int, ctypes.POINTER(c_void_p)]),
            "tlg_num_passes": (c_int, [c_void_p]),
            "tlg_backend": (c_char_p, [c_void_p]),
            "tlg_metric_status": (c_int, [c_void_p, c_int]),
            "tlg_metric_why": (c_char_p, [c_void_p, c_int]),
            "tlg_metric_unit": (c_char_p, [c_void_p, c_int]),
            "tlg_metric_kind": (c_int, [c_void_p, c_int]),
            "tlg_begin_pass": (c_int, [c_void_p, c_int]),
            "tlg_end_pass": (c_int, [c_void_p, c_int]),
            "tlg_values": (c_int, [c_void_p, ctypes.POINTER(ctypes.c_double)]),
            "tlg_close": (None, [c_void_p]),
        }
        for name, (res, argtypes) in sigs.items():
            fn = getattr(lib, name)  # AttributeError: not our library
            fn.restype = res
            fn.argtypes = argtypes
        abi = lib.tlg_abi_version()
        if abi != TLG_ABI_VERSION:
            raise OSError("%s speaks ABI %d, this worker %d" % (path, abi, TLG_ABI_VERSION))
        self.lib = lib
        self.path = path

    def error(self):
        return (self.lib.tlg_error() or b"").decode("utf-8", "replace")

    @staticmethod
    def _text(b):
        return (b or b"").decode("utf-8", "replace")

    def open(self, device, names):
        arr = (ctypes.c_char_p * len(names))(*[n.encode("utf-8") for n in names])
        handle = ctypes.c_void_p()
        r = self.lib.tlg_open(device, arr, len(names), ctypes.byref(handle))
        if r < 0:
            raise GpuMetricsUnavailable(self.error())
        return GpuSession(self, handle, len(names))


class GpuSession:
    """One tlg handle: the metrics' plan, the passes, the values."""

    def __init__(self, gpu, handle, n):
        self.gpu, self.h, self.n = gpu, handle, n
        lib = gpu.lib
        self.passes = lib.tlg_num_passes(handle)
        self.backend = gpu._text(lib.tlg_backend(handle))
        self.status = [lib.tlg_metric_status(handle, i) for i in range(n)]
        self.why = [gpu._text(lib.tlg_metric_why(handle, i)) for i in range(n)]
        self.unit = [gpu._text(lib.tlg_metric_unit(handle, i)) for i in range(n)]
        self.kind = [lib.tlg_metric_kind(handle, i) for i in range(n)]

    def _check(self, r, what):
        if r < 0:
            raise GpuMetricsUnavailable("%s: %s" % (what, self.gpu.error()))
        return r

    def begin(self, p):
        self._check(self.gpu.lib.tlg_begin_pass(self.h, p), "pass %d" % p)

    def end(self, p):
        return self._check(self.gpu.lib.tlg_end_pass(self.h, p), "pass %d" % p) == 1

    def values(self):
        out = (ctypes.c_double * self.n)()
        self._check(self.gpu.lib.tlg_values(self.h, out), "evaluation")
        return list(out)

    def close(self):
        if self.h:
            self.gpu.lib.tlg_close(self.h)
            self.h = None


class Loader:
    """The libtlreplay_gpu.so of a worker: each candidate tried once, the outcome kept."""

    def __init__(self):
        self._tried = {}  # path -> GpuLib, or the reason it cannot be loaded

    def load(self, requested):
        """The first libtlreplay_gpu.so that loads (see gpu_lib_candidates), else
        GpuMetricsUnavailable naming what was tried."""
        tried = []
        for path in gpu_lib_candidates(requested):
            if path not in self._tried:
                self._tried[path] = self._open(path)
            got = self._tried[path]
            if isinstance(got, GpuLib):
                return got
            tried.append(got)
        if requested or os.environ.get("TLREPLAY_GPU_LIB"):
            raise GpuMetricsUnavailable("cannot load %s" % tried[0])
        found = [t for t in tried if not t.endswith(": not found")]
        if found:
            raise GpuMetricsUnavailable("%s cannot be loaded: %s" % (GPU_LIB_NAME, "; ".join(found)))
        raise GpuMetricsUnavailable("%s is not installed (looked beside the worker and on the loader "
                                    "path; tlreplay builds it where the CUDA headers are)" % GPU_LIB_NAME)

    @staticmethod
    def _open(path):
        """A GpuLib, or why path cannot be one."""
        if os.sep in path and not os.path.exists(path):
            return "%s: not found" % path
        rt = sanitizer_runtime(path) if os.sep in path else None
        if rt:
            return "%s: a sanitizer build (it needs %s preloaded into the interpreter)" % (path, rt)
        try:
            return GpuLib(path)
        except (OSError, AttributeError) as exc:
            if os.sep not in path and "No such file" in str(exc):
                return "%s: not found" % path
            return "%s: %s" % (path, one_line(exc, 200))
