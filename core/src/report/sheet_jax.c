/* SPDX-License-Identifier: MIT */
/* TraceLens's JAX report sheets that sum kernel time (generate_perf_report_jax
 * with JaxTreePerfAnalyzer): in a JAX trace every GPU kernel is its own
 * launcher, categorised by its name and its HLO op; the sheets group those
 * by name, by category, and the XLA fusions by name without digits. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <tlreplay/analysis.h>
#include <tlreplay/report_sheets.h>
#include <tlreplay/trace.h>

#include "report/report_internal.h"

#define XLA_CAT "Uncategorized Events/XLA"

/* TraceLens's JaxOpKeys.ClassCategories, in its order: the first whose key
 * is in the kernel's name, then the first whose key is in its hlo_op (which
 * wins, except over a flash-attention name). */
static const struct jcat {
	const char *name;
	const char *keys[5];
} jcats[] = {
	{ "GEMM", { "Cijk", "gemm", "nvjet", "cublasLt" } },
	{ "FA BWD", { "FmhaBwd", "flash_bprop", "ck_fused_attn::dk_dv_reduce_thd", "fmha_bwd" } },
	{ "FA FWD", { "FmhaFwd", "flash_fprop", "fmha_fwd" } },
	{ "FA V3", { "kernel_func" } },
	{ "Conv", { "conv_", "conv.", "conv-" } },
	{ "TE", { "transformer_engine", "te_fused_attn" } },
	{ "Communication rccl/nccl", { "rccl", "nccl" } },
};

static int match_cat(const char *s)
{
	size_t c, k;

	for (c = 0; c < TL_ARRAY_SIZE(jcats); c++)
		for (k = 0; jcats[c].keys[k]; k++)
			if (strstr(s, jcats[c].keys[k]))
				return (int)c;
	return -1;
}

const char *rpt_jax_kernel_cat(const char *name, const char *hlo_op)
{
	int c = match_cat(name), h;

	if (hlo_op && *hlo_op && !(c >= 1 && c <= 3) && (h = match_cat(hlo_op)) >= 0)
		c = h;
	return c >= 0 ? jcats[c].name : XLA_CAT;
}

struct jk {
	char *name;
	const char *cat;	/* static */
	double dur;
	const char *pid;	/* owned by the trace */
};

struct jgroup {
	const char *key;
	double sum, comp;
	uint64_t count;
};

static void free_kernels(struct jk *k, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(k[i].name);
	free(k);
}

/* The GPU kernels TraceLens's JAX tree sees: cat kernel on a process whose
 * name holds "/device:GPU". With @xla_only, only the uncategorised (XLA)
 * ones, named without their digits ("loop_slice_fusion_202" ->
 * "loop_slice_fusion_"). */
static int jax_kernels(struct tl_trace *tr, bool xla_only, struct jk **out, size_t *nout)
{
	TL_VEC(struct jk) v = { 0 };
	uint64_t uid, n = tl_trace_nevents(tr);
	cJSON *args = NULL;
	char pname[256];
	int err = 0;

	for (uid = 0; uid < n && !err; uid++) {
		struct tl_event_info e;
		const cJSON *h;
		struct jk k;
		char *p, *q;

		if (tl_trace_event(tr, uid, &e) || e.kind != TL_KIND_KERNEL || !e.has_dur ||
		    tl_trace_process_name(tr, e.pid, pname, sizeof(pname)) || !strstr(pname, "/device:GPU"))
			continue;
		err = tl_trace_event_args(tr, uid, &args);
		if (err)
			break;
		h = args ? cJSON_GetObjectItemCaseSensitive(args, "hlo_op") : NULL;
		k.cat = rpt_jax_kernel_cat(e.name, cJSON_IsString(h) ? h->valuestring : NULL);
		cJSON_Delete(args);
		args = NULL;
		if (xla_only && strcmp(k.cat, XLA_CAT))
			continue;
		k.dur = e.dur;
		k.pid = e.pid;
		k.name = strdup(e.name);
		if (!k.name) {
			err = -ENOMEM;
			break;
		}
		if (xla_only) {
			for (p = q = k.name; *p; p++)
				if (!isdigit((unsigned char)*p))
					*q++ = *p;
			*q = '\0';
		}
		if (tl_vec_push(&v, k)) {
			free(k.name);
			err = -ENOMEM;
		}
	}
	if (err) {
		free_kernels(v.v, v.n);
		return tl_err(err, "JAX sheets: %s", strerror(-err));
	}
	*out = v.v;
	*nout = v.n;
	return 0;
}

static size_t distinct_pids(const struct jk *k, size_t n)
{
	size_t i, j, d = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i && strcmp(k[j].pid, k[i].pid); j++)
			;
		d += j == i;
	}
	return d;
}

/* A kernel's index with its key, to sort by key and then trace order. */
struct jref {
	const char *key;
	size_t i;
};

static int cmp_ref(const void *pa, const void *pb)
{
	const struct jref *a = pa, *b = pb;
	int c = strcmp(a->key, b->key);

	return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* pandas' groupby sorts the keys; the sheet then sorts by the sum, ties
 * keeping the key order */
static int cmp_sum(const void *pa, const void *pb)
{
	const struct jgroup *a = pa, *b = pb;

	if (a->sum != b->sum)
		return a->sum > b->sum ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* Group @k by name (or category), summed with Kahan's compensation as
 * pandas does; *out sorted by sum descending. */
static int group(const struct jk *k, size_t n, bool by_cat, struct jgroup **out, size_t *nout)
{
	struct jref *r = calloc(n ? n : 1, sizeof(*r));
	struct jgroup *g = calloc(n ? n : 1, sizeof(*g));
	size_t i, m = 0;

	if (!r || !g) {
		free(r);
		free(g);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		r[i].key = by_cat ? k[i].cat : k[i].name;
		r[i].i = i;
	}
	tl_qsort(r, n, sizeof(*r), cmp_ref);
	for (i = 0; i < n; i++) {
		struct jgroup *x;
		double y, t;

		if (!m || strcmp(g[m - 1].key, r[i].key))
			g[m++].key = r[i].key;
		x = &g[m - 1];
		y = k[r[i].i].dur - x->comp;
		t = x->sum + y;
		x->comp = (t - x->sum) - y;
		x->sum = t;
		x->count++;
	}
	free(r);
	tl_qsort(g, m, sizeof(*g), cmp_sum);
	*out = g;
	*nout = m;
	return 0;
}

/* kernel_launchers_summary and xla_summary (by name), or
 * kernel_launchers_summary_by_category. */
static int summary(struct tl_trace *tr, const char *sheet, bool xla_only, bool by_cat,
		   struct tl_sheet **out)
{
	static const char *const cols_name[] = {
		"name", "total_direct_kernel_time_sum", "Count", "total_direct_kernel_time_ms",
		"Percentage (%)", "Cumulative Percentage (%)", "time ms per gpu",
	};
	static const char *const cols_cat[] = {
		"op category", "Count", "total_direct_kernel_time_ms", "Percentage (%)",
		"Cumulative Percentage (%)", "time ms per gpu",
	};
	struct jk *k = NULL;
	struct jgroup *g = NULL;
	struct tl_sheet *sh = NULL;
	size_t nk = 0, ng = 0, i, ngpu;
	double total_ms = 0, cum = 0;
	int err;

	*out = NULL;
	err = by_cat ? tl_sheet_new(sheet, TL_ARRAY_SIZE(cols_cat), cols_cat, &sh)
		     : tl_sheet_new(sheet, TL_ARRAY_SIZE(cols_name), cols_name, &sh);
	if (!err)
		err = jax_kernels(tr, xla_only, &k, &nk);
	if (!err)
		err = group(k, nk, by_cat, &g, &ng);
	if (err)
		goto out;
	ngpu = distinct_pids(k, nk);
	for (i = 0; i < ng; i++)
		total_ms += g[i].sum / 1000;
	for (i = 0; i < ng && !err; i++) {
		struct tl_cell row[7];
		double ms = g[i].sum / 1000, pct = ms / total_ms * 100;
		size_t c = 0;

		cum += pct;
		row[c++] = tl_cell_str(g[i].key);
		if (!by_cat)
			row[c++] = tl_cell_num(g[i].sum);
		row[c++] = tl_cell_int((long long)g[i].count);
		row[c++] = tl_cell_num(ms);
		row[c++] = tl_cell_num(pct);
		row[c++] = tl_cell_num(cum);
		row[c++] = tl_cell_num(ms / (double)ngpu);
		err = tl_sheet_add_row(sh, row);
	}
out:
	free(g);
	free_kernels(k, nk);
	if (err) {
		tl_sheet_free(sh);
		return err;
	}
	*out = sh;
	return 0;
}

int tl_sheet_jax_kernel_launchers_summary(struct tl_trace *tr, struct tl_sheet **out)
{
	return summary(tr, "kernel_launchers_summary", false, false, out);
}

int tl_sheet_jax_kernel_launchers_summary_by_category(struct tl_trace *tr, struct tl_sheet **out)
{
	return summary(tr, "kernel_launchers_summary_by_category", false, true, out);
}

int tl_sheet_jax_xla_summary(struct tl_trace *tr, struct tl_sheet **out)
{
	return summary(tr, "xla_summary", true, false, out);
}

int tl_sheet_jax_gpu_events_averages(struct tl_trace *tr, struct tl_sheet **out)
{
	static const char *const cols[] = { "type", "time ms", "percent" };
	struct tl_breakdown_opts bo = { .sz = sizeof(bo), .group = TL_BD_GROUP_DEVICE };
	struct tl_breakdown_set *bd = NULL;
	struct tl_sheet *sh = NULL;
	double mean[TL_BD_NROWS] = { 0 };
	size_t i, r;
	int err;

	*out = NULL;
	err = tl_sheet_new("gpu_events_averages", 3, cols, &sh);
	if (err)
		return err;
	err = tl_breakdown(tr, &bo, &bd);
	if (err == -ENODATA) {
		/* no GPU event: the sheet has no rows */
		*out = sh;
		return 0;
	}
	if (err)
		goto out;
	/* every row of every GPU's breakdown, averaged over the GPUs */
	for (i = 0; i < bd->n; i++)
		for (r = 0; r < TL_BD_NROWS; r++)
			mean[r] += bd->v[i].us[r];
	for (r = 0; r < TL_BD_NROWS; r++)
		mean[r] /= (double)bd->n;
	for (r = 0; r < TL_BD_NROWS && !err; r++) {
		struct tl_cell row[3];

		row[0] = tl_cell_str(tl_bd_row_name((enum tl_bd_row)r));
		row[1] = tl_cell_num(mean[r] / 1e3);
		row[2] = tl_cell_num(mean[r] / mean[TL_BD_TOTAL] * 100);
		err = tl_sheet_add_row(sh, row);
	}
out:
	tl_breakdown_free(bd);
	if (err) {
		tl_sheet_free(sh);
		return err;
	}
	*out = sh;
	return 0;
}
