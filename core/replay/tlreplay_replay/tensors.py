# SPDX-License-Identifier: MIT
"""Dtypes and tensor values of the IR: profiler dtype strings and ScalarType codes to
torch.dtype, TensorSpec (a tensor value checked, sized for the memory check, built later), and
the fills (`init`, `tl_init`) over a tensor's whole storage."""

import warnings

from .errors import ArgsError, Unavailable, one_line
from .torchenv import torch, torch_version

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


def dtype_name(dtype):
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

    __slots__ = ("shape", "strides", "dtype", "init", "tl_init", "label", "nelem_storage", "nbytes", "device")

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
        # tl_init "device": "cpu": a CPU scalar the op took from Python (a 0-d tensor it
        # wrapped), built on the CPU whatever the replay's device
        self.device = tl_init.get("device") if tl_init else None
        if self.device not in (None, "cpu"):
            raise ArgsError("%s: tl_init device must be \"cpu\", not %r" % (label, self.device))
        self.nelem_storage = storage_elements(self.shape, self.strides)
        self.nbytes = self.nelem_storage * _itemsize(self.dtype)

    def fill_kind(self):
        """(kind, note) where kind is normal, zeros, randint, arange or none."""
        if self.tl_init is not None:
            kind = self.tl_init.get("kind")
            if kind in ("randint", "arange", "zeros", "full"):
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
                    spec.label, dtype_name(t.dtype), one_line(exc)))
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
                    spec.label, dtype_name(t.dtype), one_line(exc)))
                _zero_storage(flat)
    elif kind == "full":
        value = spec.tl_init.get("value")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            warn("%s: tl_init full needs a number value; zero-filled" % spec.label)
            _zero_storage(flat)
            return
        try:
            flat.fill_(value)
        except Exception as exc:
            warn("%s: cannot fill %s with %r (%s); zero-filled" % (spec.label, dtype_name(t.dtype), value,
                                                                   one_line(exc)))
            _zero_storage(flat)
    elif kind == "arange":
        try:
            t.copy_(torch.arange(t.numel(), device=t.device).view(t.shape))
        except Exception:
            try:  # overlapping layouts: storage order
                flat.copy_(torch.arange(n, device=t.device))
            except Exception as exc:
                warn("%s: no arange for %s (%s); zero-filled" % (spec.label, dtype_name(t.dtype), one_line(exc)))
                _zero_storage(flat)


def build_tensor(spec, device, warn):
    """The tensor of spec on device, filled (tests/replay/fake_torch_cuda.py builds on the CPU
    instead, by patching this)."""
    if spec.device == "cpu":
        device = torch.device("cpu")
    t = torch.empty_strided(tuple(spec.shape), tuple(spec.strides), dtype=spec.dtype, device=device)
    fill_tensor(t, spec, warn)
    return t
