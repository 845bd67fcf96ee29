/* SPDX-License-Identifier: MIT */
/* results: what replays produced, kept and put back into the trace. The
 * results store appends every record crash-safely (store.c), tied to its
 * trace by an id (store_id.c); fold writes a copy of the trace with the
 * results in it: choosing the records (fold.c), turning them into JSON for
 * the ops, their kernels (fold_annot.c) and counter tracks (fold_tracks.c),
 * and splicing that JSON into the trace text (fold_write.c). It depends on
 * trace and base. */
#ifndef TL_RESULTS_INTERNAL_H
#define TL_RESULTS_INTERNAL_H

#include <tlreplay/fold.h>

#include "base/base_internal.h"
#include "trace/trace_internal.h"

/* ================================================================= fold*.c */

/* A kept record. The strings point into @rec ("" when absent). */
struct fold_rec {
	cJSON *rec;
	uint64_t uid;
	const char *device, *command, *time;
	const char *events;	/* a sweep's event group ("" otherwise): each group its own result */
	size_t order;		/* arrival order: breaks ties of "time" */
};

struct tl_fold {
	cJSON *id;		/* {"path","size","sig"} of the trace */
	char *store, *folded_at;
	TL_VEC(struct fold_rec) recs;
	bool finished;		/* recs sorted, one winner per (uid, device, command, events) */
	struct tl_fold_result res;
};

/* Sort the kept records by (uid, device, command, events) and drop all but the
 * latest of each group (counted as superseded). Idempotent. */
void tl_fold_finish(struct tl_fold *f);
/* Is @a later than @b ("time", then arrival order)? */
bool tl_fold_rec_later(const struct fold_rec *a, const struct fold_rec *b);

/* One op with results and what is written for it. */
struct fold_op {
	uint64_t uid;
	struct fold_rec *recs;	/* its winners, sorted by (device, command) */
	size_t n;
	uint64_t *kernels;	/* GPU events it launched */
	size_t nk;
	double trace_gpu_us;	/* |union| of their [ts, ts+dur), 0 if none */
	cJSON *args;		/* args["tlreplay"] of the op */
	cJSON *kargs;		/* args["tlreplay"] of each of its kernels */
	cJSON *tracks;		/* {counter track key: value} while the op runs */
};

/* Copy a result to the caller's struct, which may be an older, shorter one
 * (its sz says how long; 0 means this version's). */
static inline void tl_fold_copy_res(struct tl_fold_result *dst, const struct tl_fold_result *src)
{
	size_t n;

	if (!dst)
		return;
	n = dst->sz && dst->sz < sizeof(*dst) ? dst->sz : sizeof(*dst);
	memcpy(dst, src, n);
	dst->sz = n;
}

/* Fill @op's kernels, trace_gpu_us, args, kargs and tracks (the tree must
 * be built). The caller frees them, also on failure. */
int tl_fold_annotate(struct tl_trace *tr, struct fold_op *op);
/* The ph:"C" events of all ops as text, each preceded by ",\n" (ready to
 * go before traceEvents' ']'); *n gets how many. Caller frees *text. */
int tl_fold_counter_events(const struct tl_trace *tr, const struct fold_op *ops, size_t nops,
			   char **text, size_t *len, uint64_t *n);

#endif
