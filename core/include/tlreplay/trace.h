/* SPDX-License-Identifier: MIT */
/**
 * @file trace.h
 * @brief Loading a Chrome/Kineto trace and reading its events by UID.
 *
 * A UID is the 0-based index of an event in the trace's traceEvents array,
 * counting every element (metadata "M" events and flow events included), so
 * a UID printed by TraceLens (ex_UID) names the same event here.
 *
 * Ownership: tl_trace_open() returns a handle the caller releases with
 * tl_trace_close(). Every pointer obtained from a trace (names, raw args text,
 * metadata) is owned by it and stays valid until tl_trace_close().
 */
#ifndef TLREPLAY_TRACE_H
#define TLREPLAY_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tl_trace;
struct cJSON;

/** Value of an integer field that the event does not carry. */
#define TL_NOID INT64_MIN

/** What an event is, normalised over Kineto's current and legacy categories. */
enum tl_kind {
	TL_KIND_OTHER = 0,	/**< anything not listed below */
	TL_KIND_CPU_OP,		/**< cpu_op, legacy Operator */
	TL_KIND_RUNTIME,	/**< cuda_runtime (also hip*), legacy Runtime, xpu/mtia/privateuse1 runtimes */
	TL_KIND_DRIVER,		/**< cuda_driver, xpu_driver, privateuse1_driver */
	TL_KIND_KERNEL,		/**< kernel, legacy Kernel */
	TL_KIND_MEMCPY,		/**< gpu_memcpy, legacy Memcpy */
	TL_KIND_MEMSET,		/**< gpu_memset, legacy Memset */
	TL_KIND_FLOW_LAUNCH,	/**< ac2g flows, legacy async/async_cpu_to_gpu */
	TL_KIND_FLOW_FWDBWD,	/**< fwdbwd flows */
	TL_KIND_PYTHON,		/**< python_function */
	TL_KIND_USER_ANNOTATION,	/**< user_annotation */
	TL_KIND_GPU_ANNOTATION,	/**< gpu_user_annotation */
	TL_KIND_INSTANT,	/**< cpu_instant_event */
	TL_KIND_SYNC,		/**< cuda_sync */
	TL_KIND_METADATA,	/**< ph "M" */
	TL_KIND_TRACE_SPAN,	/**< cat "Trace" */
	TL_KIND_COUNT
};

/** @return a short lowercase name for @p kind ("cpu_op", "kernel", ...), static. */
TL_API const char *tl_kind_name(enum tl_kind kind);

/** True for kernel, memcpy and memset events. */
static inline bool tl_kind_is_gpu(enum tl_kind k)
{
	return k == TL_KIND_KERNEL || k == TL_KIND_MEMCPY || k == TL_KIND_MEMSET;
}

/** Progress callback: @p done of @p total input bytes processed. */
typedef void (*tl_progress_fn)(uint64_t done, uint64_t total, void *ctx);

/** Options for tl_trace_open(); zero-initialise and set .sz = sizeof(opts). */
struct tl_open_opts {
	size_t sz;
	tl_progress_fn progress;	/**< optional, called every few MB */
	void *progress_ctx;
	/** Rank to record for the trace (multi-rank jobs); -1 = from the trace. */
	int rank;
	/**
	 * Largest text to accept, in bytes (inflated size for gzip): beyond it
	 * the open fails with -EFBIG before the work, or as soon as inflating
	 * passes it. 0 = the default: $TLREPLAY_MAX_TEXT, else 1.5x physical
	 * memory; UINT64_MAX = no limit.
	 */
	uint64_t max_text;
	/**
	 * Directory for the unlinked temporary file gzip text is inflated into
	 * (NULL = $TMPDIR, else /tmp). A gzip trace costs its text size there,
	 * in the page cache and on disk, not in the process.
	 */
	const char *tmpdir;
	/** Optional: called while a gzip trace inflates, with compressed bytes. */
	tl_progress_fn inflate_progress;
};

/**
 * @brief Load a trace: .json or .json.gz (gzip is detected from the content),
 *        object form ({"traceEvents": [...], ...}) or bare-array form.
 * @param path file to read; "-" is not supported (the trace must be seekable).
 * @param opts may be NULL.
 * @param[out] out the new handle on success; untouched on failure.
 * @return 0, or -ENOENT/-EACCES/-EISDIR (file), -EBADMSG (malformed JSON or
 *         gzip: tl_last_error() names the byte, line and event), -ENODATA
 *         (no or empty traceEvents), -EFBIG (over a size or gzip-ratio
 *         limit: see max_text), -ENOSPC (no room in the temporary directory
 *         to inflate a gzip trace: tl_last_error() names it and the size),
 *         -ENOMEM.
 */
TL_API int tl_trace_open(const char *path, const struct tl_open_opts *opts, struct tl_trace **out);

/** Release a trace and everything obtained from it. NULL is accepted. */
TL_API void tl_trace_close(struct tl_trace *tr);

/**
 * @brief Load a trace from memory (the buffer is copied).
 * @param label name used in error messages.
 */
TL_API int tl_trace_open_mem(const void *buf, size_t len, const char *label,
		      const struct tl_open_opts *opts, struct tl_trace **out);

/** @return the path (or label) the trace was opened from. */
TL_API const char *tl_trace_path(const struct tl_trace *tr);

/** @return the number of events: the UID range is [0, n). */
TL_API uint64_t tl_trace_nevents(const struct tl_trace *tr);

/**
 * @return the number of elements of traceEvents in the file; equal to
 *         tl_trace_nevents() unless events were added by tl_trace_merge_capture().
 */
TL_API uint64_t tl_trace_nevents_file(const struct tl_trace *tr);

/** @return size in bytes of the (decompressed) JSON text. */
TL_API uint64_t tl_trace_text_size(const struct tl_trace *tr);

/**
 * @brief Keep the text's resident pages bounded while args are read.
 *
 * The text of a trace loaded from a file (or inflated into one) is mapped;
 * reading args faults its pages in and they stay. With @on, each thread
 * reading args lets its last 32 MB of them go again (they come back from
 * the page cache when read again, for about 7% more time on a full pass),
 * as the loader decides by itself for a text over a quarter of physical
 * memory. For a caller holding several traces at once (a diff). No effect
 * on a text held in memory; $TLREPLAY_TEXT_WINDOW (always, never) wins.
 */
TL_API void tl_trace_set_text_window(struct tl_trace *tr, bool on);

/**
 * @brief Top-level keys other than traceEvents (deviceProperties,
 *        distributedInfo, baseTimeNanoseconds, ...) as a cJSON object.
 * @return borrowed pointer owned by the trace; an empty object for bare arrays.
 */
TL_API const struct cJSON *tl_trace_metadata(const struct tl_trace *tr);

/** One event, as seen through the library. All pointers are owned by the trace. */
struct tl_event_info {
	uint64_t uid;
	const char *name;	/**< "" if absent */
	const char *cat;	/**< raw category, "" if absent */
	enum tl_kind kind;
	char ph;		/**< first character of "ph", 0 if absent */
	bool has_ts, has_dur;
	double ts;		/**< microseconds, as written in the trace */
	double dur;		/**< microseconds */
	const char *pid;	/**< printable pid ("6240", "Spans"), "" if absent */
	const char *tid;
	const char *args;	/**< raw JSON text of "args" (not NUL-terminated), NULL if absent */
	size_t args_len;
	int64_t correlation;	/**< args.correlation, or the id of a flow event; TL_NOID if absent */
	int64_t external_id;	/**< args["External id"]; TL_NOID if absent */
	int64_t seq;		/**< args["Sequence number"]; TL_NOID if absent */
	int64_t stream;		/**< args.stream; TL_NOID if absent */
	int64_t device;		/**< args.device; TL_NOID if absent */
};

/**
 * @brief Fill @p out with event @p uid.
 * @return 0, or -ERANGE if @p uid is not a UID of this trace.
 */
TL_API int tl_trace_event(const struct tl_trace *tr, uint64_t uid, struct tl_event_info *out);

/**
 * @brief Parse the "args" of event @p uid with cJSON.
 * @param[out] out a new cJSON object the caller frees with cJSON_Delete();
 *             NULL if the event has no args.
 * @return 0, -ERANGE (bad uid), -EBADMSG (args text does not parse), -ENOMEM.
 */
TL_API int tl_trace_event_args(const struct tl_trace *tr, uint64_t uid, struct cJSON **out);

/**
 * @brief The name a "process_name" metadata event gives process @p pid
 *        (printed as tl_event_info.pid prints it): Kineto's "GPU 0",
 *        XProf's "tw003 /device:GPU:0".
 * @param buf receives the name, truncated to @p size - 1 bytes.
 * @return 0; -ENOENT if no metadata event names that process.
 */
TL_API int tl_trace_process_name(const struct tl_trace *tr, const char *pid, char *buf, size_t size);

/** Counts of events by kind, for summaries and health checks. */
TL_API void tl_trace_kind_counts(const struct tl_trace *tr, uint64_t counts[TL_KIND_COUNT]);

#ifdef __cplusplus
}
#endif
#endif
