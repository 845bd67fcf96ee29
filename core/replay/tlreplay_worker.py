#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tlreplay's replay worker, and the standalone replayer that `tlreplay pack` ships.

Worker mode (started by tlreplay, never by hand):

    TLREPLAY_WORKER_FDS=3,4 python3 tlreplay_worker.py --worker

reads one JSON request per line from fd 3 and writes one JSON reply per line to fd 4; the
protocol is described in docs/replay-internals.md.

Standalone mode (for people who only have Python and torch):

    python3 tlreplay_worker.py replay IR.json [--device cpu|cuda[:N]] [-r ITERS] [-j] ...
    python3 tlreplay_worker.py schemas [--namespace NS ...]

Needs Python >= 3.8 and torch >= 1.13; nothing else (stdlib + torch).
"""

import argparse
import ctypes
import faulthandler
import gc
import gzip
import importlib
import importlib.util
import io
import json
import math
import os
import platform
import random
import re
import sys
import time
import traceback
import warnings

try:  # the worker must answer `hello` even when torch is missing or broken
    import torch
    _TORCH_ERROR = None
except Exception as _exc:  # ImportError, OSError from a broken .so, RuntimeError ...
    torch = None
    _TORCH_ERROR = "%s: %s" % (type(_exc).__name__, (str(_exc).strip().splitlines() or [""])[0])

PROTOCOL = 1
VERSION = "0.1.0"

DEFAULT_WARMUP = 10
DEFAULT_ITERS = 100
MAX_EXTRA_CALLS = 100000  # min_time_s never takes the timed loop past this many calls
MEMORY_HEADROOM = 0.95  # refuse when the tensors need more than this share of free memory
L2_FALLBACK_BYTES = 256 << 20
CUDA_CHUNK = 100  # timed CUDA calls between two synchronisations
GPU_LIB_NAME = "libtlreplay_gpu.so"  # CUPTI metrics (core/gpu/tlreplay_gpu.h)
TLG_ABI_VERSION = 1
TLG_KIND_COUNTER = 0

# --------------------------------------------------------------------------- tables

# profiler dtype string (docs/ir.md) -> torch attribute name
DTYPE_NAMES = {
    "float": "float32",
    "double": "float64",
    "c10::Half": "float16",
    "c10::BFloat16": "bfloat16",
    "long int": "int64",
    "long": "int64",
    "long long": "int64",
    "long long int": "int64",
    "int": "int32",
    "short int": "int16",
    "short": "int16",
    "signed char": "int8",
    "char": "int8",
    "unsigned char": "uint8",
    "unsigned short": "uint16",
    "unsigned short int": "uint16",
    "unsigned int": "uint32",
    "unsigned long": "uint64",
    "unsigned long int": "uint64",
    "bool": "bool",
    "c10::Float8_e4m3fn": "float8_e4m3fn",
    "c10::Float8_e4m3fnuz": "float8_e4m3fnuz",
    "c10::Float8_e5m2": "float8_e5m2",
    "c10::Float8_e5m2fnuz": "float8_e5m2fnuz",
    "c10::Float8_e8m0fnu": "float8_e8m0fnu",
    "c10::Float4_e2m1fn_x2": "float4_e2m1fn_x2",
    "c10::complex<float>": "complex64",
    "c10::complex<double>": "complex128",
    "c10::complex<c10::Half>": "complex32",
}

# the torch release that introduced a dtype, for the "not in this torch" message
DTYPE_SINCE = {
    "uint16": "2.3", "uint32": "2.3", "uint64": "2.3",
    "float8_e4m3fn": "2.1", "float8_e5m2": "2.1",
    "float8_e4m3fnuz": "2.2", "float8_e5m2fnuz": "2.2",
    "float8_e8m0fnu": "2.7", "float4_e2m1fn_x2": "2.8",
}

# c10::ScalarType codes (c10/core/ScalarType.h order) -> torch attribute name
SCALAR_TYPES = [
    "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
    "complex32", "complex64", "complex128", "bool", "qint8", "quint8", "qint32", "bfloat16",
    "quint4x2", "quint2x4", "bits1x8", "bits2x4", "bits4x2", "bits8", "bits16",
    "float8_e5m2", "float8_e4m3fn", "float8_e5m2fnuz", "float8_e4m3fnuz",
    "uint16", "uint32", "uint64",
    "uint1", "uint2", "uint3", "uint4", "uint5", "uint6", "uint7",
    "int1", "int2", "int3", "int4", "int5", "int6", "int7",
    "float8_e8m0fnu", "float4_e2m1fn_x2",
]
LAYOUTS = ["strided", "sparse_coo", "sparse_csr", "_mkldnn", "sparse_csc", "sparse_bsr", "sparse_bsc"]
MEMORY_FORMATS = ["contiguous_format", "preserve_format", "channels_last", "channels_last_3d"]

# namespace -> modules whose import registers its ops
NAMESPACE_MODULES = {
    "aiter": ["aiter"],
    "_rocm_C": ["vllm._rocm_C"],
    "_C": ["vllm._C"],
    "_C_cache_ops": ["vllm._C"],
    "vllm": ["vllm._C", "vllm._rocm_C"],
}
OP_ALIASES = {"_rocm_C::wvSplitK": ["_rocm_C::wvSpltK"]}
# string arguments the profiler drops and whose schema has no default
STR_DEFAULTS = {"kv_cache_dtype": "auto", "approximate": "none", "kernelName": ""}


# --------------------------------------------------------------------------- errors

class ReplayFailure(Exception):
    kind = "error"


class ArgsError(ReplayFailure):
    kind = "args"


class MemoryRefused(ReplayFailure):
    kind = "memory"


class Unavailable(Exception):
    pass


class ParentGone(Exception):
    pass


class RegionStopped(ReplayFailure):
    """The parent answered region_begin with `stop` (its counters could not start)."""


def one_line(exc, limit=500):
    """`Type: first line of the message`, never a traceback."""
    if isinstance(exc, (ReplayFailure, Unavailable)):
        name = ""
    else:
        name = type(exc).__name__
    text = ""
    for line in str(exc).splitlines():
        if line.strip():
            text = line.strip()
            break
    if name:
        text = "%s: %s" % (name, text) if text else name
    return text[:limit]


def _json_safe(obj):
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if obj is None or isinstance(obj, (str, int, bool)):
        return obj
    return str(obj)


def _dumps(obj):
    return json.dumps(_json_safe(obj), separators=(",", ":"), allow_nan=False)


# --------------------------------------------------------------------------- dtypes

def torch_version():
    return torch.__version__ if torch is not None else None


def resolve_dtype(name):
    """Profiler dtype string (or a torch dtype name) -> torch.dtype.

    ArgsError for an unknown string, Unavailable for a dtype this torch lacks."""
    if not isinstance(name, str):
        raise ArgsError("dtype must be a string, not %r" % (name,))
    attr = DTYPE_NAMES.get(name)
    if attr is None:
        bare = name[6:] if name.startswith("torch.") else name
        value = getattr(torch, bare, None)
        if isinstance(value, torch.dtype):
            return value
        raise ArgsError("unknown dtype %r" % name)
    value = getattr(torch, attr, None)
    if not isinstance(value, torch.dtype):
        since = DTYPE_SINCE.get(attr)
        raise Unavailable("dtype %r (torch.%s) is not in torch %s%s" % (
            name, attr, torch_version(), " (needs torch >= %s)" % since if since else ""))
    return value


def scalar_type_from_code(code):
    if isinstance(code, bool) or not isinstance(code, int):
        raise ArgsError("ScalarType code must be an integer, not %r" % (code,))
    if code < 0 or code >= len(SCALAR_TYPES):
        raise ArgsError("unknown ScalarType code %d" % code)
    attr = SCALAR_TYPES[code]
    value = getattr(torch, attr, None)
    if not isinstance(value, torch.dtype):
        raise Unavailable("ScalarType %d (torch.%s) is not in torch %s" % (code, attr, torch_version()))
    return value


def _is_float_like(dtype):
    return dtype.is_floating_point or dtype.is_complex


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


_ITEMSIZE = {}


def _itemsize(dtype):
    size = _ITEMSIZE.get(dtype)
    if size is None:
        size = getattr(dtype, "itemsize", None)
        if not isinstance(size, int):
            with warnings.catch_warnings():  # "ComplexHalf support is experimental"
                warnings.simplefilter("ignore")
                size = torch.empty(0, dtype=dtype).element_size()
        _ITEMSIZE[dtype] = size
    return size


# --------------------------------------------------------------------------- tensors

def contiguous_strides(shape):
    strides = []
    acc = 1
    for size in reversed(shape):
        strides.append(acc)
        acc *= max(int(size), 1)
    return list(reversed(strides))


def storage_elements(shape, strides):
    """Elements of storage that a tensor with these sizes and strides spans."""
    if any(s == 0 for s in shape):
        return 0
    return 1 + sum((s - 1) * st for s, st in zip(shape, strides))


def _int_list(value, what):
    if not isinstance(value, (list, tuple)):
        raise ArgsError("%s must be a list of integers, not %r" % (what, value))
    out = []
    for v in value:
        if isinstance(v, bool) or not isinstance(v, int):
            raise ArgsError("%s must be a list of integers, not %r" % (what, value))
        out.append(v)
    return out


def is_tensor_value(value):
    return isinstance(value, dict) and "shape" in value and "dtype" in value


class TensorSpec:
    """A tensor value of the IR, checked; built later (after the memory check)."""

    __slots__ = ("shape", "strides", "dtype", "init", "tl_init", "label", "nelem_storage", "nbytes")

    def __init__(self, value, tl_init, label):
        self.label = label
        self.shape = _int_list(value.get("shape"), "%s: shape" % label)
        if any(s < 0 for s in self.shape):
            raise ArgsError("%s: negative size in shape %r" % (label, self.shape))
        strides = value.get("strides")
        if strides is None or (strides == [] and self.shape):
            self.strides = contiguous_strides(self.shape)
        else:
            self.strides = _int_list(strides, "%s: strides" % label)
            if len(self.strides) != len(self.shape):
                raise ArgsError("%s: %d strides for %d dimensions" % (label, len(self.strides), len(self.shape)))
            if any(st < 0 for st in self.strides):
                raise ArgsError("%s: negative stride in %r" % (label, self.strides))
        self.dtype = resolve_dtype(value.get("dtype"))
        self.init = value.get("init")
        if tl_init is not None and not isinstance(tl_init, dict):
            raise ArgsError("%s: tl_init must be an object" % label)
        self.tl_init = tl_init
        self.nelem_storage = storage_elements(self.shape, self.strides)
        self.nbytes = self.nelem_storage * _itemsize(self.dtype)

    def fill_kind(self):
        """(kind, note) where kind is normal, zeros, randint, arange or none."""
        if self.tl_init is not None:
            kind = self.tl_init.get("kind")
            if kind in ("randint", "arange", "zeros"):
                return kind, None
            return self._default_kind(), "unknown tl_init kind %r ignored" % (kind,)
        init = self.init
        floaty = _is_float_like(self.dtype)
        if init == "normal":
            return ("normal", None) if floaty else ("zeros", None)
        if init == "zeros":
            return "zeros", None
        if init is None:
            return ("none", None) if floaty else ("zeros", None)
        return self._default_kind(), "unknown init %r: %s" % (init, "normal" if floaty else "zeros")

    def _default_kind(self):
        return "normal" if _is_float_like(self.dtype) else "zeros"


def _zero_storage(flat):
    try:
        flat.zero_()
    except Exception:
        flat.view(torch.uint8).zero_()


def _int_bounds(dtype):
    if dtype == torch.bool:
        return 0, 2
    if dtype.is_floating_point or dtype.is_complex:
        return None, None
    try:
        info = torch.iinfo(dtype)
        return int(info.min), int(info.max) + 1
    except Exception:
        return None, None


def fill_tensor(t, spec, warn):
    """Initialise t (built by empty_strided from spec) over its whole storage.

    Working on the storage rather than the view makes overlapping (stride 0) layouts fine."""
    kind, note = spec.fill_kind()
    if note:
        warn("%s: %s" % (spec.label, note))
    n = spec.nelem_storage
    if kind == "none" or n == 0:
        return
    flat = t.as_strided((n,), (1,), t.storage_offset())
    if kind == "zeros":
        _zero_storage(flat)
    elif kind == "normal":
        try:
            if "e8m0" in str(t.dtype):  # scales: no sign, no zero; random powers of two
                raise TypeError("no normal sampler")
            flat.normal_()
        except Exception:
            try:
                if "e8m0" in str(t.dtype):
                    flat.copy_(torch.exp2(torch.randint(-2, 3, (n,), device=t.device).float()))
                else:
                    flat.copy_(torch.randn(n, device=t.device))
            except Exception as exc:
                warn("%s: %s cannot be drawn from a normal distribution (%s); zero-filled" % (
                    spec.label, _dtype_name(t.dtype), one_line(exc)))
                _zero_storage(flat)
    elif kind == "randint":
        low = spec.tl_init.get("low", 0)
        high = spec.tl_init.get("high")
        if (isinstance(low, bool) or not isinstance(low, int) or isinstance(high, bool)
                or not isinstance(high, int)):
            warn("%s: tl_init randint needs integer low and high; zero-filled" % spec.label)
            _zero_storage(flat)
            return
        lo_b, hi_b = _int_bounds(t.dtype)
        if lo_b is not None:
            low, high = max(low, lo_b), min(high, hi_b)
        if high <= low:
            warn("%s: empty tl_init randint range [%d, %d); zero-filled" % (spec.label, low, high))
            _zero_storage(flat)
            return
        try:
            flat.random_(low, high)
        except Exception:
            try:
                flat.copy_(torch.randint(low, high, (n,), device=t.device))
            except Exception as exc:
                warn("%s: no random integers for %s (%s); zero-filled" % (
                    spec.label, _dtype_name(t.dtype), one_line(exc)))
                _zero_storage(flat)
    elif kind == "arange":
        try:
            t.copy_(torch.arange(t.numel(), device=t.device).view(t.shape))
        except Exception:
            try:  # overlapping layouts: storage order
                flat.copy_(torch.arange(n, device=t.device))
            except Exception as exc:
                warn("%s: no arange for %s (%s); zero-filled" % (spec.label, _dtype_name(t.dtype), one_line(exc)))
                _zero_storage(flat)


# --------------------------------------------------------------------------- description

def describe(value, depth=0):
    if torch is not None and isinstance(value, torch.Tensor):
        return "Tensor[%s] %s" % (", ".join(str(int(d)) for d in value.shape), _dtype_name(value.dtype))
    if value is None:
        return "None"
    if torch is not None and isinstance(value, torch.dtype):
        return _dtype_name(value)
    if torch is not None and isinstance(value, (torch.device, torch.layout, torch.memory_format)):
        return str(value).replace("torch.", "")
    if isinstance(value, (list, tuple)):
        if depth > 2:
            return "..."
        items = [describe(v, depth + 1) for v in list(value)[:8]]
        if len(value) > 8:
            items.append("... %d more" % (len(value) - 8))
        if isinstance(value, tuple):
            return "(%s)" % ", ".join(items)
        return "[%s]" % ", ".join(items)
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def stats(times):
    if not times:
        return {}
    s = sorted(times)
    n = len(s)
    median = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0
    mean = sum(s) / n
    std = math.sqrt(sum((x - mean) ** 2 for x in s) / (n - 1)) if n > 1 else 0.0  # sample std, as tlreplay
    return {"median_us": median, "mean_us": mean, "std_us": std, "min_us": s[0], "max_us": s[-1]}


# --------------------------------------------------------------------------- memory

def _read_int(path):
    try:
        with open(path) as f:
            text = f.read().strip()
        return int(text)
    except (OSError, ValueError):
        return None


def host_memory_available():
    """MemAvailable, lowered to the cgroup's remaining allowance when there is a limit."""
    avail = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        pass
    limit = _read_int("/sys/fs/cgroup/memory.max")
    used = _read_int("/sys/fs/cgroup/memory.current")
    if limit is None:
        limit = _read_int("/sys/fs/cgroup/memory/memory.limit_in_bytes")
        used = _read_int("/sys/fs/cgroup/memory/memory.usage_in_bytes")
    if limit is not None and used is not None and limit < (1 << 60):
        room = max(limit - used, 0)
        avail = room if avail is None else min(avail, room)
    return avail


def device_memory_available(device):
    if device.type != "cuda":
        return host_memory_available(), "host MemAvailable"
    idx = device.index
    free = None
    if hasattr(torch.cuda, "mem_get_info"):
        free, _total = torch.cuda.mem_get_info(idx)
    else:
        free = torch.cuda.get_device_properties(idx).total_memory - torch.cuda.memory_reserved(idx)
    cached = torch.cuda.memory_reserved(idx) - torch.cuda.memory_allocated(idx)
    return free + max(cached, 0), "free memory on cuda:%d" % idx


def human_bytes(n):
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            return ("%d %s" % (value, unit)) if unit == "B" else ("%.1f %s" % (value, unit))
        value /= 1024.0
    return "%d B" % n


# --------------------------------------------------------------------------- initializers

class InitContext:
    """What a custom initializer sees (docs/replay-internals.md, "Custom initializers")."""

    def __init__(self, op_name, args, kwargs, arg_names, arg_types, entry, device, rng, options):
        self.op_name = op_name
        self.args = args
        self.kwargs = kwargs
        self.arg_names = arg_names
        self.arg_types = arg_types
        self.entry = entry
        self.device = device
        self.rng = rng
        self.options = options

    # helpers for initializers: find an argument by name, else at a fixed position
    def _where(self, names, pos, accept, pos_accept=None):
        for name in names:
            if name in self.arg_names:
                i = self.arg_names.index(name)
                if i < len(self.args) and accept(self.args[i]):
                    return ("pos", i)
            if name in self.kwargs and accept(self.kwargs[name]):
                return ("kw", name)
        if pos is not None and 0 <= pos < len(self.args) and (pos_accept or accept)(self.args[pos]):
            return ("pos", pos)
        return None

    def _value(self, where):
        return self.args[where[1]] if where[0] == "pos" else self.kwargs[where[1]]

    def get(self, names, pos=None, default=None):
        where = self._where(list(names), pos, lambda v: True)
        return default if where is None else self._value(where)

    def tensor(self, names, pos=None, ndim=None):
        def accept(v):
            return (isinstance(v, torch.Tensor) and (ndim is None or v.dim() == ndim))
        where = self._where(list(names), pos, accept)
        return None if where is None else self._value(where)

    def integer(self, names, pos=None):
        def accept(v):
            return isinstance(v, int) and not isinstance(v, bool)
        where = self._where(list(names), pos, accept)
        return None if where is None else self._value(where)

    def set(self, names, value, pos=None):
        """Replace an argument; at the fallback position only a value of the same type (or None)."""
        where = self._where(list(names), pos, lambda v: True,
                            lambda v: v is None or type(v) is type(value))
        if where is None:
            return False
        if where[0] == "pos":
            self.args[where[1]] = value
        else:
            self.kwargs[where[1]] = value
        return True


def _generator(ctx):
    gen = torch.Generator()
    gen.manual_seed(ctx.rng.getrandbits(63))
    return gen


def _split_even(total, parts):
    if parts <= 0:
        return []
    base, rem = divmod(total, parts)
    return [base + 1] * rem + [base] * (parts - rem)


class PagedAttentionInit:
    """vLLM paged attention: full contexts, distinct random KV blocks, query start locations."""

    name = "paged_attention"
    op_patterns = ["_C::paged_attention_v1", "_C::paged_attention_v2", "_rocm_C::paged_attention"]
    # positional fallbacks (vLLM's csrc/torch_bindings.cpp and csrc/rocm/torch_bindings.cpp)
    LAYOUTS = {
        "_C::paged_attention_v1": {"query": 1, "key_cache": 2, "value_cache": 3, "block_tables": 6,
                                   "seq_lens": 7, "block_size": 8, "max_seq_len": 9},
        "_C::paged_attention_v2": {"query": 4, "key_cache": 5, "value_cache": 6, "block_tables": 9,
                                   "seq_lens": 10, "block_size": 11, "max_seq_len": 12},
        "_rocm_C::paged_attention": {"query": 4, "key_cache": 5, "value_cache": 6, "block_tables": 9,
                                     "seq_lens": 10, "query_start_loc": 11, "block_size": 12,
                                     "max_seq_len": 13},
    }

    def initialize(self, ctx):
        lay = self.LAYOUTS.get(ctx.op_name, {})
        skip = "paged_attention: skipped: "
        bt = ctx.tensor(["block_tables"], lay.get("block_tables"), ndim=2)
        if bt is None:
            return skip + "no 2-d block_tables argument"
        sl = ctx.tensor(["seq_lens", "context_lens"], lay.get("seq_lens"), ndim=1)
        if sl is None:
            return skip + "no 1-d seq_lens argument"
        kc = ctx.tensor(["key_cache"], lay.get("key_cache"))
        vc = ctx.tensor(["value_cache"], lay.get("value_cache"))
        cache = kc if kc is not None and kc.dim() >= 1 else vc
        if cache is None or cache.dim() < 1 or cache.shape[0] < 1:
            return skip + "no key_cache argument to count the KV blocks"
        num_blocks = int(cache.shape[0])
        block_size = ctx.integer(["block_size"], lay.get("block_size"))
        if block_size is None or block_size <= 0:
            if vc is not None and vc.dim() == 4:
                block_size = int(vc.shape[3])
            elif kc is not None and kc.dim() == 5:
                block_size = int(kc.shape[3])
            else:
                return skip + "no block_size argument"
        notes = []
        num_seqs = min(int(sl.shape[0]), int(bt.shape[0]))
        width = int(bt.shape[1])
        capacity = width * block_size
        max_names = ["max_seq_len", "max_context_len"]
        max_len = ctx.integer(max_names, lay.get("max_seq_len"))
        if max_len is None or max_len <= 0:
            if max_len is not None:
                ctx.set(max_names, capacity, lay.get("max_seq_len"))
            max_len = capacity
            notes.append("max_seq_len taken from block_tables")
        elif max_len > capacity:
            notes.append("max_seq_len %d clamped to %d (block_tables width)" % (max_len, capacity))
            max_len = capacity
            ctx.set(max_names, max_len, lay.get("max_seq_len"))
        if num_seqs == 0 or max_len == 0:
            return skip + "empty batch"
        per_seq = -(-max_len // block_size)
        gen = _generator(ctx)
        table = torch.zeros(tuple(bt.shape), dtype=torch.int64)
        if num_seqs * per_seq <= num_blocks:
            chosen = torch.randperm(num_blocks, generator=gen)[:num_seqs * per_seq]
            table[:num_seqs, :per_seq] = chosen.view(num_seqs, per_seq)
            how = "distinct"
        elif per_seq <= num_blocks:
            for s in range(num_seqs):
                table[s, :per_seq] = torch.randperm(num_blocks, generator=gen)[:per_seq]
            how = "distinct within each sequence only (%d needed)" % (num_seqs * per_seq)
        else:
            table[:num_seqs, :per_seq] = torch.arange(per_seq) % num_blocks
            how = "reused (a sequence needs %d)" % per_seq
        bt.copy_(table.to(bt.dtype))
        sl.fill_(max_len)
        msg = "paged_attention: %d seqs x %d context, %d blocks of %d per seq, %s of %d blocks" % (
            num_seqs, max_len, per_seq, block_size, how, num_blocks)
        qsl = ctx.tensor(["query_start_loc", "cu_seqlens_q"], lay.get("query_start_loc"), ndim=1)
        if qsl is not None:
            q = ctx.tensor(["query"], lay.get("query"))
            tokens = int(q.shape[0]) if q is not None and q.dim() >= 1 else num_seqs
            lens, how_q = self.query_lens(num_seqs, tokens, ctx.entry.get("batch_context"),
                                          bool(ctx.options.get("pa_decode_first")))
            starts = [0]
            for n in lens:
                starts.append(starts[-1] + n)
            size = int(qsl.shape[0])
            if size < len(starts):
                notes.append("query_start_loc has %d entries for %d sequences" % (size, num_seqs))
                starts = starts[:size]
            else:
                starts += [starts[-1]] * (size - len(starts))
            qsl.copy_(torch.tensor(starts, dtype=torch.int64).to(qsl.dtype))
            msg += "; query_start_loc %s" % how_q
        if notes:
            msg += " (%s)" % "; ".join(notes)
        return msg

    @staticmethod
    def query_lens(num_seqs, tokens, bc, decode_first=False):
        if isinstance(bc, dict):
            try:
                npf = int(bc.get("n_prefill", 0) or 0)
                ptok = int(bc.get("prefill_tokens", 0) or 0)
                nd = int(bc.get("n_decode", 0) or 0)
                dtok = int(bc.get("decode_tokens", 0) or 0)
            except (TypeError, ValueError):
                npf = ptok = nd = dtok = -1
            if (npf >= 0 and nd >= 0 and npf + nd == num_seqs and ptok + dtok == tokens
                    and ptok >= npf and dtok >= nd):
                pre, dec = _split_even(ptok, npf), _split_even(dtok, nd)
                lens = dec + pre if decode_first else pre + dec
                return lens, "from batch_context (%d prefill with %d tokens, %d decode with %d)" % (
                    npf, ptok, nd, dtok)
            mismatch = "batch_context does not match %d seqs / %d tokens, " % (num_seqs, tokens)
        else:
            mismatch = ""
        if tokens == num_seqs:
            return [1] * num_seqs, mismatch + "decode guess (1 token per sequence)"
        if tokens > num_seqs:
            return _split_even(tokens, num_seqs), mismatch + "prefill guess (%d tokens over %d sequences)" % (
                tokens, num_seqs)
        return [1] * tokens + [0] * (num_seqs - tokens), mismatch + "guess (%d tokens for %d sequences)" % (
            tokens, num_seqs)


_FMOE_OPS = ["aiter::fmoe", "aiter::fmoe_int8_g1u0", "aiter::fmoe_g1u1", "aiter::fmoe_g1u1_tkw1",
             "aiter::fmoe_int8_g1u0_a16", "aiter::fmoe_g1u1_a16", "aiter::fmoe_fp8_blockscale_g1u1"]


class MoeRoutingInit:
    """aiter MoE kernels: a real token -> expert routing laid out as moe_sorting would."""

    name = "moe_routing"
    op_patterns = ["aiter::ck_moe_stage1", "aiter::ck_moe_stage2", "aiter::moe_stage1_g1u1"] + _FMOE_OPS
    _CK = {"tokens": 0, "w1": 1, "sorted_token_ids": 3, "sorted_expert_ids": 4, "num_valid_ids": 5,
           "out": 6, "topk": 7, "block_m": 11, "sorted_weights": 12}
    _FMOE = {"out": 0, "tokens": 1, "w1": 2, "sorted_token_ids": 4, "sorted_weights": 5,
             "sorted_expert_ids": 6, "num_valid_ids": 7, "topk": 8}
    _ASM_STAGE1 = {"tokens": 0, "w1": 1, "sorted_token_ids": 3, "sorted_expert_ids": 4, "num_valid_ids": 5,
                   "out": 6, "block_m": 9, "sorted_weights": 15}
    BLOCK_M_PREFERENCE = (32, 64, 128, 16, 256, 8, 4, 2, 1)

    def layout(self, op):
        if op in ("aiter::ck_moe_stage1", "aiter::ck_moe_stage2"):
            return self._CK
        if op == "aiter::moe_stage1_g1u1":
            return self._ASM_STAGE1
        if op in _FMOE_OPS:
            return self._FMOE
        return {}

    def initialize(self, ctx):
        lay = self.layout(ctx.op_name)
        skip = "moe_routing: skipped: "
        tokens_t = ctx.tensor(["hidden_states", "inter_states", "input", "a1", "a2"], lay.get("tokens"))
        if tokens_t is None or tokens_t.dim() < 1:
            return skip + "no hidden_states/input argument"
        w1 = ctx.tensor(["w1", "gate"], lay.get("w1"))
        if w1 is None or w1.dim() < 1:
            return skip + "no w1/gate argument to count the experts"
        sti = ctx.tensor(["sorted_token_ids", "sorted_ids"], lay.get("sorted_token_ids"), ndim=1)
        if sti is None:
            return skip + "no 1-d sorted_token_ids argument"
        sei = ctx.tensor(["sorted_expert_ids", "expert_ids"], lay.get("sorted_expert_ids"), ndim=1)
        if sei is None:
            return skip + "no 1-d sorted_expert_ids argument"
        nvi = ctx.tensor(["num_valid_ids", "num_tokens_post_padded", "num_tokens_post_pad"],
                         lay.get("num_valid_ids"))
        if nvi is None or nvi.numel() < 1:
            return skip + "no num_valid_ids argument"
        sw = ctx.tensor(["sorted_weights", "sorted_weight_buf"], lay.get("sorted_weights"), ndim=1)
        m = int(tokens_t.shape[0])
        experts = int(w1.shape[0])
        topk = ctx.integer(["topk"], lay.get("topk"))
        if topk is None or topk <= 0:
            out = ctx.tensor(["out"], lay.get("out"))
            if out is not None and out.dim() == 3:
                topk = int(out.shape[1])
            elif ctx.op_name == "aiter::ck_moe_stage2" and tokens_t.dim() == 3:
                topk = int(tokens_t.shape[1])
            else:
                return skip + "no topk argument"
        if m == 0 or experts == 0:
            return skip + "no tokens or no experts"
        if topk > experts:
            return skip + "topk %d > %d experts" % (topk, experts)
        len_t, len_e = int(sti.numel()), int(sei.numel())
        block_m = ctx.integer(["block_m", "block_size"], lay.get("block_m"))
        guessed = ""
        if block_m is None or block_m <= 0:
            block_m = 32
            for cand in self.BLOCK_M_PREFERENCE:
                if len_e > 0 and -(-len_t // cand) == len_e:
                    block_m = cand
                    break
            guessed = " (guessed)"
        opts = ctx.options
        dist = str(opts.get("moe_distribution", "uniform")).lower()
        gen = _generator(ctx)
        if dist == "zipf":
            s = float(opts.get("moe_zipf_s", 1.2))
            ranks = torch.randperm(experts, generator=gen)
            probs = torch.empty(experts, dtype=torch.float64)
            probs[ranks] = torch.tensor([1.0 / (k + 1) ** s for k in range(experts)], dtype=torch.float64)
            dist_txt = "zipf s=%g" % s
        elif dist == "uniform":
            probs = torch.ones(experts, dtype=torch.float64)
            dist_txt = "uniform"
        else:
            return skip + "unknown moe_distribution %r (uniform, zipf)" % dist
        chunks = []
        for start in range(0, m, 4096):  # bounded memory for large batches
            rows = min(4096, m - start)
            chunks.append(torch.multinomial(probs.expand(rows, experts).contiguous(), topk,
                                            replacement=False, generator=gen))
        topk_ids = torch.cat(chunks)
        packed = str(opts.get("moe_token_ids", "packed")).lower() != "plain"
        sorted_ids, expert_blocks, valid, used_blocks, counts, truncated = self.layout_routing(
            topk_ids, experts, block_m, len_t, len_e, packed)
        sti.copy_(sorted_ids.to(sti.dtype))
        blocks = torch.zeros(len_e, dtype=torch.int64)
        blocks[:used_blocks] = expert_blocks[:used_blocks]
        sei.copy_(blocks.to(sei.dtype))
        nv = torch.zeros(int(nvi.numel()), dtype=torch.int64)
        nv[0] = valid
        if nv.numel() > 1:
            nv[1] = m
        nvi.copy_(nv.view(tuple(nvi.shape)).to(nvi.dtype))
        if sw is not None and sw.numel() == len_t:
            sentinel = self.sentinel(m, topk, packed)
            weights = torch.where(sorted_ids != sentinel, torch.full((len_t,), 1.0 / topk),
                                  torch.zeros(len_t))
            sw.copy_(weights.to(sw.dtype))
        busiest = int(counts.max()) if counts.numel() else 0
        idle = int((counts == 0).sum())
        msg = ("moe_routing: %d tokens x top%d over %d experts (%s), block_m %d%s: %d blocks, %d valid slots "
               "of %d; busiest expert %d, idle experts %d" % (
                   m, topk, experts, dist_txt, block_m, guessed, used_blocks, valid, len_t, busiest, idle))
        if truncated:
            msg += " (truncated: the routing needs %d blocks)" % truncated
        return msg

    @staticmethod
    def sentinel(m, topk, packed):
        return (topk << 24) | m if packed else m

    @classmethod
    def layout_routing(cls, topk_ids, experts, block_m, len_t, len_e, packed):
        """Sorted token ids / expert id per block / valid count, as aiter's moe_sorting lays them out."""
        m, topk = topk_ids.shape
        flat = topk_ids.reshape(-1).to(torch.int64)
        n = flat.numel()
        idx = torch.arange(n, dtype=torch.int64)
        order = torch.argsort(flat * n + idx)  # by expert, stable in (token, slot)
        counts = torch.bincount(flat, minlength=experts)
        nblk = (counts + block_m - 1) // block_m
        padded = nblk * block_m
        pad_off = torch.cumsum(padded, 0) - padded
        unpad_off = torch.cumsum(counts, 0) - counts
        sorted_e = flat[order]
        pos = pad_off[sorted_e] + (idx - unpad_off[sorted_e])
        token = order // topk
        slot = order % topk
        value = (slot << 24) | token if packed else token
        total_blocks = int(nblk.sum())
        max_blocks = min(len_t // block_m, len_e)
        truncated = 0
        used_blocks = total_blocks
        if total_blocks > max_blocks:
            truncated = total_blocks
            used_blocks = max_blocks
            keep = pos < used_blocks * block_m
            pos, value = pos[keep], value[keep]
        buf = torch.full((len_t,), cls.sentinel(m, topk, packed), dtype=torch.int64)
        buf[pos] = value
        expert_blocks = torch.repeat_interleave(torch.arange(experts, dtype=torch.int64), nblk)
        return buf, expert_blocks, used_blocks * block_m, used_blocks, counts, truncated


BUILTIN_INITIALIZERS = [PagedAttentionInit(), MoeRoutingInit()]


# --------------------------------------------------------------------------- GPU metrics (CUPTI)

class GpuMetricsUnavailable(Exception):
    """Why none of the requested GPU metrics can be counted (the replay goes on)."""


def parse_gpu_metric(text):
    """`sm__x.sum`, `nvgpu/sm__x.sum/` or `nvgpu0/sm__x.sum/` -> (gpu index or None, metric)."""
    m = re.match(r"^nvgpu(\d*)/(.+?)/?$", text)
    if not m:
        return None, text
    return (int(m.group(1)) if m.group(1) else None), m.group(2)


def gpu_metric_per_call(metric, kind):
    """Whether a value over N calls divides by N: plain counters only (`dram__bytes_read.sum`),
    not ratios, throughputs or a counter's submetrics (`.per_second`, `.pct_of_peak_...`)."""
    return kind == TLG_KIND_COUNTER and len(metric.split(".")) <= 2


def _tensors_in(value):
    if torch is not None and isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors_in(v)]
    return []


def _schema_writes(op):
    """Positions and names of the arguments the op's schema marks as written (`Tensor(a!)`)."""
    out = set()
    schema = getattr(op, "_schema", None)  # an OpOverload has one; a packet does not
    for i, arg in enumerate(getattr(schema, "arguments", None) or []):
        info = getattr(arg, "alias_info", None)
        if info is not None and getattr(info, "is_write", False):
            out.add(arg.name)
            if not getattr(arg, "kwarg_only", False):
                out.add(i)
    return out


class TensorSnapshot:
    """A copy of the storage the written tensors address, put back before each counting pass
    but the first (ncu's kernel replay does the same with the memory a kernel writes)."""

    def __init__(self, tensors):
        self.pairs = []
        seen = set()
        for t in tensors:
            n = storage_elements(list(t.shape), list(t.stride()))
            key = (t.data_ptr(), n, t.dtype)
            if n == 0 or key in seen:
                continue
            seen.add(key)
            flat = t.as_strided((n,), (1,))  # the whole span, overlaps (stride 0) included
            try:
                copy = flat.clone()
            except Exception as exc:
                if not Session._is_oom(exc):
                    raise
                copy = flat.to("cpu")  # slower to put back, but it fits
            self.pairs.append((flat, copy))

    def restore(self):
        for flat, copy in self.pairs:
            flat.copy_(copy)

    def nbytes(self):
        return sum(c.numel() * c.element_size() for _f, c in self.pairs)


def _sanitizer_runtime(path):
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
    beside this script as installed ($(DATADIR)/tlreplay/replay -> $(PREFIX)/lib), in a bundle
    (share/tlreplay/replay -> lib), in the source tree (core/replay -> build), and last the
    loader's search path."""
    if requested:
        return [requested]
    env = os.environ.get("TLREPLAY_GPU_LIB")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
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


def _preload_cupti():
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


# --------------------------------------------------------------------------- the replayer

class Channel:
    """The two pipes of worker mode."""

    def __init__(self, rfd, wfd):
        self._r = io.open(rfd, "rb", buffering=65536, closefd=False)
        self._wfd = wfd

    def read(self):
        line = self._r.readline()
        if not line:
            return None
        return line

    def send(self, obj):
        data = (_dumps(obj) + "\n").encode("utf-8")
        view = memoryview(data)
        while view:
            try:
                n = os.write(self._wfd, view)
            except BrokenPipeError:
                raise ParentGone()
            view = view[n:]

    def wait_go(self):
        """Wait for the parent's answer to a region event: True for `go`, False for `stop`."""
        while True:
            line = self.read()
            if line is None:
                raise ParentGone()
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if isinstance(msg, dict):
                if msg.get("cmd") == "go":
                    return True
                if msg.get("cmd") == "stop":
                    return False
                if msg.get("cmd") == "quit":
                    raise ParentGone()


def _int_opt(req, key, default, minimum=0):
    value = req.get(key, default)
    if value is None:
        value = default
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ArgsError("%s must be an integer >= %d, not %r" % (key, minimum, value))
    return value


def _float_opt(req, key, default):
    value = req.get(key, default)
    if value is None:
        value = default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ArgsError("%s must be a number >= 0, not %r" % (key, value))
    return float(value)


def _base_type(arg_type):
    """`Tensor(a!)` -> `Tensor`, `ScalarType?` -> `ScalarType`, `int[2]` -> `int[]`."""
    t = re.sub(r"\([^)]*\)", "", arg_type or "").strip()
    optional = t.endswith("?")
    t = t.rstrip("?")
    t = re.sub(r"\[\d*\]", "[]", t)
    return t.rstrip("?"), optional


class Session:
    def __init__(self, channel=None, log=None):
        self.channel = channel
        self.log = log or sys.stderr
        self._modules = {}  # module -> None (imported) or error text
        self._plugins = {}  # path -> (mtime, initializers)
        self._flush = {}  # device index -> L2 flush buffer
        self._gpu_libs = {}  # path -> GpuLib, or the reason it cannot be loaded

    # ------------------------------------------------------------------ requests
    def handle(self, req):
        cmd = req.get("cmd")
        if cmd == "hello":
            return self.hello(req)
        if cmd == "schemas":
            return self.schemas(req)
        if cmd == "replay":
            return self.replay(req)
        raise ArgsError("unknown command %r" % (cmd,))

    def hello(self, req):
        reply = {"id": req.get("id"), "status": "ok", "protocol": PROTOCOL, "worker": VERSION,
                 "python": platform.python_version(), "executable": sys.executable,
                 "torch": torch.__version__, "cuda": False, "hip": getattr(torch.version, "hip", None),
                 "cuda_version": getattr(torch.version, "cuda", None), "devices": [],
                 "host_memory_available": host_memory_available(), "pid": os.getpid()}
        try:
            reply["cuda"] = bool(torch.cuda.is_available())
            if reply["cuda"]:
                for i in range(torch.cuda.device_count()):
                    p = torch.cuda.get_device_properties(i)
                    reply["devices"].append({
                        "index": i, "name": p.name, "total_memory": int(p.total_memory),
                        "l2_cache_size": getattr(p, "L2_cache_size", None),
                        "multi_processor_count": getattr(p, "multi_processor_count", None),
                        "capability": "%d.%d" % (p.major, p.minor)})
        except Exception as exc:
            reply["warnings"] = ["CUDA query failed: %s" % one_line(exc)]
        return reply

    def schemas(self, req):
        extra, names = self._namespace_request(req.get("namespaces"))
        warns = []
        for ns in names:
            warns.extend(self._import_namespace(ns, extra))
        out, seen = [], set()
        for s in torch._C._jit_get_all_schemas():
            text = str(s)
            if text not in seen:
                seen.add(text)
                out.append(text)
        getter = getattr(torch._C, "_dispatch_get_all_op_names", None)
        if getter is not None and names:
            try:
                for qual in getter():
                    ns, _, base = qual.partition("::")
                    if ns not in names or not base:
                        continue
                    pkt = self._lookup("%s::%s" % (ns, base.split(".")[0]))
                    for ov in (pkt.overloads() if pkt is not None else []):
                        text = str(getattr(pkt, ov)._schema)
                        if text not in seen:
                            seen.add(text)
                            out.append(text)
            except Exception as exc:
                warns.append("dispatcher op list: %s" % one_line(exc))
        reply = {"id": req.get("id"), "status": "ok", "torch": torch.__version__, "schemas": out}
        if warns:
            reply["warnings"] = warns
        return reply

    @staticmethod
    def _namespace_request(value):
        """`namespaces` is {ns: [modules]} (replay) or [ns, ...] (schemas); both are accepted."""
        if value is None:
            return {}, []
        if isinstance(value, dict):
            extra = {}
            for ns, mods in value.items():
                if isinstance(mods, str):
                    mods = [mods]
                if not isinstance(mods, list) or not all(isinstance(m, str) for m in mods):
                    raise ArgsError("namespaces[%r] must be a list of module names" % ns)
                extra[ns] = mods
            return extra, list(extra)
        if isinstance(value, list) and all(isinstance(n, str) for n in value):
            return {}, list(value)
        raise ArgsError("namespaces must be an object {ns: [modules]} or a list of namespaces")

    # ------------------------------------------------------------------ op resolution
    def _import_module(self, mod):
        if mod in self._modules:
            return self._modules[mod]
        err = None
        try:
            if mod.endswith(".py") or os.sep in mod:
                name = "tlreplay_ns_%d" % len(self._modules)
                spec = importlib.util.spec_from_file_location(name, mod)
                if spec is None or spec.loader is None:
                    raise ImportError("cannot load %s" % mod)
                module = importlib.util.module_from_spec(spec)
                sys.modules[name] = module
                spec.loader.exec_module(module)
            else:
                importlib.import_module(mod)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # an extension's import can raise anything, SystemExit included
            err = one_line(exc)
        self._modules[mod] = err
        return err

    def _import_namespace(self, ns, extra):
        warns = []
        for mod in list(extra.get(ns, [])) + NAMESPACE_MODULES.get(ns, []):
            err = self._import_module(mod)
            if err:
                warns.append("import %s: %s" % (mod, err))
        return warns

    @staticmethod
    def _lookup(qual):
        ns, sep, name = qual.partition("::")
        if not sep or not ns or not name:
            return None
        try:
            return getattr(getattr(torch.ops, ns), name)
        except Exception:
            return None

    def resolve(self, entry, req, warn):
        op_name = entry.get("op_name")
        if not isinstance(op_name, str) or not op_name:
            raise ArgsError("entry has no op_name")
        overload = entry.get("overload")
        if overload is not None and not isinstance(overload, str):
            raise ArgsError("overload must be a string")
        base = op_name
        ns, sep, name = op_name.partition("::")
        if not sep:
            raise Unavailable("op %s has no namespace (ns::name)" % op_name)
        if overload is None and "." in name:
            name, overload = name.split(".", 1)
            base = "%s::%s" % (ns, name)
        extra, _ = self._namespace_request(req.get("namespaces"))
        aliases = req.get("aliases") or {}
        if not isinstance(aliases, dict):
            raise ArgsError("aliases must be an object {op: [other names]}")
        import_warns = []
        used = base
        pkt = self._lookup(base)
        if pkt is None:
            import_warns += self._import_namespace(ns, extra)
            pkt = self._lookup(base)
        if pkt is None:
            alts = aliases.get(base, [])
            if isinstance(alts, str):
                alts = [alts]
            for alt in list(alts) + OP_ALIASES.get(base, []):
                pkt = self._lookup(alt)
                if pkt is None:
                    import_warns += self._import_namespace(alt.partition("::")[0], extra)
                    pkt = self._lookup(alt)
                if pkt is not None:
                    used = alt
                    warn("%s replayed as its alias %s" % (base, alt))
                    break
        if pkt is None:
            hint = ""
            if import_warns:
                hint = " (%s)" % "; ".join(sorted(set(import_warns)))
            raise Unavailable("op %s is not in torch %s%s" % (base, torch.__version__, hint))
        if overload is None:
            return pkt, used, base
        ov = overload or "default"
        try:
            op = getattr(pkt, ov)
        except Exception:
            warn("overload %r of %s is not in torch %s; torch picks one from the arguments" % (
                ov, used, torch.__version__))
            return pkt, used, base
        return op, "%s.%s" % (used, ov), base

    # ------------------------------------------------------------------ arguments
    def _str_default(self, op, entry, name, optional, value, warn, index=None):
        """The value for a `str` argument the profiler dropped.

        The live schema's default (found by name, or at `index` when the IR names its arguments
        arg0, arg1 ... as TraceLens's schemaless IR does), the entry's schema's, a known default."""
        if optional and value is None:
            return None
        schemas = []
        if hasattr(op, "_schema"):
            schemas.append(op._schema)
        elif hasattr(op, "overloads"):
            try:
                schemas.extend(getattr(op, ov)._schema for ov in op.overloads())
            except Exception:
                pass
        for s in schemas:
            for a in getattr(s, "arguments", []):
                if a.name == name and isinstance(a.default_value, str):
                    return a.default_value
        if index is not None and re.match(r"^arg\d+$", name):
            for s in schemas:
                arguments = list(getattr(s, "arguments", []))
                if index < len(arguments) and "str" in str(arguments[index].type):
                    a = arguments[index]
                    if isinstance(a.default_value, str):
                        return a.default_value
                    if a.name in STR_DEFAULTS:
                        return STR_DEFAULTS[a.name]
        text = entry.get("schema")
        if isinstance(text, str):
            m = re.search(r"\bstr\??\s+%s\s*=\s*(?:\"([^\"]*)\"|'([^']*)')" % re.escape(name), text)
            if m:
                return m.group(1) if m.group(1) is not None else m.group(2)
        if name in STR_DEFAULTS:
            return STR_DEFAULTS[name]
        if optional:
            return None
        warn("str argument %s: no default known, passing \"\"" % name)
        return ""

    def _collect(self, entry):
        ir = entry.get("replay_ir")
        if not isinstance(ir, dict):
            raise ArgsError("entry has no replay_ir object")
        pos = ir.get("list_pos_args") or []
        kws = ir.get("list_kwargs") or []
        if not isinstance(pos, list) or not isinstance(kws, list):
            raise ArgsError("list_pos_args and list_kwargs must be lists")
        out = []
        for where, items in (("pos", pos), ("kw", kws)):
            for i, a in enumerate(items):
                if not isinstance(a, dict):
                    raise ArgsError("argument %d is not an object" % i)
                name = a.get("arg_name")
                if where == "kw" and not isinstance(name, str):
                    raise ArgsError("keyword argument %d has no arg_name" % i)
                label = name if isinstance(name, str) and name else "arg%d" % i
                value = a.get("value")
                tl_init = a.get("tl_init")
                if is_tensor_value(value):
                    spec = TensorSpec(value, tl_init, label)
                elif (isinstance(value, list) and value
                      and all(v is None or is_tensor_value(v) for v in value)
                      and any(v is not None for v in value)):
                    spec = [None if v is None else TensorSpec(v, tl_init, "%s[%d]" % (label, j))
                            for j, v in enumerate(value)]
                else:
                    spec = None
                out.append((where, label, str(a.get("arg_type") or ""), value, spec))
        return out

    def _convert(self, arg_type, value, label, op, entry, device, warn, index=None):
        base, optional = _base_type(arg_type)
        if base == "ScalarType":
            if value is None:
                return None
            if isinstance(value, str):
                return resolve_dtype(value)
            return scalar_type_from_code(value)
        if base == "Layout" and isinstance(value, int) and not isinstance(value, bool):
            if 0 <= value < len(LAYOUTS) and hasattr(torch, LAYOUTS[value]):
                return getattr(torch, LAYOUTS[value])
            raise ArgsError("%s: unknown Layout code %r" % (label, value))
        if base == "MemoryFormat" and isinstance(value, int) and not isinstance(value, bool):
            if 0 <= value < len(MEMORY_FORMATS):
                return getattr(torch, MEMORY_FORMATS[value])
            raise ArgsError("%s: unknown MemoryFormat code %r" % (label, value))
        if base == "Device" and value is not None:
            return device
        if base == "Generator":
            return None
        if base == "str" and (value is None or value == ""):
            return self._str_default(op, entry, label, optional, value, warn, index)
        return value

    # ------------------------------------------------------------------ plugins
    def _load_plugin(self, path):
        if not isinstance(path, str):
            raise ArgsError("init_plugins must be a list of file names")
        try:
            mtime = os.stat(path).st_mtime
        except OSError as exc:
            raise ArgsError("init plugin %s: %s" % (path, exc.strerror or exc))
        cached = self._plugins.get(path)
        if cached and cached[0] == mtime:
            return cached[1]
        name = "tlreplay_init_plugin_%d" % len(self._plugins)
        try:
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise ImportError("not a Python file")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            raise ArgsError("init plugin %s: %s" % (path, one_line(exc)))
        inits = getattr(module, "INITIALIZERS", None)
        if not isinstance(inits, (list, tuple)):
            raise ArgsError("init plugin %s defines no INITIALIZERS list" % path)
        for obj in inits:
            if not hasattr(obj, "op_patterns") or not callable(getattr(obj, "initialize", None)):
                raise ArgsError("init plugin %s: %r has no op_patterns or initialize()" % (path, obj))
        self._plugins[path] = (mtime, list(inits))
        return list(inits)

    def initializers(self, req):
        plugins = req.get("init_plugins") or []
        if not isinstance(plugins, list):
            raise ArgsError("init_plugins must be a list of file names")
        out = []
        for path in plugins:
            out.extend(self._load_plugin(path))
        return out + BUILTIN_INITIALIZERS

    # ------------------------------------------------------------------ devices
    @staticmethod
    def parse_device(text):
        text = text or "cpu"
        if not isinstance(text, str):
            raise ArgsError("device must be a string")
        if text == "cpu":
            return torch.device("cpu")
        if text == "cuda" or text.startswith("cuda:"):
            if not torch.cuda.is_available():
                if getattr(torch.version, "cuda", None) is None and getattr(torch.version, "hip", None) is None:
                    why = "torch %s is a CPU-only build" % torch.__version__
                else:
                    why = "torch %s sees no GPU" % torch.__version__
                raise Unavailable("device %s: no CUDA (%s)" % (text, why))
            if text == "cuda":
                idx = torch.cuda.current_device()
            else:
                try:
                    idx = int(text[5:])
                except ValueError:
                    raise ArgsError("bad device %r" % text)
            count = torch.cuda.device_count()
            if idx < 0 or idx >= count:
                raise Unavailable("device cuda:%d: torch sees %d CUDA device%s" % (idx, count, "" if count == 1 else "s"))
            return torch.device("cuda", idx)
        raise ArgsError("unsupported device %r (cpu, cuda, cuda:N)" % text)

    def _flush_buffer(self, device, warn):
        idx = device.index
        buf = self._flush.get(idx)
        if buf is None:
            size = getattr(torch.cuda.get_device_properties(idx), "L2_cache_size", None)
            if isinstance(size, int) and size > 0:
                size *= 2
            else:
                size = L2_FALLBACK_BYTES
                warn("L2 size unknown to torch %s: flushing with %s" % (torch.__version__, human_bytes(size)))
            buf = torch.empty(size, dtype=torch.uint8, device=device)
            self._flush[idx] = buf
        return buf

    # ------------------------------------------------------------------ GPU metrics
    def _load_gpu_lib(self, requested):
        """The first libtlreplay_gpu.so that loads (see gpu_lib_candidates), else
        GpuMetricsUnavailable naming what was tried."""
        tried = []
        for path in gpu_lib_candidates(requested):
            if path not in self._gpu_libs:
                if os.sep in path and not os.path.exists(path):
                    self._gpu_libs[path] = "%s: not found" % path
                else:
                    rt = _sanitizer_runtime(path) if os.sep in path else None
                    if rt:
                        self._gpu_libs[path] = ("%s: a sanitizer build (it needs %s preloaded into "
                                                "the interpreter)" % (path, rt))
                    else:
                        try:
                            self._gpu_libs[path] = GpuLib(path)
                        except (OSError, AttributeError) as exc:
                            if os.sep not in path and "No such file" in str(exc):
                                self._gpu_libs[path] = "%s: not found" % path
                            else:
                                self._gpu_libs[path] = "%s: %s" % (path, one_line(exc, 200))
            got = self._gpu_libs[path]
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

    def _gpu_metrics(self, names, req, device, call, written, flush, calls, warn):
        """CUPTI metrics over `calls` calls of the op per pass, one pass per replay of the region:
        [{"name", "status": "ok", "value", "unit", "passes", "calls"} | {"name", "status":
        "not supported", "why"}]. Never raises for a metric problem; an op or CUDA failure inside a
        pass is reported per metric too, unless the context is dead (then it propagates)."""
        out = [None] * len(names)
        wanted = []  # (index in names, metric)
        for i, text in enumerate(names):
            gpu, metric = parse_gpu_metric(text)
            if device.type != "cuda":
                out[i] = "the replay device is %s" % device.type
            elif getattr(torch.version, "hip", None):
                out[i] = "CUPTI metrics need an NVIDIA GPU (torch %s runs on ROCm)" % torch.__version__
            elif gpu is not None and gpu != device.index:
                out[i] = "%s asks for GPU %d, the replay runs on %s" % (text, gpu, device)
            else:
                wanted.append((i, metric))
        backend = None
        if wanted:
            try:
                backend = self._count_gpu(names, wanted, out, req, device, call, written, flush,
                                          calls, warn)
            except GpuMetricsUnavailable as exc:
                for i, _m in wanted:
                    out[i] = str(exc)
        return [r if isinstance(r, dict) else {"name": names[i], "status": "not supported", "why": r}
                for i, r in enumerate(out)], backend

    def _count_gpu(self, names, wanted, out, req, device, call, written, flush, calls, warn):
        gpu = self._load_gpu_lib(req.get("gpu_lib"))
        _preload_cupti()
        sess = gpu.open(device.index, [m for _i, m in wanted])
        try:
            snap = None
            if sess.passes > 1 and written:
                try:
                    snap = TensorSnapshot(written)
                except Exception as exc:
                    raise GpuMetricsUnavailable("%d passes needed, but the op's written tensors cannot be "
                                                "kept between them: %s" % (sess.passes, one_line(exc)))
            runs = 0
            limit = 2 * max(sess.passes, 1) + 8  # the library gives up first; a backstop
            try:
                for p in range(limit):
                    if p and snap is not None:
                        snap.restore()
                    if flush is not None:
                        flush.zero_()  # as ncu's --cache-control all: each pass starts cold
                    sess.begin(p)  # synchronizes first: the restore is not counted
                    for _ in range(calls):
                        call()
                    runs += 1
                    if sess.end(p):  # synchronizes, then stops counting
                        break
                values = sess.values()
            except GpuMetricsUnavailable:
                raise
            except Exception as exc:
                if self._cuda_broken(req):
                    raise
                raise GpuMetricsUnavailable("the op failed during counting pass %d: %s" % (runs, one_line(exc)))
            if snap is not None and snap.pairs:
                warn("GPU metrics: %d pass%s, the op's written tensors (%s) restored before each" % (
                    runs, "" if runs == 1 else "es", human_bytes(snap.nbytes())))
            for k, (i, metric) in enumerate(wanted):
                if sess.status[k]:
                    out[i] = sess.why[k] or "not counted"
                    continue
                v = values[k]
                if calls > 1 and gpu_metric_per_call(metric, sess.kind[k]):
                    v /= calls
                out[i] = {"name": names[i], "status": "ok", "value": v, "unit": sess.unit[k],
                          "passes": runs, "calls": calls}
            return sess.backend
        finally:
            sess.close()

    # ------------------------------------------------------------------ replay
    def replay(self, req):
        rid = req.get("id")
        warns = []

        def warn(msg):
            if msg not in warns and len(warns) < 50:
                warns.append(msg)

        verbose = bool(req.get("verbose"))
        state = {}
        try:
            reply = self._replay(req, rid, warn, verbose, state)
        except Unavailable as exc:
            reply = {"id": rid, "status": "unavailable", "error": one_line(exc)}
        except ParentGone:
            raise
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            if verbose:
                traceback.print_exc(file=self.log)
            kind = getattr(exc, "kind", "error")
            if kind == "error" and self._is_oom(exc):
                kind = "memory"
            reply = {"id": rid, "status": "failed", "kind": kind, "error": one_line(exc)}
            if state.get("init"):
                reply["init"] = state["init"]
            fatal = getattr(exc, "fatal", None)
            if fatal is None:
                fatal = self._cuda_broken(req)
            if fatal:
                reply["fatal"] = True
            else:
                self._release(req)
        if warns:
            reply["warnings"] = warns
        return reply

    @staticmethod
    def _release(req):
        """After a failure: free what the traceback's frames held (and, on CUDA, the cache)."""
        gc.collect()
        dev = req.get("device")
        if isinstance(dev, str) and dev.startswith("cuda"):
            try:
                torch.cuda.empty_cache()
            except Exception:
                pass

    @staticmethod
    def _is_oom(exc):
        oom = getattr(torch.cuda, "OutOfMemoryError", None) if torch is not None else None
        if oom is not None and isinstance(exc, oom):
            return True
        return isinstance(exc, (MemoryError,)) or "out of memory" in str(exc).lower()

    @staticmethod
    def _cuda_broken(req):
        """After an error on CUDA: is the context unusable (illegal address, device assert)?"""
        dev = req.get("device")
        if torch is None or not isinstance(dev, str) or not dev.startswith("cuda"):
            return False
        try:
            if not torch.cuda.is_available():
                return False
            torch.cuda.synchronize()
            return False
        except Exception:
            return True

    def _replay(self, req, rid, warn, verbose, state):
        entry = req.get("entry")
        if not isinstance(entry, dict):
            raise ArgsError("replay request has no entry object")
        warmup = _int_opt(req, "warmup", DEFAULT_WARMUP)
        iters = _int_opt(req, "iters", DEFAULT_ITERS)
        min_time_s = _float_opt(req, "min_time_s", 0.0)
        seed = _int_opt(req, "seed", 0)
        options = req.get("init_kwargs") or {}
        if not isinstance(options, dict):
            raise ArgsError("init_kwargs must be an object")
        gpu_names = req.get("gpu_metrics")
        if gpu_names is not None and (not isinstance(gpu_names, list) or
                                      not all(isinstance(n, str) and n for n in gpu_names)):
            raise ArgsError("gpu_metrics must be a list of metric names")
        gpu_calls = _int_opt(req, "gpu_metrics_calls", 1, minimum=1)
        if req.get("gpu_lib") is not None and not isinstance(req.get("gpu_lib"), str):
            raise ArgsError("gpu_lib must be a file name")
        device = self.parse_device(req.get("device"))
        is_cuda = device.type == "cuda"
        flush_l2 = bool(req.get("flush_l2"))
        cuda_graph = bool(req.get("cuda_graph"))
        if not is_cuda:
            if flush_l2:
                warn("flush_l2 applies to CUDA devices only")
            if cuda_graph:
                warn("cuda_graph applies to CUDA devices only")
            flush_l2 = cuda_graph = False
        if cuda_graph and flush_l2:
            warn("flush_l2 is not applied between CUDA graph replays")
            flush_l2 = False

        # 1. the op
        op, op_desc, base_name = self.resolve(entry, req, warn)
        inits = self.initializers(req)  # plugin errors before any allocation

        # 2. the memory check, before allocating anything
        collected = self._collect(entry)
        need = 0
        count = 0
        for _w, _l, _t, _v, spec in collected:
            for s in (spec if isinstance(spec, list) else [spec]):
                if s is not None:
                    need += s.nbytes
                    count += 1
        avail, where = device_memory_available(device)
        if avail is not None and need > avail * MEMORY_HEADROOM:
            raise MemoryRefused("the %d tensor%s need %s, %s is %s" % (
                count, "" if count == 1 else "s", human_bytes(need), where, human_bytes(avail)))

        # 3. the arguments
        torch.manual_seed(seed)
        rng = random.Random(seed)
        args, kwargs, arg_names, arg_types = [], {}, [], []
        pos_marks, kw_marks = [], {}  # (arg_type, built with init null): what the op may write
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ctx_mgr = torch.cuda.device(device.index) if is_cuda else _NullContext()
            with ctx_mgr:
                for where, label, arg_type, value, spec in collected:
                    if isinstance(spec, TensorSpec):
                        built = self._build(spec, device, warn)
                    elif isinstance(spec, list):
                        built = [None if s is None else self._build(s, device, warn) for s in spec]
                    else:
                        built = self._convert(arg_type, value, label, op, entry, device, warn,
                                              len(args) if where == "pos" else None)
                    specs = spec if isinstance(spec, list) else [spec]
                    mark = (arg_type, any(isinstance(x, TensorSpec) and x.init is None for x in specs))
                    if where == "pos":
                        args.append(built)
                        arg_names.append(label)
                        arg_types.append(arg_type)
                        pos_marks.append(mark)
                    else:
                        kwargs[label] = built
                        kw_marks[label] = mark
                init_msgs = self._run_initializers(inits, entry, base_name, op_desc, args, kwargs,
                                                   arg_names, arg_types, device, rng, options, warn, verbose)
                state["init"] = init_msgs
                written = self._written(op, args, kwargs, arg_names, pos_marks, kw_marks) if gpu_names else []
                arg_desc = [describe(a) for a in args] + ["%s=%s" % (k, describe(v)) for k, v in kwargs.items()]
                if verbose:
                    self.log.write("replay %s(%s)\n" % (op_desc, ", ".join(arg_desc)))
                    for m in init_msgs:
                        self.log.write("  init %s\n" % m)
                    self.log.flush()

                def call():
                    return op(*args, **kwargs)

                # 4. one checked call
                result = call()
                if is_cuda:
                    torch.cuda.synchronize(device)
                result_desc = describe(result)
                del result
        for w in caught[:5]:
            warn("%s: %s" % (w.category.__name__, (str(w.message).splitlines() or [""])[0][:200]))

        # warmup, then the timed calls
        ctx_mgr = torch.cuda.device(device.index) if is_cuda else _NullContext()
        with ctx_mgr:
            sample_calls = 1
            if is_cuda and cuda_graph:
                graph = None
                try:
                    graph = self._capture(call, device)
                except Exception as exc:
                    warn("CUDA graph capture failed (%s): timed without a graph" % one_line(exc))
                    torch.cuda.synchronize(device)
                if graph is not None and iters == 0:
                    times = []
                elif graph is not None:
                    for _ in range(warmup):
                        graph.replay()
                    torch.cuda.synchronize(device)
                    self._region(rid, "region_begin", req)
                    times = self._time_graph(graph, iters, min_time_s, device)
                    self._region(rid, "region_end", req)
                    sample_calls = iters
                else:
                    cuda_graph = False
            if not (is_cuda and cuda_graph):
                for _ in range(warmup):
                    call()
                if is_cuda:
                    torch.cuda.synchronize(device)
                    flush = self._flush_buffer(device, warn) if flush_l2 else None
                    self._region(rid, "region_begin", req)
                    times = self._time_cuda(call, iters, min_time_s, flush, device, warn)
                    self._region(rid, "region_end", req)
                else:
                    self._region(rid, "region_begin", req)
                    times = self._time_cpu(call, iters, min_time_s, warn)
                    self._region(rid, "region_end", req)
            gpu_reply = gpu_backend = None
            if gpu_names is not None:  # before the kernel recording: torch.profiler also uses CUPTI
                flush = self._flush_buffer(device, warn) if is_cuda and flush_l2 else None
                gpu_reply, gpu_backend = self._gpu_metrics(gpu_names, req, device, call, written, flush,
                                                           gpu_calls, warn)
            kernels, kernel_us = [], None
            if is_cuda and req.get("record_kernels"):
                kernels, kernel_us = self._record_kernels(call, device, warn)
        reply = {"id": rid, "status": "ok", "times_us": [round(t, 4) for t in times],
                 "iters": len(times) * sample_calls, "device": str(device), "op": op_desc,
                 "args": arg_desc, "result": result_desc, "kernels": kernels, "init": init_msgs,
                 "seed": seed}
        if kernel_us is not None:
            reply["kernel_us"] = round(kernel_us, 4)
        if sample_calls > 1:
            reply["sample_calls"] = sample_calls
        if gpu_reply is not None:
            reply["gpu_metrics"] = gpu_reply
            if gpu_backend:
                reply["gpu_backend"] = gpu_backend
        return reply

    @staticmethod
    def _written(op, args, kwargs, arg_names, pos_marks, kw_marks):
        """The tensors the op may write, to restore between counting passes: arguments whose IR
        type is mutable (`Tensor(a!)`), that were built uninitialised (`init` null: outputs), or
        that the op's schema marks as written."""
        writes = _schema_writes(op)
        out = []
        for i, a in enumerate(args):
            arg_type, null = pos_marks[i] if i < len(pos_marks) else ("", False)
            if "!" in arg_type or null or i in writes or (i < len(arg_names) and arg_names[i] in writes):
                out += _tensors_in(a)
        for k, v in kwargs.items():
            arg_type, null = kw_marks.get(k, ("", False))
            if "!" in arg_type or null or k in writes:
                out += _tensors_in(v)
        return out

    def _build(self, spec, device, warn):
        t = torch.empty_strided(tuple(spec.shape), tuple(spec.strides), dtype=spec.dtype, device=device)
        fill_tensor(t, spec, warn)
        return t

    def _run_initializers(self, inits, entry, base_name, op_desc, args, kwargs, arg_names, arg_types,
                          device, rng, options, warn, verbose):
        names = {entry.get("op_name"), base_name, op_desc}
        for init in inits:
            patterns = getattr(init, "op_patterns", ()) or ()
            if isinstance(patterns, str):
                patterns = [patterns]
            match = next((p for p in patterns if p in names), None)
            if match is None:
                continue
            label = getattr(init, "name", None) or type(init).__name__
            ctx = InitContext(match, args, kwargs, arg_names, arg_types, entry, device, rng, options)
            try:
                msg = init.initialize(ctx)
            except KeyboardInterrupt:
                raise
            except Exception as exc:
                if verbose:
                    traceback.print_exc(file=self.log)
                warn("initializer %s failed: %s" % (label, one_line(exc)))
                return ["%s: failed: %s" % (label, one_line(exc))]
            return [str(msg) if msg is not None else "%s: applied" % label]
        return []

    def _region(self, rid, event, req):
        if not req.get("region") or self.channel is None:
            return
        self.channel.send({"id": rid, "event": event})
        if not self.channel.wait_go() and event == "region_begin":
            raise RegionStopped("the parent stopped the replay at region_begin")

    @staticmethod
    def _time_cpu(call, iters, min_time_s, warn):
        clock = time.perf_counter_ns
        times = []
        for _ in range(iters):
            t0 = clock()
            call()
            t1 = clock()
            times.append((t1 - t0) / 1000.0)
        if min_time_s > 0:
            spent = sum(times) / 1e6
            limit = max(iters, MAX_EXTRA_CALLS)
            start = time.perf_counter()
            while spent + (time.perf_counter() - start) < min_time_s and len(times) < limit:
                t0 = clock()
                call()
                t1 = clock()
                times.append((t1 - t0) / 1000.0)
            if len(times) >= limit and spent + (time.perf_counter() - start) < min_time_s:
                warn("min_time_s not reached: stopped at %d calls" % limit)
        return times

    @staticmethod
    def _time_cuda(call, iters, min_time_s, flush, device, warn):
        Event = torch.cuda.Event
        times = []
        limit = max(iters, MAX_EXTRA_CALLS) if min_time_s > 0 else iters
        start = time.perf_counter()
        while len(times) < limit:
            if len(times) >= iters and time.perf_counter() - start >= min_time_s:
                break
            want = iters - len(times) if len(times) < iters else CUDA_CHUNK
            k = min(CUDA_CHUNK, want, limit - len(times))
            pairs = [(Event(enable_timing=True), Event(enable_timing=True)) for _ in range(k)]
            for ev0, ev1 in pairs:
                if flush is not None:
                    flush.zero_()  # outside the events: evicts the op's data from L2
                ev0.record()
                call()
                ev1.record()
            torch.cuda.synchronize(device)
            times.extend(ev0.elapsed_time(ev1) * 1000.0 for ev0, ev1 in pairs)
        if min_time_s > 0 and len(times) >= limit and time.perf_counter() - start < min_time_s:
            warn("min_time_s not reached: stopped at %d calls" % limit)
        return times

    @staticmethod
    def _capture(call, device):
        side = torch.cuda.Stream(device=device)
        side.wait_stream(torch.cuda.current_stream(device))
        with torch.cuda.stream(side):
            for _ in range(3):
                call()
        torch.cuda.current_stream(device).wait_stream(side)
        torch.cuda.synchronize(device)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            call()
        torch.cuda.synchronize(device)
        return graph

    @staticmethod
    def _time_graph(graph, replays, min_time_s, device):
        """One event pair around `replays` replays of the graph; time / replays per sample."""
        times = []
        start = time.perf_counter()
        while True:
            ev0, ev1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            ev0.record()
            for _ in range(replays):
                graph.replay()
            ev1.record()
            torch.cuda.synchronize(device)
            times.append(ev0.elapsed_time(ev1) * 1000.0 / replays)
            if time.perf_counter() - start >= min_time_s or len(times) >= 1000:
                return times

    @staticmethod
    def _record_kernels(call, device, warn):
        """The kernels one call launches, under torch.profiler over two calls: (names in launch
        order, their GPU time per call in us or None). The time is the sum of the kernels'
        durations, as the trace's gpu_time_us; of the second call when both launched the same
        kernels (the first may pay for lazy loading), else the mean of the two."""
        try:
            from torch.profiler import profile, ProfilerActivity
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                call()
                call()
                torch.cuda.synchronize(device)
            found, cpu_side = [], []
            for ev in prof.events():
                dtype = getattr(ev, "device_type", None)
                if dtype is not None and str(dtype).endswith("CUDA"):
                    found.append((ev.name, _event_us(ev)))
                else:
                    for k in getattr(ev, "kernels", None) or []:
                        cpu_side.append((getattr(k, "name", str(k)), _number(getattr(k, "duration", None))))
            if not found:
                found = cpu_side
            names = [n for n, _us in found]
            durs = [us for _n, us in found]
            half = len(names) // 2
            if names and len(names) % 2 == 0 and names[:half] == names[half:]:
                second = durs[half:]
                return names[:half], (sum(second) if None not in second else None)
            total = sum(durs) / 2.0 if durs and None not in durs else None
            seen, out = set(), []
            for n in names:
                if n not in seen:
                    seen.add(n)
                    out.append(n)
            return out, total
        except Exception as exc:
            warn("kernel recording failed: %s" % one_line(exc))
            return [], None


def _number(x):
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def _event_us(ev):
    """A profiler event's duration in us (FunctionEvent.time_range), None when it has none."""
    tr = getattr(ev, "time_range", None)
    try:
        return _number(tr.elapsed_us()) if tr is not None else None
    except Exception:
        return None


class _NullContext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# --------------------------------------------------------------------------- worker mode

def worker_main(argv):
    fds = os.environ.get("TLREPLAY_WORKER_FDS", "3,4")
    try:
        rfd, wfd = (int(x) for x in fds.split(","))
        os.fstat(rfd)
        os.fstat(wfd)
    except (ValueError, OSError) as exc:
        sys.stderr.write("tlreplay_worker: bad TLREPLAY_WORKER_FDS=%r: %s\n" % (fds, exc))
        return 2
    # whatever an op prints goes to stderr, never into the protocol
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    for fd in (rfd, wfd):  # children of ops (compilers ...) must not hold the pipes open
        os.set_inheritable(fd, False)
    os.environ.pop("TLREPLAY_WORKER_FDS", None)
    try:
        faulthandler.enable(file=sys.stderr)
    except Exception:
        pass
    chan = Channel(rfd, wfd)
    session = Session(chan) if torch is not None else None
    try:
        while True:
            line = chan.read()
            if line is None:
                return 0
            if not line.strip():
                continue
            try:
                req = json.loads(line)
                if not isinstance(req, dict):
                    raise ValueError("not a JSON object")
            except ValueError as exc:
                chan.send({"id": None, "status": "failed", "kind": "args", "error": "bad request: %s" % exc})
                continue
            cmd = req.get("cmd")
            rid = req.get("id")
            if cmd == "quit":
                return 0
            if cmd in ("go", "stop"):  # a stray answer outside a region
                continue
            if session is None:
                chan.send({"id": rid, "status": "failed", "kind": "error",
                           "error": "torch cannot be imported by %s: %s" % (sys.executable, _TORCH_ERROR)})
                return 1
            try:
                reply = session.handle(req)
            except (ParentGone, KeyboardInterrupt):
                raise
            except Unavailable as exc:
                reply = {"id": rid, "status": "unavailable", "error": one_line(exc)}
            except BaseException as exc:
                if req.get("verbose"):
                    traceback.print_exc(file=sys.stderr)
                reply = {"id": rid, "status": "failed", "kind": getattr(exc, "kind", "error"),
                         "error": one_line(exc)}
            chan.send(reply)
            if reply.get("fatal"):
                sys.stderr.write("tlreplay_worker: the CUDA context is unusable after this error; exiting\n")
                return 3
    except ParentGone:
        return 0
    except KeyboardInterrupt:
        return 130


# --------------------------------------------------------------------------- standalone mode

def load_ir(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    if isinstance(data, dict):
        data = data.get("entries", [data]) if "op_name" not in data else [data]
    if not isinstance(data, list):
        raise ValueError("an IR file holds a JSON list of entries")
    return data


def _kv_list(items, what):
    out = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SystemExit("tlreplay_worker: %s expects KEY=VALUE, not %r" % (what, item))
        out.setdefault(key, []).extend(v for v in value.split(",") if v)
    return out


def _parse_init_kwargs(items):
    out = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SystemExit("tlreplay_worker: --init-kwarg expects KEY=VALUE, not %r" % item)
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


def _fmt_us(x):
    return "%.3f" % x if x < 100 else "%.1f" % x


def standalone_replay(args):
    if torch is None:
        sys.stderr.write("tlreplay_worker: torch cannot be imported by %s: %s\n" % (sys.executable, _TORCH_ERROR))
        return 2
    try:
        entries = load_ir(args.ir)
    except (OSError, ValueError) as exc:
        sys.stderr.write("tlreplay_worker: %s: %s\n" % (args.ir, exc))
        return 2
    session = Session(None)
    try:
        Session.parse_device(args.device)
    except (Unavailable, ArgsError) as exc:
        sys.stderr.write("tlreplay_worker: %s\n" % one_line(exc))
        return 2
    try:
        for p in args.init_plugin or []:
            session._load_plugin(p)
    except ArgsError as exc:
        sys.stderr.write("tlreplay_worker: %s\n" % one_line(exc))
        return 2
    total = len(entries)
    selected = list(enumerate(entries, 1))
    n_filter = None
    if args.op_filter:
        selected = [(i, e) for i, e in selected
                    if isinstance(e, dict) and args.op_filter in str(e.get("op_name", ""))]
        n_filter = len(selected)
    if args.op_limit is not None:
        selected = selected[:max(args.op_limit, 0)]
    namespaces = _kv_list(args.namespace, "--namespace")
    aliases = _kv_list(args.alias, "--alias")
    init_kwargs = _parse_init_kwargs(args.init_kwarg)
    out = sys.stdout
    counts = {"ok": 0, "failed": 0, "unavailable": 0}
    attempted = 0
    n_sel = len(selected)
    for k, (index, entry) in enumerate(selected, 1):
        attempted += 1
        op_name = entry.get("op_name", "?") if isinstance(entry, dict) else "?"
        req = {"cmd": "replay", "id": index, "entry": entry, "device": args.device,
               "warmup": args.warmup, "iters": args.iters, "min_time_s": args.min_time,
               "flush_l2": args.flush_l2, "cuda_graph": args.cuda_graph,
               "record_kernels": args.kernels, "seed": args.seed, "init_plugins": args.init_plugin or [],
               "init_kwargs": init_kwargs, "namespaces": namespaces, "aliases": aliases,
               "verbose": args.verbose}
        if not isinstance(entry, dict):
            reply = {"id": index, "status": "failed", "kind": "args", "error": "entry is not an object"}
        else:
            reply = session.replay(req)
        status = reply.get("status")
        counts[status] = counts.get(status, 0) + 1
        st = stats(reply.get("times_us") or [])
        count = entry.get("count") if isinstance(entry, dict) else None
        if args.json:
            obj = {"index": index, "op": op_name, "status": status}
            if isinstance(entry, dict) and entry.get("uid") is not None:
                obj["uid"] = entry.get("uid")
            if status == "ok":
                obj.update({"resolved": reply.get("op"), "device": reply.get("device"),
                            "iters": reply.get("iters")})
                obj.update({k: round(v, 3) for k, v in st.items()})
                if isinstance(count, (int, float)) and st:
                    obj["count"] = count
                    obj["est_total_us"] = round(count * st["median_us"], 3)
                for key in ("trace_dur_us", "gpu_time_us"):
                    if isinstance(entry, dict) and key in entry:
                        obj[key] = entry[key]
                obj.update({"args": reply.get("args"), "result": reply.get("result"),
                            "kernels": reply.get("kernels"), "init": reply.get("init")})
                if reply.get("kernel_us") is not None:
                    obj["kernel_us"] = reply["kernel_us"]
            else:
                if reply.get("kind"):
                    obj["kind"] = reply["kind"]
                obj["error"] = reply.get("error")
            if reply.get("warnings"):
                obj["warnings"] = reply["warnings"]
            out.write(_dumps(obj) + "\n")
        else:
            head = "[%d/%d] %s" % (k, n_sel, op_name)
            if status == "ok":
                if st:
                    out.write("%s: median %s us (mean %s, std %s, min %s, max %s), %d iters\n" % (
                        head, _fmt_us(st["median_us"]), _fmt_us(st["mean_us"]), _fmt_us(st["std_us"]),
                        _fmt_us(st["min_us"]), _fmt_us(st["max_us"]), reply.get("iters", 0)))
                else:
                    out.write("%s: ok (not timed)\n" % head)
                if isinstance(count, (int, float)) and st:
                    out.write("  count %s: %s us in the workload\n" % (count, _fmt_us(count * st["median_us"])))
                if isinstance(entry, dict) and isinstance(entry.get("gpu_time_us"), (int, float)):
                    out.write("  trace: %s us on the GPU\n" % _fmt_us(entry["gpu_time_us"]))
                for m in reply.get("init") or []:
                    out.write("  init: %s\n" % m)
                if args.verbose:
                    out.write("  op: %s\n  args: %s\n  result: %s\n" % (
                        reply.get("op"), ", ".join(reply.get("args") or []), reply.get("result")))
                    for kname in reply.get("kernels") or []:
                        out.write("  kernel: %s\n" % kname)
            elif status == "unavailable":
                out.write("%s: unavailable: %s\n" % (head, reply.get("error")))
            else:
                out.write("%s: FAILED (%s): %s\n" % (head, reply.get("kind", "error"), reply.get("error")))
            for w in reply.get("warnings") or []:
                out.write("  warning: %s\n" % w)
        out.flush()
        if reply.get("fatal"):
            sys.stderr.write("tlreplay_worker: the CUDA context is unusable after this error; stopping\n")
            break
        if status == "failed" and args.stop_on_error:
            break
    summary = ["--- Replay summary ---", "Total operations in file: %d" % total]
    if n_filter is not None:
        summary.append("Matching --op-filter %r: %d" % (args.op_filter, n_filter))
    summary.append("Selected: %d" % n_sel)
    summary.append("Attempted: %d" % attempted)
    summary.append("OK: %d" % counts.get("ok", 0))
    summary.append("Failed: %d" % counts.get("failed", 0))
    summary.append("Unavailable: %d" % counts.get("unavailable", 0))
    if attempted < n_sel:
        summary.append("Stopped after the first failure (--stop-on-error)")
    dest = sys.stderr if args.json else out
    dest.write("\n".join(summary) + "\n")
    dest.flush()
    return 1 if counts.get("failed", 0) else 0


def standalone_schemas(args):
    if torch is None:
        sys.stderr.write("tlreplay_worker: torch cannot be imported by %s: %s\n" % (sys.executable, _TORCH_ERROR))
        return 2
    ns = _kv_list(args.namespace, "--namespace") if any("=" in n for n in args.namespace or []) else (
        args.namespace or [])
    reply = Session(None).schemas({"id": 0, "namespaces": ns})
    for w in reply.get("warnings") or []:
        sys.stderr.write("tlreplay_worker: %s\n" % w)
    sys.stdout.write("".join(s + "\n" for s in reply["schemas"]))
    return 0


def build_parser():
    p = argparse.ArgumentParser(prog="tlreplay_worker.py",
                                description="Replay single PyTorch ops from a tlreplay/TraceLens replay IR file.")
    sub = p.add_subparsers(dest="command")
    r = sub.add_parser("replay", help="replay and time the ops of an IR file")
    r.add_argument("ir", help="IR file (JSON list of entries; .gz accepted)")
    r.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N (default cpu)")
    r.add_argument("-r", "--iters", type=int, default=DEFAULT_ITERS, help="timed calls per op (default 100)")
    r.add_argument("--warmup", type=int, default=DEFAULT_WARMUP, help="untimed calls first (default 10)")
    r.add_argument("--min-time", type=float, default=0.0, metavar="S", help="time each op for at least S seconds")
    r.add_argument("--op-filter", metavar="SUBSTR", help="only ops whose name contains SUBSTR")
    r.add_argument("--op-limit", type=int, metavar="N", help="at most N ops (after --op-filter)")
    r.add_argument("--stop-on-error", action="store_true", help="stop at the first failed op")
    r.add_argument("-v", "--verbose", action="store_true", help="arguments, results, kernels, tracebacks")
    r.add_argument("-j", "--json", action="store_true", help="one JSON object per op (summary on stderr)")
    r.add_argument("--flush-l2", action="store_true", help="CUDA: evict L2 before each timed call")
    r.add_argument("--cuda-graph", action="store_true", help="CUDA: time graph replays of the op")
    r.add_argument("--kernels", action="store_true", help="CUDA: list the kernels each op launches")
    r.add_argument("--init-plugin", action="append", metavar="FILE.py", help="custom initializers (repeatable)")
    r.add_argument("--init-kwarg", action="append", metavar="KEY=VALUE",
                   help="option for the initializers, e.g. moe_distribution=zipf")
    r.add_argument("--namespace", action="append", metavar="NS=MOD[,MOD]", help="modules that register NS's ops")
    r.add_argument("--alias", action="append", metavar="OP=OTHER[,OTHER]", help="other names to try for OP")
    r.add_argument("--seed", type=int, default=0, help="seed for the tensor contents (default 0)")
    s = sub.add_parser("schemas", help="print the op schemas this torch knows")
    s.add_argument("--namespace", action="append", metavar="NS[=MOD,...]", help="import NS's modules first")
    return p


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--worker":
        return worker_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "replay":
        if args.iters < 0 or args.warmup < 0 or args.min_time < 0:
            parser.error("-r, --warmup and --min-time must not be negative")
        return standalone_replay(args)
    if args.command == "schemas":
        return standalone_schemas(args)
    parser.print_help(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
