/* SPDX-License-Identifier: MIT */
/* The chart of `tlreplay diff --chart`: the ops whose GPU time changed most
 * between the baseline and the variant, one row each, largest change first:
 * the baseline's bar over the variant's on one time axis, the change on the
 * right (green for less time, red for more). Drawn with the sweep chart's
 * SVG primitives (chart-svg.h); PNG through rsvg-convert. */
#ifndef TLREPLAY_DIFF_CHART_H
#define TLREPLAY_DIFF_CHART_H

#include <stddef.h>

struct diff_chart_row {
	const char *name;
	double base_ms, var_ms;		/* NaN: that side does not have the op */
};

/*
 * Draw @rows[0..n) (in the order given) into @path (.svg, or .png with
 * rsvg-convert), replaced atomically. @tags: the two reports' names;
 * @total_ms: each side's total GPU time (the title line says it).
 * Returns 0, or 1 after printing why with cli_error().
 */
int diff_chart_write(const char *path, const struct diff_chart_row *rows, size_t n,
		     const char *const tags[2], const double total_ms[2]);

#endif
