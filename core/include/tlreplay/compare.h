/* SPDX-License-Identifier: MIT */
/**
 * @file compare.h
 * Two perf reports side by side: TraceLens's compare_perf_reports. Every
 * sheet it compares is joined on its keys (an outer join, keys in sorted
 * order, as pandas' merge gives them), with `_diff` (variant - baseline) and
 * `_pct` (100 x diff / baseline) columns, every other column kept under its
 * report's tag (`h100::Count`); the op and perf-model sheets are split into
 * `<sheet>_intersect_<tag>`, `<sheet>_only_baseline_<tag>` and
 * `<sheet>_only_variant_<tag>`.
 *
 * Ownership: the reports given are only read; the report returned is the
 * caller's (tl_report_free()).
 */
#ifndef TLREPLAY_COMPARE_H
#define TLREPLAY_COMPARE_H

#include <tlreplay/report.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How to compare one sheet. */
struct tl_compare_spec {
	const char *const *keys;	/**< the join keys, in order */
	size_t nkeys;
	const char *const *diff_cols;	/**< columns that get _diff and _pct, in order */
	size_t ndiff;
	const char *const *drop;	/**< columns left out of both sides (may be absent) */
	size_t ndrop;
	const char *const *drop_variant;	/**< columns left out of the variant's side */
	size_t ndrop_variant;
	/** Sort by the baseline's value of this column, largest first, missing
	 * last (NULL: keep the join's order). */
	const char *sort_col;
};

/**
 * @p base and @p var joined as @p spec says, into a new sheet named @p name.
 * @p tag_base / @p tag_var prefix the kept columns. A key column missing
 * from a side reads as empty there.
 * @return 0, -EINVAL (no keys, equal tags), -ENOMEM.
 */
TL_API int tl_sheet_compare(const struct tl_sheet *base, const struct tl_sheet *var,
			    const char *tag_base, const char *tag_var,
			    const struct tl_compare_spec *spec, const char *name,
			    struct tl_sheet **out);

/**
 * A joined sheet @p joined (from tl_sheet_compare()) split on whether each
 * side has @p check_col: out[0] `<name>_intersect_<tag_var>`, out[1]
 * `<name>_only_baseline_<tag_var>`, out[2] `<name>_only_variant_<tag_var>`,
 * each sorted by @p sort_col (the baseline's, the variant's for out[2]),
 * largest first, keeping only the columns of the sides it has and dropping
 * the columns it leaves empty.
 * @return 0 or -ENOMEM (nothing in @p out then).
 */
TL_API int tl_sheet_compare_split(const struct tl_sheet *joined, const char *name,
				  const char *tag_base, const char *tag_var,
				  const char *check_col, const char *sort_col,
				  struct tl_sheet *out[3]);

/**
 * TraceLens's comparison of two reports (tl_report_build() of each trace,
 * with kernel_summary on): gpu_timeline, ops_summary, kernel_summary, the
 * three splits of ops_unique_args and unified_perf_summary, and those of the
 * GEMM, SDPA_fwd/bwd, CONV_fwd/bwd, UnaryElementwise (un_eltwise) and
 * BinaryElementwise (bin_eltwise) sheets both reports have rows in.
 * @return 0, -EINVAL (equal tags), -ENOMEM.
 */
TL_API int tl_report_compare(const struct tl_report *base, const struct tl_report *var,
			     const char *tag_base, const char *tag_var, struct tl_report **out);

#ifdef __cplusplus
}
#endif

#endif
