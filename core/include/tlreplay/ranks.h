/* SPDX-License-Identifier: MIT */
/**
 * @file ranks.h
 * @brief Multi-rank jobs: one trace per rank, per-rank summaries that can be
 *        made on many machines and merged, the GPU time breakdown of every
 *        rank with its spread, and NCCL/RCCL collectives matched across ranks.
 *
 * Each rank is read as its own struct tl_trace and reduced to a small
 * struct tl_rank_summary (its breakdown and its collective timeline) before
 * the trace is closed: nothing of two ranks is ever put in one event table,
 * so UIDs and correlation ids, which are per rank, never collide. A
 * collective's kernel is named by (rank, uid). Summaries also travel as
 * files (tl_rank_summary_write(), format in docs/multi-rank.md), so a job
 * array can summarise ranks on many machines and one process merges them.
 *
 * Ownership: tl_rank_summary_* objects are released with
 * tl_rank_summary_free(), rank sets with tl_rankset_free(), tables with their
 * *_free() function. Strings inside a summary are owned by it; strings inside
 * a collectives table point into the rank set it was made from, so a table
 * must not outlive its set. Every free function accepts NULL.
 */
#ifndef TLREPLAY_RANKS_H
#define TLREPLAY_RANKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tlreplay/common.h>
#include <tlreplay/analysis.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tl_trace;
struct tl_rank_summary;
struct tl_rankset;

/* ------------------------------------------------------------------ ranks */

/**
 * @brief The rank in a trace file's name: the last "rank" or "worker"
 *        (any case) followed by an optional '-', '_' or '.' and digits, in
 *        the base name ("rank-3.json", "rank3", "trace_rank_3.pt.trace.json",
 *        "worker3_step_12.json").
 * @return the rank, or -1 if the name has none.
 */
TL_API int tl_rank_from_filename(const char *path);

/**
 * @return the rank given when the trace was opened (tl_open_opts.rank), else
 *         distributedInfo.rank, else -1.
 */
TL_API int tl_trace_rank(const struct tl_trace *tr);

/** @return distributedInfo.world_size, or -1. */
TL_API int tl_trace_world_size(const struct tl_trace *tr);

/** Where a rank number came from. */
enum tl_rank_source {
	TL_RANK_FROM_OPTION = 0,	/**< given by the caller */
	TL_RANK_FROM_TRACE,		/**< distributedInfo.rank */
	TL_RANK_FROM_NAME,		/**< the file name (tl_rank_from_filename()) */
	TL_RANK_FROM_ORDER,		/**< none found: the next free number, in input order */
};

/** @return "option", "distributedInfo", "file name" or "order" (static). */
TL_API const char *tl_rank_source_name(enum tl_rank_source src);

/* ------------------------------------------------------------------ collective types */

/** A collective, normalised over PyTorch's names, the nccl:* annotations and kernel names. */
enum tl_coll_type {
	TL_COLL_UNKNOWN = 0,
	TL_COLL_ALLREDUCE,
	TL_COLL_ALLGATHER,
	TL_COLL_REDUCESCATTER,
	TL_COLL_ALLTOALL,
	TL_COLL_ALLTOALLV,
	TL_COLL_BROADCAST,
	TL_COLL_REDUCE,
	TL_COLL_GATHER,
	TL_COLL_SCATTER,
	TL_COLL_SENDRECV,
	TL_COLL_SEND,
	TL_COLL_RECV,
	TL_COLL_BARRIER,
	TL_COLL_NTYPES
};

/** @return "allreduce", "allgather", "reducescatter", ... "unknown" (static). */
TL_API const char *tl_coll_type_name(enum tl_coll_type type);

/**
 * @brief The type of a collective name as PyTorch records it ("allreduce",
 *        "_allgather_base", "all_to_all", "reduce_scatter_tensor_coalesced",
 *        "nccl:all_reduce", "c10d::allreduce_") or of an NCCL/RCCL kernel
 *        ("ncclKernel_AllReduce_RING_LL_Sum_float(...)",
 *        "ncclDevKernel_AllGather_RING_LL(...)"; "ncclDevKernel_Generic" is unknown).
 */
TL_API enum tl_coll_type tl_coll_type_of(const char *name);

/**
 * @brief NCCL's algorithm and protocol as the kernel's name spells them
 *        ("ncclKernel_AllReduce_RING_LL_Sum_float(...)": "RING", "LL";
 *        "ncclDevKernel_AllGather_RING_LL(...)"; newer NCCL's
 *        "ncclDevKernel_AllReduce_Sum_f32_TREE_LL128"). RCCL's
 *        "ncclDevKernel_Generic" and other kernels say neither.
 * @param[out] algo "RING", "TREE", "COLLNET_DIRECT", "COLLNET_CHAIN",
 *        "COLLNET", "NVLS", "NVLS_TREE", "PAT", or "" (static strings).
 * @param[out] proto "LL", "LL128", "SIMPLE", or "".
 */
TL_API void tl_coll_kernel_algo(const char *kernel, const char **algo, const char **proto);

/**
 * @brief TraceLens's implicit-synchronisation collectives (allreduce,
 *        allgather, reducescatter, alltoall): every rank must arrive before
 *        any finishes, so start skew is time lost waiting.
 */
TL_API bool tl_coll_implicit_sync(enum tl_coll_type type);

/**
 * @brief NCCL's bus-bandwidth factor for @p n ranks (nccl-tests'
 *        PERFORMANCE.md, as TraceLens uses it): allreduce 2(n-1)/n;
 *        allgather, reducescatter, alltoall(v) (n-1)/n; broadcast, reduce,
 *        gather, scatter, send, recv, sendrecv 1.
 * @return the factor, or NaN for barrier/unknown types or n < 1.
 */
TL_API double tl_coll_busbw_factor(enum tl_coll_type type, int n);

/**
 * @brief Bytes per element of a dtype as the collective args ("Float",
 *        "BFloat16", "Long") or the shape args ("float", "c10::Half",
 *        "long int", "unsigned char") name it.
 * @return 1, 2, 4, 8 or 16; 0 if unknown.
 */
TL_API int tl_dtype_bytes(const char *dtype);

/* ------------------------------------------------------------------ one rank */

/** Where a collective's name came from, best first. */
enum tl_coll_name_src {
	TL_COLL_SRC_ARGS = 0,	/**< "Collective name" (kernel or record_param_comms args) */
	TL_COLL_SRC_OP,		/**< an nccl:* annotation or c10d:: op around the launch */
	TL_COLL_SRC_KERNEL,	/**< the kernel name only */
};

/** One collective kernel on one rank. Strings are owned by the summary. */
struct tl_coll_rec {
	const char *pg;		/**< "Process Group Name"; "stream:N" when the trace has none (see pg_inferred) */
	const char *pg_ranks;	/**< "Process Group Ranks" as recorded ("[0, 1]"), "" if not */
	const char *name;	/**< collective name ("allreduce", "_allgather_base", "all_to_all", "AllReduce") */
	const char *dtype;	/**< "Float", "float", ...; "" if not recorded */
	const char *kernel;	/**< the kernel's name */
	enum tl_coll_type type;
	enum tl_coll_name_src name_src;
	bool pg_inferred;	/**< no process group recorded: grouped by stream */
	int group_size;		/**< "Group size", -1 if not recorded */
	int64_t in_nelems;	/**< -1 if not recorded */
	int64_t out_nelems;	/**< -1 if not recorded */
	int64_t seq;		/**< "Seq" (collective sequence number in its group), -1 if not recorded */
	double ts, dur;		/**< microseconds, as in the trace (add the rank's base time to compare ranks) */
	int64_t stream;		/**< TL_NOID if absent */
	uint64_t uid;		/**< the kernel's UID in its rank's trace */
};

/** A process group of distributedInfo.pg_config. */
struct tl_pg_info {
	const char *name, *desc;
	const char *ranks;	/**< compact JSON array ("[0,1]") */
	int size;		/**< -1 if absent */
};

/** What a summary says about its rank. Pointers are owned by the summary. */
struct tl_rank_info {
	int rank;			/**< -1 until known (tl_ranks_open() assigns one) */
	enum tl_rank_source rank_from;
	int world_size;			/**< -1 if unknown */
	const char *trace;		/**< the trace file it was made from */
	const char *file;		/**< the file it was read from (the trace, or a summary file) */
	const char *backend;		/**< distributedInfo.backend, "" */
	int64_t base_time_ns;		/**< baseTimeNanoseconds, 0 if none */
	uint64_t events;		/**< events in the trace */
	uint64_t trace_bytes;		/**< size of the trace's JSON text */
};

/** Options for tl_rank_summary_build(); zero-initialise and set .sz. */
struct tl_rank_summary_opts {
	size_t sz;
	/** The rank; -1 = distributedInfo.rank, else the file name, else unknown. */
	int rank;
};

/**
 * @brief Reduce a loaded trace to its rank summary: the pooled breakdown
 *        (TraceLens's gpu_timeline) of linked GPU events and of all GPU
 *        events, and every NCCL/RCCL kernel with its collective's metadata
 *        (from the kernel's args, else from the record_param_comms op,
 *        nccl:* annotation or c10d:: op around its launch, else from the
 *        kernel name). Builds the trace's links if needed.
 * @param opts may be NULL (rank from the trace).
 * @param[out] out a new summary, independent of @p tr afterwards.
 * @return 0, -ENOMEM.
 */
TL_API int tl_rank_summary_build(struct tl_trace *tr, const struct tl_rank_summary_opts *opts,
				 struct tl_rank_summary **out);

TL_API void tl_rank_summary_free(struct tl_rank_summary *s);

/** @return the summary's rank information (owned by it). */
TL_API const struct tl_rank_info *tl_rank_summary_info(const struct tl_rank_summary *s);

/**
 * @return the rank's pooled breakdown (device, stream NULL; recompute -1) of
 *         linked GPU events, or with @p include_unlinked of all GPU events;
 *         NULL if the rank has no such GPU event.
 */
TL_API const struct tl_breakdown *tl_rank_summary_breakdown(const struct tl_rank_summary *s,
							    bool include_unlinked);

/** @return the number of collective kernels; they are sorted by ts. */
TL_API size_t tl_rank_summary_ncoll(const struct tl_rank_summary *s);
/** @return collective @p i, or NULL past the end. */
TL_API const struct tl_coll_rec *tl_rank_summary_coll(const struct tl_rank_summary *s, size_t i);

/** @return the number of process groups in distributedInfo.pg_config. */
TL_API size_t tl_rank_summary_npg(const struct tl_rank_summary *s);
TL_API const struct tl_pg_info *tl_rank_summary_pg(const struct tl_rank_summary *s, size_t i);

/**
 * @brief The summary as a rank summary file: JSON lines, a header object
 *        then one array per collective (docs/multi-rank.md).
 * @param[out] text malloc'ed, NUL-terminated; the caller frees it.
 * @return 0, -ENOMEM.
 */
TL_API int tl_rank_summary_write(const struct tl_rank_summary *s, char **text, size_t *len);

/**
 * @brief Read a rank summary file (as tl_rank_summary_write() wrote it).
 * @return 0; -ENOENT/-EACCES (file), -EBADMSG (not a summary, a version this
 *         library does not read, or cut short: tl_last_error() says which line),
 *         -ENOMEM.
 */
TL_API int tl_rank_summary_read(const char *path, struct tl_rank_summary **out);
/** The same from memory; @p label names it in messages. */
TL_API int tl_rank_summary_parse(const char *text, size_t len, const char *label,
				 struct tl_rank_summary **out);

/** @return true if @p buf (the start of a file) begins a rank summary file. */
TL_API bool tl_rank_summary_sniff(const void *buf, size_t len);

/* ------------------------------------------------------------------ rank sets */

/**
 * Called once per input as it is done (from the loading threads, one call at
 * a time): @p err is 0 or the -errno of a failed input, @p msg its reason.
 */
typedef void (*tl_ranks_progress_fn)(size_t done, size_t total, const char *path, int err,
				     const char *msg, void *ctx);

/** Options for tl_ranks_open(); zero-initialise and set .sz. */
struct tl_ranks_opts {
	size_t sz;
	/** Inputs read at once; 0 = automatic: the cores, fewer when the
	 *  largest traces would not fit in half the available memory together. */
	unsigned jobs;
	/** Leave out inputs that fail (the callback hears why) instead of failing. */
	bool keep_going;
	tl_ranks_progress_fn progress;
	void *progress_ctx;
};

/**
 * @brief Read one input per rank, several at once: a trace is loaded,
 *        summarised and closed; a rank summary file (tl_rank_summary_sniff())
 *        is read. Ranks come from the summary or the trace (distributedInfo),
 *        else the file name; inputs without any get the lowest free numbers in
 *        input order (TL_RANK_FROM_ORDER).
 * @param[out] out the ranks, sorted by rank.
 * @return 0; the error of the first input that failed (tl_last_error() names
 *         the file); -EEXIST if two inputs have the same rank; -ENODATA if no
 *         input is left (keep_going); -ENOMEM.
 */
TL_API int tl_ranks_open(const char *const *paths, size_t n, const struct tl_ranks_opts *opts,
			 struct tl_rankset **out);

TL_API void tl_rankset_free(struct tl_rankset *set);
TL_API size_t tl_rankset_n(const struct tl_rankset *set);
/** @return the summary of the @p i-th rank (by rank), owned by the set. */
TL_API const struct tl_rank_summary *tl_rankset_get(const struct tl_rankset *set, size_t i);
/** @return how many inputs tl_ranks_open() read at once. */
TL_API unsigned tl_rankset_jobs(const struct tl_rankset *set);

/**
 * @brief The inputs in a directory: files ending in .json, .json.gz or
 *        .jsonl, or .xplane.pb[.gz] (not hidden), sorted with digit runs compared as numbers
 *        ("rank2" before "rank10").
 * @param[out] paths malloc'ed array of malloc'ed "DIR/NAME" strings; free
 *             with tl_ranks_paths_free().
 * @return 0; -ENOENT/-ENOTDIR/-EACCES; -ENODATA if there is none; -ENOMEM.
 */
TL_API int tl_ranks_list_dir(const char *dir, char ***paths, size_t *n);
TL_API void tl_ranks_paths_free(char **paths, size_t n);

/* ------------------------------------------------------------------ breakdown spread */

/** One breakdown row over the ranks. */
struct tl_bd_spread_row {
	double min_us, median_us, max_us;	/**< median: mean of the middle two for an even count */
	int min_rank, max_rank;			/**< ties: the lowest rank */
	double min_pct, median_pct, max_pct;	/**< the same of the row's percent of its rank's total */
};

struct tl_bd_spread {
	size_t nranks;		/**< ranks with a breakdown */
	struct tl_bd_spread_row row[TL_BD_NROWS];
};

/** @return 0, or -ENODATA if no rank has a breakdown. */
TL_API int tl_rankset_breakdown_spread(const struct tl_rankset *set, bool include_unlinked,
				       struct tl_bd_spread *out);

/* ------------------------------------------------------------------ collectives */

/** One rank's part in a matched collective. */
struct tl_coll_part {
	int rank;
	double start_us;	/**< from the table's t0 */
	double dur_us;
	double wait_us;		/**< latest start - this start */
	int64_t in_nelems, out_nelems;
	uint64_t uid;		/**< the kernel's UID in this rank's trace */
};

/** A collective matched across ranks. Strings point into the rank set. */
struct tl_coll_row {
	const char *pg;		/**< process group ("stream:N" if inferred) */
	const char *pg_ranks;	/**< as recorded, "" */
	const char *name;	/**< the best-sourced name among the ranks */
	const char *dtype;	/**< "" if unknown */
	enum tl_coll_type type;
	bool implicit_sync;	/**< tl_coll_implicit_sync(type) */
	bool mismatch;		/**< ranks disagree on its type, dtype or (except alltoallv) sizes */
	bool sizes_differ;	/**< ranks moved different amounts (size_bytes is the largest) */
	uint64_t index;		/**< its position in the process group: "Seq" when every rank recorded it, else the ordinal by start */
	int group_size;		/**< recorded, else pg_config's, else the world size, else nranks */
	size_t nranks;		/**< ranks that have it */
	int64_t in_nelems, out_nelems;	/**< the largest over ranks; -1 unknown */
	double size_bytes;	/**< out for allgather, else in (TraceLens's Full msg size); NaN if unknown */
	double start_us;	/**< earliest start, from t0 */
	double start_skew_us;	/**< latest start - earliest start */
	double end_skew_us;	/**< latest end - earliest end */
	double avg_wait_us;	/**< mean of the parts' wait_us */
	double latency_us;	/**< shortest duration over ranks (TraceLens's comm_latency) */
	double sync_us;		/**< latest end - latest start: the time once every rank is in */
	double algbw_gbps;	/**< size_bytes / 2^30 / latency (TraceLens's GB/s); NaN if unknown */
	double busbw_gbps;	/**< algbw x tl_coll_busbw_factor(type, group_size); NaN if unknown */
	int slowest_rank;	/**< the last to arrive (latest start: the others wait for it) */
	int first_rank;		/**< the first to arrive (earliest start); ties: the lowest rank */
	struct tl_coll_part *parts;	/**< nranks parts, by rank */
	const char *algorithm;	/**< NCCL's algorithm from the kernel name ("RING", "TREE"...), "" */
	const char *protocol;	/**< NCCL's protocol from the kernel name ("LL", "LL128", "SIMPLE"), "" */
};

struct tl_coll_table {
	size_t n;
	struct tl_coll_row *v;	/**< by start, then process group and index */
	size_t nranks;		/**< ranks in the set */
	size_t nmismatch;	/**< rows with mismatch set */
	/** t0 as absolute time in ns (baseTimeNanoseconds + ts of the first collective). */
	double t0_ns;
};

/** Options for tl_collectives(); zero-initialise and set .sz (may be NULL). */
struct tl_coll_opts {
	size_t sz;
};

/**
 * @brief Match the collectives of every rank: by (process group, index), the
 *        index being "Seq" when every rank recorded it for the group, else the
 *        rank-local ordinal by start within the group (TraceLens's
 *        collective_id). Ranks are put on one clock through their
 *        baseTimeNanoseconds.
 * @return 0 (an empty table if there are no collectives), -ENOMEM.
 */
TL_API int tl_collectives(const struct tl_rankset *set, const struct tl_coll_opts *opts,
			  struct tl_coll_table **out);
TL_API void tl_coll_table_free(struct tl_coll_table *t);

/** Aggregates of one column over a group (std: sample, NaN for one value). */
struct tl_coll_agg {
	double mean, std, min, median, max;
};

/** Collectives of one kind (TraceLens's nccl_summary_implicit_sync row). */
struct tl_coll_group {
	const char *name, *dtype;
	enum tl_coll_type type;
	int64_t in_nelems;
	double size_bytes;
	int group_size;
	uint64_t count;
	struct tl_coll_agg latency_us, start_skew_us, end_skew_us, algbw_gbps, busbw_gbps;
	double total_latency_us;	/**< sum of latency_us */
};

struct tl_coll_summary {
	size_t n;
	struct tl_coll_group *v;	/**< by total latency, descending */
};

/**
 * @brief Group the rows by (name, dtype, in_nelems, group size).
 * @return 0, -ENOMEM. Strings point where the table's do.
 */
TL_API int tl_coll_summarize(const struct tl_coll_table *t, struct tl_coll_summary **out);
TL_API void tl_coll_summary_free(struct tl_coll_summary *s);

/** How one rank fared in the implicit-sync collectives (TraceLens's straggler summary). */
struct tl_coll_rank_stat {
	int rank;
	uint64_t ncoll;			/**< implicit-sync collectives it took part in */
	uint64_t times_last;		/**< it arrived last (it was waited for) */
	uint64_t times_first;		/**< it arrived first */
	double total_wait_us, mean_wait_us;
	double total_dur_us;		/**< its collective kernels' time, all types */
};

struct tl_coll_rank_stats {
	size_t n;
	struct tl_coll_rank_stat *v;	/**< by total wait, ascending: the straggler first */
};

TL_API int tl_coll_stragglers(const struct tl_coll_table *t, struct tl_coll_rank_stats **out);
TL_API void tl_coll_rank_stats_free(struct tl_coll_rank_stats *s);

#ifdef __cplusplus
}
#endif
#endif
