#!/usr/bin/env python3
"""Write a synthetic PyTorch-profiler (Kineto) trace of N small events, streamed.

Usage: gen_small_events.py N OUTPUT.json
       (N events, e.g. 10000000 for 1.37 GB of text; OUTPUT "-" for stdout)

The memory benchmark's input (bench/mem_events.sh, docs/BENCHMARKS.md "Memory
per event"): a training loop whose events are as small as real ones get, so
that what each event costs in memory, not its text, is what is measured.
Every step is a ProfilerStep#K annotation (and its GPU twin) over a forward
pass on the main thread (aten::linear > aten::t > aten::transpose >
aten::as_strided, aten::addmm >
cudaLaunchKernel; aten::relu > aten::clamp_min > cudaLaunchKernel; views),
a backward pass on the autograd thread (evaluate_function > AddmmBackward0 >
aten::mm x2, ReluBackward0 > aten::threshold_backward) linked to the forward
by Sequence number, an NCCL all-reduce (record_param_comms > nccl:all_reduce
> kernel on its own stream), an optimizer step and a host-to-device copy.
Each launch has its ac2g flow pair ("s" at the launch, "f" at the GPU event)
and correlation id; GPU events go to three streams and never overlap on one.
Names are short and args few (no shapes), as in a trace recorded without
record_shapes. The events are written as they are made: memory stays flat
whatever N is. Deterministic: the same N gives the same bytes. Stdlib only.
"""
import sys

PID = 4242
TID_FWD = 4242
TID_BWD = 4250
DEV = 0
S_COMP, S_NCCL, S_COPY = 7, 20, 24
LAYERS = 24


class Gen:
    def __init__(self, out):
        self.out = out
        self.n = 0
        self.buf = []
        self.ext = 0  # External id
        self.corr = 100000  # correlation id (and flow id)
        self.seq = 0  # Sequence number
        self.gpu = {S_COMP: 0.0, S_NCCL: 0.0, S_COPY: 0.0}  # end of the last event per stream

    def emit(self, s):
        self.buf.append(s)
        self.n += 1
        if len(self.buf) >= 4096:
            self.flush()

    def flush(self):
        if self.buf:
            self.out.write(",\n".join(self.buf))
            self.out.write(",\n")
            self.buf = []

    def x(self, cat, name, tid, ts, dur, args):
        self.emit('{"ph":"X","cat":"%s","name":"%s","pid":%d,"tid":%d,"ts":%.3f,"dur":%.3f,"args":{%s}}'
                  % (cat, name, PID, tid, ts, dur, args))

    def op(self, name, tid, ts, dur, extra=""):
        """A cpu_op; returns its External id."""
        self.ext += 1
        self.x("cpu_op", name, tid, ts, dur, '"External id":%d%s' % (self.ext, extra))
        return self.ext

    def launch(self, tid, ts, ext, gpu_cat, gpu_name, stream, gdur, rt="cudaLaunchKernel", gargs=""):
        """A runtime call at ts (3 us), its flow pair and its GPU event."""
        self.corr += 1
        c = self.corr
        self.x("cuda_runtime", rt, tid, ts, 3.0, '"External id":%d,"correlation":%d' % (ext, c))
        self.emit('{"ph":"s","id":%d,"pid":%d,"tid":%d,"ts":%.3f,"cat":"ac2g","name":"ac2g"}' % (c, PID, tid, ts + 0.5))
        g = max(self.gpu[stream] + 0.4, ts + 6.0)
        self.gpu[stream] = g + gdur
        self.emit('{"ph":"f","id":%d,"pid":%d,"tid":%d,"ts":%.3f,"cat":"ac2g","name":"ac2g","bp":"e"}'
                  % (c, 0, stream, g))
        self.emit('{"ph":"X","cat":"%s","name":"%s","pid":%d,"tid":%d,"ts":%.3f,"dur":%.3f,"args":'
                  '{"External id":%d,"device":%d,"stream":%d,"correlation":%d%s}}'
                  % (gpu_cat, gpu_name, DEV, stream, g, gdur, ext, DEV, stream, c, gargs))

    def kernel_op(self, name, kname, tid, t, gdur, extra=""):
        """cpu_op > cudaLaunchKernel > kernel: 5 events over 8 us from t."""
        e = self.op(name, tid, t, 8.0, extra)
        self.launch(tid, t + 2.0, e, "kernel", kname, S_COMP, gdur)
        return t + 8.0

    def seqarg(self, fwd_thread):
        return ',"Sequence number":%d,"Fwd thread id":%d' % (self.seq, fwd_thread)

    def step(self, k, t0):
        """One training step from t0; returns its end."""
        t = t0 + 5.0
        first_ext = self.ext + 1
        self.ext += 1
        seqs = []
        # forward, main thread
        for _ in range(LAYERS):
            self.seq += 1
            seqs.append(self.seq)
            e = self.op("aten::linear", TID_FWD, t, 14.0)
            self.op("aten::t", TID_FWD, t + 0.3, 2.0)
            self.op("aten::transpose", TID_FWD, t + 0.5, 1.6)
            self.op("aten::as_strided", TID_FWD, t + 0.8, 0.9)
            self.kernel_op("aten::addmm", "gemm_tn", TID_FWD, t + 3.0, 9.0 + (e % 7), self.seqarg(0))
            t += 15.0
            self.seq += 1
            seqs.append(self.seq)
            self.op("aten::relu", TID_FWD, t, 10.0, self.seqarg(0))
            self.kernel_op("aten::clamp_min", "relu_k", TID_FWD, t + 1.0, 2.0)
            t += 11.0
            self.op("aten::view", TID_FWD, t, 1.0)
            t += 2.0
        # backward, autograd thread, in reverse order of the forward ops
        tb = t + 2.0
        for _ in range(LAYERS):
            s = seqs.pop()  # relu
            self.op("autograd::engine::evaluate_function: ReluBackward0", TID_BWD, tb, 12.0)
            self.op("ReluBackward0", TID_BWD, tb + 1.0, 10.0, ',"Sequence number":%d,"Fwd thread id":1' % s)
            self.kernel_op("aten::threshold_backward", "relu_bwd", TID_BWD, tb + 2.0, 2.5)
            tb += 13.0
            s = seqs.pop()  # addmm
            self.op("autograd::engine::evaluate_function: AddmmBackward0", TID_BWD, tb, 20.0)
            self.op("AddmmBackward0", TID_BWD, tb + 1.0, 18.0, ',"Sequence number":%d,"Fwd thread id":1' % s)
            self.kernel_op("aten::mm", "gemm_nt", TID_BWD, tb + 2.0, 8.0)
            self.kernel_op("aten::mm", "gemm_nn", TID_BWD, tb + 10.5, 8.0)
            tb += 21.0
        # all-reduce of the gradients, main thread, after the backward
        t = max(t, tb) + 2.0
        e = self.op("record_param_comms", TID_FWD, t, 12.0, ',"Collective name":"allreduce","dtype":"Float","Group size":8')
        e2 = self.op("nccl:all_reduce", TID_FWD, t + 1.0, 10.0)
        self.launch(TID_FWD, t + 3.0, e2, "kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", S_NCCL,
                    40.0 + (e % 5), gargs=',"Collective name":"allreduce"')
        t += 13.0
        # optimizer step, then the next batch copied in
        e = self.op("Optimizer.step#SGD.step", TID_FWD, t, 22.0)
        t = self.kernel_op("aten::_foreach_add_", "foreach_add", TID_FWD, t + 1.0, 30.0) + 14.0
        e = self.op("aten::copy_", TID_FWD, t, 9.0)
        self.launch(TID_FWD, t + 2.0, e, "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", S_COPY, 6.0,
                    rt="cudaMemcpyAsync", gargs=',"bytes":65536')
        t += 10.0
        # the host waits for the GPU
        dur = max(4.0, max(self.gpu.values()) + 1.0 - t)
        self.corr += 1
        self.x("cuda_runtime", "cudaStreamSynchronize", TID_FWD, t, dur, '"correlation":%d' % self.corr)
        t += dur + 3.0
        # the step's annotations span what it holds (written last: the trace is not in time order,
        # as Kineto's is not)
        self.x("user_annotation", "ProfilerStep#%d" % k, TID_FWD, t0, t - t0, '"External id":%d' % first_ext)
        self.x("gpu_user_annotation", "ProfilerStep#%d" % k, S_COMP, t0 + 6.0, t - t0 - 6.0,
               '"External id":%d' % first_ext)
        return t + 1.0


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    limit = int(sys.argv[1])
    out = sys.stdout if sys.argv[2] == "-" else open(sys.argv[2], "w")
    out.write('{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3",'
              '"totalGlobalMem":85029158912,"computeMajor":9,"computeMinor":0,"numSms":132}],'
              '"distributedInfo":{"backend":"nccl","rank":0,"world_size":8},\n"traceEvents":[\n')
    g = Gen(out)
    for m in ('{"name":"process_name","ph":"M","ts":0,"pid":%d,"tid":0,"args":{"name":"python3"}}' % PID,
              '{"name":"thread_name","ph":"M","ts":0,"pid":%d,"tid":%d,"args":{"name":"thread %d (python3)"}}'
              % (PID, TID_FWD, TID_FWD),
              '{"name":"thread_name","ph":"M","ts":0,"pid":%d,"tid":%d,"args":{"name":"thread %d (pt_autograd_0)"}}'
              % (PID, TID_BWD, TID_BWD),
              '{"name":"process_name","ph":"M","ts":0,"pid":0,"tid":0,"args":{"name":"python3"}}',
              '{"name":"process_labels","ph":"M","ts":0,"pid":0,"tid":0,"args":{"labels":"GPU 0"}}'):
        g.emit(m)
    for s in (S_COMP, S_NCCL, S_COPY):
        g.emit('{"name":"thread_name","ph":"M","ts":0,"pid":0,"tid":%d,"args":{"name":"stream %d"}}' % (s, s))
    t = 1000000.0
    k = 1
    # a step is 860 events; the last one may go a little over N
    while g.n < limit:
        t = g.step(k, t)
        k += 1
    g.flush()
    out.write('{"name":"Record Window End","ph":"i","s":"g","pid":"","tid":"","ts":%.3f}\n' % t)
    out.write('],\n"traceName":"gen_small_events.json","displayTimeUnit":"ms","baseTimeNanoseconds":1700000000000000000}\n')
    out.close()
    sys.stderr.write("%d events, %d steps\n" % (g.n + 1, k - 1))


if __name__ == "__main__":
    main()
