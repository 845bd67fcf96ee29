#!/bin/sh
# SPDX-License-Identifier: MIT
# tlreplay-gdb: gdb with tlreplay's commands loaded; every argument goes to gdb.
#
#   tlreplay-gdb --args python3 train.py      then: (gdb) tlreplay open trace.json ...
#
# Installed as $(BINDIR)/tlreplay-gdb (and bin/tlreplay-gdb of the bundle), it finds
# ../share/tlreplay/gdb/tlreplay.py beside itself; in the source tree, gdb/tlreplay.py.
# $GDB names another gdb.
here=$(dirname "$(readlink -f "$0")")
for script in "$here/../share/tlreplay/gdb/tlreplay.py" "$here/tlreplay.py"; do
	if [ -f "$script" ]; then
		exec "${GDB:-gdb}" -x "$script" "$@"
	fi
done
echo "tlreplay-gdb: cannot find tlreplay.py (looked in $here/../share/tlreplay/gdb and $here)" >&2
exit 1
