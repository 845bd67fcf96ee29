/* SPDX-License-Identifier: MIT */
/**
 * @file trace_diff.h
 * @brief Two traces' call trees merged into one (TraceLens's TraceDiff).
 *
 * tl_trace_diff_build() walks the host call trees of a baseline and a variant
 * trace side by side. Top-level CPU ops are paired by position; under a pair,
 * the children that lead to GPU work (plus a same-named child of the other
 * side) are sorted by timestamp and aligned by name (edit distance, hex
 * addresses and line numbers ignored, cuLaunchKernel == hipModuleLaunchKernel).
 * Aligned children become one node ("both"); the others are kept with their
 * whole subtree as base-only or variant-only nodes. When one side has a single
 * child and the other several, the single child is followed down through
 * wrappers first (TraceLens's collapse), and leftover unmatched pairs are
 * collapsed the same way and aligned again, the second time ignoring
 * python_function details.
 *
 * Both traces must stay open while the diff is used (names point into them).
 * Ownership: the diff is freed with tl_trace_diff_free(); node arrays returned
 * by the accessors are owned by it.
 */
#ifndef TLREPLAY_TRACE_DIFF_H
#define TLREPLAY_TRACE_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tl_trace;
struct tl_trace_diff;

/** Which trace a merged node comes from. */
enum tl_diff_side {
	TL_DIFF_BOTH = 0,	/**< matched: a UID on each side */
	TL_DIFF_BASE_ONLY,	/**< only in the baseline */
	TL_DIFF_VARIANT_ONLY,	/**< only in the variant */
};

/** Options for tl_trace_diff_build(); zero-initialise and set .sz (may be NULL). */
struct tl_trace_diff_opts {
	size_t sz;
};

/** One node of the merged tree. Index 0 is the baseline, 1 the variant. */
struct tl_diff_node {
	uint32_t id;			/**< merged id: pre-order position, 0 = first root */
	enum tl_diff_side side;
	int64_t uid[2];			/**< UID on each side, -1 where absent */
	const char *name[2];		/**< event names (owned by the traces), NULL where absent */
	double gpu_us[2];		/**< sum of the durations of the GPU events under it */
	size_t nchildren;
	const uint32_t *children;	/**< merged ids, in alignment order (owned by the diff) */
};

/**
 * @brief Build the merged tree. Links both traces (tl_trace_link, without
 *        python functions) if that was not done.
 * @return 0; -ENODATA when one side has no CPU op at the top of its tree
 *         (nothing can be matched; *out is still set, with no root);
 *         -ENOMEM.
 */
TL_API int tl_trace_diff_build(struct tl_trace *base, struct tl_trace *var,
			       const struct tl_trace_diff_opts *o, struct tl_trace_diff **out);
TL_API void tl_trace_diff_free(struct tl_trace_diff *d);

/** @return the baseline (@p side 0) or variant (1) trace. */
TL_API struct tl_trace *tl_trace_diff_trace(const struct tl_trace_diff *d, int side);
TL_API size_t tl_trace_diff_nnodes(const struct tl_trace_diff *d);
TL_API size_t tl_trace_diff_nroots(const struct tl_trace_diff *d);
/** @return the merged id of root @p i. */
TL_API uint32_t tl_trace_diff_root(const struct tl_trace_diff *d, size_t i);
/** @return 0, or -ERANGE for a bad id. */
TL_API int tl_trace_diff_node(const struct tl_trace_diff *d, uint32_t id, struct tl_diff_node *out);
/** @return the merged id holding UID @p uid of side @p side (0/1), or -1. */
TL_API int64_t tl_trace_diff_find(const struct tl_trace_diff *d, int side, uint64_t uid);
/** @return how many CPU ops start the tree of side @p side (0 means nothing to match). */
TL_API size_t tl_trace_diff_nside_roots(const struct tl_trace_diff *d, int side);

struct tl_sheet;

/**
 * @brief TraceLens's diff_stats.csv: one row per GPU event under each
 *        lowest common ancestor (a matched op with unmatched children on a
 *        GPU path, or a matched kernel) and under each one-side-only op:
 *        kernel name, the CPU op that launched it and its args, its
 *        duration, the busy time of its group, the ancestor's name and
 *        merged id. When both sides give the same rows (a trace against
 *        itself) only the baseline's are kept and "source" is dropped.
 * @param[out] out a new sheet "diff_stats" (free with tl_sheet_free()).
 * @return 0 or -ENOMEM. (Built by the report subsystem.)
 */
TL_API int tl_sheet_diff_stats(const struct tl_trace_diff *d, struct tl_sheet **out);
/**
 * @brief TraceLens's diff_stats_unique_args_summary.csv: the diff_stats rows
 *        grouped by every column but kernel_time, lowest_common_ancestor_id
 *        and gpu_op_uid, with operation_count, kernel_time_mean and
 *        kernel_time_sum, sorted by kernel_time_sum (largest first), ties by
 *        the other columns as text.
 */
TL_API int tl_sheet_diff_stats_unique_args(const struct tl_trace_diff *d, struct tl_sheet **out);

#ifdef __cplusplus
}
#endif
#endif
