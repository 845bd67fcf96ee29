/* SPDX-License-Identifier: MIT */
/**
 * @file launch.h
 * @brief Launch statistics: how long each GPU event took to get from its
 *        CPU launch call to the GPU, summarised per op and per kernel, and a
 *        launch-bound verdict per device and stream.
 *
 * A launch is a GPU event (kernel, gpu_memcpy, gpu_memset) linked by the
 * tree to the runtime or driver call that launched it (cudaLaunchKernel,
 * cuLaunchKernel, hipLaunchKernel, hipExtModuleLaunchKernel, cudaMemcpyAsync,
 * cudaGraphLaunch, ...: tl_event_parent() of the GPU event). Per launch:
 *
 *  - cpu_us: the duration of the launch call (HTA's cpu_duration);
 *  - delay_us: kernel start - end of the launch call, clipped at 0 (HTA's
 *    launch_delay in get_cuda_kernel_launch_stats);
 *  - latency_us: kernel start - start of the launch call (can be < 0 only
 *    when the clocks of host and device are skewed);
 *  - queue_us: kernel start - max(start of the launch call, end of the
 *    previous GPU event on the same stream): the time the event waited
 *    once both the CPU had launched it and its stream was free.
 *
 * HTA's outliers: a call longer than runtime_cutoff_us (50) and a delay
 * longer than delay_cutoff_us (100); its "short" launches: a GPU event
 * shorter than its call, the call no longer than runtime_cutoff_us.
 *
 * Launch-bound (per stream, and per device over the union of its
 * streams): a gap before a GPU event is launch-bound when the event and
 * the one before it are short (< launch_bound_us) and the event's launch
 * call started only after the previous event had ended: the GPU had run dry
 * and waited for the CPU to launch more (its queue time is ~0 and the gap
 * follows the CPU's launch cadence). A row is launch-bound when such gaps
 * are at least half of its idle time and at least half of its GPU events
 * are short.
 *
 * Times are microseconds. The result is owned by the caller
 * (tl_launch_set_free()); its strings are owned by the trace, so it must
 * not outlive the trace.
 */
#ifndef TLREPLAY_LAUNCH_H
#define TLREPLAY_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tl_trace;

#define TL_LAUNCH_BOUND_US 10.0		/**< default short-kernel threshold */
#define TL_LAUNCH_RUNTIME_CUTOFF_US 50.0	/**< HTA's runtime_cutoff */
#define TL_LAUNCH_DELAY_CUTOFF_US 100.0	/**< HTA's launch_delay_cutoff */

struct tl_launch_opts {
	size_t sz;
	double launch_bound_us;		/**< short GPU event below this; 0 = TL_LAUNCH_BOUND_US */
	double runtime_cutoff_us;	/**< 0 = TL_LAUNCH_RUNTIME_CUTOFF_US */
	double delay_cutoff_us;		/**< 0 = TL_LAUNCH_DELAY_CUTOFF_US */
	/** HTA's get_cuda_kernel_launch_stats: only the launches of
	 *  cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync and
	 *  cudaMemsetAsync (and MTIA's runFunction), times in whole us when the
	 *  trace's are fractional, and with several ProfilerSteps only calls that
	 *  start before the last one, as HTA's Trace keeps them. */
	bool hta;
};

/** One launch. */
struct tl_launch {
	uint64_t gpu_uid;	/**< the GPU event */
	uint64_t call_uid;	/**< its runtime/driver launch call */
	uint64_t op_uid;	/**< tl_event_launcher(): the cpu_op, else the call */
	double start_us;	/**< GPU event start */
	double gpu_us, cpu_us, delay_us, latency_us, queue_us;
	uint32_t stream;	/**< index into tl_launch_set.stream */
	bool bound_gap;		/**< the gap before it is launch-bound */
};

/** Distribution of one quantity; percentiles interpolated linearly
 * between order statistics (numpy's and pandas' default). */
struct tl_launch_dist {
	double mean, p50, p90, p99, max, sum;
};

/** A summary of the launches of one op name or one kernel name. */
struct tl_launch_group {
	const char *name;
	uint64_t n;
	struct tl_launch_dist cpu, delay, latency, queue, gpu;
	uint64_t n_cpu_outliers;	/**< cpu_us > runtime cutoff */
	uint64_t n_delay_outliers;	/**< delay_us > delay cutoff */
	uint64_t n_short;		/**< gpu_us < cpu_us <= runtime cutoff (HTA's short kernels) */
};

/** Launch-bound verdict of one stream or one device. */
struct tl_launch_row {
	const char *device;	/**< GPU pid */
	const char *stream;	/**< GPU tid; NULL for a device row */
	uint64_t n;		/**< GPU events */
	uint64_t n_short;	/**< gpu_us < launch_bound_us */
	double span_us, busy_us, idle_us;	/**< idle: the gaps of the union */
	uint64_t n_bound_gaps;
	double bound_gap_us;	/**< launch-bound gaps */
	double short_busy_us;	/**< busy time of short events */
	double cadence_p50_us;	/**< median gap between consecutive launch call starts */
	double gpu_p50_us;	/**< median GPU event duration */
	bool launch_bound;
};

struct tl_launch_set {
	size_t n;
	struct tl_launch *l;		/**< in trace (UID) order */
	size_t nop, nkernel, ndev, nstream;
	struct tl_launch_group *op;	/**< by count, then name */
	struct tl_launch_group *kernel;
	struct tl_launch_row *dev;	/**< by device */
	struct tl_launch_row *stream;	/**< by device, then stream */
	struct tl_launch_group all;	/**< every launch, name "all" */
	double launch_bound_us, runtime_cutoff_us, delay_cutoff_us;
};

/**
 * Compute the launch statistics of @p tr (see the file comment).
 * @return 0; -ENODATA if no GPU event is linked to a launch call; -EINVAL
 *         for a threshold that is NaN or < 0; -ENOMEM. tl_last_error() says which.
 */
TL_API int tl_launch_stats(struct tl_trace *tr, const struct tl_launch_opts *opts,
			   struct tl_launch_set **out);
/** Free a result of tl_launch_stats() (NULL is fine). */
TL_API void tl_launch_set_free(struct tl_launch_set *set);

#ifdef __cplusplus
}
#endif

#endif
