/* SPDX-License-Identifier: MIT */
/* The perf-model sheets (GEMM, SDPA_fwd, ...): the per-call rows of every
 * class of one sheet, grouped by name and parameters as TraceLens's
 * summarize_df_perf_metrics does: the first of the model's numbers, mean,
 * median, std, min and max of the rates and of Kernel Time, its sum, the
 * count and the first UID; by Kernel Time sum descending, then UID. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"
#include "report/report_internal.h"

#define MAX_CLASSES 512
#define MAX_PCOLS 64

struct pgroup {
	size_t first;		/* its first row (rows are by UID) */
	size_t n;
	size_t *rows;
	double kt_sum;
};

struct psheet {
	const char *name;
	struct prow *rows;
	size_t nrows;
	const char *pcols[MAX_PCOLS];	/* parameter names, in order of first appearance */
	size_t npcols;
	struct pgroup *g;
	size_t ng;
	bool inference;		/* TraceLens's inference report: grouped by num_kernels too */
	const uint8_t *rc;	/* --recompute: is_recompute of each UID, a grouping column */
	size_t nomodel;		/* calls left out: the model cannot read them */
	char first_why[192];	/* the first one's reason */
};

/* str() of parameter @col of @r: pandas' NaN where the row has none */
static const char *pval(const struct prow *r, const char *col)
{
	size_t i;

	for (i = 0; i < r->nparams; i++)
		if (!strcmp(r->pnames[i], col))
			return r->pvals[i];
	return "nan";
}

static bool same_group(const struct psheet *s, const struct prow *a, const struct prow *b)
{
	size_t c;

	if (strcmp(a->name, b->name))
		return false;
	if (s->inference && a->nk != b->nk)
		return false;
	if (s->rc && s->rc[a->uid] != s->rc[b->uid])
		return false;
	for (c = 0; c < s->npcols; c++)
		if (strcmp(pval(a, s->pcols[c]), pval(b, s->pcols[c])))
			return false;
	return true;
}

static int cmp_group(const void *a, const void *b)
{
	const struct pgroup *x = a, *y = b;

	if (x->kt_sum != y->kt_sum)
		return x->kt_sum > y->kt_sum ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Groups of the sheet's rows; a hash would be faster, but a sheet holds
 * few distinct groups and the rows are compared to the groups' first. */
static int group_rows(struct psheet *s)
{
	size_t i, j, c, *gof = NULL;
	int err = -ENOMEM;

	for (i = 0; i < s->nrows; i++)
		for (c = 0; c < s->rows[i].nparams; c++) {
			for (j = 0; j < s->npcols; j++)
				if (!strcmp(s->pcols[j], s->rows[i].pnames[c]))
					break;
			if (j == s->npcols && s->npcols < MAX_PCOLS)
				s->pcols[s->npcols++] = s->rows[i].pnames[c];
		}
	s->g = calloc(s->nrows ? s->nrows : 1, sizeof(*s->g));
	gof = malloc((s->nrows ? s->nrows : 1) * sizeof(*gof));
	if (!s->g || !gof)
		goto out;
	/* each row's group, then each group's rows in one exact allocation */
	for (i = 0; i < s->nrows; i++) {
		for (j = 0; j < s->ng; j++)
			if (same_group(s, &s->rows[s->g[j].first], &s->rows[i]))
				break;
		if (j == s->ng)
			s->g[s->ng++].first = i;
		gof[i] = j;
		s->g[j].n++;
		s->g[j].kt_sum += s->rows[i].kt;
	}
	for (j = 0; j < s->ng; j++) {
		s->g[j].rows = malloc(s->g[j].n * sizeof(*s->g[j].rows));
		if (!s->g[j].rows)
			goto out;
		s->g[j].n = 0;
	}
	for (i = 0; i < s->nrows; i++)
		s->g[gof[i]].rows[s->g[gof[i]].n++] = i;
	tl_qsort(s->g, s->ng, sizeof(*s->g), cmp_group);
	err = 0;
out:
	free(gof);
	return err;
}

/* pandas' mean/median/std/min/max of one column of a group, NaN skipped */
static void agg_col(const struct psheet *s, const struct pgroup *g, size_t off, double *v,
		    struct tl_agg *a)
{
	size_t i, n = 0;

	for (i = 0; i < g->n; i++) {
		double x = *(const double *)((const char *)&s->rows[g->rows[i]] + off);

		if (!isnan(x))
			v[n++] = x;
	}
	if (!n) {
		*a = (struct tl_agg){ NAN, NAN, NAN, NAN, NAN, NAN };
		return;
	}
	tl_aggregate(v, n, a);
}

static double first_num(const struct psheet *s, const struct pgroup *g, size_t off)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		double x = *(const double *)((const char *)&s->rows[g->rows[i]] + off);

		if (!isnan(x))
			return x;
	}
	return NAN;
}

/* Every golden perf sheet lists a group's kernel positions by total
 * duration, shortest first (all 97 multi-kernel golden rows), where this
 * TraceLens checkout keeps start-time order: the goldens win. Permute the
 * kernels of the group's calls (those as long as the first) so, stably. */
static int order_positions(const struct psheet *s, const struct pgroup *g)
{
	const struct prow *t = NULL;
	struct pkernel *tmp = NULL;
	double *sum = NULL;
	size_t *ix = NULL, i, j, k;
	int err = -ENOMEM;

	for (i = 0; i < g->n && !t; i++)
		if (s->rows[g->rows[i]].nk)
			t = &s->rows[g->rows[i]];
	if (!t || t->nk < 2)
		return 0;
	sum = calloc(t->nk, sizeof(*sum));
	ix = malloc(t->nk * sizeof(*ix));
	tmp = malloc(t->nk * sizeof(*tmp));
	if (!sum || !ix || !tmp)
		goto out;
	for (i = 0; i < g->n; i++)
		if (s->rows[g->rows[i]].nk == t->nk)
			for (k = 0; k < t->nk; k++)
				sum[k] += s->rows[g->rows[i]].k[k].dur;
	/* insertion sort: stable, and a call holds few kernels */
	for (k = 0; k < t->nk; k++) {
		for (j = k; j > 0 && sum[ix[j - 1]] > sum[k]; j--)
			ix[j] = ix[j - 1];
		ix[j] = k;
	}
	for (i = 0; i < g->n; i++) {
		struct prow *r = &s->rows[g->rows[i]];

		if (r->nk != t->nk)
			continue;
		for (k = 0; k < r->nk; k++)
			tmp[k] = r->k[ix[k]];
		memcpy(r->k, tmp, r->nk * sizeof(*tmp));
	}
	err = 0;
out:
	free(tmp);
	free(ix);
	free(sum);
	return err;
}

/* The group's calls' kernel lists, for rpt_kernel_stats() */
static char *kernel_details(const struct psheet *s, const struct pgroup *g, bool trunc,
			    struct rpt_klist *tmp)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		tmp[i].k = s->rows[g->rows[i]].k;
		tmp[i].nk = s->rows[g->rows[i]].nk;
	}
	return rpt_kernel_stats(tmp, g->n, trunc);
}

#define OFF(f) offsetof(struct prow, f)

static const char *const agg_names[5] = { "mean", "median", "std", "min", "max" };

static double agg_at(const struct tl_agg *a, size_t i)
{
	return i == 0 ? a->mean : i == 1 ? a->median : i == 2 ? a->std : i == 3 ? a->min : a->max;
}

/* The first of a string column that pandas' "first" does not skip (NULL is
 * its None, which it does skip). */
static const char *first_arg(const struct psheet *s, const struct pgroup *g, size_t which)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (s->rows[g->rows[i]].args[which])
			return s->rows[g->rows[i]].args[which];
	return NULL;
}

static int build_sheet(struct psheet *s, struct tl_sheet **out)
{
	static const char *const args_first[4] = { "Input Dims_first", "Input type_first",
						   "Input Strides_first", "Concrete Inputs_first" };
	const char *cols[MAX_PCOLS + 48];
	char names[2][5][24], pnames[MAX_PCOLS][80];
	struct tl_cell row[MAX_PCOLS + 48];
	struct tl_sheet *sh = NULL;
	struct rpt_klist *kl = NULL;
	double *tmp = NULL;
	size_t nc = 0, i, j;
	int err;

	cols[nc++] = "name";
	for (i = 0; i < s->npcols; i++) {
		snprintf(pnames[i], sizeof(pnames[i]), "param: %s", s->pcols[i]);
		cols[nc++] = pnames[i];
	}
	/* the inference report groups by the call's kernel count after the
	 * parameters (group_by_num_kernels) and shows it there */
	if (s->inference)
		cols[nc++] = "num_kernels";
	/* summarize_df_perf_metrics groups by is_recompute after them */
	if (s->rc)
		cols[nc++] = "is_recompute";
	cols[nc++] = "GFLOPS_first";
	cols[nc++] = "Data Moved (MB)_first";
	cols[nc++] = "FLOPS/Byte_first";
	for (j = 0; j < 2; j++)
		for (i = 0; i < 5; i++) {
			snprintf(names[j][i], sizeof(names[j][i]), "%s_%s", j ? "TFLOPS/s" : "TB/s",
				 agg_names[i]);
			cols[nc++] = names[j][i];
		}
	cols[nc++] = "process_name_first";
	cols[nc++] = "process_label_first";
	cols[nc++] = "thread_name_first";
	cols[nc++] = "Compute Spec";
	cols[nc++] = "kernel_details__summarize_kernel_stats";
	cols[nc++] = "trunc_kernel_details";
	for (i = 0; i < 4; i++)
		cols[nc++] = args_first[i];
	cols[nc++] = "Kernel Time (µs)_mean";
	cols[nc++] = "Kernel Time (µs)_median";
	cols[nc++] = "Kernel Time (µs)_std";
	cols[nc++] = "Kernel Time (µs)_min";
	cols[nc++] = "Kernel Time (µs)_max";
	cols[nc++] = "Kernel Time (µs)_sum";
	cols[nc++] = "name_count";
	cols[nc++] = "UID_first";
	err = tl_sheet_new(s->name, nc, cols, &sh);
	if (err)
		goto out;
	err = -ENOMEM;
	tmp = malloc((s->nrows ? s->nrows : 1) * sizeof(*tmp));
	kl = malloc((s->nrows ? s->nrows : 1) * sizeof(*kl));
	if (!tmp || !kl)
		goto out;
	for (j = 0; j < s->ng; j++) {
		const struct pgroup *g = &s->g[j];
		const struct prow *r0 = &s->rows[g->first];
		char *kd = NULL, *tk = NULL;
		struct tl_agg a;
		size_t c = 0;

		if (!order_positions(s, g)) {
			kd = kernel_details(s, g, false, kl);
			tk = kernel_details(s, g, true, kl);
		}
		if (!kd || !tk) {
			free(kd);
			free(tk);
			goto out;
		}
		row[c++] = tl_cell_str(r0->name);
		for (i = 0; i < s->npcols; i++)
			row[c++] = tl_cell_str(pval(r0, s->pcols[i]));
		if (s->inference)
			row[c++] = tl_cell_int((long long)r0->nk);
		if (s->rc)
			row[c++] = tl_cell_bool(s->rc[r0->uid]);
		row[c++] = tl_cell_num(first_num(s, g, OFF(gflops)));
		row[c++] = tl_cell_num(first_num(s, g, OFF(mb)));
		row[c++] = tl_cell_num(first_num(s, g, OFF(fpb)));
		agg_col(s, g, OFF(tbs), tmp, &a);
		for (i = 0; i < 5; i++)
			row[c++] = tl_cell_num(agg_at(&a, i));
		agg_col(s, g, OFF(tflops), tmp, &a);
		for (i = 0; i < 5; i++)
			row[c++] = tl_cell_num(agg_at(&a, i));
		row[c++] = tl_cell_str(r0->pname);
		row[c++] = tl_cell_str(r0->plabel);
		row[c++] = tl_cell_str(r0->tname);
		row[c++] = tl_cell_str(r0->compute_spec);
		row[c++] = tl_cell_str(kd);
		row[c++] = tl_cell_str(tk);
		for (i = 0; i < 4; i++)
			row[c++] = tl_cell_str(first_arg(s, g, i));
		agg_col(s, g, OFF(kt), tmp, &a);
		for (i = 0; i < 5; i++)
			row[c++] = tl_cell_num(agg_at(&a, i));
		row[c++] = tl_cell_num(a.sum);
		row[c++] = tl_cell_int((long long)g->n);
		row[c++] = tl_cell_int((long long)r0->uid);
		err = tl_sheet_add_row(sh, row);
		free(kd);
		free(tk);
		if (err)
			goto out;
	}
	err = 0;
	*out = sh;
	sh = NULL;
out:
	free(kl);
	free(tmp);
	tl_sheet_free(sh);
	return err;
}

static void psheet_release(struct psheet *s)
{
	size_t i;

	for (i = 0; i < s->ng; i++)
		free(s->g[i].rows);
	free(s->g);
	s->g = NULL;
	s->ng = s->npcols = 0;
}

/* The rows of every class of sheet @name, by UID. */
static const char *sheet_of(const struct pm_class *c, bool inference)
{
	return inference ? pm_sheet_inference(c) : c->sheet;
}

/* The forward ops whose backward rows TraceLens drops again (its
 * fwd_op_names): the convolutions, whose backward ops have a sheet of
 * their own; and the one op it leaves out of the backward pass. */
static bool no_bwd_row(const char *name)
{
	static const char *const names[] = { "aten::convolution", "aten::miopen_convolution",
					     "aten::cudnn_convolution", "ConvBias_", "ConvBiasReLU_",
					     "vllm::unified_attention_with_output" };
	size_t i;

	for (i = 0; i < RPT_N(names); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* The rows of every class of sheet @name, by UID; with @bwd, the backward
 * rows of those of its forward ops that have backward ops linked to them
 * (TraceLens's build_df_perf_metrics with bwd=True), for sheet s->name. */
static int collect(struct tl_trace *tr, struct rpt_meta *meta, const char *name,
		   const struct pm_class **byuid_cls, const struct rpt_bwd *bwd, struct psheet *s)
{
	uint64_t uid, n = tl_trace_nevents(tr);
	size_t cap = 0;
	int err = 0;

	if (!bwd)
		s->name = name;
	for (uid = 0; uid < n && !err; uid++) {
		struct tl_event_info e;
		struct prow *r;
		uint64_t *ops = NULL;
		size_t nops = 0;

		if (!byuid_cls[uid] || strcmp(sheet_of(byuid_cls[uid], s->inference), name))
			continue;
		if (bwd && !rpt_bwd_direct(bwd, uid))
			continue;
		if (s->nrows == cap) {
			struct prow *v = realloc(s->rows, (cap ? 2 * cap : 64) * sizeof(*v));

			if (!v)
				return -ENOMEM;
			s->rows = v;
			cap = cap ? 2 * cap : 64;
		}
		r = &s->rows[s->nrows];
		memset(r, 0, sizeof(*r));
		err = tl_trace_event(tr, uid, &e);
		if (err)
			break;
		r->uid = uid;
		err = prow_set_name(tr, r, e.name);
		if (err)
			break;
		r->cls = byuid_cls[uid];
		rpt_meta_names(meta, e.pid, e.tid, &r->pname, &r->plabel, &r->tname);
		s->nrows++;
		if (bwd && no_bwd_row(r->name)) {
			prow_release(r);
			s->nrows--;
			continue;
		}
		if (bwd && !(err = rpt_bwd_subtree(bwd, tr, uid, &ops, &nops)))
			err = prow_fill_bwd(tr, r, ops, nops);
		else if (!bwd)
			err = prow_fill(tr, r);
		free(ops);
		/* TraceLens's build_df_perf_metrics skips a call whose model
		 * raises: its sheets have no row for it */
		if (!err && r->nomodel) {
			if (!s->nomodel++)
				memcpy(s->first_why, r->why, sizeof(s->first_why));
			prow_release(r);
			s->nrows--;
		}
	}
	return err;
}

/* The class of every op event (NULL for the rest), found once per name. */
static int classify(struct tl_trace *tr, const struct pm_class ***out, size_t *ncalls)
{
	uint64_t uid, n = tl_trace_nevents(tr);
	const struct pm_class **v = calloc(n ? n : 1, sizeof(*v));
	const char *last_name = NULL;
	const struct pm_class *last = NULL;

	*out = v;
	*ncalls = 0;
	if (!v)
		return -ENOMEM;
	for (uid = 0; uid < n; uid++) {
		struct tl_event_info e;

		if (tl_trace_event(tr, uid, &e) || e.kind != TL_KIND_CPU_OP)
			continue;
		/* names are interned: the same op is the same pointer */
		if (e.name != last_name) {
			char buf[256];

			last_name = e.name;
			/* under the inference view, sglang_profiler's ops are
			 * modelled without their call counter */
			last = pm_class_of(tl_op_view_name(tr, e.name, buf, sizeof(buf)));
			/* a class without a sheet (the fused Triton kernels)
			 * has its rows in unified_perf_summary only */
			if (last && !last->sheet)
				last = NULL;
		}
		v[uid] = last;
		*ncalls += !!last;
	}
	return 0;
}

int rpt_perf_sheets(struct tl_trace *tr, bool inference, bool recompute, struct tl_sheet ***list,
		    size_t *n)
{
	const struct pm_class *classes[MAX_CLASSES], **byuid = NULL;
	size_t ncls = pm_class_list(classes, MAX_CLASSES), ncalls, i, j;
	struct rpt_meta *meta = NULL;
	struct rpt_bwd *bi = NULL;
	struct psheet s = { .inference = inference };
	char bwd_name[64];
	int pass;
	uint8_t *rc = NULL;
	const char *name;
	int err;

	if (ncls > MAX_CLASSES)
		ncls = MAX_CLASSES;
	err = classify(tr, &byuid, &ncalls);
	if (err || !ncalls)
		goto out;
	err = rpt_meta_load(tr, &meta);
	if (!err && recompute)
		err = tl_recompute_flags(tr, &rc);
	if (!err)
		err = rpt_bwd_index(tr, &bi);
	if (err)
		goto out;
	s.rc = rc;
	for (i = 0; i < ncls && !err; i++) {
		struct tl_sheet *sh = NULL, **v;

		/* each sheet once, where its first class is */
		name = sheet_of(classes[i], inference);
		for (j = 0; j < i; j++)
			if (!strcmp(sheet_of(classes[j], inference), name))
				break;
		if (j < i)
			continue;
		/* the sheet, then for an X_fwd sheet its X_bwd (TraceLens splits
		 * every family but GEMM, elementwise and normalization so) */
		for (pass = 0; pass < 2 && !err; pass++) {
			size_t len = strlen(name);

			if (pass && (!bi || len < 4 || strcmp(name + len - 4, "_fwd") ||
				     len >= sizeof(bwd_name)))
				break;
			if (pass) {
				snprintf(bwd_name, sizeof(bwd_name), "%.*s_bwd", (int)(len - 4), name);
				s.name = bwd_name;
			}
			sh = NULL;
			err = collect(tr, meta, name, byuid, pass ? bi : NULL, &s);
			if (!err && s.nrows)
				err = group_rows(&s);
			if (!err && s.nrows)
				err = build_sheet(&s, &sh);
			if (!err && sh) {
				v = realloc(*list, (*n + 1) * sizeof(*v));
				if (!v) {
					tl_sheet_free(sh);
					err = -ENOMEM;
				} else {
					*list = v;
					v[(*n)++] = sh;
				}
			}
			psheet_release(&s);
			for (j = 0; j < s.nrows; j++)
				prow_release(&s.rows[j]);
			s.nrows = 0;
		}
	}
	/* one line for them all: a trace without shapes has one per op */
	if (!err && s.nomodel)
		tl_log(TL_LOG_WARN, "perf report: %zu call(s) the perf models cannot read have no row (%s%s)",
		       s.nomodel, s.first_why, s.nomodel > 1 ? "; TLREPLAY_LOG_LEVEL=info lists each" : "");
out:
	rpt_bwd_free(bi);
	free(rc);
	free(s.rows);
	rpt_meta_free(meta);
	free(byuid);
	return err;
}
