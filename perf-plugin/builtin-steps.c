/* SPDX-License-Identifier: MIT */
/* tlreplay steps: per iteration (ProfilerStep#N, else vLLM/SGLang iteration
 * annotations, else the loop found in the call tree) the wall time, GPU busy time and breakdown, then the slowest
 * step and the spread (tl_steps(), include/tlreplay/steps.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/steps.h>

#include "builtin.h"

struct steps_args {
	struct common_opts co;
};

static const struct opt steps_opts[] = {
	OPT_INCLUDE(opts_analysis, offsetof(struct steps_args, co)),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(steps, steps_opts, "per iteration (ProfilerStep#N): wall time, GPU busy time, breakdown",
	"usage: tlreplay steps [-i TRACE] [-x SEP | -j] [-o FILE] [--step N | --phase P | --steady]\n"
	"\n"
	"One row per iteration: the ProfilerStep#N ranges, else vLLM/SGLang iteration\n"
	"annotations (execute_..., step[...], prefill[...], decode[...]), else the loop\n"
	"found in the call tree (calls that repeat, each block waiting for the GPU;\n"
	"the line under the title says how it was found). A GPU event belongs to the\n"
	"step of the runtime call that launched it (HTA's rule), so its wall time (the\n"
	"CPU range) and its GPU time may differ. Per step: the wall time,\n"
	"the GPU span and busy time, and the breakdown of `tlreplay breakdown` over its\n"
	"GPU events (computation, exposed comm, exposed memcpy, idle); then the slowest\n"
	"step and the spread of wall times (min, median, max, mean, stdev). Serving\n"
	"iterations say their phase (prefill, decode, mixed). --steady shows the\n"
	"steady-state window and why the others are left out. A step counts every\n"
	"thread's launches inside it (the autograd thread's backward too), where\n"
	"`annotations` counts a range's own thread's only: its ProfilerStep rows can\n"
	"show a third of the GPU time shown here. docs/analyses.md, \"Iterations\",\n"
	"has the details.\n"
	"\n");
/* clang-format on */

static void num(struct out_fmt *o, double us, bool last)
{
	char b[64];

	fmt_pyfloat(b, sizeof(b), us / 1e3);
	if (o->json)
		fputs(b, o->f);
	else
		out_field(o, b, last);
}

static void print_step(struct out_fmt *o, const struct tl_step *s)
{
	double span = s->ngpu ? s->gpu_end - s->gpu_start : 0;
	const double v[] = { s->dur, span, s->us[TL_BD_BUSY], s->us[TL_BD_COMPUTATION],
			     s->us[TL_BD_EXPOSED_COMM], s->us[TL_BD_EXPOSED_MEMCPY], s->us[TL_BD_IDLE] };
	static const char *const keys[] = { "wall_ms", "gpu_span_ms", "busy_ms", "computation_ms",
					    "exposed_comm_ms", "exposed_memcpy_ms", "idle_ms" };
	const char *phase = tl_phase_name(s->phase);
	char b[32], label[64];
	size_t i;

	if (!o->sep && !o->json) {
		/* a serving iteration is told by what it ran; its name is in -j, -x */
		if (phase) {
			int n = snprintf(label, sizeof(label), "%s", phase);

			if (s->batch_size >= 0)
				n += snprintf(label + n, sizeof(label) - (size_t)n, " bs=%lld", s->batch_size);
			if (s->tokens >= 0)
				snprintf(label + n, sizeof(label) - (size_t)n, " toks=%lld", s->tokens);
		}
		fprintf(o->f, "%6lld %-26.26s %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %8llu\n", s->number,
			phase ? label : s->name, v[0] / 1e3, v[1] / 1e3, v[2] / 1e3, v[3] / 1e3, v[4] / 1e3, v[5] / 1e3,
			v[6] / 1e3, (unsigned long long)s->ngpu);
		return;
	}
	snprintf(b, sizeof(b), "%lld", s->number);
	if (o->json) {
		fprintf(o->f, "{\"step\":%s,\"name\":", b);
		json_str(o->f, s->name);
		fprintf(o->f, ",\"uid\":%llu", (unsigned long long)s->uid);
		if (s->inner) {
			fprintf(o->f, ",\"inner\":");
			json_str(o->f, s->inner);
		}
		for (i = 0; i < TL_ARRAY_N(v); i++) {
			fprintf(o->f, ",\"%s\":", keys[i]);
			num(o, v[i], false);
		}
		fprintf(o->f, ",\"gpu_events\":%llu,\"phase\":", (unsigned long long)s->ngpu);
		if (phase)
			fprintf(o->f, "\"%s\"", phase);
		else
			fputs("null", o->f);
		fputs(",\"batch_size\":", o->f);
		if (s->batch_size >= 0)
			fprintf(o->f, "%lld", s->batch_size);
		else
			fputs("null", o->f);
		fputs(",\"tokens\":", o->f);
		if (s->tokens >= 0)
			fprintf(o->f, "%lld", s->tokens);
		else
			fputs("null", o->f);
		fprintf(o->f, ",\"phase_from\":%s}\n",
			!phase		       ? "null"
			: s->phase_from_shapes ? "\"shapes\""
					       : "\"annotation\"");
		return;
	}
	out_field(o, b, false);
	out_field(o, s->name, false);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)s->uid);
	out_field(o, b, false);
	for (i = 0; i < TL_ARRAY_N(v); i++)
		num(o, v[i], false);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)s->ngpu);
	out_field(o, b, false);
	out_field(o, phase ? phase : "", false);
	snprintf(b, sizeof(b), "%lld", s->batch_size);
	out_field(o, s->batch_size >= 0 ? b : "", false);
	snprintf(b, sizeof(b), "%lld", s->tokens);
	out_field(o, s->tokens >= 0 ? b : "", true);
}

static const char *source_name(int source)
{
	switch (source) {
	case TL_STEPS_PROFILER:
		return "ProfilerStep#N";
	case TL_STEPS_SERVING:
		return "vLLM/SGLang iterations";
	default:
		return "no iteration annotation: found in the call tree";
	}
}

/* How the call tree's loop was told, in a line under the title: a user who
 * sees iterations the trace never named must see what they were cut by. */
static void print_found(struct out_fmt *o, const struct tl_step_set *set)
{
	const char *under = set->found_under ? set->found_under : "a thread's top level";
	/* a capture trace's kernels went into a graph: its launches stand for them */
	const char *work = set->found_by_launches ? "launch calls" : "GPU work";
	const char *what = set->found_by_launches ? "launch calls" : "GPU time";

	if (!strcmp(set->found_how, "one"))
		fprintf(o->f,
			"  no loop: one iteration, the call holding the busiest thread's %s (and the wait for it, "
			"if any); %.1f%% of the trace's %s\n",
			work, 100 * set->share, what);
	else
		fprintf(o->f,
			"  %zu blocks of the children of %.60s, %s; %.1f%% of the %s in their span, %.1f%% of "
			"the trace's\n",
			set->n, under,
			!strcmp(set->found_how, "period") ? "the same calls over again"
							  : "each starting at the same call",
			100 * set->coverage, set->found_by_launches ? "launch calls" : "GPU time launched",
			100 * set->share);
	if (set->found_by_launches)
		fputs("  a capture trace: its kernels were captured into a graph, not run, so its launch calls "
		      "were weighed instead of GPU time\n",
		      o->f);
}

static void print_all(struct out_fmt *o, struct tl_trace *tr, const struct tl_step_set *set)
{
	static const char *const cols[] = { "step",
					    "name",
					    "uid",
					    "wall ms",
					    "gpu span ms",
					    "busy ms",
					    "computation ms",
					    "exposed comm ms",
					    "exposed memcpy ms",
					    "idle ms",
					    "gpu events",
					    "phase",
					    "batch size",
					    "tokens" };
	const struct tl_step *slow = &set->v[set->slowest];
	size_t i;

	if (o->sep)
		for (i = 0; i < TL_ARRAY_N(cols); i++)
			out_field(o, cols[i], i + 1 == TL_ARRAY_N(cols));
	else if (!o->json) {
		fprintf(o->f, "Steps of %s (%s; GPU events in the step of the call that launched them)\n",
			tl_trace_path(tr), source_name(set->source));
		if (set->source == TL_STEPS_CALLTREE)
			print_found(o, set);
		if (set->phases_from_shapes)
			fprintf(o->f, "  phases read from the attention's shapes (no annotation says them)\n");
		fprintf(o->f, "%6s %-26s %10s %10s %10s %10s %10s %10s %10s %8s\n", "step",
			set->source == TL_STEPS_SERVING || set->phases_from_shapes ? "phase" : "name", "wall ms",
			"span ms", "busy ms", "compute ms", "x-comm ms", "x-memcpy ms", "idle ms", "gpu evs");
	}
	for (i = 0; i < set->n; i++)
		print_step(o, &set->v[i]);
	if (o->sep)
		return;
	if (o->json) {
		fprintf(o->f, "{\"summary\":\"wall\",\"source\":\"%s\",",
			set->source == TL_STEPS_PROFILER  ? "profiler_steps"
			: set->source == TL_STEPS_SERVING ? "serving_annotations"
							  : "call_tree");
		if (set->source == TL_STEPS_CALLTREE) {
			fputs("\"found_under\":", o->f);
			if (set->found_under)
				json_str(o->f, set->found_under);
			else
				fputs("null", o->f);
			fprintf(o->f, ",\"found_by\":\"%s\",\"weighed_by\":\"%s\",\"coverage\":%.6g,\"share\":%.6g,",
				set->found_how, set->found_by_launches ? "launch_calls" : "gpu_time", set->coverage,
				set->share);
		}
		fprintf(o->f, "\"steps\":%zu,\"slowest_step\":%lld,\"min_ms\":", set->n, slow->number);
		num(o, set->min_us, false);
		fputs(",\"median_ms\":", o->f);
		num(o, set->median_us, false);
		fputs(",\"max_ms\":", o->f);
		num(o, set->max_us, false);
		fputs(",\"mean_ms\":", o->f);
		num(o, set->mean_us, false);
		fputs(",\"stdev_ms\":", o->f);
		if (isnan(set->std_us))
			fputs("null", o->f);
		else
			num(o, set->std_us, false);
		fputs("}\n", o->f);
		return;
	}
	fprintf(o->f, "\nslowest: step %lld (%s), %.3f ms wall, %.3f ms GPU busy\n", slow->number, slow->name,
		slow->dur / 1e3, slow->us[TL_BD_BUSY] / 1e3);
	fprintf(o->f, "wall time over %zu steps: min %.3f, median %.3f, max %.3f, mean %.3f, stdev ", set->n,
		set->min_us / 1e3, set->median_us / 1e3, set->max_us / 1e3, set->mean_us / 1e3);
	if (isnan(set->std_us))
		fputs("- ms (one step)\n", o->f);
	else
		fprintf(o->f, "%.3f ms\n", set->std_us / 1e3);
}

/* --steady: the window's rows, then which steps were left out and why. */
static void print_steady(struct out_fmt *o, struct tl_trace *tr, struct tl_step_set *set, const struct tl_steady *st)
{
	struct tl_step_set win = *set;
	size_t i;

	win.v = set->v + st->first;
	win.n = st->last - st->first + 1;
	win.slowest = 0;
	for (i = 1; i < win.n; i++)
		if (win.v[i].dur > win.v[win.slowest].dur)
			win.slowest = i;
	/* the spread of the window alone */
	win.min_us = st->min_us;
	win.median_us = st->median_us;
	win.max_us = st->max_us;
	win.mean_us = st->mean_us;
	win.std_us = st->std_us;
	print_all(o, tr, &win);
	if (o->sep)
		return;
	if (o->json) {
		fprintf(o->f,
			"{\"summary\":\"steady\",\"first_step\":%lld,\"last_step\":%lld,\"steps\":%zu,\"of\":%zu,"
			"\"median_ms\":",
			set->v[st->first].number, set->v[st->last].number, win.n, set->n);
		num(o, st->median_us, false);
		fprintf(o->f, ",\"cv\":%.6g,\"left_out\":[", st->cv);
		for (i = 0; i < st->nout; i++)
			fprintf(o->f, "%s{\"step\":%lld,\"why\":\"%s\",\"ratio\":%.4g}", i ? "," : "",
				set->v[st->out[i].idx].number, tl_steady_why_name(st->out[i].why), st->out[i].ratio);
		fputs("]}\n", o->f);
		return;
	}
	fprintf(o->f,
		"steady: steps %lld to %lld (%zu of %zu; wall time median %.3f ms, cv %.1f%%, each within 20%% of "
		"its phase's later median)\n",
		set->v[st->first].number, set->v[st->last].number, win.n, set->n, st->median_us / 1e3, 100 * st->cv);
	for (i = 0; i < st->nout; i++)
		fprintf(o->f, "  left out: step %lld, %s (%.2fx the median)\n", set->v[st->out[i].idx].number,
			tl_steady_why_name(st->out[i].why), st->out[i].ratio);
}

static int cmd_steps(int argc, char **argv)
{
	struct steps_args a = { 0 };
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	struct tl_step_set *set = NULL;
	struct tl_steady *st = NULL;
	bool steady;
	int rc = 1, err;

	if (!opts_parse(&steps_cmd, argc, argv, &a, &rc))
		goto out;
	if (cli_no_args("steps", argc, argv) || cli_check_format("steps", &a.co))
		goto out;
	/* steps --steady shows the window among all the steps, numbered as they are */
	steady = a.co.steady;
	if (steady && (a.co.step || a.co.phase)) {
		rc = cli_error("steps: --step, --phase and --steady: give one of them");
		goto out;
	}
	a.co.steady = false;
	if (cli_open_trace(&a.co, &tr))
		goto out;
	err = tl_steps(tr, &set);
	if (!err && steady)
		err = tl_steps_steady(tr, set, &st);
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	if (out_open_opts(&o, &a.co))
		goto out;
	if (st)
		print_steady(&o, tr, set, st);
	else
		print_all(&o, tr, set);
	rc = out_close(&o, false);
out:
	tl_steady_free(st);
	tl_step_set_free(set);
	tl_trace_close(tr);
	return rc;
}
