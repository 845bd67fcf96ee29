# SPDX-License-Identifier: MIT
"""One worker's requests (hello, schemas, replay) and the replay's steps, in the order
docs/replay-internals.md gives them: resolve the op, load the plugins, check memory, build the
arguments, run the initializers, one checked call, the timed loop inside the parent's region,
GPU metrics, kernel recording. What a failure makes of the reply (status, kind, fatal) is
decided here; the steps themselves live in the other modules."""

import gc
import os
import platform
import random
import sys
import time
import traceback
import warnings
from contextlib import nullcontext

from . import PROTOCOL, __version__, arguments, gpu_metrics, initializers, portable, timing
from .defaults import DEFAULT_ITERS, DEFAULT_WARMUP
from .errors import ArgsError, ParentGone, RegionStopped, Unavailable, cuda_broken, is_oom, one_line
from .fmt import describe
from .gpulib import Loader
from .ops import OpResolver
from .torchenv import torch


def parse_device(text):
    """torch.device for cpu, cuda, cuda:N; Unavailable when torch has no such CUDA device."""
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


def _device_context(device):
    """Make device the current CUDA device (where events record, graphs capture)."""
    return torch.cuda.device(device.index) if device.type == "cuda" else nullcontext()


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


class Session:
    """The requests of one worker (or of one standalone run: channel None, so no region). What
    it keeps between requests: imported modules, loaded plugins, L2 flush buffers, the GPU
    library."""

    def __init__(self, channel=None, log=None):
        self.channel = channel
        self.log = log or sys.stderr
        self.ops = OpResolver()
        self.plugins = initializers.Plugins()
        self.l2 = timing.L2Flush()
        self.gpu_libs = Loader()

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
        reply = {"id": req.get("id"), "status": "ok", "protocol": PROTOCOL, "worker": __version__,
                 "python": platform.python_version(), "executable": sys.executable,
                 "torch": torch.__version__, "cuda": False, "hip": getattr(torch.version, "hip", None),
                 "cuda_version": getattr(torch.version, "cuda", None), "devices": [],
                 "host_memory_available": arguments.host_memory_available(), "pid": os.getpid()}
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
        out, warns = self.ops.schemas(req.get("namespaces"))
        reply = {"id": req.get("id"), "status": "ok", "torch": torch.__version__, "schemas": out}
        if warns:
            reply["warnings"] = warns
        return reply

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
            if kind == "error" and is_oom(exc):
                kind = "memory"
            reply = {"id": rid, "status": "failed", "kind": kind, "error": one_line(exc)}
            if state.get("init"):
                reply["init"] = state["init"]
            fatal = getattr(exc, "fatal", None)
            if fatal is None:
                fatal = cuda_broken(req)
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

    def _replay(self, req, rid, warn, verbose, state):
        entry = req.get("entry")
        if not isinstance(entry, dict):
            raise ArgsError("replay request has no entry object")
        warmup = _int_opt(req, "warmup", DEFAULT_WARMUP)
        iters = _int_opt(req, "iters", DEFAULT_ITERS)
        min_time_s = _float_opt(req, "min_time_s", 0.0)
        budget_s = _float_opt(req, "budget_s", 0.0)
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
        device = parse_device(req.get("device"))
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
        op, op_desc, base_name = self.ops.resolve(entry, req, warn)
        inits = self.plugins.for_request(req)  # plugin errors before any allocation

        # 2. the memory check, before allocating anything
        collected = arguments.collect(entry)
        arguments.check_memory(collected, device)

        # 3. the arguments
        torch.manual_seed(seed)
        rng = random.Random(seed)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with _device_context(device):
                built = arguments.build(collected, op, entry, device, warn)
                arguments.fit_live_schema(op, built, entry, warn)
                init_msgs = initializers.run(inits, entry, {entry.get("op_name"), base_name, op_desc}, built,
                                             device, rng, options, warn, verbose, self.log)
                state["init"] = init_msgs
                written = gpu_metrics.written(op, built.args, built.kwargs, built.names, built.pos_marks,
                                              built.kw_marks) if gpu_names else []
                args, kwargs = built.args, built.kwargs
                arg_desc = [describe(a) for a in args] + ["%s=%s" % (k, describe(v)) for k, v in kwargs.items()]
                if verbose:
                    self.log.write("replay %s(%s)\n" % (op_desc, ", ".join(arg_desc)))
                    for m in init_msgs:
                        self.log.write("  init %s\n" % m)
                    self.log.flush()

                def call():
                    return op(*args, **kwargs)

                # 4. one checked call, timed for the plan; a backend op this device has no
                # kernel for runs as its alias or its portable stand-in (portable.py)
                t0 = time.perf_counter()
                try:
                    result = call()
                except NotImplementedError as exc:
                    if not portable.no_kernel(exc):
                        raise
                    op, op_desc = self.ops.no_kernel_fallback(base_name, req, device, exc, warn)
                    t0 = time.perf_counter()
                    result = call()
                if is_cuda:
                    torch.cuda.synchronize(device)
                first_call_s = time.perf_counter() - t0
                result_desc = describe(result)
                del result
        for w in caught[:5]:
            warn("%s: %s" % (w.category.__name__, (str(w.message).splitlines() or [""])[0][:200]))

        # the plan: as many calls as the budget allows (min_time_s asks for its own count)
        asked = (warmup, iters)
        cut = False
        if min_time_s <= 0:
            warmup, iters, cut = timing.plan_calls(first_call_s, warmup, iters, budget_s)
        plan = {"first_call_s": round(first_call_s, 6), "warmup": warmup, "iters": iters,
                "estimate_s": round(first_call_s * (warmup + iters), 3), "cut": cut,
                "asked": {"warmup": asked[0], "iters": asked[1]}, "budget_s": budget_s}
        if req.get("plan") and self.channel is not None:
            self.channel.send(dict(plan, id=rid, event="plan"))
            self.channel.wait_go()

        # warmup, then the timed calls
        with _device_context(device):
            times, sample_calls = timing.time_op(call, device, warmup, iters, min_time_s, cuda_graph,
                                                 self.l2 if flush_l2 else None,
                                                 lambda event: self._region(rid, event, req), warn)
            gpu_reply = gpu_backend = None
            if gpu_names is not None:  # before the kernel recording: torch.profiler also uses CUPTI
                flush = self.l2.buffer(device, warn) if is_cuda and flush_l2 else None
                gpu_reply, gpu_backend = gpu_metrics.count(self.gpu_libs, gpu_names, req, device, call,
                                                           written, flush, gpu_calls, warn)
            kernels, kernel_us = [], None
            if is_cuda and req.get("record_kernels"):
                kernels, kernel_us = timing.record_kernels(call, device, warn)
        reply = {"id": rid, "status": "ok", "times_us": [round(t, 4) for t in times],
                 "iters": len(times) * sample_calls, "device": str(device), "op": op_desc,
                 "args": arg_desc, "result": result_desc, "kernels": kernels, "init": init_msgs,
                 "seed": seed, "plan": plan}
        if kernel_us is not None:
            reply["kernel_us"] = round(kernel_us, 4)
        if sample_calls > 1:
            reply["sample_calls"] = sample_calls
        if gpu_reply is not None:
            reply["gpu_metrics"] = gpu_reply
            if gpu_backend:
                reply["gpu_backend"] = gpu_backend
        return reply

    def _region(self, rid, event, req):
        """Tell the parent the timed calls begin or end (`region: true`), and wait for its go."""
        if not req.get("region") or self.channel is None:
            return
        self.channel.send({"id": rid, "event": event})
        if not self.channel.wait_go() and event == "region_begin":
            raise RegionStopped("the parent stopped the replay at region_begin")
