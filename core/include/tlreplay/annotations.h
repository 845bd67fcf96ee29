/* SPDX-License-Identifier: MIT */
/**
 * @file annotations.h
 * @brief record_function / user_annotation ranges projected onto the GPU
 *        (HTA's user annotation breakdown, Nsight's nvtx_gpu_proj_sum).
 *
 * Per range name:
 *  - CPU ranges (user_annotation: record_function, ProfilerStep#N, NVTX-style
 *    ranges): count, CPU time (sum of durations), the GPU events (kernel,
 *    gpu_memcpy, gpu_memset) launched from inside each range (the runtime
 *    call that launched them is on the range's pid and tid and starts in
 *    [ts, ts + dur)), their busy time (|union| over all the ranges of that
 *    name) and its share of the GPU busy time of the trace (|union| of all
 *    linked GPU events, all devices pooled), and the projected GPU time: per
 *    range, last GPU end - first GPU start (Nsight's projection), summed.
 *    Nested ranges each count their own GPU events inclusively: a kernel
 *    launched inside B inside A counts in A and in B.
 *  - GPU ranges (gpu_user_annotation, the copies Kineto puts on the GPU
 *    streams): count, their time on the GPU (sum of durations, as the
 *    projected time), the GPU events of the same device and stream that
 *    start inside them and their busy time.
 *
 * Times are microseconds. Results are owned by the caller (tl_ann_set_free());
 * strings are owned by the trace.
 */
#ifndef TLREPLAY_ANNOTATIONS_H
#define TLREPLAY_ANNOTATIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tl_trace;

struct tl_ann_opts {
	size_t sz;
	const char *name_regex;	/**< POSIX extended regex on the name; NULL = all */
};

struct tl_ann_row {
	const char *name;
	bool gpu;		/**< gpu_user_annotation (else a CPU range) */
	uint64_t count;		/**< ranges of this name */
	double cpu_us;		/**< sum of CPU durations (0 for GPU ranges) */
	uint64_t nkernels;	/**< GPU events inside, summed over the ranges */
	double busy_us;		/**< |union| of those GPU events */
	double share;		/**< busy_us / the trace's GPU busy time, in percent */
	double proj_us;		/**< sum of the projected GPU ranges (GPU ranges: their durations) */
	uint64_t first_uid;	/**< the first range of this name */
};

struct tl_ann_set {
	size_t n;
	struct tl_ann_row *v;	/**< by busy_us, largest first, then name */
	double gpu_busy_us;	/**< |union| of all linked GPU events */
};

/**
 * @return 0; -ENODATA (no annotation matches, or no linked GPU event),
 *         -EINVAL (bad regex), -ENOMEM. tl_last_error() says which.
 */
TL_API int tl_annotations(struct tl_trace *tr, const struct tl_ann_opts *opts, struct tl_ann_set **out);
/** Free a result of tl_annotations() (NULL is fine). */
TL_API void tl_ann_set_free(struct tl_ann_set *set);

#ifdef __cplusplus
}
#endif

#endif
