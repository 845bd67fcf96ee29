/* SPDX-License-Identifier: MIT */
/* The HTML report's timeline (gantt): every GPU stream's events over time,
 * coloured by class (compute, comm, memcpy), each device's idle gaps by
 * cause, and the CPU threads' launch calls above them; the page's script
 * draws it from the JSON this writes and zooms it.
 *
 * What is drawn comes from the library: the events and their class
 * (tl_gpu_event_class()), the launch calls (tl_launch_stats()), the idle
 * gaps (tl_idle_breakdown() with keep_gaps), the steps (tl_steps()). Only
 * the drawing is reduced: a lane's intervals closer than a resolution are
 * merged into one (its colour the class with most time in it, its opacity
 * how busy it is), the resolution the smallest that keeps the whole
 * timeline under a budget of intervals, so that a 290 MB trace gives a page
 * of a few MB and the script draws any zoom at once. */
#ifndef TLREPLAY_HTML_GANTT_H
#define TLREPLAY_HTML_GANTT_H

#include <stddef.h>
#include <stdio.h>

#include <tlreplay/idle.h>
#include <tlreplay/launch.h>
#include <tlreplay/steps.h>
#include <tlreplay/trace.h>

/* The default budget: about 1 MB of JSON. */
#define GANTT_MAX_INTERVALS 60000

struct gantt_in {
	struct tl_trace *tr;
	const struct tl_launch_set *launches;	/* the CPU lanes; NULL: none */
	const struct tl_idle_set *idle;		/* with gaps (keep_gaps): the idle lanes; NULL: none */
	const struct tl_step_set *steps;	/* the iterations to zoom to; NULL: none */
	size_t max_intervals;			/* 0: GANTT_MAX_INTERVALS */
};

/* What was drawn, for the caption. */
struct gantt_stats {
	size_t lanes, gpu_events, intervals;
	double resolution_us;	/* gaps up to this were merged; 0: every event as it is */
	double span_us;
};

/*
 * Write the timeline of @in as one JSON object on @f (for a <script
 * type="application/json">). Returns 0; -ENODATA when the trace has no GPU
 * event with a duration (the section is left out); -ENOMEM.
 */
int gantt_write_json(FILE *f, const struct gantt_in *in, struct gantt_stats *st);

#endif
