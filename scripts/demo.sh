#!/bin/sh
# make demo: build a sample trace with scripts/make_sample_trace.py and walk
# through the main analyses on it, printing each command as it runs.
# Usage: scripts/demo.sh TLREPLAY_BINARY OUTDIR
set -eu
tl=$1
out=$2
py=${PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)

mkdir -p "$out"
trace=$out/sample-trace.json.gz
"$py" "$here/make_sample_trace.py" "$trace" --steps 4

# the name a user can paste: tlreplay when that is the one on PATH, else its
# path from here (build/tlreplay), so that every command shown works as pasted
disp=$tl
case $tl in "$PWD"/*) disp=${tl#"$PWD"/} ;; esac
if [ "$(command -v tlreplay 2>/dev/null)" = "$tl" ]; then
	disp=tlreplay
fi

step() {
	printf '\n$ %s %s\n' "$disp" "$*"
	"$tl" "$@"
}

echo "Sample trace: $trace (a synthetic two-layer training step with NCCL all-reduce)"
step check -i "$trace"
step breakdown -i "$trace"
step breakdown -i "$trace" --per-stream -x,
step ops -i "$trace"
step kernels -i "$trace" -n 5
uid=$("$tl" list -i "$trace" --name '^aten::addmm$' -n 1 -x, | awk -F, 'NR == 2 { print $1 }')
step list -i "$trace" --name '^aten::addmm$' -n 3
step show -i "$trace" "$uid"
parent=$("$tl" show -i "$trace" -j "$uid" | sed -n 's/.*"parents":\[\([0-9]*\).*/\1/p')
step tree -i "$trace" "${parent:-$uid}"
# the main job: one op of the trace, alone, with its recorded shapes
step uid -i "$trace" "$uid" -r 20
step ir -i "$trace" --launchers --unique -o "$out/ops.json"
step replay "$out/ops.json" -r 5 --warmup 1
echo
echo "Next: $disp --help    (or man ./docs/tlreplay.1; your own trace with -i TRACE)"
if [ "$disp" != tlreplay ]; then
	echo "tlreplay is $disp here; to call it tlreplay, put it on your PATH:"
	echo "  make install PREFIX=~/.local    (~/.local/bin on PATH; man page and bash completion too)"
	echo "  or: export PATH=\"$(dirname "$tl"):\$PATH\""
fi
