#!/bin/sh
# The core unit tests and a few CLI runs under valgrind's memcheck: no invalid
# access, no uninitialised value used, no leak.
. "$(dirname "$0")/../taplib.sh"

if ! command -v valgrind >/dev/null 2>&1; then
	echo "1..0 # SKIP valgrind not installed"
	exit 0
fi
BUILD=${TLREPLAY_BUILD:-$ROOT/build}
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"

for t in test_tree test_load_errors test_wide_ids test_intervals test_json_scan test_schema test_store test_fold test_counters test_xplane test_compare test_json_compact; do
	if [ -x "$BUILD/tests/$t" ]; then
		$VG "$BUILD/tests/$t" >"$TMP/out" 2>"$TMP/err"
		rc=$?
		[ $rc -ne 99 ] && [ $rc -eq 0 ]
		ok $? "valgrind $t"
		[ $rc -eq 99 ] && diag "$(head -20 "$TMP/err")"
	else
		skip "$t not built"
	fi
done

T=$ROOT/tests/fixtures/mini.json
for args in "breakdown -i $T --per-stream" "ops -i $T -j" "kernels -i $T --unique" \
	"show -i $T 4 7" "tree -i $T" "check -i $T" \
	"breakdown -i $ROOT/tests/fixtures/tiny.xplane.pb --per-device"; do
	# shellcheck disable=SC2086
	$VG "$TLREPLAY" $args >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -ne 99 ]
	ok $? "valgrind tlreplay $args"
	[ $rc -eq 99 ] && diag "$(head -20 "$TMP/err")"
done
# the perf report: its unified sheet is built on a second thread, and its rows
# on two (a trace with more than 128 of them)
F=$SHARED/traces/TraceLens/tests/traces/h100/Falconsai_nsfw_image_detection__1016002.json.gz
if [ -f "$F" ]; then
	$VG "$TLREPLAY" report -i "$F" -o "$TMP/report" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ]
	ok $? "valgrind tlreplay report (threads)"
	[ $rc -ne 0 ] && diag "$(head -20 "$TMP/err")"
else
	skip "$F absent (../shared is not beside the checkout)"
fi
# replay IR and a replay (the worker is a child: valgrind watches tlreplay only)
R=$ROOT/tests/fixtures/replay.json
for args in "ir -i $R --launchers --unique --no-torch" "ops -i $R --unique-args -x," \
	"pack -i $R -o $TMP/p.zip --no-torch 0 10"; do
	# shellcheck disable=SC2086
	$VG "$TLREPLAY" $args >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ]
	ok $? "valgrind tlreplay $args"
	[ $rc -ne 0 ] && diag "$(head -20 "$TMP/err")"
done
if "$PYTHON" -c 'import torch' >/dev/null 2>&1; then
	$VG "$TLREPLAY" uid -i "$R" 0 -r 2 -j --namespace "tltest=$ROOT/tests/replay/tlcli_ops.py" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ]
	ok $? "valgrind tlreplay uid (worker protocol, replies, stats)"
	[ $rc -ne 0 ] && diag "$(head -20 "$TMP/err")"
	$VG "$TLREPLAY" uid -i "$R" 25 -r 2 --namespace "tltest=$ROOT/tests/replay/tlcli_ops.py" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 1 ]
	ok $? "valgrind tlreplay uid of an op that kills the worker"
	[ $rc -ne 1 ] && diag "$(head -20 "$TMP/err")"
else
	skip "$PYTHON has no torch"
	skip "$PYTHON has no torch"
fi
GOLD=$SHARED/traces/TraceLens/tests/traces/inference/vllm_decode_full
if [ -d "$GOLD" ]; then
	$VG "$TLREPLAY" ops -i "$GOLD/graph_execution.json.gz" --by-module --capture "$GOLD/capture_traces" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ]
	ok $? "valgrind: graph-capture merge on vllm_decode_full"
	[ $rc -eq 99 ] && diag "$(head -20 "$TMP/err")"
else
	skip "../shared absent"
fi
done_testing
