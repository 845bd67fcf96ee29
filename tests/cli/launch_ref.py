#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Reference for `tlreplay launches`, written from the definitions (HTA's
cuda_kernel_launch_stats and docs/analyses.md "Launch statistics"), not from
the C code, to check the CLI on real traces.

usage: launch_ref.py TRACE LAUNCH_JSONL KERNEL_JSONL OP_JSONL STREAM_JSONL [BOUND_US]

The JSONL files are `tlreplay launches -j` with --by launch, kernel, op and
stream. A GPU event is linked to the runtime/driver call with its correlation
id; its op is the innermost cpu_op on the call's thread that encloses the call
(skipping "execute"), else the call. Prints TAP lines without numbers
("ok - ...", "not ok - ...") for tests/taplib.sh's tap_relay.
"""
import gzip
import json
import sys

GPU_CATS = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
HOST_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        d = json.load(f)
    return d["traceEvents"] if isinstance(d, dict) else d


def jsonl(path):
    return [json.loads(l) for l in open(path) if l.strip()]


def pct(v, q):
    h = (len(v) - 1) * q
    lo = int(h)
    if lo + 1 >= len(v):
        return v[-1]
    return v[lo] + (h - lo) * (v[lo + 1] - v[lo])


def dist(v):
    v = sorted(v)
    return {"mean": sum(v) / len(v), "p50": pct(v, .5), "p90": pct(v, .9), "p99": pct(v, .99), "max": v[-1]}


def close(a, b):
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def main():
    trace, lj, kj, oj, sj = sys.argv[1:6]
    bound_us = float(sys.argv[6]) if len(sys.argv) > 6 else 10.0
    ev = load(trace)
    calls, ops = {}, {}
    for uid, e in enumerate(ev):
        if e.get("ph") != "X":
            continue
        if e.get("cat") in HOST_CATS and "correlation" in e.get("args", {}):
            calls[e["args"]["correlation"]] = uid
        if e.get("cat") in ("cpu_op", "Operator") and e.get("name") != "execute":
            ops.setdefault((e["pid"], e["tid"]), []).append(uid)
    launches = []
    for uid, e in enumerate(ev):
        if e.get("ph") != "X" or e.get("cat") not in GPU_CATS:
            continue
        c = calls.get(e.get("args", {}).get("correlation"))
        if c is None:
            continue
        ce = ev[c]
        op, best = c, None
        for o in ops.get((ce["pid"], ce["tid"]), []):
            oe = ev[o]
            if oe["ts"] <= ce["ts"] and oe["ts"] + oe["dur"] >= ce["ts"] + ce["dur"]:
                if best is None or oe["ts"] > ev[best]["ts"] or (oe["ts"] == ev[best]["ts"] and o > best):
                    best = o
        if best is not None:
            op = best
        launches.append({"gpu_uid": uid, "call_uid": c, "op_uid": op, "s": e["ts"], "gpu": e["dur"],
                         "cpu": ce["dur"], "delay": max(0.0, e["ts"] - ce["ts"] - ce["dur"]),
                         "latency": e["ts"] - ce["ts"], "call": ce["ts"], "strm": (e["pid"], e["tid"]),
                         "kernel": e["name"], "op": ev[op]["name"]})
    # queue time: per stream in start order
    prev = {}
    for l in sorted(launches, key=lambda x: (x["s"], x["gpu_uid"])):
        pe = prev.get(l["strm"], float("-inf"))
        l["queue"] = l["s"] - max(l["call"], pe)
        prev[l["strm"]] = max(pe, l["s"] + l["gpu"])

    got = {r["gpu_uid"]: r for r in jsonl(lj)}
    bad = []
    for l in launches:
        g = got.get(l["gpu_uid"])
        if g is None or g["call_uid"] != l["call_uid"] or g["op"] != l["op"] or not all(
                close(g[k + "_us"], l[k]) for k in ("cpu", "delay", "latency", "queue", "gpu")):
            bad.append((l["gpu_uid"], g, l))
    ok = not bad and len(got) == len(launches)
    print("%s - %d launches: call, op, cpu, delay, latency, queue, gpu of each as Python finds them%s" %
          ("ok" if ok else "not ok", len(launches), "" if ok else " (%d vs %d; first: %r)" %
           (len(got), len(launches), bad[:1])))

    for path, key, by in ((kj, "kernel", "kernel"), (oj, "op", "op")):
        rows = {r["name"]: r for r in jsonl(path) if r["by"] == by}
        names = {}
        for l in launches:
            names.setdefault(l[key], []).append(l)
        miss = []
        for n, ls in names.items():
            r = rows.get(n)
            if r is None or r["count"] != len(ls):
                miss.append(n)
                continue
            for k in ("cpu", "delay", "latency", "queue", "gpu"):
                d = dist([l[k] for l in ls])
                if not all(close(r["%s_%s_us" % (k, s)], d[s]) for s in d):
                    miss.append((n, k))
            if r["cpu_outliers"] != sum(l["cpu"] > 50 for l in ls) or \
               r["delay_outliers"] != sum(l["delay"] > 100 for l in ls) or \
               r["short"] != sum(l["cpu"] <= 50 and l["gpu"] < l["cpu"] for l in ls):
                miss.append((n, "outliers"))
        ok = not miss and len(rows) == len(names)
        print("%s - per %s: %d groups, count and mean/p50/p90/p99/max of the five times, outliers%s" %
              ("ok" if ok else "not ok", by, len(names), "" if ok else " (first: %r)" % (miss[:3],)))

    # verdicts per stream
    rows = {(r["device"], r["stream"]): r for r in jsonl(sj) if r["view"] == "stream"}
    per = {}
    for l in sorted(launches, key=lambda x: (x["s"], x["gpu_uid"])):
        per.setdefault(l["strm"], []).append(l)
    miss = []
    for (pid, tid), ls in per.items():
        end, end_short, idle, bg, nbg = None, False, 0.0, 0.0, 0
        for i, l in enumerate(ls):
            sh = l["gpu"] < bound_us
            if i and l["s"] > end:
                idle += l["s"] - end
                if sh and end_short and l["call"] >= end:
                    nbg += 1
                    bg += l["s"] - end
            if end is None or l["s"] + l["gpu"] > end:
                end, end_short = l["s"] + l["gpu"], sh
        nshort = sum(l["gpu"] < bound_us for l in ls)
        verdict = idle > 0 and 2 * bg >= idle and 2 * nshort >= len(ls)
        r = rows.get((str(pid), str(tid)))
        if r is None or r["events"] != len(ls) or r["short"] != nshort or r["bound_gaps"] != nbg or \
           not close(r["idle_us"], idle) or not close(r["bound_gap_us"], bg) or r["launch_bound"] != verdict:
            miss.append(((pid, tid), r, (len(ls), nshort, idle, nbg, bg, verdict)))
    ok = not miss and len(rows) == len(per)
    print("%s - per stream: %d streams, short events, idle, launch-bound gaps and verdict%s" %
          ("ok" if ok else "not ok", len(per), "" if ok else " (first: %r)" % (miss[:1],)))


main()
