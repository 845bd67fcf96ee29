#!/bin/sh
# report --include-unlinked counts the GPU events no CPU launch links to in gpu_timeline.csv, as
# breakdown --include-unlinked does (TraceLens's --include_unlinked_kernels); without it a trace
# whose GPU events are all unlinked is refused by name, pointing at the option.
. "$(dirname "$0")/../taplib.sh"
F=$ROOT/tests/fixtures/launch_unlinked.json

run "$TLREPLAY" report -i "$F" -o "$TMP/r"
[ "$RC" -eq 1 ] && grep -q "use --include-unlinked" "$TMP/err" && [ ! -e "$TMP/r/gpu_timeline.csv" ]
ok $? "all GPU events unlinked: refused, pointing at --include-unlinked (exit $RC)"

run "$TLREPLAY" report --include-unlinked -i "$F" -o "$TMP/r"
"$TLREPLAY" breakdown --include-unlinked -i "$F" -x, >"$TMP/want.csv" 2>/dev/null
[ "$RC" -eq 0 ] && cmp -s "$TMP/r/gpu_timeline.csv" "$TMP/want.csv" && grep -q '^busy_time,0.002,' "$TMP/want.csv"
ok $? "--include-unlinked: gpu_timeline.csv is breakdown --include-unlinked's (exit $RC)"
done_testing
