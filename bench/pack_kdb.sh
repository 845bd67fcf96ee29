#!/bin/sh
# `tlreplay pack --kdb` of a kernel record database holding one large
# memory blob (docs/BENCHMARKS.md, "pack --kdb"): time and peak RSS
# (/usr/bin/time), the zip's size, then `unzip -t` and Python's zipfile over
# the result. KIND: zeros (a sparse file: deflated, as a fresh allocation's
# memory is), noise (random bytes: stored), bf16 (random bf16 numbers in
# [0, 1): deflated at level 1 to about 73%).
# Usage: bench/pack_kdb.sh TLREPLAY GB KIND [WORKDIR]   (default /tmp/tl-bench-kpack;
# it needs twice the blob's size free there for noise and bf16)
set -eu
tl=$1
gb=$2
kind=$3
work=${4:-/tmp/tl-bench-kpack}
py=${PYTHON:-/usr/bin/python3}
rm -rf "$work"
mkdir -p "$work/db/blobs"
cd "$work"

# A database of one launch whose module and argument buffer are a few bytes
# (pack reads blobs as bytes; nothing replays them here) and whose memory is
# the large blob, the same before and after.
"$py" - "$gb" "$kind" <<'EOF'
import hashlib, json, os, struct, sys, random
gb, kind = float(sys.argv[1]), sys.argv[2]
size = int(gb * 1e9)
def blob(data):
    name = hashlib.sha256(data).hexdigest()
    open("db/blobs/" + name, "wb").write(data)
    return name
big = "b" * 64
with open("db/blobs/" + big, "wb") as f:
    if kind == "zeros":
        f.truncate(size)
    elif kind == "noise":
        left = size
        while left:
            n = min(left, 1 << 24)
            f.write(os.urandom(n))
            left -= n
    else:  # bf16: the high halves of random float32s in [0, 1)
        r = random.Random(1)
        chunk = b"".join(struct.pack("<f", r.random())[2:] for _ in range(1 << 20))
        left = size
        while left:
            n = min(left, len(chunk))
            f.write(chunk[:n])
            left -= n
launch = {"v": 1, "kernel": "bench", "grid": [1, 1, 1], "block": [1, 1, 1],
          "module": {"blob": blob(b"module"), "size": 6, "kind": "cubin"},
          "params": {"blob": blob(b"params"), "size": 6, "layout": []},
          "memory": [{"base": "0x7f0000000000", "size": size, "kind": "alloc", "before": big, "after": big}]}
json.dump({"v": 1, "launches": [launch]}, open("db/index.json", "w"))
EOF

/usr/bin/time -f '%e s %M KB' -o time.txt "$tl" pack -o k.zip --kdb db
read -r secs _ rss _ <time.txt
zip=$(stat -c %s k.zip)
printf '%s GB of %s: %s s, peak RSS %s MB, zip %s MB (%s MB on disk)\n' "$gb" "$kind" "$secs" \
	$((rss / 1024)) $((zip / 1000000)) $(($(stat -c %b k.zip) * 512 / 1000000))
/usr/bin/time -f '%e s' -o check.txt unzip -tq k.zip
echo "unzip -t: $(cat check.txt)"
/usr/bin/time -f '%e s' -o check.txt "$py" -c "
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
i = [i for i in z.infolist() if i.filename.endswith('b' * 64)][0]
print('zipfile: %d members, the blob %d bytes, %s, CRCs good' % (len(z.infolist()), i.file_size,
      'stored' if i.compress_type == zipfile.ZIP_STORED else 'deflated'))" k.zip
echo "zipfile: $(cat check.txt)"
cd /
rm -rf "$work"
