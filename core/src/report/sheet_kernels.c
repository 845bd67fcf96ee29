/* SPDX-License-Identifier: MIT */
/* kernel_summary: kernels grouped by parent op category, parent cpu_op, name
 * and stream, as TraceLens's --kernel_summary sheet. */
#include <errno.h>
#include <math.h>

#include "report/report_internal.h"

/* A share that TraceLens leaves NaN when there is nothing to divide by; the
 * command has always written it as Python prints NaN. */
static struct tl_cell pct_cell(double v)
{
	return isnan(v) ? tl_cell_str("nan") : tl_cell_num(v);
}

int tl_sheet_kernel_summary(const struct tl_kernel_table *t, struct tl_sheet **out)
{
	static const char *const all[] = {
		"Parent op category", "Parent cpu_op", "Kernel name", "Kernel stream",
		"Kernel duration (µs)_sum", "Kernel duration (µs)_count",
		"Kernel duration (µs)_mean", "Kernel duration (µs)_min",
		"Kernel duration (µs)_max", "Percent of kernels time (%)",
		"Percent of total time (%)",
	};
	const char *cols[RPT_N(all)];
	struct tl_cell row[RPT_N(all)];
	struct tl_sheet *sh = NULL;
	size_t nc = 0, i;
	int err;

	/* a GPU-only trace has no cpu_op: TraceLens drops the column */
	for (i = 0; i < RPT_N(all); i++)
		if (i != 1 || t->has_parent_op)
			cols[nc++] = all[i];
	err = tl_sheet_new("kernel_summary", nc, cols, &sh);
	if (err)
		return err;
	for (i = 0; i < t->n; i++) {
		const struct tl_kernel_row *r = &t->v[i];
		size_t c = 0;

		row[c++] = tl_cell_str(r->category);
		if (t->has_parent_op)
			row[c++] = tl_cell_str(r->parent_op);
		row[c++] = tl_cell_str(r->name);
		row[c++] = r->stream == TL_NOID ? tl_cell_empty() : tl_cell_int(r->stream);
		row[c++] = tl_cell_num(r->sum_us);
		row[c++] = tl_cell_int((long long)r->count);
		row[c++] = tl_cell_num(r->mean_us);
		row[c++] = tl_cell_num(r->min_us);
		row[c++] = tl_cell_num(r->max_us);
		row[c++] = pct_cell(r->pct_kernels);
		row[c++] = pct_cell(r->pct_total);
		err = tl_sheet_add_row(sh, row);
		if (err)
			break;
	}
	return rpt_sheet_done(sh, err, out);
}
