/* SPDX-License-Identifier: MIT */
/* tlreplay ops / kernels: TraceLens's ops_summary and kernel_summary, and
 * the table of distinct kernel launch configurations. */
#include <getopt.h>
#include <math.h>
#include <string.h>

#include "builtin.h"

/* "['GEMM', 'other']" as TraceLens writes the Categories cell */
static void cats_repr(char *buf, size_t n, const struct tl_op_row *r)
{
	size_t i, len = 0;

	len += (size_t)snprintf(buf + len, n - len, "[");
	for (i = 0; i < r->ncategories && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s'%s'", i ? ", " : "", r->categories[i]);
	if (len < n)
		snprintf(buf + len, n - len, "]");
}

/* ------------------------------------------------------------------ ops */

struct ops_ctx {
	struct tl_ops_opts oo;
	unsigned long long limit;
};

static int ops_extra(int c, void *ctx)
{
	struct ops_ctx *x = ctx;

	switch (c) {
	case 'R': x->oo.split_recompute = true; return 0;
	case 'N': x->oo.include_nccl = true; return 0;
	case 'M': x->oo.by_module = true; return 0;
	case 'n': return parse_u64(optarg, &x->limit) ? 0 : cli_error("ops: bad --limit '%s'", optarg);
	}
	return 1;
}

int cmd_ops(int argc, char **argv)
{
	static const struct option extra[] = {
		{ "recompute", no_argument, NULL, 'R' },
		{ "include-nccl", no_argument, NULL, 'N' },
		{ "by-module", no_argument, NULL, 'M' },
		{ "limit", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct ops_ctx x = { .oo = { .sz = sizeof(x.oo) } };
	struct common_opts co = { 0 };
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	struct tl_op_table *t = NULL;
	size_t i, n;
	int rc = 1, err;

	err = cli_parse(argc, argv, "ops", &co, "n:", extra, ops_extra, &x);
	if (err)
		return err < 0 ? 0 : err;
	if (cli_no_args("ops", argc, argv))
		return 1;
	if (cli_open_trace(&co, &tr))
		return 1;
	err = tl_ops_summary(tr, &x.oo, &t);
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	if (out_open(&o, co.output))
		goto out;
	o.sep = co.sep;
	o.json = co.json;
	n = x.limit && x.limit < t->n ? x.limit : t->n;
	if (o.sep && x.oo.by_module) {
		static const char *const hdr[] = {
			"name", "parent_module", "total_direct_kernel_time_sum",
			"total_subtree_kernel_time_sum", "total_subtree_kernel_time_count",
			"total_direct_kernel_time_ms", "Count", "Categories", "call_stack_first",
			"Percentage (%)", "Cumulative Percentage (%)", "ex_UID",
		};
		size_t h;

		for (h = 0; h < TL_ARRAY_N(hdr); h++)
			out_field(&o, hdr[h], h + 1 == TL_ARRAY_N(hdr));
	} else if (o.sep) {
		static const char *const hdr[] = {
			"name", "total_direct_kernel_time_sum", "total_subtree_kernel_time_sum",
			"total_direct_kernel_time_ms", "total_subtree_kernel_time_ms", "Count",
			"Categories", "Percentage (%)", "Cumulative Percentage (%)",
		};
		size_t h;

		for (h = 0; h < TL_ARRAY_N(hdr); h++) {
			out_field(&o, hdr[h], false);
			if (h == 0 && x.oo.split_recompute)
				out_field(&o, "is_recompute", false);
		}
		out_field(&o, "ex_UID", true);
	} else if (!o.json) {
		fprintf(o.f, "%-48s %12s %12s %7s %6s %6s  %s\n", "op", "direct ms", "subtree ms",
			"count", "%", "cum%", "categories");
	}
	for (i = 0; i < n; i++) {
		const struct tl_op_row *r = &t->v[i];
		char a[64], b[64], c2[64], d[64], e[64], f[64], cats[512];

		cats_repr(cats, sizeof(cats), r);
		fmt_pyfloat(a, sizeof(a), r->direct_us);
		fmt_pyfloat(b, sizeof(b), r->subtree_us);
		fmt_pyfloat(c2, sizeof(c2), r->direct_us / 1000);
		fmt_pyfloat(d, sizeof(d), r->subtree_us / 1000);
		fmt_pyfloat(e, sizeof(e), r->pct);
		fmt_pyfloat(f, sizeof(f), r->cum_pct);
		if (o.json) {
			size_t k;

			fputs("{\"name\":", o.f);
			json_str(o.f, r->name);
			if (r->recompute >= 0)
				fprintf(o.f, ",\"is_recompute\":%s", r->recompute ? "true" : "false");
			if (r->parent_module) {
				fputs(",\"parent_module\":", o.f);
				json_str(o.f, r->parent_module);
			}
			fprintf(o.f, ",\"direct_us\":%s,\"subtree_us\":%s,\"count\":%llu,\"categories\":[",
				a, b, (unsigned long long)r->count);
			for (k = 0; k < r->ncategories; k++) {
				if (k)
					fputc(',', o.f);
				json_str(o.f, r->categories[k]);
			}
			fprintf(o.f, "],\"percent\":%s,\"cumulative_percent\":%s,\"ex_uid\":%llu}\n", e,
				f, (unsigned long long)r->ex_uid);
		} else if (o.sep) {
			char cnt[32], uid[32];

			snprintf(cnt, sizeof(cnt), "%llu", (unsigned long long)r->count);
			snprintf(uid, sizeof(uid), "%llu", (unsigned long long)r->ex_uid);
			out_field(&o, r->name, false);
			if (r->parent_module) {
				out_field(&o, r->parent_module, false);
				out_field(&o, a, false);
				out_field(&o, b, false);
				out_field(&o, cnt, false);
				out_field(&o, c2, false);
				out_field(&o, cnt, false);
				out_field(&o, cats, false);
				out_field(&o, r->call_stack, false);
				out_field(&o, e, false);
				out_field(&o, f, false);
				out_field(&o, uid, true);
				continue;
			}
			if (r->recompute >= 0)
				out_field(&o, r->recompute ? "True" : "False", false);
			out_field(&o, a, false);
			out_field(&o, b, false);
			out_field(&o, c2, false);
			out_field(&o, d, false);
			out_field(&o, cnt, false);
			out_field(&o, cats, false);
			out_field(&o, e, false);
			out_field(&o, f, false);
			out_field(&o, uid, true);
		} else {
			char name[256];

			snprintf(name, sizeof(name), "%s%s%s%s", r->name,
				 r->recompute > 0 ? " (recompute)" : "", r->parent_module ? " in " : "",
				 r->parent_module ? r->parent_module : "");
			if (strlen(name) > 47)
				memcpy(name + 44, "...", 4);
			fprintf(o.f, "%-48s %12.3f %12.3f %7llu %6.2f %6.2f  %s\n", name,
				r->direct_us / 1000, r->subtree_us / 1000, (unsigned long long)r->count,
				r->pct, r->cum_pct, cats);
		}
	}
	if (!o.sep && !o.json && n < t->n)
		fprintf(o.f, "... %zu more (use --limit 0 for all)\n", t->n - n);
	rc = out_close(&o, false);
out:
	tl_op_table_free(t);
	tl_trace_close(tr);
	return rc;
}

/* ------------------------------------------------------------------ kernels */

struct kern_ctx {
	bool unique;
	unsigned long long limit;
};

static int kern_extra(int c, void *ctx)
{
	struct kern_ctx *x = ctx;

	switch (c) {
	case 'u': x->unique = true; return 0;
	case 'n':
		return parse_u64(optarg, &x->limit) ? 0 : cli_error("kernels: bad --limit '%s'", optarg);
	}
	return 1;
}

static void fmt_triple(char *buf, size_t n, const int64_t v[3])
{
	if (v[0] == TL_NOID)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "[%lld, %lld, %lld]", (long long)v[0], (long long)v[1], (long long)v[2]);
}

static void fmt_opt(char *buf, size_t n, int64_t v)
{
	if (v == TL_NOID)
		snprintf(buf, n, "%s", "");
	else
		snprintf(buf, n, "%lld", (long long)v);
}

static int kernels_unique(struct tl_trace *tr, struct out_fmt *o, unsigned long long limit)
{
	struct tl_kernel_unique_table *t = NULL;
	size_t i, n;
	int err = tl_kernel_unique(tr, &t);

	if (err)
		return cli_lib_error(err);
	n = limit && limit < t->n ? limit : t->n;
	if (o->sep) {
		static const char *const hdr[] = { "name", "count", "total_us", "mean_us", "min_us",
						   "max_us", "grid", "block", "registers",
						   "shared_memory", "ex_UID" };
		size_t h;

		for (h = 0; h < TL_ARRAY_N(hdr); h++)
			out_field(o, hdr[h], h + 1 == TL_ARRAY_N(hdr));
	} else if (!o->json) {
		fprintf(o->f, "%7s %12s %10s %-16s %-14s %4s %7s  %s\n", "count", "total us", "mean us",
			"grid", "block", "regs", "smem", "kernel");
	}
	for (i = 0; i < n; i++) {
		const struct tl_kernel_unique_row *r = &t->v[i];
		char g[64], b[64], regs[32], smem[32], s1[32], s2[32], s3[32], s4[32];

		fmt_triple(g, sizeof(g), r->grid);
		fmt_triple(b, sizeof(b), r->block);
		fmt_opt(regs, sizeof(regs), r->registers);
		fmt_opt(smem, sizeof(smem), r->shared_mem);
		fmt_pyfloat(s1, sizeof(s1), r->sum_us);
		fmt_pyfloat(s2, sizeof(s2), r->mean_us);
		fmt_pyfloat(s3, sizeof(s3), r->min_us);
		fmt_pyfloat(s4, sizeof(s4), r->max_us);
		if (o->json) {
			fputs("{\"name\":", o->f);
			json_str(o->f, r->name);
			fprintf(o->f, ",\"count\":%llu,\"total_us\":%s,\"mean_us\":%s,\"min_us\":%s,\"max_us\":%s",
				(unsigned long long)r->count, s1, s2, s3, s4);
			if (r->grid[0] != TL_NOID)
				fprintf(o->f, ",\"grid\":[%lld,%lld,%lld]", (long long)r->grid[0],
					(long long)r->grid[1], (long long)r->grid[2]);
			if (r->block[0] != TL_NOID)
				fprintf(o->f, ",\"block\":[%lld,%lld,%lld]", (long long)r->block[0],
					(long long)r->block[1], (long long)r->block[2]);
			if (r->registers != TL_NOID)
				fprintf(o->f, ",\"registers\":%lld", (long long)r->registers);
			if (r->shared_mem != TL_NOID)
				fprintf(o->f, ",\"shared_memory\":%lld", (long long)r->shared_mem);
			fprintf(o->f, ",\"ex_uid\":%llu}\n", (unsigned long long)r->ex_uid);
		} else if (o->sep) {
			char cnt[32], uid[32];

			snprintf(cnt, sizeof(cnt), "%llu", (unsigned long long)r->count);
			snprintf(uid, sizeof(uid), "%llu", (unsigned long long)r->ex_uid);
			out_field(o, r->name, false);
			out_field(o, cnt, false);
			out_field(o, s1, false);
			out_field(o, s2, false);
			out_field(o, s3, false);
			out_field(o, s4, false);
			out_field(o, g, false);
			out_field(o, b, false);
			out_field(o, regs, false);
			out_field(o, smem, false);
			out_field(o, uid, true);
		} else {
			fprintf(o->f, "%7llu %12.3f %10.3f %-16s %-14s %4s %7s  %.100s\n",
				(unsigned long long)r->count, r->sum_us, r->mean_us, g, b, regs, smem,
				r->name);
		}
	}
	if (!o->sep && !o->json && n < t->n)
		fprintf(o->f, "... %zu more (use --limit 0 for all)\n", t->n - n);
	tl_kernel_unique_free(t);
	return 0;
}

static int kernels_summary(struct tl_trace *tr, struct out_fmt *o, unsigned long long limit)
{
	struct tl_kernel_table *t = NULL;
	size_t i, n;
	int err = tl_kernel_summary(tr, &t);

	if (err)
		return cli_lib_error(err);
	n = limit && limit < t->n ? limit : t->n;
	if (o->sep) {
		out_field(o, "Parent op category", false);
		if (t->has_parent_op)
			out_field(o, "Parent cpu_op", false);
		out_field(o, "Kernel name", false);
		out_field(o, "Kernel stream", false);
		out_field(o, "Kernel duration (µs)_sum", false);
		out_field(o, "Kernel duration (µs)_count", false);
		out_field(o, "Kernel duration (µs)_mean", false);
		out_field(o, "Kernel duration (µs)_min", false);
		out_field(o, "Kernel duration (µs)_max", false);
		out_field(o, "Percent of kernels time (%)", false);
		out_field(o, "Percent of total time (%)", true);
	} else if (!o->json) {
		fprintf(o->f, "%-14s %-32s %6s %7s %12s %10s %6s  %s\n", "category", "parent op",
			"stream", "count", "total us", "mean us", "%", "kernel");
	}
	for (i = 0; i < n; i++) {
		const struct tl_kernel_row *r = &t->v[i];
		char s[6][32], stream[32], cnt[32];

		fmt_pyfloat(s[0], sizeof(s[0]), r->sum_us);
		fmt_pyfloat(s[1], sizeof(s[1]), r->mean_us);
		fmt_pyfloat(s[2], sizeof(s[2]), r->min_us);
		fmt_pyfloat(s[3], sizeof(s[3]), r->max_us);
		fmt_pyfloat(s[4], sizeof(s[4]), r->pct_kernels);
		fmt_pyfloat(s[5], sizeof(s[5]), r->pct_total);
		fmt_opt(stream, sizeof(stream), r->stream);
		snprintf(cnt, sizeof(cnt), "%llu", (unsigned long long)r->count);
		if (o->json) {
			fputs("{\"category\":", o->f);
			if (r->category)
				json_str(o->f, r->category);
			else
				fputs("null", o->f);
			fputs(",\"parent_op\":", o->f);
			if (r->parent_op)
				json_str(o->f, r->parent_op);
			else
				fputs("null", o->f);
			fputs(",\"kernel\":", o->f);
			json_str(o->f, r->name);
			fprintf(o->f, ",\"stream\":%s,\"count\":%s,\"sum_us\":%s,\"mean_us\":%s,"
				      "\"min_us\":%s,\"max_us\":%s,\"percent_of_kernels\":%s,"
				      "\"percent_of_total\":%s}\n",
				*stream ? stream : "null", cnt, s[0], s[1], s[2], s[3],
				isnan(r->pct_kernels) ? "null" : s[4], isnan(r->pct_total) ? "null" : s[5]);
		} else if (o->sep) {
			out_field(o, r->category, false);
			if (t->has_parent_op)
				out_field(o, r->parent_op, false);
			out_field(o, r->name, false);
			out_field(o, stream, false);
			out_field(o, s[0], false);
			out_field(o, cnt, false);
			out_field(o, s[1], false);
			out_field(o, s[2], false);
			out_field(o, s[3], false);
			out_field(o, s[4], false);
			out_field(o, s[5], true);
		} else {
			fprintf(o->f, "%-14.14s %-32.32s %6s %7s %12.3f %10.3f %6.2f  %.90s\n",
				r->category ? r->category : "(unlinked)",
				r->parent_op ? r->parent_op : "-", stream, cnt, r->sum_us, r->mean_us,
				r->pct_kernels, r->name);
		}
	}
	if (!o->sep && !o->json && n < t->n)
		fprintf(o->f, "... %zu more (use --limit 0 for all)\n", t->n - n);
	tl_kernel_table_free(t);
	return 0;
}

int cmd_kernels(int argc, char **argv)
{
	static const struct option extra[] = {
		{ "unique", no_argument, NULL, 'u' },
		{ "limit", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct kern_ctx x = { 0 };
	struct common_opts co = { 0 };
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	int rc = 1, err;

	err = cli_parse(argc, argv, "kernels", &co, "n:", extra, kern_extra, &x);
	if (err)
		return err < 0 ? 0 : err;
	if (cli_no_args("kernels", argc, argv))
		return 1;
	if (cli_open_trace(&co, &tr))
		return 1;
	if (out_open(&o, co.output))
		goto out;
	o.sep = co.sep;
	o.json = co.json;
	err = x.unique ? kernels_unique(tr, &o, x.limit) : kernels_summary(tr, &o, x.limit);
	rc = out_close(&o, err != 0);
out:
	tl_trace_close(tr);
	return rc;
}
