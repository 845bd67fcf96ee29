#!/bin/sh
# Every trace in ../shared/traces loads; where it has GPU events the
# breakdown holds compute + exposed comm + exposed memcpy + idle = total
# (pooled, per device and with unlinked events), and where it has none the
# error says so. Files that are not Chrome traces (execution traces) get a
# clear error. The 8-rank PARAM tarball is unpacked and each rank checked.
. "$(dirname "$0")/../taplib.sh"

TR=$SHARED/traces
if [ ! -d "$TR" ]; then
	echo "1..0 # SKIP $TR absent (../shared is not beside the checkout)"
	exit 0
fi

check_invariant() { # check_invariant TRACE ARGS...: -j output holds the invariant
	"$TLREPLAY" breakdown -i "$@" -j >"$TMP/bd" 2>"$TMP/err" || return 1
	"$PYTHON" - "$TMP/bd" <<'PY'
import collections, json, sys
groups = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    r = json.loads(line)
    groups[(r.get("device"), r.get("stream"), r.get("is_recompute"))][r["type"]] = r["time_ms"]
bad = 0
for k, g in groups.items():
    lhs = g["computation_time"] + g["exposed_comm_time"] + g["exposed_memcpy_time"] + g["idle_time"]
    if abs(lhs - g["total_time"]) > 1e-9 * max(1.0, g["total_time"]) or g["busy_time"] > g["total_time"] + 1e-9:
        print("# invariant broken for %s: %r" % (k, g))
        bad = 1
sys.exit(bad)
PY
}

one() { # one FILE LABEL
	f=$1
	label=$2
	"$TLREPLAY" list -i "$f" -n 1 >/dev/null 2>"$TMP/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		# only an execution trace (PARAM/Chakra "nodes") may fail to load
		if grep -q "no traceEvents array" "$TMP/err" && { zcat -f "$f" | head -c 4096 | grep -q '"nodes"\|"schema"'; }; then
			ok 0 "$label: not a Chrome trace, clear error: $(cat "$TMP/err")"
		else
			ok 1 "$label: failed to load: $(cat "$TMP/err")"
		fi
		return
	fi
	if "$TLREPLAY" breakdown -i "$f" --include-unlinked -x, >/dev/null 2>"$TMP/err"; then
		check_invariant "$f" && check_invariant "$f" --per-device --include-unlinked &&
			check_invariant "$f" --per-stream --include-unlinked
		ok $? "$label: loads; compute + exposed comm + exposed memcpy + idle = total"
	else
		grep -q "no GPU events" "$TMP/err"
		ok $? "$label: loads; no GPU events, and breakdown says so"
	fi
}

for f in $(find "$TR" -type f \( -name '*.json' -o -name '*.json.gz' \) | sort); do
	one "$f" "${f#"$TR"/}"
done

for tgz in $(find "$TR" -type f -name '*.tar.gz' | sort); do
	mkdir -p "$TMP/x" && tar -xzf "$tgz" -C "$TMP/x" 2>/dev/null
	for f in $(find "$TMP/x" -type f \( -name '*.json' -o -name '*.json.gz' \) | sort); do
		one "$f" "${tgz#"$TR"/}:${f#"$TMP"/x/}"
	done
	rm -rf "$TMP/x"
done
done_testing
