# SPDX-License-Identifier: MIT
"""Which op a stack frame belongs to, from its (demangled) function name.

  at::_ops::addmm::call(...)            aten::addmm       (the dispatcher's entry: what the
  at::_ops::add_Tensor::redispatch(...) aten::add.Tensor   profiler records, one per call)
  at::native::addmm_out_cpu(...)        aten::addmm       (kernels: a heuristic on the name)
  at::native::structured_addmm_out_cpu::impl
  at::cpu::addmm, at::compositeexplicitautograd::...
  at::(anonymous namespace)::wrapper_CPU_addmm, wrapper__addmm
  cudaLaunchKernel, hipLaunchKernel, cuLaunchKernel   a kernel launch (the op is above it)
  cmd_uid, cmd_stat, uid_job_prepare ...              the tlreplay command itself

Names that are not at::_ops are only taken when the op they suggest exists
(in the trace or in the schemas): known(name) says so.
"""

import re

LAUNCH_FUNCS = frozenset((
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel",
    "cuLaunchKernel", "cuLaunchKernelEx", "cuLaunchCooperativeKernel",
    "hipLaunchKernel", "hipExtLaunchKernel", "hipModuleLaunchKernel", "hipLaunchCooperativeKernel",
    "hipExtModuleLaunchKernel", "cudaGraphLaunch", "hipGraphLaunch",
))

# functions of the tlreplay command that hold the UID being replayed
TLREPLAY_FUNCS = frozenset(("cmd_uid", "cmd_stat", "uid_job_prepare", "replay_one",
                            "cmd_ir", "cmd_show", "cmd_tree", "cmd_pack", "cmd_replay"))

KEY_NAMESPACES = ("cpu", "cuda", "meta", "mps", "compositeimplicitautograd",
                  "compositeexplicitautograd", "compositeexplicitautogradnonfunctional")

_SUFFIXES = ("_out_cpu", "_out_cuda", "_out_mps", "_cpu_", "_cpu", "_cuda", "_mps", "_out",
             "_outf", "_kernel", "_impl", "_stub", "_symint")


class FrameOp:
    """What one frame says: kind is "op", "launch" or "tlreplay"."""

    __slots__ = ("kind", "op", "overload", "func", "how")

    def __init__(self, kind, op=None, overload="", func="", how=""):
        self.kind, self.op, self.overload, self.func, self.how = kind, op, overload, func, how

    def __repr__(self):
        return "FrameOp(%r, %r, %r, %r)" % (self.kind, self.op, self.overload, self.how)

    @property
    def full_name(self):
        return self.op + ("." + self.overload if self.overload else "")


def _strip_brackets(s, open_ch, close_ch):
    out, depth = [], 0
    for ch in s:
        if ch == open_ch:
            depth += 1
        elif ch == close_ch:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def qualified_name(name):
    """'at::_ops::addmm::call(at::Tensor const&, ...)@plt' -> 'at::_ops::addmm::call':
    no @plt, clone suffix, parameters, cv-qualifiers or template arguments."""
    if not name:
        return ""
    s = name.strip()
    s = re.sub(r"@plt$", "", s)
    s = re.sub(r"\s*\[clone [^\]]*\]", "", s)
    s = re.sub(r"\.(cold|isra|part|constprop|lto_priv)(\.\d+)*$", "", s)
    s = re.sub(r"\s+(const|volatile|&|&&)$", "", s)
    if s.endswith(")"):
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            if s[i] == ")":
                depth += 1
            elif s[i] == "(":
                depth -= 1
                if depth == 0:
                    # "(anonymous namespace)" is part of the name, not a parameter list
                    if s[i:].startswith("(anonymous namespace)"):
                        break
                    s = s[:i]
                    break
    s = s.replace("(anonymous namespace)", "{anon}")
    s = _strip_brackets(s, "<", ">")
    # a return type before the name (templates print it): "void foo::bar"
    if " " in s:
        s = s.rsplit(" ", 1)[1]
    return s.replace("{anon}", "(anonymous namespace)")


def op_from_symbol(sym, schemas=None, known=None):
    """at::_ops::<sym>: (op, overload). The schemas say it exactly; without
    them, the longest prefix of @sym that is a known op."""
    if schemas is not None:
        sc = schemas.by_symbol.get(sym)
        if sc is not None:
            return sc.name, sc.overload
    known = known or (lambda n: False)
    if known("aten::" + sym):
        return "aten::" + sym, ""
    idx = [m.start() for m in re.finditer("_", sym)]
    for i in reversed(idx):
        if i > 0 and known("aten::" + sym[:i]):
            return "aten::" + sym[:i], sym[i + 1:]
    return "aten::" + sym, ""


def _op_candidates(base):
    """Op names a kernel function name may stand for, most specific first."""
    cands = [base]
    b = base
    if b.startswith("structured_"):
        b = b[len("structured_"):]
        cands.append(b)
    changed = True
    while changed:
        changed = False
        for suf in _SUFFIXES:
            if b.endswith(suf) and len(b) > len(suf):
                b = b[:-len(suf)]
                cands.append(b)
                changed = True
                break
    out = []
    for c in cands:
        if c and c not in out:
            out.append(c)
    return out


def _wrapper_op(rest, known):
    """wrapper_CPU_addmm_out_out, wrapper__addmm, wrapper_Tensor_add_Tensor:
    the longest run of '_'-separated words that is a known op."""
    toks = rest.split("_")
    best = None
    for i in range(len(toks)):
        for j in range(len(toks), i, -1):
            cand = "_".join(toks[i:j])
            if not cand.strip("_"):
                continue
            if known("aten::" + cand) and (best is None or len(cand) > len(best)):
                best = cand
    return best


def classify(name, schemas=None, known=None):
    """The FrameOp of a frame whose function is @name, or None."""
    q = qualified_name(name)
    if not q:
        return None
    known = known or (lambda n: schemas is not None and schemas.known(n))
    parts = q.split("::")
    if q in LAUNCH_FUNCS or q.lstrip("_") in LAUNCH_FUNCS:
        return FrameOp("launch", func=q, how="kernel launch")
    if q in TLREPLAY_FUNCS:
        return FrameOp("tlreplay", func=q, how="tlreplay command")
    # at::_ops::<sym>::call / redispatch
    if len(parts) >= 4 and parts[0] == "at" and parts[1] == "_ops" and \
            parts[3] in ("call", "redispatch"):
        op, ov = op_from_symbol(parts[2], schemas, known)
        return FrameOp("op", op, ov, q, "dispatcher entry" if parts[3] == "call"
                       else "dispatcher redispatch")
    if parts[0] != "at":
        return None
    anon = [p for p in parts[1:] if p != "(anonymous namespace)"]
    # wrapper_<key>_<op>[_<overload>] in the generated Register*.cpp
    for p in anon:
        if p.startswith("wrapper_"):
            op = _wrapper_op(p[len("wrapper_"):], known)
            if op:
                return FrameOp("op", "aten::" + op, "", q, "kernel wrapper")
            return None
    # at::native::[ns::]name[::impl]
    if len(anon) >= 2 and anon[0] == "native":
        comps = [c for c in anon[1:] if c not in ("DEFAULT", "CPU_CAPABILITY", "AVX2", "AVX512",
                                                   "cpublas", "vec", "mkldnn")]
        for c in comps:
            for cand in _op_candidates(c):
                if known("aten::" + cand):
                    return FrameOp("op", "aten::" + cand, "", q, "native kernel")
        return None
    # at::cpu::addmm, at::compositeexplicitautograd::add_out ...
    if len(anon) >= 2 and anon[0] in KEY_NAMESPACES:
        for cand in _op_candidates(anon[1]):
            if known("aten::" + cand):
                return FrameOp("op", "aten::" + cand, "", q, "%s kernel" % anon[0])
    return None


def scan(names, schemas=None, known=None):
    """Classify a stack given as function names, innermost first. Returns
    [(index, FrameOp)] for the frames that say something."""
    out = []
    for i, n in enumerate(names):
        f = classify(n, schemas, known) if n else None
        if f is not None:
            out.append((i, f))
    return out


def innermost_op(found):
    """From scan()'s result: (index, FrameOp) of the innermost op, and whether a
    kernel launch lies below it; (None, None, launch) if there is no op."""
    launch = None
    for i, f in found:
        if f.kind == "launch" and launch is None:
            launch = (i, f)
        if f.kind == "op":
            return i, f, launch
    return None, None, launch
