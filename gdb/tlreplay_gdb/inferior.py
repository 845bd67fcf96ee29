# SPDX-License-Identifier: MIT
"""What the stopped program holds, read through gdb for `tlreplay here`: the selected thread,
its stack, the op's tensor arguments from the argument registers at the op's entry (x86-64 and
aarch64), and, when the program is tlreplay itself, the command line and UID it works on.
Nothing here changes the program.
"""

import os
import re

import gdb

from . import frames, locate, tensors, tlproc
from .session import UserError

# the integer argument registers in order (System V x86-64, AAPCS64)
_INT_REGS = {"i386:x86-64": ("rdi", "rsi", "rdx", "rcx", "r8", "r9"),
             "aarch64": ("x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7")}
# argument types that take one such register (a Tensor goes by reference), so the registers
# can be counted up to the last tensor wanted
_ONE_REG_TYPES = re.compile(r"^(Tensor(\([a-z]!?\))?|Tensor\?|Scalar\??|int|SymInt|bool|"
                            r"ScalarType\??|Layout\??|MemoryFormat\??|Device\??|Generator\?)$")
_TENSOR = re.compile(r"^Tensor(\([a-z]!?\))?$")


def require_live():
    """The selected inferior and thread, when the thread is stopped."""
    inf = gdb.selected_inferior()
    if inf is None or inf.pid == 0:
        raise UserError("The program is not being run.")
    th = gdb.selected_thread()
    if th is None:
        raise UserError("No thread selected.")
    if th.is_running():
        raise UserError("The selected thread is running; stop it first (interrupt).")
    return inf, th


def stack(limit=256):
    """[(frame, name)] from the selected frame outward."""
    f = gdb.selected_frame()
    out = []
    while f is not None and len(out) < limit:
        try:
            name = f.name()
        except gdb.error:
            name = None
        out.append((f, name))
        try:
            f = f.older()
        except gdb.error:
            break
    return out


def _offset_in_symbol(pc):
    try:
        s = gdb.execute("info symbol 0x%x" % pc, to_string=True)
    except gdb.error:
        return None
    m = re.search(r" \+ (\d+) in section", s)
    if m:
        return int(m.group(1))
    return 0 if " in section " in s else None


def read_live(session, frame, fop, inf):
    """The op's tensor arguments read from the registers at its entry:
    ([(position, name, TensorInfo)], None) or (None, why not). The TensorImpl layout found is
    kept in session.tensor_offset for the next reads."""
    if frame.level() != 0:
        return None, "the op's frame is not the innermost one, so its arguments are not in " \
                     "the registers any more"
    if not fop.how.startswith("dispatcher"):
        return None, "only at::_ops entry points have known arguments"
    off = _offset_in_symbol(frame.pc())
    if off is None or off > 16:
        return None, "the program is past the op's entry, so its arguments are not in the " \
                     "registers any more"
    arch = frame.architecture().name()
    regs = _INT_REGS.get(arch)
    if regs is None:
        return None, "arguments are not read on %s" % arch
    sc = session.schemas()
    schema = sc.find(fop.op, fop.overload) if sc is not None else None
    if schema is None:
        return None, "no schema of %s in the bundled snapshot" % fop.full_name
    slot = 0
    if arch == "i386:x86-64" and schema.returns_in_memory():
        slot += 1                       # the hidden pointer to the returned value
    if fop.how == "dispatcher redispatch":
        slot += 1                       # c10::DispatchKeySet
    want = []
    for pos, (typ, name, _) in enumerate(schema.args):
        if slot >= len(regs) or not _ONE_REG_TYPES.match(typ):
            break
        if _TENSOR.match(typ):
            want.append((pos, name, regs[slot]))
        slot += 1
    if not want:
        return None, "%s takes no tensor in its first arguments" % fop.full_name
    addrs = [int(frame.read_register(r)) & 0xFFFFFFFFFFFFFFFF for _, _, r in want]

    def read(addr, n):
        return bytes(inf.read_memory(addr, n))

    infos, offset = tensors.read_tensors(read, addrs, session.tensor_offset)
    if offset is None or any(t is None for t in infos):
        return None, "the argument registers do not point to tensors whose TensorImpl reads " \
                     "back consistently"
    session.tensor_offset = offset
    return [(pos, name, t) for (pos, name, _), t in zip(want, infos)], None


def _proc_file(pid, name):
    try:
        with open("/proc/%d/%s" % (pid, name), "rb") as f:
            return [x.decode("utf-8", "replace") for x in f.read().split(b"\0") if x]
    except OSError:
        return None


def _is_local(inf):
    conn = getattr(inf, "connection", None)     # gdb >= 13
    return conn is None or getattr(conn, "type", "native") == "native"


def tlreplay_job(stack_frames, inf):
    """What a stopped tlreplay process works on: (job, uid, how)."""
    local = _is_local(inf)
    argv = _proc_file(inf.pid, "cmdline") if local else None
    if argv is None:                    # not a local process: main's argv
        argv = []
        for f, name in stack_frames:
            if frames.qualified_name(name) == "main":
                try:
                    argc = int(f.read_var("argc"))
                    av = f.read_var("argv")
                    argv = [av[i].string() for i in range(argc)]
                except (gdb.error, ValueError):
                    pass
    job = tlproc.parse(argv)
    if not job.trace and local:
        env = _proc_file(inf.pid, "environ")
        if env is not None:
            envd = dict(e.partition("=")[::2] for e in env)
            job.trace = locate.remembered_trace(envd)
    if job.trace and not os.path.isabs(job.trace) and local:
        try:
            job.trace = os.path.join(os.readlink("/proc/%d/cwd" % inf.pid), job.trace)
        except OSError:
            pass
    uid, how = None, "from its command line"
    for f, name in stack_frames:
        q = frames.qualified_name(name)
        try:
            if q in ("cmd_uid", "cmd_stat"):
                job_v = f.read_var("job")
                if int(job_v["tr"]) != 0:
                    uid, how = int(job_v["uid"]), "its variable job.uid in %s" % q
                    break
            elif q == "uid_job_prepare":
                uid = int(f.read_var("uid_str").string(), 0)
                how = "its argument uid_str of uid_job_prepare"
                break
        except (gdb.error, ValueError):
            continue
    if uid is None and job.uids:
        uid = job.uids[0]
    return job, uid, how
