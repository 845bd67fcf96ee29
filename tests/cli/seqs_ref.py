#!/usr/bin/python3
# Independent reference for `tlreplay seqs`, written from the definitions in
# docs/analyses.md ("Kernel sequences"): plain json, no tlreplay code.
#   seqs_ref.py ngrams TRACE L TOP   -> count,total,idle,names per line
#   seqs_ref.py op TRACE NAME MINLEN -> count,gpu,cpu,pattern per line
#   seqs_ref.py short TRACE THRESH   -> device,count,min,max per line
import bisect, gzip, json, sys
from collections import defaultdict


def load(p):
    f = gzip.open(p, "rt") if p.endswith(".gz") else open(p)
    d = json.load(f)
    return d["traceEvents"] if isinstance(d, dict) else d


def shorten(name):  # HTA's shorten_name
    n = name[3:] if name.startswith("hip") else name
    if n.startswith(("Memcpy", "Memset", "dma")) or ("<" not in name and "(" not in name):
        return name
    st = []
    for c in name.replace("->", ""):
        if c in ">)":
            o = "<" if c == ">" else "("
            while st and st[-1] != o:
                st.pop()
            if st:
                st.pop()
        else:
            st.append(c)
    return "".join(st).split(" ")[-1]


def kernels(ev):
    return [(i, e) for i, e in enumerate(ev) if e.get("ph") == "X" and
            str(e.get("cat", "")).lower() == "kernel" and "dur" in e]


def ngrams(ev, L, top):
    streams = defaultdict(list)
    for i, e in kernels(ev):
        streams[(str(e["pid"]), str(e["tid"]))].append((float(e["ts"]), i, e))
    agg = {}
    for ks in streams.values():
        ks.sort(key=lambda x: (x[0], x[1]))
        for a in range(len(ks) - L + 1):
            w = [x[2] for x in ks[a:a + L]]
            key = tuple(shorten(e["name"]) for e in w)
            tot = sum(float(e["dur"]) for e in w)
            idle = sum(max(0.0, float(w[j]["ts"]) - float(w[j - 1]["ts"]) - float(w[j - 1]["dur"]))
                       for j in range(1, L))
            c = agg.setdefault(key, [0, 0.0, 0.0])
            c[0] += 1
            c[1] += tot
            c[2] += idle
    rows = sorted(agg.items(), key=lambda kv: (-kv[1][0], -round(kv[1][1], 6), kv[0]))
    for key, (n, tot, idle) in rows[:top]:
        print("%d,%.3f,%.3f,%s" % (n, tot, idle, " | ".join(key)))


def containing_counts(cpu, queries):
    """For each query op q of one thread's cpu_ops: how many of the others contain it
    (start <= q's start, end >= q's end). A sweep by start with a Fenwick tree over the
    ends: O(n log n) where comparing every pair took a minute on a real trace."""
    ends = sorted({h["ts"] + h["dur"] for h in cpu})
    rank = {v: k for k, v in enumerate(ends)}
    tree = [0] * (len(ends) + 1)

    def add(k):  # one more end at rank k
        k += 1
        while k <= len(ends):
            tree[k] += 1
            k += k & -k

    def below(k):  # ends of rank < k
        n = 0
        while k > 0:
            n += tree[k]
            k -= k & -k
        return n
    # every op starting at or before a query is in the tree when it is asked (ties: in)
    order = sorted(range(len(cpu)), key=lambda k: cpu[k]["ts"])
    qs = sorted(queries, key=lambda k: cpu[k]["ts"])
    out, a, inserted = {}, 0, 0
    for q in qs:
        while a < len(order) and cpu[order[a]]["ts"] <= cpu[q]["ts"]:
            add(rank[cpu[order[a]]["ts"] + cpu[order[a]]["dur"]])
            inserted += 1
            a += 1
        # ends >= q's end, less q itself
        out[q] = inserted - below(rank[cpu[q]["ts"] + cpu[q]["dur"]]) - 1
    return out


def op_patterns(ev, name, minlen):
    # host events per thread (cpu_op, runtime), nesting by containment
    cpu_by_thread, rt_by_thread = defaultdict(list), defaultdict(list)
    for i, e in enumerate(ev):
        if e.get("ph") != "X":
            continue
        if e.get("cat") == "cpu_op":
            e["_i"] = i
            cpu_by_thread[(e["pid"], e["tid"])].append(e)
        elif e.get("cat") == "cuda_runtime":
            rt_by_thread[(e["pid"], e["tid"])].append((e["ts"], i, e))
    gpu_by_corr = defaultdict(list)
    for i, e in enumerate(ev):
        if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
            gpu_by_corr[e.get("args", {}).get("correlation")].append(e)
    ops, depth = [], {}
    for th, cpu in cpu_by_thread.items():
        mine = [k for k, e in enumerate(cpu) if name in e["name"]]
        for k, d in containing_counts(cpu, mine).items():
            ops.append((th, cpu[k]))
            depth[id(cpu[k])] = d
    if not ops:
        return
    for rts in rt_by_thread.values():
        rts.sort(key=lambda x: (x[0], x[1]))
    md = min(depth.values())
    agg = {}
    ops.sort(key=lambda te: te[1]["_i"])  # trace order, as the sums always ran
    for th, e in ops:
        if depth[id(e)] != md:
            continue
        rts = rt_by_thread.get(th, [])
        lo = bisect.bisect_left(rts, e["ts"], key=lambda x: x[0])
        hi = bisect.bisect_right(rts, e["ts"] + e["dur"], key=lambda x: x[0])
        inside = sorted((i, r) for _, i, r in rts[lo:hi] if r["ts"] + r["dur"] <= e["ts"] + e["dur"])
        g = []
        for _, r in inside:  # in trace order, as the events came
            g += gpu_by_corr.get(r.get("args", {}).get("correlation"), [])
        if len(g) < minlen:
            continue
        g.sort(key=lambda x: x["ts"])
        pat = "|".join([e["name"]] + [x["name"] for x in g])
        c = agg.setdefault(pat, [0, 0.0, 0.0])
        c[0] += 1
        c[1] += sum(float(x["dur"]) for x in g)
        c[2] += float(e["dur"])
    for pat, (n, gs, cs) in sorted(agg.items(), key=lambda kv: (-kv[1][0], kv[0])):
        print("%d,%.3f,%.3f,%s" % (n, gs, cs, pat))


def short(ev, thr):
    dev = {}
    for _, e in kernels(ev):
        if float(e["dur"]) < thr:
            dev.setdefault(str(e["pid"]), []).append(float(e["dur"]))
    for d, v in dev.items():
        print("%s,%d,%.4f,%.4f" % (d, len(v), min(v), max(v)))


if __name__ == "__main__":
    ev = load(sys.argv[2])
    if sys.argv[1] == "ngrams":
        ngrams(ev, int(sys.argv[3]), int(sys.argv[4]))
    elif sys.argv[1] == "op":
        op_patterns(ev, sys.argv[3], int(sys.argv[4]))
    else:
        short(ev, float(sys.argv[3]))
