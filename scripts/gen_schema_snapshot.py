#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a snapshot of the torch operator schema registry for tlreplay.

    /usr/bin/python3 scripts/gen_schema_snapshot.py [OUT]

OUT defaults to core/replay/schemas/torch-<major.minor>.json.gz. The file is
gzip'd JSON:

    {"torch": "<torch.__version__>", "generated_by": "scripts/gen_schema_snapshot.py",
     "schemas": ["<str(schema)>", ...]}

with the schemas of torch._C._jit_get_all_schemas() in registry order (the
order overloads are tried in; duplicates dropped, first kept). The gzip header
carries no name and mtime 0, so the same torch gives the same bytes.
Stdlib + torch only: tlreplay uses it when no Python worker is at hand.
"""
import gzip
import json
import os
import sys


def main(argv):
    try:
        import torch
    except ImportError as e:
        sys.stderr.write("gen_schema_snapshot: cannot import torch with %s: %s\n"
                         % (sys.executable, e))
        return 1

    seen = set()
    schemas = []
    for s in torch._C._jit_get_all_schemas():
        text = str(s)
        if text not in seen:
            seen.add(text)
            schemas.append(text)

    if len(argv) > 1:
        out = argv[1]
    else:
        major_minor = ".".join(torch.__version__.split("+")[0].split(".")[:2])
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        out = os.path.join(root, "core", "replay", "schemas",
                           "torch-%s.json.gz" % major_minor)

    doc = {"torch": torch.__version__,
           "generated_by": "scripts/gen_schema_snapshot.py",
           "schemas": schemas}
    # One schema per line keeps the uncompressed text diffable.
    body = ("{\"torch\": %s, \"generated_by\": %s, \"schemas\": [\n%s\n]}\n"
            % (json.dumps(doc["torch"]), json.dumps(doc["generated_by"]),
               ",\n".join(json.dumps(t) for t in schemas))).encode("utf-8")
    json.loads(body)  # the hand-joined form must stay valid JSON

    tmp = out + ".tmp"
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(tmp, "wb") as raw:
        # filename="" and mtime=0: gzip -n, reproducible bytes
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                           compresslevel=9) as gz:
            gz.write(body)
    os.replace(tmp, out)
    sys.stderr.write("gen_schema_snapshot: %d schemas of torch %s -> %s\n"
                     % (len(schemas), torch.__version__, out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
