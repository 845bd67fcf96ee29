/* SPDX-License-Identifier: MIT */
/* tlreplay diff: what changed between two traces (a baseline and a variant:
 * two GPUs, before/after a change, two torch versions). The comparison is
 * TraceLens's compare_perf_reports over the perf report of each trace
 * (tl_report_compare); the terminal gets its summary, -o DIR its sheets. */
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tlreplay/analysis.h>
#include <tlreplay/compare.h>
#include <tlreplay/ranks.h>
#include <tlreplay/report.h>
#include <tlreplay/report_sheets.h>

#include "builtin.h"
#include "chart/diff-chart.h"
#include "report/diff-tree.h"
#include "report/sheets-out.h"

struct diff_ctx {
	struct opt_strings inputs;	/* -i BASE -i VARIANT */
	const char *names;		/* --names A,B */
	const char *dir;		/* -o DIR | FILE.xlsx */
	const char *sep;		/* -x SEP */
	const char *chart;		/* --chart FILE.svg|png */
	bool tree;			/* --tree [UID] */
	int64_t tree_uid;		/* its UID, -1: from the roots */
	bool json;			/* -j */
	unsigned long long top;		/* -n N */
};

static const struct opt diff_opts[] = {
	OPT_STRINGS('i', "input", "TRACE", struct diff_ctx, inputs, "the baseline, then the variant (-i twice)"),
	OPT_STRING('x', "field-separator", "SEP", struct diff_ctx, sep,
		   "the summary as separated values (CSV with -x,), a header line first"),
	OPT_BOOL('j', "json", struct diff_ctx, json, "the summary as one JSON object per line"),
	OPT_STRING('o', "output", "DIR", struct diff_ctx, dir,
		   "write TraceLens's comparison sheets into DIR (made if missing),\n"
		   "one SHEET.csv each; a name ending in .xlsx gets one workbook"),
	OPT_HELP(),
	OPT_STRING(0, "names", "A,B", struct diff_ctx, names,
		   "the two reports' tags in the sheets and the summary (default:\n"
		   "the file names, or baseline,variant when those are equal)"),
	OPT_U64('n', "limit", "N", struct diff_ctx, top,
		"how many ops and kernels the summary lists each way, and the\n"
		"chart draws (default 10)"),
	/* -n is --limit in every command; --top stays for older command lines */
	{ .kind = OPT_KIND_U64,
	  .long_name = "top",
	  .argh = "N",
	  .flags = OPT_HIDDEN,
	  .off = OPT_FIELD(struct diff_ctx, top, unsigned long long) },
	OPT_BOOL(0, "tree", struct diff_ctx, tree,
		 "print the merged call tree of the two traces (TraceLens's\n"
		 "TraceDiff) instead of the summary; a UID after it: that\n"
		 "baseline op's subtree only"),
	OPT_STRING(0, "chart", "FILE", struct diff_ctx, chart,
		   "draw the ops whose GPU time changed most, baseline and variant\n"
		   "bars, into FILE (.svg, or .png through rsvg-convert)"),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(diff, diff_opts, "compare two traces: what changed between runs, GPUs or versions",
	"usage: tlreplay diff -i BASE -i VARIANT [-x SEP | -j] [-o DIR|FILE.xlsx] [--names A,B]\n"
	"                     [-n N] [--chart FILE] [--tree [UID]]\n"
	"\n"
	"Compare the perf reports of two traces as TraceLens's compare_perf_reports does.\n"
	"The summary: the GPU timeline of both with the change, the ops and kernels that\n"
	"gained and lost the most GPU time, and the ops only one trace has. -o DIR writes\n"
	"the comparison sheets with TraceLens's names and columns: gpu_timeline,\n"
	"ops_summary, kernel_summary (every column under its report's tag, with _diff =\n"
	"variant - baseline and _pct = 100 x diff / baseline), and for ops_unique_args,\n"
	"unified_perf_summary and the GEMM, SDPA, CONV and elementwise perf sheets three\n"
	"each: SHEET_intersect_TAG, SHEET_only_baseline_TAG, SHEET_only_variant_TAG;\n"
	"with -o DIR also TraceLens's TraceDiff sheets diff_stats.csv and\n"
	"diff_stats_unique_args_summary.csv (the two call trees merged).\n"
	"\n");
/* clang-format on */

/* The tag of a trace: its file name without directories and extensions. */
static char *tag_of(const char *path)
{
	const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *t = strdup(b), *dot;

	if (t && (dot = strstr(t, ".json")))
		*dot = '\0';
	if (t && (dot = strstr(t, ".xplane.pb")))
		*dot = '\0';
	return t;
}

/* The two tags: --names A,B, else the file names, else baseline/variant. */
static int tags_of(const struct diff_ctx *x, char *tag[2])
{
	const char *comma;

	tag[0] = tag[1] = NULL;
	if (x->names) {
		comma = strchr(x->names, ',');
		if (!comma || comma == x->names || !comma[1] || strchr(comma + 1, ','))
			return cli_error("diff: --names takes two tags, A,B: not '%s'", x->names);
		tag[0] = strndup(x->names, (size_t)(comma - x->names));
		tag[1] = strdup(comma + 1);
	} else {
		tag[0] = tag_of(x->inputs.v[0]);
		tag[1] = tag_of(x->inputs.v[1]);
		if (tag[0] && tag[1] && !strcmp(tag[0], tag[1])) {
			free(tag[0]);
			free(tag[1]);
			tag[0] = strdup("baseline");
			tag[1] = strdup("variant");
		}
	}
	if (!tag[0] || !tag[1])
		return cli_error("diff: out of memory");
	if (!strcmp(tag[0], tag[1]))
		return cli_error("diff: --names: the two tags must differ ('%s')", tag[0]);
	if (strstr(tag[0], "::") || strstr(tag[1], "::"))
		return cli_error("diff: --names: a tag cannot hold '::' (it separates tag and column)");
	return 0;
}

/* A cell of column "TAG::COL" (or a plain column) as a number; NaN if none. */
static double num_at(const struct tl_sheet *sh, size_t row, const char *tag, const char *col)
{
	char name[256];
	long c;
	const struct tl_cell *cell;

	if (tag)
		snprintf(name, sizeof(name), "%s::%s", tag, col);
	else
		snprintf(name, sizeof(name), "%s", col);
	c = tl_sheet_col_index(sh, name);
	if (c < 0)
		return NAN;
	cell = tl_sheet_cell(sh, row, (size_t)c);
	switch (cell->kind) {
	case TL_CELL_INT:
	case TL_CELL_BOOL:
		return (double)cell->i;
	case TL_CELL_NUM:
		return cell->d;
	case TL_CELL_STR:
		return strtod(cell->s, NULL);
	default:
		return NAN;
	}
}

static const char *str_at(const struct tl_sheet *sh, size_t row, const char *col)
{
	long c = tl_sheet_col_index(sh, col);
	const struct tl_cell *cell = c < 0 ? NULL : tl_sheet_cell(sh, row, (size_t)c);

	return cell && cell->kind == TL_CELL_STR ? cell->s : "";
}

/* One summary line in the chosen format. */
/* The rank of the pair being summarised when two directories of ranks are
 * compared (a "rank" field in -x and -j rows); -1 for one pair. */
static int diff_rank = -1;

static void line(struct out_fmt *o, const char *section, const char *name, double b, double v,
		 const char *unit)
{
	double d = (isnan(b) ? 0 : isnan(v) ? -b : v - b);
	double pct = !isnan(b) && !isnan(v) && b != 0 ? 100 * (v - b) / b : NAN;
	char sb[64], sv[64], sd[64], sp[64];

	if (isnan(b) || isnan(v))
		d = isnan(b) ? v : -b;
	fmt_pyfloat(sb, sizeof(sb), b);
	fmt_pyfloat(sv, sizeof(sv), v);
	fmt_pyfloat(sd, sizeof(sd), d);
	fmt_pyfloat(sp, sizeof(sp), pct);
	if (o->json) {
		fputs("{", o->f);
		if (diff_rank >= 0)
			fprintf(o->f, "\"rank\":%d,", diff_rank);
		fputs("\"section\":", o->f);
		json_str(o->f, section);
		fputs(",\"name\":", o->f);
		json_str(o->f, name);
		fprintf(o->f, ",\"baseline\":%s,\"variant\":%s,\"diff\":%s,\"pct\":%s,\"unit\":\"%s\"}\n",
			isnan(b) ? "null" : sb, isnan(v) ? "null" : sv, sd, isnan(pct) ? "null" : sp,
			unit);
	} else if (o->sep) {
		if (diff_rank >= 0) {
			snprintf(sb, sizeof(sb), "%d", diff_rank);
			out_field(o, sb, false);
			fmt_pyfloat(sb, sizeof(sb), b);
		}
		out_field(o, section, false);
		out_field(o, name, false);
		out_field(o, isnan(b) ? "" : sb, false);
		out_field(o, isnan(v) ? "" : sv, false);
		out_field(o, sd, false);
		out_field(o, isnan(pct) ? "" : sp, false);
		out_field(o, unit, true);
	} else {
		char pb[32] = "-", pv[32] = "-", pd[32], pp[16] = "";

		if (!isnan(b))
			snprintf(pb, sizeof(pb), "%.3f", b);
		if (!isnan(v))
			snprintf(pv, sizeof(pv), "%.3f", v);
		snprintf(pd, sizeof(pd), "%+.3f", d);
		if (!isnan(pct))
			snprintf(pp, sizeof(pp), "%+.1f%%", pct);
		/* a kernel name can run to kilobytes: its head says which */
		fprintf(o->f, "  %12s %12s %12s %8s  %.100s%s\n", pb, pv, pd, pp, name,
			strlen(name) > 100 ? "..." : "");
	}
}

/* One row the summary weighs: a name and its time on each side (NaN on a
 * side that lacks it); row breaks ties in the sheet's order. */
struct change {
	const char *name;
	size_t row;
	double b, v, d;
};

static int cmp_gain(const void *a, const void *b)
{
	const struct change *x = a, *y = b;

	if (x->d != y->d)
		return x->d > y->d ? -1 : 1;
	return (x->row > y->row) - (x->row < y->row);
}

static int cmp_name_row(const void *a, const void *b)
{
	const struct change *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->row > y->row) - (x->row < y->row);
}

/* The @n rows that changed most, gained then lost, then those only one side
 * has (@c is reordered). */
static void changes(struct out_fmt *o, struct change *c, size_t n, const char *what,
		    const char *tag[2], size_t top)
{
	size_t i, m = 0, shown, both;
	char head[160];
	int side;

	for (i = 0; i < n; i++)
		c[i].d = isnan(c[i].b) || isnan(c[i].v) ? NAN : c[i].v - c[i].b;
	/* those on both sides first, by change */
	for (i = 0; i < n; i++)
		if (!isnan(c[i].d)) {
			struct change t = c[m];

			c[m++] = c[i];
			c[i] = t;
		}
	both = m;
	if (m)
		qsort(c, m, sizeof(*c), cmp_gain);
	if (!o->json && !o->sep) {
		snprintf(head, sizeof(head), "%s that gained the most GPU time (ms)", what);
		fprintf(o->f, "\n%s:\n  %12.12s %12.12s %12s\n", head, tag[0], tag[1], "change");
	}
	for (i = 0, shown = 0; i < m && shown < top && c[i].d > 0; i++, shown++)
		line(o, what, c[i].name, c[i].b, c[i].v, "ms");
	if (!shown && !o->json && !o->sep)
		fputs("  (none)\n", o->f);
	if (!o->json && !o->sep)
		fprintf(o->f, "\n%s that lost the most GPU time (ms):\n", what);
	for (i = m, shown = 0; i > 0 && shown < top && c[i - 1].d < 0; i--, shown++)
		line(o, what, c[i - 1].name, c[i - 1].b, c[i - 1].v, "ms");
	if (!shown && !o->json && !o->sep)
		fputs("  (none)\n", o->f);
	/* those only one side has, the largest first: baseline's ahead of
	 * the variant's in c[both..n) */
	for (i = both, m = both; i < n; i++)
		if (!isnan(c[i].b)) {
			struct change t = c[m];

			c[m++] = c[i];
			c[i] = t;
		}
	for (side = 0; side < 2; side++) {
		struct change *one = side ? c + m : c + both;
		size_t k = side ? n - m : m - both;

		for (i = 0; i < k; i++)
			one[i].d = side ? one[i].v : one[i].b;
		if (k)
			qsort(one, k, sizeof(*one), cmp_gain);
		if (k && !o->json && !o->sep)
			fprintf(o->f, "\n%s only in %s (ms):\n", what, tag[side]);
		for (i = 0; i < k && i < top; i++)
			line(o, what, one[i].name, one[i].b, one[i].v, "ms");
		if (k > top && !o->json && !o->sep)
			fprintf(o->f, "  ... and %zu more\n", k - top);
	}
}

/* The ops of the joined ops_summary (one row per op name and side). */
static struct change *op_rows(const struct tl_sheet *ops, const char *tag[2], size_t *n)
{
	size_t i, m = tl_sheet_nrows(ops);
	struct change *c = calloc(m + 1, sizeof(*c));

	for (i = 0; c && i < m; i++)
		c[i] = (struct change){ str_at(ops, i, "name"), i,
					num_at(ops, i, tag[0], "total_direct_kernel_time_ms"),
					num_at(ops, i, tag[1], "total_direct_kernel_time_ms"), 0 };
	*n = m;
	return c;
}

/* Each kernel name's time on each side, summed over its kernel_summary rows
 * (one per parent op and stream): the joined sheet pairs same-name rows as
 * TraceLens does, row by row, which says nothing of what a kernel gained. */
static struct change *kernel_rows(const struct tl_report *rep[2], size_t *n)
{
	const struct tl_sheet *ks[2] = { tl_report_sheet(rep[0], "kernel_summary"),
					 tl_report_sheet(rep[1], "kernel_summary") };
	size_t nr[2] = { ks[0] ? tl_sheet_nrows(ks[0]) : 0, ks[1] ? tl_sheet_nrows(ks[1]) : 0 };
	struct change *c = calloc(nr[0] + nr[1] + 1, sizeof(*c));
	size_t i, m = 0, k;
	int side;

	if (!c)
		return NULL;
	for (side = 0; side < 2; side++)
		for (i = 0; i < nr[side]; i++) {
			double us = num_at(ks[side], i, NULL, "Kernel duration (µs)_sum");

			c[m++] = (struct change){ str_at(ks[side], i, "Kernel name"),
						  side ? nr[0] + i : i, side ? NAN : us, side ? us : NAN,
						  0 };
		}
	/* same names together, each in its first row's place */
	qsort(c, m, sizeof(*c), cmp_name_row);
	for (i = 0, k = 0; i < m; i++) {
		if (k && !strcmp(c[k - 1].name, c[i].name)) {
			struct change *t = &c[k - 1];

			if (!isnan(c[i].b))
				t->b = isnan(t->b) ? c[i].b : t->b + c[i].b;
			if (!isnan(c[i].v))
				t->v = isnan(t->v) ? c[i].v : t->v + c[i].v;
			continue;
		}
		c[k++] = c[i];
	}
	/* summed in µs, as the sheet has them; shown in ms */
	for (i = 0; i < k; i++) {
		c[i].b /= 1e3;
		c[i].v /= 1e3;
	}
	*n = k;
	return c;
}

static int summary(struct out_fmt *o, const struct tl_report *cmp, const struct tl_report *rep[2],
		   const char *tag[2], const char *path[2], size_t top)
{
	const struct tl_sheet *tl = tl_report_sheet(cmp, "gpu_timeline");
	const struct tl_sheet *ops = tl_report_sheet(cmp, "ops_summary");
	struct change *c = NULL;
	size_t i, n;

	if (o->sep && diff_rank <= 0) {
		const char *h[] = { "rank", "section", "name", tag[0], tag[1], "diff", "pct", "unit" };

		for (i = diff_rank < 0; i < 8; i++)
			out_field(o, h[i], i == 7);
	}
	if (!o->json && !o->sep && diff_rank >= 0)
		fprintf(o->f, "%s== rank %d ==\n", diff_rank ? "\n" : "", diff_rank);
	if (!o->json && !o->sep)
		fprintf(o->f, "baseline %s: %s\nvariant  %s: %s\n\nGPU timeline (ms):\n  %12.12s %12.12s %12s\n",
			tag[0], path[0], tag[1], path[1], tag[0], tag[1], "change");
	for (i = 0; tl && i < tl_sheet_nrows(tl); i++)
		line(o, "gpu_timeline", str_at(tl, i, "type"), num_at(tl, i, tag[0], "time ms"),
		     num_at(tl, i, tag[1], "time ms"), "ms");
	if (ops && !tl_sheet_nrows(ops) && !o->json && !o->sep)
		fputs("\nThe traces have no op with GPU time.\n", o->f);
	if (ops && tl_sheet_nrows(ops)) {
		if (!(c = op_rows(ops, tag, &n)))
			return cli_error("diff: out of memory");
		changes(o, c, n, "ops", tag, top);
		free(c);
	}
	if (!(c = kernel_rows(rep, &n)))
		return cli_error("diff: out of memory");
	if (n)
		changes(o, c, n, "kernels", tag, top);
	free(c);
	if (ops && tl_sheet_nrows(ops) && !o->json && !o->sep) {
		size_t both = 0;

		for (i = 0; i < tl_sheet_nrows(ops); i++)
			both += !isnan(num_at(ops, i, tag[0], "total_direct_kernel_time_ms")) &&
				!isnan(num_at(ops, i, tag[1], "total_direct_kernel_time_ms"));
		if (!both)
			fputs("\nThe traces have no op in common: every op is on one side only.\n",
			      o->f);
	}
	return 0;
}

static int cmp_abs_change(const void *a, const void *b)
{
	const struct diff_chart_row *x = a, *y = b;
	double dx = fabs((isnan(x->var_ms) ? 0 : x->var_ms) - (isnan(x->base_ms) ? 0 : x->base_ms));
	double dy = fabs((isnan(y->var_ms) ? 0 : y->var_ms) - (isnan(y->base_ms) ? 0 : y->base_ms));

	return (dx < dy) - (dx > dy);
}

/* --chart: the ops of the joined ops_summary by the size of their change. */
static int chart(const char *path, const struct tl_report *cmp, const char *const tag[2], size_t top)
{
	const struct tl_sheet *ops = tl_report_sheet(cmp, "ops_summary");
	const struct tl_sheet *tl = tl_report_sheet(cmp, "gpu_timeline");
	size_t n = ops ? tl_sheet_nrows(ops) : 0, i;
	struct diff_chart_row *rows = calloc(n + 1, sizeof(*rows));
	double total[2] = { 0, 0 };
	int rc;

	if (!rows)
		return cli_error("diff: out of memory");
	for (i = 0; i < n; i++)
		rows[i] = (struct diff_chart_row){ str_at(ops, i, "name"),
						   num_at(ops, i, tag[0], "total_direct_kernel_time_ms"),
						   num_at(ops, i, tag[1], "total_direct_kernel_time_ms") };
	/* stable: the ops summary's order breaks ties */
	for (i = 1; i < n; i++) {
		struct diff_chart_row r = rows[i];
		size_t j = i;

		for (; j > 0 && cmp_abs_change(&rows[j - 1], &r) > 0; j--)
			rows[j] = rows[j - 1];
		rows[j] = r;
	}
	for (i = 0; tl && i < tl_sheet_nrows(tl); i++)
		if (!strcmp(str_at(tl, i, "type"), "busy_time")) {
			total[0] = num_at(tl, i, tag[0], "time ms");
			total[1] = num_at(tl, i, tag[1], "time ms");
		}
	rc = diff_chart_write(path, rows, n < top ? n : top, tag, total);
	free(rows);
	return rc;
}

/* TraceDiff's sheets, kept for a workbook (owned). */
struct sheet_list {
	struct tl_sheet **v;
	size_t n, cap;
};

/* diff_tree_sheets' sink for a workbook: @sh kept (owned from here, freed
 * on failure too). 0, or 1 after printing why. */
static int keep_sheet(void *ctx, struct tl_sheet *sh)
{
	struct sheet_list *l = ctx;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct tl_sheet **v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			tl_sheet_free(sh);
			return cli_error("diff: out of memory");
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = sh;
	return 0;
}

static void sheet_list_free(struct sheet_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		tl_sheet_free(l->v[i]);
	free(l->v);
}

/* One pair: both reports, their comparison, its sheets (into @dir when
 * given), chart and summary; the gpu_timeline changes (ms, the rows in
 * the comparison's order) into @bd_diff when not NULL. 0, or 1 after
 * printing why. */
/* One side of a diff: its trace loaded and its report built, on a thread of
 * its own (the two sides share nothing). */
struct diff_side {
	const char *path;
	const struct tl_report_opts *ro;
	bool progress, build, keep;
	struct tl_trace *tr;
	struct tl_report *rep;
	int rc;			/* 0, or 1 after printing why */
	pthread_t thread;
};

static void *side_main(void *arg)
{
	struct diff_side *d = arg;
	int err;

	d->rc = 1;
	if (!d->tr) {
		if (cli_load_ex(d->path, d->progress, &d->tr))
			return NULL;
		/* both traces are held while the merged tree reads their args:
		 * each keeps only the text it is reading resident */
		if (d->keep)
			tl_trace_set_text_window(d->tr, true);
	}
	err = d->build ? tl_report_build(d->tr, d->ro, &d->rep) : 0;
	if (!d->keep) {
		tl_trace_close(d->tr);
		d->tr = NULL;
	}
	if (err) {
		/* the library's message (of this thread) names the trace */
		cli_error("diff: %s", tl_last_error());
		return NULL;
	}
	d->rc = 0;
	return NULL;
}

/* Both sides at once (the variant's progress is not shown: one line).
 * 0, or 1 after printing why. */
static int run_sides(struct diff_side side[2])
{
	bool threaded = !pthread_create(&side[1].thread, NULL, side_main, &side[1]);

	side_main(&side[0]);
	if (threaded)
		pthread_join(side[1].thread, NULL);
	else
		side_main(&side[1]);
	return side[0].rc || side[1].rc;
}

static int diff_pair(const struct diff_ctx *x, const char *bpath, const char *vpath,
		     const char *const tag[2], const char *dir, struct out_fmt *o,
		     double bd_diff[TL_BD_NROWS])
{
	/* The summary reads the timeline, op and kernel sheets; the rest of a
	 * report (most of its time) only goes to -o. */
	struct tl_report_opts ro = { .sz = sizeof(ro), .kernel_summary = true, .perf_models = true,
				     .summary_only = !dir };
	struct tl_report *rep[2] = { NULL, NULL }, *cmp = NULL;
	/* The merged call tree reads the traces, the comparison the reports.
	 * With both (-o), the tree's sheets are made first, while the traces
	 * are all there is (a directory's written to its stage as each is
	 * made, a workbook's kept for it); then each side builds its report
	 * and lets its trace go: two traces and two reports are never held at
	 * once. */
	bool xlsx = dir && sheets_is_xlsx(dir), tree_first = x->tree || dir;
	struct diff_side side[2] = {
		{ .path = bpath, .ro = &ro, .progress = true, .build = !tree_first, .keep = tree_first },
		{ .path = vpath, .ro = &ro, .progress = false, .build = !tree_first, .keep = tree_first },
	};
	const char *path[2] = { bpath, vpath };
	/* the tree's sheets and the comparison's, named together at the end */
	struct sheets_stage st = { .cmd = "diff", .dir = dir };
	/* a workbook's: the tree's sheets kept to go after the comparison's */
	struct sheet_list book = { 0 };
	int rc = 1, err, i;

	if (run_sides(side))
		goto out;
	if (x->tree) {
		rc = diff_tree_print(side[0].tr, side[1].tr, tag, x->tree_uid, o->f);
		goto out;
	}
	if (dir) {
		if (xlsx ? diff_tree_sheets(side[0].tr, side[1].tr, tag, keep_sheet, &book)
			 : sheets_make_dir("diff", dir) || diff_tree_write(side[0].tr, side[1].tr, tag, &st))
			goto out;
		/* the merged tree's tables are freed: give the pages back before
		 * the reports grow, or the two phases' peaks add up */
		malloc_trim(0);
		for (i = 0; i < 2; i++) {
			side[i].build = true;
			side[i].keep = false;
		}
		if (run_sides(side))
			goto out;
	}
	for (i = 0; i < 2; i++)
		rep[i] = side[i].rep;
	err = tl_report_compare(rep[0], rep[1], tag[0], tag[1], &cmp);
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	if (dir) {
		if (xlsx) {
			/* the comparison's worksheets, then TraceDiff's two */
			struct tl_sheet **all = calloc(cmp->n + book.n + 1, sizeof(*all));

			if (!all) {
				cli_error("diff: out of memory");
				goto out;
			}
			memcpy(all, cmp->v, cmp->n * sizeof(*all));
			memcpy(all + cmp->n, book.v, book.n * sizeof(*all));
			err = tl_sheets_write_xlsx(all, cmp->n + book.n, dir);
			free(all);
			if (err) {
				cli_error("diff: %s", tl_last_error());
				goto out;
			}
		} else {
			for (size_t k = 0; k < cmp->n; k++)
				if (sheets_stage_put(&st, cmp->v[k]))
					goto out;
		}
	}
	if (x->chart && chart(x->chart, cmp, tag, (size_t)x->top))
		goto out;
	if (bd_diff) {
		/* the joined timeline's rows are in key order: found by name */
		const struct tl_sheet *tl = tl_report_sheet(cmp, "gpu_timeline");
		size_t k;

		for (i = 0; i < TL_BD_NROWS; i++) {
			bd_diff[i] = NAN;
			for (k = 0; tl && k < tl_sheet_nrows(tl); k++)
				if (!strcmp(str_at(tl, k, "type"), tl_bd_row_name(i)))
					bd_diff[i] = num_at(tl, k, tag[1], "time ms") -
						     num_at(tl, k, tag[0], "time ms");
		}
	}
	if (st.n && sheets_stage_commit(&st))
		goto out;
	rc = summary(o, cmp, (const struct tl_report **)rep, (const char **)tag, path, (size_t)x->top);
out:
	sheets_stage_abort(&st);
	sheet_list_free(&book);
	tl_report_free(cmp);
	for (i = 0; i < 2; i++) {
		tl_report_free(side[i].rep);
		tl_trace_close(side[i].tr);
	}
	return rc;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The rank of each file of a directory: its name's, else its position. */
static int rank_at(char **paths, size_t i)
{
	int r = tl_rank_from_filename(paths[i]);

	return r >= 0 ? r : (int)i;
}

/* Two directories of rank traces: each rank both have, as one pair (a
 * block each, -o DIR/rankN), then each timeline row's change over them. */
static int diff_ranks(const struct diff_ctx *x, const char *const tag[2], struct out_fmt *o)
{
	char **p[2] = { NULL, NULL }, *sub = NULL;
	size_t n[2] = { 0, 0 }, i, j, npairs = 0;
	double (*bd)[TL_BD_NROWS] = NULL, *col = NULL;
	int rc = 1, err, s, r;

	if (x->chart || x->tree)
		return cli_error("diff: --chart and --tree take one pair of traces, not two directories");
	if (x->dir && sheets_is_xlsx(x->dir))
		return cli_error("diff: two directories of ranks write -o DIR (a directory per rank), not a workbook");
	for (s = 0; s < 2; s++) {
		err = tl_ranks_list_dir(x->inputs.v[s], &p[s], &n[s]);
		if (err) {
			cli_error("diff: %s: %s", x->inputs.v[s],
				  err == -ENODATA ? "no trace in the directory" : strerror(-err));
			goto out;
		}
	}
	bd = calloc(n[0] + 1, sizeof(*bd));
	col = calloc(n[0] + 1, sizeof(*col));
	if (!bd || !col || (x->dir && sheets_make_dir("diff", x->dir))) {
		if (!bd || !col)
			cli_error("diff: out of memory");
		goto out;
	}
	for (i = 0; i < n[0]; i++) {
		r = rank_at(p[0], i);
		for (j = 0; j < n[1] && rank_at(p[1], j) != r; j++)
			;
		if (j == n[1]) {
			fprintf(stderr, "tlreplay diff: rank %d is only in %s (%s)\n", r, tag[0], p[0][i]);
			continue;
		}
		free(sub);
		sub = NULL;
		if (x->dir && asprintf(&sub, "%s/rank%d", x->dir, r) < 0) {
			sub = NULL;
			cli_error("diff: out of memory");
			goto out;
		}
		diff_rank = r;
		if (diff_pair(x, p[0][i], p[1][j], tag, sub, o, bd[npairs]))
			goto out;
		npairs++;
	}
	for (j = 0; j < n[1]; j++) {
		r = rank_at(p[1], j);
		for (i = 0; i < n[0] && rank_at(p[0], i) != r; i++)
			;
		if (i == n[0])
			fprintf(stderr, "tlreplay diff: rank %d is only in %s (%s)\n", r, tag[1], p[1][j]);
	}
	if (!npairs) {
		cli_error("diff: no rank is in both %s and %s", x->inputs.v[0], x->inputs.v[1]);
		goto out;
	}
	/* the spread: each row's change (variant - baseline) over the ranks */
	if (!o->json && !o->sep)
		fprintf(o->f, "\n== the change over %zu rank%s (ms) ==\n  %12s %12s %12s\n", npairs,
			npairs == 1 ? "" : "s", "min", "median", "max");
	for (r = 0; r < TL_BD_NROWS; r++) {
		const char *name = tl_bd_row_name(r);
		double med;
		char a[64], b[64], c[64];

		for (i = 0; i < npairs; i++)
			col[i] = bd[i][r];
		qsort(col, npairs, sizeof(*col), cmp_double);	/* NaN: no such row, never here */
		med = npairs % 2 ? col[npairs / 2] : (col[npairs / 2 - 1] + col[npairs / 2]) / 2;
		fmt_pyfloat(a, sizeof(a), col[0]);
		fmt_pyfloat(b, sizeof(b), med);
		fmt_pyfloat(c, sizeof(c), col[npairs - 1]);
		if (o->json) {
			fputs("{\"section\":\"spread\",\"name\":", o->f);
			json_str(o->f, name);
			fprintf(o->f, ",\"ranks\":%zu,\"min\":%s,\"median\":%s,\"max\":%s,\"unit\":\"ms\"}\n",
				npairs, a, b, c);
		} else if (o->sep) {
			/* rank column empty: a row over all ranks; baseline/variant/diff/pct
			 * columns hold min/median/max */
			out_field(o, "", false);
			out_field(o, "spread", false);
			out_field(o, name, false);
			out_field(o, a, false);
			out_field(o, b, false);
			out_field(o, c, false);
			out_field(o, "", false);
			out_field(o, "ms", true);
		} else {
			fprintf(o->f, "  %+12.3f %+12.3f %+12.3f  %s\n", col[0], med, col[npairs - 1], name);
		}
	}
	rc = 0;
out:
	diff_rank = -1;
	free(sub);
	free(bd);
	free(col);
	for (s = 0; s < 2; s++)
		tl_ranks_paths_free(p[s], n[s]);
	return rc;
}

static int cmd_diff(int argc, char **argv)
{
	struct diff_ctx x = { .top = 10 };
	struct out_fmt o = { 0 };
	char *tag[2] = { NULL, NULL };
	bool dirs;
	int rc = 1;

	if (!opts_parse(&diff_cmd, argc, argv, &x, &rc))
		goto out;
	rc = 1;
	/* --tree UID: the one argument a diff takes */
	x.tree_uid = -1;
	if (x.tree && optind + 1 == argc) {
		char *end;

		errno = 0;
		x.tree_uid = (int64_t)strtoll(argv[optind], &end, 10);
		if (errno || *end || end == argv[optind] || x.tree_uid < 0) {
			cli_error("diff: --tree: '%s' is not a UID", argv[optind]);
			goto out;
		}
		optind++;
	}
	if (cli_no_args("diff", argc, argv))
		goto out;
	if (x.tree && (x.dir || x.chart || x.sep || x.json)) {
		cli_error("diff: --tree prints the merged tree: not with -o, --chart, -x or -j");
		goto out;
	}
	if (x.inputs.n != 2) {
		cli_error("diff: give the baseline and the variant: -i BASE -i VARIANT (%zu given)",
			  x.inputs.n);
		goto out;
	}
	if (x.sep && x.json) {
		cli_error("diff: -x and -j are exclusive");
		goto out;
	}
	dirs = is_dir(x.inputs.v[0]);
	if (dirs != is_dir(x.inputs.v[1])) {
		cli_error("diff: %s is a directory and %s is not: give two traces or two directories of ranks",
			  dirs ? x.inputs.v[0] : x.inputs.v[1], dirs ? x.inputs.v[1] : x.inputs.v[0]);
		goto out;
	}
	if (tags_of(&x, tag))
		goto out;
	o.f = stdout;
	o.sep = x.sep;
	o.json = x.json;
	rc = dirs ? diff_ranks(&x, (const char *const *)tag, &o)
		  : diff_pair(&x, x.inputs.v[0], x.inputs.v[1], (const char *const *)tag, x.dir, &o,
			      NULL);
	if (!rc && fflush(stdout))
		rc = cli_error("diff: writing the summary: %s", strerror(errno));
out:
	free(tag[0]);
	free(tag[1]);
	free(x.inputs.v);
	return rc;
}
