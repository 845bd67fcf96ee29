/* SPDX-License-Identifier: MIT */
/* What tlreplay uid and tlreplay replay share (builtin-uid.c,
 * builtin-replay.c): their options and how a replay's result is printed,
 * for people and as JSON (replay-print.c). */
#ifndef TLREPLAY_REPLAY_PRINT_H
#define TLREPLAY_REPLAY_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "replay/replay-common.h"

/* Options of uid and replay: the trace's (replay takes them too, and does
 * nothing with them), the output's and the replay ones. */
struct ropts {
	struct common_opts co;
	struct replay_opts ro;
	/* replay */
	const char *filter;		/* --op-filter */
	unsigned long long limit;	/* --op-limit */
	bool stop_on_error;
};

/* The rebuilt arguments of an IR entry, one per line. */
void print_args(FILE *f, const cJSON *entry);
/* @key of @o as a number (NaN when absent) or a string (NULL when absent). */
double result_num(const cJSON *o, const char *key);
const char *result_str(const cJSON *o, const char *key);
/* The result of one replay, human-readable. */
void print_result(FILE *f, const struct replay_opts *ro, const cJSON *entry, const cJSON *reply,
		  const struct tl_worker *w, bool show_device);
/* The result as one JSON object (entry summary + reply + stats). */
void print_result_json(FILE *f, const struct replay_opts *ro, const cJSON *entry, const cJSON *reply,
		       size_t index);

#endif
