/* SPDX-License-Identifier: MIT */
/* tlreplay kernels: TraceLens's kernel_summary, the table of distinct kernel
 * launch configurations (--unique) and short kernels (--short). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include <tlreplay/gpu.h>
#include <tlreplay/report.h>

#include "builtin.h"
#include "report/kernels-short.h"

struct kern_ctx {
	struct common_opts co;
	bool unique;
	unsigned long long limit;
	bool short_k;		/* --short: kernels-short.c */
	const char *short_thresh;
	unsigned long long bins;
};

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
	if (o->sep) {
		struct tl_sheet *sh = NULL;

		err = tl_sheet_kernel_summary(t, &sh);
		if (!err)
			err = tl_sheet_write_sep(sh, o->f, o->sep, (size_t)limit);
		tl_sheet_free(sh);
		tl_kernel_table_free(t);
		return err ? cli_lib_error(err) : 0;
	}
	n = limit && limit < t->n ? limit : t->n;
	if (!o->json) {
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

static const struct opt kernels_opts[] = {
	OPT_INCLUDE(opts_analysis, offsetof(struct kern_ctx, co)),
	OPT_U64('n', "limit", "N", struct kern_ctx, limit, "show the first N rows (0 = all, the default)"),
	OPT_BOOL(0, "unique", struct kern_ctx, unique, "one row per distinct kernel configuration"),
	OPT_BOOL(0, "short", struct kern_ctx, short_k, "histogram of the short kernels' durations, per device"),
	OPT_STRING(0, "short-thresh-us", "N", struct kern_ctx, short_thresh, "--short: kernels under N us (default 10)"),
	OPT_U64(0, "bins", "N", struct kern_ctx, bins, "--short: N histogram bins (default 100)"),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(kernels, kernels_opts, "kernel summary, or every distinct kernel (--unique)",
	"usage: tlreplay kernels [-i TRACE] [-x SEP | -j] [-o FILE] [-n N] [--unique]\n"
	"       tlreplay kernels --short [--short-thresh-us N] [--bins N] [-i TRACE] [-x SEP | -j]\n"
	"\n"
	"Kernel summary (TraceLens's kernel_summary): kernels grouped by parent op category,\n"
	"parent cpu_op, kernel name and stream, with count, total, mean, min, max duration and\n"
	"shares of all kernel time and of the GPU timeline. With --unique: every distinct\n"
	"kernel launch configuration (name, grid, block, registers, shared memory).\n"
	"\n");
/* clang-format on */

static int cmd_kernels(int argc, char **argv)
{
	struct kern_ctx x = { 0 };
	struct common_opts *co = &x.co;
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	int rc = 1, err;

	if (!opts_parse(&kernels_cmd, argc, argv, &x, &rc))
		return rc;
	if (cli_check_format("kernels", co))
		return 1;
	if (cli_no_args("kernels", argc, argv))
		return 1;
	if ((x.short_thresh || x.bins) && !x.short_k)
		return cli_error("kernels: --short-thresh-us and --bins go with --short");
	if (x.short_k && kernels_short_check(x.short_thresh, x.bins))
		return 1;
	if (cli_open_trace(co, &tr))
		return 1;
	if (out_open_opts(&o, co))
		goto out;
	err = x.short_k ? kernels_short(tr, &o, x.short_thresh, x.bins)
	      : x.unique ? kernels_unique(tr, &o, x.limit)
			 : kernels_summary(tr, &o, x.limit);
	rc = out_close(&o, err != 0);
out:
	tl_trace_close(tr);
	return rc;
}
