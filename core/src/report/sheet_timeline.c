/* SPDX-License-Identifier: MIT */
/* gpu_timeline: TraceLens's eight rows of where the GPU time went, one block
 * per breakdown (device, stream or recompute split). */
#include <errno.h>

#include "report/report_internal.h"

int tl_sheet_gpu_timeline(const struct tl_breakdown_set *set, enum tl_bd_group group,
			  bool split_recompute, struct tl_sheet **out)
{
	const char *cols[6];
	struct tl_cell row[6];
	struct tl_sheet *sh = NULL;
	size_t nc = 0, i;
	int r, err;

	if (group != TL_BD_GROUP_NONE)
		cols[nc++] = "device";
	if (group == TL_BD_GROUP_STREAM)
		cols[nc++] = "stream";
	cols[nc++] = "type";
	cols[nc++] = "time ms";
	cols[nc++] = "percent";
	if (split_recompute)
		cols[nc++] = "is_recompute";
	err = tl_sheet_new("gpu_timeline", nc, cols, &sh);
	if (err)
		return err;
	for (i = 0; set && i < set->n && !err; i++) {
		const struct tl_breakdown *bd = &set->v[i];
		double total = bd->us[TL_BD_TOTAL];

		for (r = 0; r < TL_BD_NROWS && !err; r++) {
			size_t c = 0;

			if (group != TL_BD_GROUP_NONE)
				row[c++] = tl_cell_str(bd->device ? bd->device : "");
			if (group == TL_BD_GROUP_STREAM)
				row[c++] = tl_cell_str(bd->stream ? bd->stream : "");
			row[c++] = tl_cell_str(tl_bd_row_name(r));
			row[c++] = tl_cell_num(bd->us[r] / 1e3);
			/* an empty timeline is 0 %, not NaN, as the command always printed */
			row[c++] = tl_cell_num(total > 0 ? bd->us[r] / total * 100 : 0);
			if (split_recompute)
				row[c++] = tl_cell_bool(bd->recompute > 0);
			err = tl_sheet_add_row(sh, row);
		}
	}
	return rpt_sheet_done(sh, err, out);
}
