# SPDX-License-Identifier: MIT
"""The timed loop: warmup, then the timed calls on the CPU clock (perf_counter_ns around each
call), with CUDA events (read every CUDA_CHUNK calls, so the host runs ahead), or as CUDA graph
replays; the L2 flush buffer; and the names and GPU time of the kernels one call launches
(torch.profiler). `region` is the parent's counting window around the timed calls only."""

import time

from .errors import one_line
from .fmt import human_bytes
from .torchenv import torch

MAX_EXTRA_CALLS = 100000  # min_time_s never takes the timed loop past this many calls
L2_FALLBACK_BYTES = 256 << 20
CUDA_CHUNK = 100  # timed CUDA calls between two synchronisations
# A graph replay is one host launch (cudaGraphLaunch, several us): a graph of one small op
# would time the host's launch rate with the GPU idle between replays (the H200 check: ops
# under 10 us at 2.2x their trace time). The graph holds as many calls of the op as make
# GRAPH_WORK_US of GPU work (at most GRAPH_MAX_CALLS), so the launch is a small share of it.
GRAPH_WORK_US = 200.0
GRAPH_MAX_CALLS = 64


def plan_calls(first_call_s, warmup, iters, budget_s):
    """How many warm-up and timed calls fit a time budget, from the checked call's time: (warmup,
    iters, cut). A call of an op sized for a GPU can take seconds on the CPU: 10 warm-up and 100
    timed calls of a 7 s GEMM are 13 minutes of silence. Within the budget the counts stand;
    past it, the timed calls are what fits (at least one), with a tenth of them (at most the
    asked warm-up) first as warm-up; the checked call before warmed the op up once already."""
    if budget_s <= 0 or first_call_s <= 0 or (warmup + iters) * first_call_s <= budget_s:
        return warmup, iters, False
    fit = int(budget_s / first_call_s)
    w = min(warmup, fit // 10)
    return w, max(1, fit - w), True


class L2Flush:
    """Per device, a buffer twice the L2 (L2_FALLBACK_BYTES when torch does not know the L2)
    whose zero_() evicts the op's data; made once per worker."""

    def __init__(self):
        self._bufs = {}  # device index -> buffer

    def buffer(self, device, warn):
        idx = device.index
        buf = self._bufs.get(idx)
        if buf is None:
            size = getattr(torch.cuda.get_device_properties(idx), "L2_cache_size", None)
            if isinstance(size, int) and size > 0:
                size *= 2
            else:
                size = L2_FALLBACK_BYTES
                warn("L2 size unknown to torch %s: flushing with %s" % (torch.__version__, human_bytes(size)))
            buf = torch.empty(size, dtype=torch.uint8, device=device)
            self._bufs[idx] = buf
        return buf


def time_op(call, device, warmup, iters, min_time_s, cuda_graph, flush, region, warn):
    """Warm up, then time call: (times in us, calls per sample). cuda_graph: replays of a graph
    captured from call (back to the event loop, with a warning, when the capture fails); flush:
    the L2Flush to zero before each timed CUDA call, or None; region(event) brackets the timed
    calls (not the warmup), except a graph with iters 0, which times nothing."""
    is_cuda = device.type == "cuda"
    if is_cuda and cuda_graph:
        graph = None
        try:
            graph = capture(call, device)
        except Exception as exc:
            warn("CUDA graph capture failed (%s): timed without a graph" % one_line(exc))
            torch.cuda.synchronize(device)
        if graph is not None and iters == 0:
            return [], 1
        if graph is not None:
            graph, copies = graph
            for _ in range(warmup):
                graph.replay()
            torch.cuda.synchronize(device)
            region("region_begin")
            times = [t / copies for t in time_graph(graph, iters, min_time_s, device)]
            region("region_end")
            return times, iters * copies
    for _ in range(warmup):
        call()
    if is_cuda:
        torch.cuda.synchronize(device)
        buf = flush.buffer(device, warn) if flush is not None else None
        region("region_begin")
        times = time_cuda(call, iters, min_time_s, buf, device, warn)
        region("region_end")
    else:
        region("region_begin")
        times = time_cpu(call, iters, min_time_s, warn)
        region("region_end")
    return times, 1


def time_cpu(call, iters, min_time_s, warn):
    """iters calls, each timed on the host clock; more while under min_time_s."""
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


def time_cuda(call, iters, min_time_s, flush, device, warn):
    """A pair of CUDA events around each call, read every CUDA_CHUNK calls (one synchronisation
    per chunk, not per call); flush: a buffer to zero before each call, outside the events."""
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


def graph_calls(call_us):
    """How many calls of an op taking call_us of event time one graph holds."""
    if not call_us or call_us <= 0:
        return 1
    return int(max(1, min(GRAPH_MAX_CALLS, -(-GRAPH_WORK_US // max(call_us, 0.5)))))


def capture(call, device):
    """(a CUDA graph of N calls back to back, N): N from one call's event time (graph_calls).
    Three calls on a side stream first: what the op allocates or initialises lazily must not
    happen during the capture, which would fail."""
    side = torch.cuda.Stream(device=device)
    side.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(side):
        for _ in range(3):
            call()
    torch.cuda.current_stream(device).wait_stream(side)
    torch.cuda.synchronize(device)
    ev0, ev1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ev0.record()
    call()
    ev1.record()
    torch.cuda.synchronize(device)
    copies = graph_calls(ev0.elapsed_time(ev1) * 1000.0)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(copies):
            call()
    torch.cuda.synchronize(device)
    return graph, copies


def time_graph(graph, replays, min_time_s, device):
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


def record_kernels(call, device, warn):
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
