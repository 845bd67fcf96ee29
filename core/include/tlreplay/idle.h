/* SPDX-License-Identifier: MIT */
/**
 * @file idle.h
 * @brief GPU idle time broken down by cause, per device and per stream.
 *
 * An idle gap is a stretch of time between two GPU events (kernel,
 * gpu_memcpy, gpu_memset) during which none runs, taken in two views:
 *
 *  - per stream, each stream's own gaps, as HTA's get_idle_time_breakdown
 *    does (a gap on one stream may be busy time on another);
 *  - per device, the gaps of the union of all the device's GPU events: the
 *    same union as tl_breakdown() with TL_BD_GROUP_DEVICE, so the gaps of a
 *    device add up to its idle_time (to the rounding of a sum of doubles;
 *    idle_us itself is computed as the breakdown computes it, bit for bit).
 *
 * Each gap gets one of HTA's three categories from the GPU event that ends
 * it (the "next" event; at a device, the one of those starting then that
 * was launched first):
 *
 *  - host wait: the next event's launch call (its CUDA/HIP runtime event)
 *    started after the gap began: nothing was queued, the GPU waited for
 *    the CPU;
 *  - kernel wait: it was queued already and the gap is shorter than
 *    kernel_wait_us (HTA's consecutive_kernel_delay, which HTA compares with
 *    the trace's microsecond timestamps: 30 us by default);
 *  - other: queued already and longer (a wait on another stream, an event,
 *    a dependency).
 *
 * and, beside its category, at most one cause that the trace shows, in this
 * order of precedence:
 *
 *  - sync drain: the gap overlaps a host call that waits for the GPU
 *    (cuda/hip Device, Stream or Event Synchronize, cuCtx/cuStream/cuEvent
 *    Synchronize), on any host thread;
 *  - pageable memcpy: the gap overlaps the runtime call of a copy to or
 *    from pageable host memory ("Pageable" in the name or args of its
 *    gpu_memcpy event), which blocks the host while it stages the data;
 *  - micro idle: a host-wait gap shorter than micro_idle_us (the CPU
 *    launched slower than the GPU ran: launch-bound), off by default as
 *    TraceLens's micro_idle_thresh_us is.
 *
 * Times are microseconds. The result is owned by the caller
 * (tl_idle_set_free()); its strings are owned by the trace, so it must not
 * outlive the trace.
 */
#ifndef TLREPLAY_IDLE_H
#define TLREPLAY_IDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tl_trace;

/** HTA's categories of an idle gap. */
enum tl_idle_cat {
	TL_IDLE_HOST_WAIT = 0,
	TL_IDLE_KERNEL_WAIT,
	TL_IDLE_OTHER,
	TL_IDLE_NCATS
};

/** What the trace shows about a gap beside its category. */
enum tl_idle_cause {
	TL_IDLE_CAUSE_NONE = 0,		/**< nothing more is known */
	TL_IDLE_SYNC_DRAIN,
	TL_IDLE_PAGEABLE_MEMCPY,
	TL_IDLE_MICRO,
	TL_IDLE_NCAUSES
};

/** @return "host_wait", "kernel_wait", "other" (static). */
TL_API const char *tl_idle_cat_name(enum tl_idle_cat c);
/** @return "none", "sync_drain", "pageable_memcpy", "micro_idle" (static). */
TL_API const char *tl_idle_cause_name(enum tl_idle_cause c);

/** HTA's consecutive_kernel_delay, in the trace's microseconds. */
#define TL_IDLE_KERNEL_WAIT_US 30.0

struct tl_idle_opts {
	size_t sz;
	bool include_unlinked;	/**< also GPU events no runtime call launched (as tl_breakdown) */
	/** Kernel wait below this gap; 0 = TL_IDLE_KERNEL_WAIT_US; < 0: no gap is kernel wait. */
	double kernel_wait_us;
	/** Micro idle below this host-wait gap; 0 = off. */
	double micro_idle_us;
	const char *device;	/**< only this device (as printed: GPU pid), NULL = all */
	const char *stream;	/**< only the rows of this stream (GPU tid), NULL = all */
	bool keep_gaps;		/**< fill tl_idle_row.gaps */
	/**
	 * Per-stream rows exactly as HTA computes them, and no device rows: the
	 * GPU events launched before the last ProfilerStep only (when the trace
	 * has several), timestamps rounded to whole microseconds as HTA's parser
	 * does (start up, end down) when they have fractions, and each gap taken
	 * from the previous event of the stream in start order (a gap may be
	 * zero or negative then, and counts).
	 */
	bool hta;
};

/** One idle gap. */
struct tl_idle_gap {
	double start, end;	/**< us, as the trace's ts */
	uint64_t next_uid;	/**< the GPU event that ends the gap */
	int64_t cause_uid;	/**< the sync or memcpy call of the cause, else -1 */
	uint8_t cat;		/**< enum tl_idle_cat */
	uint8_t cause;		/**< enum tl_idle_cause */
};

/** The idle time of one device or one (device, stream). */
struct tl_idle_row {
	const char *device;	/**< GPU pid */
	const char *stream;	/**< GPU tid; NULL for a device row */
	uint64_t nevents;	/**< GPU events of the row */
	double span_us;		/**< last end - first start (tl_breakdown's total_time) */
	double busy_us;		/**< |union of the events| */
	double idle_us;		/**< span_us - busy_us, as tl_breakdown computes idle_time */
	uint64_t ngaps;
	/** Gap time and count by category and cause; each [cat] row sums to that category. */
	double us[TL_IDLE_NCATS][TL_IDLE_NCAUSES];
	uint64_t n[TL_IDLE_NCATS][TL_IDLE_NCAUSES];
	struct tl_idle_gap *gaps;	/**< ngaps gaps in time order when keep_gaps, else NULL */
};

struct tl_idle_set {
	size_t ndev, nstream;
	struct tl_idle_row *dev;	/**< by device */
	struct tl_idle_row *stream;	/**< by device, then stream */
	double kernel_wait_us, micro_idle_us;	/**< the thresholds used */
	uint64_t nsync, npageable;	/**< sync and pageable-copy calls found */
	/* with opts.hta: */
	bool hta_rounded;	/**< timestamps were rounded to whole us */
	double hta_before_us;	/**< events launched before this ts only (the last step's start), else INFINITY */
};

/**
 * Break the GPU idle time of @p tr down (see the file comment).
 * @return 0; -ENODATA if no GPU event qualifies; -ENOENT if opts->device or
 *         opts->stream names none with GPU events; -EINVAL for a NaN
 *         threshold; -ENOMEM. tl_last_error() says which.
 */
TL_API int tl_idle_breakdown(struct tl_trace *tr, const struct tl_idle_opts *opts,
			     struct tl_idle_set **out);
/** Free a result of tl_idle_breakdown() (NULL is fine). */
TL_API void tl_idle_set_free(struct tl_idle_set *set);

#ifdef __cplusplus
}
#endif

#endif
