/* SPDX-License-Identifier: MIT */
/**
 * @file report.h
 * @brief Sheets: the tables of a report (TraceLens's perf report sheets and
 * ours), as typed cells, and their CSV form.
 *
 * A sheet is a name, its column names and rows of cells. Every sheet of a
 * report is built as a tl_sheet and then written as CSV (one file per sheet,
 * the way TraceLens's pandas writes it), as a worksheet of an xlsx workbook or
 * drawn; the numbers stay numbers until then.
 *
 * Ownership: a sheet owns copies of its name, its column names and every
 * string cell; tl_sheet_free() releases them. Pointers returned by the
 * accessors live as long as the sheet.
 */
#ifndef TLREPLAY_REPORT_H
#define TLREPLAY_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <tlreplay/analysis.h>
#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What a cell holds. */
enum tl_cell_kind {
	TL_CELL_EMPTY = 0,	/**< nothing: pandas' NaN/None, an empty CSV field */
	TL_CELL_INT,		/**< an integer (a count, a UID): written as digits */
	TL_CELL_NUM,		/**< a double: written as Python's repr (12.0, 1e-05); NaN is empty */
	TL_CELL_STR,		/**< text, written as it is (CSV-quoted when it must be) */
	TL_CELL_BOOL,		/**< True / False */
};

/** One cell. For TL_CELL_STR, @c s is the text; the sheet copies it when the
 * cell is added and owns the copy. */
struct tl_cell {
	enum tl_cell_kind kind;
	long long i;		/**< TL_CELL_INT; TL_CELL_BOOL: 0 or 1 */
	double d;		/**< TL_CELL_NUM */
	const char *s;		/**< TL_CELL_STR */
};

/** Cell constructors, for building rows in place. */
static inline struct tl_cell tl_cell_empty(void) { struct tl_cell c = { TL_CELL_EMPTY, 0, 0, 0 }; return c; }
static inline struct tl_cell tl_cell_int(long long v) { struct tl_cell c = { TL_CELL_INT, v, 0, 0 }; return c; }
static inline struct tl_cell tl_cell_num(double v) { struct tl_cell c = { TL_CELL_NUM, 0, v, 0 }; return c; }
static inline struct tl_cell tl_cell_str(const char *s) { struct tl_cell c = { s ? TL_CELL_STR : TL_CELL_EMPTY, 0, 0, s }; return c; }
static inline struct tl_cell tl_cell_bool(int b) { struct tl_cell c = { TL_CELL_BOOL, !!b, 0, 0 }; return c; }

struct tl_sheet;

/**
 * @brief A new empty sheet named @p name (a file stem: "GEMM", "ops_summary")
 * with @p ncols columns named @p cols.
 * @return 0, -EINVAL (no name or no columns), -ENOMEM.
 */
TL_API int tl_sheet_new(const char *name, size_t ncols, const char *const *cols, struct tl_sheet **out);

/** @brief Append a row of tl_sheet_ncols() cells (strings copied). @return 0 or -ENOMEM. */
TL_API int tl_sheet_add_row(struct tl_sheet *sh, const struct tl_cell *cells);

TL_API const char *tl_sheet_name(const struct tl_sheet *sh);
TL_API size_t tl_sheet_ncols(const struct tl_sheet *sh);
TL_API size_t tl_sheet_nrows(const struct tl_sheet *sh);
TL_API const char *tl_sheet_col(const struct tl_sheet *sh, size_t col);
/** @return the index of column @p name, or -1. */
TL_API long tl_sheet_col_index(const struct tl_sheet *sh, const char *name);
/** @return the cell at (@p row, @p col); an empty cell when out of range. */
TL_API const struct tl_cell *tl_sheet_cell(const struct tl_sheet *sh, size_t row, size_t col);

/** @brief Write @p sh as CSV the way pandas' to_csv(index=False) does: a
 * header line, ',' between fields, fields quoted only when they hold ',', '"'
 * or a line break, "\n" line ends. @return 0 or -errno of the write. */
TL_API int tl_sheet_write_csv(const struct tl_sheet *sh, FILE *f);

/** @brief The text of one cell as it goes into CSV (Python's repr for
 * numbers, "" for empty, True/False), into @p buf of @p n bytes; a string
 * cell returns its own text and leaves @p buf alone. */
TL_API const char *tl_cell_text(const struct tl_cell *c, char *buf, size_t n);

/** @brief @p v as Python's repr(float) writes it: the shortest digits that
 * read back to the same double, "12.0", "0.0001", "1e-05", "1.5e+16", "nan",
 * "inf". */
TL_API void tl_fmt_pyfloat(char *buf, size_t n, double v);

/** @brief Like tl_sheet_write_csv() with @p sep between fields (a field is
 * quoted when it holds @p sep, '"' or a line break) and only the first
 * @p max_rows rows (0: all): what `-x SEP -n N` of the commands print.
 * @return 0 or -errno of the write. */
TL_API int tl_sheet_write_sep(const struct tl_sheet *sh, FILE *f, const char *sep, size_t max_rows);

TL_API void tl_sheet_free(struct tl_sheet *sh);

/* ------------------------------------------------------------ sheet builders
 * Each takes the result of an analysis (analysis.h) and returns a new sheet
 * in @p out (the caller frees it with tl_sheet_free()); the cells are copies,
 * so the sheet may outlive the result and the trace. Each returns 0 or
 * -ENOMEM. */

/** TraceLens's gpu_timeline: [device,] [stream,] type, time ms, percent
 * [, is_recompute], one block of eight rows per breakdown of @p set. */
TL_API int tl_sheet_gpu_timeline(const struct tl_breakdown_set *set, enum tl_bd_group group,
				 bool split_recompute, struct tl_sheet **out);

/** TraceLens's ops_summary; its columns follow the grouping @p t was made
 * with (@p o: plain, is_recompute, or parent_module with call_stack_first). */
TL_API int tl_sheet_ops_summary(const struct tl_op_table *t, const struct tl_ops_opts *o,
				struct tl_sheet **out);

/** TraceLens's ops_summary_by_category: the launchers of @p ls by op category
 * [and is_recompute] with their count and direct time. */
TL_API int tl_sheet_ops_by_category(const struct tl_launcher_set *ls, bool split_recompute,
				    struct tl_sheet **out);

/** TraceLens's kernel_summary (without "Parent cpu_op" for GPU-only traces). */
TL_API int tl_sheet_kernel_summary(const struct tl_kernel_table *t, struct tl_sheet **out);

/** TraceLens's ops_unique_args as `tlreplay ops --unique-args` writes it: the
 * recorded args in Python's repr, counts, the aggregates of both times,
 * ex_UID and the percentages. */
TL_API int tl_sheet_ops_unique_args(const struct tl_launcher_group_set *set, struct tl_sheet **out);

/* ------------------------------------------------------------ the report */

struct tl_trace;

/** What tl_report_build() does; zero it and set .sz = sizeof(it). */
struct tl_report_opts {
	size_t sz;
	bool split_recompute;	/**< TraceLens's detect_recompute: is_recompute columns */
	bool by_module;		/**< TraceLens's inference report: ops grouped by parent nn.Module */
	bool include_nccl;	/**< count NCCL kernels in the op sheets */
	bool kernel_summary;	/**< add kernel_summary (TraceLens's --kernel_summary) */
	bool perf_models;	/**< add the perf-model sheets */
	bool short_kernels;	/**< add short_kernel_histogram and short_kernels_summary
				     (TraceLens's --short_kernel_study, kernels under 10 µs) */
	/** Called between sheets with the name of the sheet being built (for a
	 * progress line); may be NULL. */
	void (*progress)(const char *sheet, void *ctx);
	void *progress_ctx;
	/** Only gpu_timeline, ops_summary_by_category, ops_summary and (with
	 * kernel_summary) kernel_summary: what a comparison's summary reads.
	 * Leaves out ops_unique_args, unified_perf_summary and the perf models. */
	bool summary_only;
	/** Count GPU events no CPU launch links to in gpu_timeline (TraceLens's
	 *  --include_unlinked_kernels; tl_breakdown's include_unlinked). */
	bool include_unlinked;
};

/** The sheets of a report, in TraceLens's order. */
struct tl_report {
	size_t n;
	struct tl_sheet **v;
};

/**
 * @brief TraceLens's perf report of a PyTorch trace: gpu_timeline,
 * ops_summary_by_category, ops_summary, ops_unique_args, one sheet per
 * perf-model sheet with rows, unified_perf_summary, kernel_summary, the
 * short-kernel sheets, coll_analysis (each only where TraceLens writes it).
 * An .xplane.pb trace gets TraceLens's JAX report instead: gpu_timeline (per
 * GPU), gpu_events_averages, kernel_launchers_summary[_by_category],
 * xla_summary (not its sheets built from HLO operands). A call the perf models cannot read gets a row
 * without model numbers and a TL_LOG_WARN line, never an error.
 * @param[out] out a new report, freed with tl_report_free(); its sheets do
 * not refer to @p tr.
 * @return 0; -ENODATA (no GPU event; tl_last_error() says why); -ENOMEM.
 */
TL_API int tl_report_build(struct tl_trace *tr, const struct tl_report_opts *opts,
			   struct tl_report **out);
TL_API void tl_report_free(struct tl_report *r);
/** The sheet of @p r named @p name (owned by @p r), or NULL. */
TL_API const struct tl_sheet *tl_report_sheet(const struct tl_report *r, const char *name);

struct tl_gpu;

/**
 * @brief Our roofline sheet ("roofline"): one row per row of the perf-model
 * sheets of @p r (those with GFLOPS_first), by Kernel Time sum descending:
 * sheet, name, params ("a=1, b=2"), calls, UID_first, GFLOPS, Data Moved
 * (MB), Kernel Time (µs) sum and mean, TFLOPS/s and TB/s mean, FLOPS/Byte,
 * Compute Spec, device, roof (TFLOP/s), % of roof, bound ("compute",
 * "memory") and why a row has no roof. The roof is tl_gpu_roof() of the
 * row's first GFLOPS and bytes at its mean kernel time on @p gpu; @p gpu
 * NULL leaves the roof columns empty with @p no_gpu (NULL: a default) as
 * the why. The perf sheets are read, never changed.
 * @return 0, -EINVAL, -ENOMEM.
 */
TL_API int tl_sheet_roofline(const struct tl_report *r, const struct tl_gpu *gpu, const char *no_gpu,
			     struct tl_sheet **out);

/** @return the number in column @p col (by name) of row @p row of @p sh
 * (an int cell as a double); NaN when the column is missing or the cell is
 * empty or text. For the readers of a sheet (the roofline chart, ops --perf). */
TL_API double tl_sheet_num(const struct tl_sheet *sh, size_t row, const char *col);
/** @return the text in column @p col of row @p row; NULL when the column is
 * missing or the cell is not text. */
TL_API const char *tl_sheet_str(const struct tl_sheet *sh, size_t row, const char *col);

#ifdef __cplusplus
}
#endif

#endif
