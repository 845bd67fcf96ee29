# shellcheck shell=sh
# Sourced by the benchmarks: $tl and $shared from the first two arguments,
# $py, $here and $out, and the x8 OWLv2 trace made from the H100 one with
# ../shared/scripts/scale_trace.py (cached in bench/out, with its gzip).
tl=$1
shared=$2
py=${PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
out=$here/out
src=$shared/traces/TraceLens/tests/traces/h100/google_owlv2-large-patch14-ensemble__1016001.json.gz
mkdir -p "$out"
if [ ! -f "$src" ]; then
	echo "bench: $src not found (../shared must be beside the checkout)" >&2
	exit 1
fi
[ -f "$out/owlv2_x8.json" ] || "$py" "$shared/scripts/scale_trace.py" "$src" 8 "$out/owlv2_x8.json"
[ -f "$out/owlv2_x8.json.gz" ] || gzip -6 -c "$out/owlv2_x8.json" >"$out/owlv2_x8.json.gz"
