/* SPDX-License-Identifier: MIT */
/**
 * @file split.h
 * @brief One trace file per iteration (or per phase) of a trace, each a
 *        trace of its own that tlreplay, TraceLens and Perfetto load, and a
 *        manifest.json that says what each holds.
 *
 * The iterations are those of tl_steps() (include/tlreplay/steps.h), and an
 * event goes where tl_step_of_event() puts it: a host event by its start, a
 * GPU event with the runtime call that launched it, a flow with the event
 * its start is on (so a kernel and its launch stay linked in the same file);
 * metadata events and events without a time go to every file; an event in
 * no iteration goes to none (the manifest's coverage says how much GPU time
 * that is). Each file is the source text's events, byte for byte, in their
 * order, with the trace's other top-level members (deviceProperties,
 * distributedInfo, ...) copied in front.
 *
 * The source text is read once for up to 256 files at a time, through
 * buffered writes: memory beyond the loaded trace is a few MB per 256
 * files. Each file appears whole or not at all (tlreplay/output.h), a batch
 * of 256 all at once; manifest.json is written last, so a directory with a
 * manifest holds every file it names.
 *
 * Ownership: the result is the caller's (tl_split_result_free()); its names
 * point into the trace, which must outlive it.
 */
#ifndef TLREPLAY_SPLIT_H
#define TLREPLAY_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tl_trace;

enum tl_split_by {
	TL_SPLIT_ITERATION, /**< iteration-N.json, one per step */
	TL_SPLIT_PHASE,	    /**< prefill.json, decode.json, mixed.json (serving traces) */
};

struct tl_split_opts {
	size_t sz;   /**< sizeof(struct tl_split_opts) */
	int by;	     /**< enum tl_split_by */
	bool steady; /**< the steady-state steps only (tl_steps_steady()) */
};

struct tl_split_part {
	char *file;	  /**< the file's name in the directory (owned) */
	long long number; /**< the step's number (TL_SPLIT_PHASE: -1) */
	const char *name; /**< the step's annotation, or the phase's name */
	int phase;	  /**< enum tl_phase */
	size_t steps;	  /**< steps in it */
	double ts, end;	  /**< the host range of its steps (first start, last end), us */
	uint64_t events;  /**< events written, metadata included */
	uint64_t gpu_events;
	double gpu_us; /**< summed durations of its GPU events */
};

struct tl_split_result {
	size_t n;
	struct tl_split_part *v;
	double gpu_us;	 /**< summed durations of every GPU event of the trace */
	double coverage; /**< the parts' GPU time over gpu_us (1 when there is none) */
};

/**
 * @brief Split @p tr into @p dir (made if missing) as the file comment says.
 * @return 0; -ENODATA (no steps), -ENOENT (TL_SPLIT_PHASE: no phases),
 *         -ENOTSUP (not a JSON trace: an XProf protobuf), -EBUSY (captures
 *         merged: the text no longer matches its events), -errno of a file
 *         (the batch being written leaves nothing; no manifest is written),
 *         -ENOMEM.
 */
TL_API int tl_split(struct tl_trace *tr, const char *dir, const struct tl_split_opts *opts,
		    struct tl_split_result **out);
TL_API void tl_split_result_free(struct tl_split_result *r);

#ifdef __cplusplus
}
#endif

#endif
