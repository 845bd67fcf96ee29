#!/bin/sh
# tlreplay report --html: one self-contained page. Without a browser: the
# sections each trace has (and only those), the numbers the library gives,
# nothing fetched from the network, bad inputs and atomic writing, -i DIR of
# ranks, replay results from a store. With Chromium (headless; Debian's
# chromium, scripts/install-deps.sh): the page loads without a console
# message, its script ran and every section is there, and the chart areas
# hold coloured pixels in the screenshot (tests/tools/pngcheck.py). On the
# fixtures, and on an H100 trace of ../shared (skipped visibly without it).
. "$(dirname "$0")/../taplib.sh"

F=$ROOT/tests/fixtures
PNG="$PYTHON $ROOT/tests/tools/pngcheck.py"
tl() { "$TLREPLAY" "$@"; }
# sections PAGE: the ids of its sections, comma-separated
sections() { grep -o '<section id="[a-z]*"' "$1" | cut -d'"' -f2 | tr '\n' ,; }

if ! "$TLREPLAY" report --help 2>&1 | grep -q -- --html; then
	echo "1..0 # SKIP tlreplay report has no --html"
	exit 0
fi

# ---------------------------------------------------------------- one trace
run tl report -i "$F/steps_basic.json" --html "$TMP/steps.html"
[ "$RC" -eq 0 ] && [ -s "$TMP/steps.html" ] && [ "$(sections "$TMP/steps.html")" = "breakdown,timeline,top,idle,health," ]
ok $? "steps_basic: breakdown, timeline, top, idle, health (no ranks, no replays: not there)"
[ "$RC" -ne 0 ] && diag "$(cat "$TMP/err")"

P=$TMP/steps.html
grep -q '<h3>Per iteration</h3>' "$P" && grep -q '>ProfilerStep#1</td><td class="n">100 µs</td><td class="n">70 µs</td>' "$P" &&
	grep -q '>ProfilerStep#2</td><td class="n">50 µs</td><td class="n">30 µs</td>' "$P"
ok $? "per iteration: the steps' wall time and GPU span, as tlreplay steps (100/70 us, 50/30 us)"

run tl report -i "$F/steps_basic.json" --step 2 --html "$TMP/step2.html"
[ "$RC" -eq 0 ] && grep -q '>ProfilerStep#2</td>' "$TMP/step2.html" && ! grep -q '>ProfilerStep#1</td>' "$TMP/step2.html"
ok $? "report --step 2 --html: the page of that iteration only"

# serving iterations (issue 28.5): each row says its phase, and a per-phase table follows
run tl report -i "$F/serving_phases.json" --html "$TMP/phases.html"
[ "$RC" -eq 0 ] && grep -q '<h3>Per phase</h3>' "$TMP/phases.html" &&
	grep -q '<tr><td class="t">decode</td><td class="n">2</td><td class="n">204 µs</td><td class="n">102 µs</td><td class="n">60 µs</td><td class="n">2.0</td><td class="n">4</td><td class="n">19608</td></tr>' "$TMP/phases.html" &&
	grep -q '<tr><td class="t">prefill</td><td class="n">1</td>' "$TMP/phases.html" &&
	grep -q '<tr><td class="t">mixed</td><td class="n">1</td>' "$TMP/phases.html" &&
	grep -q '>\[prefill\] execute_15_context_1' "$TMP/phases.html" && ! grep -q '<h3>Per phase</h3>' "$P"
ok $? "serving iterations: a per-phase table (iterations, wall, busy, batch, tokens, tokens/s), rows labelled; none for ProfilerSteps"
[ "$(grep -o '"phase":"[a-z]*"' "$TMP/phases.html" | tr '\n' ' ')" = '"phase":"prefill" "phase":"decode" "phase":"decode" "phase":"mixed" ' ] &&
	grep -q "PHASE_TINT\[s.phase\]" "$TMP/phases.html" && ! grep -q '"phase":' "$P"
ok $? "the timeline's iteration bands carry their phase (tinted and labelled by it)"

run tl report -i "$F/launch_basic.json" --html "$TMP/idle.html"
[ "$RC" -eq 0 ] && ! grep -q '<h3>Per iteration</h3>' "$TMP/idle.html" && grep -q '<h3>Idle time by cause</h3>' "$TMP/idle.html"
ok $? "a trace without ProfilerStep: no per-iteration part, the idle causes still"

# the breakdown row of the page against tlreplay breakdown -x,
tl breakdown -i "$F/steps_basic.json" -x, >"$TMP/bd.csv"
comp=$(grep '^computation_time,' "$TMP/bd.csv" | cut -d, -f3)
grep -q "$(printf '(gpu_timeline)</td><td class="n">7</td><td class="n">110 µs</td>.*>%.1f%%</span>' "$comp")" "$P"
ok $? "the page's pooled breakdown row: 7 GPU events, 110 us, computation $comp % as tlreplay breakdown"

# nothing from the network: no script, style, image or font by URL
! grep -Eiq '(src|href)="(https?:)?//|url\((https?:)?//|@import' "$P" && ! grep -q '<link ' "$P" &&
	grep -q '<style>' "$P" && grep -q '<script>' "$P"
ok $? "self-contained: inline style and script, no URL fetched"

# the timeline's data: every GPU event of the trace in it
"$PYTHON" - "$P" <<'PYEOF' >"$TMP/gantt"
import json, re, sys
s = open(sys.argv[1], encoding="utf-8").read()
d = json.loads(re.search(r'<script type="application/json" id="tl-gantt-data">(.*?)</script>', s, re.S).group(1))
gpu = [l for l in d["lanes"] if l["kind"] == "gpu"]
print(sum(l["n"] for l in gpu), len(d["steps"]), d["res"], sorted(set(l["kind"] for l in d["lanes"])))
PYEOF
[ "$(cat "$TMP/gantt")" = "7 2 0 ['cpu', 'gpu', 'idle']" ]
ok $? "timeline data: 7 GPU events, 2 steps, every event as it is, CPU launch and idle lanes ($(cat "$TMP/gantt"))"

# the perf-model groups: report_roofline's numbers (test_roofline.sh has them by hand)
run tl report -i "$F/report_roofline.json" --html "$TMP/roof.html"
[ "$RC" -eq 0 ] && grep -q 'id="roofline"' "$TMP/roof.html" &&
	grep -q '<span class="pv">46.9%</span>' "$TMP/roof.html" && grep -q '<span class="pv">62.6%</span>' "$TMP/roof.html" &&
	grep -q 'src="data:image/svg+xml;base64,' "$TMP/roof.html"
ok $? "report_roofline: % of roof 46.9 (mul) and 62.6 (sigmoid), the roofline chart embedded"

# -o and --html together: both
run tl report -i "$F/report_roofline.json" -o "$TMP/sheets" --html "$TMP/both.html"
[ "$RC" -eq 0 ] && [ -s "$TMP/sheets/roofline.csv" ] && [ -s "$TMP/both.html" ]
ok $? "-o DIR --html FILE: the sheets and the page"

# a GPU-only trace (no launch links, no TraceLens report): a page still
run tl report -i "$F/seq_ngrams.json" --html "$TMP/gpuonly.html"
[ "$RC" -eq 0 ] && grep -q 'id="timeline"' "$TMP/gpuonly.html" && ! grep -q 'id="roofline"' "$TMP/gpuonly.html" &&
	grep -q "without the perf report" "$TMP/err"
ok $? "GPU-only trace: the page without the perf report, and a note why"

# JAX: the XSpace fixture
run tl report -i "$F/tiny.xplane.pb" --html "$TMP/jax.html"
[ "$RC" -eq 0 ] && grep -q 'id="timeline"' "$TMP/jax.html" && grep -q 'id="breakdown"' "$TMP/jax.html"
ok $? "a JAX .xplane.pb: breakdown and timeline"

# ---------------------------------------------------------------- bad inputs
printf 'old\n' >"$TMP/keep.html"
run tl report -i "$F/nope.json" --html "$TMP/keep.html"
[ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ "$(cat "$TMP/keep.html")" = old ]
ok $? "a missing trace: one line, exit $RC, the old page untouched"
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid' >"$TMP/cut.json"
run tl report -i "$TMP/cut.json" --html "$TMP/cut.html"
[ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ ! -e "$TMP/cut.html" ]
ok $? "a broken trace: one line, no page"
printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":2}]}' >"$TMP/nogpu.json"
run tl report -i "$TMP/nogpu.json" --html "$TMP/nogpu.html"
[ "$RC" -ne 0 ] && grep -q "no GPU events" "$TMP/err" && [ ! -e "$TMP/nogpu.html" ]
ok $? "a trace without GPU events: an error, no page"
run tl report -i "$F/steps_basic.json" --html "$TMP/no/such/dir/p.html"
[ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "p.html: cannot create" "$TMP/err"
ok $? "--html into a missing directory: one line before the work"
run tl report -i "$F/steps_basic.json" --store "$TMP/s.jsonl" -o "$TMP/o2"
[ "$RC" -ne 0 ] && grep -q -- "--store" "$TMP/err" && [ ! -e "$TMP/o2" ]
ok $? "--store without --html: refused"
run tl report -i "$F/ranks" -o "$TMP/o3"
[ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ ! -e "$TMP/o3" ]
ok $? "-i DIR of ranks with -o: refused, one line"
[ -z "$(find "$TMP" -name '*.tmp.*')" ]
ok $? "no temporary file left behind"

# ---------------------------------------------------------------- ranks
run tl report -i "$F/ranks" --html "$TMP/ranks.html"
[ "$RC" -eq 0 ] && [ "$(sections "$TMP/ranks.html")" = "breakdown,timeline,top,idle,ranks,health," ] &&
	grep -q '3 ranks: compared under Ranks and collectives, the rest is rank 0' "$TMP/ranks.html" && grep -q 'id="coll"' "$TMP/ranks.html" &&
	grep -q '>rank 1 (worker1.json)</text>' "$TMP/ranks.html"
ok $? "-i DIR: the ranks' breakdowns and collectives chart, the rest of rank 0"

# ---------------------------------------------------------------- replays
uid=$(tl list -i "$F/steps_basic.json" -j aten::mm | "$PYTHON" -c 'import json,sys; print(json.loads(sys.stdin.readline())["uid"])')
"$PYTHON" - "$(store_trace_id "$F/steps_basic.json")" "$uid" >"$TMP/store.jsonl" <<'PYEOF'
import json, sys
tid = json.loads(sys.argv[1])
rec = {"v": 1, "command": "uid", "device": "cuda:0", "trace": tid, "uid": int(sys.argv[2]), "op": "aten::mm",
       "status": "ok", "time_us": {"median": 30.0}, "kernel_us": 25.0, "trace_gpu_us": 20.0,
       "kernels_vs_trace": "MATCH"}
print(json.dumps(dict(rec, time="2026-01-01T00:00:00.000Z", kernel_us=99.0)))
print(json.dumps(dict(rec, time="2026-01-02T00:00:00.000Z")))
print(json.dumps(dict(rec, trace={"path": "/elsewhere.json", "size": 1, "sig": "0"}, uid=1)))
PYEOF
run tl report -i "$F/steps_basic.json" --html "$TMP/rep.html" --store "$TMP/store.jsonl"
[ "$RC" -eq 0 ] && grep -q 'id="replay"' "$TMP/rep.html" &&
	[ "$(grep -c '<td class="t">aten::mm</td><td class="t">cuda:0</td>' "$TMP/rep.html")" -eq 1 ] &&
	grep -q '<td class="n">1.25×</td><td class="t">MATCH</td>' "$TMP/rep.html"
ok $? "replays: the latest result of the op (25 us of kernels over the trace's 20: 1.25x), not another trace's"
TLREPLAY_STORE=$TMP/store.jsonl tl report -i "$F/steps_basic.json" --html "$TMP/rep2.html" 2>/dev/null &&
	grep -q 'id="replay"' "$TMP/rep2.html"
ok $? "replays from \$TLREPLAY_STORE too"
# a CPU replay's time is no GPU time: no ratio, as the command line says (issue 29.6)
"$PYTHON" -c '
import json, sys
r = json.loads(open(sys.argv[1]).readlines()[1])
r.update(device="cpu", time_us={"median": 712000.0}, time="2026-01-03T00:00:00.000Z")
r.pop("kernel_us"); r.pop("kernels_vs_trace")
print(json.dumps(r))' "$TMP/store.jsonl" >"$TMP/cpu.jsonl"
run tl report -i "$F/steps_basic.json" --html "$TMP/rep3.html" --store "$TMP/cpu.jsonl"
[ "$RC" -eq 0 ] && grep -q '<td class="t">cpu</td>' "$TMP/rep3.html" &&
	grep -q 'not comparable (a CPU replay)' "$TMP/rep3.html" && ! grep -q '35600' "$TMP/rep3.html"
ok $? "replays: a CPU replay gets no replay/trace ratio, 'not comparable' instead"

# ---------------------------------------------------------------- the page in a browser
# Debian's /usr/bin/chromium is a shell script that does not hand the
# DevTools pipe on: the browser itself, beside it
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -x /usr/lib/chromium/chromium ] && [ "$CHROME" = /usr/bin/chromium ] && CHROME=/usr/lib/chromium/chromium
REAL=$SHARED/traces/TraceLens/tests/traces/h100/google_owlv2-large-patch14-ensemble__1016001.json.gz
S=$TMP/shots
# page_ok NAME IDS CHARTS...: loaded without a console message, exception or
# failed load, ready (the script ran), every section id there, each chart
# with coloured pixels (> 0.1%: a fixture's three short kernels on a 1 ms
# timeline are that; the roofline's few points: > 0.05%)
page_ok() {
	name=$1 ids=$2
	shift 2
	[ -f "$S/$name.log" ] && [ ! -s "$S/$name.log" ] && grep -q 'data-ready="1"' "$S/$name.dom" || return 1
	for id in $ids; do
		grep -q "<section id=\"$id\"" "$S/$name.dom" || return 1
	done
	for c in "$@"; do
		[ -f "$S/$name.$c.png" ] || { diag "$name: no $c"; return 1; }
		printf '%s %s\n' "$c" "$($PNG ink "$S/$name.$c.png" 0 0 99999 99999)"
	done >"$S/$name.ink"
	diag "$name, coloured pixels: $(tr '\n' ' ' <"$S/$name.ink")"
	awk '$1 == "roofline" && $2 + 0 <= 0.0005 { bad = 1 }
	     $1 != "roofline" && $2 + 0 <= 0.001 { bad = 1 }
	     END { exit bad }' "$S/$name.ink"
}

if [ -z "$CHROME" ]; then
	for i in 1 2 3 4 5 6 7; do skip "no chromium (scripts/install-deps.sh installs it)"; done
else
	mkdir -p "$S"
	set -- "file://$TMP/steps.html" steps 2600 bd-bars g-svg idle-bars step-bars \
		-- "file://$TMP/roof.html" roof 3200 bd-bars g-svg roofline \
		-- "file://$TMP/ranks.html" ranks 4200 bd-bars g-svg rank-bars coll \
		-- "file://$TMP/steps.html#step=1" zoom 1200 g-svg \
		-- "file://$TMP/nothere.html" missing 400
	if [ -f "$REAL" ] && tl report -i "$REAL" --html "$TMP/owl.html" 2>"$TMP/owl.err"; then
		set -- "$@" -- "file://$TMP/owl.html" owl 5200 bd-bars g-svg roofline idle-bars step-bars
	fi
	t0=$(date +%s)
	"$PYTHON" "$ROOT/tests/tools/cdp_render.py" "$CHROME" "$S" "$@" 2>"$TMP/cdp.err"
	RC=$?
	diag "$CHROME: $(($(date +%s) - t0)) s for the pages"
	[ "$RC" -eq 0 ]
	ok $? "Chromium driven over its DevTools pipe"
	[ "$RC" -ne 0 ] && diag "$(cat "$TMP/cdp.err")"

	page_ok steps "breakdown timeline top idle health" bd-bars g-svg idle-bars step-bars
	ok $? "steps_basic in Chromium: no console message, the script ran, the sections there, the charts drawn"
	[ -s "$S/steps.log" ] && diag "$(head -5 "$S/steps.log")"

	page_ok roof "breakdown timeline top idle health" bd-bars g-svg roofline
	ok $? "report_roofline in Chromium: the roofline chart drawn"

	page_ok ranks "breakdown timeline ranks health" bd-bars g-svg rank-bars coll
	ok $? "ranks in Chromium: each rank's bar and the collectives chart drawn"

	# a link to one iteration: ProfilerStep#2, 60 us with its GPU events
	grep -q 'id="g-range" class="note">[^<]*(60.0 µs shown)<' "$S/zoom.dom" && [ ! -s "$S/zoom.log" ]
	ok $? "#step=1 opens the timeline on that iteration (60 us)"

	# and the check fails where it should: a page that is not there
	grep -q "ERR_FILE_NOT_FOUND" "$S/missing.log" && ! page_ok missing "breakdown" 2>/dev/null >&2
	ok $? "the check itself: a page that does not load fails it"

	if [ -f "$TMP/owl.html" ]; then
		page_ok owl "breakdown timeline top idle health" bd-bars g-svg roofline idle-bars step-bars
		ok $? "the H100 OWLv2 trace in Chromium: every chart drawn ($(stat -c %s "$TMP/owl.html") bytes)"
	else
		skip "$REAL absent"
	fi
fi

done_testing
