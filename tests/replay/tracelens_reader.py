#!/usr/bin/python3
"""Read a tlreplay IR file the way TraceLens's batched_replay.py does (its contract as written
down in ../shared/notes/tracelens-facts.md, sections 11.2 and 11.9), and replay the entries whose
dtypes TraceLens's build_tensor knows, on the CPU. This is not TraceLens's code: it is the
reading contract re-stated, so that a change to our IR that would break TraceLens's reader fails
here.

Usage: tracelens_reader.py IR.json  -> prints "read N entries, replayed M (K failed in torch)" and
exits 0, or names the first entry that breaks the contract and exits 1. Ops that this torch's
CPU kernels refuse count in K: that is torch, not the file.
"""
import dataclasses
import json
import sys

import torch


@dataclasses.dataclass
class TensorCfg:  # TraceLens builds TensorCfg(**value): exactly these fields
    shape: list
    dtype: str
    strides: list
    init: object = None


# TraceLens PR #607's dtype map (main knows fewer)
DTYPES = {"float": torch.float32, "double": torch.float64, "c10::Half": torch.float16,
          "c10::BFloat16": torch.bfloat16, "long": torch.int64, "long int": torch.int64,
          "int": torch.int32, "bool": torch.bool, "unsigned char": torch.uint8}


def build_tensor(cfg):
    t = torch.empty_strided(cfg.shape, cfg.strides, dtype=DTYPES[cfg.dtype])
    if cfg.init == "normal" and t.is_floating_point():
        t.normal_()
    elif cfg.init is not None:
        t.zero_()
    return t


def fail(i, entry, why):
    print("entry %d (%s): %s" % (i, entry.get("op_name") if isinstance(entry, dict) else "?", why))
    sys.exit(1)


def main():
    doc = json.load(open(sys.argv[1]))
    if not isinstance(doc, list):
        fail(-1, {}, "the file is not a JSON list")
    replayed = torch_failed = 0
    for i, e in enumerate(doc):
        if not isinstance(e.get("op_name"), str) or not isinstance(e.get("replay_ir"), dict):
            fail(i, e, "no op_name or replay_ir")
        ir = e["replay_ir"]
        if not isinstance(ir.get("list_pos_args"), list) or not isinstance(ir.get("list_kwargs"), list):
            fail(i, e, "replay_ir lacks list_pos_args/list_kwargs")
        if "count" in e and not isinstance(e["count"], int):
            fail(i, e, "count is not an integer")
        args, kwargs, knowable = [], {}, True
        for where, lst in (("pos", ir["list_pos_args"]), ("kw", ir["list_kwargs"])):
            for a in lst:
                if not {"arg_name", "arg_type", "value"} <= set(a):
                    fail(i, e, "an arg without arg_name/arg_type/value: %r" % a)
                v = a["value"]
                if where == "pos" and a["arg_type"].startswith("Tensor") and v and isinstance(v, dict):
                    try:
                        cfg = TensorCfg(**v)
                    except TypeError as exc:
                        fail(i, e, "TensorCfg(**value) fails: %s" % exc)
                    numel = 1
                    for d in cfg.shape:
                        numel *= d
                    if cfg.dtype not in DTYPES or numel > (1 << 28):
                        knowable = False  # a dtype TraceLens lacks, or too big to build here
                        continue
                    v = build_tensor(cfg)
                if where == "pos":
                    args.append(v)
                else:
                    kwargs[a["arg_name"]] = v
        # TraceLens cannot build TensorLists: it passes the list of dicts raw
        tensor_list = any(a["arg_type"].startswith("Tensor") and isinstance(a["value"], list)
                          for a in ir["list_pos_args"])
        if not knowable or tensor_list or e.get("schemaless") or not e["op_name"].startswith("aten::"):
            continue
        try:
            func, _ = torch._C._jit_get_operation(e["op_name"])
        except RuntimeError:
            continue  # an op this torch lacks: TraceLens fails on it too
        try:
            func(*args, **kwargs)
            replayed += 1
        except RuntimeError as exc:  # a CPU kernel that refuses the GPU trace's dtypes
            torch_failed += 1
            print("# entry %d (%s): %s" % (i, e["op_name"], str(exc).splitlines()[0]), file=sys.stderr)
    print("read %d entries, replayed %d (%d failed in torch)" % (len(doc), replayed, torch_failed))


if __name__ == "__main__":
    main()
