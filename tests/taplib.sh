# Shared helpers for the shell tests: TAP output and locating the build.
# shellcheck shell=sh
TAP_N=0
TAP_FAILED=0
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TLREPLAY=${TLREPLAY:-$ROOT/build/tlreplay}
SHARED=${TLREPLAY_SHARED:-$ROOT/../shared}
PYTHON=${PYTHON:-/usr/bin/python3}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tlreplay-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# keep tests away from the user's remembered trace
export XDG_STATE_HOME="$TMP/state"
unset TLREPLAY_TRACE

ok() { # ok COND_EXIT_STATUS DESCRIPTION
	TAP_N=$((TAP_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $TAP_N - $2"
	else
		echo "not ok $TAP_N - $2"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
}

skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N # SKIP $1"
}

# diag TEXT: TAP comments on stderr, as Test::More's diag, so that prove shows
# them without -v: a CI log then says why a test failed, not only that it did
diag() { echo "$*" | sed 's/^/# /' >&2; }

done_testing() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
	exit $?
}

# run CMD...: stdout in $TMP/out, stderr in $TMP/err, status in $RC
run() {
	"$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
}

# use_torch_worker: replays with $PYTHON's torch and a results store in $TMP;
# skips the test when $PYTHON has no torch
use_torch_worker() {
	if ! "$PYTHON" -c 'import torch' 2>/dev/null; then
		skip "no torch in $PYTHON"
		done_testing
	fi
	export TLREPLAY_PYTHON="$PYTHON" TLREPLAY_STORE="$TMP/store.jsonl"
}

# xlsx_ok BOOK DIR DESC: a test that workbook BOOK holds every DIR/SHEET.csv
# cell for cell (tests/conformance/xlsx_vs_csv.py), skipped without openpyxl
xlsx_ok() {
	"$PYTHON" "$ROOT/tests/conformance/xlsx_vs_csv.py" "$1" --dir "$2" >"$TMP/xlsx-diff" 2>&1
	_rc=$?
	if [ $_rc -eq 77 ]; then
		skip "$3 (python3-openpyxl is not installed)"
		return
	fi
	[ $_rc -eq 0 ] || diag "$(head -5 "$TMP/xlsx-diff")"
	ok $_rc "$3"
}

# strip_iterations IN OUT: a copy of trace IN without its iteration annotations
# (ProfilerStep#N, vLLM's execute_..., SGLang's step[...], prefill[...],
# decode[...]), as a trace recorded without them would be
strip_iterations() {
	"$PYTHON" "$ROOT/tests/strip_iterations.py" "$1" "$2"
}

# tap_relay FILE: the unnumbered TAP lines of a compare script ("ok - ...",
# "not ok - ...", "not ok - ... # TODO ...") numbered into this test's
# stream; a TODO does not count as a failure
tap_relay() {
	while IFS= read -r line; do
		case "$line" in
		"ok - "*) TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - ${line#ok - }" ;;
		"not ok - "*"# TODO"*) TAP_N=$((TAP_N + 1)); echo "not ok $TAP_N - ${line#not ok - }" ;;
		"not ok - "*)
			TAP_N=$((TAP_N + 1))
			TAP_FAILED=$((TAP_FAILED + 1))
			echo "not ok $TAP_N - ${line#not ok - }"
			;;
		*) echo "$line" ;;
		esac
	done <"$1"
}

# use_kdrv: the stand-in CUDA driver (tests/fakes/kdriver.c) and the kernel
# recorder of the build: B (the build), K (the driver's folder), the driver
# as TLREPLAY_CUDA_LIB, a results store in $TMP. Skips the test without them.
use_kdrv() {
	B=${TLREPLAY_BUILD:-$ROOT/build}
	K=$B/tests/kdrv
	if [ ! -x "$K/kapp" ] || [ ! -f "$B/libtlreplay-record.so" ]; then
		skip "the stand-in driver or the recorder is not built ($K, $B/libtlreplay-record.so)"
		done_testing
	fi
	export TLREPLAY_CUDA_LIB=$K/libcuda.so.1 TLREPLAY_STORE=$TMP/store.jsonl
}

# store_trace_id FILE: the trace's identity in a results store, {"path", "size",
# "sig"}, from the formula of docs/results-store.md (CRC-32 of the size and the
# first and last MiB), so that tests check the C implementation against the doc
store_trace_id() {
	"$PYTHON" - "$1" <<'EOF'
import json, os, struct, sys, zlib
p = os.path.realpath(sys.argv[1])
size = os.path.getsize(p)
with open(p, "rb") as f:
    head = f.read(1 << 20)
    f.seek(max(0, size - (1 << 20)))
    tail = f.read(1 << 20)
h1 = zlib.crc32(struct.pack("<Q", size) + head)
print(json.dumps({"path": p, "size": size, "sig": "%08x%08x" % (h1, zlib.crc32(tail, h1))}))
EOF
}

# one_line WORD...: $TMP/err is one "tlreplay: ..." line holding every WORD
one_line() {
	[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q '^tlreplay: ' "$TMP/err" || return 1
	for w in "$@"; do
		grep -q -- "$w" "$TMP/err" || return 1
	done
}

# refused NAME "WORD..." CMD...: CMD, guarded (below), exits 1 with one error
# line holding every WORD
refused() {
	name=$1
	words=$2
	shift 2
	run guarded "$@"
	# shellcheck disable=SC2086 # the words are split on purpose
	[ "$RC" -eq 1 ] && one_line $words
	ok $? "$name (exit $RC): $(head -c 250 "$TMP/err")"
}

# guarded CMD...: CMD under a 30 s timeout and, unless a sanitizer is in the
# build (it maps terabytes), 4 GB of address space and 200 MB per written
# file: what reads /dev/zero without end or waits on a FIFO fails the test
# (124: timed out) rather than hanging it or filling the machine
guarded() {
	case "${TLREPLAY_CFLAGS:-}" in
	*sanitize*) timeout 30 "$@" ;;
	*) (ulimit -v 4000000 && ulimit -f 400000 && exec timeout 30 "$@") ;;
	esac
}
