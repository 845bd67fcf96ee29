#!/bin/sh
# The core's layering (docs/architecture.md): no file of the library depends
# on another that depends back on it, through any number of files, and one
# subsystem (a folder of core/src, core/replay) uses another only where the
# order below allows it. A file's dependencies are the symbols it uses that
# another file defines, read with nm from the build's object files, so a call
# through a header of another subsystem, an extern table or a function
# pointer taken all count; the #include lines are checked against the same
# order. core/gpu (libtlreplay_gpu.so) is checked for cycles when it is built.
# Last, every writable global of the library, core/gpu and the recorder must be
# on the list of guarded ones (thread safety, common.h).
. "$(dirname "$0")/../taplib.sh"

BUILD=${TLREPLAY_BUILD:-$ROOT/build}

# SUBSYSTEM: THE SUBSYSTEMS IT MAY USE. The data flow, read from the bottom:
# a trace file becomes an event table and a tree (trace), which the analyses
# read (analysis), from which ops become replay IR (ir); the replay engine,
# the counters and the results store take no part of the trace; fold puts
# results back into a trace (results); ranks summarise one trace per rank.
# docs/architecture.md shows this table; the last check keeps the two equal.
ORDER='base:
trace: base
analysis: trace base
ir: analysis trace base
ranks: analysis trace base
results: trace base
counters: base
replay: base
perfmodel: analysis trace base
report: perfmodel ranks ir analysis trace base
common:
kreplay: common base'

if ! command -v nm >/dev/null 2>&1; then
	echo "1..0 # SKIP nm not found (binutils)"
	exit 0
fi
if [ ! -f "$BUILD/libtlreplay.a" ]; then
	echo "1..0 # SKIP no libtlreplay.a in $BUILD (make)"
	exit 0
fi

ORDER=$ORDER "$PYTHON" - "$ROOT" "$BUILD" >"$TMP/checks" 2>&1 <<'PY'
import collections, os, re, subprocess, sys

root, build = sys.argv[1], sys.argv[2]
order = {}
for line in os.environ["ORDER"].splitlines():
    name, _, deps = line.partition(":")
    order[name.strip()] = deps.split()


def check(good, desc, why=()):
    print("CHECK", 0 if good else 1, desc)
    for w in () if good else why:
        print("DIAG", w)


def subsystem(src):
    """core/src/trace/tree.c -> trace; core/replay/x.c -> replay; gen -> trace."""
    parts = src.split("/")
    if parts[:2] == ["core", "src"]:
        return parts[2]
    if parts[:2] == ["core", "replay"]:
        return "replay"
    if parts[:2] == ["core", "gpu"]:
        return "gpu"
    return "trace"  # $(O)/gen/*.pb-c.c: protoc-c's code for trace/xplane.c


def sources(pattern):
    out = []
    for dirpath, _, files in os.walk(os.path.join(root, pattern)):
        out += [os.path.relpath(os.path.join(dirpath, f), root) for f in files if f.endswith(".c")]
    return sorted(out)


def objects(srcs):
    """{source: object} for the sources, and the sources not built."""
    objs, missing = {}, []
    for s in srcs:
        o = os.path.join(build, s[:-2] + ".o")
        if os.path.exists(o):
            objs[s] = o
        else:
            missing.append(s)
    return objs, missing


def graph(objs):
    """{file: {file it uses: [symbols]}} from nm: a symbol defined (T D B R
    G S V W C) by exactly one of the objects and used (U) by another."""
    defs, uses = collections.defaultdict(set), {}
    for src, o in objs.items():
        res = subprocess.run(["nm", o], capture_output=True, text=True, check=True)
        uses[src] = set()
        for line in res.stdout.splitlines():
            f = line.split()
            if len(f) == 2 and f[0] == "U":
                uses[src].add(f[1])
            elif len(f) == 3 and f[1] in "TDBRGSVWC":
                defs[f[2]].add(src)
    g = {}
    for src in objs:
        g[src] = collections.defaultdict(list)
        for sym in sorted(uses[src]):
            d = defs.get(sym, ())
            if len(d) == 1 and src not in d:
                g[src][next(iter(d))].append(sym)
    return g


def cycles(g):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def cycle_report(g, comps):
    why = []
    for comp in comps:
        why.append("cycle among " + ", ".join(comp) + ":")
        for a in comp:
            for b in sorted(g[a]):
                if b in comp:
                    syms = g[a][b]
                    why.append("  %s uses %s from %s" % (a, ", ".join(syms[:4]) +
                                                        (" ..." if len(syms) > 4 else ""), b))
    return why


# ------------------------------------------------------------------ the library
lib_srcs = sources("core/src") + sources("core/replay")
gen = sorted(os.path.relpath(p, build) for p in
             (os.path.join(build, "gen", f) for f in os.listdir(os.path.join(build, "gen")))
             if p.endswith(".pb-c.o")) if os.path.isdir(os.path.join(build, "gen")) else []
objs, missing = objects(lib_srcs)
for o in gen:
    objs[o[:-2] + ".c"] = os.path.join(build, o)
check(not missing and len(objs) > 40, "the library's %d object files are in %s" % (len(objs), build),
      ["not built: " + s for s in missing])
g = graph(objs)
nedges = sum(len(v) for v in g.values())
comps = cycles(g)
check(not comps and nedges > 100,
      "no cycle among the library's files (%d files, %d dependencies)" % (len(g), nedges),
      cycle_report(g, comps))

# the order itself, and the folders it names
folders = sorted(d for d in os.listdir(os.path.join(root, "core/src"))
                 if os.path.isdir(os.path.join(root, "core/src", d)))
og = {s: {d: [] for d in deps} for s, deps in order.items()}
bad = [s + " may use " + d + ", which is not in the order" for s, deps in order.items()
       for d in deps if d not in order]
check(not cycles(og) and not bad, "the subsystem order has no cycle",
      bad + cycle_report(og, cycles(og)))
check(set(folders) | {"replay"} == set(order),
      "every folder of core/src is a subsystem of the order, and only those",
      ["folders: " + " ".join(folders), "order: " + " ".join(sorted(order))])

# every use across subsystems follows the order
why = []
for a in sorted(g):
    sa = subsystem(a)
    for b, syms in sorted(g[a].items()):
        sb = subsystem(b)
        if sa != sb and sb not in order.get(sa, ()):
            why.append("%s (%s) uses %s from %s (%s): %s may not use %s" %
                       (a, sa, ", ".join(syms[:4]), b, sb, sa, sb))
check(not why, "every dependency between subsystems follows the order", why)

# one internal header per folder, and includes that follow the order
why = []
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
for d in folders:
    hs = sorted(f for f in os.listdir(os.path.join(root, "core/src", d)) if f.endswith(".h"))
    # common/ is source the recorder compiles too: a header per thing it
    # holds (the CUDA driver's ABI, SHA-256), each with its own name
    if d == "common":
        continue
    if hs != [d + "_internal.h"]:
        why.append("core/src/%s/ has %s; one header, %s_internal.h, is expected" %
                   (d, " ".join(hs) or "no header", d))
check(not why, "each folder of core/src has one internal header, <folder>/<folder>_internal.h", why)
why = []
for dirpath, _, files in sorted(os.walk(os.path.join(root, "core/src"))) + \
        sorted(os.walk(os.path.join(root, "core/replay"))):
    for f in sorted(files):
        if not f.endswith((".c", ".h")):
            continue
        path = os.path.relpath(os.path.join(dirpath, f), root)
        sa = subsystem(path)
        for name in inc.findall(open(os.path.join(root, path), errors="replace").read()):
            sb = name.split("/")[0] if "/" in name else None
            if name.endswith(".pb-c.h") and sa == "trace":
                continue
            if sb == "common" and os.path.exists(os.path.join(root, "core/src", name)):
                if sa != "common" and "common" not in order.get(sa, ()):
                    why.append('%s (%s) includes "%s": %s may not use common' % (path, sa, name, sa))
            elif sb not in order or name != "%s/%s_internal.h" % (sb, sb):
                why.append('%s includes "%s": only "<folder>/<folder>_internal.h" headers' %
                           (path, name))
            elif sb != sa and sb not in order[sa]:
                why.append('%s (%s) includes "%s": %s may not use %s' % (path, sa, name, sa, sb))
check(not why, "every #include of an internal header follows the order", why)

# the order as docs/architecture.md shows it
doc = os.path.join(root, "docs/architecture.md")
text = open(doc).read() if os.path.exists(doc) else ""
lost = [l for l in os.environ["ORDER"].splitlines() if not re.search(
    r"^\s*" + re.escape(l.strip()) + r"\s*$", text, re.M)]
check(not lost, "docs/architecture.md shows the same order",
      ["not in docs/architecture.md: " + l for l in lost])

# ------------------------------------------------------------------ libtlreplay_gpu.so
gpu_objs, gpu_missing = objects(sources("core/gpu"))
if not os.path.exists(os.path.join(build, "libtlreplay_gpu.so")):
    print("SKIP core/gpu not built here (no CUDA headers)")
else:
    gg = graph(gpu_objs)
    comps = cycles(gg)
    check(not comps and not gpu_missing,
          "no cycle among core/gpu's files (%d files, %d dependencies)" %
          (len(gg), sum(len(v) for v in gg.values())),
          ["not built: " + s for s in gpu_missing] + cycle_report(gg, comps))

# ------------------------------------------------------------------ mutable globals
# common.h promises that distinct handles may be used from distinct threads,
# so nothing writable may be shared between handles unless it is guarded.
# Every writable object with static storage (.data, .bss; not .rodata,
# .data.rel.ro or thread-local) of the library, libtlreplay_gpu.so and the
# recorder is on this list with why it is safe; a new one fails here until it
# is const, thread-local, per handle, or guarded and listed (critpath's sort
# context was two such pointers, and raced).
GUARDED = {
    "core/src/base/util.c": {
        "env_level_value": "written once under env_level_once",
        "env_level_once": "pthread_once",
        "print_fn": "tl_set_print(), called before threads (common.h says so)",
        "print_ctx": "tl_set_print(), as print_fn",
    },
    "core/src/base/output_file.c": {
        "new_file_mode": "set once under mode_once", "mode_once": "pthread_once",
        "pending": "slots claimed and emptied with atomics (read by signal handlers)",
    },
    "core/src/counters/counters_pfm.c": {"pfm": "set once under pfm_once", "pfm_once": "pthread_once"},
    "core/src/counters/counters_system.c": {
        "tl_cnt_group_read": "a test seam, set by unit tests before any thread",
        "tl_cnt_sys_open": "a test seam, set by unit tests before any thread",
    },
    "core/src/counters/energy.c": {"libs": "under libs_lock", "libs_lock": "the mutex"},
    "core/src/perfmodel/gpu_peaks.c": {"builtin_gpu": "built once under builtin_once",
                                  "builtin_once": "pthread_once"},
    "core/src/perfmodel/pm_registry.c": {"table": "built once under table_once",
                                    "table_full": "built once under table_once",
                                    "table_once": "pthread_once"},
    "core/src/report/pyrepr.c": {"scratch_key": "a pthread key made under scratch_once",
                                 "scratch_ok": "set under scratch_once", "scratch_once": "pthread_once"},
    "core/src/trace/json_scan.c": {"c_loc": "the C locale, made under c_loc_once",
                                   "c_loc_once": "pthread_once"},
    "core/gpu/gpu_load.c": {n: "under load_lock" for n in
                            ("load_lock", "cuda", "cuda_ok", "cupti", "cupti_ok", "nvpw", "nvpw_ok")},
    "libtlreplay-record.so": {
        "rec_lock": "a mutex", "lock": "the tables' mutex (rec_tables.c)",
        "allocs": "under lock", "functions": "under lock", "launches": "under lock",
        "modules": "under lock", "sel": "set under sel_once, read after",
        "sel_once": "pthread_once", "sel_lock": "a mutex",
        "hooks": "real pointers read and written with __atomic builtins",
        "rec_dlsym_next": "__atomic builtins (set by the first RTLD_NEXT lookup or the constructor)",
        "A": "the arena (rec_arena.c): every field under its own mutex A.lock",
        "objects": "under lock (rec_tables.c)",
        "cached.0": "__atomic builtins", "cached.1": "__atomic builtins",
        "cxa": "set under cxa_once", "cxa_once": "pthread_once",
        "dec": "set under zstd_once", "iserr": "set under zstd_once", "zstd_once": "pthread_once",
        "new_mode": "set once under mode_once (rec_db.c)", "mode_once": "pthread_once",
    },
}
# what the compiler and the C runtime add to a shared object
CRT = {"completed.0", "__dso_handle", "__TMC_END__"}
SYM = re.compile(r"^[0-9a-f]+\s(.{7})\s(\S+)\s+[0-9a-f]+\s+(?:\.hidden\s+)?(\S+)$")


def writable(path):
    """The objects of @path in a writable section, shared between threads."""
    out = []
    res = subprocess.run(["objdump", "-t", path], capture_output=True, text=True)
    for line in res.stdout.splitlines():
        m = SYM.match(line)
        if not m or "O" not in m.group(1):
            continue
        sec, name = m.group(2), m.group(3)
        if sec.startswith((".data.rel.ro", ".tdata", ".tbss")):
            continue
        if sec.startswith((".data", ".bss")) and name not in CRT:
            out.append(name)
    return out


found, why = {}, []
scanned = dict(objs)
scanned.update(gpu_objs)
rec = os.path.join(build, "libtlreplay-record.so")
if os.path.exists(rec):
    scanned["libtlreplay-record.so"] = rec
for src, path in sorted(scanned.items()):
    for name in writable(path):
        found.setdefault(src, set()).add(name)
        if name not in GUARDED.get(src, {}):
            why.append("%s: %s is writable and shared between threads; make it const, "
                       "thread-local or per handle, or guard it and list it in GUARDED with why"
                       % (src, name))
gone = ["%s: %s is listed but no longer exists" % (f, n) for f, names in sorted(GUARDED.items())
        for n in sorted(names) if f in scanned and n not in found.get(f, set())]
check(not why and not gone and sum(map(len, found.values())) > 10,
      "no unguarded mutable global in the library, libtlreplay_gpu.so and the recorder "
      "(%d listed)" % sum(map(len, found.values())), why + gone)
PY
rc=$?
while IFS= read -r line; do
	case $line in
	"CHECK "*)
		rest=${line#CHECK }
		ok "${rest%% *}" "${rest#* }"
		;;
	"SKIP "*) skip "${line#SKIP }" ;;
	"DIAG "*) diag "${line#DIAG }" ;;
	*) diag "$line" ;;
	esac
done <"$TMP/checks"
[ "$rc" -eq 0 ]
ok $? "the checker ran to its end"
done_testing
