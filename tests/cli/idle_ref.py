#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Reference for `tlreplay idle`, written from the definitions (HTA's
breakdown_analysis._analyze_idle_time_for_stream and docs/analyses.md "Idle
time"), not from the C code, to check the CLI on real traces.

usage: idle_ref.py TRACE IDLE_CSV BREAKDOWN_PER_DEVICE_CSV [KW_US [MICRO_US]]

IDLE_CSV is `tlreplay idle -x,` output, BREAKDOWN_PER_DEVICE_CSV that of
`tlreplay breakdown --per-device -x,`. Prints TAP lines without numbers
("ok - ...", "not ok - ...") for tests/taplib.sh's tap_relay.
"""
import csv
import gzip
import json
import math
import sys

GPU_CATS = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
HOST_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}
SYNC = ["cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
        "hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize",
        "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize"]


def is_sync(name):
    return any(name == s or name.startswith(s + "_") for s in SYNC)


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        d = json.load(f)
    return d["traceEvents"] if isinstance(d, dict) else d


def host_in(calls, t):
    """A call (s, e) with s <= t < e."""
    return any(s <= t < e for s, e in calls)


def sweep(evs, syncs, pageables, kw, micro):
    """evs: dicts with s, e, launch, launch_end, pageable; returns {(cat, cause): [us, n]}."""
    out = {}
    evs = sorted(evs, key=lambda x: x["s"])
    end = evs[0]["e"]
    i = 1
    while i < len(evs):
        j = i
        group = []
        while j < len(evs) and evs[j]["s"] == evs[i]["s"]:
            group.append(evs[j])
            j += 1
        s = evs[i]["s"]
        if s > end:
            linked = [x for x in group if x["launch"] is not None]
            nxt = min(linked, key=lambda x: x["launch"]) if linked else group[0]
            gs, ge = end, s
            host = nxt["launch"] is not None and nxt["launch"] > gs
            cat = "host_wait" if host else ("kernel_wait" if ge - gs < kw else "other")
            cause = "none"
            if host and host_in(syncs, gs):
                cause = "sync_drain"
            elif host and host_in(pageables, gs):
                cause = "pageable_memcpy"
            elif nxt["pageable"] and nxt["launch"] <= gs < nxt["launch_end"]:
                cause = "pageable_memcpy"
            elif host and ge - gs < micro:
                cause = "micro_idle"
            acc = out.setdefault((cat, cause), [0.0, 0])
            acc[0] += ge - gs
            acc[1] += 1
        for x in group:
            end = max(end, x["e"])
        i = j
    return out


def hta_stream(evs, kw):
    """HTA's own per-stream sums: sorted by ts, gap to the previous row's end."""
    out = {}
    evs = sorted(evs, key=lambda x: x["s"])
    for prev, cur in zip(evs, evs[1:]):
        gap = cur["s"] - prev["e"]
        host = cur["launch"] is not None and cur["launch"] > prev["e"]
        cat = "host_wait" if host else ("kernel_wait" if gap < kw else "other")
        out[cat] = out.get(cat, 0.0) + gap
    return out


def main():
    trace, idle_csv, bd_csv = sys.argv[1:4]
    kw = float(sys.argv[4]) if len(sys.argv) > 4 else 30.0
    micro = float(sys.argv[5]) if len(sys.argv) > 5 else 0.0
    ev = load(trace)
    runtime = {}
    syncs = []
    host_at = {}    # (pid, tid, ts) of each host call, for the flows
    for e in ev:
        if e.get("ph") != "X" or e.get("cat") not in HOST_CATS or "dur" not in e:
            continue
        if is_sync(e.get("name", "")):
            syncs.append((e["ts"], e["ts"] + e["dur"]))
        host_at[(e.get("pid"), e.get("tid"), e["ts"])] = e
        corr = (e.get("args") or {}).get("correlation")
        if corr is not None:
            runtime[corr] = e
    # With ac2g flow events, a GPU event is linked to the host call where its
    # flow starts (TraceLens's rule, which tlreplay's breakdown keeps);
    # without them, by correlation id (HTA's).
    flow_s, flow_f = {}, {}
    for e in ev:
        if e.get("cat") == "ac2g" and e.get("ph") in ("s", "f"):
            (flow_s if e["ph"] == "s" else flow_f)[e.get("id")] = e
    gpu_launch = None
    if flow_s:
        gpu_launch = {}
        for fid, f in flow_f.items():
            s0 = flow_s.get(fid)
            h = s0 and host_at.get((s0.get("pid"), s0.get("tid"), s0["ts"]))
            if h:
                gpu_launch[(f.get("pid"), f.get("tid"), f["ts"])] = h
    gpu = []
    pageables = []
    for e in ev:
        if e.get("ph") != "X" or e.get("cat") not in GPU_CATS or "dur" not in e:
            continue
        if gpu_launch is not None:
            r = gpu_launch.get((e.get("pid"), e.get("tid"), e["ts"]))
        else:
            r = runtime.get((e.get("args") or {}).get("correlation"))
        if r is None:
            continue    # tlreplay's default: linked GPU events only
        pg = e["cat"] in ("gpu_memcpy", "Memcpy") and (
            "Pageable" in e["name"] or "Pageable" in json.dumps(e.get("args") or {}))
        x = {"s": e["ts"], "e": e["ts"] + e["dur"], "launch": r["ts"],
             "launch_end": r["ts"] + r["dur"], "pageable": pg,
             "pid": str(e["pid"]), "tid": str(e["tid"])}
        if pg:
            pageables.append((x["launch"], x["launch_end"]))
        gpu.append(x)

    rows = {}
    with open(idle_csv) as f:
        for r in csv.DictReader(f):
            rows[(r["view"], r["device"], r["stream"], r["category"], r["cause"])] = r
    bd = {}
    with open(bd_csv) as f:
        for r in csv.DictReader(f):
            if r["type"] == "idle_time":
                bd[r["device"]] = float(r["time ms"])

    groups = {}
    for x in gpu:
        groups.setdefault(("device", x["pid"], ""), []).append(x)
        groups.setdefault(("stream", x["pid"], x["tid"]), []).append(x)
    bad = []
    worst = 0.0
    overlaps = 0
    for key, evs in sorted(groups.items()):
        ref = sweep(evs, syncs, pageables, kw, micro)
        total = 0.0
        for cat in ("host_wait", "kernel_wait", "other"):
            for cause in ("none", "sync_drain", "pageable_memcpy", "micro_idle"):
                us, n = ref.get((cat, cause), [0.0, 0])
                got = rows.get(key + (cat, cause))
                if got is None:
                    bad.append(f"{key} {cat}/{cause}: no row")
                    continue
                gus = float(got["time ms"]) * 1e3
                total += gus
                if int(got["gaps"]) != n or abs(gus - us) > 1e-6 * max(1.0, abs(us)):
                    bad.append(f"{key} {cat}/{cause}: {gus} us in {got['gaps']} gaps, "
                               f"reference {us} us in {n}")
        idle_row = rows.get(key + ("idle_time", "all"))
        if key[0] == "device":
            want = bd.get(key[1])
            if idle_row is None or want is None or float(idle_row["time ms"]) != want:
                bad.append(f"{key}: idle_time {idle_row and idle_row['time ms']} ms, "
                           f"breakdown --per-device {want}")
            elif want:
                worst = max(worst, abs(total / 1e3 - want))
                if abs(total / 1e3 - want) > 1e-9 * max(1.0, want):
                    bad.append(f"{key}: classes add up to {total / 1e3} ms, idle {want}")
        else:
            # HTA's own sums, where the stream's events do not overlap
            evs_s = sorted(evs, key=lambda x: x["s"])
            if any(b["s"] < a["e"] for a, b in zip(evs_s, evs_s[1:])):
                overlaps += 1
                continue
            hta = hta_stream(evs, kw)
            for cat, us in hta.items():
                mine = sum(float(rows[key + (cat, c)]["time ms"]) * 1e3
                           for c in ("none", "sync_drain", "pageable_memcpy", "micro_idle"))
                if abs(mine - us) > 1e-6 * max(1.0, abs(us)):
                    bad.append(f"{key} {cat}: {mine} us, HTA's rule {us} us")
    name = trace.split("/")[-1]
    ndev = sum(1 for k in groups if k[0] == "device")
    nstr = len(groups) - ndev
    print(f"{'not ok' if bad else 'ok'} - idle {name}: {ndev} device(s), {nstr} stream(s) match "
          f"the reference ({len(gpu)} linked GPU events, {len(syncs)} syncs, {len(pageables)} "
          f"pageable copies; classes add up to breakdown's idle within {worst:.3g} ms)")
    for b in bad[:20]:
        print("#   " + b)
    if overlaps:
        print(f"# {overlaps} stream(s) have overlapping events: HTA's per-stream sums not compared")


if __name__ == "__main__":
    main()
