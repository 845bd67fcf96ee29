/* SPDX-License-Identifier: MIT */
/* Records of replays for the results store (docs/results-store.md): what
 * uid, stat, replay and sweep append after each op. */
#ifndef TLREPLAY_RESULTS_H
#define TLREPLAY_RESULTS_H

#include <cjson/cJSON.h>
#include <tlreplay/store.h>

#include "replay/replay-common.h"

/* Where a replayed entry came from: a trace (with its identity) or an IR file. */
struct result_src {
	const cJSON *trace_id;	/* tl_store_trace_id() of the trace, or NULL */
	const char *ir_path;	/* the IR file, or NULL */
	long ir_index;
};

/* The identities (tl_store_trace_id()) of the traces that IR entries came
 * from (their source.trace), each computed once, so that the results of a
 * batch or a sweep fold into their trace. */
struct trace_ids {
	cJSON *by_path;	/* {path: identity, or null for a trace that moved or is gone} */
};

/* @entry's trace identity (owned by @t), or NULL: no source.trace, a trace
 * that moved or is gone (its results cannot be folded, which is no error),
 * or out of memory. */
const cJSON *trace_ids_get(struct trace_ids *t, const cJSON *entry);
void trace_ids_free(struct trace_ids *t);

/* A new record with the keys every command's records have: v, time, host,
 * pid, @command, tlreplay (NULL when out of memory). */
cJSON *result_new(const char *command);

/* A new record for @entry's @reply (NULL when out of memory). */
cJSON *result_record(const char *command, const struct replay_opts *ro, const struct tl_worker *w,
		     const cJSON *entry, const cJSON *reply, const struct result_src *src);

/* Append @rec to the store of @ro (--store, $TLREPLAY_STORE, the default)
 * unless --no-store. Returns 0, or 1 after printing why. */
int result_store(const struct replay_opts *ro, const cJSON *rec);

#endif
