# SPDX-License-Identifier: MIT
"""The op's arguments from an IR entry: collect() checks the entry's values (tensor values
become TensorSpecs), check_memory() refuses what the device cannot hold before anything is
allocated, build() makes the values the op is called with (tensors, TensorLists, dtypes,
layouts, memory formats, devices, the str defaults the profiler dropped)."""

import re

from . import tensors  # build_tensor looked up at each call: tests/replay/fake_torch_cuda.py patches it
from .errors import ArgsError, MemoryRefused
from .fmt import human_bytes
from .tensors import TensorSpec, is_tensor_value, resolve_dtype, scalar_type_from_code
from .torchenv import torch

MEMORY_HEADROOM = 0.95  # refuse when the tensors need more than this share of free memory

# c10 Layout and MemoryFormat codes (their enums' order) -> torch attribute name
LAYOUTS = ["strided", "sparse_coo", "sparse_csr", "_mkldnn", "sparse_csc", "sparse_bsr", "sparse_bsc"]
MEMORY_FORMATS = ["contiguous_format", "preserve_format", "channels_last", "channels_last_3d"]

# string arguments the profiler drops and whose schema has no default
STR_DEFAULTS = {"kv_cache_dtype": "auto", "approximate": "none", "kernelName": ""}


def collect(entry):
    """[(where "pos" | "kw", label, IR arg_type, IR value, TensorSpec | [TensorSpec | None] |
    None)] for the entry's replay_ir, every tensor value checked (ArgsError) but not built."""
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


# ------------------------------------------------------------------ the memory check

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


def check_memory(collected, device):
    """MemoryRefused when the storage of collect()'s tensors exceeds the headroom."""
    need = 0
    count = 0
    for _w, _l, _t, _v, spec in collected:
        for s in (spec if isinstance(spec, list) else [spec]):
            if s is not None and (s.device is None or device.type == "cpu"):
                need += s.nbytes
                count += 1
    avail, where = device_memory_available(device)
    if avail is not None and need > avail * MEMORY_HEADROOM:
        raise MemoryRefused("the %d tensor%s need %s, %s is %s" % (
            count, "" if count == 1 else "s", human_bytes(need), where, human_bytes(avail)))


# ------------------------------------------------------------------ building

def _base_type(arg_type):
    """`Tensor(a!)` -> `Tensor`, `ScalarType?` -> `ScalarType`, `int[2]` -> `int[]`."""
    t = re.sub(r"\([^)]*\)", "", arg_type or "").strip()
    optional = t.endswith("?")
    t = t.rstrip("?")
    t = re.sub(r"\[\d*\]", "[]", t)
    return t.rstrip("?"), optional


def _str_default(op, entry, name, optional, value, warn, index=None):
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


def _convert(arg_type, value, label, op, entry, device, warn, index=None):
    """A value that is not a tensor, as the op takes it."""
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
        return _str_default(op, entry, label, optional, value, warn, index)
    return value


class Arguments:
    """The built arguments: `args` (positional values), `kwargs`, the `names` and IR `types` of
    the positional ones (what initializers look arguments up by), and per argument its IR type
    and whether a tensor of it was built with `init` null (`pos_marks`, `kw_marks`: what the op
    may write, for gpu_metrics.written())."""

    def __init__(self):
        self.args, self.kwargs, self.names, self.types = [], {}, [], []
        self.pos_marks, self.kw_marks = [], {}


def build(collected, op, entry, device, warn):
    """Arguments for collect()'s list, tensors built on device (call under its CUDA context)."""
    out = Arguments()
    for where, label, arg_type, value, spec in collected:
        if isinstance(spec, TensorSpec):
            built = tensors.build_tensor(spec, device, warn)
        elif isinstance(spec, list):
            built = [None if s is None else tensors.build_tensor(s, device, warn) for s in spec]
        else:
            built = _convert(arg_type, value, label, op, entry, device, warn,
                             len(out.args) if where == "pos" else None)
        specs = spec if isinstance(spec, list) else [spec]
        mark = (arg_type, any(isinstance(x, TensorSpec) and x.init is None for x in specs))
        if where == "pos":
            out.args.append(built)
            out.names.append(label)
            out.types.append(arg_type)
            out.pos_marks.append(mark)
        else:
            out.kwargs[label] = built
            out.kw_marks[label] = mark
    return out


# ------------------------------------------------------------------ fitting the live schema

def _live_schemas(op):
    """The torch schemas op may be called with: an overload's own, else each of a packet's."""
    if hasattr(op, "_schema"):
        return [op._schema]
    out = []
    if hasattr(op, "overloads"):
        try:
            out = [getattr(op, ov)._schema for ov in op.overloads()]
        except Exception:
            out = []
    return out


def fit_live_schema(op, built, entry, warn):
    """Move the trailing positional arguments of a profile-typed entry to the keywords they are.

    The profiler records every input in order, keyword-only ones included; an entry typed from
    the profile (no schema matched when it was built, `schemaless`) so passes them positionally,
    and torch refuses more positional arguments than its schema has (aten::_cudnn_attention_backward
    has 15 and a keyword-only `scale`). The first live schema whose positional and keyword-only
    arguments hold the recorded ones takes them: the excess goes to its keyword-only arguments
    in order."""
    if not entry.get("schemaless") and entry.get("schema"):
        return
    n = len(built.args)
    for schema in _live_schemas(op):
        args = list(getattr(schema, "arguments", []))
        pos = [a for a in args if not getattr(a, "kwarg_only", False)]
        kwo = [a for a in args if getattr(a, "kwarg_only", False) and a.name not in built.kwargs]
        if n <= len(pos) or n - len(pos) > len(kwo):
            continue
        moved = []
        for a, v in zip(kwo, built.args[len(pos):]):
            built.kwargs[a.name] = v
            moved.append(a.name)
        del built.args[len(pos):]
        del built.names[len(pos):]
        del built.types[len(pos):]
        for a, mark in zip(kwo, built.pos_marks[len(pos):]):
            built.kw_marks[a.name] = mark
        del built.pos_marks[len(pos):]
        warn("%d recorded argument%s past the %d positional ones of %s passed as keyword%s: %s" % (
            len(moved), "" if len(moved) == 1 else "s", len(pos), schema.name, "" if len(moved) == 1 else "s",
            ", ".join(moved)))
        return

