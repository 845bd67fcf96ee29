# SPDX-License-Identifier: MIT
"""A fake torch.cuda for running the replay worker's CUDA code paths on a machine without a GPU.

Used by tests/replay/test_worker.py (unit tests of the CUDA glue) and by the GPU check's stand-in
Python (tests/replay/standin/python), which runs the whole worker this way for the dry run of
`make gpu-check`. Tensors are still built on the CPU; events time with the host clock; the
profiler reports one fixed kernel per call. Nothing here pretends to be a measurement.
"""
import time

import torch


class FakeEvent:
    log = []

    def __init__(self, enable_timing=False):
        assert enable_timing
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()
        FakeEvent.log.append("record")

    def elapsed_time(self, end):
        assert self.t is not None and end.t is not None, "event not recorded"
        return (end.t - self.t) * 1000.0


class FakeProps:
    name = "Fake GPU"
    total_memory = 80 << 30
    major, minor = 9, 0
    multi_processor_count = 132

    def __init__(self, l2=50 << 20):
        if l2 is not None:
            self.L2_cache_size = l2


class FakeStream:
    def wait_stream(self, other):
        pass


class FakeGraph:
    def __init__(self):
        self.replays = 0

    def replay(self):
        self.replays += 1


class FakeInterval:
    def __init__(self, us):
        self.us = us

    def elapsed_us(self):
        return self.us


class FakeKernelEvent:
    def __init__(self, name, device_type, us=0.0):
        self.name = name
        self.device_type = device_type
        self.kernels = []
        self.time_range = FakeInterval(us)


class FakeProfile:
    def __init__(self, activities=None):
        self.activities = activities

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def events(self):
        cuda = torch.autograd.DeviceType.CUDA
        cpu = torch.autograd.DeviceType.CPU
        return [FakeKernelEvent("aten::relu", cpu, 9.0), FakeKernelEvent("void relu_kernel<float>(...)", cuda, 3.5),
                FakeKernelEvent("cudaLaunchKernel", cpu, 4.0), FakeKernelEvent("aten::relu", cpu, 8.0),
                FakeKernelEvent("void relu_kernel<float>(...)", cuda, 2.25)]


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class FakeCuda:
    """Pretends torch has one CUDA device. worker: also make the replay worker's package
    (tlreplay_replay, importable: core/replay or the bundle's share/tlreplay/replay on sys.path)
    build its tensors and L2 flush buffers on the CPU; False patches torch alone."""

    def __init__(self, worker, l2=50 << 20, sync_raises=False, mem=(1000, 5000)):
        from unittest import mock
        self.syncs = 0
        self.graphs = []
        cuda = torch.cuda

        def sync(device=None):
            self.syncs += 1
            if sync_raises:
                raise RuntimeError("CUDA error: an illegal memory access was encountered")

        def new_graph():
            g = FakeGraph()
            self.graphs.append(g)
            return g

        self.patches = [
            mock.patch.object(cuda, "is_available", lambda: True),
            mock.patch.object(cuda, "device_count", lambda: 1),
            mock.patch.object(cuda, "current_device", lambda: 0),
            mock.patch.object(cuda, "device", lambda idx: _Null()),
            mock.patch.object(cuda, "synchronize", sync),
            mock.patch.object(cuda, "Event", FakeEvent),
            mock.patch.object(cuda, "get_device_properties", lambda idx: FakeProps(l2)),
            mock.patch.object(cuda, "Stream", lambda device=None: FakeStream()),
            mock.patch.object(cuda, "current_stream", lambda device=None: FakeStream()),
            mock.patch.object(cuda, "stream", lambda s: _Null()),
            mock.patch.object(cuda, "CUDAGraph", new_graph),
            mock.patch.object(cuda, "graph", lambda g: _Null()),
            mock.patch.object(cuda, "empty_cache", lambda: None),
            mock.patch.object(cuda, "mem_get_info", lambda idx=None: mem, create=True),
            mock.patch.object(cuda, "memory_reserved", lambda idx=None: 300),
            mock.patch.object(cuda, "memory_allocated", lambda idx=None: 100),
            mock.patch.object(torch.profiler, "profile", FakeProfile),
        ]
        if worker:
            from tlreplay_replay import tensors, timing
            real_build = tensors.build_tensor
            real_flush = timing.L2Flush.buffer
            self.patches += [
                mock.patch.object(tensors, "build_tensor",
                                  lambda spec, device, warn: real_build(spec, torch.device("cpu"), warn)),
                mock.patch.object(timing.L2Flush, "buffer",
                                  lambda s, device, warn: real_flush(s, torch.device("cpu"), warn)),
            ]

    def __enter__(self):
        for p in self.patches:
            p.start()
        return self

    def __exit__(self, *exc):
        for p in reversed(self.patches):
            p.stop()
        return False
