/* SPDX-License-Identifier: MIT */
/* The HTML report's sections on where the GPU time went: the breakdown
 * (tl_breakdown()), the top ops, kernels and perf-model groups
 * (tl_ops_summary(), tl_kernel_summary(), the report's roofline sheet and
 * chart), and the health check (tl_health_check()). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/analysis.h>

#include "chart/chart-roofline.h"
#include "chart/chart-svg.h"
#include "util/cli.h"
#include "html/html-page.h"
#include "html/html-sections.h"
#include "report/roofline-sheet.h"

/* Rows of the top tables. */
#define TOP_N 20

/* ------------------------------------------------------------------ breakdown */

static const struct hp_seg bd_legend[] = {
	{ 0, HP_COMPUTE, "computation" },
	{ 0, HP_COMM, "exposed comm" },
	{ 0, HP_MEMCPY, "exposed memcpy" },
	{ 0, HP_IDLE, "idle" },
};

/* A row of the bars: the four parts that add up to the total time. */
static void bd_row(struct hp_bar_row *r, const char *label, const double *us)
{
	static const enum tl_bd_row parts[] = { TL_BD_COMPUTATION, TL_BD_EXPOSED_COMM, TL_BD_EXPOSED_MEMCPY,
						TL_BD_IDLE };
	size_t k;

	memset(r, 0, sizeof(*r));
	r->label = label;
	r->total = us[TL_BD_TOTAL];
	for (k = 0; k < TL_ARRAY_N(parts); k++) {
		r->seg[k] = bd_legend[k];
		r->seg[k].v = us[parts[k]];
	}
	r->nseg = TL_ARRAY_N(parts);
}

static void bd_table_row(FILE *f, const char *device, const char *stream, const struct tl_breakdown *b)
{
	const double *us = b->us, tot = us[TL_BD_TOTAL];

	hp_tr(f);
	hp_td(f, device, 40);
	hp_td(f, stream, 40);
	hp_td_count(f, b->nevents);
	hp_td_time(f, tot);
	hp_td_pct(f, tot > 0 ? us[TL_BD_COMPUTATION] / tot * 100 : NAN, HP_COMPUTE);
	hp_td_pct(f, tot > 0 ? us[TL_BD_EXPOSED_COMM] / tot * 100 : NAN, HP_COMM);
	hp_td_pct(f, tot > 0 ? us[TL_BD_EXPOSED_MEMCPY] / tot * 100 : NAN, HP_MEMCPY);
	hp_td_pct(f, tot > 0 ? us[TL_BD_IDLE] / tot * 100 : NAN, HP_OTHER_WAIT);
	hp_td_time(f, us[TL_BD_TOTAL_COMM]);
	hp_td_time(f, us[TL_BD_TOTAL_MEMCPY]);
	hp_tr_end(f);
}

/* The breakdowns of one grouping, all linked GPU events or, for a trace
 * whose GPU events no launch links to (GPU-only), all of them. */
static int bd_group(struct tl_trace *tr, enum tl_bd_group g, bool *unlinked, struct tl_breakdown_set **out)
{
	struct tl_breakdown_opts o = { .sz = sizeof(o), .group = g, .include_unlinked = *unlinked };
	int err = tl_breakdown(tr, &o, out);

	if (err == -ENODATA && !*unlinked) {
		*unlinked = o.include_unlinked = true;
		err = tl_breakdown(tr, &o, out);
	}
	return err;
}

int hs_breakdown(FILE *f, const struct html_ctx *c, bool *written)
{
	static const char *const cols[] = { "device", "stream", "#GPU events", "#total", "#computation",
					    "#exposed comm", "#exposed memcpy", "#idle", "#all comm",
					    "#all memcpy" };
	struct tl_breakdown_set *all = NULL, *dev = NULL, *str = NULL;
	struct hp_bar_row *rows = NULL;
	char (*labels)[96] = NULL;
	bool unlinked = false;
	size_t i, n = 0;
	int rc = 1, err;

	*written = false;
	err = bd_group(c->tr, TL_BD_GROUP_NONE, &unlinked, &all);
	if (err == -ENODATA) {
		rc = 0;
		goto out;
	}
	if (err || (err = bd_group(c->tr, TL_BD_GROUP_DEVICE, &unlinked, &dev)) ||
	    (err = bd_group(c->tr, TL_BD_GROUP_STREAM, &unlinked, &str))) {
		cli_lib_error(err);
		goto out;
	}
	rows = calloc(dev->n + str->n + 1, sizeof(*rows));
	labels = calloc(dev->n + str->n + 1, sizeof(*labels));
	if (!rows || !labels) {
		cli_error("report: out of memory");
		goto out;
	}
	hp_section(f, "breakdown", "Where the GPU time went",
		   unlinked ? "TraceLens's GPU timeline of every GPU event (no CPU launch links to them), per device "
			      "and per stream. Each bar is that device's or stream's span, from its first GPU event to "
			      "its last: computation, then communication and copies not hidden under it, then idle."
			    : "TraceLens's GPU timeline of the GPU events a CPU launch links to, per device and per "
			      "stream. Each bar is that device's or stream's span, from its first GPU event to its "
			      "last: computation, then communication and copies not hidden under it, then idle.");
	for (i = 0; i < dev->n; i++) {
		snprintf(labels[n], sizeof(labels[n]), "device %s", dev->v[i].device);
		bd_row(&rows[n], labels[n], dev->v[i].us);
		n++;
	}
	for (i = 0; i < str->n; i++) {
		snprintf(labels[n], sizeof(labels[n]), "device %s, stream %s", str->v[i].device, str->v[i].stream);
		bd_row(&rows[n], labels[n], str->v[i].us);
		n++;
	}
	hp_bars(f, "bd-bars", rows, n, true);
	hp_legend(f, bd_legend, TL_ARRAY_N(bd_legend));
	hp_table(f, NULL, cols, TL_ARRAY_N(cols));
	bd_table_row(f, "all devices", "(gpu_timeline)", &all->v[0]);
	for (i = 0; i < dev->n; i++)
		bd_table_row(f, dev->v[i].device, "all", &dev->v[i]);
	for (i = 0; i < str->n; i++)
		bd_table_row(f, str->v[i].device, str->v[i].stream, &str->v[i]);
	hp_table_end(f);
	hp_section_end(f);
	*written = true;
	rc = 0;
out:
	free(rows);
	free(labels);
	tl_breakdown_free(all);
	tl_breakdown_free(dev);
	tl_breakdown_free(str);
	return rc;
}

/* ------------------------------------------------------------------ top ops, kernels, perf */

static void top_ops(FILE *f, const struct tl_op_table *t)
{
	static const char *const cols[] = { "op", "category", "#GPU time", "#share", "#cumulative", "#calls",
					    "#example UID" };
	size_t i, k;

	hp_h3(f, "Top ops by GPU time");
	hp_p(f, "note", "The kernel launchers by name (TraceLens's ops_summary): the GPU time of the kernels each op "
			"launched itself, its share of all launched kernel time, and the UID of its first call "
			"(tlreplay show UID, tlreplay uid UID to replay it).");
	hp_table(f, NULL, cols, TL_ARRAY_N(cols));
	for (i = 0; i < t->n && i < TOP_N; i++) {
		const struct tl_op_row *r = &t->v[i];
		char cats[160] = "";
		size_t len = 0;

		for (k = 0; k < r->ncategories && len + 2 < sizeof(cats); k++)
			len += (size_t)snprintf(cats + len, sizeof(cats) - len, "%s%s", k ? ", " : "",
						r->categories[k]);
		hp_tr(f);
		hp_td(f, r->name, 70);
		hp_td(f, cats, 40);
		hp_td_time(f, r->direct_us);
		hp_td_pct(f, r->pct, HP_COMPUTE);
		hp_td_num(f, "%.1f%%", r->cum_pct);
		hp_td_count(f, r->count);
		hp_td_count(f, r->ex_uid);
		hp_tr_end(f);
	}
	hp_table_end(f);
	if (t->n > TOP_N)
		fprintf(f, "<p class=\"note\">%zu more op%s: tlreplay ops -i TRACE</p>\n", t->n - TOP_N,
			t->n - TOP_N == 1 ? "" : "s");
}

static void top_kernels(FILE *f, const struct tl_kernel_table *t)
{
	static const char *const cols[] = { "kernel", "parent op", "stream", "#time", "#share", "#count", "#mean" };
	size_t i;
	char s[32];

	hp_h3(f, "Top kernels by GPU time");
	hp_p(f, "note", "Every kernel by name, parent op and stream (TraceLens's kernel_summary); share of the summed "
			"kernel time.");
	hp_table(f, NULL, cols, TL_ARRAY_N(cols));
	for (i = 0; i < t->n && i < TOP_N; i++) {
		const struct tl_kernel_row *r = &t->v[i];

		if (r->stream == TL_NOID)
			snprintf(s, sizeof(s), "\xe2\x80\x93");
		else
			snprintf(s, sizeof(s), "%lld", (long long)r->stream);
		hp_tr(f);
		hp_td(f, r->name, 80);
		hp_td(f, r->parent_op ? r->parent_op : "\xe2\x80\x93", 40);
		hp_td(f, s, 12);
		hp_td_time(f, r->sum_us);
		hp_td_pct(f, r->pct_kernels, HP_BUSY);
		hp_td_count(f, r->count);
		hp_td_time(f, r->mean_us);
		hp_tr_end(f);
	}
	hp_table_end(f);
}

/* The perf-model groups (roofline.csv's rows): TFLOP/s, TB/s, % of roof. */
static void top_perf(FILE *f, const struct html_ctx *c)
{
	static const char *const cols[] = { "op", "params", "#calls", "#kernel time", "#TFLOP/s", "#TB/s",
					    "#FLOP/byte", "#% of roof", "bound" };
	const struct tl_sheet *rf = c->roofline;
	size_t i, n = tl_sheet_nrows(rf);

	hp_h3(f, "Perf-model groups: achieved rate and the roof");
	fprintf(f, "<p class=\"note\">The ops a TraceLens perf model knows, grouped by name and parameters "
		   "(the report's perf sheets): the mean achieved TFLOP/s and TB/s of their kernels, and how close "
		   "they come to the roof of ");
	if (c->gpu)
		hp_esc(f, c->gpu->name, SIZE_MAX);
	else
		fputs("the GPU (unknown here: no roofs; tlreplay report --gpu-spec FILE.json gives one)", f);
	fputs(" (docs/roofline.md).</p>\n", f);
	hp_table(f, NULL, cols, TL_ARRAY_N(cols));
	for (i = 0; i < n && i < TOP_N; i++) {
		const char *bound = tl_sheet_str(rf, i, "bound");

		hp_tr(f);
		hp_td(f, tl_sheet_str(rf, i, "name"), 50);
		hp_td(f, tl_sheet_str(rf, i, "params"), 50);
		hp_td_num(f, "%.0f", tl_sheet_num(rf, i, "calls"));
		hp_td_time(f, tl_sheet_num(rf, i, "Kernel Time (µs)_sum"));
		hp_td_num(f, "%.2f", tl_sheet_num(rf, i, "TFLOPS/s_mean"));
		hp_td_num(f, "%.3f", tl_sheet_num(rf, i, "TB/s_mean"));
		hp_td_num(f, "%.3g", tl_sheet_num(rf, i, "FLOPS/Byte"));
		hp_td_pct(f, tl_sheet_num(rf, i, "% of roof"),
			  bound && !strcmp(bound, "memory") ? HP_MEMCPY : HP_COMPUTE);
		hp_td(f, bound && *bound ? bound : "\xe2\x80\x93", 10);
		hp_tr_end(f);
	}
	hp_table_end(f);
	if (n > TOP_N)
		fprintf(f, "<p class=\"note\">%zu more group%s: tlreplay ops --perf -i TRACE</p>\n", n - TOP_N,
			n - TOP_N == 1 ? "" : "s");
}

/* The roofline chart of the same rows, as `report --roofline` draws it. */
static int roofline_img(FILE *f, const struct html_ctx *c)
{
	struct roofline_point *pts = roofline_points_of_sheet(c->roofline);
	struct roofline_opts o = { NULL, c->name, 6 };
	char *svg = NULL;
	size_t len = 0;
	int rc;

	if (!pts)
		return cli_error("report: out of memory");
	rc = roofline_chart_svg(c->gpu, pts, tl_sheet_nrows(c->roofline), &o, &svg, &len);
	if (!rc) {
		hp_h3(f, "Roofline");
		fputs("<div class=\"chart\" id=\"roofline\">", f);
		hp_img_svg(f, svg, len, "the perf-model groups on the GPU's roofline", "tl-chart roofline");
		fputs("</div>\n", f);
	}
	free(svg);
	free(pts);
	return rc;
}

int hs_top(FILE *f, const struct html_ctx *c, bool *written)
{
	struct tl_ops_opts oo = { .sz = sizeof(oo) };
	struct tl_op_table *ops = NULL;
	struct tl_kernel_table *ks = NULL;
	bool perf = c->roofline && tl_sheet_nrows(c->roofline) > 0;
	int rc = 1, err;

	*written = false;
	err = tl_ops_summary(c->tr, &oo, &ops);
	if (err && err != -ENODATA) {
		cli_lib_error(err);
		goto out;
	}
	err = tl_kernel_summary(c->tr, &ks);
	if (err && err != -ENODATA) {
		cli_lib_error(err);
		goto out;
	}
	rc = 0;
	if ((!ops || !ops->n) && (!ks || !ks->n) && !perf)
		goto out;
	hp_section(f, "top", "Top ops and kernels", NULL);
	if (ops && ops->n)
		top_ops(f, ops);
	if (ks && ks->n)
		top_kernels(f, ks);
	if (perf) {
		top_perf(f, c);
		/* the chart needs the device's roofs */
		if (c->gpu && c->gpu->mem_bw > 0 && roofline_img(f, c))
			rc = 1;
	}
	hp_section_end(f);
	*written = true;
out:
	tl_op_table_free(ops);
	tl_kernel_table_free(ks);
	return rc;
}

/* ------------------------------------------------------------------ health */

int hs_health(FILE *f, const struct html_ctx *c, bool *written)
{
	static const char *const cols[] = { "severity", "finding", "#events", "#example UID", "what it means" };
	static const char *const sev[] = { "info", "warning", "error" };
	struct tl_health *h = NULL;
	char intro[160];
	size_t i;
	int err;

	*written = false;
	err = tl_health_check(c->tr, &h);
	if (err)
		return cli_lib_error(err);
	snprintf(intro, sizeof(intro), "tlreplay check: %zu error%s, %zu warning%s.", h->nerrors,
		 h->nerrors == 1 ? "" : "s", h->nwarnings, h->nwarnings == 1 ? "" : "s");
	hp_section(f, "health", "Trace health", intro);
	if (!h->n)
		hp_p(f, "note", "Nothing to report: every check passed.");
	else
		hp_table(f, "health", cols, TL_ARRAY_N(cols));
	for (i = 0; i < h->n; i++) {
		const struct tl_finding *x = &h->v[i];
		unsigned s = x->severity <= TL_SEV_ERROR ? x->severity : TL_SEV_ERROR;

		hp_tr(f);
		fprintf(f, "<td><span class=\"sev %s\">%s</span></td>", sev[s], sev[s]);
		hp_td(f, x->code, 40);
		hp_td_count(f, x->count);
		if (x->example_uid >= 0)
			hp_td_count(f, (unsigned long long)x->example_uid);
		else
			hp_td(f, "\xe2\x80\x93", 4);
		hp_td_wrap(f, x->message, 400);
		hp_tr_end(f);
	}
	if (h->n)
		hp_table_end(f);
	hp_section_end(f);
	*written = true;
	tl_health_free(h);
	return 0;
}
