/* SPDX-License-Identifier: MIT */
/* The roofline chart's points (chart-roofline.h) of the report's roofline
 * sheet (tl_sheet_roofline()): one reading of the sheet for the --roofline
 * file and the HTML report's chart, so both draw the same numbers. */
#ifndef TLREPLAY_ROOFLINE_SHEET_H
#define TLREPLAY_ROOFLINE_SHEET_H

#include <stddef.h>

#include <tlreplay/report.h>

#include "chart/chart-roofline.h"

/* One point per row of @rf: category = its perf sheet, area = its Kernel
 * Time sum, intensity and FLOP/s as the sheet has them; the strings are the
 * sheet's. Returns a malloc'ed array of tl_sheet_nrows(@rf) points (at
 * least one element, so that an empty sheet is no error), NULL when out of
 * memory. */
struct roofline_point *roofline_points_of_sheet(const struct tl_sheet *rf);

#endif
