/* SPDX-License-Identifier: MIT */
/* tl_report_build(): TraceLens's perf report of a PyTorch trace, sheet by
 * sheet in the order its generate_perf_report_pytorch writes them. */
#include <errno.h>
#include <stdlib.h>

#include <tlreplay/report_sheets.h>

#include "report/report_internal.h"

static int push(struct tl_report *r, struct tl_sheet *sh)
{
	struct tl_sheet **v = realloc(r->v, (r->n + 1) * sizeof(*v));

	if (!v) {
		tl_sheet_free(sh);
		return -ENOMEM;
	}
	r->v = v;
	r->v[r->n++] = sh;
	return 0;
}

static void progress(const struct tl_report_opts *o, const char *sheet)
{
	if (o->progress)
		o->progress(sheet, o->progress_ctx);
}

/* The sheets of the ops: by category, by name, by recorded args. TraceLens
 * leaves out an empty one, and all three for a trace without CPU ops. */
static int op_sheets(struct tl_trace *tr, const struct tl_report_opts *o, struct tl_report *r,
		     bool *gpu_only)
{
	struct tl_launcher_opts lo = { .sz = sizeof(lo), .include_nccl = o->include_nccl,
				       .detect_recompute = o->split_recompute,
				       .with_python = o->by_module };
	struct tl_ops_opts oo = { .sz = sizeof(oo), .split_recompute = o->split_recompute,
				  .by_module = o->by_module, .include_nccl = o->include_nccl };
	struct tl_launcher_group_opts go = { .sz = sizeof(go), .include_nccl = o->include_nccl,
					     .by_thread = true };
	struct tl_launcher_group_set *gs = NULL;
	struct tl_launcher_set *ls = NULL;
	struct tl_op_table *ot = NULL;
	struct tl_sheet *sh = NULL;
	struct rpt_meta *meta = NULL;
	uint64_t kinds[TL_KIND_COUNT];
	int err;

	progress(o, "ops_summary");
	/* no cpu_op at all: a GPU-only trace, which gets none of these */
	tl_trace_kind_counts(tr, kinds);
	*gpu_only = !kinds[TL_KIND_CPU_OP];
	if (*gpu_only)
		return 0;
	err = tl_launchers(tr, &lo, &ls);
	if (err || !ls->n)
		goto out;
	err = tl_ops_summary(tr, &oo, &ot);
	if (err)
		goto out;
	if (o->by_module)
		err = rpt_sheet_by_category_module(ot, &sh);
	else
		err = tl_sheet_ops_by_category(ls, o->split_recompute, &sh);
	if (!err)
		err = push(r, sh);
	if (!err)
		err = tl_sheet_ops_summary(ot, &oo, &sh);
	/* the command prints ex_UID beside the sheet's columns; the report
	 * writes TraceLens's (its inference variant keeps none either) */
	if (!err)
		err = rpt_sheet_drop_col(sh, "ex_UID");
	if (!err)
		err = push(r, sh);
	if (err)
		goto out;
	progress(o, "ops_unique_args");
	err = tl_launcher_groups(tr, &go, &gs);
	if (!err && gs->n)
		err = rpt_meta_load(tr, &meta);
	if (!err && gs->n) {
		err = o->split_recompute ? rpt_sheet_unique_args_recompute(gs, ls, tr, meta, &sh)
					 : rpt_sheet_unique_args(gs, NULL, tr, meta, &sh);
		if (!err)
			err = push(r, sh);
	}
out:
	rpt_meta_free(meta);
	tl_launcher_group_set_free(gs);
	tl_op_table_free(ot);
	tl_launcher_set_free(ls);
	return err;
}

int tl_report_build(struct tl_trace *tr, const struct tl_report_opts *opts, struct tl_report **out)
{
	static const struct tl_report_opts none = { .sz = sizeof(none) };
	const struct tl_report_opts *o = opts ? opts : &none;
	struct tl_breakdown_opts bo = { .sz = sizeof(bo), .split_recompute = o->split_recompute };
	struct tl_breakdown_set *bd = NULL;
	struct tl_kernel_table *kt = NULL;
	struct tl_report *r;
	struct tl_sheet *sh = NULL, *sum = NULL;
	bool gpu_only = false;
	int err;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	progress(o, "gpu_timeline");
	err = tl_breakdown(tr, &bo, &bd);
	if (!err)
		err = tl_sheet_gpu_timeline(bd, TL_BD_GROUP_NONE, o->split_recompute, &sh);
	if (!err)
		err = push(r, sh);
	if (!err)
		err = op_sheets(tr, o, r, &gpu_only);
	if (!err && o->perf_models && !gpu_only) {
		progress(o, "perf models");
		err = rpt_perf_sheets(tr, o->by_module, o->split_recompute, &r->v, &r->n);
	}
	if (!err && o->kernel_summary) {
		progress(o, "kernel_summary");
		err = tl_kernel_summary(tr, &kt);
		if (!err)
			err = tl_sheet_kernel_summary(kt, &sh);
		if (!err)
			err = push(r, sh);
	}
	if (!err && o->short_kernels) {
		progress(o, "short kernels");
		err = tl_sheet_short_kernel_histogram(tr, NULL, &sh);
		if (!err)
			err = push(r, sh);
		if (!err)
			err = tl_sheet_short_kernels_summary(tr, NULL, &sum);
		/* TraceLens writes no summary when no kernel is short */
		if (!err && tl_sheet_nrows(sum))
			err = push(r, sum);
		else
			tl_sheet_free(sum);
	}
	if (err)
		goto out;
	*out = r;
	r = NULL;
out:
	tl_kernel_table_free(kt);
	tl_breakdown_free(bd);
	tl_report_free(r);
	return err;
}

void tl_report_free(struct tl_report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++)
		tl_sheet_free(r->v[i]);
	free(r->v);
	free(r);
}
