/* SPDX-License-Identifier: MIT */
/**
 * @file critpath.h
 * @brief The critical path of one rank's iteration, as HTA's lightweight
 *        critical path analysis defines it.
 *
 * The graph has a start and an end node for each event of the window: CPU ops
 * and runtime/driver calls of the host tree, and GPU events (kernel,
 * gpu_memcpy, gpu_memset). Its edges, each weighted by the time it spans:
 *  - op: inside a host event, start -> first child start, child end -> next
 *    child start, last child end -> end (a leaf: start -> end, its duration);
 *    a GPU event: start -> end, its duration;
 *  - dependency: a top-level host event's end -> the next one's start on the
 *    same thread;
 *  - launch_delay: runtime call start -> start of the GPU event it launched;
 *  - kernel_gap: a GPU event's end -> the next GPU event's start on the same
 *    stream (HTA's kernel-kernel delay);
 *  - sync: cross-stream and GPU -> CPU waits, from the cuda_sync events:
 *    Stream Wait Event (the GPU event before the awaited cudaEventRecord on
 *    its stream -> the first GPU event on the waiting stream launched after
 *    the cudaStreamWaitEvent), Event Sync / Stream Sync / Context Sync (the
 *    GPU event(s) drained -> the end of the sync call). Without cuda_sync
 *    events, cudaDeviceSynchronize / cudaStreamSynchronize /
 *    cudaEventSynchronize calls by name (with no stream arg: every stream
 *    drains). HTA weighs them 0; here one weighs the time it covers when
 *    the wait was real (the GPU work ended after the call began, after the
 *    waiting event was launched), else 0, so the path's length stays a span
 *    of time.
 * The path is the longest path of this DAG by weight. Weights being spans,
 * paths often tie; the edge that says why wins a tie: a real wait, then
 * stream order for a queued GPU event or the launch for one the GPU waited
 * for, then GPU events, then host order, then CPU nesting.
 *
 * Ownership: the result is the caller's (tl_critpath_free()); its strings
 * belong to the trace and must not outlive it. Times are microseconds.
 */
#ifndef TLREPLAY_CRITPATH_H
#define TLREPLAY_CRITPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tl_trace;

/** Edge types (HTA's CPEdgeType). */
enum tl_cp_edge_type {
	TL_CP_OP = 0,		/**< inside an op or a GPU event */
	TL_CP_DEPENDENCY,	/**< consecutive top-level host events of a thread */
	TL_CP_LAUNCH,		/**< runtime call -> GPU event */
	TL_CP_KERNEL_GAP,	/**< consecutive GPU events of a stream */
	TL_CP_SYNC,		/**< event record/wait, synchronize */
	TL_CP_NTYPES
};

/** What a path edge's time is spent on. */
enum tl_cp_cat {
	TL_CP_CAT_CPU = 0,	/**< inside a CPU op or runtime call, or between host events */
	TL_CP_CAT_KERNEL,	/**< a GPU event running */
	TL_CP_CAT_GPU_GAP,	/**< between GPU events of a stream */
	TL_CP_CAT_LAUNCH,	/**< launch delay */
	TL_CP_CAT_SYNC,		/**< sync wait */
	TL_CP_NCATS
};

/** @return "op", "dependency", "launch_delay", "kernel_gap", "sync" (static). */
TL_API const char *tl_cp_edge_name(enum tl_cp_edge_type t);
/** @return "cpu", "kernel", "gpu_gap", "launch_delay", "sync_wait" (static). */
TL_API const char *tl_cp_cat_name(enum tl_cp_cat c);

struct tl_critpath_opts {
	size_t sz;
	/** Window [t0, t1] in the trace's us; t0 >= t1 (e.g. both 0): the whole trace. */
	double t0, t1;
	/** >= 0: the window is the ProfilerStep#step annotation (overrides t0, t1). */
	int64_t step;
	/**
	 * HTA's numbers to the microsecond: its timestamps (whole microseconds,
	 * starts rounded up and ends down, when the trace has fractions) and its
	 * events (with several ProfilerSteps, none launched from the last one on).
	 * The graph is HTA's either way.
	 */
	bool hta;
	/**
	 * On traces without cuda_sync events (older PyTorch), take the
	 * synchronize calls by name (cudaDeviceSynchronize, cudaStreamSynchronize,
	 * cudaEventSynchronize and HIP's) as waiting for the work queued on their
	 * streams: a sync edge from that work to the call's end. HTA makes no
	 * sync edge there, so its path never waits for the GPU on such traces.
	 */
	bool sync_calls;
};

/** One edge of the path. */
struct tl_cp_edge {
	uint64_t from_uid, to_uid;	/**< the events of its two nodes */
	bool from_end, to_end;		/**< which node of each: end (true) or start */
	double from_ts, to_ts;		/**< the nodes' times */
	double weight;
	uint64_t attr_uid;		/**< the event its time is attributed to */
	uint8_t type;			/**< enum tl_cp_edge_type */
	uint8_t cat;			/**< enum tl_cp_cat */
};

struct tl_critpath {
	double t0, t1;			/**< the window used */
	double length_us;		/**< sum of the path's weights */
	uint64_t nnodes, nedges;	/**< of the graph */
	uint64_t ntype[TL_CP_NTYPES];	/**< graph edges by type */
	uint64_t nevent_records;	/**< cudaEventRecord calls some wait refers to */
	size_t npath;			/**< path edges (the path has npath + 1 nodes) */
	struct tl_cp_edge *path;	/**< in order */
	double cat_us[TL_CP_NCATS];	/**< path time by category */
	uint64_t cat_n[TL_CP_NCATS];
	size_t nevents;			/**< distinct events on the path */
	uint64_t *events;		/**< their UIDs, ascending */
};

/**
 * Find the critical path of @p tr (see the file comment). Builds the call tree.
 * @return 0; -ENOENT (no ProfilerStep#step), -ENODATA (no event in the
 *         window), -EINVAL (bad window), -ENOMEM; tl_last_error() says which.
 */
TL_API int tl_critpath(struct tl_trace *tr, const struct tl_critpath_opts *opts,
		       struct tl_critpath **out);
/** Free a result of tl_critpath() (NULL is fine). */
TL_API void tl_critpath_free(struct tl_critpath *cp);

#ifdef __cplusplus
}
#endif

#endif
