/* SPDX-License-Identifier: MIT */
/**
 * @file fold.h
 * @brief Fold replay results (records of the results store, store.h) into a
 *        new copy of their trace, so that Perfetto and chrome://tracing show
 *        them beside the original events.
 *
 * The copy is the original JSON text with insertions only, streamed from the
 * loaded trace (a GB trace folds at disk speed; no cJSON tree of it):
 *  - each replayed op gets args["tlreplay"]: flat numbers for the args panel
 *    ("cpu_median_us", "cuda_median_us", "trace_gpu_us", "replay_over_trace")
 *    and "replays", one entry per (device, command, sweep event group) with times, counters and
 *    the kernel verdict;
 *  - each GPU event the op launched (tl_event_launcher() == op) gets
 *    args["tlreplay"] = {"op_uid", "op", the op's medians, "replay_over_trace"};
 *  - ph:"C" counter events named "tlreplay" on the op's pid (one track per
 *    key: "<device> replay us", "<device> <event> per call") hold the value
 *    over the op's [ts, ts+dur) and are appended to traceEvents, so every
 *    original event keeps its UID;
 *  - a top-level "tlreplay" summary; a bare-array trace becomes
 *    {"traceEvents": [...], "tlreplay": {...}}.
 * Existing ts, units and baseTimeNanoseconds are never rewritten; events
 * without "args" get one. Folding a folded trace replaces the "tlreplay"
 * members it rewrites (no duplicate keys). docs/results-store.md has the
 * details.
 *
 * Which records count: those whose "trace" has the trace's "sig" and "size"
 * (a copied or renamed trace still matches), else its absolute "path";
 * with "status" "ok"; and whose "uid" names an event of the trace with the
 * record's "op" as its name. Per (uid, device, command, "events") the latest record
 * ("time", then store order) wins.
 *
 * Usage: tl_fold_new(), tl_fold_add() for each record (e.g. from
 * tl_store_read()), tl_fold_stats() to learn whether any belong to the trace
 * before loading it, tl_fold_write(), tl_fold_free(). tl_fold() does it all
 * for an array of records.
 */
#ifndef TLREPLAY_FOLD_H
#define TLREPLAY_FOLD_H

#include <stddef.h>
#include <stdint.h>

#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;
struct tl_trace;
struct tl_fold;

/** Receives the folded trace in consecutive pieces; returns 0 or -errno (which stops the fold). */
typedef int (*tl_fold_write_fn)(const void *buf, size_t len, void *ctx);

/** Options; zero-initialise and set .sz. */
struct tl_fold_opts {
	size_t sz;
	/** Identity the records must match ({"path","size","sig"}, as made by
	 *  tl_store_trace_id()); copied. NULL: tl_store_trace_id(trace_path). */
	const struct cJSON *trace_id;
	/** The trace file, when trace_id is NULL (tl_fold(): NULL means tl_trace_path()). */
	const char *trace_path;
	/** The store the records come from, named in the summary; may be NULL. */
	const char *store;
	/** "folded_at" of the summary (ISO-8601); NULL: now, UTC. */
	const char *folded_at;
};

/** What a fold found and did (counts of records and of what was written). */
struct tl_fold_result {
	size_t sz;
	uint64_t records;	/**< records given to tl_fold_add() */
	uint64_t other_traces;	/**< of other traces, or of no trace (replays of IR files) */
	uint64_t this_trace;	/**< of this trace (the rest of the counts split these) */
	uint64_t path_only;	/**< of this trace by path only: the file changed since (warn) */
	uint64_t not_ok;	/**< status "failed", "unavailable", ... */
	uint64_t invalid;	/**< no integer "uid" */
	uint64_t superseded;	/**< a later result for the same (uid, device, command, events) won */
	uint64_t mismatched;	/**< uid past the trace's events or naming another op (write) */
	uint64_t used;		/**< results folded */
	uint64_t ops;		/**< ops annotated */
	uint64_t kernels;	/**< GPU events annotated */
	uint64_t counter_events;	/**< ph:"C" events appended */
};

/**
 * @brief Start a fold for the trace identified by @p opts.
 * @param[out] out freed with tl_fold_free().
 * @return 0; -EINVAL (neither trace_id nor trace_path), the errors of
 *         tl_store_trace_id(), -ENOMEM.
 */
TL_API int tl_fold_new(const struct tl_fold_opts *opts, struct tl_fold **out);

/**
 * @brief Offer one record: kept (copied) if it is an ok result of this
 *        trace, counted otherwise. @p rec is borrowed.
 * @return 0, or -ENOMEM.
 */
TL_API int tl_fold_add(struct tl_fold *f, const struct cJSON *rec);

/**
 * @brief Counts so far (records, this_trace, other_traces, not_ok, invalid,
 *        superseded, and usable results in @c used; mismatched and the rest
 *        are known after tl_fold_write()).
 */
TL_API void tl_fold_stats(struct tl_fold *f, struct tl_fold_result *res);

/**
 * @brief Write the folded copy of @p tr through @p write. Nothing is
 *        written when no result applies.
 * @param tr the trace the records were matched against, loaded with
 *           tl_trace_open() (its call tree is built if needed).
 * @param[out] res may be NULL.
 * @return 0; -ENODATA (no usable result for this trace: tl_last_error()
 *         says how many records are for other traces); @p write's error;
 *         -EBADMSG (text not as loaded), -ESTALE (the trace's file was
 *         truncated or rewritten in place since it was loaded), -ENOMEM.
 */
TL_API int tl_fold_write(struct tl_fold *f, struct tl_trace *tr, tl_fold_write_fn write,
			 void *ctx, struct tl_fold_result *res);

/**
 * @brief The results that count, for readers that show them rather than fold
 *        them (the HTML report): one record per (uid, device, command,
 *        events), the latest, sorted by uid, then device, command, events.
 * @return how many; tl_fold_kept() gives each (owned by @p f, valid until
 *         the next tl_fold_add() or tl_fold_free()).
 */
TL_API size_t tl_fold_nkept(struct tl_fold *f);
/** @return kept record @p i (< tl_fold_nkept()), or NULL past the end. */
TL_API const struct cJSON *tl_fold_kept(struct tl_fold *f, size_t i);

/** Free a fold (NULL is fine). */
TL_API void tl_fold_free(struct tl_fold *f);

/**
 * @brief All of the above for an array of @p n records.
 * @return as tl_fold_new() and tl_fold_write().
 */
TL_API int tl_fold(struct tl_trace *tr, const struct cJSON *const *records, size_t n,
		   const struct tl_fold_opts *opts, tl_fold_write_fn write, void *ctx,
		   struct tl_fold_result *res);

/** One member set in an event's args by tl_trace_write_marked(). */
struct tl_mark {
	uint64_t uid;		/**< the event (of the trace's own text) */
	const char *key;	/**< a plain key (no escapes); an existing member of that name is replaced */
	const char *json;	/**< the value, as JSON text ("1", "\"kernel\"", "{...}") */
};

/** One event appended to traceEvents by tl_trace_write_marked(). */
struct tl_extra_event {
	uint64_t like;		/**< it gets the pid and tid of this event, as written there */
	const char *members;	/**< then these members (JSON text without braces; not empty) */
};

/**
 * @brief Write a copy of @p tr's text with @p marks set in events' args (an
 *        args object is made where an event has none) and @p extra appended
 *        to traceEvents; every original event keeps its UID. Streamed as
 *        tl_fold_write() streams: no JSON tree of the trace, so memory stays
 *        that of the loaded trace whatever its size. Two marks of one event
 *        must have different keys.
 * @return 0; -EINVAL (a uid past the trace's text), -EBADMSG (the text does
 *         not walk as it loaded), -ENOMEM, or what @p write returned.
 */
TL_API int tl_trace_write_marked(struct tl_trace *tr, const struct tl_mark *marks, size_t nmarks,
				 const struct tl_extra_event *extra, size_t nextra,
				 tl_fold_write_fn write, void *ctx);

/**
 * The source of tl_trace_write_marked_gen()'s appended events: fill @p out
 * with the @p i-th (0 .. nextra-1, in order, each asked once). Its members
 * may be written into @p buf (@p size bytes, at least 4096) or point at
 * text of @p ctx that stays until the next call.
 * @return 0 or a negative errno, which ends the write with it.
 */
typedef int (*tl_extra_event_fn)(void *ctx, size_t i, struct tl_extra_event *out, char *buf, size_t size);

/**
 * @brief tl_trace_write_marked() with the appended events made one at a time
 *        as they are written: a long list (critpath --fold's two flow
 *        events per path edge: 170 MB of text for a trace of a million
 *        events) is never held whole, by the caller or in here.
 * @return as tl_trace_write_marked(), or what @p extra returned.
 */
TL_API int tl_trace_write_marked_gen(struct tl_trace *tr, const struct tl_mark *marks, size_t nmarks,
				     tl_extra_event_fn extra, void *extra_ctx, size_t nextra, tl_fold_write_fn write,
				     void *ctx);

#ifdef __cplusplus
}
#endif
#endif
