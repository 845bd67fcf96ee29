#!/bin/sh
# perf runs "perf-<cmd>" for commands it does not know, so `perf tlreplay ARGS`
# lands here. Find tlreplay next to this script first, then on PATH.
here=$(dirname "$0")
if [ -x "$here/tlreplay" ]; then
	exec "$here/tlreplay" "$@"
fi
exec tlreplay "$@"
