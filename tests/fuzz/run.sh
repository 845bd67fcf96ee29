#!/bin/sh
# SPDX-License-Identifier: MIT
# Run a fuzz target: run.sh FUZZ_BINARY WORKDIR
#
# Its seeds are tests/fuzz/corpus-NAME for a binary fuzz_NAME, and
# tests/fuzz/corpus for fuzz_load (the loader's, the first target). A
# libFuzzer build fuzzes for $FUZZ_SECONDS seconds (default 20), starting
# from a copy of the seeds in WORKDIR/corpus (which keeps growing from one run
# to the next) with tests/fuzz/json.dict; crashes are saved under
# WORKDIR/crashes/. A standalone build (-DTL_FUZZ_STANDALONE, no libFuzzer)
# replays the seeds instead. Exits non-zero on a crash.
set -u

if [ $# -ne 2 ]; then
	echo "usage: $0 FUZZ_BINARY WORKDIR" >&2
	exit 2
fi
bin=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
secs=${FUZZ_SECONDS:-20}

# A path without a slash would be looked up in PATH.
case $bin in
*/*) ;;
*) bin=./$bin ;;
esac
if [ ! -x "$bin" ]; then
	echo "fuzz: $bin is not an executable (run make fuzz)" >&2
	exit 2
fi
mkdir -p "$work" || exit 2
# What the targets write (fuzz_analyses: report's CSVs, pages, ranks) goes to
# a scratch directory of this run, in memory where there is /dev/shm (the
# writers fsync), removed at the end whatever happens.
scratch=$(mktemp -d "${FUZZ_TMPDIR:-/dev/shm}/tlreplay-fuzz.XXXXXX" 2>/dev/null || mktemp -d) || exit 2
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
export TMPDIR="$scratch"
name=$(basename "$bin")
seeds=$here/corpus-${name#fuzz_}
[ "$name" = fuzz_load ] && seeds=$here/corpus
if [ ! -d "$seeds" ]; then
	echo "fuzz: $name has no seed corpus ($seeds)" >&2
	exit 2
fi

# libFuzzer answers -help=1 with its usage; the standalone driver only says
# that it ignores the flag.
if "$bin" -help=1 2>&1 | grep -q '^Usage:'; then
	mkdir -p "$work/corpus" "$work/crashes" || exit 2
	cp "$seeds"/* "$work/corpus/" || exit 2
	log=$work/fuzz.log
	echo "fuzz: $name: libFuzzer for ${secs}s, corpus $work/corpus, log $log"
	"$bin" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		-dict="$here/json.dict" -artifact_prefix="$work/crashes/" \
		-print_final_stats=1 "$work/corpus" >"$log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		tail -n 40 "$log" >&2
		echo "fuzz: FAILED (exit $rc)" >&2
		for f in $(grep -o 'Test unit written to [^ ]*' "$log" | sed 's/^Test unit written to //'); do
			echo "fuzz: crashing input saved to $f" >&2
			echo "fuzz: replay with: $bin $f" >&2
		done
		exit 1
	fi
	grep -E '^stat::number_of_executed_units|^Done [0-9]+ runs' "$log" | sed 's/^/fuzz: /'
	echo "fuzz: $name: no crash; corpus now holds $(ls "$work/corpus" | wc -l) inputs"
else
	echo "fuzz: no libFuzzer in $bin: replaying the seed corpus"
	if ! "$bin" "$seeds"; then
		echo "fuzz: FAILED: the crashing input is named above (a seed in $seeds)" >&2
		exit 1
	fi
fi
exit 0
