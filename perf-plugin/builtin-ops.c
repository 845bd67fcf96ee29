/* SPDX-License-Identifier: MIT */
/* tlreplay ops: TraceLens's ops_summary, ops_unique_args and the perf
 * models' rows (--perf). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include <tlreplay/gpu.h>
#include <tlreplay/report.h>

#include "builtin.h"
#include "report/kernels-short.h"

struct ops_ctx {
	struct common_opts co;
	struct tl_ops_opts oo;
	unsigned long long limit;
	bool unique_args, perf;
	const char *gpu_spec;
};

/* Write @sh as -x SEP text, its first @limit rows (0: all); the return of
 * the command. */
static int write_sheet(struct out_fmt *o, struct tl_sheet *sh, int err, unsigned long long limit)
{
	if (!err)
		err = tl_sheet_write_sep(sh, o->f, o->sep, (size_t)limit);
	tl_sheet_free(sh);
	if (err) {
		out_close(o, true);
		return cli_lib_error(err);
	}
	return out_close(o, false);
}

/* ops --unique-args: TraceLens's ops_unique_args sheet. */
static int ops_unique_args(struct tl_trace *tr, const struct common_opts *co, const struct ops_ctx *x)
{
	struct tl_launcher_group_opts go = { .sz = sizeof(go), .include_nccl = x->oo.include_nccl,
					     .by_thread = true };
	struct tl_launcher_group_set *set = NULL;
	struct out_fmt o = { 0 };
	double total = 0, cum = 0;
	size_t i, n;
	int rc = 1, err;

	err = tl_launcher_groups(tr, &go, &set);
	if (err)
		return cli_lib_error(err);
	if (out_open_opts(&o, co))
		goto out;
	if (o.sep) {
		struct tl_sheet *sh = NULL;

		err = tl_sheet_ops_unique_args(set, &sh);
		rc = write_sheet(&o, sh, err, x->limit);
		goto out;
	}
	for (i = 0; i < set->n; i++)
		total += set->v[i].direct.sum;
	n = x->limit && x->limit < set->n ? x->limit : set->n;
	if (!o.json) {
		fprintf(o.f, "%-32s %7s %10s %10s %6s  %-10s %s\n", "op", "count", "direct ms", "mean us",
			"%", "ex_UID", "Input Dims");
	}
	for (i = 0; i < n; i++) {
		const struct tl_launcher_group *g = &set->v[i];
		double pct = total > 0 ? 100 * g->direct.sum / total : 0;
		char num[64];

		cum += pct;
		if (o.json) {
			const char *f[4] = { g->input_dims, g->input_type, g->input_strides,
					     g->concrete_inputs };
			static const char *const k[4] = { "input_dims", "input_type", "input_strides",
							  "concrete_inputs" };
			size_t j;

			fputs("{\"name\":", o.f);
			json_str(o.f, g->name);
			fputs(",\"category\":", o.f);
			json_str(o.f, g->category);
			fputs(",\"pid\":", o.f);
			json_str(o.f, g->pid);
			fputs(",\"tid\":", o.f);
			json_str(o.f, g->tid);
			for (j = 0; j < 4; j++)
				fprintf(o.f, ",\"%s\":%s", k[j], *f[j] ? f[j] : "null");
			fprintf(o.f, ",\"count\":%llu", (unsigned long long)g->count);
			{
				const struct tl_time_agg *a[2] = { &g->direct, &g->subtree };
				static const char *const an[2] = { "direct", "subtree" };
				size_t m;

				for (m = 0; m < 2; m++) {
					fprintf(o.f, ",\"%s_us\":{", an[m]);
					fmt_pyfloat(num, sizeof(num), a[m]->sum);
					fprintf(o.f, "\"sum\":%s", num);
					fmt_pyfloat(num, sizeof(num), a[m]->mean);
					fprintf(o.f, ",\"mean\":%s", num);
					fmt_pyfloat(num, sizeof(num), a[m]->median);
					fprintf(o.f, ",\"median\":%s", num);
					if (isnan(a[m]->std))
						fputs(",\"std\":null", o.f);
					else {
						fmt_pyfloat(num, sizeof(num), a[m]->std);
						fprintf(o.f, ",\"std\":%s", num);
					}
					fmt_pyfloat(num, sizeof(num), a[m]->min);
					fprintf(o.f, ",\"min\":%s", num);
					fmt_pyfloat(num, sizeof(num), a[m]->max);
					fprintf(o.f, ",\"max\":%s}", num);
				}
			}
			fmt_pyfloat(num, sizeof(num), pct);
			fprintf(o.f, ",\"ex_uid\":%llu,\"percent\":%s", (unsigned long long)g->ex_uid, num);
			fmt_pyfloat(num, sizeof(num), cum);
			fprintf(o.f, ",\"cumulative_percent\":%s}\n", num);
		} else {
			char name[64], uid[32];

			snprintf(name, sizeof(name), "%s", g->name);
			if (strlen(name) > 31)
				memcpy(name + 28, "...", 4);
			snprintf(uid, sizeof(uid), "%llu", (unsigned long long)g->ex_uid);
			fprintf(o.f, "%-32s %7llu %10.3f %10.3f %6.2f  %-10s %.100s\n", name,
				(unsigned long long)g->count, g->direct.sum / 1000, g->direct.mean, pct,
				uid, g->input_dims);
		}
	}
	if (!o.sep && !o.json && n < set->n)
		fprintf(o.f, "... %zu more (use --limit 0 for all)\n", set->n - n);
	rc = out_close(&o, false);
out:
	tl_launcher_group_set_free(set);
	return rc;
}

/* ops --perf: the rows of the report's roofline sheet (the perf-model
 * groups by kernel time, with their roofs on the trace's GPU), so the
 * numbers are the report's own. */
/* "12.3" or "-" for a value the row does not have */
static const char *fmt_or_dash(char *buf, size_t n, const char *fmt, double v)
{
	if (!isfinite(v))
		return "-";
	snprintf(buf, n, fmt, v);
	return buf;
}

/* "" for a cell the row does not have, so that a row prints as one line */
static const char *text_or_empty(const char *s)
{
	return s ? s : "";
}

static void perf_text_row(FILE *f, const struct tl_sheet *sh, size_t i)
{
	char name[40], params[48], a[32], b[32], c[32], d[32];
	const char *p = text_or_empty(tl_sheet_str(sh, i, "params"));
	const char *bound = text_or_empty(tl_sheet_str(sh, i, "bound"));

	snprintf(name, sizeof(name), "%s", text_or_empty(tl_sheet_str(sh, i, "name")));
	if (strlen(name) > 27)
		memcpy(name + 24, "...", 4);
	snprintf(params, sizeof(params), "%s", p);
	if (strlen(p) > 39)
		memcpy(params + 36, "...", 4);
	fprintf(f, "%-27s %-39s %6.0f %10.3f %8s %7s %9s %7s  %s\n", name, params,
		tl_sheet_num(sh, i, "calls"), tl_sheet_num(sh, i, "Kernel Time (µs)_sum") / 1000,
		fmt_or_dash(a, sizeof(a), "%.3f", tl_sheet_num(sh, i, "TFLOPS/s_mean")),
		fmt_or_dash(b, sizeof(b), "%.3f", tl_sheet_num(sh, i, "TB/s_mean")),
		fmt_or_dash(c, sizeof(c), "%.3g", tl_sheet_num(sh, i, "FLOPS/Byte")),
		fmt_or_dash(d, sizeof(d), "%.1f", tl_sheet_num(sh, i, "% of roof")), *bound ? bound : "-");
}

static void perf_json_row(FILE *f, const struct tl_sheet *sh, size_t i)
{
	size_t c;

	fputc('{', f);
	for (c = 0; c < tl_sheet_ncols(sh); c++) {
		const struct tl_cell *x = tl_sheet_cell(sh, i, c);
		char num[64];

		if (c)
			fputc(',', f);
		json_str(f, tl_sheet_col(sh, c));
		fputc(':', f);
		if (x->kind == TL_CELL_STR)
			json_str(f, x->s);
		else if (x->kind == TL_CELL_EMPTY)
			fputs("null", f);
		else
			fputs(tl_cell_text(x, num, sizeof(num)), f);
	}
	fputs("}\n", f);
}

static int ops_perf(struct tl_trace *tr, const struct common_opts *co, const struct ops_ctx *x)
{
	struct tl_report_opts ro = { .sz = sizeof(ro), .perf_models = true, .include_nccl = x->oo.include_nccl };
	struct tl_gpu_set *gpus = NULL;
	const struct tl_gpu *gpu;
	struct tl_report *r = NULL;
	struct tl_sheet *sh = NULL;
	struct out_fmt o = { 0 };
	char why[256] = "";
	size_t i, n;
	int rc = 1, err;

	if (tl_gpu_set_new(&gpus))
		return cli_error("ops: out of memory");
	if (x->gpu_spec && tl_gpu_set_load(gpus, x->gpu_spec)) {
		cli_error("ops: --gpu-spec %s", tl_last_error());
		goto out;
	}
	err = tl_report_build(tr, &ro, &r);
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	gpu = tl_gpu_of_trace(gpus, tr, -1);
	if (!gpu) {
		snprintf(why, sizeof(why), "%s", tl_last_error());
		fprintf(stderr, "tlreplay ops: %s; no roofs%s\n", why,
			x->gpu_spec ? "" : " (give --gpu-spec FILE.json)");
	}
	err = tl_sheet_roofline(r, gpu, gpu ? NULL : why, &sh);
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	if (out_open_opts(&o, co))
		goto out;
	if (o.sep) {
		rc = write_sheet(&o, sh, 0, x->limit);
		sh = NULL;
		goto out;
	}
	n = tl_sheet_nrows(sh);
	if (x->limit && x->limit < n)
		n = (size_t)x->limit;
	if (!o.json) {
		fprintf(o.f, "device: %s\n", gpu ? gpu->name : "unknown (give --gpu-spec FILE.json)");
		fprintf(o.f, "%-27s %-39s %6s %10s %8s %7s %9s %7s  %s\n", "op", "params", "calls",
			"kernel ms", "TFLOP/s", "TB/s", "FLOP/B", "% roof", "bound");
	}
	for (i = 0; i < n; i++) {
		if (o.json)
			perf_json_row(o.f, sh, i);
		else
			perf_text_row(o.f, sh, i);
	}
	if (!o.json && n < tl_sheet_nrows(sh))
		fprintf(o.f, "... %zu more (use --limit 0 for all)\n", tl_sheet_nrows(sh) - n);
	rc = out_close(&o, false);
out:
	tl_sheet_free(sh);
	tl_report_free(r);
	tl_gpu_set_free(gpus);
	return rc;
}

static const struct opt ops_opts[] = {
	OPT_INCLUDE(opts_analysis, offsetof(struct ops_ctx, co)),
	OPT_U64('n', "limit", "N", struct ops_ctx, limit, "show the first N rows (0 = all, the default)"),
	OPT_BOOL(0, "recompute", struct ops_ctx, oo.split_recompute, "group by (name, is_recompute)"),
	OPT_BOOL(0, "by-module", struct ops_ctx, oo.by_module,
		 "group by (name, parent nn.Module), with the call stack, like\n"
		 "TraceLens's inference report (builds the tree with python functions)"),
	OPT_BOOL(0, "unique-args", struct ops_ctx, unique_args,
		 "one row per distinct (name, category, pid, tid, Input Dims, Input\n"
		 "type, Input Strides, Concrete Inputs), TraceLens's ops_unique_args;\n"
		 "count and mean/median/std/min/max/sum of both times, ex_UID"),
	OPT_BOOL(0, "perf", struct ops_ctx, perf,
		 "the perf-model op groups by kernel time: calls, TFLOP/s, TB/s,\n"
		 "FLOPS/Byte, % of the GPU's roof and bound (report's roofline.csv)"),
	OPT_STRING(0, "gpu-spec", "FILE.json", struct ops_ctx, gpu_spec,
		   "GPU peaks for --perf: add or override devices (docs/roofline.md)"),
	OPT_BOOL(0, "include-nccl", struct ops_ctx, oo.include_nccl,
		 "count NCCL kernels too (TraceLens leaves them out)"),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(ops, ops_opts, "op summary by GPU time (TraceLens ops_summary)",
	"usage: tlreplay ops [-i TRACE] [-x SEP | -j] [-o FILE] [-n N]\n"
	"                    [--recompute | --by-module | --unique-args | --perf [--gpu-spec FILE.json]]\n"
	"                    [--include-nccl]\n"
	"\n"
	"Kernel launchers grouped by op name (TraceLens's ops_summary): the busy time of the\n"
	"GPU events each op launched directly and of all GPU events below it, the count and\n"
	"the op categories. A launcher is the first cpu_op above the runtime call of a GPU\n"
	"event (else the runtime call itself).\n"
	"\n");
/* clang-format on */

static int cmd_ops(int argc, char **argv)
{
	struct ops_ctx x = { .oo = { .sz = sizeof(x.oo) } };
	struct common_opts *co = &x.co;
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	struct tl_op_table *t = NULL;
	struct tl_sheet *sh = NULL;
	size_t i, n, catcol;
	int rc = 1, err;

	if (!opts_parse(&ops_cmd, argc, argv, &x, &rc))
		return rc;
	if (cli_check_format("ops", co))
		return 1;
	if (cli_no_args("ops", argc, argv))
		return 1;
	if (x.unique_args && (x.oo.by_module || x.oo.split_recompute))
		return cli_error("ops: --unique-args goes with neither --by-module nor --recompute");
	if (x.perf && (x.unique_args || x.oo.by_module || x.oo.split_recompute))
		return cli_error("ops: --perf goes with none of --unique-args, --by-module, --recompute");
	if (x.gpu_spec && !x.perf)
		return cli_error("ops: --gpu-spec goes with --perf");
	if (cli_open_trace(co, &tr))
		return 1;
	if (x.perf) {
		rc = ops_perf(tr, co, &x);
		goto out;
	}
	if (x.unique_args) {
		rc = ops_unique_args(tr, co, &x);
		goto out;
	}
	err = tl_ops_summary(tr, &x.oo, &t);
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	if (out_open_opts(&o, co))
		goto out;
	/* the sheet is the -x table, and says the Categories cell the table shows */
	err = tl_sheet_ops_summary(t, &x.oo, &sh);
	if (o.sep || err) {
		rc = write_sheet(&o, sh, err, x.limit);
		sh = NULL;
		goto out;
	}
	catcol = (size_t)tl_sheet_col_index(sh, "Categories");
	n = x.limit && x.limit < t->n ? x.limit : t->n;
	if (!o.json) {
		fprintf(o.f, "%-48s %12s %12s %7s %6s %6s  %s\n", "op", "direct ms", "subtree ms",
			"count", "%", "cum%", "categories");
	}
	for (i = 0; i < n; i++) {
		const struct tl_op_row *r = &t->v[i];
		char a[64], b[64], c2[64], d[64], e[64], f[64];
		const char *cats = tl_sheet_cell(sh, i, catcol)->s;

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
	tl_sheet_free(sh);
	tl_op_table_free(t);
	tl_trace_close(tr);
	return rc;
}

