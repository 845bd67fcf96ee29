/* SPDX-License-Identifier: MIT */
/**
 * @file kernel_seq.h
 * @brief Frequent kernel sequences (fusion candidates), two ways.
 *
 *  - tl_kernel_ngrams(): every run of L consecutive kernels on one GPU
 *    stream (pid, tid), by ts, counted by the sequence of their names
 *    (HTA's shortened names unless raw names are asked). Overlapping runs
 *    all count: "A A A" holds "A A" twice. Per sequence: its count, the sum
 *    of its kernels' durations, the mean of that per occurrence, and the idle
 *    time inside it (the gaps between one kernel's end and the next one's
 *    start, summed over the occurrences).
 *  - tl_op_kernel_patterns(): HTA's get_frequent_cuda_kernel_sequences: the
 *    cpu_ops whose name contains a given string, only the shallowest of them
 *    in the call tree, only those launching at least min_len GPU events; a
 *    pattern is the op name followed by the names of all the GPU events
 *    (kernel, memcpy, memset) of its subtree, by ts, joined with '|'.
 *
 * Both need a trace that tl_trace_link() can link (the functions link it).
 * Tables are owned by the caller and freed with their _free() function;
 * the strings in a row belong to the table.
 */
#ifndef TLREPLAY_KERNEL_SEQ_H
#define TLREPLAY_KERNEL_SEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tl_trace;

/** Options of tl_kernel_ngrams(); zero-initialise and set .sz. */
struct tl_ngram_opts {
	size_t sz;
	unsigned min_len, max_len;	/**< sequence lengths counted (>= 1); 0 = 2..2 */
	size_t top;			/**< rows kept; 0 = all */
	bool raw_names;			/**< the kernels' names as written, not shortened */
	const char *device;		/**< only kernels of this GPU pid (as printed); NULL = all */
};

/** One kernel sequence. */
struct tl_ngram_row {
	const char **names;	/**< len names */
	unsigned len;
	uint64_t count;		/**< occurrences (overlapping ones included) */
	double total_us;	/**< sum of the kernels' durations over the occurrences */
	double mean_us;		/**< total_us / count */
	double idle_us;		/**< sum of the gaps between its kernels over the occurrences */
	double pct;		/**< total_us in percent of all kernel time counted */
	uint64_t first_uid;	/**< the first kernel of its first occurrence */
};

struct tl_ngram_table {
	struct tl_ngram_row *v;	/**< by count descending, total_us descending, names */
	size_t n;
	size_t nseqs;		/**< distinct sequences before .top cut */
	uint64_t nkernels;	/**< kernels looked at */
	double kernel_us;	/**< their total duration */
	void *priv;
};

/**
 * @brief The most frequent sequences of consecutive kernels on a stream.
 * @return 0; -EINVAL (bad lengths); -ENOENT (no kernel, or none on
 *         @p opts->device); -ENOMEM.
 */
TL_API int tl_kernel_ngrams(struct tl_trace *tr, const struct tl_ngram_opts *opts,
			    struct tl_ngram_table **out);
TL_API void tl_ngram_table_free(struct tl_ngram_table *t);

/** @brief HTA's shorten_name of @p name into @p buf (truncated to @p size - 1). */
TL_API void tl_kernel_short_name(const char *name, char *buf, size_t size);

/** Options of tl_op_kernel_patterns(); zero-initialise and set .sz. */
struct tl_op_pattern_opts {
	size_t sz;
	const char *op;		/**< substring of the cpu_op names (HTA's operator_name) */
	unsigned min_len;	/**< HTA's min_pattern_len; 0 = 3 */
	size_t top;		/**< rows kept; 0 = all */
};

struct tl_op_pattern_row {
	char *pattern;		/**< "op|gpu event|gpu event..." */
	uint64_t count;
	double gpu_us;		/**< HTA's "GPU kernel duration (us)": the events' durations summed */
	double cpu_us;		/**< HTA's "CPU op duration (us)": the ops' durations summed */
	double pct;		/**< gpu_us in percent of all the patterns' gpu_us */
};

struct tl_op_pattern_table {
	struct tl_op_pattern_row *v;	/**< by count descending, then pattern (strcmp) */
	size_t n;
	size_t npatterns;	/**< before the .top cut */
	uint64_t nroots;	/**< ops that made a pattern */
};

/**
 * @brief HTA's frequent CUDA kernel sequences launched by the ops named like @p opts->op.
 * @return 0; -EINVAL (no op string); -ENOENT (no such op launches min_len
 *         GPU events: HTA's empty result); -ENOMEM.
 */
TL_API int tl_op_kernel_patterns(struct tl_trace *tr, const struct tl_op_pattern_opts *opts,
				 struct tl_op_pattern_table **out);
TL_API void tl_op_pattern_table_free(struct tl_op_pattern_table *t);

/**
 * @brief The GPU pids that ran a kernel, in order of first appearance.
 * @param[out] out malloc'ed array of borrowed strings (owned by the trace);
 *             the caller frees the array with free().
 * @return the number of devices, or -ENOMEM.
 */
TL_API int64_t tl_kernel_devices(const struct tl_trace *tr, const char ***out);

#ifdef __cplusplus
}
#endif

#endif
