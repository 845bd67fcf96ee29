#!/bin/sh
# The replay worker (core/replay/tlreplay_worker.py and its package) on CPU: its protocol over
# real pipes, tensor building, op resolution, crashes, custom initializers and the standalone
# replay mode. The tests are the unittest file next to this one; --tap makes each test one TAP
# line.
. "$(dirname "$0")/../taplib.sh"

if ! "$PYTHON" -c 'import torch' >/dev/null 2>&1; then
	echo "1..0 # SKIP $PYTHON has no torch"
	exit 0
fi
"$PYTHON" "$ROOT/tests/replay/test_worker.py" --tap 2>"$TMP/err"
rc=$?
if [ "$rc" -ne 0 ]; then
	diag "$(tail -n 40 "$TMP/err")"
fi
exit "$rc"
