#!/bin/sh
# A trace that changes while tlreplay reads it (a profiler writing to the same
# path). A plain trace is mapped: truncated under us, touching its pages raised
# SIGBUS (exit 135, no word). Now: one line naming the file, exit 1, no output.
# fold copies the text a second time, so it checks the file's size and time
# again first and refuses one rewritten in place. The change is made when the
# load's first progress line appears (TLREPLAY_PROGRESS=always), so the
# command is mid-way every time.
. "$(dirname "$0")/../taplib.sh"

T=$TMP/t.json
"$PYTHON" "$ROOT/bench/gen_small_events.py" 300000 "$TMP/orig.json" 2>/dev/null
ok $? "generated 300 k small events"
mkfifo "$TMP/fifo" || exit 1

# during ACTION CMD...: run CMD (stderr through the fifo), do ACTION at its first
# progress line; CMD's status in $RC, its stderr in $TMP/err
during() {
	act=$1
	shift
	(TLREPLAY_PROGRESS=always "$@" 2>"$TMP/fifo" >"$TMP/out"; echo $? >"$TMP/rc") &
	done_act=0
	: >"$TMP/err"
	while IFS= read -r line; do
		echo "$line" >>"$TMP/err"
		case $line in
		*loading*)
			if [ $done_act -eq 0 ]; then
				eval "$act"
				done_act=1
			fi
			;;
		esac
	done <"$TMP/fifo"
	wait
	RC=$(cat "$TMP/rc")
}
no_progress() { grep -v 'loading' "$TMP/err"; }

# a results store with one result for the trace, for fold
UID12=12
cp "$TMP/orig.json" "$T"
ID=$(store_trace_id "$T")
printf '{"v":1,"time":"2026-11-28T10:00:00Z","host":"h","pid":1,"command":"uid","tlreplay":"0.1.0","device":"cpu","trace":%s,"uid":%s,"op":"aten::addmm","status":"ok","iters":10,"warmup":2,"time_us":{"median":5,"mean":5,"std":0.1,"min":5,"max":5}}\n' \
	"$ID" "$UID12" >"$TMP/store.jsonl"
for cmd in "report -o $TMP/rep" "critpath" "breakdown" "fold --store $TMP/store.jsonl -o $TMP/folded.json"; do
	cp "$TMP/orig.json" "$T"
	rm -rf "$TMP/rep" "$TMP/folded.json"
	# shellcheck disable=SC2086 # the command's words
	during 'truncate -s 4096 "$T"' "$TLREPLAY" $cmd -i "$T"
	[ "$RC" -eq 1 ] && [ "$(no_progress | wc -l)" -eq 1 ] &&
		no_progress | grep -qF "$T: changed while it was read" &&
		[ ! -e "$TMP/rep" ] && [ ! -e "$TMP/folded.json" ]
	ok $? "${cmd%% *}: a trace truncated under it is named, exit 1 ($RC), nothing written: $(no_progress | head -c 300)"
done

# fold: the text rewritten in place (here only its time) between the load and the copy
cp "$TMP/orig.json" "$T"
run "$TLREPLAY" fold -i "$T" --store "$TMP/store.jsonl" -o "$TMP/folded.json"
[ "$RC" -eq 0 ] && [ -s "$TMP/folded.json" ]
ok $? "fold of the unchanged trace works ($(head -c 200 "$TMP/err"))"
rm -f "$TMP/folded.json"
during 'touch -d "2020-01-02 03:04:05" "$T"' "$TLREPLAY" fold -i "$T" --store "$TMP/store.jsonl" -o "$TMP/folded.json"
[ "$RC" -eq 1 ] && no_progress | grep -qF "$T: changed while it was read (modified since it was loaded)" &&
	[ ! -e "$TMP/folded.json" ]
ok $? "fold: a trace modified since it was loaded is refused before the copy ($(no_progress | head -c 300))"

# replaced by another file (rename over it): what was mapped stays as it was, fold goes on
cp "$TMP/orig.json" "$T"
during 'cp "$TMP/orig.json" "$T.new" && mv "$T.new" "$T"' "$TLREPLAY" fold -i "$T" --store "$TMP/store.jsonl" -o "$TMP/folded.json"
[ "$RC" -eq 0 ] && [ -s "$TMP/folded.json" ]
ok $? "fold: a trace replaced by rename while loaded folds what was loaded"
done_testing
