# SPDX-License-Identifier: MIT
"""Sizes, strides and dtype of an at::Tensor read from a process's memory.

libtorch ships without debug info, so the types are not known to gdb. An
at::Tensor is one pointer to its c10::TensorImpl, and a TensorImpl holds (in
torch 1.13, and later versions as far as known; nothing here trusts it
unchecked) a c10::impl::SizesAndStrides

    size_t size_;                       the number of dimensions
    union { int64_t *outOfLine;         sizes then strides when size_ > 5
            int64_t inline[10]; }       5 sizes then 5 strides otherwise

followed by int64_t storage_offset_, int64_t numel_ and caffe2::TypeMeta
data_type_ (a uint16 index equal to the ScalarType). The offset of
sizes_and_strides_ in TensorImpl is 72 in Debian's torch 1.13 and may move
between versions. calibrate() checks likely offsets, then scans,
and accepts an offset only when every tensor read there agrees with itself
(numel equals the product of the sizes, sane strides, offset and dtype). When
nothing agrees the caller says that shapes come from the trace.

read(addr, n) -> bytes is the only access to memory (gdb's
Inferior.read_memory, or a fake in the tests); it raises on a bad address.
"""

import struct

KNOWN_OFFSETS = (72, 80, 64, 88, 96, 56)
MAX_INLINE = 5
LIMIT = 1 << 48

# ScalarType -> the dtype string the profiler records (TypeMeta names)
DTYPES = {
    0: "unsigned char", 1: "signed char", 2: "short int", 3: "int", 4: "long int",
    5: "c10::Half", 6: "float", 7: "double", 8: "c10::complex<c10::Half>",
    9: "c10::complex<float>", 10: "c10::complex<double>", 11: "bool", 12: "c10::qint8",
    13: "c10::quint8", 14: "c10::qint32", 15: "c10::BFloat16", 16: "c10::quint4x2",
    17: "c10::quint2x4",
    23: "c10::Float8_e5m2", 24: "c10::Float8_e4m3fn", 25: "c10::Float8_e5m2fnuz",
    26: "c10::Float8_e4m3fnuz",
}


class TensorInfo:
    __slots__ = ("dims", "strides", "dtype", "numel", "offset")

    def __init__(self, dims, strides, dtype, numel, offset):
        self.dims, self.strides, self.dtype, self.numel, self.offset = \
            dims, strides, dtype, numel, offset

    def __repr__(self):
        return "%s%s strides %s" % (self.dtype, self.dims, self.strides)


def _u64(read, addr):
    return struct.unpack("<Q", read(addr, 8))[0]


def _i64s(read, addr, n):
    return list(struct.unpack("<%dq" % n, read(addr, 8 * n))) if n else []


def impl_of(read, tensor_addr):
    """The TensorImpl* an at::Tensor at @tensor_addr points to."""
    return _u64(read, tensor_addr)


def at_offset(read, impl, off):
    """The tensor as read with sizes_and_strides_ at @off, or None if what is
    there does not look like one."""
    try:
        d = _u64(read, impl + off)
        if d > 64:
            return None
        if d <= MAX_INLINE:
            sizes = _i64s(read, impl + off + 8, d)
            strides = _i64s(read, impl + off + 8 + 8 * MAX_INLINE, d)
        else:
            p = _u64(read, impl + off + 8)
            sizes = _i64s(read, p, d)
            strides = _i64s(read, p + 8 * d, d)
        tail = read(impl + off + 8 + 16 * MAX_INLINE, 18)
    except Exception:  # noqa: BLE001 - any unreadable address means "not here"
        return None
    storage_offset, numel, dtype = struct.unpack("<qqH", tail)
    if any(s < 0 or s >= LIMIT for s in sizes):
        return None
    if any(abs(s) >= LIMIT for s in strides):
        return None
    if not 0 <= storage_offset < LIMIT or dtype >= 64:
        return None
    prod = 1
    for s in sizes:
        prod *= s
    if numel != prod:
        return None
    return TensorInfo(sizes, strides, DTYPES.get(dtype), numel, off)


def calibrate(read, impls, offsets=None):
    """The offset of sizes_and_strides_ at which every TensorImpl of @impls
    reads as a tensor, at least one of them with a dimension (a 0-d tensor
    alone proves nothing). None if there is no such offset."""
    impls = [i for i in impls if i]
    if not impls:
        return None
    cands = list(offsets or KNOWN_OFFSETS) + [o for o in range(24, 257, 8)
                                              if o not in (offsets or KNOWN_OFFSETS)]
    for off in cands:
        infos = [at_offset(read, i, off) for i in impls]
        if all(t is not None for t in infos) and any(t.dims for t in infos):
            return off
    return None


def read_tensors(read, tensor_addrs, offset=None):
    """Read the at::Tensor objects at @tensor_addrs. Returns ([TensorInfo or
    None], offset used or None)."""
    impls = []
    for a in tensor_addrs:
        try:
            impls.append(impl_of(read, a))
        except Exception:  # noqa: BLE001
            impls.append(0)
    off = offset
    if off is None or not all(at_offset(read, i, off) for i in impls if i):
        off = calibrate(read, impls)
    if off is None:
        return [None] * len(tensor_addrs), None
    return [at_offset(read, i, off) if i else None for i in impls], off
