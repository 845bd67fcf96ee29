#!/bin/sh
# The commands that run threads (the loader's two halves, the report's
# unified sheet beside the others, diff's two sides and merged tree) under a
# ThreadSanitizer build: `make tsan-check` builds one (SANITIZER=thread) and
# runs this with TLREPLAY pointing at it. Any race report fails the command's
# test. Skips with a binary that is not such a build.
. "$(dirname "$0")/../taplib.sh"

if ! ldd "$TLREPLAY" 2>/dev/null | grep -q libtsan; then
	skip "$TLREPLAY is not a ThreadSanitizer build (make tsan-check)"
	done_testing
fi
# a fixture split between two loader threads, and huge pages left alone
export TLREPLAY_PARALLEL_MIN=0 TLREPLAY_HUGEPAGES=never
export TSAN_OPTIONS="halt_on_error=1 exitcode=66"

# clean NAME CMD...: the command succeeds with no race reported
clean() {
	name=$1
	shift
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$rc" -eq 0 ] && ! grep -q ThreadSanitizer "$TMP/err"
	ok $? "$name"
	[ "$rc" -eq 0 ] || head -30 "$TMP/err" | sed 's/^/# /' >&2
}

B=$ROOT/tests/fixtures/cmp_base.json
V=$ROOT/tests/fixtures/cmp_variant.json
clean "breakdown of a fixture loaded by two threads" "$TLREPLAY" breakdown -i "$B"
for opts in "" "--recompute --kernel-summary --short-kernels" "--by-module --kernel-summary --short-kernels"; do
	rm -rf "$TMP/rep"
	# shellcheck disable=SC2086 # the options are split on purpose
	clean "report $opts (fixture)" "$TLREPLAY" report -i "$B" -o "$TMP/rep" $opts
done
clean "diff -o (fixtures)" "$TLREPLAY" diff -i "$B" -i "$V" -o "$TMP/diff"

T=$SHARED/traces/TraceLens/tests/traces
if [ -d "$T" ]; then
	for opts in "--recompute --kernel-summary --short-kernels" "--by-module --kernel-summary --short-kernels"; do
		rm -rf "$TMP/rep"
		# shellcheck disable=SC2086
		clean "report $opts (resnet_act_checkpoint, MI300)" "$TLREPLAY" report \
			-i "$T/mi300/resnet_act_checkpoint.json.gz" -o "$TMP/rep" $opts
	done
	rm -rf "$TMP/diff"
	clean "diff -o (Qwen, H100 vs MI300X)" "$TLREPLAY" diff \
		-i "$T/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" \
		-i "$T/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" -o "$TMP/diff"
	clean "diff --tree (Qwen)" "$TLREPLAY" diff --tree \
		-i "$T/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" \
		-i "$T/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
else
	skip "$T absent: the real traces' runs"
fi
done_testing
