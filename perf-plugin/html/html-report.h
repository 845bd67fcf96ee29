/* SPDX-License-Identifier: MIT */
/* `tlreplay report --html FILE.html`: one self-contained page (inline CSS,
 * SVG and a small script; nothing fetched) that tells a trace's story: the
 * breakdown per device and stream, the GPU timeline, the top ops and
 * kernels with their roofs, idle causes and launch overhead per iteration,
 * the ranks' collectives, replay results, the health check. */
#ifndef TLREPLAY_HTML_REPORT_H
#define TLREPLAY_HTML_REPORT_H

#include <tlreplay/gpu.h>
#include <tlreplay/ranks.h>
#include <tlreplay/report.h>
#include <tlreplay/trace.h>

struct html_report_in {
	struct tl_trace *tr;		/* the trace (a directory's: one rank's) */
	const char *input;		/* -i as given: the trace or the directory */
	const struct tl_sheet *roofline;	/* the report's roofline sheet, or NULL */
	const struct tl_gpu *gpu;	/* the trace's GPU, or NULL */
	const struct tl_rankset *ranks;	/* -i DIR: every rank, else NULL */
	int rank;			/* with ranks: the rank of @tr */
	const char *store;		/* --store, NULL: the default results store */
};

/* Run the analyses the page draws and write it to @path atomically (a
 * temporary file beside it, renamed when whole). Returns 0, or 1 after
 * printing why. */
int html_report_write(const char *path, const struct html_report_in *in);

#endif
