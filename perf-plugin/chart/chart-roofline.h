/* SPDX-License-Identifier: MIT */
/* The roofline chart of a device (`tlreplay report --roofline FILE`,
 * `tlreplay ops --perf`): one point per row (op, kernel, group) at its
 * arithmetic intensity and achieved FLOP/s, its area proportional to its GPU
 * time and its colour its category, under the device's bandwidth slope and
 * one flat compute roof per dtype the rows use. SVG with no dependency, PNG
 * through rsvg-convert, as the sweep chart (chart-render.c).
 *
 * Like the sweep chart it needs nothing of the CLI but cli_error(), and of
 * the library only tlreplay/gpu.h, so that tests can #include it. */
#ifndef TLREPLAY_CHART_ROOFLINE_H
#define TLREPLAY_CHART_ROOFLINE_H

#include <stddef.h>

#include <tlreplay/gpu.h>

/* One row. Rows without a finite intensity > 0 and FLOP/s > 0 (no FLOPs,
 * no bytes) are counted in the caption but not drawn. */
struct roofline_point {
	double intensity;		/* FLOPs / byte (tl_gpu_roof().intensity) */
	double flops_per_s;		/* achieved FLOP/s */
	double gpu_us;			/* GPU time in µs: the marker's area; <= 0 or NaN: the smallest */
	const char *category;		/* colour and legend entry; NULL: "other" */
	const char *spec;		/* Compute Spec ("matrix_bf16"): which flat roof it is under; may be NULL */
	const char *label;		/* shown beside the largest points; may be NULL */
};

struct roofline_opts {
	const char *title;		/* NULL: "Roofline: <device name>" */
	const char *subtitle;		/* trace name, date; may be NULL */
	size_t nlabels;			/* label the N points of most GPU time (0: none) */
};

/*
 * Draw @n points on @gpu's roofline into @path (.svg, or .png through
 * rsvg-convert), replaced atomically. The flat roofs are those of the specs
 * of the points (after tl_gpu_peak()'s fallbacks, each dtype once); with no
 * spec at all, the device's highest matrix peak and its vector fp32 peak.
 * @o may be NULL. Nothing is kept. Returns 0, or 1 after cli_error().
 */
int roofline_chart_write(const char *path, const struct tl_gpu *gpu, const struct roofline_point *pts, size_t n,
			 const struct roofline_opts *o);

/* The same chart as an SVG document in memory (the HTML report embeds it):
 * *@svg is malloc'ed (the caller frees it), *@len its bytes. Returns 0, or 1
 * after cli_error(). */
int roofline_chart_svg(const struct tl_gpu *gpu, const struct roofline_point *pts, size_t n,
		       const struct roofline_opts *o, char **svg, size_t *len);

#endif
