#!/bin/sh
# make check's steps (issue 29.8), read from `make -n` (nothing is built): it says what it does
# before each step; it builds what the tests need and runs the fuzzers with CHECK_JOBS jobs
# (default: the CPUs here, whatever -j make itself was given), each fuzzer's run a goal of its
# own, and runs PROVE_JOBS test files at once. The make running this test passes none of its
# flags on (MAKEFLAGS).
. "$(dirname "$0")/../taplib.sh"

command -v make >/dev/null 2>&1 || { skip "no make"; done_testing; }
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$ROOT" --no-print-directory -n check O="$TMP/b" CHECK_JOBS=3 PROVE_JOBS=5 >"$TMP/out" 2>"$TMP/err"
RC=$?
# line numbers of the steps in the dry run's commands
at() { grep -n -m1 -e "$1" "$TMP/out" | cut -d: -f1; }
build=$(at 'BUILD    what the tests need (3 jobs)')
needs=$(at 'make --no-print-directory -j3 all unit-tests .*fuzz/fuzz_load.* bundle gpu-check')
fuzz=$(at 'make --no-print-directory -j3 -Otarget fuzz$')
test=$(at 'TEST     the unit tests, then tests/\*/\*.sh (prove, 5 at once')
prove=$(at 'prove -f --timer -j5 ')
[ "$RC" -eq 0 ] && [ "$build" = 1 ] && [ -n "$needs" ] && [ -n "$fuzz" ] && [ -n "$test" ] && [ -n "$prove" ] &&
	[ "$build" -lt "$needs" ] && [ "$needs" -lt "$fuzz" ] && [ "$fuzz" -lt "$test" ] && [ "$test" -lt "$prove" ]
ok $? "make check: says what it does first, builds with CHECK_JOBS, fuzzes, then says and runs prove -j PROVE_JOBS"
[ "$RC" -eq 0 ] || diag "$(tail -5 "$TMP/err")"

# one FUZZRUN per target, in the fuzz step
n_targets=$(find "$ROOT/tests/fuzz" -name 'fuzz_*.c' | wc -l)
n_runs=$(grep -c "printf '  %-8s %s (%s s)\\\\n' FUZZRUN" "$TMP/out")
[ "$n_targets" -gt 5 ] && [ "$n_runs" = "$n_targets" ]
ok $? "each of the $n_targets fuzz targets runs as a goal of its own (make -j runs them side by side)"

# the defaults: one job per CPU
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$ROOT" --no-print-directory -n check O="$TMP/b" >"$TMP/out" 2>"$TMP/err"
n=$(nproc)
grep -q "BUILD    what the tests need ($n jobs)" "$TMP/out" && grep -q "prove -f --timer -j$n " "$TMP/out"
ok $? "by default one build job and one test file per CPU ($n here)"
done_testing
