#!/usr/bin/python3
"""Write a small, realistic PyTorch-profiler (Kineto) trace for demos and tests.

Usage: make_sample_trace.py OUT.json[.gz] [--steps N] [--seed S]

The trace looks like a data-parallel training step of a two-layer MLP block
on one GPU: cpu_ops with recorded shapes (record_shapes=True), runtime
launches linked to kernels by ac2g flows, a host-to-device copy, an NCCL
all-reduce on its own stream that partly overlaps compute, forward/backward
sequence numbers and an optimizer step. Deterministic for a given seed;
stdlib only.
"""
import argparse
import gzip
import json
import random


class Trace:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.events = []
        self.corr = 1000
        self.ext = 1
        self.seq = 0
        self.pid, self.tid = 4242, 4242
        self.cpu_t = 0.0
        self.gpu_t = {7: 0.0, 20: 0.0}

    def meta(self):
        for name, pid, tid, arg in (("process_name", self.pid, 0, {"name": "python3"}),
                                    ("process_labels", self.pid, 0, {"labels": "CPU"}),
                                    ("thread_name", self.pid, self.tid, {"name": "thread 4242 (python3)"}),
                                    ("process_name", 0, 0, {"name": "python3"}),
                                    ("process_labels", 0, 0, {"labels": "GPU 0"}),
                                    ("thread_name", 0, 7, {"name": "stream 7"}),
                                    ("thread_name", 0, 20, {"name": "stream 20"})):
            self.events.append({"name": name, "ph": "M", "pid": pid, "tid": tid, "args": arg})

    def x(self, cat, name, ts, dur, pid, tid, args):
        self.events.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
                            "ts": round(ts, 3), "dur": round(dur, 3), "args": args})

    def op(self, name, dims, types, strides, concrete, kernels, seq=True, tid=None):
        """A cpu_op launching `kernels` = [(kind, name, gpu_dur_us, stream, extra_args)]."""
        tid = tid or self.tid
        start = self.cpu_t
        ext = self.ext
        self.ext += 1
        args = {"External id": ext, "Record function id": 0, "Ev Idx": ext - 1,
                "Input Dims": dims, "Input type": types, "Input Strides": strides,
                "Concrete Inputs": concrete}
        if seq:
            self.seq += 1
            args["Sequence number"] = self.seq
            args["Fwd thread id"] = 0
        body = []
        t = start + 3.0 + self.rng.uniform(0, 2)
        for kind, kname, gdur, stream, kargs in kernels:
            corr = self.corr
            self.corr += 1
            rt_name = {"kernel": "cudaLaunchKernel", "gpu_memcpy": "cudaMemcpyAsync",
                       "gpu_memset": "cudaMemsetAsync"}[kind]
            rdur = 4.0 + self.rng.uniform(0, 3)
            body.append(("cuda_runtime", rt_name, t, rdur, {"External id": ext, "cbid": 211, "correlation": corr}))
            self.events.append({"ph": "s", "id": corr, "pid": self.pid, "tid": tid, "ts": round(t, 3),
                                "cat": "ac2g", "name": "ac2g"})
            gstart = max(self.gpu_t[stream], t + 5.0)
            gdur = gdur * self.rng.uniform(0.95, 1.05)
            ga = {"External id": ext, "device": 0, "stream": stream, "correlation": corr}
            ga.update(kargs)
            self.x(kind, kname, gstart, gdur, 0, stream, ga)
            self.events.append({"ph": "f", "id": corr, "pid": 0, "tid": stream, "ts": round(gstart, 3),
                                "cat": "ac2g", "name": "ac2g", "bp": "e"})
            self.gpu_t[stream] = gstart + gdur + self.rng.uniform(0.5, 2.0)
            t += rdur + 1.0
        dur = t - start + 2.0
        self.x("cpu_op", name, start, dur, self.pid, tid, args)
        for cat, n, ts, d, a in body:
            self.x(cat, n, ts, d, self.pid, tid, a)
        self.cpu_t = start + dur + self.rng.uniform(1, 4)
        return ext


def gemm(m, n, k):
    return ("kernel", "void cutlass::Kernel2<cutlass_80_tensorop_s16816gemm_bf16_128x128_32x4_tn_align8>"
            "(cutlass_80_tensorop_s16816gemm_bf16_128x128_32x4_tn_align8::Params)",
            # 250 TFLOP/s, and no less than a small GEMM's few microseconds
            max(6.0, 2 * m * n * k / 250e6), 7,
            {"grid": [max(1, n // 128), max(1, m // 128), 1], "block": [128, 1, 1],
             "registers per thread": 168, "shared memory": 73728})


ELT = ("kernel", "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl"
       "(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda(c10::BFloat16)#1}, "
       "std::array<char*, 2ul> >(int, at::native::GeluCUDAKernelImpl, std::array<char*, 2ul>)")
LN = ("kernel", "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>"
      "(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)")


def step(tr, b, h):
    bf = "c10::BFloat16"
    # input copy
    tr.op("aten::copy_", [[b, h], [b, h], []], [bf, bf, "Scalar"], [[h, 1], [h, 1], []], ["", "", "False"],
          [("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", b * h * 2 / 20e3, 7, {"bytes": b * h * 2})], seq=False)
    for layer in range(2):
        # normalized_shape is an int list: the profiler records it as a ScalarList
        tr.op("aten::native_layer_norm", [[b, h], [], [h], [h], []], [bf, "ScalarList", bf, bf, "Scalar"],
              [[h, 1], [], [1], [1], []], ["", "[%d]" % h, "", "", "1.0000000000000001e-05"],
              [LN + (b * h * 6 / 1.5e6, 7, {"grid": [b, 1, 1], "block": [256, 1, 1]})])
        tr.op("aten::addmm", [[4 * h], [b, h], [h, 4 * h], [], []], [bf, bf, bf, "Scalar", "Scalar"],
              [[1], [h, 1], [1, h], [], []], ["", "", "", "1", "1"], [gemm(b, 4 * h, h)])
        tr.op("aten::gelu", [[b, 4 * h], []], [bf, ""], [[4 * h, 1], []], ["", ""],
              [ELT + (b * 4 * h * 4 / 1.5e6, 7, {"grid": [b * 4 * h // 512, 1, 1], "block": [128, 1, 1]})])
        tr.op("aten::addmm", [[h], [b, 4 * h], [4 * h, h], [], []], [bf, bf, bf, "Scalar", "Scalar"],
              [[1], [4 * h, 1], [1, 4 * h], [], []], ["", "", "", "1", "1"], [gemm(b, h, 4 * h)])
    # backward on the autograd thread, mirrored sequence numbers
    fwd_seq = tr.seq
    saved_tid = tr.tid
    tr.tid = 4300
    for s in range(fwd_seq, fwd_seq - 4, -1):
        ext = tr.ext
        t0 = tr.cpu_t
        tr.cpu_t = t0 + 1.0
        tr.op("aten::mm", [[b, h], [h, 4 * h]], [bf, bf], [[h, 1], [4 * h, 1]], ["", ""], [gemm(b, 4 * h, h)],
              seq=False)
        # the op left cpu_t a little past its end: the wrapper closes there
        tr.x("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", t0, tr.cpu_t - t0,
             tr.pid, tr.tid, {"External id": ext + 1000000, "Sequence number": s, "Fwd thread id": 1})
        tr.cpu_t += 1.0
    tr.tid = saved_tid
    # gradient all-reduce on its own stream, overlapping the optimizer
    tr.op("nccl:all_reduce", [[[4 * h * h]]], ["TensorList"], [[[1]]], [""],
          [("kernel", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
            4 * h * h * 2 / 10e3, 20, {"grid": [8, 1, 1], "block": [512, 1, 1]})], seq=False)
    tr.op("aten::_foreach_add_", [[[h, 4 * h], [4 * h, h]], [[h, 4 * h], [4 * h, h]], []],
          ["TensorList", "TensorList", "Scalar"], [[[4 * h, 1], [h, 1]], [[4 * h, 1], [h, 1]], []],
          ["", "", "-0.001"],
          [("kernel", "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::"
            "(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor"
            "<c10::BFloat16, 2, 2, 0>, std::plus<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<2>, "
            "at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<c10::BFloat16, 2, 2, 0>, std::plus<float>, float)",
            8 * h * h * 2 / 1.5e6, 7, {"grid": [64, 1, 1], "block": [512, 1, 1]})], seq=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    tr = Trace(a.seed)
    tr.meta()
    for i in range(a.steps):
        start = tr.cpu_t
        n_before = len(tr.events)
        # 256 tokens of width 512: GEMMs small enough that the demo's CPU
        # replays take a fraction of a second (bf16 on a CPU without bf16
        # units ran 3 s a call at 512 x 1024)
        step(tr, 256, 512)
        tr.events.insert(n_before, {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % i,
                                    "pid": tr.pid, "tid": tr.tid, "ts": round(start - 0.5, 3),
                                    "dur": round(tr.cpu_t - start + 1.0, 3), "args": {"External id": 0}})
        tr.cpu_t = max(tr.cpu_t, max(tr.gpu_t.values())) + 20.0
    doc = {"schemaVersion": 1,
           "deviceProperties": [{"id": 0, "name": "Sample GPU (synthetic)", "totalGlobalMem": 85899345920,
                                 "computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024,
                                 "numSms": 132, "warpSize": 32}],
           "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2},
           "record_shapes": 1, "displayTimeUnit": "ms", "baseTimeNanoseconds": 1700000000000000000,
           "traceEvents": tr.events, "traceName": "sample-trace (tlreplay scripts/make_sample_trace.py)"}
    opener = gzip.open if a.out.endswith(".gz") else open
    with opener(a.out, "wt") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
