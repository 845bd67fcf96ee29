# SPDX-License-Identifier: MIT
"""Op resolution: an IR entry's op_name (and overload) to a callable torch op. Custom
namespaces are registered by importing their modules (built-in ones for vLLM and aiter, the
request's `namespaces` first, a module may be a .py file), each at most once per worker; then
the request's and the built-in aliases are tried. Also the live schema list (`schemas`)."""

import importlib
import importlib.util
import os
import sys

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


def lookup(qual):
    """torch.ops.<ns>.<name> (the op packet) for `ns::name`, None when not registered."""
    ns, sep, name = qual.partition("::")
    if not sep or not ns or not name:
        return None
    try:
        return getattr(getattr(torch.ops, ns), name)
    except Exception:
        return None


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
            alts = aliases.get(base, [])
            if isinstance(alts, str):
                alts = [alts]
            for alt in list(alts) + OP_ALIASES.get(base, []):
                pkt = lookup(alt)
                if pkt is None:
                    import_warns += self.import_namespace(alt.partition("::")[0], extra)
                    pkt = lookup(alt)
                if pkt is not None:
                    used = alt
                    warn("%s replayed as its alias %s" % (base, alt))
                    break
        if pkt is None:
            hint = ""
            if import_warns:
                hint = " (%s)" % "; ".join(sorted(set(import_warns)))
            raise Unavailable("op %s is not in torch %s%s" % (base, torch.__version__, hint))
        if overload is None:
            return pkt, used, base
        ov = overload or "default"
        try:
            op = getattr(pkt, ov)
        except Exception:
            warn("overload %r of %s is not in torch %s; torch picks one from the arguments" % (
                ov, used, torch.__version__))
            return pkt, used, base
        return op, "%s.%s" % (used, ov), base

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
