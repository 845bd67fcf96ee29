#!/bin/sh
# Every analysis at once in threads (tests/tools/analyses_threads.c): several
# threads each on their own handles, several more reading one shared linked
# handle, as common.h allows. With the ThreadSanitizer build that make check
# makes ($TLREPLAY_TSAN_BUILD, the library and the driver only) a race is a
# failure; critpath's file-scope sort context was one. The plain build's
# driver runs the same threads without race detection (a crash or a failing
# call still fails).
. "$(dirname "$0")/../taplib.sh"

BUILD=${TLREPLAY_BUILD:-$ROOT/build}
F=$ROOT/tests/fixtures
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"
export TLREPLAY_LOG_LEVEL=error

# threads NAME DRIVER TRACE [VARIANT]: the driver succeeds, no race said
threads() {
	name=$1
	drv=$2
	shift 2
	"$drv" -t 3 "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$rc" -eq 0 ] && ! grep -q ThreadSanitizer "$TMP/err"
	ok $? "$name (exit $rc)"
	[ "$rc" -eq 0 ] || diag "$(head -n 30 "$TMP/err")"
}

runs() { # runs LABEL DRIVER
	for t in cmp_base critpath_basic steps_basic idle_hta launch_basic report_perf moe_unfused unified_callstack; do
		threads "$1: every analysis in threads, $t.json" "$2" "$F/$t.json" "$F/cmp_variant.json"
	done
	T=$SHARED/traces/TraceLens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz
	if [ -f "$T" ]; then
		threads "$1: every analysis in threads, Qwen (H100)" "$2" "$T"
	else
		skip "$T absent"
	fi
}

if [ -x "$BUILD/tests/tools/analyses_threads" ]; then
	runs "plain build" "$BUILD/tests/tools/analyses_threads"
else
	skip "no $BUILD/tests/tools/analyses_threads (make unit-tests)"
fi

TS=${TLREPLAY_TSAN_BUILD:-}
if [ -n "$TS" ] && [ -x "$TS/tests/tools/analyses_threads" ] &&
	nm "$TS/tests/tools/analyses_threads" 2>/dev/null | grep -q __tsan_init; then
	runs "ThreadSanitizer" "$TS/tests/tools/analyses_threads"
else
	skip "no ThreadSanitizer build of analyses_threads (TLREPLAY_TSAN_BUILD; make check makes one unless SANITIZER is set)"
fi
done_testing
