/* SPDX-License-Identifier: MIT */
/* The chart of `tlreplay sweep`: per-op time (replay median next to the
 * trace's GPU time), one small panel per counter event, and a roofline when
 * FLOPs and bytes are known. SVG written with no dependency; PNG through
 * rsvg-convert (Debian: librsvg2-bin).
 *
 * Self-contained: sweep-chart.c, chart-svg.c, chart-roofline.c and
 * chart-render.c need nothing of the CLI but cli_error() (cli.h), so that
 * tests/unit/test_chart.c can #include them. */
#ifndef TLREPLAY_SWEEP_CHART_H
#define TLREPLAY_SWEEP_CHART_H

#include <stdbool.h>
#include <stddef.h>

/* One counter event of an op: its value per call, NAN when not counted. */
struct chart_counter {
	const char *event;		/* "instructions", "l2_cache_misses", ... */
	double per_call;
};

struct chart_op {
	const char *label;		/* "aten::addmm (uid 48)" */
	const char *detail;		/* shapes, "[141,512] x [512,512] bf16"; may be NULL */
	double replay_us;		/* median per call of the replay, NAN if none */
	const char *device;		/* where it was replayed: "cpu", "cuda:0"; may be NULL */
	double trace_gpu_us;		/* the op's GPU time per call in the trace, NAN if none */
	double flops, bytes;		/* per call (tl_ir_flops()), NAN if unknown */
	const struct chart_counter *ctr;
	size_t nctr;
};

struct chart_opts {
	const char *title;		/* NULL: "tlreplay sweep" */
	const char *subtitle;		/* trace, device, torch version, date; may be NULL */
	double peak_gflops;		/* roofline ceilings, 0 = unknown */
	double peak_gbs;
	const char *noun;		/* what a row is, plural: NULL "ops" */
	bool keep_order;		/* rows in the order given, not by trace time */
};

/*
 * Draw @n ops (in any order: the chart sorts them by trace GPU time, then by
 * replay time) into @path: SVG when it ends in .svg, PNG when it ends in
 * .png (needs rsvg-convert in PATH). The file is replaced atomically
 * (temporary file + rename). @o may be NULL. Nothing of @ops is kept.
 * Returns 0, or 1 after printing why with cli_error().
 */
int chart_write(const char *path, const struct chart_op *ops, size_t n, const struct chart_opts *o);

#endif
