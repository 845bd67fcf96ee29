# SPDX-License-Identifier: MIT
"""strip_iterations.py IN OUT: a copy of trace IN (JSON, gzipped or not) without its iteration
annotations (ProfilerStep#N, vLLM's execute_..., SGLang's step[...], prefill[...], decode[...]),
as a trace recorded without them would be: for the tests and scripts that prove iterations and
phases are found without annotations (tests/taplib.sh's strip_iterations)."""
import gzip
import json
import sys

NAMES = ("ProfilerStep", "execute_", "step[", "prefill[", "decode[")


def main():
    src, dst = sys.argv[1], sys.argv[2]
    j = json.load(gzip.open(src) if src.endswith(".gz") else open(src))
    j["traceEvents"] = [e for e in j["traceEvents"]
                        if not (e.get("ph") == "X" and e.get("cat") in ("user_annotation", "cpu_op")
                                and e.get("name", "").startswith(NAMES))]
    with open(dst, "w") as f:
        json.dump(j, f)


if __name__ == "__main__":
    main()
