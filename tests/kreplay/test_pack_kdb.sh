#!/bin/sh
# `tlreplay pack --kdb` on a database recorded on the stand-in driver
# (tests/fakes/kdriver.c, as test_record_replay.sh): every blob is checked
# against index.json before anything is read or the output exists (a wrong
# size, a missing blob, one blob given two sizes), and a 1 GB blob streams
# through bounded memory into a zip that Python's zipfile and unzip test.
. "$(dirname "$0")/../taplib.sh"

use_kdrv
cd "$TMP" || exit 1

run "$TLREPLAY" record -k '^saxpy$' --nth 1 -o db -- "$K/kapp" "$K/libkkernels.so"
[ "$RC" -eq 0 ] && [ -f db/index.json ]
ok $? "record: a launch to pack"

# edit DB 'PYTHON STATEMENTS over j (the index)': rewrite DB/index.json
edit() {
	"$PYTHON" -c "import json,sys; p=sys.argv[1]+'/index.json'; j=json.load(open(p)); $2; json.dump(j, open(p,'w'))" "$1"
}
# clone NAME: a copy of db whose blobs are links (its index a file of its own)
clone() {
	cp -rl db "$1" && rm "$1/index.json" && cp db/index.json "$1/"
}
field() {
	"$PYTHON" -c "import json,sys; j=json.load(open(sys.argv[1]+'/index.json')); print($2)" "$1"
}

# pack_checked DB: pack DB to k.zip; under strace when it runs here, so
# that what pack opened can be looked at (in $TMP/opened). LeakSanitizer
# cannot run under ptrace: a sanitizer build's leaks are looked for by
# the other runs.
STRACE=
strace -f -qq -e trace=openat -o /dev/null true 2>/dev/null && STRACE=yes
pack_checked() {
	rm -f k.zip "$TMP/opened"
	if [ -n "$STRACE" ]; then
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
			run strace -f -qq -e trace=openat -o "$TMP/opened" "$TLREPLAY" pack -o k.zip --kdb "$1"
	else
		run "$TLREPLAY" pack -o k.zip --kdb "$1"
	fi
}
# nothing_read WHAT: no blob was opened, the output was not made
nothing_read() {
	if [ -z "$STRACE" ]; then
		skip "no strace to see that $1 opened no blob"
		return
	fi
	! grep -q '/blobs/\|k\.zip' "$TMP/opened" && [ -z "$(ls -A . | grep '^k\.zip')" ]
	ok $? "$1: no blob opened, no output file made"
}

pack_checked db
[ "$RC" -eq 0 ] && unzip -tq k.zip >/dev/null && "$PYTHON" -c "import zipfile,sys; assert zipfile.ZipFile(sys.argv[1]).testzip() is None" k.zip
ok $? "pack --kdb: a zip that unzip -t and Python's zipfile accept"

# the index says the module is one byte longer than its blob
clone size && edit size 'j["launches"][0]["module"]["size"] += 1'
mod=$(field size 'j["launches"][0]["module"]["blob"]')
msize=$(field size 'j["launches"][0]["module"]["size"]')
pack_checked size
[ "$RC" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
	grep -q "pack: size/blobs/$mod: $((msize - 1)) bytes, the index says $msize (launch 0's module)$" "$TMP/err"
ok $? "a blob of another size than the index says: one line naming it and the size ($(cat "$TMP/err"))"
nothing_read "a wrong size"

# the output of the last memory the kernel changed is gone
clone missing
k=$(field missing '[i for i, m in enumerate(j["launches"][0]["memory"]) if m["after"] != m["before"]][-1]')
after=$(field missing 'j["launches"][0]["memory"]['"$k"']["after"]')
rm -f "missing/blobs/$after"
pack_checked missing
[ "$RC" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
	grep -q "pack: missing/blobs/$after: missing (launch 0's memory\[$k\] after, [0-9]* bytes in the index)$" "$TMP/err"
ok $? "a missing blob: one line naming it and its use ($(cat "$TMP/err"))"
nothing_read "a missing blob"

# one blob, two sizes: the params buffer named as a memory's input too
clone twice && edit twice 'l=j["launches"][0]; l["memory"][0]["before"]=l["params"]["blob"]'
pack_checked twice
[ "$RC" -eq 1 ] && grep -q "pack: twice/index.json: blob [0-9a-f]* is [0-9]* bytes for launch 0's params and [0-9]* for launch 0's memory\[0\] before$" "$TMP/err"
ok $? "a blob the index gives two sizes: named ($(cat "$TMP/err"))"

# what only a pack of ops takes: refused in one line, nothing written
run "$TLREPLAY" pack -o mixed.zip --kdb db --no-check
[ "$RC" -eq 1 ] && [ ! -e mixed.zip ] &&
	[ "$(cat "$TMP/err")" = "tlreplay: pack: --kdb packs recorded kernels; ops (UIDs, -i, a selection, --init-plugin, --no-check) go in another pack" ]
ok $? "--kdb with --no-check (an option of a pack of ops): refused, named"

# a write that fails (a full device): one line, the output and why
run "$TLREPLAY" pack -o /dev/full --kdb db
[ "$RC" -eq 1 ] && [ "$(cat "$TMP/err")" = "tlreplay: pack: /dev/full: No space left on device" ]
ok $? "a full output: one line naming it ($(cat "$TMP/err"))"

# a 1 GB memory blob: 1 MiB of noise (stored: it does not compress), then
# zeros as a hole, so that it costs neither disk nor much time
clone big
name=$(printf 'b%.0s' $(seq 64))
"$PYTHON" -c "import os,sys; f=open(sys.argv[1],'wb'); f.write(os.urandom(1<<20)); f.truncate(1<<30)" "big/blobs/$name"
edit big 'm=j["launches"][0]["memory"]; last=m[-1]; m.append({"base": hex(int(last["base"],16)+(1<<40)), "size": 1<<30, "kind": "alloc", "before": "'"$name"'", "after": "'"$name"'"})'
rss=$("$PYTHON" -c "
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stderr=subprocess.PIPE)
sys.stderr.write(r.stderr.decode())
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)" "$TLREPLAY" pack -o big.zip --kdb big 2>"$TMP/err")
set -- $rss
[ "$1" -eq 0 ] && [ "$2" -lt 262144 ]
ok $? "pack --kdb with a 1 GB blob: peak RSS $2 KiB (under 256 MiB)"
[ "$1" -eq 0 ] || sed 's/^/# /' "$TMP/err" >&2
"$PYTHON" -c "
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
i = z.getinfo('big/blobs/' + sys.argv[2])
assert i.file_size == 1 << 30 and i.compress_type == zipfile.ZIP_STORED, (i.file_size, i.compress_type)
assert z.open(i).read(1 << 20) == open(sys.argv[3], 'rb').read(1 << 20)
for n in z.namelist():
    if n != i.filename:
        z.read(n)
" big.zip "$name" "big/blobs/$name" && unzip -l big.zip | grep -q "^ *1073741824 .*big/blobs/$name\$"
ok $? "the 1 GB blob is stored in the zip (Python's zipfile reads it and checks the other CRCs); unzip lists it"

# a file system that fills up (a 1 MB tmpfs, where a private mount can be
# made; the big blob starts with a MiB of noise): the room it had, the
# blobs' size, nothing left on it
mkdir small
if unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs small' 2>/dev/null; then
	unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs small && "$@" >"$0/out" 2>"$0/err"; echo $? >"$0/rc"; ls -A small >"$0/left"' \
		"$TMP" "$TLREPLAY" pack -o small/k.zip --kdb big
	[ "$(cat "$TMP/rc")" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ ! -s "$TMP/left" ] &&
		grep -q "^tlreplay: pack: small/k.zip: No space left on device (its file system had 1.0 MB free; the blobs are [0-9.]* MB before compression)$" "$TMP/err"
	ok $? "a full file system: one line with the room it had, nothing left ($(cat "$TMP/err"))"
else
	skip "no private tmpfs mount here (unshare -m) for a full file system"
fi

done_testing
