/* SPDX-License-Identifier: MIT */
/* Counting the timed region of a replay (tlreplay stat and sweep): the
 * counters open on the worker's threads at region_begin and are read at
 * region_end, run after run, into a stat_report. */
#ifndef TLREPLAY_STAT_RUN_H
#define TLREPLAY_STAT_RUN_H

#include "replay/replay-common.h"
#include "stat/perf-control.h"
#include "stat/stat-format.h"

/* How stat and sweep count a region, and their options -r/--repeat N
 * (1..100) and --no-scale. */
struct count_opts {
	const char *cmd;		/* the command, for messages: set before parsing */
	unsigned long long repeat;	/* runs of the region: set to 1 before parsing */
	bool repeat_given;
	bool no_scale;
};
extern const struct opt opts_count[];

/* stat_run()'s result besides 0 and 1 (printed): the replay itself did not
 * succeed; *reply says why (status failed or unavailable). */
#define STAT_RUN_REPLAY_FAILED 2

/* Replay @entry @repeat times on @w, counting @events (NULL: perf's default
 * set) over each timed region; perf stat's control channel @pc (may be NULL)
 * is driven too. @rep gets the events, runs, calls per run and elapsed time;
 * *reply the last run's reply (caller frees). */
int stat_run(const struct replay_opts *ro, struct tl_worker *w, cJSON *entry, const char *events,
	     bool no_scale, unsigned long long repeat, struct perf_ctl *pc, struct stat_report *rep,
	     cJSON **reply);

/* Check an event list (names, syntax, permissions) before anything runs.
 * Returns 0, or 1 after printing why. */
int stat_check_events(const char *events);

/* The counters as the results store records them (docs/results-store.md). */
cJSON *stat_counters_json(const struct stat_report *rep);

/* One run's perf counter values into @rep (events appended the first time
 * they are seen). Returns 0, or 1 after printing why. */
int stat_report_add(struct stat_report *rep, const struct tl_counter_value *v, size_t n);

/* A GPU metric (or why it was not counted) into @rep: @value over the @calls
 * calls of the op one counting pass ran (its counter-value); @summed: a count
 * summed over them (per call: @value / @calls), else a ratio or rate, the
 * same per call. Returns 0, or 1 after printing why. */
int stat_report_add_gpu(struct stat_report *rep, const char *name, const char *unit, bool counted, double value,
			long calls, bool summed, const char *why);

void stat_report_free(struct stat_report *rep);

#endif
