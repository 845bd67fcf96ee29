/* SPDX-License-Identifier: MIT */
/* ops_unique_args: kernel launchers that recorded the same arguments, with
 * the aggregates of their direct and subtree GPU times. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/tree.h>

#include "report/report_internal.h"

/* The kernels of each launcher of @g (those it launched, by ts), as
 * TraceLens's kernel_details_summary and trunc_kernel_details show them. */
static int kernel_cells(const struct tl_trace *tr, const struct tl_launcher_group *g, char **kd,
			char **tk)
{
	struct rpt_klist *kl = calloc(g->count ? g->count : 1, sizeof(*kl));
	size_t i;
	int err = -ENOMEM;

	if (!kl)
		return -ENOMEM;
	for (i = 0; i < g->count; i++) {
		struct prow r = { .uid = g->uids[i] };

		/* prow_fill's first half: the kernels, without the model */
		err = rpt_kernels_of(tr, &r, true);
		kl[i].k = r.k;
		kl[i].nk = r.nk;
		if (err)
			goto out;
	}
	err = -ENOMEM;
	*kd = rpt_kernel_stats(kl, g->count, false);
	*tk = rpt_kernel_stats(kl, g->count, true);
	if (*kd && *tk)
		err = 0;
out:
	for (i = 0; i < g->count; i++) {
		struct prow r = { .k = (struct pkernel *)kl[i].k, .nk = kl[i].nk };

		prow_release(&r);
	}
	free(kl);
	return err;
}

/* @tr NULL: the command's form (pid, tid); else TraceLens's (process and
 * thread names from @meta, the kernel details). */
static int build(const struct tl_launcher_group_set *set, const signed char *recompute,
		 const struct tl_trace *tr, struct rpt_meta *meta, struct tl_sheet **out)
{
	static const char *const tl_cols[] = {
		"name", "op category", "process_name", "process_label", "thread_name", "Input Dims",
		"Input type", "Input Strides", "Concrete Inputs", "operation_count",
		"total_direct_kernel_time_mean", "total_subtree_kernel_time_mean",
		"total_direct_kernel_time_median", "total_subtree_kernel_time_median",
		"total_direct_kernel_time_std", "total_subtree_kernel_time_std",
		"total_direct_kernel_time_min", "total_subtree_kernel_time_min",
		"total_direct_kernel_time_max", "total_subtree_kernel_time_max",
		"total_direct_kernel_time_sum", "total_subtree_kernel_time_sum", "ex_UID",
		"kernel_details_summary", "trunc_kernel_details",
		"Percentage (%)", "Cumulative Percentage (%)",
	};
	const char *cols[RPT_N(tl_cols) + 1];	/* + is_recompute */
	struct tl_cell row[RPT_N(tl_cols) + 1];
	char *text[4] = { 0 }, *kd = NULL, *tk = NULL;
	struct tl_sheet *sh = NULL;
	double total = 0, cum = 0;
	size_t i, j, nc = 0;
	int err;

	/* the command's form: pid and tid for the three names, no kernel details */
	for (i = 0; i < RPT_N(tl_cols); i++) {
		const char *c = tl_cols[i];

		if (!tr && (!strcmp(c, "process_label") || strstr(c, "kernel_details")))
			continue;
		if (!tr && !strcmp(c, "process_name"))
			c = "pid";
		else if (!tr && !strcmp(c, "thread_name"))
			c = "tid";
		cols[nc++] = c;
		/* the recompute report groups by is_recompute too */
		if (recompute && !strcmp(c, "Concrete Inputs"))
			cols[nc++] = "is_recompute";
	}
	err = tl_sheet_new("ops_unique_args", nc, cols, &sh);
	if (err)
		goto out;
	for (i = 0; i < set->n; i++)
		total += set->v[i].direct.sum;
	for (i = 0; i < set->n; i++) {
		const struct tl_launcher_group *g = &set->v[i];
		const char *f[4] = { g->input_dims, g->input_type, g->input_strides, g->concrete_inputs };
		const struct tl_time_agg *a[2] = { &g->direct, &g->subtree };
		double pct = total > 0 ? 100 * g->direct.sum / total : 0;
		size_t c = 0;

		cum += pct;
		row[c++] = tl_cell_str(g->name);
		row[c++] = tl_cell_str(g->category);
		if (tr) {
			const char *pn, *pl, *tn;

			rpt_meta_names(meta, g->pid, g->tid, &pn, &pl, &tn);
			row[c++] = tl_cell_str(pn);
			row[c++] = tl_cell_str(pl);
			row[c++] = tl_cell_str(tn);
		} else {
			row[c++] = tl_cell_str(g->pid);
			row[c++] = tl_cell_str(g->tid);
		}
		for (j = 0; j < 4; j++) {
			text[j] = rpt_pyrepr_json(f[j]);
			if (!text[j]) {
				err = -ENOMEM;
				goto out;
			}
			row[c++] = tl_cell_str(text[j]);
		}
		if (recompute)
			row[c++] = tl_cell_bool(recompute[i]);
		row[c++] = tl_cell_int((long long)g->count);
		/* mean, median, std, min, max: direct then subtree for each */
		for (j = 0; j < 10; j++) {
			const struct tl_time_agg *t = a[j % 2];

			row[c++] = tl_cell_num(j < 2 ? t->mean : j < 4 ? t->median : j < 6 ? t->std
					       : j < 8 ? t->min : t->max);
		}
		row[c++] = tl_cell_num(g->direct.sum);
		row[c++] = tl_cell_num(g->subtree.sum);
		row[c++] = tl_cell_int((long long)g->ex_uid);
		if (tr) {
			err = kernel_cells(tr, g, &kd, &tk);
			if (err)
				goto out;
			row[c++] = tl_cell_str(kd);
			row[c++] = tl_cell_str(tk);
		}
		row[c++] = tl_cell_num(pct);
		row[c++] = tl_cell_num(cum);
		err = tl_sheet_add_row(sh, row);
		for (j = 0; j < 4; j++) {
			free(text[j]);
			text[j] = NULL;
		}
		free(kd);
		free(tk);
		kd = tk = NULL;
		if (err)
			goto out;
	}
	*out = sh;
	sh = NULL;
out:
	for (j = 0; j < 4; j++)
		free(text[j]);
	free(kd);
	free(tk);
	tl_sheet_free(sh);
	return err;
}

int tl_sheet_ops_unique_args(const struct tl_launcher_group_set *set, struct tl_sheet **out)
{
	return build(set, NULL, NULL, NULL, out);
}

int rpt_sheet_unique_args(const struct tl_launcher_group_set *set, const signed char *recompute,
			  const struct tl_trace *tr, struct rpt_meta *meta, struct tl_sheet **out)
{
	return build(set, recompute, tr, meta, out);
}
