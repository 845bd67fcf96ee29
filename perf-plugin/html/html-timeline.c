/* SPDX-License-Identifier: MIT */
/* The HTML report's sections about time: the timeline (its data from
 * html-gantt.c, drawn by the page's script) and the idle time by cause and
 * launch overhead, per device and per iteration (tl_idle_breakdown(),
 * tl_launch_stats(), tl_steps(); each gap and launch is put in the step
 * tl_step_of_event() gives it, the rule of the steps' own breakdowns). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chart/chart-svg.h"
#include "util/cli.h"
#include "html/html-gantt.h"
#include "html/html-page.h"
#include "html/html-sections.h"

/* ------------------------------------------------------------------ timeline */

int hs_timeline(FILE *f, const struct html_ctx *c, bool *written)
{
	struct gantt_in in = { c->tr, c->launches, c->idle_all, c->steps, 0 };
	static const struct hp_seg legend[] = {
		{ 0, HP_COMPUTE, "compute" },	       { 0, HP_COMM, "comm" },
		{ 0, HP_MEMCPY, "memcpy / memset" },   { 0, HP_LAUNCH, "CPU launch call" },
		{ 0, HP_HOST_WAIT, "idle: host wait" }, { 0, HP_KERNEL_WAIT, "idle: kernel wait" },
		{ 0, HP_OTHER_WAIT, "idle: other" },
	};
	struct gantt_stats st;
	char *json = NULL, res[32], span[32];
	size_t len = 0;
	FILE *m = open_memstream(&json, &len);
	int err;

	*written = false;
	if (!m)
		return cli_error("report: out of memory");
	err = gantt_write_json(m, &in, &st);
	if (fclose(m) && !err)
		err = -ENOMEM;
	if (err == -ENODATA) {
		free(json);
		return 0;
	}
	if (err) {
		free(json);
		return cli_error("report: timeline: %s", strerror(-err));
	}
	hp_section(f, "timeline", "GPU timeline",
		   "Every stream's GPU events over time, each device's idle gaps coloured by why the GPU waited, "
		   "and above them the CPU threads' launch calls. Drag across it to zoom in, pick an iteration to "
		   "see one, double-click to zoom out; hover for the event under the pointer.");
	fputs("<div class=\"gbar\"><button type=\"button\" id=\"g-all\">Whole trace</button>"
	      "<button type=\"button\" id=\"g-out\">Zoom out</button>"
	      "<label id=\"g-steps\" hidden>Iteration <select id=\"g-step\"></select></label>"
	      "<span id=\"g-range\" class=\"note\"></span></div>\n"
	      "<div class=\"chart gantt\" id=\"gantt\"><svg id=\"g-svg\" class=\"tl-chart\" width=\"1200\" "
	      "height=\"100\"></svg><div id=\"g-tip\" class=\"tip\" hidden></div></div>\n",
	      f);
	hp_legend(f, legend, TL_ARRAY_N(legend));
	fmt_time_us(span, sizeof(span), st.span_us);
	fmt_time_us(res, sizeof(res), st.resolution_us);
	fprintf(f, "<p class=\"note\">%zu GPU events on %zu lanes over %s (every GPU event, where the breakdown "
		   "counts those a CPU launch links to)", st.gpu_events, st.lanes, span);
	if (st.resolution_us > 0)
		fprintf(f, "; drawn as %zu intervals: events closer than %s on a lane are merged into one, "
			   "coloured by what took most of its time, paler where it was less busy",
			st.intervals, res);
	else
		fputs("; every event drawn as it is", f);
	fputs(".</p>\n<script type=\"application/json\" id=\"tl-gantt-data\">", f);
	fwrite(json, 1, len, f);
	fputs("</script>\n", f);
	hp_section_end(f);
	free(json);
	*written = true;
	return 0;
}

/* ------------------------------------------------------------------ idle and launches */

static const struct hp_seg idle_legend[] = {
	{ 0, HP_BUSY, "busy" },
	{ 0, HP_HOST_WAIT, "host wait" },
	{ 0, HP_KERNEL_WAIT, "kernel wait" },
	{ 0, HP_OTHER_WAIT, "other" },
};

static double cat_us(const struct tl_idle_row *r, int cat)
{
	double s = 0;
	int k;

	for (k = 0; k < TL_IDLE_NCAUSES; k++)
		s += r->us[cat][k];
	return s;
}

static double cause_us(const struct tl_idle_row *r, int cause)
{
	double s = 0;
	int c;

	for (c = 0; c < TL_IDLE_NCATS; c++)
		s += r->us[c][cause];
	return s;
}

static void idle_bar(struct hp_bar_row *b, const char *label, const struct tl_idle_row *r)
{
	int c;

	memset(b, 0, sizeof(*b));
	b->label = label;
	b->total = r->span_us;
	b->seg[0] = idle_legend[0];
	b->seg[0].v = r->busy_us;
	for (c = 0; c < TL_IDLE_NCATS; c++) {
		b->seg[c + 1] = idle_legend[c + 1];
		b->seg[c + 1].v = cat_us(r, c);
	}
	b->nseg = 1 + TL_IDLE_NCATS;
}

static void idle_table_row(FILE *f, const struct tl_idle_row *r)
{
	hp_tr(f);
	hp_td(f, r->device, 30);
	hp_td(f, r->stream ? r->stream : "all", 30);
	hp_td_time(f, r->span_us);
	hp_td_pct(f, r->span_us > 0 ? r->idle_us / r->span_us * 100 : NAN, HP_OTHER_WAIT);
	hp_td_count(f, r->ngaps);
	hp_td_time(f, cat_us(r, TL_IDLE_HOST_WAIT));
	hp_td_time(f, cat_us(r, TL_IDLE_KERNEL_WAIT));
	hp_td_time(f, cat_us(r, TL_IDLE_OTHER));
	hp_td_time(f, cause_us(r, TL_IDLE_SYNC_DRAIN));
	hp_td_time(f, cause_us(r, TL_IDLE_PAGEABLE_MEMCPY));
	hp_tr_end(f);
}

static int idle_part(FILE *f, const struct tl_idle_set *s)
{
	static const char *const cols[] = { "device", "stream", "#span", "#idle", "#gaps", "#host wait",
					    "#kernel wait", "#other", "#of which sync drain",
					    "#pageable memcpy" };
	size_t n = s->ndev + s->nstream, i, k = 0;
	struct hp_bar_row *rows = calloc(n + 1, sizeof(*rows));
	char (*lab)[96] = calloc(n + 1, sizeof(*lab));

	if (!rows || !lab) {
		free(rows);
		free(lab);
		return cli_error("report: out of memory");
	}
	hp_h3(f, "Idle time by cause");
	hp_p(f, "note", "Each idle gap between GPU events, in HTA's categories: host wait (the next event was launched "
			"only after the gap began: the GPU waited for the CPU), kernel wait (it was queued and the gap "
			"is short), other (queued, longer: a dependency, an event); sync drain: the gap overlaps a "
			"synchronize call. A device's gaps are those of the union of its streams.");
	for (i = 0; i < s->ndev; i++, k++) {
		snprintf(lab[k], sizeof(lab[k]), "device %s", s->dev[i].device);
		idle_bar(&rows[k], lab[k], &s->dev[i]);
	}
	for (i = 0; i < s->nstream; i++, k++) {
		snprintf(lab[k], sizeof(lab[k]), "device %s, stream %s", s->stream[i].device, s->stream[i].stream);
		idle_bar(&rows[k], lab[k], &s->stream[i]);
	}
	hp_bars(f, "idle-bars", rows, k, true);
	hp_legend(f, idle_legend, TL_ARRAY_N(idle_legend));
	hp_table(f, NULL, cols, TL_ARRAY_N(cols));
	for (i = 0; i < s->ndev; i++)
		idle_table_row(f, &s->dev[i]);
	for (i = 0; i < s->nstream; i++)
		idle_table_row(f, &s->stream[i]);
	hp_table_end(f);
	free(rows);
	free(lab);
	return 0;
}

static void dist_row(FILE *f, const char *what, const struct tl_launch_dist *d)
{
	hp_tr(f);
	hp_td(f, what, 60);
	hp_td_time(f, d->mean);
	hp_td_time(f, d->p50);
	hp_td_time(f, d->p90);
	hp_td_time(f, d->p99);
	hp_td_time(f, d->max);
	hp_td_time(f, d->sum);
	hp_tr_end(f);
}

static void launch_part(FILE *f, const struct tl_launch_set *s)
{
	static const char *const dcols[] = { "per launch", "#mean", "#median", "#p90", "#p99", "#max", "#sum" };
	static const char *const vcols[] = { "device", "stream", "launch-bound", "#GPU events", "#short",
					     "#idle", "#launch-bound gaps", "#launch cadence (median)",
					     "#GPU event (median)" };
	char note[320];
	size_t i;

	hp_h3(f, "Launch overhead");
	snprintf(note, sizeof(note),
		 "%llu GPU events launched by a CPU call (tlreplay launches): %llu calls over %g us, %llu "
		 "launches that waited over %g us to start, %llu kernels shorter than their launch call.",
		 (unsigned long long)s->all.n, (unsigned long long)s->all.n_cpu_outliers, s->runtime_cutoff_us,
		 (unsigned long long)s->all.n_delay_outliers, s->delay_cutoff_us, (unsigned long long)s->all.n_short);
	hp_p(f, "note", note);
	hp_table(f, NULL, dcols, TL_ARRAY_N(dcols));
	dist_row(f, "launch call on the CPU", &s->all.cpu);
	dist_row(f, "end of the call to the kernel's start", &s->all.delay);
	dist_row(f, "queued (CPU and stream ready, not started)", &s->all.queue);
	dist_row(f, "GPU event", &s->all.gpu);
	hp_table_end(f);
	snprintf(note, sizeof(note),
		 "Launch-bound: at least half the idle time is gaps where the GPU ran dry between short events "
		 "(< %g us) and waited for the next launch call.",
		 s->launch_bound_us);
	hp_p(f, "note", note);
	hp_table(f, NULL, vcols, TL_ARRAY_N(vcols));
	for (i = 0; i < s->ndev + s->nstream; i++) {
		const struct tl_launch_row *r = i < s->ndev ? &s->dev[i] : &s->stream[i - s->ndev];

		hp_tr(f);
		hp_td(f, r->device, 30);
		hp_td(f, r->stream ? r->stream : "all", 30);
		fprintf(f, "<td><span class=\"sev %s\">%s</span></td>", r->launch_bound ? "warning" : "info",
			r->launch_bound ? "yes" : "no");
		hp_td_count(f, r->n);
		hp_td_pct(f, r->n ? (double)r->n_short / (double)r->n * 100 : NAN, HP_LAUNCH);
		hp_td_time(f, r->idle_us);
		hp_td_time(f, r->bound_gap_us);
		hp_td_time(f, r->cadence_p50_us);
		hp_td_time(f, r->gpu_p50_us);
		hp_tr_end(f);
	}
	hp_table_end(f);
}

/* What each step holds of the gaps and the launches. */
struct step_acc {
	double idle[TL_IDLE_NCATS], sync;
	uint64_t nl;
	double cpu, delay, queue;
};

/* Serving iterations by phase (prefill, decode, mixed): how many, their
 * wall and GPU busy time, requests and tokens, and tokens a second of wall
 * time. Written only when some iteration has a phase. */
static void phases_part(FILE *f, const struct tl_step_set *ss)
{
	static const char *const cols[] = { "phase",	 "#iterations", "#wall",   "#mean wall",
					    "#GPU busy", "#mean batch", "#tokens", "#tokens/s" };
	struct {
		size_t n, nbatch, ntok;
		double wall, busy, batch, tokens, tok_wall;
	} acc[4] = { { 0 } };
	char note[512];
	int p;
	size_t i;

	for (i = 0; i < ss->n; i++) {
		const struct tl_step *s = &ss->v[i];

		acc[s->phase].n++;
		acc[s->phase].wall += s->dur;
		acc[s->phase].busy += s->us[TL_BD_BUSY];
		if (s->batch_size >= 0) {
			acc[s->phase].nbatch++;
			acc[s->phase].batch += (double)s->batch_size;
		}
		/* a capture run's wall time is the capture's: no rate */
		if (s->tokens >= 0) {
			acc[s->phase].ntok++;
			acc[s->phase].tokens += (double)s->tokens;
			if (!ss->found_by_launches)
				acc[s->phase].tok_wall += s->dur;
		}
	}
	if (acc[TL_PHASE_NONE].n == ss->n)
		return;
	hp_h3(f, "Per phase");
	snprintf(note, sizeof(note),
		 "Serving iterations by what they ran: prefill (new prompts), decode (a token per running "
		 "request) or mixed, as tlreplay steps labels them from %s; --phase keeps one phase for every "
		 "analysis. Tokens a second are over the wall time of the iterations that say their tokens.",
		 ss->phases_from_shapes ? "the attention's shapes (no annotation says them)"
					: "the vLLM/SGLang annotations");
	hp_p(f, "note", note);
	if (ss->found_by_launches)
		hp_p(f, "note", "No tokens a second: the iteration is a graph capture, which served nothing.");
	hp_table(f, NULL, cols, TL_ARRAY_N(cols));
	for (p = TL_PHASE_PREFILL; p <= TL_PHASE_MIXED; p++) {
		if (!acc[p].n)
			continue;
		hp_tr(f);
		hp_td(f, tl_phase_name(p), 16);
		hp_td_count(f, acc[p].n);
		hp_td_time(f, acc[p].wall);
		hp_td_time(f, acc[p].wall / (double)acc[p].n);
		hp_td_time(f, acc[p].busy);
		hp_td_num(f, "%.1f", acc[p].nbatch ? acc[p].batch / (double)acc[p].nbatch : NAN);
		hp_td_num(f, "%.0f", acc[p].ntok ? acc[p].tokens : NAN);
		hp_td_num(f, "%.0f", acc[p].tok_wall > 0 ? acc[p].tokens / (acc[p].tok_wall / 1e6) : NAN);
		hp_tr_end(f);
	}
	hp_table_end(f);
}

/* A step's name as a label: a Python frame's file without its directories
 * ("/sgl-workspace/.../cuda_graph_runner.py(941): _capture_graph" is
 * "cuda_graph_runner.py(941): _capture_graph"), else the name. */
static const char *step_label(const char *name)
{
	const char *py = name ? strstr(name, ".py(") : NULL, *p;

	if (!py)
		return name;
	for (p = py; p > name && p[-1] != '/'; p--)
		;
	return p;
}

static int steps_part(FILE *f, const struct html_ctx *c)
{
	static const char *const cols[] = { "step", "#wall", "#GPU span", "#busy", "#idle", "#host wait",
					    "#kernel wait", "#other", "#sync drain", "#launches",
					    "#launch calls", "#mean delay", "#mean queue" };
	static const struct hp_seg legend[] = {
		{ 0, HP_COMPUTE, "computation" },
		{ 0, HP_COMM, "exposed comm" },
		{ 0, HP_MEMCPY, "exposed memcpy" },
		{ 0, HP_IDLE, "idle" },
	};
	const struct tl_step_set *ss = c->steps;
	struct step_acc *acc = calloc(ss->n, sizeof(*acc));
	struct hp_bar_row *rows = calloc(ss->n, sizeof(*rows));
	char (*notes)[48] = calloc(ss->n, sizeof(*notes));
	size_t i, j;
	uint64_t k;

	if (!acc || !rows || !notes) {
		free(acc);
		free(rows);
		free(notes);
		return cli_error("report: out of memory");
	}
	for (i = 0; c->idle && i < c->idle->ndev; i++) {
		const struct tl_idle_row *r = &c->idle->dev[i];

		for (k = 0; r->gaps && k < r->ngaps; k++) {
			long s = tl_step_of_event(c->tr, ss, r->gaps[k].next_uid);

			if (s < 0 || r->gaps[k].cat >= TL_IDLE_NCATS)
				continue;
			acc[s].idle[r->gaps[k].cat] += r->gaps[k].end - r->gaps[k].start;
			if (r->gaps[k].cause == TL_IDLE_SYNC_DRAIN)
				acc[s].sync += r->gaps[k].end - r->gaps[k].start;
		}
	}
	for (j = 0; c->launches && j < c->launches->n; j++) {
		const struct tl_launch *l = &c->launches->l[j];
		long s = tl_step_of_event(c->tr, ss, l->gpu_uid);

		if (s < 0)
			continue;
		acc[s].nl++;
		acc[s].cpu += l->cpu_us;
		acc[s].delay += l->delay_us;
		acc[s].queue += l->queue_us;
	}
	hp_h3(f, "Per iteration");
	hp_p(f, "note", "Each step's GPU events are those its CPU range launched (HTA's rule, as tlreplay steps), "
			"so a step's GPU span may outlast its wall time. Bars to scale: the GPU span of each step, "
			"broken down as above. The idle gaps (of every device) and the launches are those of the "
			"events the step launched.");
	if (ss->source == TL_STEPS_CALLTREE && ss->n > 1)
		hp_p(f, "note",
		     "The trace has no iteration annotation: these steps are the loop found in its call "
		     "tree, each named by its first call (tlreplay steps says how they were found).");
	else if (ss->source == TL_STEPS_CALLTREE)
		hp_p(f, "note",
		     "The trace has no iteration annotation and its call tree no loop: the one iteration is "
		     "the call that holds the busiest thread's work, named by that call (tlreplay steps says "
		     "how it was found).");
	if (ss->found_by_launches)
		hp_p(f, "note",
		     "A capture trace: its kernels were captured into a CUDA graph, not run, so the iteration "
		     "was found by its launch calls, and its GPU time is that of the few kernels that did run.");
	for (i = 0; i < ss->n; i++) {
		const struct tl_step *s = &ss->v[i];
		char w[32];
		size_t m;

		rows[i].label = step_label(s->name);
		rows[i].total = s->us[TL_BD_TOTAL];
		fmt_time_us(w, sizeof(w), s->dur);
		snprintf(notes[i], sizeof(notes[i]), "wall %s", w);
		rows[i].note = notes[i];
		for (m = 0; m < TL_ARRAY_N(legend); m++)
			rows[i].seg[m] = legend[m];
		rows[i].seg[0].v = s->us[TL_BD_COMPUTATION];
		rows[i].seg[1].v = s->us[TL_BD_EXPOSED_COMM];
		rows[i].seg[2].v = s->us[TL_BD_EXPOSED_MEMCPY];
		rows[i].seg[3].v = s->us[TL_BD_IDLE];
		rows[i].nseg = TL_ARRAY_N(legend);
	}
	hp_bars(f, "step-bars", rows, ss->n, false);
	hp_legend(f, legend, TL_ARRAY_N(legend));
	hp_table(f, NULL, cols, TL_ARRAY_N(cols));
	for (i = 0; i < ss->n; i++) {
		const struct tl_step *s = &ss->v[i];
		const struct step_acc *a = &acc[i];

		hp_tr(f);
		/* the whole name on hover: the label may be cut or shortened */
		fprintf(f, "<td%s title=\"%s", i == ss->slowest && ss->n > 1 ? " class=\"slow\"" : "",
			i == ss->slowest && ss->n > 1 ? "the slowest step: " : "");
		hp_esc(f, s->name, 400);
		fputs("\">", f);
		if (tl_phase_name(s->phase))
			fprintf(f, "[%s] ", tl_phase_name(s->phase));
		hp_esc(f, step_label(s->name), 48);
		fputs("</td>", f);
		hp_td_time(f, s->dur);
		hp_td_time(f, s->ngpu ? s->gpu_end - s->gpu_start : NAN);
		hp_td_time(f, s->us[TL_BD_BUSY]);
		hp_td_time(f, s->us[TL_BD_IDLE]);
		hp_td_time(f, a->idle[TL_IDLE_HOST_WAIT]);
		hp_td_time(f, a->idle[TL_IDLE_KERNEL_WAIT]);
		hp_td_time(f, a->idle[TL_IDLE_OTHER]);
		hp_td_time(f, a->sync);
		hp_td_count(f, a->nl);
		hp_td_time(f, a->cpu);
		hp_td_time(f, a->nl ? a->delay / (double)a->nl : NAN);
		hp_td_time(f, a->nl ? a->queue / (double)a->nl : NAN);
		hp_tr_end(f);
	}
	hp_table_end(f);
	phases_part(f, ss);
	free(acc);
	free(rows);
	free(notes);
	return 0;
}

int hs_idle(FILE *f, const struct html_ctx *c, bool *written)
{
	*written = false;
	if (!c->idle && !c->launches && !c->steps)
		return 0;
	hp_section(f, "idle", "Idle time, launch overhead, iterations", NULL);
	if (c->idle && idle_part(f, c->idle))
		return 1;
	if (c->launches)
		launch_part(f, c->launches);
	if (c->steps && steps_part(f, c))
		return 1;
	hp_section_end(f);
	*written = true;
	return 0;
}
