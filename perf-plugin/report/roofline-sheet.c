/* SPDX-License-Identifier: MIT */
/* roofline.csv's rows as the roofline chart's points (roofline-sheet.h). */
#include <math.h>
#include <stdlib.h>

#include "report/roofline-sheet.h"

struct roofline_point *roofline_points_of_sheet(const struct tl_sheet *rf)
{
	size_t n = tl_sheet_nrows(rf), i;
	struct roofline_point *pts = calloc(n ? n : 1, sizeof(*pts));

	if (!pts)
		return NULL;
	for (i = 0; i < n; i++) {
		double gflops = tl_sheet_num(rf, i, "GFLOPS"), kt = tl_sheet_num(rf, i, "Kernel Time (µs)_mean");

		pts[i].intensity = tl_sheet_num(rf, i, "FLOPS/Byte");
		pts[i].flops_per_s = kt > 0 ? gflops * 1e9 / (kt * 1e-6) : NAN;
		pts[i].gpu_us = tl_sheet_num(rf, i, "Kernel Time (µs)_sum");
		pts[i].category = tl_sheet_str(rf, i, "sheet");
		pts[i].spec = tl_sheet_str(rf, i, "Compute Spec");
		pts[i].label = tl_sheet_str(rf, i, "name");
	}
	return pts;
}
