/* SPDX-License-Identifier: MIT */
/* perf stat's output formats for tlreplay stat: the human table, -x SEP
 * (perf's field order) and -j (perf's keys), with perf's derived metrics
 * (CPUs utilized, K/sec, GHz, insn per cycle, miss ratios) and its -r noise
 * figure (the standard deviation of the mean, in percent of the mean). */
#ifndef TLREPLAY_STAT_FORMAT_H
#define TLREPLAY_STAT_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <tlreplay/counters.h>

/* Running statistics of one quantity over the -r runs (Welford). */
struct welford {
	size_t n;
	double mean, m2;
};

void welford_add(struct welford *w, double x);
/* perf's noise: 100 * sqrt(M2 / (n - 1) / n) / mean (0 for n < 2 or mean 0). */
double welford_noise_pct(const struct welford *w);
/* The standard deviation of the mean (0 for n < 2). */
double welford_stddev_mean(const struct welford *w);

/* One event over every run. */
struct stat_event {
	char *name, *unit;
	enum tl_counter_status status;	/* NOT_SUPPORTED if any run said so; NOT_COUNTED if never ran */
	char *why;
	struct welford value;		/* scaled, per run */
	double raw_sum;
	uint64_t enabled_ns, running_ns;	/* summed over runs */
	bool per_call_value;			/* value is the same per call (a GPU ratio or rate) */
	long calls;				/* > 0: the calls its value is over (GPU metrics), else the report's */
};

struct stat_report {
	const char *what;		/* "tlreplay uid 48" */
	const char *op;			/* "aten::addmm" */
	const char *device;
	long calls_per_run;		/* timed calls in one region */
	size_t runs;
	struct stat_event *ev;
	size_t nev;
	struct welford elapsed_s;	/* wall time of the region */
	bool repeat;			/* -r was given (print noise columns) */
};

/* Event @e's value per call of the op. */
double stat_per_call(const struct stat_report *r, const struct stat_event *e);

/* perf's derived metric for event @i, if any: value and unit ("CPUs utilized"). */
bool stat_metric(const struct stat_report *r, size_t i, double *value, const char **unit);

void stat_print_human(FILE *f, const struct stat_report *r);
/* perf stat -x's rows, one per counter; with @per_call each followed by a
 * metric-only row (earlier fields empty) with the value per call. */
void stat_print_csv(FILE *f, const struct stat_report *r, const char *sep, bool per_call);
void stat_print_json(FILE *f, const struct stat_report *r);

#endif
