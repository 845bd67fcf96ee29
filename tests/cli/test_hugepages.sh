#!/bin/sh
# The CLI starts itself again once with glibc's huge-page tunable (perf-plugin/util/
# hugepages.c) where THP is given on request; what it runs sees the environment
# it was started with. A stand-in replay worker (TLREPLAY_PYTHON) reports
# whether its parent, tlreplay, is the second start (whose first start put the
# user's tunables aside in TLREPLAY_SAVED_TUNABLES: the environment a process
# was started with is in /proc/PID/environ) and what it inherited.
. "$(dirname "$0")/../taplib.sh"

FIX=$ROOT/tests/fixtures/replay.json
cat >"$TMP/worker" <<EOF2
#!/bin/sh
tr '\0' '\n' </proc/\$PPID/environ | grep -c '^TLREPLAY_SAVED_TUNABLES=' >"$TMP/seen"
env | grep -E '^(GLIBC_TUNABLES|TLREPLAY_SAVED_TUNABLES)=' >>"$TMP/seen"
exit 3
EOF2
chmod +x "$TMP/worker"

# seen ENV...: run `tlreplay uid` with the stand-in worker; $TMP/seen
seen() {
	rm -f "$TMP/seen"
	env "$@" TLREPLAY_PYTHON="$TMP/worker" "$TLREPLAY" uid -i "$FIX" 0 >"$TMP/out" 2>"$TMP/err"
	RC=$?
	[ -f "$TMP/seen" ]
}

mode=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
seen -u GLIBC_TUNABLES
case $mode in
*"[madvise]"*)
	[ "$RC" -eq 1 ] && [ "$(cat "$TMP/seen")" = 1 ]
	ok $? "THP on request ($mode): started again with the tunable; the worker inherits none"
	;;
*)
	[ "$RC" -eq 1 ] && [ "$(cat "$TMP/seen")" = 0 ]
	ok $? "THP not on request ($mode): started once"
	;;
esac
grep -q "exited with status 3" "$TMP/err"
ok $? "the worker's failure is reported as before"

seen GLIBC_TUNABLES=glibc.malloc.check=0
case $mode in
*"[madvise]"*) want="1" ;;
*) want="0" ;;
esac
[ "$(sed -n 1p "$TMP/seen")" = "$want" ] && [ "$(sed -n 2p "$TMP/seen")" = "GLIBC_TUNABLES=glibc.malloc.check=0" ] &&
	[ "$(wc -l <"$TMP/seen")" -eq 2 ]
ok $? "the user's own tunables: kept for the worker, as they were"

seen GLIBC_TUNABLES=glibc.malloc.hugetlb=0
[ "$(sed -n 1p "$TMP/seen")" = 0 ] && [ "$(sed -n 2p "$TMP/seen")" = "GLIBC_TUNABLES=glibc.malloc.hugetlb=0" ]
ok $? "a user who set glibc.malloc.hugetlb: left alone"

seen -u GLIBC_TUNABLES TLREPLAY_HUGEPAGES=never
[ "$(cat "$TMP/seen")" = 0 ]
ok $? "TLREPLAY_HUGEPAGES=never: started once"

# what it prints is the same either way
"$TLREPLAY" breakdown -x, -i "$ROOT/tests/fixtures/mini.json" >"$TMP/a" 2>&1 &&
	TLREPLAY_HUGEPAGES=never "$TLREPLAY" breakdown -x, -i "$ROOT/tests/fixtures/mini.json" >"$TMP/b" 2>&1 &&
	cmp -s "$TMP/a" "$TMP/b"
ok $? "the same breakdown with and without"
done_testing
