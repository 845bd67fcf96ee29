/* SPDX-License-Identifier: MIT */
/* tlreplay idle: the GPU idle time broken down by cause, per device and per
 * stream (tl_idle_breakdown(), include/tlreplay/idle.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/idle.h>

#include "builtin.h"

struct idle_args {
	struct common_opts co;
	struct tl_idle_opts io;
	bool gaps;
};

static int opt_thresh(const struct opt *opt, const char *arg, void *obj)
{
	struct idle_args *a = obj;
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !isfinite(v) || v < 0)
		return cli_error("idle: bad --%s '%s' (microseconds, a number >= 0)", opt->long_name, arg);
	if (opt->value == 'k')
		a->io.kernel_wait_us = v > 0 ? v : -1;	/* 0: no gap is kernel wait */
	else
		a->io.micro_idle_us = v;
	return 0;
}

static const struct opt idle_opts[] = {
	OPT_INCLUDE(opts_analysis, offsetof(struct idle_args, co)),
	OPT_STRING(0, "gpu-pid", "PID", struct idle_args, io.device, "only the GPU whose pid is PID (as printed)"),
	/* --device names a backend elsewhere; here it was the GPU pid: kept */
	{ .kind = OPT_KIND_STRING, .long_name = "device", .argh = "PID", .flags = OPT_HIDDEN,
	  .off = OPT_FIELD(struct idle_args, io.device, const char *) },
	OPT_STRING(0, "stream", "S", struct idle_args, io.stream,
		   "only the rows of stream S (the GPU tid); the device rows,\n"
		   "which are about every stream, are left out"),
	OPT_CALLBACK(0, "kernel-wait-thresh-us", "N", opt_thresh, 'k',
		     "a queued gap shorter than N us is kernel wait, else other\n"
		     "(HTA's consecutive_kernel_delay: default 30; 0: none)"),
	OPT_CALLBACK(0, "micro-idle-thresh-us", "N", opt_thresh, 'm',
		     "a host-wait gap shorter than N us is micro idle (as\n"
		     "TraceLens's micro_idle_thresh_us: off unless given)"),
	OPT_BOOL(0, "include-unlinked", struct idle_args, io.include_unlinked,
		 "also count GPU events no CPU launch links to"),
	OPT_BOOL(0, "gaps", struct idle_args, gaps, "list every gap instead of the totals"),
	OPT_BOOL(0, "hta", struct idle_args, io.hta,
		 "per-stream rows only, computed exactly as HTA does: the last\n"
		 "ProfilerStep left out, timestamps rounded to whole us, gaps\n"
		 "from the previous event of the stream"),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(idle, idle_opts, "GPU idle time by cause (HTA's host/kernel wait), per device and stream",
	"usage: tlreplay idle [-i TRACE] [-x SEP | -j] [-o FILE] [--gpu-pid PID] [--stream S]\n"
	"                     [--kernel-wait-thresh-us N] [--micro-idle-thresh-us N]\n"
	"                     [--include-unlinked] [--gaps] [--hta]\n"
	"\n"
	"Every idle gap between GPU events (kernel, gpu_memcpy, gpu_memset), per device (the\n"
	"gaps of the union of its events, which add up to `breakdown --per-device`'s\n"
	"idle_time) and per stream (each stream's own gaps, as HTA's idle time breakdown),\n"
	"in HTA's categories: host_wait (the next event was launched after the gap began),\n"
	"kernel_wait (it was queued and the gap is short), other (queued, longer). Beside\n"
	"the category, a cause where the trace shows one: sync_drain (the gap overlaps a\n"
	"Device/Stream/Event Synchronize call), pageable_memcpy (it overlaps the call of a\n"
	"copy to or from pageable memory), micro_idle (a host-wait gap shorter than\n"
	"--micro-idle-thresh-us). docs/analyses.md, \"Idle time\", has the details.\n"
	"\n");
/* clang-format on */

/* The row's identity: "view,device,stream," or its JSON keys. */
static void row_head(struct out_fmt *o, const struct tl_idle_row *r)
{
	const char *view = r->stream ? "stream" : "device";

	if (o->json) {
		fprintf(o->f, "{\"view\":\"%s\",\"device\":", view);
		json_str(o->f, r->device);
		if (r->stream) {
			fputs(",\"stream\":", o->f);
			json_str(o->f, r->stream);
		}
		fputc(',', o->f);
		return;
	}
	out_field(o, view, false);
	out_field(o, r->device, false);
	out_field(o, r->stream ? r->stream : "", false);
}

/* One line of the totals: category, cause, time, percent, gaps. */
static void total_line(struct out_fmt *o, const struct tl_idle_row *r, const char *cat,
		       const char *cause, double us, double pct, uint64_t n)
{
	char cnt[32];

	row_head(o, r);
	snprintf(cnt, sizeof(cnt), "%llu", (unsigned long long)n);
	if (o->json) {
		fprintf(o->f, "\"category\":\"%s\",\"cause\":\"%s\",\"time_ms\":", cat, cause);
		out_num(o, us / 1e3, false);
		fputs(",\"percent\":", o->f);
		out_num(o, pct, false);
		fprintf(o->f, ",\"gaps\":%s}\n", cnt);
		return;
	}
	out_field(o, cat, false);
	out_field(o, cause, false);
	out_num(o, us / 1e3, false);
	out_num(o, pct, false);
	out_field(o, cnt, true);
}

static double cat_us(const struct tl_idle_row *r, int c, uint64_t *n)
{
	double s = 0;
	int k;

	*n = 0;
	for (k = 0; k < TL_IDLE_NCAUSES; k++) {
		s += r->us[c][k];
		*n += r->n[c][k];
	}
	return s;
}

/* -x / -j: the idle_time row (percent of the span, as breakdown's), then
 * each category (percent of the idle time) and its causes. */
static void machine_totals(struct out_fmt *o, const struct tl_idle_row *r)
{
	double idle = r->idle_us;
	int c, k;

	total_line(o, r, "idle_time", "all", idle, r->span_us > 0 ? idle / r->span_us * 100 : 0,
		   r->ngaps);
	for (c = 0; c < TL_IDLE_NCATS; c++) {
		uint64_t n;
		double us = cat_us(r, c, &n);

		total_line(o, r, tl_idle_cat_name(c), "all", us, idle > 0 ? us / idle * 100 : 0, n);
		for (k = 0; k < TL_IDLE_NCAUSES; k++)
			total_line(o, r, tl_idle_cat_name(c), tl_idle_cause_name(k), r->us[c][k],
				   idle > 0 ? r->us[c][k] / idle * 100 : 0, r->n[c][k]);
	}
}

static void human_totals(struct out_fmt *o, const struct tl_idle_row *r)
{
	double idle = r->idle_us;
	int c, k;

	if (r->stream)
		fprintf(o->f, "\ndevice %s, stream %s", r->device, r->stream);
	else
		fprintf(o->f, "\ndevice %s", r->device);
	fprintf(o->f, ": idle %.3f ms in %llu gaps, %.2f%% of the %.3f ms span (%llu GPU events)\n",
		idle / 1e3, (unsigned long long)r->ngaps, r->span_us > 0 ? idle / r->span_us * 100 : 0,
		r->span_us / 1e3, (unsigned long long)r->nevents);
	for (c = 0; c < TL_IDLE_NCATS; c++) {
		uint64_t n;
		double us = cat_us(r, c, &n);
		const char *sep = "   ";

		fprintf(o->f, "  %-12s %12.3f ms %6.2f%% %8llu gaps", tl_idle_cat_name(c), us / 1e3,
			idle > 0 ? us / idle * 100 : 0, (unsigned long long)n);
		/* the causes the trace shows, when there are any */
		for (k = 1; k < TL_IDLE_NCAUSES; k++) {
			if (!r->n[c][k])
				continue;
			fprintf(o->f, "%s%s %.3f ms (%llu)", sep, tl_idle_cause_name(k), r->us[c][k] / 1e3,
				(unsigned long long)r->n[c][k]);
			sep = ", ";
		}
		fputc('\n', o->f);
	}
}

static void print_gaps(struct out_fmt *o, const struct tl_idle_row *r)
{
	uint64_t i;

	for (i = 0; i < r->ngaps; i++) {
		const struct tl_idle_gap *g = &r->gaps[i];
		char nu[32], cu[32];

		snprintf(nu, sizeof(nu), "%llu", (unsigned long long)g->next_uid);
		snprintf(cu, sizeof(cu), "%lld", (long long)g->cause_uid);
		if (!o->sep && !o->json) {
			fprintf(o->f, "%-6s %-8s %-8s %20.3f %12.3f  %-11s %-15s %10s %10s\n",
				r->stream ? "stream" : "device", r->device, r->stream ? r->stream : "-",
				g->start, g->end - g->start, tl_idle_cat_name(g->cat),
				tl_idle_cause_name(g->cause), nu, g->cause_uid >= 0 ? cu : "-");
			continue;
		}
		row_head(o, r);
		if (o->json) {
			fputs("\"start_us\":", o->f);
			out_num(o, g->start, false);
			fputs(",\"dur_us\":", o->f);
			out_num(o, g->end - g->start, false);
			fprintf(o->f, ",\"category\":\"%s\",\"cause\":\"%s\",\"next_uid\":%s", tl_idle_cat_name(g->cat),
				tl_idle_cause_name(g->cause), nu);
			if (g->cause_uid >= 0)
				fprintf(o->f, ",\"cause_uid\":%s", cu);
			fputs("}\n", o->f);
			continue;
		}
		out_num(o, g->start, false);
		out_num(o, g->end - g->start, false);
		out_field(o, tl_idle_cat_name(g->cat), false);
		out_field(o, tl_idle_cause_name(g->cause), false);
		out_field(o, nu, false);
		out_field(o, g->cause_uid >= 0 ? cu : "", true);
	}
}

static void print_header(struct out_fmt *o, const char *const *cols, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		out_field(o, cols[i], i + 1 == n);
}

static void print_all(struct out_fmt *o, struct tl_trace *tr, const struct idle_args *a,
		      const struct tl_idle_set *set)
{
	static const char *const tot_cols[] = { "view", "device", "stream", "category", "cause",
						"time ms", "percent", "gaps" };
	static const char *const gap_cols[] = { "view", "device", "stream", "start us", "dur us",
						"category", "cause", "next uid", "cause uid" };
	size_t i, v;

	if (o->sep) {
		if (a->gaps)
			print_header(o, gap_cols, TL_ARRAY_N(gap_cols));
		else
			print_header(o, tot_cols, TL_ARRAY_N(tot_cols));
	} else if (!o->json) {
		fprintf(o->f, "GPU idle time of %s (%s GPU events; kernel wait: queued gaps < %g us; ",
			tl_trace_path(tr), a->io.include_unlinked || a->io.hta ? "all" : "linked",
			set->kernel_wait_us > 0 ? set->kernel_wait_us : 0);
		if (set->micro_idle_us > 0)
			fprintf(o->f, "micro idle: host-wait gaps < %g us)\n", set->micro_idle_us);
		else
			fputs("micro idle: off)\n", o->f);
		fprintf(o->f, "%llu sync calls and %llu pageable-copy calls in the trace\n",
			(unsigned long long)set->nsync, (unsigned long long)set->npageable);
		if (a->io.hta)
			fprintf(o->f, "--hta: HTA's arithmetic%s%s\n",
				set->hta_rounded ? ", timestamps rounded to whole us" : "",
				isinf(set->hta_before_us) ? "" : ", the GPU events launched before the last "
								 "ProfilerStep only");
		if (a->gaps)
			fprintf(o->f, "%-6s %-8s %-8s %20s %12s  %-11s %-15s %10s %10s\n", "view", "device",
				"stream", "start us", "dur us", "category", "cause", "next uid",
				"cause uid");
	}
	for (v = 0; v < 2; v++) {
		const struct tl_idle_row *rows = v ? set->stream : set->dev;
		size_t n = v ? set->nstream : set->ndev;

		if (!o->sep && !o->json && !a->gaps && n)
			fputs(v ? "\nper stream: each stream's own gaps (HTA's get_idle_time_breakdown)\n"
				: "\nper device: gaps of the union of the device's GPU events (idle = "
				  "`breakdown --per-device` idle_time)\n",
			      o->f);
		for (i = 0; i < n; i++) {
			if (a->gaps)
				print_gaps(o, &rows[i]);
			else if (o->sep || o->json)
				machine_totals(o, &rows[i]);
			else
				human_totals(o, &rows[i]);
		}
	}
}

static int cmd_idle(int argc, char **argv)
{
	struct idle_args a = { .io.sz = sizeof(a.io) };
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	struct tl_idle_set *set = NULL;
	int rc = 1, err;

	if (!opts_parse(&idle_cmd, argc, argv, &a, &rc))
		goto out;
	if (cli_no_args("idle", argc, argv) || cli_check_format("idle", &a.co))
		goto out;
	if (a.io.device && !*a.io.device) {
		rc = cli_error("idle: bad --device '' (a device, as `tlreplay breakdown --per-device` names it)");
		goto out;
	}
	if (a.io.stream && !*a.io.stream) {
		rc = cli_error("idle: bad --stream '' (a stream, as `tlreplay breakdown --per-stream` names it)");
		goto out;
	}
	a.io.keep_gaps = a.gaps;
	if (cli_open_trace(&a.co, &tr))
		goto out;
	err = tl_idle_breakdown(tr, &a.io, &set);
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	if (out_open_opts(&o, &a.co))
		goto out;
	print_all(&o, tr, &a, set);
	rc = out_close(&o, false);
out:
	tl_idle_set_free(set);
	tl_trace_close(tr);
	return rc;
}
