#!/bin/sh
# Kernel record and replay under valgrind's memcheck: the recorder inside the
# stand-in driver's program, kreplay --verify of what it recorded, a launch
# search, and pack --kdb. No invalid access, no uninitialised value, no leak.
. "$(dirname "$0")/../taplib.sh"

if ! command -v valgrind >/dev/null 2>&1; then
	echo "1..0 # SKIP valgrind not installed"
	exit 0
fi
BUILD=${TLREPLAY_BUILD:-$ROOT/build}
K=$BUILD/tests/kdrv
if [ ! -x "$K/kapp" ] || [ ! -f "$BUILD/libtlreplay-record.so" ]; then
	echo "1..0 # SKIP the stand-in driver or the recorder is not built"
	exit 0
fi
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
export TLREPLAY_CUDA_LIB=$K/libcuda.so.1 TLREPLAY_STORE=$TMP/store.jsonl
cd "$TMP" || exit 1

# the recorder in the program, as `tlreplay record` sets it up
mkdir db
TLREPLAY_RECORD_DB=$TMP/db TLREPLAY_RECORD_KERNEL='list_sum|scale_fixed|saxpy' TLREPLAY_RECORD_COUNT=3 \
	LD_PRELOAD=$BUILD/libtlreplay-record.so $VG "$K/kapp" "$K/libkkernels.so" 2 >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && [ "$(ls db/launches | wc -l)" -eq 3 ]
ok $? "valgrind: the recorder in the program records 3 launches"
[ $rc -eq 99 ] && diag "$(head -20 "$TMP/err")"

for args in "kreplay db --verify -r 2 --warmup 1" "kreplay db --launch 1 --grid 1,2 --block 64,2048 -r 2" \
	"kreplay db -k saxpy -j -r 2 -e task-clock" "pack -o k.zip --kdb db"; do
	# shellcheck disable=SC2086
	$VG "$TLREPLAY" $args >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ]
	ok $? "valgrind tlreplay $args"
	[ $rc -ne 0 ] && diag "$(head -20 "$TMP/err")"
done
done_testing
