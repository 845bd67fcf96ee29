/* SPDX-License-Identifier: MIT */
/**
 * @file report_sheets.h
 * @brief Builders of TraceLens's report sheets that need no perf model: the
 * short-kernel study, the collective analysis of one rank, the JAX sheets,
 * and the xlsx workbook that holds a report's sheets.
 *
 * Each builder reads a loaded trace (linking it first if it was not) and
 * returns a new struct tl_sheet named, columned and ordered as TraceLens's
 * generate_perf_report writes it, so that tl_sheet_write_csv() gives the
 * golden CSV. A trace without what a sheet looks at (no kernels, no
 * collective, no XLA op) gives a sheet with its columns and no rows.
 *
 * Ownership: *out is a new sheet the caller releases with tl_sheet_free();
 * nothing in it points into the trace. On error *out is NULL and
 * tl_last_error() says why.
 */
#ifndef TLREPLAY_REPORT_SHEETS_H
#define TLREPLAY_REPORT_SHEETS_H

#include <stddef.h>

#include <tlreplay/common.h>
#include <tlreplay/report.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tl_trace;

/** Options of the short-kernel study; zero-initialise and set .sz (may be NULL). */
struct tl_short_kernel_opts {
	size_t sz;
	double threshold_us;	/**< a kernel is short below this; 0 = TraceLens's 10 */
	unsigned bins;		/**< histogram bins; 0 = TraceLens's 100 */
	size_t topk;		/**< summary rows kept; 0 = all */
	const char *device;	/**< histogram: only kernels of this GPU pid (as printed); NULL = all */
};

/**
 * @brief TraceLens's short_kernels_summary: kernels shorter than the
 *        threshold grouped by (Parent cpu_op, Input dims, Input strides,
 *        Concrete Inputs, Kernel name), or by Kernel name alone for a trace
 *        without cpu_op; their sum, count, mean and percent of the GPU
 *        timeline's total time; by sum descending.
 * @return 0, -ENOMEM, -EBADMSG (a cpu_op's args do not parse).
 */
TL_API int tl_sheet_short_kernels_summary(struct tl_trace *tr, const struct tl_short_kernel_opts *opts,
					  struct tl_sheet **out);

/**
 * @brief TraceLens's short_kernel_histogram: numpy's histogram of the short
 *        kernels' durations (bin_start, bin_end, count), equal bins from the
 *        shortest to the longest.
 * @return 0, -ENOMEM.
 */
TL_API int tl_sheet_short_kernel_histogram(struct tl_trace *tr, const struct tl_short_kernel_opts *opts,
					   struct tl_sheet **out);

/**
 * @brief TraceLens's coll_analysis for one trace (NcclAnalyser's summary
 *        over a single rank, rank 0): the linked NCCL/RCCL kernels grouped by
 *        the collective metadata in their args (process group, its ranks,
 *        collective name, group size, dtype, message and split sizes,
 *        stream), with their message size in MB and the sum, mean, std, min,
 *        max and count of their durations; by summed duration, descending.
 *        Kernels missing one of those args belong to no group, as in
 *        TraceLens; a trace with no collective gives no rows.
 * @return 0, -ENOMEM, -EBADMSG (a kernel's args do not parse).
 */
TL_API int tl_sheet_coll_analysis(struct tl_trace *tr, struct tl_sheet **out);

/*
 * The JAX report (TraceLens's generate_perf_report_jax, on a trace read from
 * an .xplane.pb): every GPU kernel is its own launcher, categorised by
 * TraceLens's JAX keys in its name, then in its hlo_op ("GEMM", "Conv",
 * "FA FWD", ..., else "Uncategorized Events/XLA"). Columns are those of
 * TraceLens's golden JAX CSVs. A trace with no kernel on a "/device:GPU"
 * process gives no rows. Each returns 0, -ENOMEM or -EBADMSG (args).
 */

/** @brief kernel_launchers: one row a GPU kernel, with the shapes and types
 *  of its HLO op's operands (the trace's "hloOps", read from an XSpace). */
TL_API int tl_sheet_jax_kernel_launchers(struct tl_trace *tr, struct tl_sheet **out);

/** @brief kernel_launchers_unique_args: kernel_launchers grouped by name,
 *  category and operand shapes/types, with time statistics and numpy's
 *  summary of the group's kernel; by summed time, descending. */
TL_API int tl_sheet_jax_kernel_launchers_unique_args(struct tl_trace *tr, struct tl_sheet **out);

/** @brief df_xla_perf: kernel_launchers' uncategorised (XLA) rows with the
 *  bytes of their operands (total_input_bytes). */
TL_API int tl_sheet_jax_xla_perf(struct tl_trace *tr, struct tl_sheet **out);

/** @brief kernel_launchers_summary: by kernel name, summed time, count, ms,
 *  percent, cumulative percent and ms per GPU; by time, descending. */
TL_API int tl_sheet_jax_kernel_launchers_summary(struct tl_trace *tr, struct tl_sheet **out);

/** @brief kernel_launchers_summary_by_category: the same by category. */
TL_API int tl_sheet_jax_kernel_launchers_summary_by_category(struct tl_trace *tr, struct tl_sheet **out);

/** @brief op_conv: the convolution kernels (cuDNN's convForward custom
 *  calls) with TraceLens's jax_conv perf model (FLOPs, bytes, TFLOP/s, TB/s
 *  from the HLO op's operand and output shapes), grouped by kernel name and
 *  parameters, by summed kernel time. *out is NULL (0 returned) when no
 *  kernel has the model: TraceLens writes no sheet then. Backward
 *  convolutions are left out (no model yet). */
TL_API int tl_sheet_jax_op_conv(struct tl_trace *tr, struct tl_sheet **out);

/** @brief xla_summary: the uncategorised (XLA) kernels by name with its
 *  digits removed ("loop_slice_fusion_202" -> "loop_slice_fusion_"). */
TL_API int tl_sheet_jax_xla_summary(struct tl_trace *tr, struct tl_sheet **out);

/** @brief gpu_events_averages: TraceLens's gpu_timeline rows averaged over
 *  the GPUs (time ms, and percent of the average total time). */
TL_API int tl_sheet_jax_gpu_events_averages(struct tl_trace *tr, struct tl_sheet **out);

/**
 * @brief Write @p sheets as one xlsx workbook at @p path: a worksheet per
 *        sheet in the given order, named after it (cut to Excel's 31
 *        characters; a name that repeats an earlier one, compared without case as Excel does, ends in "~N"),
 *        the header row bold, numbers as numbers, empty cells left out. The
 *        workbook is written beside @p path under a temporary name and
 *        renamed over it, so @p path is either the old file or the whole
 *        new one.
 * @return 0, -EINVAL (no sheets), -EIO or -errno of the write/rename
 *         (tl_last_error() says which), -ENOMEM.
 */
TL_API int tl_sheets_write_xlsx(struct tl_sheet *const *sheets, size_t n, const char *path);

#ifdef __cplusplus
}
#endif
#endif
