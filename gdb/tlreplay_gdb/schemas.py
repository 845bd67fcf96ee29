# SPDX-License-Identifier: MIT
"""Operator schemas: which overloads an op has, the at::_ops symbol of each,
and how its C++ entry point takes its arguments.

The schemas come from a snapshot written by scripts/gen_schema_snapshot.py
({"torch": V, "schemas": [...]}, .json or .json.gz) or from any list of
schema strings ("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor").
"""

import gzip
import json


def split_top(text, sep=","):
    """Split @text at @sep outside brackets and parentheses."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "([<":
            depth += 1
        elif ch in ")]>":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    last = "".join(cur).strip()
    if last or out:
        out.append(last)
    return out


class Schema:
    """One parsed schema string (enough of it for the gdb side)."""

    __slots__ = ("text", "name", "overload", "args", "returns")

    def __init__(self, text):
        self.text = text
        head, _, rest = text.partition("(")
        self.name, _, self.overload = head.strip().partition(".")
        depth, end = 1, None
        for i, ch in enumerate(rest):
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    end = i
                    break
        if end is None:
            raise ValueError("unbalanced schema: %s" % text)
        self.args = []          # (type, name, kwarg_only)
        kw = False
        for a in split_top(rest[:end]):
            if not a:
                continue
            if a == "*":
                kw = True
                continue
            a = a.split("=", 1)[0].strip()
            typ, _, nm = a.rpartition(" ")
            self.args.append((typ.strip(), nm.strip(), kw))
        self.returns = rest[end + 1:].partition("->")[2].strip()

    @property
    def symbol(self):
        """The struct of at::_ops that holds this overload's call/redispatch."""
        return ops_symbol(self.name, self.overload)

    def has_tensor(self):
        """An op of ATen's C++ API: a Tensor among its arguments or returns
        (TorchScript's aten::add.int and friends have none)."""
        return "Tensor" in self.returns or any("Tensor" in t for t, _, _ in self.args)

    def returns_in_memory(self):
        """True when the C++ entry point returns through a hidden pointer (the
        first integer register): a Tensor, a tuple, a vector, a Scalar... by
        value. Mutable returns (Tensor(a!)) are references; void, int, float,
        bool and enums come back in registers."""
        r = self.returns.replace(" ", "")
        if r in ("()", "int", "float", "bool", "ScalarType", "Layout", "MemoryFormat", "QScheme"):
            return False
        if r.startswith("Tensor(") and r.endswith("!)"):
            return False
        return True


def ops_symbol(name, overload):
    """at::_ops::<symbol>: "aten::add", "Tensor" -> "add_Tensor"."""
    base = name.split("::", 1)[-1]
    return base + ("_" + overload.replace(".", "_") if overload else "")


class SchemaIndex:
    """Schemas by op name and by at::_ops symbol."""

    def __init__(self, strings, label=""):
        self.label = label
        self.by_name = {}
        self.by_symbol = {}
        for s in strings:
            try:
                sc = Schema(s)
            except ValueError:
                continue
            self.by_name.setdefault(sc.name, []).append(sc)
            if sc.name.startswith("aten::"):
                self.by_symbol.setdefault(sc.symbol, sc)

    @classmethod
    def load(cls, path):
        with open(path, "rb") as f:
            data = f.read()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        doc = json.loads(data.decode("utf-8"))
        if isinstance(doc, dict):
            return cls(doc.get("schemas") or [], "torch %s" % doc.get("torch", "?"))
        return cls(doc, path)

    def overloads(self, name):
        """The C++-callable overloads of @name ("aten::add"), registry order."""
        return [s for s in self.by_name.get(name, []) if s.has_tensor()]

    def find(self, name, overload):
        for s in self.by_name.get(name, []):
            if s.overload == overload:
                return s
        return None

    def known(self, name):
        return name in self.by_name
