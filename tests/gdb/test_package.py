# SPDX-License-Identifier: MIT
"""Unit tests of the gdb front end's package (gdb/tlreplay_gdb), without gdb.

    /usr/bin/python3 tests/gdb/test_package.py          unittest's output
    /usr/bin/python3 tests/gdb/test_package.py --tap    TAP, for prove (tests/gdb/test_unit.sh)

The trace tests load tests/fixtures/*.json through libtlreplay.so (the build
of $TLREPLAY_BUILD, else build/); they are skipped when it is not built.
"""

import gzip
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "gdb"))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import taptest  # noqa: E402
from tlreplay_gdb import (breaks, cursor, frames, groups, here, libtl, locate, runner,  # noqa: E402
                          schemas, tensors, tlproc)
from tlreplay_gdb.breaks import BreakGroup  # noqa: E402
from tlreplay_gdb.session import Session, UserError  # noqa: E402

BUILD = os.environ.get("TLREPLAY_BUILD") or os.path.join(ROOT, "build")
LIB = os.path.join(BUILD, "libtlreplay.so")
TLREPLAY_BIN = os.path.join(BUILD, "tlreplay")
SNAPSHOT = os.path.join(ROOT, "core", "replay", "schemas", "torch-1.13.json.gz")
MINI = os.path.join(ROOT, "tests", "fixtures", "mini.json")
REPLAY = os.path.join(ROOT, "tests", "fixtures", "replay.json")
# a library built with ASan/UBSan cannot be loaded into a Python that was not
SANITIZED = "-fsanitize" in os.environ.get("TLREPLAY_CFLAGS", "")
HAVE_LIB = os.path.exists(LIB) and not SANITIZED
WHY_NO_LIB = "libtlreplay is built with a sanitizer" if SANITIZED else "libtlreplay.so is not built"


def _index():
    return schemas.SchemaIndex([
        "aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
        "aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, "
        "Tensor(a!) out) -> Tensor(a!)",
        "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        "aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
        "aten::add.int(int a, int b) -> int",
        "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
        "aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
        "aten::_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
        "aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
        "aten::max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], "
        "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
    ], "test")


# ------------------------------------------------------------------ schemas

class TestSchemas(unittest.TestCase):
    def test_parse(self):
        s = schemas.Schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
        self.assertEqual((s.name, s.overload), ("aten::add", "Tensor"))
        self.assertEqual(s.args, [("Tensor", "self", False), ("Tensor", "other", False),
                                  ("Scalar", "alpha", True)])
        self.assertEqual(s.returns, "Tensor")
        self.assertEqual(s.symbol, "add_Tensor")

    def test_parse_nested(self):
        s = schemas.Schema("aten::max_pool2d_with_indices(Tensor self, int[2] kernel_size, "
                           "int[2] stride=[], int[2] padding=0) -> (Tensor, Tensor)")
        self.assertEqual([a[1] for a in s.args], ["self", "kernel_size", "stride", "padding"])
        self.assertEqual(s.returns, "(Tensor, Tensor)")
        self.assertEqual(s.symbol, "max_pool2d_with_indices")

    def test_ops_symbol(self):
        self.assertEqual(schemas.ops_symbol("aten::addmm", ""), "addmm")
        self.assertEqual(schemas.ops_symbol("aten::add", "Scalar_out"), "add_Scalar_out")

    def test_returns_in_memory(self):
        idx = _index()
        self.assertTrue(idx.find("aten::addmm", "").returns_in_memory())
        self.assertFalse(idx.find("aten::addmm", "out").returns_in_memory())
        self.assertFalse(idx.find("aten::add_", "Tensor").returns_in_memory())
        self.assertTrue(idx.find("aten::max_pool2d_with_indices", "").returns_in_memory())
        self.assertFalse(idx.find("aten::add", "int").returns_in_memory())

    def test_overloads_skip_torchscript_only(self):
        idx = _index()
        self.assertEqual([s.overload for s in idx.overloads("aten::add")], ["Tensor", "Scalar"])
        self.assertEqual(idx.by_symbol["add_Tensor"].overload, "Tensor")

    def test_snapshot(self):
        if not os.path.exists(SNAPSHOT):
            self.skipTest("no snapshot")
        idx = schemas.SchemaIndex.load(SNAPSHOT)
        self.assertTrue(idx.label.startswith("torch "))
        self.assertIn("addmm", idx.by_symbol)
        self.assertEqual(idx.by_symbol["add_Tensor"].name, "aten::add")

    def test_snapshot_bare_list(self):
        with tempfile.NamedTemporaryFile("wb", suffix=".json.gz", delete=False) as f:
            f.write(gzip.compress(json.dumps(["aten::mm(Tensor self, Tensor mat2) -> Tensor"])
                                  .encode()))
        try:
            idx = schemas.SchemaIndex.load(f.name)
            self.assertTrue(idx.known("aten::mm"))
        finally:
            os.unlink(f.name)


# ------------------------------------------------------------------ frames

class TestFrames(unittest.TestCase):
    def setUp(self):
        self.idx = _index()

    def op(self, name):
        f = frames.classify(name, self.idx)
        return None if f is None else (f.kind, f.op, f.overload)

    def test_qualified_name(self):
        q = frames.qualified_name
        self.assertEqual(q("at::_ops::addmm::call(at::Tensor const&, at::Tensor const&, "
                           "at::Tensor const&, c10::Scalar const&, c10::Scalar const&)@plt"),
                         "at::_ops::addmm::call")
        self.assertEqual(q("at::native::(anonymous namespace)::addmm_impl_cpu_(at::Tensor&, "
                           "at::Tensor const&, at::Tensor, at::Tensor, c10::Scalar const&, "
                           "c10::Scalar const&) [clone .isra.0]"),
                         "at::native::(anonymous namespace)::addmm_impl_cpu_")
        self.assertEqual(q("void at::native::cpu_kernel_vec<float>(at::TensorIteratorBase&) const"),
                         "at::native::cpu_kernel_vec")
        self.assertEqual(q("main"), "main")
        self.assertEqual(q(None), "")

    def test_ops_call(self):
        self.assertEqual(self.op("at::_ops::addmm::call(at::Tensor const&)@plt"),
                         ("op", "aten::addmm", ""))
        self.assertEqual(self.op("at::_ops::add_Tensor::call(at::Tensor const&, at::Tensor const&, "
                                 "c10::Scalar const&)"), ("op", "aten::add", "Tensor"))
        f = frames.classify("at::_ops::add_Tensor::redispatch(c10::DispatchKeySet, ...)", self.idx)
        self.assertEqual(f.how, "dispatcher redispatch")
        self.assertEqual(f.full_name, "aten::add.Tensor")

    def test_ops_without_schemas(self):
        known = {"aten::add", "aten::_softmax"}.__contains__
        self.assertEqual(frames.op_from_symbol("add_Scalar_out", None, known),
                         ("aten::add", "Scalar_out"))
        self.assertEqual(frames.op_from_symbol("_softmax", None, known), ("aten::_softmax", ""))
        self.assertEqual(frames.op_from_symbol("new_op", None, known), ("aten::new_op", ""))

    def test_native(self):
        self.assertEqual(self.op("at::native::structured_addmm_out_cpu::impl(at::Tensor const&)"),
                         ("op", "aten::addmm", ""))
        self.assertEqual(self.op("at::native::(anonymous namespace)::addmm_impl_cpu_(...)"),
                         ("op", "aten::addmm", ""))
        self.assertEqual(self.op("at::native::linear(at::Tensor const&, at::Tensor const&)"),
                         ("op", "aten::linear", ""))
        self.assertIsNone(self.op("at::native::cpublas::gemm(...)"))
        self.assertIsNone(self.op("at::native::DEFAULT::gemm_notrans_(...)"))

    def test_wrappers(self):
        self.assertEqual(self.op("at::(anonymous namespace)::wrapper_CPU_addmm_out_out(...)"),
                         ("op", "aten::addmm", ""))
        self.assertEqual(self.op("at::(anonymous namespace)::(anonymous namespace)::"
                                 "wrapper__addmm(at::Tensor const&)"), ("op", "aten::addmm", ""))
        self.assertEqual(self.op("at::(anonymous namespace)::wrapper_CPU__softmax(...)"),
                         ("op", "aten::_softmax", ""))
        self.assertEqual(self.op("at::cpu::addmm(at::Tensor const&)"), ("op", "aten::addmm", ""))

    def test_launch_and_tlreplay(self):
        for n in ("cudaLaunchKernel", "hipLaunchKernel", "cuLaunchKernel", "cudaLaunchKernel@plt"):
            self.assertEqual(self.op(n)[0], "launch", n)
        self.assertEqual(self.op("cmd_uid")[0], "tlreplay")
        self.assertIsNone(self.op("std::vector<int>::push_back(int&&)"))
        self.assertIsNone(self.op("_PyEval_EvalFrameDefault"))

    def test_innermost(self):
        names = ["cudaLaunchKernel", None, "at::native::addmm_out_cpu(...)",
                 "at::_ops::addmm::call(...)", "at::native::linear(...)",
                 "at::_ops::linear::call(...)", "main"]
        found = frames.scan(names, self.idx)
        idx, fop, launch = frames.innermost_op(found)
        self.assertEqual((idx, fop.op, fop.how), (2, "aten::addmm", "native kernel"))
        self.assertEqual(launch[0], 0)
        idx, fop, launch = frames.innermost_op(frames.scan(["main", "cudaLaunchKernel"], self.idx))
        self.assertIsNone(fop)
        self.assertEqual(launch[0], 1)


# ------------------------------------------------------------------ groups

def _args(dims, types, strides=None, conc=None):
    n = len(dims)
    return {"Input Dims": dims, "Input type": types, "Input Strides": strides or [[]] * n,
            "Concrete Inputs": conc or [""] * n}


class TestGroups(unittest.TestCase):
    def test_group_and_describe(self):
        a = _args([[4], [8, 16], [16, 4], [], []], ["float"] * 3 + ["Scalar"] * 2,
                  [[1], [16, 1], [4, 1], [], []], ["", "", "", "1", "1"])
        b = _args([[4], [2, 16], [16, 4], [], []], ["float"] * 3 + ["Scalar"] * 2,
                  [[1], [16, 1], [1, 16], [], []], ["", "", "", "1", "1"])
        gs = groups.group([(3, a), (4, dict(a)), (6, b)])
        self.assertEqual([(g.n, g.uids) for g in gs], [(2, [3, 4]), (1, [6])])
        self.assertEqual(groups.describe(a), "(float[4], float[8, 16], float[16, 4], 1, 1)")
        self.assertEqual(groups.describe(b), "(float[4], float[2, 16], float[16, 4]{1, 16}, 1, 1)")
        self.assertEqual(groups.describe({}), "(no shapes recorded)")
        self.assertEqual(groups.describe(_args([[], []], ["ScalarList", ""], None,
                                               ["[2, 3]", ""])), "([2, 3], None)")

    def test_ordinal_and_threads(self):
        by = {("1", "7"): [10, 30], ("1", "1"): [5, 20, 40]}
        self.assertEqual(groups.ordinal(by, 20), (("1", "1"), 2))
        self.assertEqual(groups.ordinal(by, 99), (None, None))
        self.assertEqual(groups.main_thread(by), ("1", "1"))
        self.assertEqual(groups.main_thread({("1", "7"): [1], ("1", "8"): [2, 3]}), ("1", "8"))

    def test_live_match(self):
        a = _args([[4], [8, 16], [16, 4], [], []], ["float"] * 3 + ["Scalar"] * 2,
                  [[1], [16, 1], [4, 1], [], []])
        live = [(0, [4], [1], "float"), (1, [8, 16], [16, 1], "float")]
        self.assertTrue(groups.live_match(a, live))
        self.assertFalse(groups.live_match(a, [(1, [2, 16], [16, 1], "float")]))
        self.assertFalse(groups.live_match(a, [(2, [16, 4], [1, 16], "float")]))
        self.assertFalse(groups.live_match(a, [(0, [4], [1], "double")]))
        self.assertIsNone(groups.live_match(a, None))

    def test_contiguous(self):
        self.assertEqual(groups.contiguous_strides([2, 3, 4]), [12, 4, 1])
        self.assertEqual(groups.contiguous_strides([]), [])


# ------------------------------------------------------------------ tensors

class FakeMemory:
    def __init__(self):
        self.blocks = {}

    def put(self, addr, data):
        self.blocks[addr] = bytes(data)

    def read(self, addr, n):
        for base, data in self.blocks.items():
            if base <= addr and addr + n <= base + len(data):
                return data[addr - base:addr - base + n]
        raise OSError("Cannot access memory at address 0x%x" % addr)


def _impl(dims, strides, dtype=6, off=72, storage_offset=0, autograd=0, outline=None):
    """TensorImpl bytes: header words, then sizes_and_strides_ at @off."""
    words = [0x7F0000001000, 2, 1, 0x5000] + [autograd, 0] + [0x6000, 0, 0]
    head = b"".join(struct.pack("<Q", w) for w in words)
    head = (head + b"\0" * off)[:off]
    d = len(dims)
    if d <= 5:
        inline = list(dims) + [0] * (5 - d) + list(strides) + [0] * (5 - d)
        ss = struct.pack("<Q", d) + struct.pack("<10q", *inline)
    else:
        ss = struct.pack("<Q", d) + struct.pack("<Q", outline) + b"\0" * 72
    numel = 1
    for x in dims:
        numel *= x
    tail = struct.pack("<qqH", storage_offset, numel, dtype) + b"\0" * 30
    return head + ss + tail


class TestTensors(unittest.TestCase):
    def mem(self, impls):
        m = FakeMemory()
        addrs = []
        for i, data in enumerate(impls):
            impl = 0x100000 + i * 0x1000
            ref = 0x900000 + i * 0x10
            m.put(impl, data)
            m.put(ref, struct.pack("<Q", impl))
            addrs.append(ref)
        return m, addrs

    def test_torch_113_layout(self):
        m, addrs = self.mem([_impl([4], [1]), _impl([8, 16], [16, 1]), _impl([16, 4], [1, 16])])
        infos, off = tensors.read_tensors(m.read, addrs)
        self.assertEqual(off, 72)
        self.assertEqual([(t.dims, t.strides, t.dtype) for t in infos],
                         [([4], [1], "float"), ([8, 16], [16, 1], "float"),
                          ([16, 4], [1, 16], "float")])

    def test_null_autograd_meta_is_not_a_0d_tensor(self):
        # with the real layout at 88, offset 72 holds a zero word and, 96 bytes
        # later, a 1 (the last stride): it reads as a consistent 0-d tensor, so
        # calibration wants a tensor with dimensions
        dims = [2, 3, 4, 5, 6]
        m, addrs = self.mem([_impl(dims, groups.contiguous_strides(dims), off=88)])
        impl = struct.unpack("<Q", m.read(addrs[0], 8))[0]
        self.assertEqual(tensors.at_offset(m.read, impl, 72).dims, [])
        infos, off = tensors.read_tensors(m.read, addrs)
        self.assertEqual(off, 88)
        self.assertEqual(infos[0].dims, dims)

    def test_other_offset_and_dtype(self):
        m, addrs = self.mem([_impl([3, 5], [5, 1], dtype=15, off=104)])
        infos, off = tensors.read_tensors(m.read, addrs)
        self.assertEqual((off, infos[0].dtype), (104, "c10::BFloat16"))

    def test_out_of_line(self):
        dims = [2, 3, 4, 5, 6, 7]
        strides = groups.contiguous_strides(dims)
        m, addrs = self.mem([_impl(dims, strides, outline=0x700000)])
        m.put(0x700000, struct.pack("<12q", *(dims + strides)))
        infos, off = tensors.read_tensors(m.read, addrs, offset=72)
        self.assertEqual((infos[0].dims, infos[0].strides), (dims, strides))

    def test_garbage(self):
        m = FakeMemory()
        m.put(0x900000, struct.pack("<Q", 0x100000))
        m.put(0x100000, bytes(range(256)) * 2)
        infos, off = tensors.read_tensors(m.read, [0x900000, 0x123])
        self.assertIsNone(off)
        self.assertEqual(infos, [None, None])

    def test_scalar_alone_proves_nothing(self):
        m, addrs = self.mem([_impl([], [])])
        self.assertIsNone(tensors.read_tensors(m.read, addrs)[1])
        # but reads once the layout is known
        infos, off = tensors.read_tensors(m.read, addrs, offset=72)
        self.assertEqual((off, infos[0].dims, infos[0].numel), (72, [], 1))


# ------------------------------------------------------------------ cursor

class FakeTree:
    # 1 -> (2 -> (3, 4), 5); 6 is a root too
    parents = {2: 1, 3: 2, 4: 2, 5: 1}
    kids = {1: [2, 5], 2: [3, 4]}
    roots = [1, 6]

    def parent(self, u):
        return self.parents.get(u)

    def first_child(self, u):
        return self.kids.get(u, [None])[0]

    def _sib(self, u, d):
        p = self.parents.get(u)
        lst = self.kids[p] if p else self.roots
        i = lst.index(u) + d
        return lst[i] if 0 <= i < len(lst) else None

    def next_sibling(self, u):
        return self._sib(u, 1)

    def prev_sibling(self, u):
        return self._sib(u, -1)

    def stack(self, u):
        out = [u]
        while self.parent(out[-1]):
            out.append(self.parent(out[-1]))
        return out


class TestCursor(unittest.TestCase):
    def test_moves(self):
        c = cursor.Cursor(FakeTree())
        self.assertIsNone(c.uid)
        with self.assertRaises(cursor.CursorError):
            c.up()
        c.select(3)
        self.assertEqual((c.uid, c.level), (3, 0))
        self.assertEqual(c.up(), 2)
        self.assertEqual((c.up(), c.level), (1, 2))
        with self.assertRaises(cursor.CursorError):
            c.up()
        self.assertEqual(c.down(2), 3)          # back along the path
        self.assertEqual(c.next(), 4)
        with self.assertRaises(cursor.CursorError):
            c.next()
        self.assertEqual(c.prev(), 3)
        self.assertEqual(c.up(), 2)
        self.assertEqual(c.next(), 5)           # cuts the path below
        self.assertEqual(c.path, [1, 5])
        with self.assertRaises(cursor.CursorError):
            c.down()
        c.select(1)
        self.assertEqual(c.down(5), 3)          # stops where the tree does
        self.assertEqual(c.up(9), 1)
        self.assertEqual(c.next(), 6)


# ------------------------------------------------------------------ runner

def _alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _children(pid):
    kids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    return kids


def _has_torch():
    return subprocess.call([os.environ.get("TLREPLAY_PYTHON", "/usr/bin/python3"), "-c", "import torch"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0


class TestRunner(unittest.TestCase):
    def test_streams_and_status(self):
        got = []
        rc = runner.run(["sh", "-c", "echo one; echo two >&2; exit 3"], got.append)
        self.assertEqual(rc, 3)
        self.assertEqual("".join(got).split(), ["one", "two"])
        self.assertEqual(runner.describe_status(-9), "killed by SIGKILL")
        self.assertEqual(runner.describe_status(1), "exit status 1")

    def test_no_program(self):
        with self.assertRaises(runner.StartError):
            runner.run(["/nonexistent/tlreplay"], lambda s: None)

    def test_interrupt_stops_the_group(self):
        with tempfile.TemporaryDirectory() as d:
            pidfile = os.path.join(d, "pid")
            procs = []

            def write(text):
                raise KeyboardInterrupt

            t = time.monotonic()
            with self.assertRaises(runner.Interrupted):
                runner.run(["sh", "-c", "sleep 60 & echo $! > %s; echo started; wait" % pidfile],
                           write, on_start=procs.append)
            self.assertLess(time.monotonic() - t, 10)
            self.assertIsNotNone(procs[0].poll())
            for _ in range(50):
                if os.path.exists(pidfile) and os.path.getsize(pidfile):
                    break
                time.sleep(0.05)
            grandchild = int(open(pidfile).read())
            # the grandchild (the worker, for tlreplay) is gone too (or a zombie
            # that its new parent has not reaped yet)
            for _ in range(50):
                if not _alive(grandchild):
                    break
                time.sleep(0.05)
            self.assertFalse(_alive(grandchild))


    def test_child_is_told_gdbs_pid(self):
        got = []
        rc = runner.run(["sh", "-c", "echo $TLREPLAY_PARENT_PID"], got.append)
        self.assertEqual((rc, "".join(got).strip()), (0, str(os.getpid())))

    def test_replay_goes_when_gdb_dies(self):
        """gdb killed mid-replay (SIGKILL: nothing of gdb runs): the replay, in a session of its
        own, and its worker go too instead of running on."""
        # asked here, not when the module loads: importing torch takes a second or two
        if not (os.path.exists(TLREPLAY_BIN) and not SANITIZED and _has_torch()):
            self.skipTest("needs the built tlreplay and a Python with torch")
        code = ("import sys; sys.path.insert(0, %r)\n"
                "from tlreplay_gdb import runner\n"
                "out = lambda s: (sys.stdout.write(s), sys.stdout.flush())\n"
                "runner.run(sys.argv[1:], out, on_start=lambda p: out('pid %%d\\n' %% p.pid))"
                % os.path.join(ROOT, "gdb"))
        gdb_ = subprocess.Popen([sys.executable, "-c", code, TLREPLAY_BIN, "uid", "-i", REPLAY,
                                 "--no-store", "--device", "cpu", "-r", "100000000", "0"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                start_new_session=True, text=True)
        try:
            child = int(gdb_.stdout.readline().split()[1])
            # the replay's plan line: the worker is in its timed calls, and tlreplay writes
            # nothing more for hours (so no SIGPIPE would stop it either)
            lines = []
            for line in gdb_.stdout:
                lines.append(line)
                if "timed calls" in line:
                    break
            self.assertIn("timed calls", "".join(lines))
            kids = _children(child)
            self.assertEqual(len(kids), 1, kids)
            worker = kids[0]
        finally:
            gdb_.kill()
            gdb_.wait()
            gdb_.stdout.close()
        for _ in range(200):
            if not _alive(child) and not _alive(worker):
                break
            time.sleep(0.05)
        self.assertFalse(_alive(child), "tlreplay outlived gdb")
        self.assertFalse(_alive(worker), "the worker outlived gdb")


# ------------------------------------------------------------------ tlproc, locate

class TestTlproc(unittest.TestCase):
    def test_parse(self):
        j = tlproc.parse(["tlreplay", "uid", "-i", "t.json", "-r", "5", "48"])
        self.assertEqual((j.cmd, j.trace, j.uids), ("uid", "t.json", [48]))
        j = tlproc.parse(["tlreplay", "stat", "-e", "task-clock", "--iters=10", "-r", "3",
                          "--input", "x.gz", "uid", "7"])
        self.assertEqual((j.cmd, j.trace, j.uids), ("stat", "x.gz", [7]))
        j = tlproc.parse(["tlreplay", "sh", "-it.json", "1", "2"])
        self.assertEqual((j.cmd, j.trace, j.uids), ("show", "t.json", [1, 2]))
        self.assertEqual(tlproc.parse(["tlreplay"]).cmd, None)


class TestLocate(unittest.TestCase):
    def test_remembered(self):
        with tempfile.TemporaryDirectory() as d:
            env = {"XDG_STATE_HOME": d}
            self.assertIsNone(locate.remembered_trace(env))
            os.makedirs(os.path.join(d, "tlreplay"))
            with open(os.path.join(d, "tlreplay", "current-trace"), "w") as f:
                f.write("/x/t.json\n")
            self.assertEqual(locate.remembered_trace(env), "/x/t.json")
            env["TLREPLAY_TRACE"] = "/y.json"
            self.assertEqual(locate.remembered_trace(env), "/y.json")

    def test_snapshot_in_tree(self):
        if "TLREPLAY_SCHEMAS" in os.environ:
            self.skipTest("TLREPLAY_SCHEMAS is set")
        self.assertEqual(os.path.realpath(locate.snapshot()), os.path.realpath(SNAPSHOT))


# ------------------------------------------------------------------ the library and a session

@unittest.skipUnless(HAVE_LIB, WHY_NO_LIB)
class TestTrace(unittest.TestCase):
    def setUp(self):
        self.tr = libtl.Trace.open(MINI, LIB)

    def tearDown(self):
        self.tr.close()

    def test_events_and_tree(self):
        tr = self.tr
        self.assertEqual(tr.nevents, 22)
        ev = tr.event(4)
        self.assertEqual((ev.name, ev.kind, ev.dur), ("aten::addmm", "cpu_op", 40.0))
        self.assertEqual(tr.parent(4), 3)
        self.assertEqual(tr.stack(5), [5, 4, 3])
        self.assertEqual(tr.children(4), [5])
        self.assertEqual(tr.gpu_events(3), [7])
        self.assertEqual(tr.launcher(7), 4)
        with self.assertRaises(libtl.TlError):
            tr.event(22)

    def test_find(self):
        self.assertEqual(self.tr.find(regex="addmm|linear"), [3, 4])
        self.assertEqual(self.tr.find(name="aten::copy_"), [9])
        self.assertEqual(self.tr.find(regex="^cuda", kinds=None), [5, 10, 15])
        self.assertIn("aten::addmm", self.tr.op_names())

    def test_ir(self):
        tr = libtl.Trace.open(REPLAY, LIB)
        try:
            e = tr.ir_entry(0, SNAPSHOT)
            self.assertEqual(e["op_name"], "aten::addmm")
            self.assertEqual(e["overload"], "")
            self.assertEqual(e["uid"], 0)
        finally:
            tr.close()

    def test_open_errors(self):
        with self.assertRaises(libtl.TlError) as cm:
            libtl.Trace.open(os.path.join(ROOT, "README.md"), LIB)
        self.assertIn("README.md", str(cm.exception))
        with self.assertRaises(libtl.TlError):
            libtl.Library.get("/nonexistent/libtlreplay.so")


@unittest.skipUnless(HAVE_LIB, WHY_NO_LIB)
class _OnReplayFixture(unittest.TestCase):
    """A Session with tests/fixtures/replay.json open."""

    def setUp(self):
        self.s = Session()
        self.s.settings.library = LIB
        self.s.settings.program = os.path.join(BUILD, "tlreplay")
        self.s.open(REPLAY)

    def tearDown(self):
        self.s.close()


class TestSession(_OnReplayFixture):
    def test_no_trace(self):
        s = Session()
        old = dict(os.environ)
        os.environ.pop("TLREPLAY_TRACE", None)
        os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp()
        try:
            with self.assertRaises(UserError) as cm:
                s.require_trace()
            self.assertIn("No trace open", str(cm.exception))
        finally:
            os.environ.clear()
            os.environ.update(old)

    def test_list_info(self):
        lines = self.s.list_lines("addmm")
        self.assertEqual(len(lines), 3)
        self.assertIn("aten::addmm", lines[1])
        info = "\n".join(self.s.info_lines(0))
        self.assertIn("call 1 of 2 to aten::addmm on this thread", info)
        self.assertIn("schema   aten::addmm(", info)
        self.assertIn("gemm_kernel_sm90", info)
        with self.assertRaises(UserError):
            self.s.list_lines("nomatch")
        with self.assertRaises(UserError):
            self.s.require_uid("x")

    def test_argv(self):
        self.s.settings.iterations = 7
        self.s.settings.replay_options = "--seed 3 --flush-l2"
        self.s.settings.store = False
        argv = self.s.replay_argv(5)
        self.assertEqual(argv[1:6], ["uid", "-i", self.s.trace.path, "-r", "7"])
        self.assertEqual(argv[-4:], ["--seed", "3", "--flush-l2", "5"])
        self.assertIn("--no-store", argv)
        argv = self.s.stat_argv(5, "task-clock", 2)
        self.assertEqual(argv[-2:], ["uid", "5"])
        self.assertEqual(argv[argv.index("-e") + 1], "task-clock")
        self.assertEqual(argv[argv.index("--iters") + 1], "7")


class TestBreaks(_OnReplayFixture):
    def test_plan_break(self):
        g = breaks.plan(self.s, "5")
        self.assertEqual((g.op, g.target, g.target_main, g.uid), ("aten::addmm", 2, True, 5))
        self.assertIn("at::_ops::addmm::call", g.symbols)
        self.assertIn("at::_ops::addmm_out::call", g.symbols)
        g = breaks.plan(self.s, "add.Tensor")
        self.assertEqual(g.symbols, ["at::_ops::add_Tensor::call"])
        for bad in ("add.Nope", "nosuchop", "20", "1", ""):
            with self.assertRaises(UserError, msg=bad):
                breaks.plan(self.s, bad)

    def test_break_counts(self):
        g = BreakGroup("aten::addmm", "", ["at::_ops::addmm::call"], uid=5, target=2,
                       target_main=True)
        self.assertEqual(g.hit(100, 100, True), (1, False))
        self.assertEqual(g.hit(100, 101, False), (1, False))     # another thread
        self.assertEqual(g.hit(100, 100, True), (2, True))
        self.assertEqual(g.count(100, 100), 2)
        self.assertEqual(g.hit(200, 200, True), (1, False))      # a new run
        every = BreakGroup("aten::addmm", "", [])
        self.assertEqual(every.hit(1, 1, True), (1, True))
        self.assertIsNone(breaks.counting([g, every], "aten::addmm"))   # no breakpoint yet
        every.numbers = [3]
        self.assertIs(breaks.counting([g, every], "aten::addmm"), every)  # every call, for ordinals


class TestHere(_OnReplayFixture):
    def found(self, *names):
        return frames.scan(list(names), self.s.schemas(), self.s.known_op)

    def test_here(self):
        found = self.found("at::_ops::addmm::call(at::Tensor const&)", "main")
        lines, uid = here.choose(self.s, found)
        text = "\n".join(lines)
        self.assertIn("The program is in aten::addmm", text)
        self.assertIn("Shapes come from the trace", text)
        self.assertEqual(uid, 0)                # one argument set
        self.assertEqual(self.s.cursor.uid, 0)
        lines, uid = here.choose(self.s, found, ordinal=2)
        self.assertEqual(uid, 5)
        self.assertIn("call 2 of aten::addmm", "\n".join(lines))
        lines, uid = here.choose(self.s, found, ordinal=3)
        self.assertIn("no UID for it", "\n".join(lines))

    def test_here_live(self):
        ev = self.s.trace.event(0).args
        t = tensors.TensorInfo(ev["Input Dims"][1], ev["Input Strides"][1], ev["Input type"][1],
                               0, 72)
        lines, uid = here.choose(self.s, self.found("at::_ops::addmm::call"), live=[(1, "mat1", t)])
        self.assertIn("matches the live arguments", "\n".join(lines))
        self.assertIn("Live arguments", "\n".join(lines))

    def test_here_errors(self):
        with self.assertRaises(UserError) as cm:
            here.choose(self.s, self.found("main", "work"))
        self.assertIn("No PyTorch op on the stack", str(cm.exception))
        with self.assertRaises(UserError) as cm:
            here.choose(self.s, self.found("cudaLaunchKernel", "main"))
        self.assertIn("kernel launch", str(cm.exception))
        with self.assertRaises(UserError) as cm:
            here.choose(self.s, self.found("at::_ops::bmm::call"))
        self.assertIn("aten::bmm is not in the trace", str(cm.exception))
        with self.assertRaises(UserError):
            here.choose(self.s, self.found("at::_ops::addmm::call"), pick=9)

    def test_here_tlreplay(self):
        job = tlproc.parse(["tlreplay", "uid", "-i", MINI, "4"])
        lines, uid = here.in_tlreplay(self.s, job, 4, "from its command line")
        self.assertEqual(uid, 4)
        self.assertTrue(self.s.trace.path.endswith("mini.json"))
        self.assertIn("aten::addmm", "\n".join(lines))


if __name__ == "__main__":
    sys.exit(taptest.main(sys.modules[__name__]))
