# SPDX-License-Identifier: MIT
"""Op resolution: an IR entry's op_name (and overload) to a callable torch op. Custom
namespaces are registered by importing their modules (built-in ones for vLLM and aiter, the
request's `namespaces` first, a module may be a .py file), each at most once per worker; then
the request's and the built-in aliases are tried. Also the live schema list (`schemas`)."""

import importlib
import importlib.util
import os
import re
import sys

from . import portable
from .errors import ArgsError, Unavailable, one_line
from .torchenv import torch

# namespace -> modules whose import registers its ops
NAMESPACE_MODULES = {
    "aiter": ["aiter"],
    "_rocm_C": ["vllm._rocm_C"],
    "_C": ["vllm._C"],
    "_C_cache_ops": ["vllm._C"],
    "vllm": ["vllm._C", "vllm._rocm_C"],
}
OP_ALIASES = {"_rocm_C::wvSplitK": ["_rocm_C::wvSpltK"]}


def namespace_request(value):
    """`namespaces` is {ns: [modules]} (replay) or [ns, ...] (schemas); both are accepted.
    Returns ({ns: [modules]}, [ns, ...])."""
    if value is None:
        return {}, []
    if isinstance(value, dict):
        extra = {}
        for ns, mods in value.items():
            if isinstance(mods, str):
                mods = [mods]
            if not isinstance(mods, list) or not all(isinstance(m, str) for m in mods):
                raise ArgsError("namespaces[%r] must be a list of module names" % ns)
            extra[ns] = mods
        return extra, list(extra)
    if isinstance(value, list) and all(isinstance(n, str) for n in value):
        return {}, list(value)
    raise ArgsError("namespaces must be an object {ns: [modules]} or a list of namespaces")


# An operator's namespace, name and overload are identifiers; a dunder never is one.
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class NotAnOperator(Unavailable):
    """op_name names something of torch.ops that is not a registered operator: torch.ops's own
    methods (load_library, import_module ...), attributes of a namespace object (__dict__ ...),
    or a name that is no identifier. An IR file is data: it must never reach such a callable
    (load_library::__call__ with "./evil.so" would dlopen that file and run its constructor)."""

    def __init__(self, qual):
        Unavailable.__init__(self, "not an operator: %s" % qual)


def _plain_name(name):
    return bool(_IDENT.match(name)) and not name.startswith("__")


def check_name(qual):
    """Raise NotAnOperator unless `ns::name` (an optional `.overload` after name) is made of
    identifiers that cannot name an attribute of torch.ops or of its namespace objects."""
    ns, sep, rest = qual.partition("::")
    name, _, overload = rest.partition(".")
    parts = [ns, name] + ([overload] if overload else [])
    if not sep or not all(_plain_name(p) for p in parts):
        raise NotAnOperator(qual)
    own = vars(torch.ops).get(ns)
    if hasattr(type(torch.ops), ns) or (own is not None and not _is_namespace(own)):
        raise NotAnOperator(qual)


def _is_namespace(obj):
    return isinstance(obj, torch._ops._OpNamespace)


def _is_packet(obj):
    return isinstance(obj, torch._ops.OpOverloadPacket)


def _is_overload(obj):
    return isinstance(obj, torch._ops.OpOverload)


def lookup(qual):
    """torch.ops.<ns>.<name> (the op's overload packet) for `ns::name`; None when no operator
    of that name is registered. Raises NotAnOperator when the name is not an operator's (see
    check_name): only registered operators' packets are ever returned."""
    check_name(qual)
    ns, _, name = qual.partition("::")
    try:
        space = getattr(torch.ops, ns)
        if not _is_namespace(space) or hasattr(type(space), name):
            raise NotAnOperator(qual)
        pkt = getattr(space, name)
    except NotAnOperator:
        raise
    except Exception:
        return None
    if not _is_packet(pkt):
        raise NotAnOperator(qual)
    return pkt


def _alternatives(base, aliases):
    """The other names to try for op base: the request's --alias ones (a name or a list), then
    the built-in OP_ALIASES."""
    alts = aliases.get(base, [])
    if isinstance(alts, str):
        alts = [alts]
    return list(alts) + OP_ALIASES.get(base, [])


class OpResolver:
    """Resolves ops for one worker; remembers which modules it imported (or why not)."""

    def __init__(self):
        self._modules = {}  # module -> None (imported) or error text

    def import_module(self, mod):
        if mod in self._modules:
            return self._modules[mod]
        err = None
        try:
            if mod.endswith(".py") or os.sep in mod:
                name = "tlreplay_ns_%d" % len(self._modules)
                spec = importlib.util.spec_from_file_location(name, mod)
                if spec is None or spec.loader is None:
                    raise ImportError("cannot load %s" % mod)
                module = importlib.util.module_from_spec(spec)
                sys.modules[name] = module
                spec.loader.exec_module(module)
            else:
                importlib.import_module(mod)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # an extension's import can raise anything, SystemExit included
            err = one_line(exc)
        self._modules[mod] = err
        return err

    def import_namespace(self, ns, extra):
        """Import the modules of ns (extra's first); one warning per failed import."""
        warns = []
        for mod in list(extra.get(ns, [])) + NAMESPACE_MODULES.get(ns, []):
            err = self.import_module(mod)
            if err:
                warns.append("import %s: %s" % (mod, err))
        return warns

    def resolve(self, entry, req, warn):
        """(op to call, what it is called in the reply, ns::name without the overload)."""
        op_name = entry.get("op_name")
        if not isinstance(op_name, str) or not op_name:
            raise ArgsError("entry has no op_name")
        overload = entry.get("overload")
        if overload is not None and not isinstance(overload, str):
            raise ArgsError("overload must be a string")
        base = op_name
        ns, sep, name = op_name.partition("::")
        if not sep:
            raise Unavailable("op %s has no namespace (ns::name)" % op_name)
        if overload is None and "." in name:
            name, overload = name.split(".", 1)
            base = "%s::%s" % (ns, name)
        extra, _ = namespace_request(req.get("namespaces"))
        aliases = req.get("aliases") or {}
        if not isinstance(aliases, dict):
            raise ArgsError("aliases must be an object {op: [other names]}")
        import_warns = []
        used = base
        pkt = lookup(base)
        if pkt is None:
            import_warns += self.import_namespace(ns, extra)
            pkt = lookup(base)
        if pkt is None:
            for alt in _alternatives(base, aliases):
                pkt = lookup(alt)
                if pkt is None:
                    import_warns += self.import_namespace(alt.partition("::")[0], extra)
                    pkt = lookup(alt)
                if pkt is not None:
                    used = alt
                    warn("%s replayed as its alias %s" % (base, alt))
                    break
        stand_in = portable.stand_in(base) if pkt is None else None
        if stand_in:
            as_, fn = stand_in
            warn("%s is not in torch %s: replayed as %s with the same arguments" % (base, torch.__version__, as_))
            return fn, "%s (as %s)" % (base, as_), base
        if pkt is None:
            hint = ""
            if import_warns:
                hint = " (%s)" % "; ".join(sorted(set(import_warns)))
            raise Unavailable("op %s is not in torch %s%s" % (base, torch.__version__, hint))
        if overload is None:
            return pkt, used, base
        ov = overload or "default"
        if not _plain_name(ov) or hasattr(type(pkt), ov):  # the packet's methods are no overloads
            raise NotAnOperator("%s.%s" % (base, ov))
        try:
            op = getattr(pkt, ov)
            if not _is_overload(op):
                raise AttributeError(ov)
        except Exception:
            warn("overload %r of %s is not in torch %s; torch picks one from the arguments" % (
                ov, used, torch.__version__))
            return pkt, used, base
        return op, "%s.%s" % (used, ov), base

    def no_kernel_fallback(self, base, req, device, exc, warn):
        """After op base ran into torch's "no kernel for this backend" on device: (op, what it
        is called) to replay instead: the request's and the built-in aliases that this torch
        has, then the portable stand-in (portable.py). None of them: Unavailable, in one line
        (torch's own message is a 600-character list of backends)."""
        aliases = req.get("aliases") or {}
        for alt in _alternatives(base, aliases if isinstance(aliases, dict) else {}):
            pkt = lookup(alt)
            if pkt is not None:
                warn("%s has no %s kernel: replayed as its alias %s" % (base, device.type, alt))
                return pkt, alt
        stand_in = portable.stand_in(base)
        if stand_in:
            as_, fn = stand_in
            warn("%s has no %s kernel in torch %s: replayed as %s with the same arguments (on the device "
                 "it ran on, the op itself runs)" % (base, device.type, torch.__version__, as_))
            return fn, "%s (as %s)" % (base, as_)
        raise Unavailable("%s has no %s kernel in torch %s (an op of another backend): replay it on the "
                          "device it ran on, or give --alias %s=OTHER" % (base, device.type, torch.__version__,
                                                                         base))

    def schemas(self, namespaces):
        """The live registry as str(schema), without duplicates, after importing the modules of
        the namespaces asked for (plus their dispatcher overloads): (schemas, warnings)."""
        extra, names = namespace_request(namespaces)
        warns = []
        for ns in names:
            warns.extend(self.import_namespace(ns, extra))
        out, seen = [], set()
        for s in torch._C._jit_get_all_schemas():
            text = str(s)
            if text not in seen:
                seen.add(text)
                out.append(text)
        getter = getattr(torch._C, "_dispatch_get_all_op_names", None)
        if getter is not None and names:
            try:
                for qual in getter():
                    ns, _, base = qual.partition("::")
                    if ns not in names or not base:
                        continue
                    pkt = lookup("%s::%s" % (ns, base.split(".")[0]))
                    for ov in (pkt.overloads() if pkt is not None else []):
                        text = str(getattr(pkt, ov)._schema)
                        if text not in seen:
                            seen.add(text)
                            out.append(text)
            except Exception as exc:
                warns.append("dispatcher op list: %s" % one_line(exc))
        return out, warns
