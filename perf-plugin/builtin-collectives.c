/* SPDX-License-Identifier: MIT */
/* tlreplay collectives: NCCL/RCCL collectives matched across ranks (by
 * process group and index), with TraceLens's latency, skew and bandwidth
 * definitions; --summary groups them by kind, --stragglers ranks the ranks,
 * --per-rank lists every rank's part. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "chart/coll-chart.h"
#include "report/multirank.h"

enum view { V_COLL, V_SUMMARY, V_STRAGGLERS, V_PER_RANK };

/* A number for -x/-j: Python's repr, "" (-x) or null (-j) for NaN. */
static void put_num(struct out_fmt *o, const char *key, double v, bool last)
{
	char b[64];

	if (isnan(v))
		snprintf(b, sizeof(b), "%s", o->json ? "null" : "");
	else
		fmt_pyfloat(b, sizeof(b), v);
	if (o->json)
		fprintf(o->f, ",\"%s\":%s", key, b);
	else
		out_field(o, b, last);
}

static void put_int(struct out_fmt *o, const char *key, long long v, bool null_if_negative, bool last)
{
	char b[32];

	if (v < 0 && null_if_negative)
		snprintf(b, sizeof(b), "%s", o->json ? "null" : "");
	else
		snprintf(b, sizeof(b), "%lld", v);
	if (o->json)
		fprintf(o->f, ",\"%s\":%s", key, b);
	else
		out_field(o, b, last);
}

static void put_str(struct out_fmt *o, const char *key, const char *v, bool first, bool last)
{
	if (o->json) {
		fprintf(o->f, "%s\"%s\":", first ? "{" : ",", key);
		json_str(o->f, v);
	} else {
		out_field(o, v, last);
	}
}

static void put_bool(struct out_fmt *o, const char *key, bool v, bool last)
{
	if (o->json)
		fprintf(o->f, ",\"%s\":%s", key, v ? "true" : "false");
	else
		out_field(o, v ? "True" : "False", last);
}

static void header(struct out_fmt *o, const char *const *cols, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		out_field(o, cols[i], i + 1 == n);
}

/* "24.0 KiB" */
static void fmt_bytes(char *buf, size_t n, double b)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int k = 0;

	if (isnan(b)) {
		snprintf(buf, n, "?");
		return;
	}
	while (b >= 1024 && k < 4) {
		b /= 1024;
		k++;
	}
	snprintf(buf, n, k ? "%.1f %s" : "%.0f %s", b, u[k]);
}

static void fmt_bw(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.2f", v);
}

/* ------------------------------------------------------------------ one row per collective */

static const char *const coll_cols[] = {
	"process_group", "index", "collective", "type", "dtype", "in_nelems", "out_nelems", "size_bytes",
	"group_size", "ranks", "start_us", "start_skew_us", "end_skew_us", "avg_wait_us", "latency_us",
	"sync_us", "algbw_gbps", "busbw_gbps", "slowest_rank", "first_rank", "implicit_sync",
	"sizes_differ", "mismatch", "algorithm", "protocol",
};

static void coll_row(struct out_fmt *o, const struct tl_coll_row *r)
{
	size_t i;

	if (!o->json && !o->sep) {
		char sz[32], a[16], b[16], rk[32], al[48];

		fmt_bytes(sz, sizeof(sz), r->size_bytes);
		fmt_bw(a, sizeof(a), r->algbw_gbps);
		fmt_bw(b, sizeof(b), r->busbw_gbps);
		snprintf(rk, sizeof(rk), "%zu/%d", r->nranks, r->group_size);
		snprintf(al, sizeof(al), "%s%s%s", *r->algorithm ? r->algorithm : "-", *r->protocol ? "/" : "",
			 r->protocol);
		fprintf(o->f, "%12.3f %-10s %5llu %-18s %-9s %10s %7s %10.1f %10.1f %10.1f %8s %8s %-12s %5d%s\n",
			r->start_us / 1e3, r->pg, (unsigned long long)r->index, r->name, *r->dtype ? r->dtype : "?",
			sz, rk, r->start_skew_us, r->latency_us, r->sync_us, a, b, al, r->slowest_rank,
			r->mismatch ? "  mismatch" : r->sizes_differ ? "  sizes differ" : "");
		return;
	}
	put_str(o, "process_group", r->pg, true, false);
	put_int(o, "index", (long long)r->index, false, false);
	put_str(o, "collective", r->name, false, false);
	put_str(o, "type", tl_coll_type_name(r->type), false, false);
	put_str(o, "dtype", r->dtype, false, false);
	put_int(o, "in_nelems", r->in_nelems, true, false);
	put_int(o, "out_nelems", r->out_nelems, true, false);
	put_num(o, "size_bytes", r->size_bytes, false);
	put_int(o, "group_size", r->group_size, true, false);
	put_int(o, "ranks", (long long)r->nranks, false, false);
	put_num(o, "start_us", r->start_us, false);
	put_num(o, "start_skew_us", r->start_skew_us, false);
	put_num(o, "end_skew_us", r->end_skew_us, false);
	put_num(o, "avg_wait_us", r->avg_wait_us, false);
	put_num(o, "latency_us", r->latency_us, false);
	put_num(o, "sync_us", r->sync_us, false);
	put_num(o, "algbw_gbps", r->algbw_gbps, false);
	put_num(o, "busbw_gbps", r->busbw_gbps, false);
	put_int(o, "slowest_rank", r->slowest_rank, false, false);
	put_int(o, "first_rank", r->first_rank, false, false);
	put_bool(o, "implicit_sync", r->implicit_sync, false);
	put_bool(o, "sizes_differ", r->sizes_differ, false);
	put_bool(o, "mismatch", r->mismatch, false);
	put_str(o, "algorithm", r->algorithm, false, false);
	put_str(o, "protocol", r->protocol, false, true);
	if (!o->json)
		return;
	fputs(",\"pg_ranks\":", o->f);
	json_str(o->f, r->pg_ranks);
	fputs(",\"parts\":[", o->f);
	for (i = 0; i < r->nranks; i++) {
		const struct tl_coll_part *p = &r->parts[i];
		char s[64], d[64], w[64];

		fmt_pyfloat(s, sizeof(s), p->start_us);
		fmt_pyfloat(d, sizeof(d), p->dur_us);
		fmt_pyfloat(w, sizeof(w), p->wait_us);
		fprintf(o->f, "%s{\"rank\":%d,\"start_us\":%s,\"dur_us\":%s,\"wait_us\":%s,\"uid\":%llu}",
			i ? "," : "", p->rank, s, d, w, (unsigned long long)p->uid);
	}
	fputs("]}\n", o->f);
}

static void print_colls(struct out_fmt *o, const struct tl_coll_table *t, size_t limit)
{
	size_t i, n = limit && limit < t->n ? limit : t->n;

	if (o->sep)
		header(o, coll_cols, TL_ARRAY_N(coll_cols));
	else if (!o->json)
		fprintf(o->f, "%12s %-10s %5s %-18s %-9s %10s %7s %10s %10s %10s %8s %8s %-12s %5s\n", "start ms",
			"group", "index", "collective", "dtype", "size", "ranks", "skew us", "latency us", "sync us",
			"algbw", "busbw", "algorithm", "last");
	for (i = 0; i < n; i++)
		coll_row(o, &t->v[i]);
}

/* ------------------------------------------------------------------ --summary */

static const char *const sum_cols[] = {
	"collective", "type", "dtype", "in_nelems", "size_bytes", "group_size", "count",
	"latency_us_mean", "latency_us_std", "latency_us_min", "latency_us_median", "latency_us_max",
	"start_skew_us_mean", "start_skew_us_max", "end_skew_us_mean", "algbw_gbps_mean",
	"busbw_gbps_mean", "total_latency_ms",
};

static int print_summary(struct out_fmt *o, const struct tl_coll_table *t, size_t limit)
{
	struct tl_coll_summary *s = NULL;
	size_t i, n;
	int err = tl_coll_summarize(t, &s);

	if (err)
		return cli_lib_error(err);
	n = limit && limit < s->n ? limit : s->n;
	if (o->sep)
		header(o, sum_cols, TL_ARRAY_N(sum_cols));
	else if (!o->json)
		fprintf(o->f, "%-24s %-9s %10s %7s %6s %12s %12s %12s %10s %8s %8s\n", "collective", "dtype", "size",
			"group", "count", "total ms", "latency us", "(median)", "skew us", "algbw", "busbw");
	for (i = 0; i < n; i++) {
		const struct tl_coll_group *g = &s->v[i];

		if (!o->json && !o->sep) {
			char sz[32], a[16], b[16];

			fmt_bytes(sz, sizeof(sz), g->size_bytes);
			fmt_bw(a, sizeof(a), g->algbw_gbps.mean);
			fmt_bw(b, sizeof(b), g->busbw_gbps.mean);
			fprintf(o->f, "%-24s %-9s %10s %7d %6llu %12.3f %12.1f %12.1f %10.1f %8s %8s\n", g->name,
				*g->dtype ? g->dtype : "?", sz, g->group_size, (unsigned long long)g->count,
				g->total_latency_us / 1e3, g->latency_us.mean, g->latency_us.median,
				g->start_skew_us.mean, a, b);
			continue;
		}
		put_str(o, "collective", g->name, true, false);
		put_str(o, "type", tl_coll_type_name(g->type), false, false);
		put_str(o, "dtype", g->dtype, false, false);
		put_int(o, "in_nelems", g->in_nelems, true, false);
		put_num(o, "size_bytes", g->size_bytes, false);
		put_int(o, "group_size", g->group_size, true, false);
		put_int(o, "count", (long long)g->count, false, false);
		put_num(o, "latency_us_mean", g->latency_us.mean, false);
		put_num(o, "latency_us_std", g->latency_us.std, false);
		put_num(o, "latency_us_min", g->latency_us.min, false);
		put_num(o, "latency_us_median", g->latency_us.median, false);
		put_num(o, "latency_us_max", g->latency_us.max, false);
		put_num(o, "start_skew_us_mean", g->start_skew_us.mean, false);
		put_num(o, "start_skew_us_max", g->start_skew_us.max, false);
		put_num(o, "end_skew_us_mean", g->end_skew_us.mean, false);
		put_num(o, "algbw_gbps_mean", g->algbw_gbps.mean, false);
		put_num(o, "busbw_gbps_mean", g->busbw_gbps.mean, false);
		put_num(o, "total_latency_ms", g->total_latency_us / 1e3, true);
		if (o->json)
			fputs("}\n", o->f);
	}
	tl_coll_summary_free(s);
	return 0;
}

/* ------------------------------------------------------------------ --stragglers */

static const char *const strag_cols[] = {
	"rank", "collectives", "times_last", "times_first", "total_wait_us", "mean_wait_us", "total_comm_us",
};

static int print_stragglers(struct out_fmt *o, const struct tl_coll_table *t)
{
	struct tl_coll_rank_stats *s = NULL;
	size_t i;
	int err = tl_coll_stragglers(t, &s);

	if (err)
		return cli_lib_error(err);
	if (o->sep)
		header(o, strag_cols, TL_ARRAY_N(strag_cols));
	else if (!o->json)
		fprintf(o->f, "%6s %11s %10s %11s %15s %14s %15s\n", "rank", "collectives", "last", "first",
			"total wait ms", "mean wait us", "comm kernels ms");
	for (i = 0; i < s->n; i++) {
		const struct tl_coll_rank_stat *r = &s->v[i];

		if (!o->json && !o->sep) {
			fprintf(o->f, "%6d %11llu %10llu %11llu %15.3f %14.1f %15.3f\n", r->rank,
				(unsigned long long)r->ncoll, (unsigned long long)r->times_last,
				(unsigned long long)r->times_first, r->total_wait_us / 1e3, r->mean_wait_us,
				r->total_dur_us / 1e3);
			continue;
		}
		if (o->json)
			fprintf(o->f, "{\"rank\":%d", r->rank);
		else
			put_int(o, "rank", r->rank, false, false);
		put_int(o, "collectives", (long long)r->ncoll, false, false);
		put_int(o, "times_last", (long long)r->times_last, false, false);
		put_int(o, "times_first", (long long)r->times_first, false, false);
		put_num(o, "total_wait_us", r->total_wait_us, false);
		put_num(o, "mean_wait_us", r->mean_wait_us, false);
		put_num(o, "total_comm_us", r->total_dur_us, true);
		if (o->json)
			fputs("}\n", o->f);
	}
	tl_coll_rank_stats_free(s);
	return 0;
}

/* ------------------------------------------------------------------ --per-rank */

static const char *const part_cols[] = {
	"process_group", "index", "collective", "rank", "start_us", "dur_us", "end_us", "wait_us", "uid",
};

static void print_parts(struct out_fmt *o, const struct tl_coll_table *t, size_t limit)
{
	size_t i, j, n = limit && limit < t->n ? limit : t->n;

	if (o->sep)
		header(o, part_cols, TL_ARRAY_N(part_cols));
	else if (!o->json)
		fprintf(o->f, "%-10s %5s %-18s %6s %14s %12s %12s %8s\n", "group", "index", "collective", "rank",
			"start us", "dur us", "wait us", "uid");
	for (i = 0; i < n; i++) {
		const struct tl_coll_row *r = &t->v[i];

		for (j = 0; j < r->nranks; j++) {
			const struct tl_coll_part *p = &r->parts[j];

			if (!o->json && !o->sep) {
				fprintf(o->f, "%-10s %5llu %-18s %6d %14.3f %12.3f %12.3f %8llu\n", r->pg,
					(unsigned long long)r->index, r->name, p->rank, p->start_us, p->dur_us,
					p->wait_us, (unsigned long long)p->uid);
				continue;
			}
			put_str(o, "process_group", r->pg, true, false);
			put_int(o, "index", (long long)r->index, false, false);
			put_str(o, "collective", r->name, false, false);
			put_int(o, "rank", p->rank, false, false);
			put_num(o, "start_us", p->start_us, false);
			put_num(o, "dur_us", p->dur_us, false);
			put_num(o, "end_us", p->start_us + p->dur_us, false);
			put_num(o, "wait_us", p->wait_us, false);
			put_int(o, "uid", (long long)p->uid, false, true);
			if (o->json)
				fputs("}\n", o->f);
		}
	}
}

/* ------------------------------------------------------------------ command */

static void human_header(struct out_fmt *o, const struct tl_rankset *set, const struct tl_coll_table *t)
{
	size_t i, ninf = 0;

	for (i = 0; i < t->n; i++)
		ninf += !strncmp(t->v[i].pg, "stream:", 7);
	fprintf(o->f, "%zu collective%s of %zu rank%s, matched by process group and index", t->n,
		t->n == 1 ? "" : "s", tl_rankset_n(set), tl_rankset_n(set) == 1 ? "" : "s");
	if (ninf)
		fprintf(o->f, " (%zu with no recorded process group: grouped by stream)", ninf);
	fputs("\n", o->f);
	fputs("start: from the first collective; skew: latest - earliest start; latency: the shortest\n"
	      "rank's kernel (TraceLens's comm_latency); sync: latest end - latest start; bandwidth in\n"
	      "GB/s of 2^30 bytes, as TraceLens; last: the rank that arrived last (the others waited)\n\n",
	      o->f);
}

struct coll_args {
	struct common_opts co;
	struct mr_inputs in;
	const char *chart;
	unsigned long long limit;
	enum view view;
	int nviews;
};

static int opt_limit(const struct opt *opt, const char *arg, void *obj)
{
	struct coll_args *a = obj;

	(void)opt;
	return parse_u64(arg, &a->limit) ? 0 : cli_error("collectives: bad --limit '%s'", arg);
}

/* --summary, --stragglers, --per-rank: one view; opt->value says which */
static int opt_view(const struct opt *opt, const char *arg, void *obj)
{
	struct coll_args *a = obj;

	(void)arg;
	a->view = (enum view)opt->value;
	a->nviews++;
	return 0;
}

static const struct opt collectives_opts[] = {
	OPT_USE(opts_rank_input, offsetof(struct coll_args, in), "input", NULL),
	OPT_USE(opts_output_format, offsetof(struct coll_args, co), "field-separator", NULL),
	OPT_USE(opts_output_format, offsetof(struct coll_args, co), "json",
		"one JSON object per line, with every rank's part"),
	OPT_USE(opts_output_format, offsetof(struct coll_args, co), "output", NULL),
	OPT_CALLBACK('n', "limit", "N", opt_limit, 0, "the first N rows only"),
	OPT_CALLBACK(0, "summary", NULL, opt_view, V_SUMMARY,
		     "one row per (type, dtype, size, group size): count, latency\n"
		     "and bandwidth statistics, by total latency"),
	OPT_CALLBACK(0, "stragglers", NULL, opt_view, V_STRAGGLERS,
		     "one row per rank: how often it arrived last, time it waited"),
	OPT_CALLBACK(0, "per-rank", NULL, opt_view, V_PER_RANK,
		     "one row per rank's part of each collective (for plotting)"),
	OPT_STRING(0, "chart", "FILE", struct coll_args, chart,
		   "also draw them (.svg, or .png through rsvg-convert): a\n"
		   "timeline per rank, the waits, bandwidth by message size"),
	OPT_INCLUDE(opts_rank_reading, offsetof(struct coll_args, in)),
	OPT_HELP(),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(collectives, collectives_opts, "NCCL/RCCL collectives matched across ranks: skew, bandwidth",
	"usage: tlreplay collectives -i DIR | -i TRACE... [-x SEP | -j] [-o FILE] [-n N]\n"
	"                            [--summary | --stragglers | --per-rank] [--jobs N] [--keep-going]\n"
	"\n"
	"NCCL/RCCL collectives matched across ranks by process group and order (the recorded\n"
	"Seq, else the rank-local index): per collective its type, dtype, size, the start skew\n"
	"between ranks, latency (the shortest rank's kernel), algorithm and bus bandwidth, NCCL's\n"
	"algorithm/protocol (from the kernel name) and the rank that arrived last. Ranks come\n"
	"from distributedInfo.rank, else from rankN or workerN in the file name. Inputs may be\n"
	"traces or rank summaries (`summarize`).\n"
	"\n");
/* clang-format on */

static int cmd_collectives(int argc, char **argv)
{
	struct coll_args a = { .in.cmd = "collectives", .view = V_COLL };
	struct out_fmt o = { 0 };
	struct tl_rankset *set = NULL;
	struct tl_coll_table *t = NULL;
	int rc = 1, err;

	if (!opts_parse(&collectives_cmd, argc, argv, &a, &rc))
		goto out;
	if (optind < argc) {
		rc = cli_error("collectives: unexpected argument '%s' (the traces go after -i)", argv[optind]);
		goto out;
	}
	if (cli_check_format("collectives", &a.co))
		goto out;
	if (a.nviews > 1) {
		rc = cli_error("collectives: --summary, --stragglers and --per-rank are exclusive");
		goto out;
	}
	if (mr_open(&a.in, &set))
		goto out;
	err = tl_collectives(set, NULL, &t);
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	if (!t->n) {
		if (tl_rankset_n(set) == 1)
			rc = cli_error("collectives: %s: no NCCL/RCCL kernel in it",
				       tl_rank_summary_info(tl_rankset_get(set, 0))->file);
		else
			rc = cli_error("collectives: no NCCL/RCCL kernel in any of the %zu ranks",
				       tl_rankset_n(set));
		goto out;
	}
	if (t->nmismatch)
		fprintf(stderr, "tlreplay: warning: at %zu of %zu collectives the ranks disagree on the type or "
			"dtype: the profiles may not start at the same collective (-j shows each rank's part)\n",
			t->nmismatch, t->n);
	if (a.chart) {
		char sub[512];

		snprintf(sub, sizeof(sub), "%s%s", a.in.n ? a.in.v[0] : "", a.in.n > 1 ? " ..." : "");
		if (coll_chart_write(a.chart, t, a.in.n ? sub : NULL))
			goto out;
	}
	if (out_open_opts(&o, &a.co))
		goto out;
	if (!o.sep && !o.json)
		human_header(&o, set, t);
	rc = 0;
	switch (a.view) {
	case V_COLL: print_colls(&o, t, (size_t)a.limit); break;
	case V_SUMMARY: rc = print_summary(&o, t, (size_t)a.limit); break;
	case V_STRAGGLERS: rc = print_stragglers(&o, t); break;
	case V_PER_RANK: print_parts(&o, t, (size_t)a.limit); break;
	}
	rc = out_close(&o, rc != 0) || rc;
out:
	tl_coll_table_free(t);
	tl_rankset_free(set);
	mr_inputs_free(&a.in);
	return rc;
}
