/* SPDX-License-Identifier: MIT */
/* The sweep chart (sweep-chart.h): the page layout, the time panel and the
 * counter panels; the roofline is in chart-roofline.c, the file output in
 * chart-render.c.
 *
 * Layout, top to bottom on a 1200 px page: title and subtitle; "Time per
 * call", one 40 px row per op with two bars on a log axis (replay median,
 * trace GPU time); the roofline; the counters, small panels three abreast
 * that name ops by their rank in the time panel. Rows have fixed heights and
 * every label is cut to its column with an ellipsis, so nothing overlaps
 * whatever the names. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart/chart-svg.h"
#include "util/cli.h"

/* The time panel's columns. */
#define T_ROW 40.0
#define T_RANK_X (CH_MARGIN + 20)	/* right edge of the rank */
#define T_LABEL_X (CH_MARGIN + 28)
#define T_BAR_X0 390.0
#define T_BAR_X1 (CH_W - CH_MARGIN - 104)	/* then "123 ms (12.3×)" */
#define T_BAR_H 12.0

/* The counter panels. */
#define C_COLS 3
#define C_GAP 24.0
#define C_ROW 18.0
#define C_LABEL_W 126.0
#define C_VAL_W 48.0

/* Sort key: a time, missing ones last. */
static double sort_key(double v)
{
	return isfinite(v) && v >= 0 ? v : -1;
}

/* Descending trace GPU time, then replay time, then label. */
static int row_cmp(const void *pa, const void *pb)
{
	const struct chart_op *a = ((const struct chart_row *)pa)->op, *b = ((const struct chart_row *)pb)->op;

	if (sort_key(a->trace_gpu_us) != sort_key(b->trace_gpu_us))
		return sort_key(a->trace_gpu_us) < sort_key(b->trace_gpu_us) ? 1 : -1;
	if (sort_key(a->replay_us) != sort_key(b->replay_us))
		return sort_key(a->replay_us) < sort_key(b->replay_us) ? 1 : -1;
	return strcmp(a->label ? a->label : "", b->label ? b->label : "");
}

/* "3 addmm" for "aten::addmm (uid 48)": where the rank identifies the op,
 * neither the aten:: that most ops share nor the uid is worth the room. */
static void short_label(char *buf, size_t n, const struct chart_row *r)
{
	const char *l = r->op->label ? r->op->label : "?", *uid;
	int len;

	l += strncmp(l, "aten::", 6) ? 0 : 6;
	uid = strstr(l, " (uid ");
	len = uid ? (int)(uid - l) : (int)strlen(l);
	snprintf(buf, n, "%d %.*s", r->rank, len, l);
}

/* ------------------------------------------------------------------ header */

static double header(FILE *f, const struct chart_opts *o, size_t n)
{
	char line[64];

	svg_text(f, CH_MARGIN, 34, "start", "title", FS_TITLE, CH_W - 2 * CH_MARGIN - 120, NULL,
		 o->title ? o->title : "tlreplay sweep");
	if (o->noun)
		snprintf(line, sizeof(line), "%zu %s", n, o->noun);
	else
		snprintf(line, sizeof(line), "%zu op%s", n, n == 1 ? "" : "s");
	svg_text(f, CH_W - CH_MARGIN, 34, "end", "sub", FS_SUB, 0, NULL, line);
	if (o->subtitle && *o->subtitle)
		svg_text(f, CH_MARGIN, 56, "start", "sub", FS_SUB, CH_W - 2 * CH_MARGIN, NULL, o->subtitle);
	return 72;
}

/* ------------------------------------------------------------------ time panel */

struct log_axis {
	int e0, e1;		/* decades 10^e0 .. 10^e1 microseconds */
	double x0, x1;
};

static double log_x(const struct log_axis *ax, double us)
{
	return ax->x0 + (log10(us) - ax->e0) / (ax->e1 - ax->e0) * (ax->x1 - ax->x0);
}

static void time_axis(struct log_axis *ax, const struct chart_row *rows, size_t n)
{
	double lo = INFINITY, hi = -INFINITY, v[2];
	size_t i, j;

	for (i = 0; i < n; i++) {
		v[0] = rows[i].op->replay_us;
		v[1] = rows[i].op->trace_gpu_us;
		for (j = 0; j < 2; j++) {
			if (isfinite(v[j]) && v[j] > 0) {
				lo = v[j] < lo ? v[j] : lo;
				hi = v[j] > hi ? v[j] : hi;
			}
		}
	}
	if (!isfinite(lo)) {
		lo = 1;		/* nothing to draw: 1 us .. 1 ms */
		hi = 999;
	}
	/* strictly below the smallest value, so that every bar shows */
	ax->e0 = (int)floor(log10(lo) - 1e-9);
	ax->e1 = (int)ceil(log10(hi));
	if (ax->e1 <= ax->e0)
		ax->e1 = ax->e0 + 1;
	ax->x0 = T_BAR_X0;
	ax->x1 = T_BAR_X1;
}

/* Grid lines over [y0, y1] and tick labels at @ylab (and @ylab2 if > 0):
 * decades labelled; 2x and 5x dashed, labelled too on short axes. */
static void time_grid(FILE *f, const struct log_axis *ax, double y0, double y1, double ylab, double ylab2)
{
	bool few = ax->e1 - ax->e0 <= 2;
	char buf[32];
	int e, m;

	for (e = ax->e0; e <= ax->e1; e++) {
		for (m = 1; m <= 5; m += m == 1 ? 1 : 3) {	/* 1, 2, 5 */
			double v = m * pow(10, e), x;

			if (e == ax->e1 && m > 1)
				break;
			x = log_x(ax, v);
			svg_line(f, x, y0, x, y1, m == 1 ? "#d0d0d0" : CH_GRID, 1, m == 1 ? NULL : "3,3");
			if (m > 1 && !few)
				continue;
			fmt_time_us(buf, sizeof(buf), v);
			svg_text(f, x, ylab, "middle", "tick", FS_SMALL, 0, NULL, buf);
			if (ylab2 > 0)
				svg_text(f, x, ylab2, "middle", "tick", FS_SMALL, 0, NULL, buf);
		}
	}
}

/* The device every replay ran on, or NULL when they differ (then each value names its own). */
static const char *common_device(const struct chart_row *rows, size_t n, bool *mixed)
{
	const char *d = NULL;
	size_t i;

	*mixed = false;
	for (i = 0; i < n; i++) {
		const char *od = rows[i].op->device;

		if (!od || !isfinite(rows[i].op->replay_us))
			continue;
		if (d && strcmp(d, od))
			*mixed = true;
		d = d ? d : od;
	}
	return *mixed ? NULL : d;
}

static void swatch(FILE *f, double x, double y, const char *fill, const char *text)
{
	svg_rect(f, x, y - 10, 12, 12, fill);
	svg_text(f, x + 17, y, "start", "cap", FS_SMALL, 0, NULL, text);
}

/* One bar from the axis start to @us with its value after it, or a note. */
static void time_bar(FILE *f, const struct log_axis *ax, double y, double us, const char *fill, const char *series,
		     const char *suffix, const char *missing)
{
	char buf[96];
	double x, w;

	if (!isfinite(us) || us <= 0) {
		svg_text(f, ax->x0 + 4, y + T_BAR_H - 2, "start", "note", FS_SMALL, 0, NULL,
			 isfinite(us) ? "0" : missing);
		return;
	}
	x = log_x(ax, us);
	svg_bar(f, ax->x0, y, x - ax->x0, T_BAR_H, fill, series);
	fmt_time_us(buf, sizeof(buf), us);
	if (suffix)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s", suffix);
	w = svg_text_width(buf, FS_SMALL);
	if (x + 4 + w > CH_W - 4 && x - ax->x0 > w + 8)
		/* no room after the longest bars: inside, at their end */
		svg_text(f, x - 4, y + T_BAR_H - 2, "end", "val", FS_SMALL, 0, "style=\"fill:#ffffff\"", buf);
	else
		svg_text(f, x + 4, y + T_BAR_H - 2, "start", "val", FS_SMALL, 0, NULL, buf);
}

static double time_panel(FILE *f, double y, const struct chart_row *rows, size_t n, const struct chart_opts *o)
{
	struct log_axis ax;
	const char *dev;
	char buf[160];
	double top, ry, lx;
	bool mixed, any_trace;
	size_t i;

	time_axis(&ax, rows, n);
	dev = common_device(rows, n, &mixed);
	for (i = 0; i < n && !isfinite(rows[i].op->trace_gpu_us); i++)
		;
	any_trace = i < n;
	svg_text(f, CH_MARGIN, y + 18, "start", "h", FS_H, 0, NULL, "Time per call");
	svg_text(f, CH_MARGIN + 126, y + 18, "start", "cap", FS_SMALL, 0, NULL,
		 !any_trace	 ? (o->keep_order ? "log scale" : "log scale \xc2\xb7 sorted by replay time")
		 : o->keep_order ? "log scale \xc2\xb7 (n\xc3\x97) = replay \xc3\xb7 trace"
				 : "log scale \xc2\xb7 sorted by GPU time in the trace \xc2\xb7 (n\xc3\x97) = replay \xc3\xb7 trace");
	if (dev)
		snprintf(buf, sizeof(buf), "replay median on %s", dev);
	else
		snprintf(buf, sizeof(buf), "replay median%s", mixed ? " (device after the value)" : "");
	lx = T_BAR_X0;
	swatch(f, lx, y + 40, CH_REPLAY, buf);
	lx += 17 + svg_text_width(buf, FS_SMALL) + 24;
	if (any_trace)
		swatch(f, lx, y + 40, CH_TRACE, "GPU time in the trace");
	top = y + 66;
	for (i = 0; i < n; i += 2)
		svg_rect(f, CH_MARGIN - 8, top + i * T_ROW, CH_W - 2 * CH_MARGIN + 16, T_ROW, CH_STRIPE);
	time_grid(f, &ax, top - 4, top + n * T_ROW + 2, top - 8, n > 10 ? top + n * T_ROW + 16 : 0);
	for (i = 0; i < n; i++) {
		const struct chart_op *op = rows[i].op;
		char suffix[64] = "";

		ry = top + i * T_ROW;
		snprintf(buf, sizeof(buf), "%d", rows[i].rank);
		svg_text(f, T_RANK_X, ry + 16, "end", "det", FS_SMALL, 0, NULL, buf);
		svg_label(f, T_LABEL_X, ry + 16, "lbl", FS_LBL, T_BAR_X0 - T_LABEL_X - 10, op->label ? op->label : "?");
		if (op->detail)
			svg_text(f, T_LABEL_X, ry + 32, "start", "det", FS_SMALL, T_BAR_X0 - T_LABEL_X - 12, NULL,
				 op->detail);
		/* the ratio only means something when both ran on a GPU */
		if (isfinite(op->replay_us) && isfinite(op->trace_gpu_us) && op->trace_gpu_us > 0 &&
		    !(op->device && !strcmp(op->device, "cpu"))) {
			double ratio = op->replay_us / op->trace_gpu_us;

			snprintf(suffix, sizeof(suffix), " (%.*f\xc3\x97)", ratio < 9.995 ? 2 : ratio < 99.95 ? 1 : 0, ratio);
		}
		if (mixed && op->device)
			snprintf(suffix + strlen(suffix), sizeof(suffix) - strlen(suffix), " %s", op->device);
		time_bar(f, &ax, ry + 7, op->replay_us, CH_REPLAY, "replay", suffix, "no replay");
		if (any_trace)
			time_bar(f, &ax, ry + 21, op->trace_gpu_us, CH_TRACE, "trace", NULL, "no GPU time in the trace");
	}
	return 66 + n * T_ROW + (n > 10 ? 26 : 10);
}

/* ------------------------------------------------------------------ counters */

static double ctr_value(const struct chart_op *op, const char *event)
{
	size_t i;

	for (i = 0; i < op->nctr; i++)
		if (op->ctr[i].event && !strcmp(op->ctr[i].event, event))
			return op->ctr[i].per_call;
	return NAN;
}

/* Events with at least one value, in order of first appearance. Returns how
 * many; *out is malloc'ed (NULL when none or out of memory: *nomem then). */
static size_t collect_events(const struct chart_row *rows, size_t n, const char ***out, bool *nomem)
{
	const char **ev = NULL;
	size_t i, j, k, m, total = 0, nev = 0;

	*out = NULL;
	*nomem = false;
	for (i = 0; i < n; i++)
		total += rows[i].op->nctr;
	if (!total)
		return 0;
	ev = calloc(total, sizeof(*ev));
	if (!ev) {
		*nomem = true;
		return 0;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < rows[i].op->nctr; j++) {
			const char *e = rows[i].op->ctr[j].event;
			bool seen = false, any = false;

			if (!e)
				continue;
			for (k = 0; k < nev && !seen; k++)
				seen = !strcmp(ev[k], e);
			for (m = 0; m < n && !seen && !any; m++)
				any = isfinite(ctr_value(rows[m].op, e));
			if (!seen && any)
				ev[nev++] = e;
		}
	}
	if (!nev) {
		free(ev);
		return 0;
	}
	*out = ev;
	return nev;
}

static double counter_panel_h(size_t n)
{
	return 40 + n * C_ROW + 6;
}

static void counter_panel(FILE *f, double x, double y, double w, const char *event, const struct chart_row *rows,
			  size_t n)
{
	double max = 0, step, end, bx0 = x + C_LABEL_W, bx1 = x + w - C_VAL_W, t, v, ry, bw;
	char buf[160];
	size_t i;

	for (i = 0; i < n; i++) {
		v = ctr_value(rows[i].op, event);
		if (isfinite(v) && v > max)
			max = v;
	}
	nice_ticks(max, &step, &end);
	svg_text(f, x, y + 14, "start", "h2", FS_LBL, w, NULL, event);
	for (i = 0; i < n; i += 2)
		svg_rect(f, x - 4, y + 36 + i * C_ROW, w + 8, C_ROW, CH_STRIPE);
	for (t = 0; t <= end * (1 + 1e-9); t += step) {
		double gx = bx0 + t / end * (bx1 - bx0);

		svg_line(f, gx, y + 34, gx, y + 36 + n * C_ROW, t == 0 ? "#b0b0b0" : CH_GRID, 1, NULL);
		fmt_si(buf, sizeof(buf), t, NULL);
		svg_text(f, gx, y + 30, "middle", "tick", FS_SMALL, 0, NULL, buf);
	}
	for (i = 0; i < n; i++) {
		ry = y + 36 + i * C_ROW;
		short_label(buf, sizeof(buf), &rows[i]);
		svg_text(f, x, ry + 13, "start", "det", FS_SMALL, C_LABEL_W - 8, NULL, buf);
		v = ctr_value(rows[i].op, event);
		if (!isfinite(v)) {
			svg_text(f, bx0 + 4, ry + 13, "start", "note", FS_SMALL, 0, NULL, "not counted");
			continue;
		}
		bw = v > 0 ? v / end * (bx1 - bx0) : 0;
		svg_bar(f, bx0, ry + 3, bw, C_ROW - 6, CH_COUNTER, "ctr");
		fmt_si(buf, sizeof(buf), v, NULL);
		svg_text(f, bx0 + bw + 4, ry + 13, "start", "val", FS_SMALL, 0, NULL, buf);
	}
}

/* The counter panels, C_COLS abreast; returns the height (0 when no event has values). */
static double counter_panels(FILE *f, double y, const char **ev, size_t nev, const struct chart_row *rows, size_t n)
{
	double w = (CH_W - 2 * CH_MARGIN - (C_COLS - 1) * C_GAP) / C_COLS, ph = counter_panel_h(n);
	size_t i;

	if (!nev)
		return 0;
	svg_text(f, CH_MARGIN, y + 18, "start", "h", FS_H, 0, NULL, "Counters per call");
	svg_text(f, CH_MARGIN + 150, y + 18, "start", "cap", FS_SMALL, 0, NULL,
		 "one panel per event \xc2\xb7 ops numbered as in \xe2\x80\x9cTime per call\xe2\x80\x9d");
	for (i = 0; i < nev; i++)
		counter_panel(f, CH_MARGIN + (double)(i % C_COLS) * (w + C_GAP), y + 32 + (double)(i / C_COLS) * (ph + 18),
			      w, ev[i], rows, n);
	return 32 + (double)((nev + C_COLS - 1) / C_COLS) * (ph + 18);
}

/* ------------------------------------------------------------------ the page */

int chart_write(const char *path, const struct chart_op *ops, size_t n, const struct chart_opts *o)
{
	static const struct chart_opts dflt;
	struct chart_row *rows = NULL;
	const char **ev = NULL;
	char *body = NULL, *doc = NULL;
	size_t blen = 0, dlen = 0, i, nev;
	FILE *f = NULL;
	double y;
	bool nomem = false;
	int ret = 1, bad;

	if (!o)
		o = &dflt;
	if (!path || !*path) {
		ret = cli_error("chart: no output file given");
		goto out;
	}
	if (!ops || !n) {
		ret = cli_error("chart: no ops to draw");
		goto out;
	}
	rows = calloc(n, sizeof(*rows));
	if (!rows) {
		ret = cli_error("chart: out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		rows[i].op = &ops[i];
	if (!o->keep_order)
		qsort(rows, n, sizeof(*rows), row_cmp);
	for (i = 0; i < n; i++)
		rows[i].rank = (int)i + 1;
	nev = collect_events(rows, n, &ev, &nomem);

	/* the body first, into memory: the page height is known at its end */
	f = nomem ? NULL : open_memstream(&body, &blen);
	if (!f) {
		ret = cli_error("chart: out of memory");
		goto out;
	}
	y = header(f, o, n);
	y += time_panel(f, y, rows, n, o);
	if (roofline_wanted(rows, n))
		y += 14 + roofline_panel(f, y + 14, rows, n, o);
	if (nev)
		y += 14 + counter_panels(f, y + 14, ev, nev, rows, n);
	bad = fclose(f);
	f = bad ? NULL : open_memstream(&doc, &dlen);
	if (!f) {
		ret = cli_error("chart: out of memory");
		goto out;
	}
	svg_begin(f, CH_W, ceil(y + CH_MARGIN));
	fwrite(body, 1, blen, f);
	svg_end(f);
	bad = fclose(f);
	ret = bad ? cli_error("chart: out of memory") : chart_render(path, doc, dlen);
out:
	free(doc);
	free(body);
	free(ev);
	free(rows);
	return ret;
}
