# SPDX-License-Identifier: MIT
"""The standalone replayer, for people who only have Python and torch (what `tlreplay pack`
ships): `replay IR.json` replays and times the entries of an IR file in this process, with the
worker's own Session, and prints one line (or one JSON object) per op and a summary; `schemas`
prints the op schemas this torch knows. main() also starts worker mode (`--worker`)."""

import argparse
import json
import math
import os
import re
import stat
import sys
import zlib

from .defaults import DEFAULT_BUDGET_S, DEFAULT_ITERS, DEFAULT_WARMUP

# Nothing above imports torch (seconds on a small machine): --help, a usage error or a bad IR
# file are answered at once; the functions that replay import what needs it.


def stats(times):
    if not times:
        return {}
    s = sorted(times)
    n = len(s)
    median = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0
    mean = sum(s) / n
    std = math.sqrt(sum((x - mean) ** 2 for x in s) / (n - 1)) if n > 1 else 0.0  # sample std, as tlreplay
    return {"median_us": median, "mean_us": mean, "std_us": std, "min_us": s[0], "max_us": s[-1]}


MAX_JSON_DEFAULT = 1 << 30  # tlreplay/input.h's TL_INPUT_MAX_DEFAULT


def max_json():
    """The small-input limit in bytes, as tlreplay reads $TLREPLAY_MAX_JSON ("64M", "1GiB";
    "0", "none": no limit), so that an IR file is held to the same limit here."""
    s = os.environ.get("TLREPLAY_MAX_JSON", "")
    if not s:
        return MAX_JSON_DEFAULT
    if s in ("none", "unlimited"):
        return None
    m = re.fullmatch(r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)(?:([kKmMgGtT])i?)?[bB]?", s)
    if not m:
        return MAX_JSON_DEFAULT
    v = float(m.group(1)) * 1024 ** ("kmgt".index(m.group(2).lower()) + 1 if m.group(2) else 0)
    return int(v) or None


def _limit_error(how, limit):
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if limit >= 1 << shift and limit % (1 << shift) == 0:
            size = "%d %s" % (limit >> shift, unit)
            break
    else:
        size = "%d bytes" % limit
    return ValueError("%s more than %s, the limit for an IR file (TLREPLAY_MAX_JSON sets it)" % (how, size))


def read_small(path, limit):
    """The bytes of IR file @path, gunzipped when gzip: a regular file or a pipe (never a
    device: /dev/zero would be read to the limit for nothing), at most @limit bytes
    (None: no limit) before and after inflating."""
    cap = -1 if limit is None else limit + 1
    with open(path, "rb") as f:
        mode = os.fstat(f.fileno()).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
            kind = "a directory" if stat.S_ISDIR(mode) else "a character device" if stat.S_ISCHR(mode) \
                else "a block device" if stat.S_ISBLK(mode) else "not a regular file"
            raise ValueError("%s, not an IR file (read from a regular file or a pipe)" % kind)
        if limit is not None and stat.S_ISREG(mode) and os.fstat(f.fileno()).st_size > limit:
            raise _limit_error("holds", limit)
        data = f.read(cap)
    if limit is not None and len(data) > limit:
        raise _limit_error("holds", limit)
    if data[:2] != b"\x1f\x8b":
        return data
    out, total, rest = [], 0, data
    while rest[:2] == b"\x1f\x8b":  # members one after another, as gzip -d reads them
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out.append(d.decompress(rest, 0 if limit is None else limit + 1 - total))  # >= 1
        except zlib.error as exc:
            raise ValueError("corrupt gzip: %s" % exc)
        total += len(out[-1])
        if limit is not None and (total > limit or d.unconsumed_tail):
            raise _limit_error("inflates to", limit)
        if not d.eof:
            raise ValueError("corrupt or truncated gzip (it ends within the data)")
        rest = d.unused_data
    return b"".join(out)


def load_ir(path):
    data = json.loads(read_small(path, max_json()).decode("utf-8"))
    if isinstance(data, dict):
        data = data.get("entries", [data]) if "op_name" not in data else [data]
    if not isinstance(data, list):
        raise ValueError("an IR file holds a JSON list of entries")
    return data


def _kv_list(items, what):
    out = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SystemExit("tlreplay_worker: %s expects KEY=VALUE, not %r" % (what, item))
        out.setdefault(key, []).extend(v for v in value.split(",") if v)
    return out


def _parse_init_kwargs(items):
    out = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SystemExit("tlreplay_worker: --init-kwarg expects KEY=VALUE, not %r" % item)
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


def _fmt_us(x):
    return "%.3f" % x if x < 100 else "%.1f" % x


def _op_json(index, op_name, entry, reply, st):
    """The -j object of one op (st: stats() of its times)."""
    status = reply.get("status")
    count = entry.get("count") if isinstance(entry, dict) else None
    obj = {"index": index, "op": op_name, "status": status}
    if isinstance(entry, dict) and entry.get("uid") is not None:
        obj["uid"] = entry.get("uid")
    if status == "ok":
        obj.update({"resolved": reply.get("op"), "device": reply.get("device"),
                    "iters": reply.get("iters")})
        obj.update({k: round(v, 3) for k, v in st.items()})
        if isinstance(count, (int, float)) and st:
            obj["count"] = count
            obj["est_total_us"] = round(count * st["median_us"], 3)
        for key in ("trace_dur_us", "gpu_time_us"):
            if isinstance(entry, dict) and key in entry:
                obj[key] = entry[key]
        obj.update({"args": reply.get("args"), "result": reply.get("result"),
                    "kernels": reply.get("kernels"), "init": reply.get("init")})
        if reply.get("kernel_us") is not None:
            obj["kernel_us"] = reply["kernel_us"]
    else:
        if reply.get("kind"):
            obj["kind"] = reply["kind"]
        obj["error"] = reply.get("error")
    if reply.get("warnings"):
        obj["warnings"] = reply["warnings"]
    return obj


def _op_text(out, head, entry, reply, st, verbose):
    """The lines of one op: head (`[i/N] op`) and the outcome, then init, warning lines."""
    status = reply.get("status")
    count = entry.get("count") if isinstance(entry, dict) else None
    if status == "ok":
        if st:
            out.write("%s: median %s us (mean %s, std %s, min %s, max %s), %d iters\n" % (
                head, _fmt_us(st["median_us"]), _fmt_us(st["mean_us"]), _fmt_us(st["std_us"]),
                _fmt_us(st["min_us"]), _fmt_us(st["max_us"]), reply.get("iters", 0)))
        else:
            out.write("%s: ok (not timed)\n" % head)
        if isinstance(count, (int, float)) and st:
            out.write("  count %s: %s us in the workload\n" % (count, _fmt_us(count * st["median_us"])))
        if isinstance(entry, dict) and isinstance(entry.get("gpu_time_us"), (int, float)):
            out.write("  trace: %s us on the GPU\n" % _fmt_us(entry["gpu_time_us"]))
        for m in reply.get("init") or []:
            out.write("  init: %s\n" % m)
        if verbose:
            out.write("  op: %s\n  args: %s\n  result: %s\n" % (
                reply.get("op"), ", ".join(reply.get("args") or []), reply.get("result")))
            for kname in reply.get("kernels") or []:
                out.write("  kernel: %s\n" % kname)
    elif status == "unavailable":
        out.write("%s: unavailable: %s\n" % (head, reply.get("error")))
    else:
        out.write("%s: FAILED (%s): %s\n" % (head, reply.get("kind", "error"), reply.get("error")))
    for w in reply.get("warnings") or []:
        out.write("  warning: %s\n" % w)


def standalone_replay(args):
    try:
        entries = load_ir(args.ir)
    except (OSError, ValueError) as exc:
        sys.stderr.write("tlreplay_worker: %s: %s\n" % (args.ir, exc))
        return 2
    from .torchenv import no_torch, torch
    if torch is None:
        sys.stderr.write("tlreplay_worker: %s\n" % no_torch())
        return 2
    from .errors import ArgsError, Unavailable, one_line
    from .protocol import dumps
    from .session import Session, parse_device
    session = Session(None)
    try:
        parse_device(args.device)
    except (Unavailable, ArgsError) as exc:
        sys.stderr.write("tlreplay_worker: %s\n" % one_line(exc))
        return 2
    try:
        for p in args.init_plugin or []:
            session.plugins.load(p)
    except ArgsError as exc:
        sys.stderr.write("tlreplay_worker: %s\n" % one_line(exc))
        return 2
    total = len(entries)
    selected = list(enumerate(entries, 1))
    n_filter = None
    if args.op_filter:
        selected = [(i, e) for i, e in selected
                    if isinstance(e, dict) and args.op_filter in str(e.get("op_name", ""))]
        n_filter = len(selected)
    if args.op_limit is not None:
        selected = selected[:max(args.op_limit, 0)]
    namespaces = _kv_list(args.namespace, "--namespace")
    aliases = _kv_list(args.alias, "--alias")
    init_kwargs = _parse_init_kwargs(args.init_kwarg)
    out = sys.stdout
    counts = {"ok": 0, "failed": 0, "unavailable": 0}
    attempted = 0
    n_sel = len(selected)
    for k, (index, entry) in enumerate(selected, 1):
        attempted += 1
        op_name = entry.get("op_name", "?") if isinstance(entry, dict) else "?"
        req = {"cmd": "replay", "id": index, "entry": entry, "device": args.device,
               "warmup": args.warmup, "iters": DEFAULT_ITERS if args.iters is None else args.iters,
               "min_time_s": args.min_time, "budget_s": _budget(args),
               "flush_l2": args.flush_l2, "cuda_graph": args.cuda_graph,
               "record_kernels": args.kernels, "seed": args.seed, "init_plugins": args.init_plugin or [],
               "init_kwargs": init_kwargs, "namespaces": namespaces, "aliases": aliases,
               "verbose": args.verbose}
        if not isinstance(entry, dict):
            reply = {"id": index, "status": "failed", "kind": "args", "error": "entry is not an object"}
        else:
            reply = session.replay(req)
        status = reply.get("status")
        counts[status] = counts.get(status, 0) + 1
        st = stats(reply.get("times_us") or [])
        if args.json:
            out.write(dumps(_op_json(index, op_name, entry, reply, st)) + "\n")
        else:
            _op_text(out, "[%d/%d] %s" % (k, n_sel, op_name), entry, reply, st, args.verbose)
        out.flush()
        if reply.get("fatal"):
            sys.stderr.write("tlreplay_worker: the CUDA context is unusable after this error; stopping\n")
            break
        if status == "failed" and args.stop_on_error:
            break
    summary = ["--- Replay summary ---", "Total operations in file: %d" % total]
    if n_filter is not None:
        summary.append("Matching --op-filter %r: %d" % (args.op_filter, n_filter))
    summary.append("Selected: %d" % n_sel)
    summary.append("Attempted: %d" % attempted)
    summary.append("OK: %d" % counts.get("ok", 0))
    summary.append("Failed: %d" % counts.get("failed", 0))
    summary.append("Unavailable: %d" % counts.get("unavailable", 0))
    if attempted < n_sel:
        summary.append("Stopped after the first failure (--stop-on-error)")
    dest = sys.stderr if args.json else out
    dest.write("\n".join(summary) + "\n")
    dest.flush()
    return 1 if counts.get("failed", 0) else 0


def standalone_schemas(args):
    from .torchenv import no_torch, torch
    if torch is None:
        sys.stderr.write("tlreplay_worker: %s\n" % no_torch())
        return 2
    ns = _kv_list(args.namespace, "--namespace") if any("=" in n for n in args.namespace or []) else (
        args.namespace or [])
    from .session import Session
    reply = Session(None).schemas({"id": 0, "namespaces": ns})
    for w in reply.get("warnings") or []:
        sys.stderr.write("tlreplay_worker: %s\n" % w)
    sys.stdout.write("".join(s + "\n" for s in reply["schemas"]))
    return 0


def _budget(args):
    """Seconds per op the calls must fit (0: none): on the CPU only, and only when neither -r nor
    --min-time says how long to time (as tlreplay uid and replay)."""
    if args.budget is not None:
        return args.budget
    if args.iters is not None or args.min_time > 0 or not str(args.device).startswith("cpu"):
        return 0.0
    return DEFAULT_BUDGET_S


def build_parser():
    p = argparse.ArgumentParser(prog="tlreplay_worker.py",
                                description="Replay single PyTorch ops from a tlreplay/TraceLens replay IR file.")
    sub = p.add_subparsers(dest="command")
    r = sub.add_parser("replay", help="replay and time the ops of an IR file")
    r.add_argument("ir", help="IR file (JSON list of entries; .gz accepted)")
    r.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N (default cpu)")
    r.add_argument("-r", "--iters", type=int, default=None, help="timed calls per op (default 100)")
    r.add_argument("--warmup", type=int, default=DEFAULT_WARMUP, help="untimed calls first (default 10)")
    r.add_argument("--min-time", type=float, default=0.0, metavar="S", help="time each op for at least S seconds")
    r.add_argument("--budget", type=float, default=None, metavar="S",
                   help="on the CPU without -r or --min-time: as many calls as fit S seconds per op (default 10;"
                        " 0: the counts asked)")
    r.add_argument("--op-filter", metavar="SUBSTR", help="only ops whose name contains SUBSTR")
    r.add_argument("--op-limit", type=int, metavar="N", help="at most N ops (after --op-filter)")
    r.add_argument("--stop-on-error", action="store_true", help="stop at the first failed op")
    r.add_argument("-v", "--verbose", action="store_true", help="arguments, results, kernels, tracebacks")
    r.add_argument("-j", "--json", action="store_true", help="one JSON object per op (summary on stderr)")
    r.add_argument("--flush-l2", action="store_true", help="CUDA: evict L2 before each timed call")
    r.add_argument("--cuda-graph", action="store_true", help="CUDA: time graph replays of the op")
    r.add_argument("--kernels", action="store_true", help="CUDA: list the kernels each op launches")
    r.add_argument("--init-plugin", action="append", metavar="FILE.py", help="custom initializers (repeatable)")
    r.add_argument("--init-kwarg", action="append", metavar="KEY=VALUE",
                   help="option for the initializers, e.g. moe_distribution=zipf")
    r.add_argument("--namespace", action="append", metavar="NS=MOD[,MOD]", help="modules that register NS's ops")
    r.add_argument("--alias", action="append", metavar="OP=OTHER[,OTHER]", help="other names to try for OP")
    r.add_argument("--seed", type=int, default=0, help="seed for the tensor contents (default 0)")
    s = sub.add_parser("schemas", help="print the op schemas this torch knows")
    s.add_argument("--namespace", action="append", metavar="NS[=MOD,...]", help="import NS's modules first")
    return p


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--worker":
        from .protocol import worker_main
        return worker_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "replay":
        if (args.iters or 0) < 0 or args.warmup < 0 or args.min_time < 0 or (args.budget or 0) < 0:
            parser.error("-r, --warmup, --min-time and --budget must not be negative")
        return standalone_replay(args)
    if args.command == "schemas":
        return standalone_schemas(args)
    parser.print_help(sys.stderr)
    return 2
