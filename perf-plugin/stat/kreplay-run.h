/* SPDX-License-Identifier: MIT */
/* Recorded kernel launches replayed in this process, for `tlreplay kreplay`
 * and `tlreplay stat ... kreplay` (kreplay-run.c): one launch timed with
 * CUDA events, verified, counted with -e (CPU counters and GPU metrics);
 * its line of output and its results record; the grid search over launch
 * configurations. */
#ifndef TLREPLAY_KREPLAY_RUN_H
#define TLREPLAY_KREPLAY_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>
#include <tlreplay/kreplay.h>
#include <tlreplay/replay.h>

#include "stat/stat-run.h"
#include "util/cli.h"

/* The options of kreplay (its table is in builtin-kreplay.c). */
struct kreplay_opts {
	struct common_opts co;		/* -x, -j, -o */
	const char *kernel, *launch, *tolerance, *grid, *block, *events, *chart, *store;
	unsigned long long reps, warmup, device;
	bool flush_l2, verify, no_store;
	/* `tlreplay stat ... kreplay DB`: counted regions, perf stat's -r and --no-scale */
	unsigned long long runs;
	bool repeat_given, no_scale;
	const char *what;		/* the report's "Performance counter stats for" */
};

/* One launch replayed: what it measured and found. */
struct run {
	const struct tl_kdb_launch *l;
	size_t idx;
	struct tl_stats st;
	bool verified, matched;
	struct tl_kverify v;
	struct stat_report rep;
	bool counted;
	char device[256];
};

/* Replay launch r->l of @db under @o: timed, verified within @tol (as @dt)
 * when o->verify, counted when o->events. Returns 0, or 1 after printing why. */
int kreplay_run_one(const struct kreplay_opts *o, const struct tl_kdb *db, struct run *r, double tol,
		   enum tl_kdtype dt);
/* Its line (or -x/-j row) of output. */
void kreplay_print_run(struct out_fmt *f, const struct run *r, const char *device);
/* Its results record (@error set when it failed). */
cJSON *kreplay_run_record(const struct kreplay_opts *o, const struct tl_kdb *db, const struct run *r,
			 const char *device, const char *error);
/* @rec appended to the results store of @o (unless --no-store). */
int kreplay_store(const struct kreplay_opts *o, const cJSON *rec);
/* --grid/--block: every configuration of launch @idx, timed (and verified). */
int kreplay_grid_search(const struct kreplay_opts *o, const struct tl_kdb *db, size_t idx, double tol,
		       enum tl_kdtype dt, struct out_fmt *f);

/* `tlreplay stat [options] kreplay DB [N]`: count over launch N of a kernel
 * record database (kreplay-run.c). The report's names point into the
 * request. Returns 0, or 1 after printing why; the result is stored. */
struct kreplay_stat_req {
	const char *db, *launch, *events, *store;
	unsigned long long runs;	/* -r */
	bool repeat_given, no_scale, flush_l2, no_store;
	long iters, warmup;
	int device;
	char what[4200], op[4096], device_name[256];	/* filled */
};
int kreplay_stat(struct kreplay_stat_req *q, struct stat_report *rep);

#endif
