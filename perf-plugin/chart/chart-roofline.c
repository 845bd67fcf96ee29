/* SPDX-License-Identifier: MIT */
/* Rooflines: the panel of the sweep chart and the chart of a device
 * (chart-roofline.h), sharing the log-log axes and the roofs.
 *
 * The panel of the sweep chart: achieved FLOP/s (FLOPs / replay
 * median) against arithmetic intensity (FLOPs / bytes), log-log, one point
 * per op labelled with its rank, the roofs when the peaks are known, and a
 * key beside the plot that lists every op with its numbers (or why it has
 * no point). Only rank numbers sit next to points, so the plot stays
 * readable with 25 ops; they are moved around their point to avoid each
 * other. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart/chart-roofline.h"
#include "chart/chart-svg.h"
#include "util/cli.h"

/* Plot and key geometry, relative to the panel. */
#define R_PX0 (CH_MARGIN + 80)		/* left of the plot: y tick labels before it */
#define R_PW 540.0
#define R_PH 360.0
#define R_TOP 72.0			/* plot top below the panel top */
#define R_KX (R_PX0 + R_PW + 40)	/* the key */
#define R_KROW 16.0

struct rpoint {
	bool ok;
	bool from_trace;	/* time from the trace (no replay): hollow marker */
	double ai, perf;	/* FLOP/byte, FLOP/s */
	double x, y;		/* on the page */
	const char *why;	/* why there is no point */
};

static bool point_of(const struct chart_op *op, struct rpoint *p)
{
	double t = op->replay_us;

	p->ok = false;
	p->from_trace = false;
	if (!isfinite(op->flops) || !(op->flops > 0)) {
		p->why = isfinite(op->flops) ? "no FLOPs (data movement)" : "FLOPs unknown";
		return false;
	}
	if (!isfinite(op->bytes) || !(op->bytes > 0)) {
		p->why = "bytes unknown";
		return false;
	}
	if (!isfinite(t) || !(t > 0)) {
		t = op->trace_gpu_us;
		p->from_trace = true;
	}
	if (!isfinite(t) || !(t > 0)) {
		p->why = "no time";
		return false;
	}
	p->ai = op->flops / op->bytes;
	p->perf = op->flops / (t * 1e-6);
	p->ok = true;
	return true;
}

bool roofline_wanted(const struct chart_row *rows, size_t n)
{
	struct rpoint p;
	size_t i;

	for (i = 0; i < n; i++)
		if (point_of(rows[i].op, &p))
			return true;
	return false;
}

/* ------------------------------------------------------------------ axes */

struct raxis {
	int e0, e1;
	double p0, p1;		/* page coordinates of 10^e0 and 10^e1 */
};

static double rmap(const struct raxis *a, double v)
{
	return a->p0 + (log10(v) - a->e0) / (a->e1 - a->e0) * (a->p1 - a->p0);
}

/* Decades around [lo, hi] with some air, at least two of them. */
static void decades(struct raxis *a, double lo, double hi)
{
	a->e0 = (int)floor(log10(lo / 1.6));
	a->e1 = (int)ceil(log10(hi * 1.6));
	while (a->e1 - a->e0 < 2) {
		a->e1++;
		if (a->e1 - a->e0 < 2)
			a->e0--;
	}
}

static void axes(FILE *f, const struct raxis *ax, const struct raxis *ay)
{
	double py0 = ay->p1, py1 = ay->p0;	/* top, bottom */
	int e, every;
	char buf[48];

	svg_rect(f, ax->p0, py0, ax->p1 - ax->p0, py1 - py0, "#fbfbfc");
	every = ax->e1 - ax->e0 > 8 ? 2 : 1;
	for (e = ax->e0; e <= ax->e1; e++) {
		double x = rmap(ax, pow(10, e));

		svg_line(f, x, py0, x, py1, e == ax->e0 ? "#9a9a9a" : CH_GRID, 1, NULL);
		if ((e - ax->e0) % every)
			continue;
		fmt_si(buf, sizeof(buf), pow(10, e), NULL);
		svg_text(f, x, py1 + 16, "middle", "tick", FS_SMALL, 0, NULL, buf);
	}
	every = ay->e1 - ay->e0 > 8 ? 2 : 1;
	for (e = ay->e0; e <= ay->e1; e++) {
		double y = rmap(ay, pow(10, e));

		svg_line(f, ax->p0, y, ax->p1, y, e == ay->e0 ? "#9a9a9a" : CH_GRID, 1, NULL);
		if ((e - ay->e0) % every)
			continue;
		fmt_si(buf, sizeof(buf), pow(10, e), "FLOP/s");
		svg_text(f, ax->p0 - 6, y + 4, "end", "tick", FS_SMALL, 0, NULL, buf);
	}
	svg_text(f, (ax->p0 + ax->p1) / 2, py1 + 34, "middle", "cap", FS_SMALL, 0, NULL,
		 "arithmetic intensity (FLOP/byte)");
	svg_text(f, ax->p0, py0 - 8, "start", "cap", FS_SMALL, 0, NULL, "achieved FLOP/s");
}

/* ------------------------------------------------------------------ roofs */

/* The bandwidth slope, @pb B/s, from the plot's left edge to intensity
 * @ridge, clipped to the plot (#roofclip), its value written along it a
 * quarter of the way into its visible part. */
static void roof_slope(FILE *f, const struct raxis *ax, const struct raxis *ay, double pb, double ridge)
{
	double xlo = pow(10, ax->e0), a, b, ang, lx, ly;
	char buf[64], rot[96];

	fprintf(f, "<polyline class=\"roof slope\" clip-path=\"url(#roofclip)\" stroke=\"%s\" stroke-width=\"2\" "
		   "fill=\"none\" points=\"%.1f,%.1f %.1f,%.1f\"/>\n",
		CH_ROOF, rmap(ax, xlo), rmap(ay, pb * xlo), rmap(ax, ridge), rmap(ay, pb * ridge));
	a = fmax(xlo, pow(10, ay->e0) / pb);
	b = fmin(ridge, pow(10, ay->e1) / pb);
	if (a >= b)
		return;
	lx = pow(10, log10(a) + 0.25 * (log10(b) - log10(a)));
	ly = pb * lx;
	ang = atan2(rmap(ay, ly * 10) - rmap(ay, ly), rmap(ax, lx * 10) - rmap(ax, lx)) * 180 / M_PI;
	fmt_si(buf, sizeof(buf), pb, "B/s");
	snprintf(rot, sizeof(rot), "transform=\"rotate(%.1f %.1f %.1f)\"", ang, rmap(ax, lx), rmap(ay, ly) - 6);
	svg_text(f, rmap(ax, lx), rmap(ay, ly) - 6, "start", "cap", FS_SMALL, 0, rot, buf);
}

/* A flat compute roof at @pf FLOP/s from intensity @ridge to the right
 * edge; @label (may be NULL) at its right end, above the line, or below it
 * when @below (the roof above is too close). */
static void roof_flat(FILE *f, const struct raxis *ax, const struct raxis *ay, double pf, double ridge,
		      const char *label, bool below)
{
	fprintf(f, "<polyline class=\"roof flat\" clip-path=\"url(#roofclip)\" stroke=\"%s\" stroke-width=\"2\" "
		   "fill=\"none\" points=\"%.1f,%.1f %.1f,%.1f\"/>\n",
		CH_ROOF, rmap(ax, ridge), rmap(ay, pf), rmap(ax, pow(10, ax->e1)), rmap(ay, pf));
	if (label && rmap(ay, pf) > ay->p1 + 12)
		svg_text(f, ax->p1 - 6, rmap(ay, pf) + (below ? 15 : -6), "end", "cap", FS_SMALL, 0, NULL, label);
}

static void roofs(FILE *f, const struct raxis *ax, const struct raxis *ay, const struct chart_opts *o)
{
	double pf = o->peak_gflops > 0 ? o->peak_gflops * 1e9 : 0, pb = o->peak_gbs > 0 ? o->peak_gbs * 1e9 : 0;
	double xlo = pow(10, ax->e0), xhi = pow(10, ax->e1), ridge;
	char buf[64];

	if (!pf && !pb)
		return;		/* the legend says why */
	ridge = pf && pb ? pf / pb : pb ? xhi : xlo;
	/* lines may leave the plot: clipped to it */
	if (pb)
		roof_slope(f, ax, ay, pb, ridge);
	if (pf) {
		fmt_si(buf, sizeof(buf), pf, "FLOP/s");
		memmove(buf + 5, buf, strlen(buf) + 1);
		memcpy(buf, "peak ", 5);
		roof_flat(f, ax, ay, pf, ridge, buf, false);
	}
}

/* ------------------------------------------------------------------ points */

struct box {
	double x0, y0, x1, y1;
};

static bool hits(const struct box *a, const struct box *b)
{
	return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* The label of the points that sit on point @i (within 6 px: the same op
 * with other uids, typically), marking them done: "3", "3,5,9", "3–15",
 * "3,5,9,+4". */
static void group_label(char *buf, size_t len, const struct chart_row *rows, const struct rpoint *pts, size_t n,
			size_t i, bool *done)
{
	int ranks[4], first = rows[i].rank, last = first, k = 0;
	bool consecutive = true;
	size_t j;

	for (j = i; j < n; j++) {
		if (done[j] || !pts[j].ok || hypot(pts[j].x - pts[i].x, pts[j].y - pts[i].y) > 6)
			continue;
		done[j] = true;
		consecutive &= j == i || rows[j].rank == last + 1;
		last = rows[j].rank;
		if (k < 4)
			ranks[k] = last;
		k++;
	}
	if (k > 3 && consecutive)
		snprintf(buf, len, "%d\xe2\x80\x93%d", first, last);
	else if (k > 3)
		snprintf(buf, len, "%d,%d,%d,+%d", ranks[0], ranks[1], ranks[2], k - 3);
	else if (k == 3)
		snprintf(buf, len, "%d,%d,%d", ranks[0], ranks[1], ranks[2]);
	else if (k == 2)
		snprintf(buf, len, "%d,%d", ranks[0], ranks[1]);
	else
		snprintf(buf, len, "%d", first);
}

/* Rank labels next to their points: the first of the places around the
 * point (close ones first, then farther ones with a leader line) that stays
 * in the plot and keeps 2 px from every point and every label placed
 * before; the first place when none does. Points on top of each other get
 * one label. @boxes holds the n point boxes and receives the labels. */
static void point_labels(FILE *f, const struct chart_row *rows, const struct rpoint *pts, size_t n, struct box *boxes,
			 const struct raxis *ax, const struct raxis *ay)
{
	static const struct {
		double dx, dy;	/* anchor point from the point; dy to the baseline */
		char align;	/* 's'tart, 'm'iddle, 'e'nd */
	} place[] = {
		{ 7, 4, 's' }, { -7, 4, 'e' }, { 0, -8, 'm' }, { 0, 15, 'm' },
		{ 6, -5, 's' }, { 6, 13, 's' }, { -6, -5, 'e' }, { -6, 13, 'e' },
		/* farther, with a leader line */
		{ 18, 4, 's' }, { -18, 4, 'e' }, { 0, -20, 'm' }, { 0, 27, 'm' },
		{ 15, -15, 's' }, { 15, 23, 's' }, { -15, -15, 'e' }, { -15, 23, 'e' },
	};
	const size_t nplace = sizeof(place) / sizeof(place[0]), near = 8;
	static const char *const anchors[] = { "start", "middle", "end" };
	bool *done = calloc(n ? n : 1, sizeof(*done));
	size_t i, j, k, nb = n;
	char num[48];

	for (i = 0; done && i < n; i++) {
		struct box b = { 0 }, first = { 0 };
		double w, x;

		if (!pts[i].ok || done[i])
			continue;
		group_label(num, sizeof(num), rows, pts, n, i, done);
		w = svg_text_width(num, FS_SMALL);
		for (k = 0; k < nplace; k++) {
			bool clear = true;

			x = pts[i].x + place[k].dx;
			b.x0 = place[k].align == 's' ? x : place[k].align == 'e' ? x - w : x - w / 2;
			b.x1 = b.x0 + w;
			b.y1 = pts[i].y + place[k].dy + 1;
			b.y0 = b.y1 - FS_SMALL;
			if (!k)
				first = b;
			if (b.x0 < ax->p0 || b.x1 > ax->p1 || b.y0 < ay->p1 || b.y1 > ay->p0)
				continue;
			for (j = 0; j < nb && clear; j++) {
				struct box pad = { boxes[j].x0 - 2, boxes[j].y0 - 2, boxes[j].x1 + 2, boxes[j].y1 + 2 };

				/* the points of the group are under the label's own point */
				clear = (j < n && pts[j].ok && hypot(pts[j].x - pts[i].x, pts[j].y - pts[i].y) <= 6) ||
					!hits(&b, &pad);
			}
			if (clear)
				break;
		}
		if (k == nplace) {
			/* nowhere free: the first place, so the number still shows */
			k = 0;
			b = first;
		}
		if (k >= near)
			svg_line(f, pts[i].x, pts[i].y, fmin(fmax(pts[i].x, b.x0), b.x1),
				 fmin(fmax(pts[i].y, b.y0 + 2), b.y1 - 2), "#9a9a9a", 0.8, NULL);
		boxes[nb++] = b;
		svg_text(f, pts[i].x + place[k].dx, pts[i].y + place[k].dy,
			 anchors[place[k].align == 's' ? 0 : place[k].align == 'm' ? 1 : 2], "num", FS_SMALL, 0, NULL, num);
	}
	free(done);
}

/* A point: filled blue from the replay, hollow orange from the trace;
 * @cls "pt" in the plot (one per op there), "mark" in the legend and key. */
static void marker(FILE *f, double x, double y, bool hollow, const char *cls)
{
	if (hollow)
		fprintf(f,
			"<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#ffffff\" stroke=\"%s\" "
			"stroke-width=\"2\"/>\n",
			cls, x, y, CH_TRACE);
	else
		fprintf(f,
			"<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"%s\" stroke=\"#ffffff\" "
			"stroke-width=\"1\"/>\n",
			cls, x, y, CH_REPLAY);
}

/* ------------------------------------------------------------------ key */

/* Column right edges of the key (from R_KX). */
#define K_LABEL 34.0
#define K_AI 300.0
#define K_PERF 402.0
#define K_ROOF (CH_W - CH_MARGIN - R_KX)

static double roof_key(FILE *f, double y, const struct chart_row *rows, const struct rpoint *pts, size_t n,
		  const struct chart_opts *o)
{
	double pf = o->peak_gflops > 0 ? o->peak_gflops * 1e9 : 0, pb = o->peak_gbs > 0 ? o->peak_gbs * 1e9 : 0;
	char buf[160];
	size_t i;

	svg_text(f, R_KX, y, "start", "cap", FS_SMALL, 0, NULL, "#");
	svg_text(f, R_KX + K_LABEL, y, "start", "cap", FS_SMALL, 0, NULL, "op");
	svg_text(f, R_KX + K_AI, y, "end", "cap", FS_SMALL, 0, NULL, "FLOP/byte");
	svg_text(f, R_KX + K_PERF, y, "end", "cap", FS_SMALL, 0, NULL, "achieved");
	if (pf || pb)
		svg_text(f, R_KX + K_ROOF, y, "end", "cap", FS_SMALL, 0, NULL, "of roof");
	for (i = 0; i < n; i++) {
		const char *l = rows[i].op->label ? rows[i].op->label : "?";
		double ry = y + 6 + (double)i * R_KROW;

		if (i % 2 == 0)
			svg_rect(f, R_KX - 4, ry, CH_W - CH_MARGIN - R_KX + 8, R_KROW, CH_STRIPE);
		if (pts[i].ok)
			marker(f, R_KX + 5, ry + 8, pts[i].from_trace, "mark");
		snprintf(buf, sizeof(buf), "%d", rows[i].rank);
		svg_text(f, R_KX + 13, ry + 12, "start", "det", FS_SMALL, 0, NULL, buf);
		svg_label(f, R_KX + K_LABEL, ry + 12, "val", FS_SMALL, K_AI - K_LABEL - 62,
			  strncmp(l, "aten::", 6) ? l : l + 6);
		if (!pts[i].ok) {
			/* over the empty number columns */
			svg_text(f, R_KX + K_AI - 52, ry + 12, "start", "note", FS_SMALL, 0, NULL, pts[i].why);
			continue;
		}
		fmt_si(buf, sizeof(buf), pts[i].ai, NULL);
		svg_text(f, R_KX + K_AI, ry + 12, "end", "val", FS_SMALL, 0, NULL, buf);
		fmt_si(buf, sizeof(buf), pts[i].perf, "FLOP/s");
		svg_text(f, R_KX + K_PERF, ry + 12, "end", "val", FS_SMALL, 0, NULL, buf);
		if (pf || pb) {
			double roof = pf && pb ? fmin(pf, pb * pts[i].ai) : pf ? pf : pb * pts[i].ai;
			const char *bound = !(pf && pb) ? "" : pb * pts[i].ai < pf ? " mem" : " comp";

			double pct = 100 * pts[i].perf / roof;

			if (pct < 1)
				snprintf(buf, sizeof(buf), "<1%%%s", bound);
			else
				snprintf(buf, sizeof(buf), "%.0f%%%s", pct, bound);
			svg_text(f, R_KX + K_ROOF, ry + 12, "end", "val", FS_SMALL, 0, NULL, buf);
		}
	}
	return 6 + (double)n * R_KROW;
}

/* ------------------------------------------------------------------ the panel */

double roofline_panel(FILE *f, double y, const struct chart_row *rows, size_t n, const struct chart_opts *o)
{
	double lo_ai = INFINITY, hi_ai = 0, lo_p = INFINITY, hi_p = 0, kh, lx;
	double pf = o->peak_gflops > 0 ? o->peak_gflops * 1e9 : 0, pb = o->peak_gbs > 0 ? o->peak_gbs * 1e9 : 0;
	struct rpoint *pts = calloc(n, sizeof(*pts));
	struct box *boxes = calloc(2 * n, sizeof(*boxes));
	struct raxis ax, ay;
	bool any_trace = false;
	size_t i;

	if (!pts || !boxes) {
		/* out of memory: no panel rather than half of one */
		free(pts);
		free(boxes);
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (!point_of(rows[i].op, &pts[i]))
			continue;
		lo_ai = fmin(lo_ai, pts[i].ai);
		hi_ai = fmax(hi_ai, pts[i].ai);
		lo_p = fmin(lo_p, pts[i].perf);
		hi_p = fmax(hi_p, pts[i].perf);
		any_trace |= pts[i].from_trace;
	}
	if (pf && pb) {
		/* the ridge point in view */
		lo_ai = fmin(lo_ai, pf / pb);
		hi_ai = fmax(hi_ai, pf / pb);
	}
	if (pf)
		hi_p = fmax(hi_p, pf);
	decades(&ax, lo_ai, hi_ai);
	decades(&ay, lo_p, hi_p);
	ax.p0 = R_PX0;
	ax.p1 = R_PX0 + R_PW;
	ay.p0 = y + R_TOP + R_PH;	/* bottom: 10^e0 */
	ay.p1 = y + R_TOP;

	svg_text(f, CH_MARGIN, y + 18, "start", "h", FS_H, 0, NULL, "Roofline");
	svg_text(f, CH_MARGIN + 86, y + 18, "start", "cap", FS_SMALL, 0, NULL,
		 "FLOP/s = FLOPs \xc3\xb7 time per call \xc2\xb7 FLOP/byte = FLOPs \xc3\xb7 bytes moved (every input "
		 "read, every output written once)");
	lx = R_PX0;
	marker(f, lx + 5, y + 36, false, "mark");
	svg_text(f, lx + 14, y + 40, "start", "cap", FS_SMALL, 0, NULL, "replay median");
	lx += 14 + svg_text_width("replay median", FS_SMALL) + 22;
	if (any_trace) {
		marker(f, lx + 5, y + 36, true, "mark");
		svg_text(f, lx + 14, y + 40, "start", "cap", FS_SMALL, 0, NULL, "trace GPU time (op not replayed)");
		lx += 14 + svg_text_width("trace GPU time (op not replayed)", FS_SMALL) + 22;
	}
	if (pf || pb) {
		svg_line(f, lx, y + 36, lx + 18, y + 36, CH_ROOF, 2, NULL);
		svg_text(f, lx + 24, y + 40, "start", "cap", FS_SMALL, 0, NULL,
			 pf && pb ? "roof" : pf ? "roof (memory bandwidth unknown)" : "roof (peak FLOP/s unknown)");
	} else {
		svg_text(f, lx, y + 40, "start", "note", FS_SMALL, 0, NULL,
			 "no roof: peak FLOP/s and memory bandwidth unknown");
	}
	fprintf(f, "<clipPath id=\"roofclip\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/></clipPath>\n",
		ax.p0, ay.p1, ax.p1 - ax.p0, ay.p0 - ay.p1);
	axes(f, &ax, &ay);
	roofs(f, &ax, &ay, o);
	for (i = 0; i < n; i++) {
		if (!pts[i].ok)
			continue;
		pts[i].x = rmap(&ax, pts[i].ai);
		pts[i].y = rmap(&ay, pts[i].perf);
		boxes[i] = (struct box){ pts[i].x - 5, pts[i].y - 5, pts[i].x + 5, pts[i].y + 5 };
	}
	for (i = 0; i < n; i++)
		if (pts[i].ok)
			marker(f, pts[i].x, pts[i].y, pts[i].from_trace, "pt");
	point_labels(f, rows, pts, n, boxes, &ax, &ay);
	kh = roof_key(f, y + R_TOP - 8, rows, pts, n, o);
	free(pts);
	free(boxes);
	return fmax(R_TOP + R_PH + 44, R_TOP - 8 + kh + 8);
}

/* ------------------------------------------------------------------ the chart of a device */

/* Page and plot of roofline_chart_write(). */
#define D_W 1100.0
#define D_PX0 (CH_MARGIN + 84)		/* plot left: y tick labels before it */
#define D_PW 640.0
#define D_TOP 96.0
#define D_PH 440.0
#define D_KX (D_PX0 + D_PW + 36)	/* the legend */
#define D_RMAX 18.0			/* marker radius of the most GPU time */
#define D_RMIN 2.5
#define D_NCOLORS 9
/* A white outline under text that crosses lines and markers. */
#define HALO "stroke=\"#ffffff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\""			/* categories with a colour of their own; the rest are "other" */

/* Tableau 10, the grey last: distinct in colour and in lightness. */
static const char *const cat_colors[D_NCOLORS + 1] = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
};

struct dcat {
	const char *name;
	double us;
	size_t n;
};

struct droof {
	enum tl_gpu_unit unit;
	enum tl_gpu_dtype dtype;
	double pf;
};

static bool drawable(const struct roofline_point *p)
{
	return isfinite(p->intensity) && p->intensity > 0 && isfinite(p->flops_per_s) && p->flops_per_s > 0;
}

static double us_of(const struct roofline_point *p)
{
	return isfinite(p->gpu_us) && p->gpu_us > 0 ? p->gpu_us : 0;
}

static int dcat_cmp(const void *a, const void *b)
{
	const struct dcat *x = a, *y = b;

	if (x->us != y->us)
		return x->us < y->us ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int droof_cmp(const void *a, const void *b)
{
	double x = ((const struct droof *)a)->pf, y = ((const struct droof *)b)->pf;

	return (x < y) - (x > y);
}

/* The categories of the drawn points by GPU time, most first, into @cats
 * (room for @n); returns how many. */
static size_t categories(const struct roofline_point *pts, size_t n, struct dcat *cats)
{
	size_t i, k, nc = 0;

	for (i = 0; i < n; i++) {
		const char *c = pts[i].category && *pts[i].category ? pts[i].category : "other";

		if (!drawable(&pts[i]))
			continue;
		for (k = 0; k < nc && strcmp(cats[k].name, c); k++)
			;
		if (k == nc)
			cats[nc++] = (struct dcat){ c, 0, 0 };
		cats[k].us += us_of(&pts[i]);
		cats[k].n++;
	}
	qsort(cats, nc, sizeof(*cats), dcat_cmp);
	return nc;
}

/* The colour of category @c: its rank among @cats, grey past the palette. */
static const char *cat_color(const struct dcat *cats, size_t nc, const char *c)
{
	size_t k;

	c = c && *c ? c : "other";
	for (k = 0; k < nc && k < D_NCOLORS; k++)
		if (!strcmp(cats[k].name, c))
			return cat_colors[k];
	return cat_colors[D_NCOLORS];
}

/* The flat roofs: the peak of each distinct (unit, dtype) the points'
 * specs resolve to, highest first; with no spec, the highest matrix peak
 * and vector fp32. Returns how many (at most @max). */
static size_t flat_roofs(const struct tl_gpu *gpu, const struct roofline_point *pts, size_t n, struct droof *out,
			 size_t max)
{
	enum tl_gpu_unit u, uu;
	enum tl_gpu_dtype d, ud;
	size_t i, k, nr = 0;
	double pf;

	for (i = 0; i < n; i++) {
		if (!drawable(&pts[i]) || tl_gpu_parse_spec(pts[i].spec, &u, &d))
			continue;
		pf = tl_gpu_peak(gpu, u, d, &uu, &ud);
		for (k = 0; k < nr && (out[k].unit != uu || out[k].dtype != ud); k++)
			;
		if (pf > 0 && k == nr && nr < max)
			out[nr++] = (struct droof){ uu, ud, pf };
	}
	if (!nr) {
		for (d = 0; d < TL_GPU_NDTYPES && nr < max; d++)
			if (gpu->peak[TL_GPU_MATRIX][d] > (nr ? out[0].pf : 0)) {
				out[0] = (struct droof){ TL_GPU_MATRIX, d, gpu->peak[TL_GPU_MATRIX][d] };
				nr = 1;
			}
		if (gpu->peak[TL_GPU_VECTOR][TL_GPU_FP32] > 0 && nr < max)
			out[nr++] = (struct droof){ TL_GPU_VECTOR, TL_GPU_FP32, gpu->peak[TL_GPU_VECTOR][TL_GPU_FP32] };
	}
	qsort(out, nr, sizeof(*out), droof_cmp);
	return nr;
}

/* The legend beside the plot: one entry per category (a swatch, its name,
 * its GPU time and row count), the marker sizes, what is not drawn. */
static void device_legend(FILE *f, const struct dcat *cats, size_t nc, double tmax, size_t skipped)
{
	double y = D_TOP + 4, other = 0, r;
	size_t k, nother = 0;
	char buf[160], t[32];
	static const double frac[] = { 1, 0.25, 1.0 / 16 };

	svg_text(f, D_KX, y, "start", "h2", FS_LBL, 0, NULL, "Category (GPU time, rows)");
	fputs("<g class=\"legend\">\n", f);
	for (k = 0; k < nc; k++) {
		if (k >= D_NCOLORS) {
			other += cats[k].us;
			nother += cats[k].n;
			continue;
		}
		y += 22;
		fprintf(f, "<circle class=\"key\" cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"%s\"/>\n", D_KX + 6, y - 4,
			cat_colors[k]);
		fmt_time_us(t, sizeof(t), cats[k].us);
		snprintf(buf, sizeof(buf), "%s  %s, %zu", cats[k].name, t, cats[k].n);
		svg_text(f, D_KX + 18, y, "start", "val", FS_SMALL, D_W - CH_MARGIN - D_KX - 18, NULL, buf);
	}
	if (nother) {
		y += 22;
		fprintf(f, "<circle class=\"key\" cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"%s\"/>\n", D_KX + 6, y - 4,
			cat_colors[D_NCOLORS]);
		fmt_time_us(t, sizeof(t), other);
		snprintf(buf, sizeof(buf), "%zu more categories  %s, %zu", nc - D_NCOLORS, t, nother);
		svg_text(f, D_KX + 18, y, "start", "val", FS_SMALL, 0, NULL, buf);
	}
	fputs("</g>\n", f);
	if (tmax > 0) {
		y += 40;
		svg_text(f, D_KX, y, "start", "h2", FS_LBL, 0, NULL, "Marker area \xe2\x88\x9d GPU time");
		y += 8;
		for (k = 0; k < sizeof(frac) / sizeof(frac[0]); k++) {
			r = fmax(D_RMIN, D_RMAX * sqrt(frac[k]));
			y += 2 * D_RMAX * (k ? 0.6 : 1) + 4;
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" stroke=\"%s\" stroke-width=\"1\"/>\n",
				D_KX + D_RMAX, y - D_RMAX * (k ? 0.6 : 1) + 2, r, CH_DIM);
			fmt_time_us(t, sizeof(t), tmax * frac[k]);
			svg_text(f, D_KX + 2 * D_RMAX + 12, y - D_RMAX * (k ? 0.6 : 1) + 6, "start", "val", FS_SMALL, 0, NULL,
				 t);
		}
	}
	if (skipped) {
		y += 30;
		snprintf(buf, sizeof(buf), "%zu row%s without FLOPs or bytes not drawn", skipped, skipped == 1 ? "" : "s");
		svg_text(f, D_KX, y, "start", "note", FS_SMALL, D_W - CH_MARGIN - D_KX, NULL, buf);
	}
}

/* Draw order: largest markers first, so that small ones stay visible. */
struct dorder {
	double us;
	size_t i;
};

static int order_cmp(const void *a, const void *b)
{
	const struct dorder *x = a, *y = b;

	if (x->us != y->us)
		return x->us < y->us ? 1 : -1;
	return (x->i > y->i) - (x->i < y->i);
}

/* A label's box on the page, to keep labels from overlapping. */
struct lbox {
	double x0, y0, x1, y1;
};

#define LBL_MAX 64
#define RF_MAX (2 * TL_GPU_NDTYPES)

static bool overlaps(const struct lbox *b, const struct lbox *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b->x0 < v[i].x1 + 2 && v[i].x0 < b->x1 + 2 && b->y0 < v[i].y1 + 1 && v[i].y0 < b->y1 + 1)
			return true;
	return false;
}

int roofline_chart_svg(const struct tl_gpu *gpu, const struct roofline_point *pts, size_t n,
		       const struct roofline_opts *o, char **svg, size_t *len)
{
	struct {
		char text[96];
		double y;
		bool shown;
	} rl[RF_MAX];
	struct lbox placed[LBL_MAX];
	size_t nb = 0;
	static const struct roofline_opts dflt;
	double lo_ai = INFINITY, hi_ai = 0, lo_p = INFINITY, hi_p = 0, tmax = 0, pb, x, y, r, last_y = -1e9;
	struct dcat *cats = NULL;
	struct droof rf[RF_MAX];
	struct raxis ax, ay;
	size_t i, k, nc, nr, drawn = 0;
	struct dorder *order = NULL;
	char *doc = NULL, title[160], pk[48], sub[640];
	size_t dlen = 0;
	FILE *f = NULL;
	int ret = 1;

	o = o ? o : &dflt;
	if (!gpu || !(gpu->mem_bw > 0)) {
		cli_error("roofline: %s", gpu ? "the device has no memory bandwidth" : "no device");
		goto out;
	}
	pb = gpu->mem_bw;
	cats = calloc(n ? n : 1, sizeof(*cats));
	order = calloc(n ? n : 1, sizeof(*order));
	if (!cats || !order) {
		cli_error("roofline: out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (!drawable(&pts[i]))
			continue;
		order[drawn++] = (struct dorder){ us_of(&pts[i]), i };
		lo_ai = fmin(lo_ai, pts[i].intensity);
		hi_ai = fmax(hi_ai, pts[i].intensity);
		lo_p = fmin(lo_p, pts[i].flops_per_s);
		hi_p = fmax(hi_p, pts[i].flops_per_s);
		tmax = fmax(tmax, us_of(&pts[i]));
	}
	nc = categories(pts, n, cats);
	nr = flat_roofs(gpu, pts, n, rf, sizeof(rf) / sizeof(rf[0]));
	/* every ridge point and roof in view */
	for (k = 0; k < nr; k++) {
		lo_ai = fmin(lo_ai, rf[k].pf / pb);
		hi_ai = fmax(hi_ai, rf[k].pf / pb);
		hi_p = fmax(hi_p, rf[k].pf);
		lo_p = fmin(lo_p, rf[k].pf / 100);
	}
	if (!isfinite(lo_ai)) {
		/* no point and no roof: one decade either side of 1 */
		lo_ai = lo_p = 0.1;
		hi_ai = hi_p = 10;
	}
	decades(&ax, lo_ai, hi_ai);
	decades(&ay, lo_p, hi_p);
	ax.p0 = D_PX0;
	ax.p1 = D_PX0 + D_PW;
	ay.p0 = D_TOP + D_PH;
	ay.p1 = D_TOP;

	f = open_memstream(&doc, &dlen);
	if (!f) {
		cli_error("roofline: out of memory");
		goto out;
	}
	svg_begin(f, D_W, D_TOP + D_PH + 76);
	if (!o->title)
		snprintf(title, sizeof(title), "Roofline: %s", gpu->name);
	svg_text(f, CH_MARGIN, 34, "start", "title", FS_TITLE, D_W - 2 * CH_MARGIN, NULL, o->title ? o->title : title);
	fmt_si(pk, sizeof(pk), pb, "B/s");
	snprintf(sub, sizeof(sub), "%s%smemory %s \xc2\xb7 dense peaks \xc2\xb7 %zu row%s", o->subtitle ? o->subtitle : "",
		 o->subtitle && *o->subtitle ? " \xc2\xb7 " : "", pk, drawn, drawn == 1 ? "" : "s");
	svg_text(f, CH_MARGIN, 56, "start", "sub", FS_SUB, D_W - 2 * CH_MARGIN, NULL, sub);
	fprintf(f, "<clipPath id=\"roofclip\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/></clipPath>\n",
		ax.p0, ay.p1, ax.p1 - ax.p0, ay.p0 - ay.p1);
	axes(f, &ax, &ay);
	roof_slope(f, &ax, &ay, pb, nr ? rf[0].pf / pb : pow(10, ax.e1));
	/* the roofs' labels come after the points, so that none hides them */
	for (k = 0; k < nr; k++)
		roof_flat(f, &ax, &ay, rf[k].pf, rf[k].pf / pb, NULL, false);
	qsort(order, drawn, sizeof(*order), order_cmp);
	fputs("<g clip-path=\"url(#roofclip)\">\n", f);
	for (k = 0; k < drawn; k++) {
		const struct roofline_point *p = &pts[order[k].i];

		r = tmax > 0 ? fmax(D_RMIN, D_RMAX * sqrt(us_of(p) / tmax)) : D_RMIN * 2;
		fprintf(f,
			"<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" fill-opacity=\"0.75\" "
			"stroke=\"#ffffff\" stroke-width=\"1\"/>\n",
			rmap(&ax, p->intensity), rmap(&ay, p->flops_per_s), r, cat_color(cats, nc, p->category));
	}
	fputs("</g>\n", f);
	/* the roofs' labels first placed (drawn last, over everything): each
	 * above its roof, or under it when the one above leaves no room, never
	 * closer than a line to the label above */
	for (k = 0; k < nr && k < RF_MAX; k++) {
		y = rmap(&ay, rf[k].pf);
		fmt_si(pk, sizeof(pk), rf[k].pf, "FLOP/s");
		snprintf(rl[k].text, sizeof(rl[k].text), "%s %s %s", tl_gpu_dtype_name(rf[k].dtype),
			 rf[k].unit == TL_GPU_MATRIX ? "matrix" : "vector", pk);
		y = y - 6 - FS_SMALL < last_y ? fmax(y + 15, last_y + FS_SMALL + 3) : y - 6;
		rl[k].y = y;
		rl[k].shown = y > ay.p1 + 12 && y < ay.p0;
		if (rl[k].shown && nb < LBL_MAX) {
			double w = svg_text_width(rl[k].text, FS_SMALL);

			placed[nb++] = (struct lbox){ ax.p1 - 6 - w, y - FS_SMALL, ax.p1 - 6, y + 3 };
		}
		last_y = y;
	}
	/* op labels beside their markers, right or else left, where they
	 * overlap no label placed before; one name labels its largest
	 * marker only (rows of one op with other parameters sit together) */
	for (k = 0; k < drawn && k < o->nlabels; k++) {
		const struct roofline_point *p = &pts[order[k].i];
		size_t j;
		double w;
		bool dup = false;

		if (!p->label || !*p->label)
			continue;
		for (j = 0; j < k && !dup; j++)
			dup = pts[order[j].i].label && !strcmp(pts[order[j].i].label, p->label);
		if (dup)
			continue;
		r = tmax > 0 ? fmax(D_RMIN, D_RMAX * sqrt(us_of(p) / tmax)) : D_RMIN * 2;
		x = rmap(&ax, p->intensity);
		y = rmap(&ay, p->flops_per_s) + 4;
		w = svg_text_width(p->label, FS_SMALL);
		/* right of the marker, or left of it */
		{
			struct lbox right = { x + r + 3, y - FS_SMALL, x + r + 3 + w, y + 3 };
			struct lbox left = { x - r - 3 - w, y - FS_SMALL, x - r - 3, y + 3 };

			if (right.x1 <= ax.p1 && !overlaps(&right, placed, nb)) {
				svg_text(f, right.x0, y, "start", "det", FS_SMALL, 0, HALO, p->label);
				if (nb < LBL_MAX)
					placed[nb++] = right;
			} else if (left.x0 >= ax.p0 && !overlaps(&left, placed, nb)) {
				svg_text(f, left.x1, y, "end", "det", FS_SMALL, 0, HALO, p->label);
				if (nb < LBL_MAX)
					placed[nb++] = left;
			}
		}
	}
	/* a white halo keeps the roofs' labels legible over the points */
	for (k = 0; k < nr && k < RF_MAX; k++)
		if (rl[k].shown)
			svg_text(f, ax.p1 - 6, rl[k].y, "end", "cap", FS_SMALL, 0, HALO, rl[k].text);
	device_legend(f, cats, nc, tmax, n - drawn);
	svg_text(f, CH_MARGIN, D_TOP + D_PH + 64, "start", "note", FS_SMALL, D_W - 2 * CH_MARGIN, NULL,
		 "roof = min(peak FLOP/s of the row's dtype, bandwidth \xc3\x97 FLOP/byte): left of the ridge, "
		 "memory-bound \xc2\xb7 dense datasheet peaks (docs/roofline.md)");
	svg_end(f);
	if (fclose(f)) {
		f = NULL;
		cli_error("roofline: out of memory");
		goto out;
	}
	f = NULL;
	*svg = doc;
	*len = dlen;
	doc = NULL;
	ret = 0;
out:
	if (f)
		fclose(f);
	free(doc);
	free(cats);
	free(order);
	return ret;
}

int roofline_chart_write(const char *path, const struct tl_gpu *gpu, const struct roofline_point *pts, size_t n,
			 const struct roofline_opts *o)
{
	char *doc = NULL;
	size_t len = 0;
	int ret = roofline_chart_svg(gpu, pts, n, o, &doc, &len);

	if (!ret)
		ret = chart_render(path, doc, len);
	free(doc);
	return ret;
}
