/* SPDX-License-Identifier: MIT */
/* report: the sheets of a report. A sheet (sheet.c) is a table of typed
 * cells with its CSV writer; the sheet builders turn the analyses, the perf
 * models and the rank summaries into TraceLens's sheets and ours, and the
 * workbook and chart writers read nothing but sheets. It depends on every
 * subsystem that computes something a sheet shows; none depends on it. */
#ifndef TL_REPORT_INTERNAL_H
#define TL_REPORT_INTERNAL_H

#include <stdio.h>

#include <tlreplay/report.h>
#include <tlreplay/trace.h>

#include "base/base_internal.h"
#include "perfmodel/perfmodel_internal.h"

#define RPT_N(a) (sizeof(a) / sizeof((a)[0]))

struct cJSON;
struct tl_trace;

/* pyrepr.c: @json (compact JSON of a recorded args field, "" when
 * absent) as Python's repr of TraceLens's list_to_tuple() of it, malloc'ed
 * ("((8944, 1024), (1024, 2816))"); NULL when out of memory. */
char *rpt_pyrepr_json(const char *json);
/* @v as Python's repr of what json.loads gives (lists stay lists, or become
 * tuples with @tuples), malloc'ed; "" for NULL; NULL when out of memory. */
char *rpt_pyrepr(const struct cJSON *v, bool tuples);
/* @s as Python's repr of a str ('abc', "it's"). */
void rpt_put_pystr(FILE *f, const char *s);
/* Append Python's repr of the str @s (rpt_pystr_append) or @s itself
 * (rpt_str_append) to the malloc'ed, NUL-terminated *buf (length *len,
 * capacity *cap). 0 or -ENOMEM. */
int rpt_pystr_append(char **buf, size_t *len, size_t *cap, const char *s);
int rpt_str_append(char **buf, size_t *len, size_t *cap, const char *s);

/* report_build.c: @sh appended to @r (freed when out of memory).
 * 0 or -ENOMEM. */
#define RPT_JAX_XLA_CAT "Uncategorized Events/XLA"
/* TraceLens's JAX category of a kernel from its name and HLO op (sheet_jax.c) */
const char *rpt_jax_kernel_cat(const char *name, const char *hlo_op);

int rpt_report_push(struct tl_report *r, struct tl_sheet *sh);

/* sheet.c: the end of a builder: @sh into @out, or freed when @err;
 * returns @err. */
int rpt_sheet_done(struct tl_sheet *sh, int err, struct tl_sheet **out);
/* sheet.c: drop column @col of @sh (no-op when absent). 0 or -ENOMEM. */
int rpt_sheet_drop_col(struct tl_sheet *sh, const char *col);

/* sheet_perf.c: the perf-model sheets of @tr, appended to @list (grown with
 * realloc, @n updated), in the order of the class tables; @inference: as
 * TraceLens's inference report (its sheet names, grouped by num_kernels
 * too); @recompute: grouped by is_recompute too. A call a model cannot read gets a TL_LOG_WARN line and no row (TraceLens skips it).
 * 0 or -ENOMEM. */
int rpt_perf_sheets(struct tl_trace *tr, bool inference, bool recompute, struct tl_sheet ***list,
		    size_t *n);

/* sheet_unified.c: TraceLens's unified_perf_summary of @tr, with
 * is_recompute when @recompute; *out NULL when no op does GPU work.
 * 0 or -ENOMEM. */
/* @inference: the inference report's form, with entry_point and
 * call_stack_full (TraceLens's include_call_stack). */
int rpt_sheet_unified(struct tl_trace *tr, bool recompute, bool inference, struct tl_sheet **out);
struct pkernel;
/* unified_callstack.c: TraceLens's call_stack_full of the op @op (its
 * kernels @k, in its kernel_details order) into *stack and its entry_point
 * (for the row named @name) into *entry, both malloc'ed. @from_op: the
 * frames above and below the op are in the chains (false for a synthetic
 * op: its kernels' names only). 0 or -ENOMEM. */
int rpt_call_stack(struct tl_trace *tr, uint64_t op, bool from_op, const struct pkernel *k, size_t nk,
		   const char *name, char **stack, char **entry);

/* ------------------------------------------------ perf_rows.c: one row per
 * modelled call, for sheet_perf.c */
struct pkernel {
	uint64_t uid;
	double ts, dur;
	int64_t stream;		/* TL_NOID when absent */
	const char *name;	/* borrowed from the trace's string table */
};

struct prow {
	uint64_t uid;
	const char *name;		/* owned by the trace, or name_own */
	char *name_own;			/* a renamed op's name (sglang_profiler's without its counter) */
	const struct pm_class *cls;
	const char *pname, *plabel, *tname;	/* process/thread names, static or the trace's */
	bool nomodel;			/* the model could not read the call */
	char why[192];			/* then why: "UID n (op, class): reason" */
	double kt;			/* Kernel Time (µs): union of the GPU events */
	double gflops, bytes;		/* the model's; NaN when none */
	double tflops, tbs, mb, fpb;	/* what TraceLens derives from them */
	char compute_spec[48];
	size_t nparams;
	const char *pnames[PM_MAX_PARAMS];	/* static, the model's */
	char *pvals[PM_MAX_PARAMS];	/* str() of each value, malloc'ed */
	bool pnone[PM_MAX_PARAMS];	/* the value is None (pvals[i] is ""), not a str */
	char *args[4];			/* repr of Input Dims/type/Strides/Concrete Inputs; NULL: absent */
	bool tuple_args;		/* set by the caller: args as the unified sheet writes them
					 * (lists as tuples, null as absent) */
	size_t nk;
	struct pkernel *k;		/* by ts */
};

/* Fill @r (uid, name, cls set by the caller). 0 or -ENOMEM / -ERANGE. */
int prow_fill(const struct tl_trace *tr, struct prow *r);
/* r->name = @raw as TraceLens reports it (sglang_profiler's ops without
 * their call counter, then in r->name_own). 0 or -ENOMEM. */
int prow_set_name(const struct tl_trace *tr, struct prow *r, const char *raw);
void prow_release(struct prow *r);
/* The backward row of forward op @r (uid, name, cls set): the GPU events
 * below the backward ops @bwd[0..nbwd) linked to it and its descendants,
 * and the class's backward model; r->nomodel when there is none.
 * 0 or -ENOMEM / -ERANGE. */
int prow_fill_bwd(const struct tl_trace *tr, struct prow *r, const uint64_t *bwd, size_t nbwd);
/* Only r->k, r->nk and r->kt of @r (uid set): the GPU events below it, or
 * with @direct those it launched itself (a kernel launcher's). */
int rpt_kernels_of(const struct tl_trace *tr, struct prow *r, bool direct);

/* ------------------------------------------------ perf_bwd.c: forward op
 * -> the backward ops linked to it (tl_event_fwd's inverse), built once. */
struct rpt_bwd;
/* 0 or -ENOMEM; free with rpt_bwd_free(). */
int rpt_bwd_index(const struct tl_trace *tr, struct rpt_bwd **out);
void rpt_bwd_free(struct rpt_bwd *b);
/* How many backward ops are linked to @uid itself. */
size_t rpt_bwd_direct(const struct rpt_bwd *b, uint64_t uid);
/* The backward ops linked to @uid and to every op below it (malloc'ed
 * *out, *nout of them). 0 or -ENOMEM. */
int rpt_bwd_subtree(const struct rpt_bwd *b, const struct tl_trace *tr, uint64_t uid,
		    uint64_t **out, size_t *nout);

/* ------------------------------------------------ perf_meta.c: process and
 * thread names from the metadata events ("Unknown" where none). The names
 * returned live as long as the table. */
struct rpt_meta;
int rpt_meta_load(const struct tl_trace *tr, struct rpt_meta **out);
void rpt_meta_names(struct rpt_meta *m, const char *pid, const char *tid, const char **pname,
		    const char **plabel, const char **tname);
void rpt_meta_free(struct rpt_meta *m);

/* ------------------------------------------------ kernel_stats.c */
struct rpt_klist {
	const struct pkernel *k;	/* one call's kernels, by ts */
	size_t nk;
};
/* TraceLens's _summarize_kernel_stats over the calls @v[0..n): the kernels of
 * the first call that has any, each with the count, sum, mean, median,
 * population std, min and max of its duration over the calls that launched
 * as many kernels; with @trunc its trunc_kernel_details form (names cut at
 * 64 characters, the mean rounded to 2 places; "" for no kernels).
 * malloc'ed; NULL when out of memory. */
char *rpt_kernel_stats(const struct rpt_klist *v, size_t n, bool trunc);
/* The same, and where @order is not NULL the positions of the template
 * (the first list with kernels) in the order listed, malloc'ed (NULL when
 * no list has kernels). */
char *rpt_kernel_stats_ord(const struct rpt_klist *v, size_t n, bool trunc, size_t **order);

/* sheet_unique_args.c: ops_unique_args as TraceLens's report writes it
 * (process and thread names, kernel details), where the command prints pid
 * and tid. 0 or -ENOMEM. */
int rpt_sheet_unique_args(const struct tl_launcher_group_set *set, const signed char *recompute,
			  const struct tl_trace *tr, struct rpt_meta *meta, struct tl_sheet **out);
/* unique_args_recompute.c: the same, each group split by the recompute flag
 * of its launchers (@ls, built with detect_recompute), with is_recompute. */
int rpt_sheet_unique_args_recompute(const struct tl_launcher_group_set *set,
				    const struct tl_launcher_set *ls, const struct tl_trace *tr,
				    struct rpt_meta *meta, struct tl_sheet **out);

/* sheet_unique_args_infer.c: the inference report's form (--by-module):
 * the launchers @ls grouped by parent module and kernel count too, those
 * without recorded args kept, with parent_module, num_kernels, call_stack.
 * 0 or -ENOMEM. */
int rpt_sheet_unique_args_infer(const struct tl_launcher_set *ls, struct tl_trace *tr,
				struct rpt_meta *meta, struct tl_sheet **out);

/* sheet_ops.c: ops_summary_by_category of the inference report, by (op
 * category, parent module), from the by-module ops table @t. */
int rpt_sheet_by_category_module(const struct tl_op_table *t, struct tl_sheet **out);


struct cJSON;

/* @v (parsed JSON) as Python's repr() writes it after TraceLens
 * turned every list into a tuple ("((512,), (141, 512))", "('', '1')",
 * "None"); appended to the malloc'ed *buf (length *len, capacity *cap), NUL-terminated.
 * Returns 0 or -ENOMEM. */
int tl_pyrepr_tuple(const struct cJSON *v, char **buf, size_t *len, size_t *cap);

#endif
