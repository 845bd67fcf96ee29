#!/bin/sh
# Unit tests of the gdb front end's package (gdb/tlreplay_gdb) without gdb: frame names,
# argument groups, TensorImpl reading, the cursor, child processes, the session over the
# fixtures. The tests are the unittest file next to this one; --tap makes each one a TAP line.
. "$(dirname "$0")/../taplib.sh"

TLREPLAY_BUILD=${TLREPLAY_BUILD:-$ROOT/build}
export TLREPLAY_BUILD
"$PYTHON" "$ROOT/tests/gdb/test_package.py" --tap
