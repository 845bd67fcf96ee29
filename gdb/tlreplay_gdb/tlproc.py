# SPDX-License-Identifier: MIT
"""What a stopped `tlreplay` process is working on, from its command line.

parse(argv) -> Job(cmd, trace, uids): the subcommand (prefixes resolved as
tlreplay resolves them), the -i/--input trace and the UIDs it names (for stat:
the UID after `uid`).
"""

COMMANDS = ("open", "info", "breakdown", "ops", "kernels", "list", "show", "tree", "check",
            "ir", "uid", "replay", "pack", "fold", "stat", "sweep", "help")

# options that take a value, in every subcommand that has them
SHORT_WITH_ARG = set("iorxnde")
LONG_WITH_ARG = {
    "input", "output", "field-separator", "iters", "warmup", "min-time", "device", "seed",
    "init-plugin", "init-kwargs", "python", "schemas", "timeout", "namespace", "alias",
    "control", "store", "capture", "name", "cat", "from", "to", "limit", "depth", "filter",
    "top", "repeat", "event", "op-filter", "op-limit", "chart", "shard", "retry",
}


class Job:
    __slots__ = ("cmd", "trace", "uids")

    def __init__(self, cmd=None, trace=None, uids=None):
        self.cmd, self.trace, self.uids = cmd, trace, uids or []

    def __repr__(self):
        return "Job(%r, %r, %r)" % (self.cmd, self.trace, self.uids)


def resolve_command(word):
    if word in COMMANDS:
        return word
    cands = [c for c in COMMANDS if c.startswith(word)]
    return cands[0] if len(cands) == 1 else None


def parse(argv):
    """@argv as the process has it (argv[0] is the program)."""
    job = Job()
    args = list(argv[1:])
    # options before the command (--version ...) take no value
    while args and args[0].startswith("-"):
        args.pop(0)
    if not args:
        return job
    job.cmd = resolve_command(args.pop(0))
    positional = []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            positional += args[i:]
            break
        if a.startswith("--"):
            name, eq, val = a[2:].partition("=")
            if name in LONG_WITH_ARG and not eq:
                val = args[i] if i < len(args) else None
                i += 1
            if name == "input":
                job.trace = val
            continue
        if a.startswith("-") and len(a) > 1:
            opt = a[1]
            if opt in SHORT_WITH_ARG:
                val = a[2:] if len(a) > 2 else (args[i] if i < len(args) else None)
                if len(a) == 2:
                    i += 1
                if opt == "i":
                    job.trace = val
            continue
        positional.append(a)
    if job.cmd == "stat":
        # stat [options] uid UID
        if "uid" in positional:
            positional = positional[positional.index("uid") + 1:]
        else:
            positional = []
    job.uids = [int(p) for p in positional if p.isdigit()]
    return job
