#!/bin/sh
# The CUDA driver ABI that kernel record and replay declare for themselves
# (core/src/common/cuda_driver.h: they build without the toolkit and reach
# libcuda.so.1 with dlopen), checked against NVIDIA's cuda.h where the
# toolkit is installed: every CU_*/CUDA_* value and every struct's size and
# member offsets.
#
# The stand-in driver (tests/fakes/kdriver.c) and its test program
# (tests/fakes/kapp.c) keep declarations of their own on purpose: they are a
# second, independent reading of cuda.h. Were they to include our header, a
# wrong value in it would be wrong in the stand-in too, and every record and
# replay test would pass against a driver that does not exist. Their values
# are checked against cuda.h here as well. (The standalone replayer that
# `pack --kdb` ships, core/record/standalone/replay.c, is one file that must
# compile alone; it names no driver constant.)
. "$(dirname "$0")/../taplib.sh"

CUDA_H=${CUDA_HOME:-/usr/local/cuda}/include/cuda.h
CC=${CC:-cc}
if [ ! -f "$CUDA_H" ]; then
	skip "no cuda.h ($CUDA_H): the CUDA toolkit is not installed"
	done_testing
fi

# values FILE: "NAME EXPR" for each #define CU*/CUDA_* of FILE
values() { sed -En 's/^#define ((CU|CUDA)_[A-Z0-9_]+)[[:space:]]+(.*)$/\1 \3/p' "$1" | sed 's|[[:space:]]*/\*.*||'; }

# evaluate HEADER_OR_DEFS NAMES...: a program printing "NAME VALUE" for each,
# built against cuda.h (cuda) or the file's own definitions (own FILE)
print_prog() {
	echo '#include <stdint.h>'
	echo '#include <stdio.h>'
	echo "$1"
	echo 'int main(void) {'
	shift
	for n in "$@"; do
		# printf, not echo: sh's echo would turn the \n into a newline
		printf 'printf("%s %%lld\\n", (long long)(intptr_t)(%s));\n' "$n" "$n"
	done
	echo 'return 0; }'
}

# check_file FILE LABEL [all]: FILE's values are cuda.h's; with "all",
# every name it defines must be in cuda.h (the stand-in has its own too)
check_file() {
	f=$1
	label=$2
	all=$3
	values "$f" >"$TMP/vals"
	names=$(awk '{ print $1 }' "$TMP/vals" | while read -r n; do grep -qw "$n" "$CUDA_H" && echo "$n"; done)
	missing=$(awk '{ print $1 }' "$TMP/vals" | while read -r n; do grep -qw "$n" "$CUDA_H" || echo "$n"; done)
	[ "$all" = all ] || missing=
	# shellcheck disable=SC2086 # the names are words
	print_prog '#include <cuda.h>' $names >"$TMP/cuda.c"
	# shellcheck disable=SC2086
	print_prog "typedef struct CUstream_st *CUstream;
$(awk '{ n = $1; $1 = ""; print "#define " n " " $0 }' "$TMP/vals")" $names >"$TMP/own.c"
	if $CC -I"$(dirname "$CUDA_H")" -o "$TMP/cuda" "$TMP/cuda.c" 2>"$TMP/cc.err" &&
		$CC -o "$TMP/own" "$TMP/own.c" 2>>"$TMP/cc.err"; then
		"$TMP/cuda" >"$TMP/cuda.out"
		"$TMP/own" >"$TMP/own.out"
		diff "$TMP/cuda.out" "$TMP/own.out" >"$TMP/diff"
		n=$(wc -l <"$TMP/cuda.out")
		[ -s "$TMP/cuda.out" ] && [ ! -s "$TMP/diff" ] && [ -z "$missing" ]
		ok $? "$label: its $n CU*/CUDA_* values are cuda.h's$(sed -n 's/^> / (ours: /p' "$TMP/diff" | head -3 | tr '\n' ')')${missing:+; not in cuda.h: $missing}"
	else
		ok 1 "$label: the value programs compile ($(head -c 300 "$TMP/cc.err"))"
	fi
}

check_file "$ROOT/core/src/common/cuda_driver.h" "common/cuda_driver.h" all
check_file "$ROOT/tests/fakes/kdriver.c" "the stand-in driver"
check_file "$ROOT/tests/fakes/kapp.c" "the stand-in's test program"

# the structs: size and the offset of each member (the list: the members of
# common/cuda_driver.h's structs; a struct's size catches one left out)
MEMBERS='CUlaunchAttribute id value
CUlaunchConfig gridDimX gridDimY gridDimZ blockDimX blockDimY blockDimZ sharedMemBytes hStream attrs numAttrs
CUmemLocation type id
CUmemAllocationProp type requestedHandleTypes location win32HandleMetaData allocFlags allocFlags.compressionType allocFlags.gpuDirectRDMACapable allocFlags.usage
CUmemAccessDesc location flags'
structs=$(echo "$MEMBERS" | awk '{ print $1 }')
[ "$(echo "$structs" | sort)" = "$(sed -n 's/^} \(CU[A-Za-z]*\);$/\1/p' "$ROOT/core/src/common/cuda_driver.h" | sort)" ]
ok $? "the struct list here is common/cuda_driver.h's structs"
{
	echo '#include <stddef.h>'
	echo '#include <stdio.h>'
	echo '#ifdef OURS'
	echo '#include "common/cuda_driver.h"'
	echo '#else'
	echo '#include <cuda.h>'
	echo '#endif'
	echo 'int main(void) {'
	echo "$MEMBERS" | while read -r s members; do
		printf 'printf("%s %%zu\\n", sizeof(%s));\n' "$s" "$s"
		for m in $members; do
			printf 'printf("%s.%s %%zu\\n", offsetof(%s, %s));\n' "$s" "$m" "$s" "$m"
		done
	done
	echo 'return 0; }'
} >"$TMP/structs.c"
if $CC -I"$(dirname "$CUDA_H")" -o "$TMP/s_cuda" "$TMP/structs.c" 2>"$TMP/cc.err" &&
	$CC -DOURS -I"$ROOT/core/src" -o "$TMP/s_own" "$TMP/structs.c" 2>>"$TMP/cc.err"; then
	"$TMP/s_cuda" >"$TMP/s_cuda.out"
	"$TMP/s_own" >"$TMP/s_own.out"
	[ "$(wc -l <"$TMP/s_cuda.out")" -gt 5 ] && cmp -s "$TMP/s_cuda.out" "$TMP/s_own.out"
	ok $? "common/cuda_driver.h: $(echo $structs | wc -w) structs, their sizes and $(grep -c '\.' "$TMP/s_cuda.out") member offsets are cuda.h's$(diff "$TMP/s_cuda.out" "$TMP/s_own.out" | sed -n 's/^> / (ours: /p' | head -3 | tr '\n' ')')"
else
	ok 1 "the struct programs compile ($(head -c 300 "$TMP/cc.err"))"
fi

done_testing
