/* SPDX-License-Identifier: MIT */
/* The chart of `tlreplay diff --chart` (diff-chart.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart/chart-svg.h"
#include "util/cli.h"
#include "chart/diff-chart.h"

#define LABEL_W 330.0		/* op names left of the bars */
#define CHANGE_W 190.0		/* the change right of them */
#define PLOT_X (CH_MARGIN + LABEL_W)
#define PLOT_W (CH_W - CH_MARGIN - CHANGE_W - PLOT_X)
#define BAR_H 11.0
#define ROW_H (2 * BAR_H + 12)
#define C_BASE "#3b6fb6"	/* baseline: blue */
#define C_VAR "#e08a2e"		/* variant: orange */
#define C_LESS "#2f8f4e"	/* less GPU time: green */
#define C_MORE "#c0392b"	/* more: red */

static double header(FILE *f, const char *const tags[2], const double total_ms[2], size_t n)
{
	char line[512];
	double y = CH_MARGIN + 20, x = CH_MARGIN;
	int s;

	svg_text(f, CH_MARGIN, y, "start", "title", FS_TITLE, 0, NULL,
		 "tlreplay diff: GPU time of the ops that changed most");
	snprintf(line, sizeof(line), "%s: %.3f ms of GPU time \xc2\xb7 %s: %.3f ms (%+.1f%%) \xc2\xb7 top %zu ops by change",
		 tags[0], total_ms[0], tags[1], total_ms[1],
		 total_ms[0] > 0 ? 100 * (total_ms[1] - total_ms[0]) / total_ms[0] : 0.0, n);
	y += 20;
	svg_text(f, CH_MARGIN, y, "start", "sub", FS_SUB, CH_W - 2 * CH_MARGIN, NULL, line);
	y += 22;
	for (s = 0; s < 2; s++) {
		svg_rect(f, x, y - 10, 12, 12, s ? C_VAR : C_BASE);
		snprintf(line, sizeof(line), "%s (%s)", tags[s], s ? "variant" : "baseline");
		svg_text(f, x + 16, y, "start", "lbl", FS_LBL, 0, NULL, line);
		x += 16 + svg_text_width(line, FS_LBL) + 18;
	}
	return y + 16;
}

int diff_chart_write(const char *path, const struct diff_chart_row *rows, size_t n,
		     const char *const tags[2], const double total_ms[2])
{
	char *body = NULL, *doc = NULL, buf[96], t[32];
	size_t blen = 0, dlen = 0, i;
	double y, max = 0, step, end, v, top;
	FILE *f = NULL;
	int ret = 1, s;

	for (i = 0; i < n; i++) {
		if (isfinite(rows[i].base_ms) && rows[i].base_ms > max)
			max = rows[i].base_ms;
		if (isfinite(rows[i].var_ms) && rows[i].var_ms > max)
			max = rows[i].var_ms;
	}
	nice_ticks(max > 0 ? max : 1, &step, &end);
	f = open_memstream(&body, &blen);
	if (!f)
		return cli_error("diff: --chart: out of memory");
	y = header(f, tags, total_ms, n);
	top = y + 18;
	/* the time axis: ticks at the top, grid lines through every row */
	for (v = 0; v <= end + step / 2; v += step) {
		double x = PLOT_X + v / end * PLOT_W;

		svg_line(f, x, top - 4, x, top + (double)n * ROW_H, CH_GRID, 1, NULL);
		fmt_time_us(t, sizeof(t), v * 1e3);
		svg_text(f, x, top - 8, "middle", "tick", FS_SMALL, 0, NULL, v == 0 ? "0" : t);
	}
	svg_text(f, CH_W - CH_MARGIN, top - 8, "end", "tick", FS_SMALL, 0, NULL, "change");
	for (i = 0; i < n; i++) {
		const struct diff_chart_row *r = &rows[i];
		double ry = top + (double)i * ROW_H + 4, d;

		if (i % 2)
			svg_rect(f, CH_MARGIN, ry - 3, CH_W - 2 * CH_MARGIN, ROW_H, CH_STRIPE);
		svg_label(f, CH_MARGIN, ry + BAR_H + 5, "lbl", FS_LBL, LABEL_W - 10, r->name);
		for (s = 0; s < 2; s++) {
			double ms = s ? r->var_ms : r->base_ms, by = ry + s * BAR_H;

			if (!isfinite(ms)) {
				svg_text(f, PLOT_X + 4, by + BAR_H - 2, "start", "note", FS_SMALL, 0, NULL,
					 s ? "not in the variant" : "not in the baseline");
				continue;
			}
			svg_bar(f, PLOT_X, by, fmax(ms / end * PLOT_W, 1), BAR_H - 1, s ? C_VAR : C_BASE,
				s ? "variant" : "baseline");
			fmt_time_us(t, sizeof(t), ms * 1e3);
			svg_text(f, PLOT_X + ms / end * PLOT_W + 4, by + BAR_H - 2, "start", "val", FS_SMALL,
				 0, NULL, t);
		}
		d = (isfinite(r->var_ms) ? r->var_ms : 0) - (isfinite(r->base_ms) ? r->base_ms : 0);
		fmt_time_us(t, sizeof(t), fabs(d) * 1e3);
		if (isfinite(r->base_ms) && isfinite(r->var_ms) && r->base_ms > 0)
			snprintf(buf, sizeof(buf), "%s%s (%+.1f%%)", d < 0 ? "\xe2\x88\x92" : "+", t,
				 100 * d / r->base_ms);
		else
			snprintf(buf, sizeof(buf), "%s%s", d < 0 ? "\xe2\x88\x92" : "+", t);
		svg_text(f, CH_W - CH_MARGIN, ry + BAR_H + 5, "end", "lbl", FS_LBL, 0,
			 d < 0 ? "style=\"fill:" C_LESS "\"" : "style=\"fill:" C_MORE "\"", buf);
	}
	y = top + (double)n * ROW_H + 10;
	svg_text(f, CH_MARGIN, y + 8, "start", "cap", FS_SMALL, 0, NULL,
		 "GPU time = the op's direct kernel time summed over its calls (ops_summary); "
		 "rows by the size of the change, largest first");
	y += 14;
	if (fclose(f) || !(f = open_memstream(&doc, &dlen))) {
		f = NULL;
		ret = cli_error("diff: --chart: out of memory");
		goto out;
	}
	svg_begin(f, CH_W, ceil(y + CH_MARGIN));
	fwrite(body, 1, blen, f);
	svg_end(f);
	ret = fclose(f) ? cli_error("diff: --chart: out of memory") : chart_render(path, doc, dlen);
	f = NULL;
out:
	free(doc);
	free(body);
	return ret;
}
