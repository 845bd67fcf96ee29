#!/usr/bin/python3
"""Tests of the replay worker, core/replay/tlreplay_worker.py and its package tlreplay_replay, on
CPU (stdlib unittest; run with /usr/bin/python3).

    /usr/bin/python3 tests/replay/test_worker.py          # unittest output
    /usr/bin/python3 tests/replay/test_worker.py --tap    # TAP, for prove (tests/replay/test_worker.sh)

Covers the worker protocol over real pipes (fds 3 and 4, as tlreplay starts it), tensor building
(every dtype string, inits, tl_init, strides, TensorList, 0-d, ScalarType codes), op resolution
(overloads, namespace auto-import, aliases, unavailable ops), the memory guard, crashes in ops,
custom initializers (user plugins, the built-in PagedAttention and MoE-routing ones on stand-in
ops named like vLLM's and aiter's), GPU metrics (`gpu_metrics`, against libtlreplay_gpu.so with a
fake libcupti and libcuda when they are built), the standalone `replay` mode and how the script
finds its package. Unit tests import the package's modules (core/replay on sys.path); the
protocol and standalone tests run the script.
"""

import fcntl
import json
import os
import re
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WORKER = os.path.join(ROOT, "core", "replay", "tlreplay_worker.py")
PY = sys.executable
sys.path.insert(0, os.path.dirname(HERE))

import taptest  # noqa: E402

import torch  # noqa: E402  (the TAP wrapper skips when torch is missing)

sys.path.insert(0, os.path.dirname(WORKER))  # the package beside the script, as the script finds it
from tlreplay_replay import (arguments, errors, fmt, gpu_metrics, gpulib, initializers,  # noqa: E402
                             ops, session, tensors, timing)

TMP = tempfile.mkdtemp(prefix="tlreplay-worker-test.")

# ---------------------------------------------------------------------------- helper modules

TLTEST_OPS = r'''
import ctypes, os, sys, torch
CALLS = {"count": 0}
lib = torch.library.Library("tltest", "DEF")

def _def(schema, fn):
    lib.define(schema)
    lib.impl(schema.split("(")[0], fn, "CPU")

_def("myop(Tensor x, int n=1) -> Tensor", lambda x, n=1: x + n)

def noisy(x):
    print("NOISE-FROM-PRINT")
    sys.stdout.flush()
    os.write(1, b"NOISE-FROM-FD1\n")
    return x.clone()
_def("noisy(Tensor x) -> Tensor", noisy)

def crash(x):
    ctypes.string_at(0)
    return x
_def("crash(Tensor x) -> Tensor", crash)

def abort(x):
    os.abort()
_def("abort(Tensor x) -> Tensor", abort)

def bye(x):
    sys.exit(3)
_def("bye(Tensor x) -> Tensor", bye)

def multiline(x):
    raise RuntimeError("first line of the error\nsecond line\n  File \"x.py\", line 1")
_def("multiline(Tensor x) -> Tensor", multiline)

def count(x):
    CALLS["count"] += 1
    return x
_def("count(Tensor x) -> Tensor", count)

def kvarg(x, kv_cache_dtype):
    if kv_cache_dtype != "auto":
        raise RuntimeError("kv_cache_dtype=%r" % kv_cache_dtype)
    return x.clone()
_def("kvarg(Tensor x, str kv_cache_dtype) -> Tensor", kvarg)

def strmode(x, mode="fast"):
    if mode != "fast":
        raise RuntimeError("mode=%r" % mode)
    return x.clone()
_def('strmode(Tensor x, str mode="fast") -> Tensor', strmode)

def strreq(x, mode):
    if mode != "exact":
        raise RuntimeError("mode=%r" % mode)
    return x.clone()
_def("strreq(Tensor x, str mode) -> Tensor", strreq)

def pair(x):
    return x.clone(), x.sum()
_def("pair(Tensor x) -> (Tensor, Tensor)", pair)

def kwonly(x, n, *, scale=None):
    if scale != 0.5:
        raise RuntimeError("scale=%r" % (scale,))
    return x + n
_def("kwonly(Tensor x, int n, *, float? scale=None) -> Tensor", kwonly)

BUMPS = []  # the sum of x seen by each call of bump_ (it adds 1 to x)
def bump_(x):
    BUMPS.append(float(x.sum()))
    return x.add_(1)
_def("bump_(Tensor(a!) x) -> Tensor(a!)", bump_)
'''

FAKE_VLLM_OPS = r'''
"""Stand-ins named like vLLM's and aiter's ops: they check what the built-in initializers did."""
import torch
STATS = {}
_libs = []

def _lib(ns):
    lib = torch.library.Library(ns, "DEF")
    _libs.append(lib)
    return lib

def _check_pa(tag, query, key_cache, block_tables, seq_lens, block_size, max_seq_len, kv_cache_dtype, qsl=None):
    if kv_cache_dtype != "auto":
        raise RuntimeError("kv_cache_dtype %r" % kv_cache_dtype)
    if block_tables.dim() != 2:
        STATS[tag] = {"skipped": True}
        return
    num_blocks = key_cache.shape[0]
    if not bool((seq_lens == max_seq_len).all()):
        raise RuntimeError("seq_lens %s != max_seq_len %d" % (seq_lens.tolist(), max_seq_len))
    per_seq = -(-max_seq_len // block_size)
    if per_seq > block_tables.shape[1]:
        raise RuntimeError("max_seq_len %d does not fit block_tables" % max_seq_len)
    used = block_tables[:, :per_seq]
    if int(used.min()) < 0 or int(used.max()) >= num_blocks:
        raise RuntimeError("block id out of range")
    rows = used.tolist()
    flat = [b for r in rows for b in r]
    if len(flat) <= num_blocks and len(set(flat)) != len(flat):
        raise RuntimeError("blocks are not distinct")
    st = {"seq_lens": seq_lens.tolist(), "max_seq_len": max_seq_len, "rows": rows,
          "num_blocks": num_blocks, "per_seq": per_seq}
    if qsl is not None:
        q = qsl.tolist()
        if q[0] != 0 or q[-1] != query.shape[0] or any(b < a for a, b in zip(q, q[1:])):
            raise RuntimeError("bad query_start_loc %s for %d tokens" % (q, query.shape[0]))
        st["query_start_loc"] = q
    STATS[tag] = st

c = _lib("_C")
c.define("paged_attention_v1(Tensor(a!) out, Tensor query, Tensor key_cache, Tensor value_cache, "
         "int num_kv_heads, float scale, Tensor block_tables, Tensor seq_lens, int block_size, "
         "int max_seq_len, Tensor? alibi_slopes, str kv_cache_dtype, Tensor k_scale, Tensor v_scale) -> ()")
def pa_v1(out, query, key_cache, value_cache, num_kv_heads, scale, block_tables, seq_lens, block_size,
          max_seq_len, alibi_slopes, kv_cache_dtype, k_scale, v_scale):
    _check_pa("v1", query, key_cache, block_tables, seq_lens, block_size, max_seq_len, kv_cache_dtype)
c.impl("paged_attention_v1", pa_v1, "CPU")

c.define("paged_attention_v2(Tensor(a!) out, Tensor(b!) exp_sums, Tensor(c!) max_logits, Tensor(d!) tmp_out, "
         "Tensor query, Tensor key_cache, Tensor value_cache, int num_kv_heads, float scale, "
         "Tensor block_tables, Tensor seq_lens, int block_size, int max_seq_len, Tensor? alibi_slopes, "
         "str kv_cache_dtype, Tensor k_scale, Tensor v_scale) -> ()")
def pa_v2(out, exp_sums, max_logits, tmp_out, query, key_cache, value_cache, num_kv_heads, scale,
          block_tables, seq_lens, block_size, max_seq_len, alibi_slopes, kv_cache_dtype, k_scale, v_scale):
    _check_pa("v2", query, key_cache, block_tables, seq_lens, block_size, max_seq_len, kv_cache_dtype)
c.impl("paged_attention_v2", pa_v2, "CPU")

r = _lib("_rocm_C")
r.define("paged_attention(Tensor(a!) out, Tensor exp_sums, Tensor max_logits, Tensor tmp_out, Tensor query, "
         "Tensor key_cache, Tensor value_cache, int num_kv_heads, float scale, Tensor block_tables, "
         "Tensor seq_lens, Tensor? query_start_loc, int block_size, int max_seq_len, Tensor? alibi_slopes, "
         "str kv_cache_dtype, Tensor k_scale, Tensor v_scale, Tensor? fp8_out_scale) -> ()")
def pa_rocm(out, exp_sums, max_logits, tmp_out, query, key_cache, value_cache, num_kv_heads, scale,
            block_tables, seq_lens, query_start_loc, block_size, max_seq_len, alibi_slopes, kv_cache_dtype,
            k_scale, v_scale, fp8_out_scale):
    _check_pa("rocm", query, key_cache, block_tables, seq_lens, block_size, max_seq_len, kv_cache_dtype,
              query_start_loc)
r.impl("paged_attention", pa_rocm, "CPU")

def _check_moe(tag, m, experts, topk, sti, sei, nvi, block_m, sw=None):
    ids, ex, nv = sti.tolist(), sei.tolist(), nvi.reshape(-1).tolist()
    valid = nv[0]
    if valid <= 0 or valid % block_m:
        raise RuntimeError("num_valid_ids %d is not a positive multiple of block_m %d" % (valid, block_m))
    if len(nv) > 1 and nv[1] != m:
        raise RuntimeError("num_valid_ids[1] = %d, not %d tokens" % (nv[1], m))
    sentinel = (topk << 24) | m
    seen, per_token, counts = set(), {}, [0] * experts
    for b in range(valid // block_m):
        e = ex[b]
        if not 0 <= e < experts:
            raise RuntimeError("expert id %d out of range" % e)
        if b and e < ex[b - 1]:
            raise RuntimeError("expert ids are not sorted")
        real = 0
        for v in ids[b * block_m:(b + 1) * block_m]:
            if v == sentinel:
                continue
            tok, slot = v & 0xFFFFFF, v >> 24
            if tok >= m or slot >= topk or (tok, slot) in seen:
                raise RuntimeError("bad sorted token id %#x" % v)
            seen.add((tok, slot))
            mine = per_token.setdefault(tok, set())
            if e in mine:
                raise RuntimeError("token %d routed twice to expert %d" % (tok, e))
            mine.add(e)
            counts[e] += 1
            real += 1
        if not real:
            raise RuntimeError("block %d holds only padding" % b)
    if len(seen) != m * topk:
        raise RuntimeError("%d of %d assignments present" % (len(seen), m * topk))
    if any(v != sentinel for v in ids[valid:]):
        raise RuntimeError("slots past num_valid_ids are not the sentinel")
    st = {"counts": counts, "valid": valid, "blocks": valid // block_m}
    if sw is not None:
        w = sw.tolist()
        st["weights_ok"] = all(abs(w[i] - (0.0 if ids[i] == sentinel else 1.0 / topk)) < 1e-6
                               for i in range(len(ids)))
    STATS[tag] = st

a = _lib("aiter")
a.define('ck_moe_stage1(Tensor hidden_states, Tensor w1, Tensor w2, Tensor sorted_token_ids, '
         'Tensor sorted_expert_ids, Tensor num_valid_ids, Tensor(a!) out, int topk, str kernelName="", '
         'Tensor? w1_scale=None, Tensor? a1_scale=None, int? block_m=32, Tensor? sorted_weights=None) -> ()')
def stage1(hidden_states, w1, w2, sti, sei, nvi, out, topk, kernelName="", w1_scale=None, a1_scale=None,
           block_m=32, sorted_weights=None):
    _check_moe("stage1", hidden_states.shape[0], w1.shape[0], topk, sti, sei, nvi, block_m or 32, sorted_weights)
a.impl("ck_moe_stage1", stage1, "CPU")

a.define('ck_moe_stage2(Tensor inter_states, Tensor w1, Tensor w2, Tensor sorted_token_ids, '
         'Tensor sorted_expert_ids, Tensor num_valid_ids, Tensor(a!) out, int topk, str kernelName="", '
         'Tensor? w2_scale=None, Tensor? a2_scale=None, int? block_m=32, Tensor? sorted_weights=None) -> ()')
def stage2(inter_states, w1, w2, sti, sei, nvi, out, topk, kernelName="", w2_scale=None, a2_scale=None,
           block_m=32, sorted_weights=None):
    _check_moe("stage2", inter_states.shape[0], w1.shape[0], topk, sti, sei, nvi, block_m or 32, sorted_weights)
a.impl("ck_moe_stage2", stage2, "CPU")

a.define("fmoe(Tensor(a!) out, Tensor input, Tensor gate, Tensor down, Tensor sorted_token_ids, "
         "Tensor sorted_weights, Tensor sorted_expert_ids, Tensor num_valid_ids, int topk) -> ()")
def fmoe(out, inp, gate, down, sti, sw, sei, nvi, topk):
    _check_moe("fmoe", inp.shape[0], gate.shape[0], topk, sti, sei, nvi, 32, sw)
a.impl("fmoe", fmoe, "CPU")
'''

PROBE_PLUGIN = r'''
"""Reports what the worker built: the init message is "probe:" + JSON."""
import json, torch

def _desc(v):
    if isinstance(v, torch.Tensor):
        d = {"shape": list(v.shape), "stride": list(v.stride()), "dtype": str(v.dtype).replace("torch.", ""),
             "device": str(v.device)}
        if v.numel() and not v.dtype.is_complex:
            if v.dtype.is_floating_point:
                f = v.float()
                d["sum"] = float(f.sum())
                d["nonzero"] = int((f != 0).sum())
                d["first"] = f.reshape(-1)[:4].tolist()
            else:
                i = v.long()
                d["min"], d["max"] = int(i.min()), int(i.max())
                d["values"] = i.reshape(-1)[:16].tolist()
        return d
    if isinstance(v, (list, tuple)):
        return [_desc(x) for x in v]
    if isinstance(v, torch.dtype):
        return str(v)
    return v if isinstance(v, (int, float, str, bool)) or v is None else repr(v)

class Probe:
    name = "probe"
    op_patterns = ["aten::clone", "aten::embedding", "aten::cat", "aten::mm", "aten::index",
                   "aten::add", "aten::to", "tltest::myop", "_C::paged_attention_v1"]

    def initialize(self, ctx):
        return "probe:" + json.dumps({
            "op": ctx.op_name, "args": [_desc(a) for a in ctx.args],
            "kwargs": {k: _desc(v) for k, v in ctx.kwargs.items()}, "arg_names": ctx.arg_names,
            "device": str(ctx.device), "options": ctx.options, "uid": ctx.entry.get("uid"),
            "rng": ctx.rng.random()})

INITIALIZERS = [Probe()]
'''

USER_PA_PLUGIN = r'''
import torch

class MyPagedAttention:
    op_patterns = ["_C::paged_attention_v1"]

    def initialize(self, ctx):
        max_len = ctx.args[ctx.arg_names.index("max_seq_len")]
        ctx.args[ctx.arg_names.index("seq_lens")].fill_(max_len)
        bt = ctx.args[ctx.arg_names.index("block_tables")]
        bt.copy_(torch.arange(bt.numel()).view(bt.shape) % ctx.args[2].shape[0])
        return "user-pa: %d args" % len(ctx.args)

class NoMessage:
    name = "quiet"
    op_patterns = ["tltest::myop"]

    def initialize(self, ctx):
        return None

class Broken:
    op_patterns = ["tltest::count"]

    def initialize(self, ctx):
        raise ValueError("plugin bug")

INITIALIZERS = [MyPagedAttention(), NoMessage(), Broken()]
'''


def _write(name, text):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(text)
    return path


_write("tltest_ops.py", TLTEST_OPS)
_write("fake_vllm_ops.py", FAKE_VLLM_OPS)
PROBE = _write("probe_plugin.py", PROBE_PLUGIN)
USER_PA = _write("user_pa_plugin.py", USER_PA_PLUGIN)
BAD_PLUGIN = _write("bad_plugin.py", "INITIALIZERS = [\n")
os.makedirs(os.path.join(TMP, "broken", "torch"))
_write(os.path.join("broken", "torch", "__init__.py"), "raise ImportError('this torch is broken on purpose')\n")

sys.path.insert(0, TMP)
import tltest_ops  # noqa: E402
import fake_vllm_ops  # noqa: E402

FAKE_NS = {"_C": ["fake_vllm_ops"], "_rocm_C": ["fake_vllm_ops"], "aiter": ["fake_vllm_ops"]}


def tearDownModule():
    SESSION.log.close()
    shutil.rmtree(TMP, ignore_errors=True)


# ---------------------------------------------------------------------------- IR helpers

def T(shape, dtype="float", strides=None, init="normal"):
    if strides is None:
        strides = tensors.contiguous_strides(shape)
    return {"shape": list(shape), "dtype": dtype, "strides": list(strides), "init": init}


def A(name, arg_type, value, **extra):
    d = {"arg_name": name, "arg_type": arg_type, "value": value}
    d.update(extra)
    return d


def E(op, pos=(), kw=(), **extra):
    d = {"op_name": op, "replay_ir": {"list_pos_args": list(pos), "list_kwargs": list(kw)}}
    d.update(extra)
    return d


def REQ(entry, **over):
    r = {"cmd": "replay", "id": 1, "entry": entry, "device": "cpu", "warmup": 1, "iters": 3, "seed": 0}
    r.update(over)
    return r


def probe_of(reply):
    for m in reply.get("init", []):
        if m.startswith("probe:"):
            return json.loads(m[len("probe:"):])
    raise AssertionError("no probe in %r" % (reply,))


SESSION = session.Session(None, log=open(os.devnull, "w"))  # noqa: SIM115 (lives as long as the module)


def replay(entry, **over):
    return SESSION.replay(REQ(entry, **over))


def probed(entry, **over):
    over.setdefault("init_plugins", [PROBE])
    reply = replay(entry, **over)
    return reply, probe_of(reply) if reply.get("status") == "ok" else None


def env_with_tmp(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = TMP + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("TLREPLAY_WORKER_FDS", None)
    env.update(extra)
    return env


# ---------------------------------------------------------------------------- the parent side

class WorkerProcess:
    """Starts the worker as a C parent does: requests on fd 3, replies on fd 4.

    Two pipes by default; with socketpair=True one socket on both fds, as libtlreplay does."""

    def __init__(self, env=None, python=PY, fds="3,4", socketpair=False):
        if socketpair:
            import socket
            parent, child_end = socket.socketpair()
            self._sock = parent
            self.w = self.r = os.dup(parent.fileno())
            req_r = resp_w = os.dup(child_end.fileno())
            child_end.close()
        else:
            self._sock = None
            req_r, self.w = os.pipe()
            self.r, resp_w = os.pipe()
        self.err = tempfile.TemporaryFile()
        self.out = tempfile.TemporaryFile()

        def child():  # after fork, before exec: move the pipe ends to 3 and 4
            a = fcntl.fcntl(req_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(resp_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.close(a)
            os.close(b)

        env = dict(env or env_with_tmp())
        env["TLREPLAY_WORKER_FDS"] = fds
        self.proc = subprocess.Popen([python, WORKER, "--worker"], stdin=subprocess.DEVNULL, stdout=self.out,
                                     stderr=self.err, env=env, close_fds=False, preexec_fn=child)
        os.close(req_r)
        if resp_w != req_r:
            os.close(resp_w)
        self.buf = b""

    def send(self, obj):
        data = obj if isinstance(obj, bytes) else (json.dumps(obj) + "\n").encode()
        os.write(self.w, data)

    def recv(self, timeout=120):
        while b"\n" not in self.buf:
            ready, _, _ = select.select([self.r], [], [], timeout)
            if not ready:
                raise AssertionError("no reply within %ds; stderr:\n%s" % (timeout, self.stderr()))
            chunk = os.read(self.r, 65536)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        obj = json.loads(line.decode())
        assert isinstance(obj, dict), line
        return obj

    def call(self, obj, timeout=120):
        self.send(obj)
        return self.recv(timeout)

    def stderr(self):
        self.err.seek(0)
        return self.err.read().decode(errors="replace")

    def stdout(self):
        self.out.seek(0)
        return self.out.read().decode(errors="replace")

    def close(self):
        if self._sock is not None:  # one socket: shut our side down to send EOF
            import socket
            try:
                with socket.socket(fileno=os.dup(self.w)) as s:
                    s.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        try:
            os.close(self.w)
        except OSError:
            pass
        if self._sock is not None:
            self._sock.close()
        try:
            rc = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        if self.r != self.w:
            try:
                os.close(self.r)
            except OSError:
                pass
        self.err.close()
        self.out.close()
        return rc


# ---------------------------------------------------------------------------- dtypes and tensors

def doc_dtype_strings():
    with open(os.path.join(ROOT, "docs", "ir.md")) as f:
        text = f.read()
    section = text.split("## dtype strings", 1)[1]
    names = []
    for line in section.splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            names += re.findall(r"`([^`]+)`", first)
    return names


class TestDtypes(unittest.TestCase):
    EXPECTED = {"float": torch.float32, "double": torch.float64, "c10::Half": torch.float16,
                "c10::BFloat16": torch.bfloat16, "long int": torch.int64, "long": torch.int64,
                "int": torch.int32, "short int": torch.int16, "short": torch.int16, "signed char": torch.int8,
                "char": torch.int8, "unsigned char": torch.uint8, "bool": torch.bool,
                "c10::complex<float>": torch.complex64, "c10::complex<double>": torch.complex128,
                "c10::complex<c10::Half>": torch.complex32}

    def test_every_documented_string_is_mapped(self):
        names = doc_dtype_strings()
        self.assertGreaterEqual(len(names), 20, names)
        for name in names:
            try:
                dt = tensors.resolve_dtype(name)
            except errors.Unavailable as exc:  # float8 / uint32 on an old torch
                self.assertIn("not in torch", str(exc))
                self.assertFalse(hasattr(torch, tensors.DTYPE_NAMES[name]), name)
                continue
            self.assertIsInstance(dt, torch.dtype, name)
            if name in self.EXPECTED:
                self.assertEqual(dt, self.EXPECTED[name], name)
            else:
                self.assertEqual(dt, getattr(torch, tensors.DTYPE_NAMES[name]), name)

    def test_missing_dtypes_name_the_torch_release(self):
        if hasattr(torch, "uint32"):
            self.skipTest("this torch has uint32")
        with self.assertRaises(errors.Unavailable) as cm:
            tensors.resolve_dtype("unsigned int")
        self.assertIn("needs torch >= 2.3", str(cm.exception))
        reply = replay(E("aten::clone", [A("self", "Tensor", T([2], "unsigned int"))]))
        self.assertEqual(reply["status"], "unavailable")
        self.assertIn("unsigned int", reply["error"])

    def test_every_supported_dtype_builds_and_replays(self):
        for name in doc_dtype_strings():
            try:
                dt = tensors.resolve_dtype(name)
            except errors.Unavailable:
                continue
            for init in ("normal", "zeros", None):
                with self.subTest(dtype=name, init=init):
                    reply, p = probed(E("aten::clone", [A("self", "Tensor", T([3, 4], name, init=init))]))
                    self.assertEqual(reply["status"], "ok", reply)
                    self.assertEqual(p["args"][0]["dtype"], tensors.dtype_name(dt))
                    self.assertEqual(reply["result"], "Tensor[3, 4] %s" % tensors.dtype_name(dt))
                    a = p["args"][0]
                    if dt.is_complex:
                        continue
                    if init == "zeros" or (init is None and not dt.is_floating_point) or (
                            init == "normal" and not dt.is_floating_point):
                        if dt.is_floating_point:
                            self.assertEqual(a["nonzero"], 0)
                        else:
                            self.assertEqual((a["min"], a["max"]), (0, 0))
                    if init == "normal" and dt.is_floating_point:
                        self.assertGreater(a["nonzero"], 6)

    def test_torch_names_are_accepted_too(self):
        self.assertEqual(tensors.resolve_dtype("torch.bfloat16"), torch.bfloat16)
        self.assertEqual(tensors.resolve_dtype("float32"), torch.float32)

    def test_unknown_dtype_is_an_args_failure(self):
        reply = replay(E("aten::clone", [A("self", "Tensor", T([2], "quaternion"))]))
        self.assertEqual((reply["status"], reply["kind"]), ("failed", "args"))
        self.assertIn("quaternion", reply["error"])

    def test_scalar_type_codes_match_torch(self):
        x = torch.ones(1)
        checked = 0
        for code, attr in enumerate(tensors.SCALAR_TYPES):
            if not hasattr(torch, attr) or attr.startswith(("q", "bits")):
                continue
            try:
                want = torch.ops.aten.to.dtype(x, code).dtype  # torch converts the raw code itself
            except Exception:
                continue
            self.assertEqual(tensors.scalar_type_from_code(code), want, (code, attr))
            checked += 1
        self.assertGreaterEqual(checked, 12)
        with self.assertRaises(errors.ArgsError):
            tensors.scalar_type_from_code(999)

    def test_scalar_type_argument(self):
        for code, want in ((4, "int64"), (15, "bfloat16"), (6, "float32"), (11, "bool")):
            with self.subTest(code=code):
                reply = replay(E("aten::to", [A("self", "Tensor", T([2, 2])), A("dtype", "ScalarType", code),
                                              A("non_blocking", "bool", False), A("copy", "bool", False)],
                                 [A("memory_format", "MemoryFormat?", None)], overload="dtype"))
                self.assertEqual(reply["status"], "ok", reply)
                self.assertEqual(reply["result"], "Tensor[2, 2] %s" % want)
        reply = replay(E("aten::to", [A("self", "Tensor", T([2])), A("dtype", "ScalarType", "c10::Half"),
                                      A("non_blocking", "bool", False), A("copy", "bool", False)], overload="dtype"))
        self.assertEqual(reply["result"], "Tensor[2] float16")

    def test_layout_device_memory_format_codes(self):
        entry = E("aten::empty", [A("size", "SymInt[]", [3, 5])],
                  [A("dtype", "ScalarType?", 6), A("layout", "Layout?", 0), A("device", "Device?", "cuda:0"),
                   A("pin_memory", "bool?", None), A("memory_format", "MemoryFormat?", 0)],
                  overload="memory_format")
        reply = replay(entry)
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual(reply["result"], "Tensor[3, 5] float32")
        self.assertIn("device=cpu", reply["args"])
        self.assertIn("layout=strided", reply["args"])
        self.assertIn("memory_format=contiguous_format", reply["args"])


class TestTensors(unittest.TestCase):
    def test_exact_strides(self):
        reply, p = probed(E("aten::mm", [A("self", "Tensor", T([141, 64], strides=[1, 141])),
                                         A("mat2", "Tensor", T([64, 32], strides=[1, 64]))]))
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual(p["args"][0]["stride"], [1, 141])
        self.assertEqual(p["args"][1]["stride"], [1, 64])
        self.assertEqual(reply["result"], "Tensor[141, 32] float32")

    def test_overlapping_and_broadcast_strides(self):
        reply, p = probed(E("aten::clone", [A("self", "Tensor", T([4, 3], strides=[0, 1]))]))
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual(p["args"][0]["stride"], [0, 1])
        self.assertGreater(p["args"][0]["nonzero"], 0)
        reply, p = probed(E("aten::clone", [A("self", "Tensor", T([4, 3], "long int", strides=[0, 1]),
                                              tl_init={"kind": "randint", "low": 5, "high": 6})]))
        self.assertEqual((p["args"][0]["min"], p["args"][0]["max"]), (5, 5))

    def test_zero_dim_and_empty_tensors(self):
        reply, p = probed(E("aten::add", [A("self", "Tensor", T([2, 3])),
                                          A("other", "Tensor", {"shape": [], "dtype": "long int", "strides": [],
                                                                "init": "zeros"})],
                            [A("alpha", "Scalar", 1)], overload="Tensor"))
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual(p["args"][1]["shape"], [])
        self.assertEqual(reply["args"][1], "Tensor[] int64")
        reply = replay(E("aten::clone", [A("self", "Tensor", T([0, 7]))]))
        self.assertEqual(reply["result"], "Tensor[0, 7] float32")

    def test_missing_strides_mean_contiguous(self):
        reply, p = probed(E("aten::clone", [A("self", "Tensor", {"shape": [2, 3, 4], "dtype": "float",
                                                                 "init": "normal"})]))
        self.assertEqual(p["args"][0]["stride"], [12, 4, 1])

    def test_bad_shapes_are_args_failures(self):
        for value in ({"shape": [2, 3], "dtype": "float", "strides": [1], "init": None},
                      {"shape": [2, -3], "dtype": "float", "strides": [3, 1], "init": None},
                      {"shape": [2, 3], "dtype": "float", "strides": [3, -1], "init": None},
                      {"shape": "2x3", "dtype": "float", "strides": [3, 1], "init": None}):
            with self.subTest(value=value):
                reply = replay(E("aten::clone", [A("self", "Tensor", value)]))
                self.assertEqual((reply["status"], reply["kind"]), ("failed", "args"), reply)
                self.assertNotIn("\n", reply["error"])

    def test_init_kinds(self):
        cases = [
            (T([50], init="normal"), None, lambda a: a["nonzero"] == 50),
            (T([50], init="zeros"), None, lambda a: a["nonzero"] == 0),
            (T([50], "long int", init="normal"), None, lambda a: (a["min"], a["max"]) == (0, 0)),
            (T([50], "int", init=None), None, lambda a: (a["min"], a["max"]) == (0, 0)),
            (T([50], "bool", init="zeros"), None, lambda a: a["max"] == 0),
            (T([1000], "long int", init="normal"), {"kind": "randint", "low": 3, "high": 7},
             lambda a: (a["min"], a["max"]) == (3, 6)),
            (T([1000], "unsigned char", init="zeros"), {"kind": "randint", "low": 0, "high": 100000},
             lambda a: a["min"] >= 0 and a["max"] == 255),
            (T([200], "bool", init="zeros"), {"kind": "randint", "low": 0, "high": 2},
             lambda a: (a["min"], a["max"]) == (0, 1)),
            (T([2, 5], "int", strides=[1, 2], init="zeros"), {"kind": "arange"},
             lambda a: a["values"] == list(range(10))),
            (T([50], init="normal"), {"kind": "zeros"}, lambda a: a["nonzero"] == 0),
            (T([50], "long int", init="zeros"), {"kind": "randint", "low": 5, "high": 5},
             lambda a: (a["min"], a["max"]) == (0, 0)),
        ]
        for value, tl_init, check in cases:
            with self.subTest(value=value, tl_init=tl_init):
                extra = {"tl_init": tl_init} if tl_init else {}
                reply, p = probed(E("aten::clone", [A("self", "Tensor", value, **extra)]))
                self.assertEqual(reply["status"], "ok", reply)
                self.assertTrue(check(p["args"][0]), p["args"][0])
        reply, _ = probed(E("aten::clone", [A("self", "Tensor", T([5], "long int"),
                                              tl_init={"kind": "randint", "low": 5, "high": 5})]))
        self.assertTrue(any("empty tl_init randint" in w for w in reply["warnings"]), reply)

    def test_cpu_scalar_full(self):
        # a 0-d tensor the op wrapped from a Python number (ir: the kernel's BUnaryFunctor):
        # built on the CPU whatever the replay's device, filled with its value
        warns = []
        spec = tensors.TensorSpec({"shape": [], "dtype": "long int", "strides": [], "init": "zeros"},
                                  {"kind": "full", "value": 7, "device": "cpu"}, "other")
        t = tensors.build_tensor(spec, torch.device("meta"), warns.append)
        self.assertEqual((t.device.type, int(t), warns), ("cpu", 7, []))
        t = tensors.build_tensor(tensors.TensorSpec(T([3]), None, "self"), torch.device("meta"), warns.append)
        self.assertEqual(t.device.type, "meta")
        reply, p = probed(E("aten::add", [A("self", "Tensor", T([2, 3])),
                                          A("other", "Tensor", {"shape": [], "dtype": "float", "strides": [],
                                                                "init": "zeros"},
                                            tl_init={"kind": "full", "value": 2.5, "device": "cpu"})],
                            [A("alpha", "Scalar", 1)], overload="Tensor"))
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual((p["args"][1]["device"], p["args"][1]["first"]), ("cpu", [2.5]))
        reply, _ = probed(E("aten::clone", [A("self", "Tensor", T([4]), tl_init={"kind": "full", "value": "x"})]))
        self.assertTrue(any("tl_init full needs a number" in w for w in reply["warnings"]), reply)
        reply = replay(E("aten::clone", [A("self", "Tensor", T([4]), tl_init={"kind": "full", "value": 1,
                                                                             "device": "cuda:1"})]))
        self.assertEqual((reply["status"], reply["kind"]), ("failed", "args"), reply)
        self.assertIn("tl_init device", reply["error"])

    def test_unknown_init_warns(self):
        reply, p = probed(E("aten::clone", [A("self", "Tensor", T([8], init="ones"))]))
        self.assertEqual(reply["status"], "ok")
        self.assertTrue(any("unknown init" in w for w in reply["warnings"]), reply)

    def test_uninitialised_float_is_left_alone(self):
        spec = tensors.TensorSpec(T([4], init=None), None, "x")
        self.assertEqual(spec.fill_kind(), ("none", None))

    def test_seeding_is_deterministic(self):
        entry = E("aten::clone", [A("self", "Tensor", T([64]))])
        _, p1 = probed(entry, seed=7)
        _, p2 = probed(entry, seed=7)
        _, p3 = probed(entry, seed=8)
        self.assertEqual(p1["args"][0]["sum"], p2["args"][0]["sum"])
        self.assertEqual(p1["rng"], p2["rng"])
        self.assertNotEqual(p1["args"][0]["sum"], p3["args"][0]["sum"])
        self.assertNotEqual(p1["rng"], p3["rng"])

    def test_tensor_list_cat(self):
        reply, p = probed(E("aten::cat", [A("tensors", "Tensor[]", [T([2, 3]), T([4, 3], strides=[1, 4])]),
                                          A("dim", "int", 0)]))
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual(reply["result"], "Tensor[6, 3] float32")
        self.assertEqual([t["stride"] for t in p["args"][0]], [[3, 1], [1, 4]])
        self.assertEqual(reply["args"][0], "[Tensor[2, 3] float32, Tensor[4, 3] float32]")

    def test_optional_tensor_list_index(self):
        reply, p = probed(E("aten::index", [A("self", "Tensor", T([4, 6])),
                                            A("indices", "Tensor?[]", [None, T([5], "long int")],
                                              tl_init={"kind": "randint", "low": 0, "high": 6})],
                            overload="Tensor"))
        self.assertEqual(reply["status"], "ok", reply)
        self.assertIsNone(p["args"][1][0])
        self.assertLess(p["args"][1][1]["max"], 6)
        self.assertEqual(reply["result"], "Tensor[4, 5] float32")

    def test_embedding_indices_in_range(self):
        entry = E("aten::embedding", [A("weight", "Tensor", T([50, 8])),
                                      A("indices", "Tensor", T([4, 16], "long int", init="zeros"),
                                        tl_init={"kind": "randint", "low": 0, "high": 50}),
                                      A("padding_idx", "SymInt", -1), A("scale_grad_by_freq", "bool", False),
                                      A("sparse", "bool", False)])
        reply, p = probed(entry)
        self.assertEqual(reply["status"], "ok", reply)
        idx = p["args"][1]
        self.assertEqual(idx["dtype"], "int64")
        self.assertGreaterEqual(idx["min"], 0)
        self.assertLess(idx["max"], 50)
        self.assertGreater(idx["max"], 0)
        self.assertEqual(reply["result"], "Tensor[4, 16, 8] float32")


# ---------------------------------------------------------------------------- replay semantics

class TestReplay(unittest.TestCase):
    def test_addmm_with_overload(self):
        entry = E("aten::addmm", [A("self", "Tensor", T([32], "c10::BFloat16")),
                                  A("mat1", "Tensor", T([16, 32], "c10::BFloat16")),
                                  A("mat2", "Tensor", T([32, 32], "c10::BFloat16", strides=[1, 32]))],
                  [A("beta", "Scalar", 1), A("alpha", "Scalar", 1)], overload="", uid=48)
        reply = replay(entry, iters=5)
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual(reply["op"], "aten::addmm.default")
        self.assertEqual(reply["id"], 1)
        self.assertEqual(len(reply["times_us"]), 5)
        self.assertEqual(reply["iters"], 5)
        self.assertTrue(all(t > 0 for t in reply["times_us"]))
        self.assertEqual(reply["result"], "Tensor[16, 32] bfloat16")
        self.assertEqual(reply["args"], ["Tensor[32] bfloat16", "Tensor[16, 32] bfloat16",
                                         "Tensor[32, 32] bfloat16", "beta=1", "alpha=1"])
        self.assertEqual(reply["device"], "cpu")
        self.assertEqual(reply["kernels"], [])

    def test_packet_when_no_overload_key(self):
        reply = replay(E("aten::relu", [A("self", "Tensor", T([8]))]))
        self.assertEqual(reply["op"], "aten::relu")
        reply = replay(E("aten::add.Tensor", [A("self", "Tensor", T([2])), A("other", "Tensor", T([2]))]))
        self.assertEqual((reply["status"], reply["op"]), ("ok", "aten::add.Tensor"))

    def test_missing_overload_falls_back_to_the_packet(self):
        reply = replay(E("aten::relu", [A("self", "Tensor", T([8]))], overload="no_such_overload"))
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual(reply["op"], "aten::relu")
        self.assertTrue(any("no_such_overload" in w for w in reply["warnings"]))

    def test_result_descriptions(self):
        self.assertEqual(fmt.describe(None), "None")
        self.assertEqual(fmt.describe(3), "3")
        self.assertEqual(fmt.describe((torch.ones(2), torch.zeros((), dtype=torch.long))),
                         "(Tensor[2] float32, Tensor[] int64)")
        reply = replay(E("tltest::pair", [A("x", "Tensor", T([3, 2]))]))
        self.assertEqual(reply["result"], "(Tensor[3, 2] float32, Tensor[] float32)")
        reply = replay(E("aten::_local_scalar_dense", [A("self", "Tensor", T([], "long int", init="zeros"))]))
        self.assertEqual(reply["result"], "0")

    def test_in_place_with_null_init(self):
        reply = replay(E("aten::add_", [A("self", "Tensor(a!)", T([16, 16], init=None)),
                                        A("other", "Tensor", T([16, 16]))], [A("alpha", "Scalar", 1)],
                         overload="Tensor"))
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual(reply["result"], "Tensor[16, 16] float32")

    def test_out_variant_with_null_init(self):
        reply, p = probed(E("aten::add", [A("self", "Tensor", T([8])), A("other", "Tensor", T([8]))],
                            [A("alpha", "Scalar", 2), A("out", "Tensor(a!)", T([8], init=None))], overload="out"))
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual(reply["op"], "aten::add.out")
        self.assertIn("out", p["kwargs"])
        self.assertIn("out=Tensor[8] float32", reply["args"])

    def test_missing_op_is_unavailable(self):
        reply = replay(E("aten::definitely_not_an_op", [A("self", "Tensor", T([2]))]))
        self.assertEqual(reply["status"], "unavailable")
        self.assertIn("aten::definitely_not_an_op is not in torch %s" % torch.__version__, reply["error"])
        self.assertNotIn("kind", reply)
        reply = replay(E("nosuchns::thing"))
        self.assertEqual(reply["status"], "unavailable")
        reply = replay(E("vllm::rms_norm"))
        self.assertEqual(reply["status"], "unavailable")
        self.assertIn("import vllm._C", reply["error"])
        reply = replay(E("no_namespace"))
        self.assertEqual(reply["status"], "unavailable")

    def test_bad_argument_fails_with_one_line(self):
        reply = replay(E("aten::mm", [A("self", "Tensor", T([4, 5])), A("mat2", "Tensor", T([4, 5]))]))
        self.assertEqual((reply["status"], reply["kind"]), ("failed", "error"))
        self.assertEqual(reply["error"], "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x5 and 4x5)")
        reply = replay(E("tltest::multiline", [A("x", "Tensor", T([1]))]))
        self.assertEqual(reply["error"], "RuntimeError: first line of the error")
        reply = replay(E("aten::relu", [A("self", "Tensor", "not a tensor")]))
        self.assertEqual(reply["status"], "failed")
        self.assertNotIn("\n", reply["error"])

    def test_sys_exit_in_an_op_is_a_failure(self):
        reply = replay(E("tltest::bye", [A("x", "Tensor", T([1]))]))
        self.assertEqual((reply["status"], reply["kind"]), ("failed", "error"))
        self.assertIn("SystemExit", reply["error"])

    def test_bad_requests(self):
        for req, word in (({"cmd": "replay", "id": 3}, "entry"),
                          (REQ(E("aten::relu"), iters=-1), "iters"),
                          (REQ(E("aten::relu"), warmup="x"), "warmup"),
                          (REQ({"replay_ir": {}}), "op_name"),
                          (REQ(E("aten::relu"), device="tpu"), "device"),
                          (REQ({"op_name": "aten::relu"}), "replay_ir")):
            with self.subTest(req=req):
                reply = SESSION.replay(req)
                self.assertEqual((reply["status"], reply["kind"]), ("failed", "args"), reply)
                self.assertIn(word, reply["error"])

    def test_cuda_without_cuda_is_unavailable(self):
        if torch.cuda.is_available():
            self.skipTest("this machine has CUDA")
        for dev in ("cuda", "cuda:1"):
            reply = replay(E("aten::relu", [A("self", "Tensor", T([8]))]), device=dev)
            self.assertEqual(reply["status"], "unavailable", reply)
            self.assertIn("no CUDA", reply["error"])

    def test_cuda_options_on_cpu_are_ignored_with_a_warning(self):
        reply = replay(E("aten::relu", [A("self", "Tensor", T([8]))]), flush_l2=True, cuda_graph=True,
                       record_kernels=True)
        self.assertEqual(reply["status"], "ok")
        self.assertEqual(reply["kernels"], [])
        self.assertTrue(any("flush_l2" in w for w in reply["warnings"]))
        self.assertTrue(any("cuda_graph" in w for w in reply["warnings"]))

    def test_warmup_and_iters_call_counts(self):
        tltest_ops.CALLS["count"] = 0
        reply = replay(E("tltest::count", [A("x", "Tensor", T([1]))]), warmup=4, iters=7)
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual(tltest_ops.CALLS["count"], 1 + 4 + 7)
        tltest_ops.CALLS["count"] = 0
        reply = replay(E("tltest::count", [A("x", "Tensor", T([1]))]), warmup=0, iters=0)
        self.assertEqual((reply["times_us"], reply["iters"]), ([], 0))
        self.assertEqual(tltest_ops.CALLS["count"], 1)

    def test_min_time(self):
        t0 = time.time()
        reply = replay(E("aten::relu", [A("self", "Tensor", T([8]))]), iters=3, min_time_s=0.2)
        self.assertGreater(len(reply["times_us"]), 3)
        self.assertGreaterEqual(time.time() - t0, 0.2)

    def test_profile_typed_keyword_only_arguments(self):
        # a schemaless entry (typed from the profile) records keyword-only inputs in order:
        # the worker passes the ones past the live schema's positional arguments by keyword
        pos = [A("arg0", "Tensor", T([3])), A("arg1", "int", 2), A("arg2", "float", 0.5)]
        reply = replay(E("tltest::kwonly", pos, schemaless=True))
        self.assertEqual(reply["status"], "ok", reply)
        self.assertTrue(any("passed as keyword: scale" in w for w in reply["warnings"]), reply)
        self.assertIn("scale=0.5", reply["args"], reply)
        # with a schema the entry is bound already: nothing moves, torch says what is wrong
        schema = "tltest::kwonly(Tensor x, int n, *, float? scale=None) -> Tensor"
        reply = replay(E("tltest::kwonly", pos, schema=schema))
        self.assertEqual(reply["status"], "failed", reply)
        # more than the schema holds: left to torch's error
        reply = replay(E("tltest::kwonly", pos + [A("arg3", "int", 1)], schemaless=True))
        self.assertEqual(reply["status"], "failed", reply)
        self.assertIn("tltest::kwonly()", reply["error"])

    def test_str_defaults(self):
        x = [A("x", "Tensor", T([2]))]
        reply = replay(E("tltest::kvarg", x + [A("kv_cache_dtype", "str", None)]))
        self.assertEqual(reply["status"], "ok", reply)  # known default "auto"
        reply = replay(E("tltest::strmode", x + [A("mode", "str", "")]))
        self.assertEqual(reply["status"], "ok", reply)  # the live schema's default
        reply = replay(E("tltest::strreq", x + [A("mode", "str", None)],
                         schema='tltest::strreq(Tensor x, str mode="exact") -> Tensor'))
        self.assertEqual(reply["status"], "ok", reply)  # the entry's schema
        reply = replay(E("tltest::strreq", x + [A("mode", "str", None)]))
        self.assertEqual(reply["status"], "failed")
        self.assertTrue(any("no default known" in w for w in reply.get("warnings", [])), reply)
        reply = replay(E("aten::gelu", [A("self", "Tensor", T([4]))], [A("approximate", "str", None)]))
        self.assertEqual(reply["status"], "ok", reply)

    def test_aliases(self):
        entry = E("tltest::old_name", [A("x", "Tensor", T([2, 3]))])
        self.assertEqual(replay(entry)["status"], "unavailable")
        reply = replay(entry, aliases={"tltest::old_name": ["tltest::nope", "tltest::myop"]})
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual(reply["op"], "tltest::myop")
        self.assertTrue(any("alias tltest::myop" in w for w in reply["warnings"]))

    def test_memory_guard_refuses_before_allocating(self):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        reply = replay(E("aten::clone", [A("self", "Tensor", T([1 << 40]))]))
        self.assertEqual((reply["status"], reply["kind"]), ("failed", "memory"), reply)
        self.assertIn("4.0 TiB", reply["error"])
        self.assertIn("MemAvailable", reply["error"])
        reply = replay(E("aten::cat", [A("tensors", "Tensor[]", [T([1 << 31])] * 512), A("dim", "int", 0)]))
        self.assertEqual((reply["status"], reply["kind"]), ("failed", "memory"), reply)
        self.assertIn("512 tensors", reply["error"])
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        self.assertLess(after - before, 200 * 1024)  # KiB: nothing was allocated
        # the guard counts storage, not elements: a broadcast view of a huge shape is cheap
        reply = replay(E("aten::clone", [A("self", "Tensor", T([1 << 40, 4], strides=[0, 1]))]), iters=0)
        self.assertNotEqual(reply.get("kind"), "memory")

    def test_storage_size(self):
        self.assertEqual(tensors.storage_elements([2, 3], [3, 1]), 6)
        self.assertEqual(tensors.storage_elements([2, 3], [1, 2]), 6)
        self.assertEqual(tensors.storage_elements([4, 3], [0, 1]), 3)
        self.assertEqual(tensors.storage_elements([2, 3], [10, 1]), 13)
        self.assertEqual(tensors.storage_elements([], []), 1)
        self.assertEqual(tensors.storage_elements([0, 5], [5, 1]), 0)

    def test_namespace_module_given_as_a_file(self):
        path = _write("fileops.py", textwrap.dedent('''
            import torch
            lib = torch.library.Library("tlfile", "DEF")
            lib.define("twice(Tensor x) -> Tensor")
            lib.impl("twice", lambda x: x * 2, "CPU")
        '''))
        entry = E("tlfile::twice", [A("x", "Tensor", T([3]))])
        reply = replay(entry, namespaces={"tlfile": [path]})
        self.assertEqual(reply["status"], "ok", reply)


# ---------------------------------------------------------------------------- initializers

class TestPlugins(unittest.TestCase):
    def test_context_fields(self):
        entry = E("tltest::myop", [A("x", "Tensor", T([2, 3])), A("n", "int", 2)], uid=99)
        reply, p = probed(entry, init_kwargs={"k": 1})
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual(p["op"], "tltest::myop")
        self.assertEqual(p["arg_names"], ["x", "n"])
        self.assertEqual(p["args"][1], 2)
        self.assertEqual((p["device"], p["options"], p["uid"]), ("cpu", {"k": 1}, 99))

    def test_user_plugin_beats_builtin(self):
        reply = replay(pa_v1_entry(), init_plugins=[USER_PA], namespaces=FAKE_NS)
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual(reply["init"], ["user-pa: 14 args"])
        # first match wins among user plugins too: the probe comes first here
        reply = replay(pa_v1_entry(), init_plugins=[PROBE, USER_PA], namespaces=FAKE_NS)
        self.assertEqual(reply["status"], "failed")  # the probe does not set seq_lens
        reply = replay(pa_v1_entry(), namespaces=FAKE_NS)
        self.assertTrue(reply["init"][0].startswith("paged_attention: "), reply)

    def test_plugin_returning_none_and_raising(self):
        reply = replay(E("tltest::myop", [A("x", "Tensor", T([2]))]), init_plugins=[USER_PA])
        self.assertEqual(reply["init"], ["quiet: applied"])
        reply = replay(E("tltest::count", [A("x", "Tensor", T([2]))]), init_plugins=[USER_PA])
        self.assertEqual(reply["status"], "ok")
        self.assertEqual(reply["init"], ["Broken: failed: ValueError: plugin bug"])
        self.assertTrue(any("plugin bug" in w for w in reply["warnings"]))

    def test_broken_plugin_files(self):
        for path, word in ((BAD_PLUGIN, "SyntaxError"), (os.path.join(TMP, "missing.py"), "missing.py"),
                           (_write("empty_plugin.py", "X = 1\n"), "INITIALIZERS")):
            reply = replay(E("aten::relu", [A("self", "Tensor", T([2]))]), init_plugins=[path])
            self.assertEqual((reply["status"], reply["kind"]), ("failed", "args"), reply)
            self.assertIn(word, reply["error"])


def pa_cache_args(num_blocks=64, block_size=16, heads=2, head_size=8):
    x = 4
    return [A("key_cache", "Tensor", T([num_blocks, heads, head_size // x, block_size, x], "c10::Half")),
            A("value_cache", "Tensor", T([num_blocks, heads, head_size, block_size], "c10::Half"))]


def pa_v1_entry(num_seqs=4, width=8, max_seq_len=100, num_blocks=64, block_size=16, names=True):
    args = ([A("out", "Tensor(a!)", T([num_seqs, 4, 8], "c10::Half", init=None)),
             A("query", "Tensor", T([num_seqs, 4, 8], "c10::Half"))]
            + pa_cache_args(num_blocks, block_size)
            + [A("num_kv_heads", "int", 2), A("scale", "float", 0.125),
               A("block_tables", "Tensor", T([num_seqs, width], "int", init="zeros")),
               A("seq_lens", "Tensor", T([num_seqs], "int", init="zeros")),
               A("block_size", "int", block_size), A("max_seq_len", "int", max_seq_len),
               A("alibi_slopes", "Tensor?", None), A("kv_cache_dtype", "str", None),
               A("k_scale", "Tensor", T([], "float")), A("v_scale", "Tensor", T([], "float"))])
    if not names:
        for i, a in enumerate(args):
            a["arg_name"] = "arg%d" % i
    return E("_C::paged_attention_v1", args)


def pa_rocm_entry(num_seqs=5, tokens=13, width=8, max_seq_len=128, num_blocks=64, block_size=16,
                  batch_context=None, names=True, block_tables_dims=2):
    bt_shape = [num_seqs, width] if block_tables_dims == 2 else [num_seqs * width]
    args = ([A("out", "Tensor(a!)", T([tokens, 4, 8], "c10::Half", init=None)),
             A("exp_sums", "Tensor", T([tokens, 4, 2])), A("max_logits", "Tensor", T([tokens, 4, 2])),
             A("tmp_out", "Tensor", T([tokens, 4, 2, 8], "c10::Half")),
             A("query", "Tensor", T([tokens, 4, 8], "c10::Half"))]
            + pa_cache_args(num_blocks, block_size)
            + [A("num_kv_heads", "int", 2), A("scale", "float", 0.125),
               A("block_tables", "Tensor", T(bt_shape, "int", init="zeros")),
               A("seq_lens", "Tensor", T([num_seqs], "int", init="zeros")),
               A("query_start_loc", "Tensor?", T([num_seqs + 1], "int", init="zeros")),
               A("block_size", "int", block_size), A("max_seq_len", "int", max_seq_len),
               A("alibi_slopes", "Tensor?", None), A("kv_cache_dtype", "str", None),
               A("k_scale", "Tensor", T([], "float")), A("v_scale", "Tensor", T([], "float")),
               A("fp8_out_scale", "Tensor?", None)])
    if not names:
        for i, a in enumerate(args):
            a["arg_name"] = "arg%d" % i
    e = E("_rocm_C::paged_attention", args)
    if batch_context is not None:
        e["batch_context"] = batch_context
    return e


def moe_entry(op="aiter::ck_moe_stage1", m=512, topk=2, experts=16, block_m=32, model_dim=16, inter=8,
              pad=None, block_arg=True, names=True):
    len_t = m * topk + experts * block_m - topk if pad is None else pad
    len_e = -(-len_t // block_m)
    common = [A("sorted_token_ids", "Tensor", T([len_t], "int", init="zeros")),
              A("sorted_expert_ids", "Tensor", T([len_e], "int", init="zeros")),
              A("num_valid_ids", "Tensor", T([2], "int", init="zeros"))]
    if op == "aiter::fmoe":
        args = ([A("out", "Tensor(a!)", T([m, model_dim], "c10::BFloat16", init=None)),
                 A("input", "Tensor", T([m, model_dim], "c10::BFloat16")),
                 A("gate", "Tensor", T([experts, inter * 2, model_dim], "c10::BFloat16")),
                 A("down", "Tensor", T([experts, model_dim, inter], "c10::BFloat16")),
                 common[0], A("sorted_weights", "Tensor", T([len_t], "float", init="normal")), common[1],
                 common[2], A("topk", "int", topk)])
        kws = []
    else:
        tokens = (A("hidden_states", "Tensor", T([m, model_dim], "c10::BFloat16"))
                  if op.endswith("stage1") else A("inter_states", "Tensor", T([m, topk, inter], "c10::BFloat16")))
        args = ([tokens, A("w1", "Tensor", T([experts, inter * 2, model_dim], "c10::BFloat16")),
                 A("w2", "Tensor", T([experts, model_dim, inter], "c10::BFloat16"))] + common
                + [A("out", "Tensor(a!)", T([m, topk, inter], "c10::BFloat16", init=None)),
                   A("topk", "int", topk), A("kernelName", "str", None), A("w1_scale", "Tensor?", None),
                   A("a1_scale", "Tensor?", None)]
                + ([A("block_m", "int?", block_m)] if block_arg else [])
                + ([A("sorted_weights", "Tensor?", T([len_t], "float"))] if block_arg else []))
        kws = []
    if not names:
        for i, a in enumerate(args):
            a["arg_name"] = "arg%d" % i
    return E(op, args, kws)


def stats_of(tag):
    return fake_vllm_ops.STATS.pop(tag)


class TestPagedAttention(unittest.TestCase):
    def run_ok(self, entry, **over):
        reply = replay(entry, namespaces=FAKE_NS, **over)
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual(len(reply["init"]), 1)
        return reply

    def test_v1_full_contexts_and_distinct_blocks(self):
        reply = self.run_ok(pa_v1_entry(num_seqs=4, width=8, max_seq_len=100, num_blocks=64))
        st = stats_of("v1")
        self.assertEqual(st["seq_lens"], [100] * 4)
        self.assertEqual(st["per_seq"], 7)
        flat = [b for r in st["rows"] for b in r]
        self.assertEqual(len(set(flat)), 28)
        self.assertIn("4 seqs x 100 context, 7 blocks of 16 per seq, distinct of 64 blocks", reply["init"][0])
        self.assertTrue(reply["init"][0].startswith("paged_attention: "))

    def test_random_blocks_depend_on_the_seed(self):
        self.run_ok(pa_v1_entry(), seed=1)
        a = stats_of("v1")["rows"]
        self.run_ok(pa_v1_entry(), seed=1)
        b = stats_of("v1")["rows"]
        self.run_ok(pa_v1_entry(), seed=2)
        c = stats_of("v1")["rows"]
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)

    def test_max_seq_len_clamped_to_the_table(self):
        reply = self.run_ok(pa_v1_entry(width=4, max_seq_len=1000))
        self.assertEqual(stats_of("v1")["max_seq_len"], 64)
        self.assertIn("clamped to 64", reply["init"][0])

    def test_too_few_blocks(self):
        reply = self.run_ok(pa_v1_entry(num_seqs=4, width=8, max_seq_len=64, num_blocks=10))
        st = stats_of("v1")
        for row in st["rows"]:
            self.assertEqual(len(set(row)), len(row))
        self.assertIn("distinct within each sequence only", reply["init"][0])

    def test_v1_positional_fallback(self):
        self.run_ok(pa_v1_entry(names=False))
        self.assertEqual(stats_of("v1")["seq_lens"], [100] * 4)

    def test_v2(self):
        args = ([A("out", "Tensor(a!)", T([3, 4, 8], "c10::Half", init=None)),
                 A("exp_sums", "Tensor(b!)", T([3, 4, 2], init=None)),
                 A("max_logits", "Tensor(c!)", T([3, 4, 2], init=None)),
                 A("tmp_out", "Tensor(d!)", T([3, 4, 2, 8], "c10::Half", init=None)),
                 A("query", "Tensor", T([3, 4, 8], "c10::Half"))] + pa_cache_args(32)
                + [A("num_kv_heads", "int", 2), A("scale", "float", 0.1),
                   A("block_tables", "Tensor", T([3, 4], "int", init="zeros")),
                   A("seq_lens", "Tensor", T([3], "int", init="zeros")), A("block_size", "int", 16),
                   A("max_seq_len", "int", 50), A("alibi_slopes", "Tensor?", None),
                   A("kv_cache_dtype", "str", None), A("k_scale", "Tensor", T([], "float")),
                   A("v_scale", "Tensor", T([], "float"))])
        self.run_ok(E("_C::paged_attention_v2", args))
        st = stats_of("v2")
        self.assertEqual(st["seq_lens"], [50] * 3)
        self.assertEqual(st["per_seq"], 4)

    def test_rocm_query_start_loc_from_batch_context(self):
        bc = {"n_prefill": 2, "prefill_tokens": 11, "n_decode": 3, "decode_tokens": 3}
        reply = self.run_ok(pa_rocm_entry(num_seqs=5, tokens=14, batch_context=bc))
        self.assertEqual(stats_of("rocm")["query_start_loc"], [0, 6, 11, 12, 13, 14])
        self.assertIn("from batch_context (2 prefill with 11 tokens, 3 decode with 3)", reply["init"][0])
        self.run_ok(pa_rocm_entry(num_seqs=5, tokens=14, batch_context=bc), init_kwargs={"pa_decode_first": True})
        self.assertEqual(stats_of("rocm")["query_start_loc"], [0, 1, 2, 3, 9, 14])

    def test_rocm_query_start_loc_heuristics(self):
        reply = self.run_ok(pa_rocm_entry(num_seqs=5, tokens=5))
        self.assertEqual(stats_of("rocm")["query_start_loc"], [0, 1, 2, 3, 4, 5])
        self.assertIn("decode guess", reply["init"][0])
        reply = self.run_ok(pa_rocm_entry(num_seqs=5, tokens=12))
        self.assertEqual(stats_of("rocm")["query_start_loc"], [0, 3, 6, 8, 10, 12])
        self.assertIn("prefill guess", reply["init"][0])
        bad = {"n_prefill": 9, "prefill_tokens": 9, "n_decode": 0, "decode_tokens": 0}
        reply = self.run_ok(pa_rocm_entry(num_seqs=5, tokens=5, batch_context=bad))
        self.assertIn("batch_context does not match", reply["init"][0])

    def test_rocm_positional_fallback(self):
        bc = {"n_prefill": 1, "prefill_tokens": 9, "n_decode": 4, "decode_tokens": 4}
        self.run_ok(pa_rocm_entry(num_seqs=5, tokens=13, batch_context=bc, names=False))
        st = stats_of("rocm")
        self.assertEqual(st["query_start_loc"], [0, 9, 10, 11, 12, 13])
        self.assertEqual(st["seq_lens"], [128] * 5)

    def test_missing_argument_is_skipped_not_a_crash(self):
        reply = self.run_ok(pa_rocm_entry(block_tables_dims=1))
        self.assertEqual(reply["init"], ["paged_attention: skipped: no 2-d block_tables argument"])
        self.assertEqual(stats_of("rocm"), {"skipped": True})

    def test_direct_skips(self):
        init = initializers.PagedAttentionInit()

        def ctx(args, names):
            return initializers.InitContext("_C::paged_attention_v1", args, {}, names, [""] * len(args), {}, "cpu",
                                 __import__("random").Random(0), {})
        bt = torch.zeros(2, 4, dtype=torch.int32)
        sl = torch.zeros(2, dtype=torch.int32)
        self.assertIn("skipped: no 2-d block_tables", init.initialize(ctx([], [])))
        self.assertIn("skipped: no 1-d seq_lens", init.initialize(ctx([bt], ["block_tables"])))
        self.assertIn("skipped: no key_cache", init.initialize(ctx([bt, sl], ["block_tables", "seq_lens"])))
        kc = torch.zeros(8, 1, 1, 16, 1)
        msg = init.initialize(ctx([bt, sl, kc], ["block_tables", "seq_lens", "key_cache"]))
        self.assertIn("2 seqs x 64 context", msg)  # block size from the cache, length from the table
        self.assertEqual(sl.tolist(), [64, 64])


class TestMoeRouting(unittest.TestCase):
    def run_ok(self, entry, tag, **over):
        reply = replay(entry, namespaces=FAKE_NS, **over)
        self.assertEqual(reply["status"], "ok", reply)
        self.assertTrue(reply["init"][0].startswith("moe_routing: "), reply)
        return reply, stats_of(tag)

    def test_stage1_uniform(self):
        reply, st = self.run_ok(moe_entry(), "stage1")
        counts = st["counts"]
        self.assertEqual(sum(counts), 1024)
        mean = sum(counts) / 16.0
        self.assertLess(max(counts) / mean, 1.6)
        self.assertGreater(min(counts) / mean, 0.5)
        self.assertTrue(st["weights_ok"])
        self.assertEqual(st["valid"], sum(-(-c // 32) * 32 for c in counts))
        self.assertIn("512 tokens x top2 over 16 experts (uniform), block_m 32", reply["init"][0])

    def test_stage1_zipf_is_skewed(self):
        reply, st = self.run_ok(moe_entry(), "stage1",
                                init_kwargs={"moe_distribution": "zipf", "moe_zipf_s": 1.2})
        counts = sorted(st["counts"], reverse=True)
        mean = sum(counts) / 16.0
        self.assertGreater(counts[0] / mean, 2.5)
        self.assertLess(counts[-1], mean / 3)
        self.assertIn("zipf s=1.2", reply["init"][0])
        _, st2 = self.run_ok(moe_entry(), "stage1", init_kwargs={"moe_distribution": "zipf", "moe_zipf_s": 2.5})
        self.assertGreater(max(st2["counts"]), counts[0])  # a larger s concentrates more

    def test_stage2_and_fmoe(self):
        self.run_ok(moe_entry("aiter::ck_moe_stage2", m=100, topk=4, experts=8), "stage2")
        reply, st = self.run_ok(moe_entry("aiter::fmoe", m=64, topk=2, experts=8), "fmoe")
        self.assertIn("block_m 32 (guessed)", reply["init"][0])
        self.assertTrue(st["weights_ok"])

    def test_positional_fallback(self):
        _, st = self.run_ok(moe_entry(names=False, m=40, topk=3, experts=8), "stage1")
        self.assertEqual(sum(st["counts"]), 120)

    def test_bad_distribution_is_skipped(self):
        reply = replay(moe_entry(), namespaces=FAKE_NS, init_kwargs={"moe_distribution": "pareto"})
        self.assertEqual(reply["status"], "failed")  # the stand-in sees zeros
        self.assertEqual(reply["init"], ["moe_routing: skipped: unknown moe_distribution 'pareto' (uniform, zipf)"])
        fake_vllm_ops.STATS.pop("stage1", None)

    def test_layout_details(self):
        ids = torch.tensor([[0, 1], [1, 2], [1, 0]])
        buf, blocks, valid, used, counts, trunc = initializers.MoeRoutingInit.layout_routing(ids, 4, 4, 4 * 6, 6, True)
        self.assertEqual(counts.tolist(), [2, 3, 1, 0])
        self.assertEqual((valid, used, trunc), (12, 3, 0))
        self.assertEqual(blocks.tolist(), [0, 1, 2])
        s = (2 << 24) | 3
        self.assertEqual(buf.tolist(), [0, (1 << 24) | 2, s, s,  # expert 0: (t0, slot 0), (t2, slot 1)
                                        (1 << 24) | 0, 1, 2, s,  # expert 1: (t0, 1), (t1, 0), (t2, 0)
                                        (1 << 24) | 1, s, s, s] + [s] * 12)  # expert 2: (t1, 1)

    def test_plain_ids_and_truncation(self):
        ids = torch.tensor([[0, 1], [1, 2], [1, 0]])
        buf, _, valid, used, _, trunc = initializers.MoeRoutingInit.layout_routing(ids, 4, 4, 8, 2, False)
        self.assertEqual((valid, used, trunc), (8, 2, 3))
        self.assertEqual(buf.tolist(), [0, 2, 3, 3, 0, 1, 2, 3])

    def test_direct_skips(self):
        init = initializers.MoeRoutingInit()

        def ctx(args, names, op="aiter::ck_moe_stage1"):
            return initializers.InitContext(op, args, {}, names, [""] * len(args), {}, "cpu",
                                 __import__("random").Random(0), {})
        self.assertIn("skipped: no hidden_states", init.initialize(ctx([], [])))
        h, w1 = torch.zeros(4, 8), torch.zeros(2, 8, 8)
        self.assertIn("skipped: no 1-d sorted_token_ids", init.initialize(ctx([h, w1], ["hidden_states", "w1"])))
        sti, sei, nvi = torch.zeros(40, dtype=torch.int32), torch.zeros(5, dtype=torch.int32), torch.zeros(
            2, dtype=torch.int32)
        names = ["hidden_states", "w1", "sorted_token_ids", "sorted_expert_ids", "num_valid_ids"]
        self.assertIn("skipped: no topk", init.initialize(ctx([h, w1, sti, sei, nvi], names)))
        msg = init.initialize(ctx([h, w1, sti, sei, nvi, 3], names + ["topk"]))
        self.assertIn("skipped: topk 3 > 2 experts", msg)
        msg = init.initialize(ctx([h, w1, sti, sei, nvi, 2], names + ["topk"]))
        self.assertIn("4 tokens x top2 over 2 experts", msg)
        self.assertEqual(nvi.tolist()[1], 4)


# ---------------------------------------------------------------------------- CUDA glue, with a fake torch.cuda

from fake_torch_cuda import (FakeEvent, FakeGraph, FakeKernelEvent, FakeProfile,  # noqa: E402
                             FakeCuda as _FakeCuda)


def FakeCuda(**kw):
    return _FakeCuda(True, **kw)


class TestCudaGlue(unittest.TestCase):
    """The CUDA code paths, run on the CPU against a fake torch.cuda (no GPU on the test machine)."""

    def setUp(self):
        FakeEvent.log = []
        self.session = session.Session(None, log=open(os.devnull, "w"))
        self.addCleanup(self.session.log.close)

    def test_parse_device(self):
        with FakeCuda():
            self.assertEqual(session.parse_device("cuda"), torch.device("cuda", 0))
            self.assertEqual(session.parse_device("cuda:0"), torch.device("cuda", 0))
            with self.assertRaises(errors.Unavailable) as cm:
                session.parse_device("cuda:1")
            self.assertIn("torch sees 1 CUDA device", str(cm.exception))
            with self.assertRaises(errors.ArgsError):
                session.parse_device("cuda:x")

    def test_device_memory_counts_the_allocator_cache(self):
        with FakeCuda():
            avail, where = arguments.device_memory_available(torch.device("cuda", 0))
        self.assertEqual((avail, where), (1200, "free memory on cuda:0"))

    def test_hello_lists_devices(self):
        with FakeCuda():
            r = self.session.hello({"id": 0})
        self.assertTrue(r["cuda"])
        self.assertEqual(r["devices"], [{"index": 0, "name": "Fake GPU", "total_memory": 80 << 30,
                                         "l2_cache_size": 50 << 20, "multi_processor_count": 132,
                                         "capability": "9.0"}])

    def test_event_timing_in_chunks(self):
        calls = []
        flushes = []

        class Buf:
            def zero_(self):
                flushes.append(len(calls))

        with FakeCuda() as fc:
            times = timing.time_cuda(lambda: calls.append(1), 250, 0.0, Buf(), torch.device("cuda", 0),
                                         lambda m: None)
        self.assertEqual((len(times), len(calls), len(flushes)), (250, 250, 250))
        self.assertEqual(fc.syncs, 3)  # chunks of 100, 100, 50
        self.assertEqual(flushes[:3], [0, 1, 2])  # each flush before its call, outside the events
        with FakeCuda():
            times = timing.time_cuda(lambda: None, 2, 0.05, None, torch.device("cuda", 0), lambda m: None)
        self.assertGreater(len(times), 2)

    def test_graph_timing(self):
        g = FakeGraph()
        with FakeCuda():
            times = timing.time_graph(g, 20, 0.0, torch.device("cuda", 0))
        self.assertEqual((len(times), g.replays), (1, 20))

    def test_capture_warms_up_on_a_side_stream(self):
        calls = []
        with FakeCuda() as fc:
            g, n = timing.capture(lambda: calls.append(1), torch.device("cuda", 0))
        # three warmups, one timed (a few us on the host: the most copies), n captured
        self.assertEqual((n, len(calls)), (timing.GRAPH_MAX_CALLS, 4 + timing.GRAPH_MAX_CALLS))
        self.assertIs(g, fc.graphs[0])

    def test_graph_holds_enough_work(self):
        # one replay holds GRAPH_WORK_US of the op, so the host's launch is not what is timed
        self.assertEqual([timing.graph_calls(us) for us in (2.0, 10.0, 150.0, 500.0, 0, None)],
                         [100 if timing.GRAPH_MAX_CALLS >= 100 else timing.GRAPH_MAX_CALLS, 20, 2, 1, 1, 1])

    def test_kernel_names(self):
        with FakeCuda():
            names, us = timing.record_kernels(lambda: None, torch.device("cuda", 0), lambda m: None)
        self.assertEqual(names, ["void relu_kernel<float>(...)"])
        self.assertEqual(us, 2.25)  # the second call's kernels: the first may load modules lazily

    def test_kernel_time_when_the_calls_differ(self):
        class Uneven(FakeProfile):
            def events(self):
                cuda = torch.autograd.DeviceType.CUDA
                return [FakeKernelEvent("k1", cuda, 3.0), FakeKernelEvent("k2", cuda, 1.0),
                        FakeKernelEvent("k1", cuda, 2.0)]

        class NoTimes(FakeProfile):
            def events(self):
                ev = FakeKernelEvent("k1", torch.autograd.DeviceType.CUDA)
                ev.time_range = None
                return [ev, ev]

        from unittest import mock
        with FakeCuda(), mock.patch.object(torch.profiler, "profile", Uneven):
            names, us = timing.record_kernels(lambda: None, torch.device("cuda", 0), lambda m: None)
        self.assertEqual((names, us), (["k1", "k2"], 3.0))  # the mean of the two calls
        with FakeCuda(), mock.patch.object(torch.profiler, "profile", NoTimes):
            names, us = timing.record_kernels(lambda: None, torch.device("cuda", 0), lambda m: None)
        self.assertEqual((names, us), (["k1"], None))

    def test_flush_buffer_size(self):
        warns = []
        with FakeCuda(l2=1024):
            buf = self.session.l2.buffer(torch.device("cuda", 0), warns.append)
        self.assertEqual(buf.numel(), 2048)
        other = session.Session(None)
        with FakeCuda(l2=None):
            buf = other.l2.buffer(torch.device("cuda", 0), warns.append)
        self.assertEqual(buf.numel(), 256 << 20)
        self.assertTrue(any("L2 size unknown" in w for w in warns))

    def test_full_replay_paths(self):
        entry = E("aten::relu", [A("self", "Tensor", T([64]))])
        with FakeCuda():
            r = self.session.replay(REQ(entry, device="cuda", iters=7))
            self.assertEqual((r["status"], r["device"], len(r["times_us"])), ("ok", "cuda:0", 7), r)
            self.assertEqual(r["kernels"], [])
            self.assertNotIn("kernel_us", r)
            r = self.session.replay(REQ(entry, device="cuda", iters=7, flush_l2=True, record_kernels=True))
            self.assertEqual(r["kernels"], ["void relu_kernel<float>(...)"])
            self.assertEqual(r["kernel_us"], 2.25)
            # the fake's events time the host: a loaded machine makes a call take long enough
            # for fewer calls per graph; with room for any number, the graph holds the most
            work, timing.GRAPH_WORK_US = timing.GRAPH_WORK_US, 1e12
            try:
                r = self.session.replay(REQ(entry, device="cuda:0", iters=30, warmup=2, cuda_graph=True))
            finally:
                timing.GRAPH_WORK_US = work
            n = timing.GRAPH_MAX_CALLS
            self.assertEqual((r["status"], r["iters"], r["sample_calls"], len(r["times_us"])),
                             ("ok", 30 * n, 30 * n, 1), r)
            r = self.session.replay(REQ(entry, device="cuda", iters=5, cuda_graph=True, flush_l2=True))
            self.assertTrue(any("not applied between CUDA graph replays" in w for w in r["warnings"]))
            r = self.session.replay(REQ(entry, device="cuda", iters=0, cuda_graph=True))
            self.assertEqual((r["status"], r["times_us"]), ("ok", []))
            r = self.session.replay(REQ(E("aten::clone", [A("self", "Tensor", T([1000]))]), device="cuda"))
            self.assertEqual((r["status"], r["kind"]), ("failed", "memory"))
            self.assertIn("free memory on cuda:0 is 1.2 KiB", r["error"])

    def test_sticky_cuda_error_is_fatal(self):
        entry = E("aten::mm", [A("self", "Tensor", T([4, 5])), A("mat2", "Tensor", T([4, 5]))])
        with FakeCuda(sync_raises=True):
            r = self.session.replay(REQ(entry, device="cuda"))
        self.assertEqual((r["status"], r.get("fatal")), ("failed", True))
        with FakeCuda():
            r = self.session.replay(REQ(entry, device="cuda"))
        self.assertEqual(r["status"], "failed")
        self.assertNotIn("fatal", r)



# ---------------------------------------------------------------------------- GPU metrics (CUPTI)

BUILD = os.environ.get("TLREPLAY_BUILD") or os.path.join(ROOT, "build")
GPU_LIB = os.path.join(BUILD, "libtlreplay_gpu.so")
FAKE_CUPTI = os.path.join(BUILD, "tests", "libfake_cupti.so")
FAKE_CUDA = os.path.join(BUILD, "tests", "libfake_cuda.so")
GPU_METRICS = ["dram__bytes_read.sum", "not__a_metric.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
               "nvgpu0/gpu__time_duration.sum/", "nvgpu1/dram__bytes_read.sum/"]


def _fakes_usable():
    for path in (GPU_LIB, FAKE_CUPTI, FAKE_CUDA):
        if not os.path.exists(path):
            return "%s is not built (no CUDA headers, or not `make`d)" % path
    if gpulib.sanitizer_runtime(GPU_LIB):
        return "%s is a sanitizer build; python cannot load it" % GPU_LIB
    return None


class TestGpuMetrics(unittest.TestCase):
    """`gpu_metrics` in replay requests: everything that can be checked without a GPU. The CUPTI
    path runs against libtlreplay_gpu.so with a fake libcupti and libcuda (tests/unit/fake_*.c)
    under the fake torch.cuda."""

    def setUp(self):
        self.session = session.Session(None, log=open(os.devnull, "w"))
        self.addCleanup(self.session.log.close)

    def test_cpu_device_is_not_supported_and_the_replay_goes_on(self):
        r = self.session.replay(REQ(E("aten::relu", [A("self", "Tensor", T([64]))]),
                                    gpu_metrics=["dram__bytes_read.sum", "nvgpu/sm__cycles_elapsed.avg/"]))
        self.assertEqual((r["status"], len(r["times_us"])), ("ok", 3), r)
        self.assertEqual(r["gpu_metrics"], [
            {"name": "dram__bytes_read.sum", "status": "not supported", "why": "the replay device is cpu"},
            {"name": "nvgpu/sm__cycles_elapsed.avg/", "status": "not supported",
             "why": "the replay device is cpu"}])
        self.assertNotIn("gpu_backend", r)

    def test_absent_and_empty(self):
        entry = E("aten::relu", [A("self", "Tensor", T([4]))])
        self.assertNotIn("gpu_metrics", self.session.replay(REQ(entry)))
        self.assertEqual(self.session.replay(REQ(entry, gpu_metrics=[]))["gpu_metrics"], [])

    def test_bad_requests_are_args_failures(self):
        entry = E("aten::relu", [A("self", "Tensor", T([4]))])
        for over in ({"gpu_metrics": "dram__bytes_read.sum"}, {"gpu_metrics": [1]}, {"gpu_metrics": [""]},
                     {"gpu_metrics": ["a"], "gpu_metrics_calls": 0}, {"gpu_metrics": ["a"], "gpu_lib": 3}):
            with self.subTest(over=over):
                r = self.session.replay(REQ(entry, **over))
                self.assertEqual((r["status"], r["kind"]), ("failed", "args"), r)

    def test_metric_names(self):
        self.assertEqual(gpu_metrics.parse_gpu_metric("dram__bytes_read.sum"), (None, "dram__bytes_read.sum"))
        self.assertEqual(gpu_metrics.parse_gpu_metric("nvgpu/dram__bytes_read.sum/"), (None, "dram__bytes_read.sum"))
        self.assertEqual(gpu_metrics.parse_gpu_metric("nvgpu0/sm__throughput.avg.pct_of_peak_sustained_elapsed/"),
                         (0, "sm__throughput.avg.pct_of_peak_sustained_elapsed"))
        self.assertEqual(gpu_metrics.parse_gpu_metric("nvgpu12/x.sum"), (12, "x.sum"))
        self.assertTrue(gpu_metrics.gpu_metric_per_call("dram__bytes_read.sum", 0))
        self.assertTrue(gpu_metrics.gpu_metric_per_call("gpu__time_duration.sum", 0))
        self.assertFalse(gpu_metrics.gpu_metric_per_call("dram__bytes_read.sum.per_second", 0))
        self.assertFalse(gpu_metrics.gpu_metric_per_call("sm__throughput.avg.pct_of_peak_sustained_elapsed", 2))
        self.assertFalse(gpu_metrics.gpu_metric_per_call("smsp__ratio.pct", 1))

    def test_written_tensors(self):
        a, b, c, out = torch.zeros(2), torch.zeros(2), torch.zeros(2), torch.zeros(2)
        # the schema of aten::add_.Tensor marks self as written, whatever the IR says
        got = gpu_metrics.written(torch.ops.aten.add_.Tensor, [a, b], {}, ["self", "other"],
                                 [("Tensor", False), ("Tensor", False)], {})
        self.assertEqual([id(t) for t in got], [id(a)])
        # a packet has no schema: the IR's (a!) and init null decide; kwargs and lists too
        got = gpu_metrics.written(torch.ops.aten.add, [a, [b, c]], {"out": out}, ["self", "others"],
                                 [("Tensor", False), ("Tensor[]", True)], {"out": ("Tensor(a!)", False)})
        self.assertEqual([id(t) for t in got], [id(b), id(c), id(out)])

    def test_snapshot_restores_the_whole_storage(self):
        base = torch.arange(12, dtype=torch.float32)
        view = base.as_strided((3, 2), (4, 2), 1)  # a strided view inside base
        one = torch.zeros(1)
        bcast = one.expand(5)  # stride 0
        snap = gpu_metrics.TensorSnapshot([view, bcast, view])
        self.assertEqual(len(snap.pairs), 2)  # the repeated view once
        view.mul_(-1)
        one.add_(3)
        snap.restore()
        self.assertEqual(base.tolist(), [float(i) for i in range(12)])
        self.assertEqual(bcast.tolist(), [0.0] * 5)
        self.assertEqual(snap.nbytes(), (1 + 2 * 4 + 1 * 2) * 4 + 4)

    def test_library_candidates(self):
        self.assertEqual(gpulib.gpu_lib_candidates("/x/libtlreplay_gpu.so"), ["/x/libtlreplay_gpu.so"])
        from unittest import mock
        with mock.patch.dict(os.environ, {"TLREPLAY_GPU_LIB": "/y/lib.so"}):
            self.assertEqual(gpulib.gpu_lib_candidates(None), ["/y/lib.so"])
        with mock.patch.dict(os.environ, {}, clear=False):
            os.environ.pop("TLREPLAY_GPU_LIB", None)
            cands = gpulib.gpu_lib_candidates(None)
        self.assertIn(os.path.join(ROOT, "build", "libtlreplay_gpu.so"), cands)  # the source tree
        self.assertEqual(cands[-1], "libtlreplay_gpu.so")  # the loader's path last
        # installed: $(DATADIR)/tlreplay/replay/tlreplay_worker.py finds $(PREFIX)/lib
        with mock.patch.object(gpulib, "__file__", "/opt/tl/share/tlreplay/replay/tlreplay_replay/gpulib.py"):
            os.environ.pop("TLREPLAY_GPU_LIB", None)
            self.assertIn("/opt/tl/lib/libtlreplay_gpu.so", gpulib.gpu_lib_candidates(None))

    def test_missing_library_is_not_supported(self):
        entry = E("aten::relu", [A("self", "Tensor", T([64]))])
        with FakeCuda():
            r = self.session.replay(REQ(entry, device="cuda", gpu_metrics=GPU_METRICS,
                                        gpu_lib="/nonexistent/libtlreplay_gpu.so"))
        self.assertEqual(r["status"], "ok", r)
        self.assertEqual([m["status"] for m in r["gpu_metrics"]], ["not supported"] * 5)
        self.assertIn("cannot load /nonexistent/libtlreplay_gpu.so: not found", r["gpu_metrics"][0]["why"])
        self.assertEqual(r["gpu_metrics"][4]["why"],
                         "nvgpu1/dram__bytes_read.sum/ asks for GPU 1, the replay runs on cuda:0")

    def test_rocm_is_not_supported(self):
        from unittest import mock
        entry = E("aten::relu", [A("self", "Tensor", T([4]))])
        with FakeCuda(), mock.patch.object(torch.version, "hip", "6.0", create=True):
            r = self.session.replay(REQ(entry, device="cuda", gpu_metrics=["dram__bytes_read.sum"]))
        self.assertIn("need an NVIDIA GPU", r["gpu_metrics"][0]["why"])

    def _fake_env(self, **extra):
        from unittest import mock
        why = _fakes_usable()
        if why:
            self.skipTest(why)
        env = {"TLREPLAY_CUPTI_LIB": FAKE_CUPTI, "TLREPLAY_CUDA_LIB": FAKE_CUDA, "FAKE_CUPTI_PASSES": "3"}
        env.update(extra)
        p = mock.patch.dict(os.environ, env)
        p.start()
        self.addCleanup(p.stop)
        for key in ("TLREPLAY_CUPTI_API", "FAKE_CUPTI_MODE"):
            if key not in extra:
                os.environ.pop(key, None)  # put back by the patch's cleanup

    def test_counting_passes_restore_the_inputs(self):
        self._fake_env()
        entry = E("tltest::bump_", [A("x", "Tensor(a!)", T([8], init="zeros"))])
        del tltest_ops.BUMPS[:]
        with FakeCuda():
            r = self.session.replay(REQ(entry, device="cuda", iters=3, warmup=1, gpu_metrics=GPU_METRICS,
                                        gpu_lib=GPU_LIB))
        self.assertEqual(r["status"], "ok", r)
        m = r["gpu_metrics"]
        self.assertEqual(m[0], {"name": "dram__bytes_read.sum", "status": "ok", "value": 4096.0, "total": 4096.0,
                                "summed": True, "unit": "byte", "passes": 3, "calls": 1})
        self.assertEqual(m[1]["status"], "not supported")
        self.assertIn("not__a_metric.sum is not a metric of FAKE100", m[1]["why"])
        self.assertEqual((m[2]["value"], m[2]["unit"]), (42.5, "%"))
        self.assertEqual((m[3]["name"], m[3]["value"], m[3]["unit"]),
                         ("nvgpu0/gpu__time_duration.sum/", 1234.5, "nsecond"))
        self.assertIn("asks for GPU 1", m[4]["why"])
        self.assertIn("range profiler", r["gpu_backend"])
        # 1 checked call + 1 warmup + 3 timed (x: 0, 8, 16, 24, 32), then 3 passes from the same x
        self.assertEqual(tltest_ops.BUMPS, [0.0, 8.0, 16.0, 24.0, 32.0, 40.0, 40.0, 40.0])
        self.assertTrue(any("restored before each" in w for w in r["warnings"]), r["warnings"])

    def test_calls_per_pass(self):
        self._fake_env(FAKE_CUPTI_PASSES="2")
        entry = E("tltest::bump_", [A("x", "Tensor(a!)", T([2], init="zeros"))])
        del tltest_ops.BUMPS[:]
        with FakeCuda():
            r = self.session.replay(REQ(entry, device="cuda", iters=0, warmup=0, gpu_metrics=GPU_METRICS[:4],
                                        gpu_metrics_calls=4, gpu_lib=GPU_LIB))
        m = r["gpu_metrics"]
        # a counter: per call, and its total over the pass's 4 calls (stat's counter-value)
        self.assertEqual((m[0]["value"], m[0]["total"], m[0]["summed"], m[0]["calls"], m[0]["passes"]),
                         (1024.0, 4096.0, True, 4, 2))
        self.assertEqual((m[2]["value"], m[2]["total"], m[2]["summed"]), (42.5, 42.5, False))  # a throughput
        self.assertEqual(m[3]["value"], 1234.5 / 4)
        # the checked call, then 2 passes of 4 calls, each pass from the same x
        self.assertEqual(tltest_ops.BUMPS, [0.0, 2.0, 4.0, 6.0, 8.0, 2.0, 4.0, 6.0, 8.0])

    def test_single_pass_keeps_no_copy(self):
        self._fake_env(FAKE_CUPTI_PASSES="1")
        entry = E("tltest::bump_", [A("x", "Tensor(a!)", T([2], init="zeros"))])
        with FakeCuda():
            r = self.session.replay(REQ(entry, device="cuda", gpu_metrics=["dram__bytes_read.sum"], gpu_lib=GPU_LIB))
        self.assertEqual(r["gpu_metrics"][0]["passes"], 1)
        self.assertFalse(any("restored" in w for w in r.get("warnings", [])))

    def test_restricted_counters(self):
        self._fake_env(FAKE_CUPTI_MODE="noperm")
        entry = E("aten::relu", [A("self", "Tensor", T([64]))])
        with FakeCuda():
            r = self.session.replay(REQ(entry, device="cuda", gpu_metrics=GPU_METRICS[:3], gpu_lib=GPU_LIB))
        self.assertEqual(r["status"], "ok", r)
        for m in r["gpu_metrics"]:
            self.assertEqual(m["status"], "not supported")
            self.assertIn("GPU performance counters are restricted to admin users "
                          "(NVreg_RestrictProfilingToAdminUsers=1; see /proc/driver/nvidia/params)", m["why"])

    def test_op_failing_in_a_pass(self):
        self._fake_env()
        entry = E("tltest::count", [A("x", "Tensor", T([2]))])
        calls = {"n": 0}

        def flaky(*a, **k):
            calls["n"] += 1
            if calls["n"] > 3:
                raise RuntimeError("boom in pass")
            return a[0]
        from unittest import mock
        with FakeCuda(), mock.patch.object(ops.OpResolver, "resolve", lambda s, e, q, w: (flaky, "flaky", "flaky")):
            r = self.session.replay(REQ(entry, device="cuda", iters=1, warmup=1,
                                        gpu_metrics=["dram__bytes_read.sum"], gpu_lib=GPU_LIB))
        self.assertEqual(r["status"], "ok", r)
        self.assertIn("the op failed during counting pass 0: RuntimeError: boom in pass", r["gpu_metrics"][0]["why"])

# ---------------------------------------------------------------------------- the protocol

class TestProtocol(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.w = WorkerProcess()

    @classmethod
    def tearDownClass(cls):
        cls.rc = cls.w.close()

    def test_hello(self):
        r = self.w.call({"cmd": "hello", "id": 0})
        self.assertEqual((r["id"], r["status"]), (0, "ok"))
        self.assertEqual(r["torch"], torch.__version__)
        self.assertEqual(r["python"], ".".join(map(str, sys.version_info[:3])))
        self.assertEqual(r["executable"], PY)
        self.assertEqual(r["pid"], self.w.proc.pid)
        self.assertEqual(r["protocol"], 1)
        self.assertIsInstance(r["host_memory_available"], int)
        self.assertEqual(r["cuda"], torch.cuda.is_available())
        if not r["cuda"]:
            self.assertEqual(r["devices"], [])

    def test_schemas(self):
        r = self.w.call({"cmd": "schemas", "id": 1, "namespaces": {"tltest": ["tltest_ops"]}})
        self.assertEqual(r["status"], "ok")
        self.assertEqual(r["torch"], torch.__version__)
        self.assertIn("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", r["schemas"])
        self.assertIn("tltest::myop(Tensor x, int n=1) -> Tensor", r["schemas"])
        self.assertEqual(len(r["schemas"]), len(set(r["schemas"])))
        r = self.w.call({"cmd": "schemas", "id": 2, "namespaces": ["vllm"]})
        self.assertEqual(r["status"], "ok")
        self.assertTrue(any("vllm._C" in w for w in r["warnings"]))

    def test_gpu_metrics_on_cpu(self):
        r = self.w.call(REQ(E("aten::relu", [A("self", "Tensor", T([64]))]), id=78,
                            gpu_metrics=["dram__bytes_read.sum"]))
        self.assertEqual((r["id"], r["status"]), (78, "ok"), r)
        self.assertEqual(r["gpu_metrics"], [{"name": "dram__bytes_read.sum", "status": "not supported",
                                             "why": "the replay device is cpu"}])

    def test_replay_and_ids(self):
        r = self.w.call(REQ(E("aten::relu", [A("self", "Tensor", T([64]))]), id=77, iters=9))
        self.assertEqual((r["id"], r["status"], len(r["times_us"])), (77, "ok", 9))
        self.assertEqual(r["result"], "Tensor[64] float32")

    def test_ops_cannot_write_into_the_protocol(self):
        r = self.w.call(REQ(E("tltest::noisy", [A("x", "Tensor", T([2]))]), namespaces={"tltest": ["tltest_ops"]}))
        self.assertEqual(r["status"], "ok", r)
        r = self.w.call({"cmd": "hello", "id": 5})
        self.assertEqual(r["status"], "ok")
        self.assertEqual(self.w.stdout(), "")
        err = self.w.stderr()
        self.assertIn("NOISE-FROM-PRINT", err)
        self.assertIn("NOISE-FROM-FD1", err)

    def test_bad_requests_keep_the_worker_alive(self):
        r = self.w.call(b"{this is not json\n")
        self.assertEqual((r["id"], r["status"], r["kind"]), (None, "failed", "args"))
        r = self.w.call(b"[1, 2]\n")
        self.assertEqual(r["status"], "failed")
        r = self.w.call({"cmd": "dance", "id": 3})
        self.assertEqual((r["id"], r["status"], r["kind"]), (3, "failed", "args"))
        self.assertIn("unknown command", r["error"])
        self.w.send(b"\n")  # blank lines are ignored
        self.w.send({"cmd": "go"})  # a stray go too
        self.assertEqual(self.w.call({"cmd": "hello", "id": 4})["status"], "ok")

    def test_error_is_one_line_without_traceback(self):
        r = self.w.call(REQ(E("tltest::multiline", [A("x", "Tensor", T([1]))]),
                            namespaces={"tltest": ["tltest_ops"]}, verbose=True))
        self.assertEqual((r["status"], r["kind"]), ("failed", "error"))
        self.assertEqual(r["error"], "RuntimeError: first line of the error")
        self.assertIn("Traceback", self.w.stderr())  # verbose: on stderr only

    def test_region_handshake(self):
        self.w.send(REQ(E("aten::relu", [A("self", "Tensor", T([64]))]), id=9, iters=5, region=True))
        self.assertEqual(self.w.recv(), {"id": 9, "event": "region_begin"})
        self.w.send({"cmd": "go"})
        self.assertEqual(self.w.recv(), {"id": 9, "event": "region_end"})
        self.w.send({"cmd": "go"})
        r = self.w.recv()
        self.assertEqual((r["id"], r["status"], len(r["times_us"])), (9, "ok", 5))

    def test_region_stop(self):
        self.w.send(REQ(E("tltest::count", [A("x", "Tensor", T([1]))]), id=10, iters=5, region=True,
                        namespaces={"tltest": ["tltest_ops"]}))
        self.assertEqual(self.w.recv(), {"id": 10, "event": "region_begin"})
        self.w.send({"cmd": "stop"})
        r = self.w.recv()
        self.assertEqual((r["id"], r["status"], r["kind"]), (10, "failed", "error"))
        self.assertIn("stopped", r["error"])
        self.w.send(REQ(E("aten::relu", [A("self", "Tensor", T([4]))]), id=11, iters=2, region=True))
        self.assertEqual(self.w.recv()["event"], "region_begin")
        self.w.send({"cmd": "go"})
        self.assertEqual(self.w.recv()["event"], "region_end")
        self.w.send({"cmd": "stop"})  # after the loop: nothing left to stop
        self.assertEqual(self.w.recv()["status"], "ok")
        self.w.send({"cmd": "stop"})  # stray: ignored
        self.assertEqual(self.w.call({"cmd": "hello", "id": 12})["status"], "ok")

    def test_memory_guard(self):
        r = self.w.call(REQ(E("aten::clone", [A("self", "Tensor", T([1 << 40], "double"))])))
        self.assertEqual((r["status"], r["kind"]), ("failed", "memory"))
        self.assertIn("8.0 TiB", r["error"])
        self.assertEqual(self.w.call({"cmd": "hello", "id": 1})["status"], "ok")

    def test_unavailable(self):
        r = self.w.call(REQ(E("aten::not_there")))
        self.assertEqual(r["status"], "unavailable")

    def test_initializers_over_the_protocol(self):
        r = self.w.call(REQ(pa_v1_entry(), namespaces=FAKE_NS))
        self.assertEqual(r["status"], "ok", r)
        self.assertTrue(r["init"][0].startswith("paged_attention: 4 seqs x 100 context"))
        r = self.w.call(REQ(moe_entry(), namespaces=FAKE_NS, init_kwargs={"moe_distribution": "zipf"}))
        self.assertEqual(r["status"], "ok", r)
        self.assertIn("(zipf s=1.2)", r["init"][0])
        r = self.w.call(REQ(pa_v1_entry(), namespaces=FAKE_NS, init_plugins=[USER_PA]))
        self.assertEqual((r["status"], r["init"]), ("ok", ["user-pa: 14 args"]))

    def test_aliases_over_the_protocol(self):
        r = self.w.call(REQ(E("tltest::renamed", [A("x", "Tensor", T([2]))]),
                            namespaces={"tltest": ["tltest_ops"]}, aliases={"tltest::renamed": ["tltest::myop"]}))
        self.assertEqual((r["status"], r["op"]), ("ok", "tltest::myop"))


class TestWorkerLifecycle(unittest.TestCase):
    def test_namespace_auto_import(self):
        w = WorkerProcess()
        try:
            entry = E("tltest::myop", [A("x", "Tensor", T([2, 3])), A("n", "int", 5)])
            r = w.call(REQ(entry))
            self.assertEqual(r["status"], "unavailable")  # the module is not imported yet
            self.assertIn("tltest::myop", r["error"])
            r = w.call(REQ(entry, namespaces={"tltest": ["no_such_module", "tltest_ops"]}))
            self.assertEqual(r["status"], "ok", r)
            self.assertEqual(r["result"], "Tensor[2, 3] float32")
            r = w.call(REQ(entry))  # imported once, stays registered
            self.assertEqual(r["status"], "ok", r)
        finally:
            self.assertEqual(w.close(), 0)

    def test_one_socketpair_on_both_fds(self):
        w = WorkerProcess(socketpair=True)
        try:
            self.assertEqual(w.call({"cmd": "hello", "id": 0})["status"], "ok")
            r = w.call(REQ(E("aten::relu", [A("self", "Tensor", T([4]))]), id=3, region=True))
            self.assertEqual(r, {"id": 3, "event": "region_begin"})
            w.send({"cmd": "go"})
            self.assertEqual(w.recv()["event"], "region_end")
            w.send({"cmd": "go"})
            self.assertEqual(w.recv()["status"], "ok")
        finally:
            self.assertEqual(w.close(), 0)  # EOF (shutdown) ends it

    def check_crash(self, op, sig):
        w = WorkerProcess()
        try:
            self.assertEqual(w.call({"cmd": "hello", "id": 0})["status"], "ok")
            w.send(REQ(E(op, [A("x", "Tensor", T([2]))]), namespaces={"tltest": ["tltest_ops"]}))
            self.assertIsNone(w.recv())  # EOF: the worker died
            self.assertEqual(w.proc.wait(timeout=60), -sig)
            self.assertIn("Fatal Python error", w.stderr())
        finally:
            w.close()
        w2 = WorkerProcess()  # the next worker works
        try:
            r = w2.call(REQ(E("aten::relu", [A("self", "Tensor", T([4]))])))
            self.assertEqual(r["status"], "ok")
        finally:
            self.assertEqual(w2.close(), 0)

    def test_segfault_in_an_op(self):
        self.check_crash("tltest::crash", signal.SIGSEGV)

    def test_abort_in_an_op(self):
        self.check_crash("tltest::abort", signal.SIGABRT)

    def test_quit(self):
        w = WorkerProcess()
        w.send({"cmd": "quit"})
        self.assertIsNone(w.recv())
        self.assertEqual(w.proc.wait(timeout=60), 0)
        w.close()

    def test_broken_torch(self):
        env = env_with_tmp()
        env["PYTHONPATH"] = os.path.join(TMP, "broken") + os.pathsep + env["PYTHONPATH"]
        w = WorkerProcess(env=env)
        r = w.call({"cmd": "hello", "id": 0})
        self.assertEqual((r["id"], r["status"]), (0, "failed"))
        self.assertIn("broken on purpose", r["error"])
        self.assertIn(PY, r["error"])
        self.assertIsNone(w.recv())
        self.assertEqual(w.close(), 1)

    def test_bad_fds(self):
        env = env_with_tmp(TLREPLAY_WORKER_FDS="97,98")
        p = subprocess.run([PY, WORKER, "--worker"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=120)
        self.assertEqual(p.returncode, 2)
        self.assertIn(b"TLREPLAY_WORKER_FDS", p.stderr)


# ---------------------------------------------------------------------------- standalone mode

def run_standalone(*args, env=None, script=WORKER):
    p = subprocess.run([PY, script] + list(args), env=env or env_with_tmp(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


class TestStandalone(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        entries = [
            E("aten::addmm", [A("self", "Tensor", T([8])), A("mat1", "Tensor", T([4, 16])),
                              A("mat2", "Tensor", T([16, 8], strides=[1, 16]))],
              [A("beta", "Scalar", 1), A("alpha", "Scalar", 1)], overload="", count=17, uid=48, gpu_time_us=5.8),
            E("tltest::myop", [A("x", "Tensor", T([3])), A("n", "int", 2)]),
            E("aten::mm", [A("self", "Tensor", T([4, 5])), A("mat2", "Tensor", T([4, 5]))]),
            E("vllm::nope"),
            E("aten::relu", [A("self", "Tensor", T([32]))]),
        ]
        cls.ir = _write("standalone.json", json.dumps(entries))
        cls.ok_only = _write("ok_only.json", json.dumps([entries[0], entries[4], entries[3]]))
        # TraceLens's own format: no schema/overload/tl_init, init "normal" on integer tensors
        tracelens = [
            {"op_name": "aten::embedding", "replay_ir": {"list_pos_args": [
                {"arg_name": "weight", "arg_type": "Tensor",
                 "value": {"shape": [100, 16], "dtype": "float", "strides": [16, 1], "init": "normal"}},
                {"arg_name": "indices", "arg_type": "Tensor",
                 "value": {"shape": [2, 7], "dtype": "long int", "strides": [7, 1], "init": "normal"}},
                {"arg_name": "padding_idx", "arg_type": "SymInt", "value": -1},
                {"arg_name": "scale_grad_by_freq", "arg_type": "bool", "value": False},
                {"arg_name": "sparse", "arg_type": "bool", "value": False}], "list_kwargs": []}, "count": 12},
            {"op_name": "aten::convolution", "replay_ir": {"list_pos_args": [
                {"arg_name": "input", "arg_type": "Tensor",
                 "value": {"shape": [2, 4, 8, 8], "dtype": "c10::BFloat16", "strides": [256, 64, 8, 1],
                           "init": "normal"}},
                {"arg_name": "weight", "arg_type": "Tensor",
                 "value": {"shape": [4, 4, 3, 3], "dtype": "c10::BFloat16", "strides": [36, 9, 3, 1],
                           "init": "normal"}},
                {"arg_name": "bias", "arg_type": "Tensor?", "value": None},
                {"arg_name": "stride", "arg_type": "SymInt[]", "value": [1, 1]},
                {"arg_name": "padding", "arg_type": "SymInt[]", "value": [1, 1]},
                {"arg_name": "dilation", "arg_type": "SymInt[]", "value": [1, 1]},
                {"arg_name": "transposed", "arg_type": "bool", "value": False},
                {"arg_name": "output_padding", "arg_type": "SymInt[]", "value": [0, 0]},
                {"arg_name": "groups", "arg_type": "SymInt", "value": 1}], "list_kwargs": []}},
            {"op_name": "aten::div", "replay_ir": {"list_pos_args": [
                {"arg_name": "self", "arg_type": "Tensor",
                 "value": {"shape": [3, 3], "dtype": "float", "strides": [3, 1], "init": "normal"}},
                {"arg_name": "other", "arg_type": "Tensor",
                 "value": {"shape": [], "dtype": "long int", "strides": [], "init": "normal"}}],
                "list_kwargs": []}},
            {"op_name": "aten::fill_", "replay_ir": {"list_pos_args": [
                {"arg_name": "self", "arg_type": "Tensor(a!)",
                 "value": {"shape": [5], "dtype": "float", "strides": [1], "init": None}},
                {"arg_name": "value", "arg_type": "Scalar", "value": 0.0}], "list_kwargs": []}},
        ]
        cls.tracelens = _write("tracelens.json", json.dumps(tracelens, indent=4))

    def test_human_output_and_summary(self):
        rc, out, err = run_standalone("replay", self.ir, "-r", "4", "--warmup", "1", "--namespace",
                                      "tltest=tltest_ops")
        self.assertEqual(rc, 1, out + err)
        lines = out.splitlines()
        self.assertRegex(out, r"(?m)^\[1/5\] aten::addmm: median [\d.]+ us \(mean [\d.]+, std [\d.]+, "
                              r"min [\d.]+, max [\d.]+\), 4 iters$")
        self.assertRegex(out, r"(?m)^  count 17: [\d.]+ us in the workload$")
        self.assertRegex(out, r"(?m)^\[2/5\] tltest::myop: median ")
        self.assertIn("[3/5] aten::mm: FAILED (error): RuntimeError: mat1 and mat2 shapes cannot be multiplied "
                      "(4x5 and 4x5)", lines)
        self.assertTrue(any(l.startswith("[4/5] vllm::nope: unavailable: op vllm::nope is not in torch")
                            for l in lines), out)
        self.assertRegex(out, r"(?m)^\[5/5\] aten::relu: median ")
        tail = out[out.index("--- Replay summary ---"):].splitlines()
        self.assertEqual(tail, ["--- Replay summary ---", "Total operations in file: 5", "Selected: 5",
                                "Attempted: 5", "OK: 3", "Failed: 1", "Unavailable: 1"])

    def test_json_output(self):
        rc, out, err = run_standalone("replay", self.ir, "-j", "-r", "3", "--namespace", "tltest=tltest_ops")
        self.assertEqual(rc, 1)
        objs = [json.loads(l) for l in out.splitlines()]
        self.assertEqual([o["status"] for o in objs], ["ok", "ok", "failed", "unavailable", "ok"])
        self.assertEqual([o["index"] for o in objs], [1, 2, 3, 4, 5])
        first = objs[0]
        self.assertEqual((first["op"], first["resolved"], first["uid"], first["iters"]),
                         ("aten::addmm", "aten::addmm.default", 48, 3))
        for key in ("median_us", "mean_us", "std_us", "min_us", "max_us"):
            self.assertIsInstance(first[key], float)
        self.assertAlmostEqual(first["est_total_us"], 17 * first["median_us"], delta=0.01)
        self.assertEqual(first["gpu_time_us"], 5.8)
        self.assertEqual(first["result"], "Tensor[4, 8] float32")
        self.assertEqual((objs[2]["kind"], objs[2]["error"][:12]), ("error", "RuntimeError"))
        self.assertIn("Failed: 1", err)

    def test_filter_then_limit(self):
        rc, out, _ = run_standalone("replay", self.ir, "-r", "2", "--op-filter", "aten::", "--op-limit", "2")
        self.assertEqual(rc, 1)  # addmm ok, mm failed
        self.assertIn("Matching --op-filter 'aten::': 3\nSelected: 2\nAttempted: 2\nOK: 1\nFailed: 1\n"
                      "Unavailable: 0", out)
        self.assertIn("[1/2] aten::addmm", out)
        self.assertIn("[2/2] aten::mm", out)
        rc, out, _ = run_standalone("replay", self.ir, "-r", "2", "--op-filter", "relu")
        self.assertEqual(rc, 0)
        self.assertIn("[1/1] aten::relu", out)

    def test_stop_on_error(self):
        rc, out, _ = run_standalone("replay", self.ir, "-r", "2", "--stop-on-error")
        self.assertEqual(rc, 1)
        self.assertIn("Selected: 5\nAttempted: 3\nOK: 1\nFailed: 1\nUnavailable: 1", out)
        self.assertIn("Stopped after the first failure", out)
        self.assertNotIn("aten::relu", out)

    def test_unavailable_only_exits_zero(self):
        rc, out, _ = run_standalone("replay", self.ok_only, "-r", "2")
        self.assertEqual(rc, 0, out)
        self.assertIn("OK: 2\nFailed: 0\nUnavailable: 1", out)

    def test_tracelens_ir(self):
        rc, out, err = run_standalone("replay", self.tracelens, "-r", "2", "-j", "--init-plugin", PROBE)
        self.assertEqual(rc, 0, out + err)
        objs = [json.loads(l) for l in out.splitlines()]
        self.assertEqual([o["status"] for o in objs], ["ok"] * 4, objs)
        emb = objs[0]
        self.assertEqual(emb["result"], "Tensor[2, 7, 16] float32")
        probe = json.loads(emb["init"][0][len("probe:"):])
        self.assertEqual((probe["args"][1]["min"], probe["args"][1]["max"]), (0, 0))  # zeros, not a crash
        self.assertEqual(emb["count"], 12)
        self.assertEqual(objs[1]["result"], "Tensor[2, 4, 8, 8] bfloat16")
        self.assertEqual(objs[2]["resolved"], "aten::div")

    def test_seed_and_plugin_options(self):
        outs = []
        for seed in ("3", "3", "4"):
            rc, out, _ = run_standalone("replay", self.tracelens, "-r", "1", "-j", "--op-filter", "embedding",
                                        "--init-plugin", PROBE, "--seed", seed, "--init-kwarg", "moe_zipf_s=1.5")
            self.assertEqual(rc, 0)
            probe = json.loads(json.loads(out)["init"][0][len("probe:"):])
            self.assertEqual(probe["options"], {"moe_zipf_s": 1.5})
            outs.append(probe["args"][0]["sum"])
        self.assertEqual(outs[0], outs[1])
        self.assertNotEqual(outs[0], outs[2])

    def test_verbose(self):
        rc, out, err = run_standalone("replay", self.ir, "-r", "1", "-v", "--op-filter", "mm")
        self.assertIn("  op: aten::addmm.default", out)
        self.assertIn("  args: Tensor[8] float32, Tensor[4, 16] float32, Tensor[16, 8] float32, beta=1, alpha=1",
                      out)
        self.assertIn("Traceback", err)

    def test_usage_errors(self):
        if not torch.cuda.is_available():
            rc, _, err = run_standalone("replay", self.ir, "--device", "cuda")
            self.assertEqual(rc, 2)
            self.assertIn("no CUDA", err)
        bad = _write("bad.json", "{not json")
        rc, _, err = run_standalone("replay", bad)
        self.assertEqual(rc, 2)
        rc, _, err = run_standalone("replay", os.path.join(TMP, "nope.json"))
        self.assertEqual(rc, 2)
        rc, _, err = run_standalone("replay", self.ir, "--init-plugin", BAD_PLUGIN)
        self.assertEqual(rc, 2)
        self.assertIn("SyntaxError", err)
        rc, _, err = run_standalone("replay", self.ir, "-r", "-1")
        self.assertEqual(rc, 2)
        rc, _, err = run_standalone()
        self.assertEqual(rc, 2)

    def test_usage_errors_need_no_torch(self):
        # --help, a usage error and an unreadable IR file answer before torch is imported
        code = ("import sys; sys.path.insert(0, %r); from tlreplay_replay import cli\n"
                "for argv in (['replay', %r], ['replay', 'x', '-r', '-1'], ['replay', '-h']):\n"
                "    try:\n"
                "        cli.main(argv)\n"
                "    except SystemExit:\n"
                "        pass\n"
                "print('torch' in sys.modules)\n") % (os.path.dirname(WORKER), os.path.join(TMP, "nope.json"))
        p = subprocess.run([PY, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        self.assertEqual(p.stdout.decode().splitlines()[-1], "False", p.stderr)
        self.assertIn(b"nope.json: [Errno 2]", p.stderr)

    def test_schemas_command(self):
        rc, out, _ = run_standalone("schemas", "--namespace", "tltest=tltest_ops")
        self.assertEqual(rc, 0)
        lines = out.splitlines()
        self.assertIn("tltest::myop(Tensor x, int n=1) -> Tensor", lines)
        self.assertTrue(any(l.startswith("aten::addmm(") for l in lines))


class TestEntryScript(unittest.TestCase):
    """tlreplay_worker.py finds its package beside it, however it is started."""

    def test_symlink_in_isolated_mode(self):
        # -I: the script's folder is not put on sys.path by Python; the link's folder has no package
        d = tempfile.mkdtemp(dir=TMP)
        link = os.path.join(d, "tlreplay_worker.py")
        os.symlink(WORKER, link)
        p = subprocess.run([PY, "-I", link, "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"schemas", p.stdout)

    def test_alone_says_the_package_is_missing(self):
        d = tempfile.mkdtemp(dir=TMP)
        alone = os.path.join(d, "replay.py")
        shutil.copy(WORKER, alone)
        rc, out, err = run_standalone("replay", self.id() + ".json", script=alone)
        self.assertEqual((rc, out), (2, ""))
        self.assertEqual(err, "tlreplay_worker: the tlreplay_replay package is not beside %s (copy "
                              "core/replay/tlreplay_replay/ there)\n" % os.path.realpath(alone))


if __name__ == "__main__":
    sys.exit(taptest.main(sys.modules[__name__]))
