/* SPDX-License-Identifier: MIT */
/* The chart of `tlreplay collectives --chart` (coll-chart.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart/chart-svg.h"
#include "util/cli.h"
#include "chart/coll-chart.h"

#define LABEL_W 86.0	/* the rank labels left of the plots */
#define PLOT_X (CH_MARGIN + LABEL_W)
#define PLOT_W (CH_W - CH_MARGIN - PLOT_X)

/* One solid colour per collective type, and its pale tint for the waiting. */
static const char *const type_color[TL_COLL_NTYPES][2] = {
	[TL_COLL_UNKNOWN] = { "#7f7f7f", "#d9d9d9" },
	[TL_COLL_ALLREDUCE] = { "#3b6fb6", "#c6d6ee" },
	[TL_COLL_ALLGATHER] = { "#3a9e8f", "#c4e5e0" },
	[TL_COLL_REDUCESCATTER] = { "#8a5cb8", "#ddd0ec" },
	[TL_COLL_ALLTOALL] = { "#e08a2e", "#f6dcbf" },
	[TL_COLL_ALLTOALLV] = { "#c2662a", "#efcfb8" },
	[TL_COLL_BROADCAST] = { "#5c9e3a", "#d2e7c6" },
	[TL_COLL_REDUCE] = { "#2f8fc4", "#c3e0f0" },
	[TL_COLL_GATHER] = { "#2f9e6b", "#c3e6d5" },
	[TL_COLL_SCATTER] = { "#9e8a2f", "#e8e1c3" },
	[TL_COLL_SENDRECV] = { "#b8475c", "#edc9d0" },
	[TL_COLL_SEND] = { "#b8475c", "#edc9d0" },
	[TL_COLL_RECV] = { "#b8475c", "#edc9d0" },
	[TL_COLL_BARRIER] = { "#444444", "#cccccc" },
};

static const char *solid(enum tl_coll_type t)
{
	return type_color[t < TL_COLL_NTYPES ? t : TL_COLL_UNKNOWN][0];
}

static const char *pale(enum tl_coll_type t)
{
	return type_color[t < TL_COLL_NTYPES ? t : TL_COLL_UNKNOWN][1];
}

/* A lane per rank, in rank order: its part of tl_coll_stragglers(), so that
 * the chart's waits are the --stragglers table's. */
struct lane {
	int rank;
	double wait_us;		/* over the implicit-sync collectives */
	uint64_t last;		/* times it arrived last */
};

static int cmp_lane(const void *a, const void *b)
{
	const struct lane *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* NULL after printing why. */
static struct lane *lanes_of(const struct tl_coll_table *t, size_t *nl)
{
	struct tl_coll_rank_stats *st = NULL;
	struct lane *l = NULL;
	size_t i;
	int err = tl_coll_stragglers(t, &st);

	if (err) {
		cli_lib_error(err);
		return NULL;
	}
	l = calloc(st->n ? st->n : 1, sizeof(*l));
	if (!l) {
		cli_error("chart: out of memory");
	} else {
		for (i = 0; i < st->n; i++)
			l[i] = (struct lane){ st->v[i].rank, st->v[i].total_wait_us, st->v[i].times_last };
		qsort(l, st->n, sizeof(*l), cmp_lane);
		*nl = st->n;
	}
	tl_coll_rank_stats_free(st);
	return l;
}

static size_t lane_of(const struct lane *l, size_t nl, int rank)
{
	struct lane key = { .rank = rank };
	const struct lane *hit = bsearch(&key, l, nl, sizeof(*l), cmp_lane);

	return hit ? (size_t)(hit - l) : 0;
}

/* Lane height: 22 px for a few ranks, down to 4 px for hundreds. */
static double lane_h(size_t nl)
{
	double h = 560.0 / (double)(nl ? nl : 1);

	return h > 22 ? 22 : h < 4 ? 4 : h;
}

/* Rank labels: every lane when they fit, else every k-th. */
static size_t label_every(double lh)
{
	return lh >= 12 ? 1 : (size_t)ceil(12 / lh);
}

static double header(FILE *f, const struct tl_coll_table *t, size_t nl, const char *subtitle)
{
	char line[256];
	bool seen[TL_COLL_NTYPES] = { false };
	double x = CH_MARGIN, y = CH_MARGIN + 20;
	size_t i;
	int k;

	svg_text(f, CH_MARGIN, y, "start", "title", FS_TITLE, 0, NULL, "tlreplay collectives");
	snprintf(line, sizeof(line), "%zu collective%s of %zu rank%s%s%s", t->n, t->n == 1 ? "" : "s", nl,
		 nl == 1 ? "" : "s", subtitle ? " \xc2\xb7 " : "", subtitle ? subtitle : "");
	y += 20;
	svg_text(f, CH_MARGIN, y, "start", "sub", FS_SUB, CH_W - 2 * CH_MARGIN, NULL, line);
	for (i = 0; i < t->n; i++)
		seen[t->v[i].type < TL_COLL_NTYPES ? t->v[i].type : TL_COLL_UNKNOWN] = true;
	y += 22;
	for (k = 0; k < TL_COLL_NTYPES; k++) {
		const char *name = tl_coll_type_name((enum tl_coll_type)k);

		if (!seen[k])
			continue;
		svg_rect(f, x, y - 10, 12, 12, solid((enum tl_coll_type)k));
		svg_text(f, x + 16, y, "start", "lbl", FS_LBL, 0, NULL, name);
		x += 16 + svg_text_width(name, FS_LBL) + 18;
	}
	svg_rect(f, x, y - 10, 12, 12, pale(TL_COLL_ALLREDUCE));
	svg_text(f, x + 16, y, "start", "lbl", FS_LBL, 0, NULL, "waiting for the last rank (pale)");
	return y + 14;
}

/* A time axis over [0, @end_us] along the plot's width, ticks down to @y1. */
static void time_axis(FILE *f, double y0, double y1, double end_us, double step_us)
{
	char buf[32];
	double v;

	for (v = 0; v <= end_us * (1 + 1e-9); v += step_us) {
		double x = PLOT_X + v / end_us * PLOT_W;

		svg_line(f, x, y0, x, y1, CH_GRID, 1, NULL);
		if (v > 0)
			fmt_time_us(buf, sizeof(buf), v);
		else
			snprintf(buf, sizeof(buf), "0");
		svg_text(f, x, y1 + 14, "middle", "tick", FS_SMALL, 0, NULL, buf);
	}
}

static double timeline(FILE *f, double y, const struct tl_coll_table *t, const struct lane *l, size_t nl)
{
	double lh = lane_h(nl), tmax = 0, step, end, top, bar;
	size_t i, k, every = label_every(lh);
	char buf[48];

	for (i = 0; i < t->n; i++)
		for (k = 0; k < t->v[i].nranks; k++)
			if (t->v[i].parts[k].start_us + t->v[i].parts[k].dur_us > tmax)
				tmax = t->v[i].parts[k].start_us + t->v[i].parts[k].dur_us;
	nice_ticks(tmax, &step, &end);
	y += 24;
	svg_text(f, CH_MARGIN, y, "start", "h", FS_H, 0, NULL, "Timeline: each rank's collective kernels");
	svg_text(f, CH_W - CH_MARGIN, y, "end", "cap", FS_SMALL, 0, NULL,
		 "outlined: the rank the others waited for");
	top = y + 10;
	for (i = 0; i < nl; i++) {
		if (i % 2)
			svg_rect(f, PLOT_X, top + (double)i * lh, PLOT_W, lh, CH_STRIPE);
		if (i % every == 0) {
			snprintf(buf, sizeof(buf), "rank %d", l[i].rank);
			svg_text(f, PLOT_X - 6, top + ((double)i + 0.5) * lh + 4, "end", "lbl", FS_LBL, LABEL_W - 6, NULL,
				 buf);
		}
	}
	time_axis(f, top, top + (double)nl * lh, end, step);
	bar = lh > 6 ? lh - 3 : lh - 1;
	for (i = 0; i < t->n; i++) {
		const struct tl_coll_row *r = &t->v[i];
		double sync = r->start_us + r->start_skew_us;	/* when the last rank came in */

		for (k = 0; k < r->nranks; k++) {
			const struct tl_coll_part *p = &r->parts[k];
			double yb = top + (double)lane_of(l, nl, p->rank) * lh + (lh - bar) / 2;
			double x0 = PLOT_X + p->start_us / end * PLOT_W, xs, x1;

			x1 = PLOT_X + (p->start_us + p->dur_us) / end * PLOT_W;
			xs = PLOT_X + (sync > p->start_us ? sync : p->start_us) / end * PLOT_W;
			xs = xs < x1 ? xs : x1;
			if (x1 - x0 < 0.6)	/* stays visible however short */
				x1 = x0 + 0.6;
			if (xs > x0)
				svg_bar(f, x0, yb, xs - x0, bar, pale(r->type), "wait");
			svg_bar(f, xs, yb, x1 - xs > 0.6 ? x1 - xs : 0.6, bar, solid(r->type), "xfer");
			if (p->rank == r->slowest_rank && r->nranks > 1 && x1 - x0 >= 3)
				fprintf(f, "<rect class=\"last\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
					"fill=\"none\" stroke=\"" CH_TEXT "\" stroke-width=\"1\"/>\n", x0, yb, x1 - x0, bar);
		}
	}
	svg_text(f, PLOT_X + PLOT_W / 2, top + (double)nl * lh + 30, "middle", "cap", FS_SMALL, 0, NULL,
		 "time from the first collective (ranks on one clock through baseTimeNanoseconds)");
	return top + (double)nl * lh + 36;
}

/* Per rank: total wait (left half) and how often it arrived last (right half). */
static double waits(FILE *f, double y, const struct lane *l, size_t nl, size_t ncoll)
{
	double lh = lane_h(nl), wmax = 0, lmax = 0, step, end, lstep, lend, top, half = (PLOT_W - 40) / 2;
	double xr = PLOT_X + half + 40, bar = lh > 6 ? lh - 3 : lh - 1, v;
	size_t i, every = label_every(lh);
	char buf[64];

	for (i = 0; i < nl; i++) {
		wmax = l[i].wait_us > wmax ? l[i].wait_us : wmax;
		lmax = (double)l[i].last > lmax ? (double)l[i].last : lmax;
	}
	nice_ticks(wmax, &step, &end);
	nice_ticks(lmax, &lstep, &lend);
	if (lstep < 1) {	/* counts: whole ticks */
		lstep = 1;
		lend = ceil(lmax > 0 ? lmax : 1);
	}
	y += 30;
	svg_text(f, CH_MARGIN, y, "start", "h", FS_H, 0, NULL, "Per rank: who waited, and for whom");
	y += 18;
	svg_text(f, PLOT_X, y, "start", "h2", FS_LBL, 0, NULL, "time spent waiting in collectives");
	snprintf(buf, sizeof(buf), "arrived last (of %zu collectives): the others waited for it", ncoll);
	svg_text(f, xr, y, "start", "h2", FS_LBL, half, NULL, buf);
	top = y + 8;
	for (i = 0; i < nl; i++) {
		double yb = top + (double)i * lh + (lh - bar) / 2;

		if (i % 2) {
			svg_rect(f, PLOT_X, top + (double)i * lh, half, lh, CH_STRIPE);
			svg_rect(f, xr, top + (double)i * lh, half, lh, CH_STRIPE);
		}
		if (i % every == 0) {
			snprintf(buf, sizeof(buf), "rank %d", l[i].rank);
			svg_text(f, PLOT_X - 6, top + ((double)i + 0.5) * lh + 4, "end", "lbl", FS_LBL, LABEL_W - 6, NULL,
				 buf);
		}
		svg_bar(f, PLOT_X, yb, l[i].wait_us / end * half, bar, CH_REPLAY, "waited");
		svg_bar(f, xr, yb, (double)l[i].last / lend * half, bar, CH_TRACE, "last");
	}
	for (v = 0; v <= end * (1 + 1e-9); v += step) {
		double x = PLOT_X + v / end * half;

		svg_line(f, x, top, x, top + (double)nl * lh, CH_GRID, 1, NULL);
		if (v > 0)
			fmt_time_us(buf, sizeof(buf), v);
		else
			snprintf(buf, sizeof(buf), "0");
		svg_text(f, x, top + (double)nl * lh + 14, "middle", "tick", FS_SMALL, 0, NULL, buf);
	}
	for (v = 0; v <= lend * (1 + 1e-9); v += lstep) {
		double x = xr + v / lend * half;

		svg_line(f, x, top, x, top + (double)nl * lh, CH_GRID, 1, NULL);
		snprintf(buf, sizeof(buf), "%.0f", v);
		svg_text(f, x, top + (double)nl * lh + 14, "middle", "tick", FS_SMALL, 0, NULL, buf);
	}
	return top + (double)nl * lh + 22;
}

/* Bus bandwidth against message size (log2 axis), one dot per collective. */
static double bandwidth(FILE *f, double y, const struct tl_coll_table *t)
{
	double h = 260, lo = INFINITY, hi = 0, bmax = 0, step, end, top, v;
	size_t i, ndots = 0;
	char buf[32];
	int e, e0, e1;

	for (i = 0; i < t->n; i++) {
		const struct tl_coll_row *r = &t->v[i];

		if (!(r->size_bytes > 0) || !isfinite(r->busbw_gbps))
			continue;
		lo = r->size_bytes < lo ? r->size_bytes : lo;
		hi = r->size_bytes > hi ? r->size_bytes : hi;
		bmax = r->busbw_gbps > bmax ? r->busbw_gbps : bmax;
		ndots++;
	}
	y += 30;
	svg_text(f, CH_MARGIN, y, "start", "h", FS_H, 0, NULL, "Bus bandwidth by message size");
	if (!ndots) {
		svg_text(f, CH_MARGIN, y + 22, "start", "note", FS_SMALL, 0, NULL,
			 "no collective has a known size: the traces record neither the kernels' args nor the "
			 "ops around their launches");
		return y + 30;
	}
	e0 = (int)floor(log2(lo));
	e1 = (int)ceil(log2(hi));
	if (e1 <= e0)
		e1 = e0 + 1;
	nice_ticks(bmax, &step, &end);
	top = y + 14;
	for (v = 0; v <= end * (1 + 1e-9); v += step) {
		double yy = top + h - v / end * h;

		svg_line(f, PLOT_X, yy, PLOT_X + PLOT_W, yy, CH_GRID, 1, NULL);
		snprintf(buf, sizeof(buf), "%g GB/s", v);
		svg_text(f, PLOT_X - 6, yy + 4, "end", "tick", FS_SMALL, 0, NULL, buf);
	}
	for (e = e0; e <= e1; e += (e1 - e0 > 12 ? 2 : 1)) {
		double x = PLOT_X + (double)(e - e0) / (e1 - e0) * PLOT_W;
		static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };

		svg_line(f, x, top, x, top + h, CH_GRID, 1, NULL);
		snprintf(buf, sizeof(buf), "%d %s", 1 << (e % 10), u[e / 10 < 5 ? e / 10 : 4]);
		svg_text(f, x, top + h + 14, "middle", "tick", FS_SMALL, 0, NULL, buf);
	}
	for (i = 0; i < t->n; i++) {
		const struct tl_coll_row *r = &t->v[i];

		if (!(r->size_bytes > 0) || !isfinite(r->busbw_gbps))
			continue;
		fprintf(f, "<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" fill-opacity=\"0.8\"/>\n",
			PLOT_X + (log2(r->size_bytes) - e0) / (e1 - e0) * PLOT_W,
			top + h - r->busbw_gbps / end * h, solid(r->type));
	}
	svg_text(f, PLOT_X + PLOT_W / 2, top + h + 30, "middle", "cap", FS_SMALL, 0, NULL,
		 "message size (log scale); bus bandwidth = size / latency x NCCL's factor, GB of 2^30 bytes");
	return top + h + 36;
}

int coll_chart_svg(const struct tl_coll_table *t, const char *subtitle, char **svg, size_t *len)
{
	char *body = NULL, *doc = NULL;
	size_t blen = 0, dlen = 0, nl = 0;
	struct lane *l = lanes_of(t, &nl);
	FILE *f = NULL;
	double y;
	int ret = 1;

	if (!l)
		goto out;
	f = open_memstream(&body, &blen);
	if (!f) {
		ret = cli_error("chart: out of memory");
		goto out;
	}
	y = header(f, t, nl, subtitle);
	y = timeline(f, y, t, l, nl);
	y = waits(f, y, l, nl, t->n);
	y = bandwidth(f, y, t);
	if (fclose(f) || !(f = open_memstream(&doc, &dlen))) {
		ret = cli_error("chart: out of memory");
		goto out;
	}
	svg_begin(f, CH_W, ceil(y + CH_MARGIN));
	fwrite(body, 1, blen, f);
	svg_end(f);
	ret = fclose(f) ? cli_error("chart: out of memory") : 0;
	if (!ret) {
		*svg = doc;
		*len = dlen;
		doc = NULL;
	}
out:
	free(doc);
	free(body);
	free(l);
	return ret;
}

int coll_chart_write(const char *path, const struct tl_coll_table *t, const char *subtitle)
{
	char *doc = NULL;
	size_t len = 0;
	int ret = coll_chart_svg(t, subtitle, &doc, &len);

	if (!ret)
		ret = chart_render(path, doc, len);
	free(doc);
	return ret;
}
