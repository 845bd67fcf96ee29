/* SPDX-License-Identifier: MIT */
/**
 * @file analysis.h
 * @brief GPU time breakdown, op and kernel summaries, trace health check.
 *
 * Definitions follow TraceLens (TreePerf/GPUEventAnalyser) so that the default
 * results reproduce its gpu_timeline, ops_summary and kernel_summary sheets:
 * times are in microseconds, unions are taken over [ts, ts+dur) intervals,
 * "total" is the span from the first GPU start to the last GPU end.
 *
 * Every function here links the trace first if it was not (tl_trace_link()).
 * Result objects are owned by the caller and released with the matching
 * *_free() function; strings inside them are owned by the trace, so a result
 * must not outlive its trace.
 */
#ifndef TLREPLAY_ANALYSIS_H
#define TLREPLAY_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tl_trace;

/* ------------------------------------------------------------------ breakdown */

/** Rows of TraceLens's gpu_timeline, in its order. */
enum tl_bd_row {
	TL_BD_COMPUTATION = 0,	/**< |union of compute events| */
	TL_BD_EXPOSED_COMM,	/**< |comm - compute| */
	TL_BD_EXPOSED_MEMCPY,	/**< |memcpy - compute - comm| */
	TL_BD_BUSY,		/**< |union of all GPU events| */
	TL_BD_IDLE,		/**< total - busy */
	TL_BD_TOTAL,		/**< last end - first start */
	TL_BD_TOTAL_COMM,	/**< |union of comm events| */
	TL_BD_TOTAL_MEMCPY,	/**< |union of memcpy events| */
	TL_BD_NROWS
};

/** @return "computation_time", "exposed_comm_time", ... (static). */
TL_API const char *tl_bd_row_name(enum tl_bd_row row);

/** How GPU events are classified (TraceLens rules). */
enum tl_gpu_class {
	TL_GPU_COMPUTE = 0,
	TL_GPU_COMM,
	TL_GPU_MEMCPY,
};

/** @return the class of GPU event @p uid (compute for non-GPU events). */
TL_API enum tl_gpu_class tl_gpu_event_class(const struct tl_trace *tr, uint64_t uid);

enum tl_bd_group {
	TL_BD_GROUP_NONE = 0,	/**< every device and stream pooled (TraceLens) */
	TL_BD_GROUP_DEVICE,	/**< one breakdown per device (GPU pid) */
	TL_BD_GROUP_STREAM,	/**< one breakdown per (device, stream) */
};

struct tl_breakdown_opts {
	size_t sz;
	bool include_unlinked;	/**< also count GPU events no runtime call launched */
	enum tl_bd_group group;
	bool split_recompute;	/**< two breakdowns: recompute (torch.utils.checkpoint) or not */
};

struct tl_breakdown {
	const char *device;	/**< device (GPU pid) for per-device/stream groups, else NULL */
	const char *stream;	/**< stream (GPU tid) for per-stream groups, else NULL */
	int recompute;		/**< 0/1 when split_recompute, else -1 */
	uint64_t nevents;	/**< GPU events that went into this breakdown */
	double us[TL_BD_NROWS];
};

struct tl_breakdown_set {
	size_t n;
	struct tl_breakdown *v;
};

/**
 * @return 0; -ENODATA if no GPU event qualifies (tl_last_error() says why);
 *         -ENOMEM.
 */
TL_API int tl_breakdown(struct tl_trace *tr, const struct tl_breakdown_opts *opts,
			struct tl_breakdown_set **out);
TL_API void tl_breakdown_free(struct tl_breakdown_set *set);

/* ------------------------------------------------------------------ launchers */

/** A kernel launcher (the cpu_op, else runtime call, that launched GPU events). */
struct tl_launcher {
	uint64_t uid;
	double direct_us;	/**< union of the GPU events it launched itself */
	double subtree_us;	/**< union of all GPU events below it */
	uint32_t nkernels;	/**< direct GPU events */
	int recompute;		/**< 0/1, -1 when not computed */
	const char *category;	/**< TraceLens op category ("GEMM", "elementwise", ...) */
	uint64_t first_kernel;	/**< UID of its first direct GPU event */
};

struct tl_launcher_opts {
	size_t sz;
	bool include_nccl;	/**< count NCCL/RCCL kernels (TraceLens skips them) */
	bool detect_recompute;	/**< fill .recompute (builds the tree with python functions) */
	bool with_python;	/**< build the tree with python functions (nn.Module ancestry) */
};

struct tl_launcher_set {
	size_t n;
	struct tl_launcher *v;	/**< sorted by the launcher's ts */
};

TL_API int tl_launchers(struct tl_trace *tr, const struct tl_launcher_opts *opts,
			struct tl_launcher_set **out);
TL_API void tl_launcher_set_free(struct tl_launcher_set *set);

/* ------------------------------------------------------------------ launcher groups */

/** pandas-style aggregates of one time column of a group (std: sample, NaN for one). */
struct tl_time_agg {
	double sum, mean, median, std, min, max;
};

/** Launchers that recorded the same arguments (TraceLens's ops_unique_args row). */
struct tl_launcher_group {
	const char *name, *category;
	const char *pid, *tid;		/**< printable; "" unless grouped by thread */
	/** Compact JSON of the recorded args fields, "" when the field is absent. */
	const char *input_dims, *input_type, *input_strides, *concrete_inputs;
	uint64_t count;
	uint64_t ex_uid;		/**< the first launcher of the group (by ts) */
	uint64_t *uids;			/**< all count launchers, by ts */
	struct tl_time_agg direct, subtree;	/**< of the launchers' direct/subtree GPU busy time, us */
};

struct tl_launcher_group_opts {
	size_t sz;
	bool include_nccl;	/**< count NCCL/RCCL kernels (TraceLens skips them) */
	bool by_thread;		/**< also split by (pid, tid), as TraceLens's report does */
};

struct tl_launcher_group_set {
	size_t n;
	struct tl_launcher_group *v;	/**< by direct.sum descending, then ex_uid */
	double total_direct_us;		/**< over all launchers, grouped or not */
};

/**
 * @brief Group the kernel launchers by (name, category, Input Dims, Input type,
 *        Input Strides, Concrete Inputs). A field not recorded is a value of
 *        its own (""), as TraceLens's str() of a missing cell: launchers with
 *        no args (a graph launch) group by name.
 * @param[out] out a new set; strings and arrays live as long as it does and
 *             are released by tl_launcher_group_set_free().
 */
TL_API int tl_launcher_groups(struct tl_trace *tr, const struct tl_launcher_group_opts *opts,
			      struct tl_launcher_group_set **out);
TL_API void tl_launcher_group_set_free(struct tl_launcher_group_set *set);

/** @return TraceLens's op category for event @p uid given its first kernel (may be -1). */
TL_API const char *tl_op_category(const struct tl_trace *tr, uint64_t uid, int64_t first_kernel);

/* ------------------------------------------------------------------ ops summary */

struct tl_op_row {
	const char *name;
	const char *parent_module;	/**< with by_module, else NULL */
	int recompute;			/**< with split_recompute: 0/1, else -1 */
	double direct_us, subtree_us;
	uint64_t count;
	const char **categories;	/**< distinct categories, sorted */
	size_t ncategories;
	double pct, cum_pct;		/**< of the summed direct time */
	uint64_t ex_uid;		/**< first launcher (by ts) in the group */
	const char *call_stack;		/**< with by_module: "op => module => ...", else NULL */
};

struct tl_ops_opts {
	size_t sz;
	bool split_recompute;	/**< group by (name, is_recompute) like --detect_recompute */
	bool by_module;		/**< group by (name, parent nn.Module) like the inference report */
	bool include_nccl;
};

struct tl_op_table {
	size_t n;
	struct tl_op_row *v;	/**< sorted by direct time, descending */
	double total_direct_us;
};

TL_API int tl_ops_summary(struct tl_trace *tr, const struct tl_ops_opts *opts, struct tl_op_table **out);
TL_API void tl_op_table_free(struct tl_op_table *t);

/* ------------------------------------------------------------------ kernels */

struct tl_kernel_row {
	const char *category;	/**< parent op category, "runtime"/"graph" without cpu_op, NULL if unlinked */
	const char *parent_op;	/**< lowest cpu_op above the kernel, else its launcher; NULL if unlinked */
	const char *name;
	int64_t stream;		/**< TL_NOID if absent */
	uint64_t count;
	double sum_us, mean_us, min_us, max_us;
	double pct_kernels;	/**< of the summed duration of all kernels */
	double pct_total;	/**< of the GPU timeline total */
};

struct tl_kernel_table {
	size_t n;
	struct tl_kernel_row *v;	/**< sorted by sum, descending */
	bool has_parent_op;	/**< false for GPU-only traces (no cpu_op anywhere) */
};

/** TraceLens's kernel_summary (kernel events only, linked or not). */
TL_API int tl_kernel_summary(struct tl_trace *tr, struct tl_kernel_table **out);
TL_API void tl_kernel_table_free(struct tl_kernel_table *t);

/** Every distinct kernel launch configuration. */
struct tl_kernel_unique_row {
	const char *name;
	uint64_t count;
	double sum_us, mean_us, min_us, max_us;
	int64_t grid[3], block[3];	/**< TL_NOID where the trace has none */
	int64_t registers;		/**< "registers per thread" */
	int64_t shared_mem;		/**< "shared memory" (bytes) */
	uint64_t ex_uid;
};

struct tl_kernel_unique_table {
	size_t n;
	struct tl_kernel_unique_row *v;	/**< sorted by sum, descending */
};

TL_API int tl_kernel_unique(struct tl_trace *tr, struct tl_kernel_unique_table **out);
TL_API void tl_kernel_unique_free(struct tl_kernel_unique_table *t);

/* ------------------------------------------------------------------ health */

enum tl_severity { TL_SEV_INFO = 0, TL_SEV_WARN, TL_SEV_ERROR };

struct tl_finding {
	enum tl_severity severity;
	const char *code;	/**< stable identifier, e.g. "unlinked-kernels" (static) */
	uint64_t count;		/**< how many events are affected */
	int64_t example_uid;	/**< one affected event, -1 if none */
	char *message;		/**< one line, owned by the report */
};

struct tl_health {
	size_t n;
	struct tl_finding *v;
	size_t nerrors, nwarnings;
};

/** Default of tl_health_opts.max_unattributed_pct. */
#define TL_HEALTH_MAX_UNATTRIBUTED_PCT 20.0

struct tl_health_opts {
	size_t sz;
	/** The share of GPU time that may be graph kernels no op owns (under a
	 *  bare cudaGraphLaunch/hipGraphLaunch) before that is an error; 0 =
	 *  TL_HEALTH_MAX_UNATTRIBUTED_PCT. */
	double max_unattributed_pct;
};

/** Trace health report (linking, flows, overlaps, shapes, clocks, graph
 *  kernels no op owns) with the default options. */
TL_API int tl_health_check(struct tl_trace *tr, struct tl_health **out);
/** The same with @p opts (NULL = defaults). -EINVAL for a limit outside [0, 100]. */
TL_API int tl_health_check_opts(struct tl_trace *tr, const struct tl_health_opts *opts, struct tl_health **out);
TL_API void tl_health_free(struct tl_health *h);

#ifdef __cplusplus
}
#endif
#endif
