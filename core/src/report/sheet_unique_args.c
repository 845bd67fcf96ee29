/* SPDX-License-Identifier: MIT */
/* ops_unique_args: kernel launchers that recorded the same arguments, with
 * the aggregates of their direct and subtree GPU times. */
#include <errno.h>
#include <stdlib.h>

#include "report/report_internal.h"

int tl_sheet_ops_unique_args(const struct tl_launcher_group_set *set, struct tl_sheet **out)
{
	static const char *const cols[] = {
		"name", "op category", "pid", "tid", "Input Dims", "Input type", "Input Strides",
		"Concrete Inputs", "operation_count",
		"total_direct_kernel_time_mean", "total_subtree_kernel_time_mean",
		"total_direct_kernel_time_median", "total_subtree_kernel_time_median",
		"total_direct_kernel_time_std", "total_subtree_kernel_time_std",
		"total_direct_kernel_time_min", "total_subtree_kernel_time_min",
		"total_direct_kernel_time_max", "total_subtree_kernel_time_max",
		"total_direct_kernel_time_sum", "total_subtree_kernel_time_sum", "ex_UID",
		"Percentage (%)", "Cumulative Percentage (%)",
	};
	struct tl_cell row[RPT_N(cols)];
	char *text[4] = { 0 };
	struct tl_sheet *sh = NULL;
	double total = 0, cum = 0;
	size_t i, j;
	int err;

	err = tl_sheet_new("ops_unique_args", RPT_N(cols), cols, &sh);
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
		row[c++] = tl_cell_str(g->pid);
		row[c++] = tl_cell_str(g->tid);
		for (j = 0; j < 4; j++) {
			text[j] = rpt_pyrepr_json(f[j]);
			if (!text[j]) {
				err = -ENOMEM;
				goto out;
			}
			row[c++] = tl_cell_str(text[j]);
		}
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
		row[c++] = tl_cell_num(pct);
		row[c++] = tl_cell_num(cum);
		err = tl_sheet_add_row(sh, row);
		for (j = 0; j < 4; j++) {
			free(text[j]);
			text[j] = NULL;
		}
		if (err)
			goto out;
	}
	*out = sh;
	sh = NULL;
out:
	for (j = 0; j < 4; j++)
		free(text[j]);
	tl_sheet_free(sh);
	return err;
}
