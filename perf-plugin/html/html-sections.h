/* SPDX-License-Identifier: MIT */
/* The sections of the HTML report. Each draws what the library computed for
 * it (the analyses are run once, in html-report.c, and shared here); a
 * section whose analysis has nothing for the trace (a JAX trace has no op
 * tree, a trace without ProfilerStep has no iterations) is left out, never
 * filled with made-up numbers.
 *
 * Every function returns 0 (*@written says whether the section is on the
 * page), or 1 after printing why with cli_error(). */
#ifndef TLREPLAY_HTML_SECTIONS_H
#define TLREPLAY_HTML_SECTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include <tlreplay/gpu.h>
#include <tlreplay/idle.h>
#include <tlreplay/launch.h>
#include <tlreplay/ranks.h>
#include <tlreplay/report.h>
#include <tlreplay/steps.h>
#include <tlreplay/trace.h>

/* What the sections draw: the trace and the analyses shared by several. */
struct html_ctx {
	struct tl_trace *tr;
	const char *name;			/* the trace's file name, for captions */
	const char *input;			/* -i as given (a directory of ranks), for captions */
	const struct tl_sheet *roofline;	/* the report's roofline sheet, or NULL */
	const struct tl_gpu *gpu;		/* the trace's GPU, or NULL (no roofs) */
	const struct tl_step_set *steps;	/* NULL: the trace has none */
	const struct tl_idle_set *idle;		/* with gaps, of the linked GPU events (as tlreplay idle); NULL: none */
	const struct tl_idle_set *idle_all;	/* with gaps, of every GPU event (as the timeline draws them) */
	const struct tl_launch_set *launches;	/* NULL: no linked launch */
	const struct tl_rankset *ranks;		/* the ranks of -i DIR, else NULL */
	int rank;				/* with ranks: the rank whose trace @tr is */
	const char *store;			/* the results store to read */
};

/* 1. GPU time breakdown per device and per stream: bars and a table. */
int hs_breakdown(FILE *f, const struct html_ctx *c, bool *written);
/* 2. the timeline (html-gantt.h) with its controls and legend. */
int hs_timeline(FILE *f, const struct html_ctx *c, bool *written);
/* 3. top ops and kernels, the perf-model groups with their roofs, the roofline chart. */
int hs_top(FILE *f, const struct html_ctx *c, bool *written);
/* 4. idle time by cause and launch overhead, per device and per iteration. */
int hs_idle(FILE *f, const struct html_ctx *c, bool *written);
/* 5. the ranks of a directory: their breakdowns, collectives across them. */
int hs_ranks(FILE *f, const struct html_ctx *c, bool *written);
/* 6. the replay results of the store for this trace, beside its times. */
int hs_replay(FILE *f, const struct html_ctx *c, bool *written);
/* 7. the health check's findings. */
int hs_health(FILE *f, const struct html_ctx *c, bool *written);

#endif
