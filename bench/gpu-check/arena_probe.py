#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Can a fresh process have the recorder's arena? (docs/kernel-replay.md, "The arena")

    arena_probe.py [--lib LIBCUDA] [--base HEX] [--size BYTES] [--torch]

Through the driver (ctypes on libcuda.so.1, or --lib): cuInit, the primary context of device
0, cuMemAddressReserve(SIZE at BASE), then one granule created, mapped, given access, written
and read back at BASE, and everything released. With --torch, torch first initialises CUDA and
allocates 256 MiB (its own mappings are then in the process, as in a replay run from torch).
Prints one JSON object: ok, got (the address the driver gave), step (the first that failed),
error, granularity. Exit 0 when the base was had and usable, 1 otherwise.
"""
import argparse
import ctypes
import json
import sys

BASE = 0x200000000000
SIZE = 1 << 40


class Prop(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("handle_types", ctypes.c_int), ("loc_type", ctypes.c_int),
                ("loc_id", ctypes.c_int), ("win32", ctypes.c_void_p), ("flags", ctypes.c_ubyte * 8)]


class Access(ctypes.Structure):
    _fields_ = [("loc_type", ctypes.c_int), ("loc_id", ctypes.c_int), ("flags", ctypes.c_int)]


def probe(lib, base, size):
    cu = ctypes.CDLL(lib)
    out = {"base": hex(base), "size": size, "ok": False}
    u64 = ctypes.c_uint64
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    gran, got, h = ctypes.c_size_t(), u64(), u64()

    def step(name, rc):
        if rc != 0:
            out.update(step=name, error=int(rc))
            raise RuntimeError(name)

    prop = Prop(1, 0, 1, 0, None)
    try:
        step("cuInit", cu.cuInit(0))
        step("cuDeviceGet", cu.cuDeviceGet(ctypes.byref(dev), 0))
        step("cuDevicePrimaryCtxRetain", cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev))
        step("cuCtxSetCurrent", cu.cuCtxSetCurrent(ctx))
        prop.loc_id = dev.value
        step("cuMemGetAllocationGranularity", cu.cuMemGetAllocationGranularity(ctypes.byref(gran),
                                                                               ctypes.byref(prop), 0))
        out["granularity"] = gran.value
        step("cuMemAddressReserve", cu.cuMemAddressReserve(ctypes.byref(got), ctypes.c_size_t(size),
                                                           ctypes.c_size_t(gran.value), u64(base),
                                                           ctypes.c_ulonglong(0)))
        out["got"] = hex(got.value)
        if got.value != base:
            cu.cuMemAddressFree(got, ctypes.c_size_t(size))
            out.update(step="cuMemAddressReserve", error="the driver offered another address")
            return out
        g = ctypes.c_size_t(gran.value)
        step("cuMemCreate", cu.cuMemCreate(ctypes.byref(h), g, ctypes.byref(prop), ctypes.c_ulonglong(0)))
        step("cuMemMap", cu.cuMemMap(u64(base), g, ctypes.c_size_t(0), h, ctypes.c_ulonglong(0)))
        acc = Access(1, dev.value, 3)
        step("cuMemSetAccess", cu.cuMemSetAccess(u64(base), g, ctypes.byref(acc), ctypes.c_size_t(1)))
        step("cuMemsetD8", cu.cuMemsetD8_v2(u64(base), ctypes.c_ubyte(0x5a), g))
        byte = ctypes.c_ubyte()
        step("cuMemcpyDtoH", cu.cuMemcpyDtoH_v2(ctypes.byref(byte), u64(base + gran.value - 1),
                                                ctypes.c_size_t(1)))
        if byte.value != 0x5a:
            out.update(step="read back", error="read 0x%02x, wrote 0x5a" % byte.value)
            return out
        step("cuMemUnmap", cu.cuMemUnmap(u64(base), g))
        step("cuMemRelease", cu.cuMemRelease(h))
        step("cuMemAddressFree", cu.cuMemAddressFree(u64(base), ctypes.c_size_t(size)))
        out["ok"] = True
    except RuntimeError:
        pass
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", default="libcuda.so.1")
    ap.add_argument("--base", default=hex(BASE))
    ap.add_argument("--size", type=int, default=SIZE)
    ap.add_argument("--torch", action="store_true")
    o = ap.parse_args(argv)
    before = None
    if o.torch:
        import torch
        t = torch.empty(1 << 28, dtype=torch.uint8, device="cuda")
        torch.cuda.synchronize()
        before = hex(t.data_ptr())
    out = probe(o.lib, int(o.base, 16), o.size)
    if before:
        out["torch_tensor_at"] = before
    print(json.dumps(out))
    return 0 if out["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
