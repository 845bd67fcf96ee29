/* SPDX-License-Identifier: MIT */
/* perf: TraceLens's perf models. For every op class TraceLens models (GEMM,
 * CONV, SDPA, elementwise, reduce, normalization, RMSNorm, RoPE, MoE,
 * inference attention, ...), the FLOPs and bytes of one call and the
 * parameters it is grouped by, read from the call's recorded args the way
 * TraceLens reads them (positionally: Input Dims, Input type, Input Strides,
 * Concrete Inputs). A family file (pm_gemm.c, pm_sdpa.c, ...) holds the
 * classes of one TraceLens family as a table of struct pm_class; the
 * registry (pm_registry.c) finds the class of an op name; the metrics and
 * the sheets built from them (Kernel Time, TFLOP/s, TB/s, grouping by
 * parameters) live in report/. It depends on analysis, trace and base. */
#ifndef TL_PERF_INTERNAL_H
#define TL_PERF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <tlreplay/report.h>

#include "base/base_internal.h"

struct tl_trace;

/* One call of an op as a perf model reads it. */
struct pm_call {
	const char *name;		/* the op: "aten::addmm" */
	const cJSON *args;		/* the event's args object; NULL when it has none */
	const char *const *kernels;	/* names of the op's GPU kernels in launch order */
	size_t nkernels;
};

#define PM_MAX_PARAMS 24

/* What a model says of one call. Parameter values are cells: numbers stay
 * numbers; a tuple, a dtype or None is the text TraceLens's pandas writes for
 * it (Python's repr: "(331840, 64, 1)", "('c10::BFloat16', 'c10::BFloat16')",
 * "None"), kept in @text. */
struct pm_out {
	double gflops;			/* GFLOPs of one call; NaN: the model has none */
	double bytes;			/* bytes moved by one call; NaN: no byte model (None) */
	size_t nparams;
	const char *param_names[PM_MAX_PARAMS];	/* static: "M", "stride_A" (the sheet adds "param: ") */
	struct tl_cell params[PM_MAX_PARAMS];	/* TL_CELL_STR cells point into @text */
	char compute_spec[48];		/* TraceLens's Compute Spec ("matrix_bf16"); "" for none */
	char note[160];			/* why the model could not read the call; "" when it could */
	char text[4096];		/* storage for the string parameters */
	size_t text_len;
};

/* A perf-model class of TraceLens: the ops it models and the sheet its rows
 * go to. */
struct pm_class {
	const char *name;		/* TraceLens's class name: "aten_mm" */
	const char *sheet;		/* the sheet (file stem): "GEMM", "SDPA_fwd" */
	const char *category;		/* TraceLens's op category: "GEMM", "SDPA", ... */
	const char *const *ops;		/* the op names, NULL-terminated */
	/* Fill @out (zeroed by the caller, gflops/bytes NaN) from @c. Returns 0,
	 * or -EINVAL when the args do not fit the model, with a one-line reason
	 * in out->note (the row then has no model, never a crash). */
	int (*model)(const struct pm_call *c, struct pm_out *out);
};

/* ------------------------------------------------------------ pm_call.c */

/* The call of event @uid: its name, parsed args and kernel names. Returns 0,
 * -ERANGE (no such event), -EBADMSG (args do not parse), -ENOMEM. Release
 * with pm_call_release(). */
int pm_call_of(const struct tl_trace *tr, uint64_t uid, struct pm_call *out);
void pm_call_release(struct pm_call *c);

/* An empty result: no params, gflops and bytes NaN. */
void pm_out_init(struct pm_out *out);

/* Append a parameter; a string value is copied into out->text. Returns 0, or
 * -ENOSPC when the parameters or their text are full. */
int pm_param_num(struct pm_out *out, const char *name, double v);
int pm_param_int(struct pm_out *out, const char *name, long long v);
int pm_param_bool(struct pm_out *out, const char *name, int v);
int pm_param_str(struct pm_out *out, const char *name, const char *text);

/* out->note = the formatted reason; returns -EINVAL for `return pm_fail(...)`. */
int pm_fail(struct pm_out *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* -------------------------------------------------------- the args, read
 * positionally as TraceLens reads them. Each returns NULL / false when the
 * field or position is missing or of another type. */
const cJSON *pm_arg(const struct pm_call *c, const char *field);	/* args[field] */
const cJSON *pm_arg_at(const struct pm_call *c, const char *field, int pos);	/* args[field][pos] */

/* --------------------------------------------------------- pm_registry.c */

/* The family tables. Weak until every family file is in: a family not yet
 * written is a NULL table the registry skips. */
#define PM_FAMILY __attribute__((weak))
/* GEMM, CONV: landed, so strong; a weak reference would not pull their
 * objects out of libtlreplay.a and the registry would see NULL. */
extern const struct pm_class pm_gemm_classes[];
extern const struct pm_class pm_conv_classes[];
extern const struct pm_class pm_sdpa_classes[] PM_FAMILY;
extern const struct pm_class pm_eltwise_classes[] PM_FAMILY;
extern const struct pm_class pm_reduce_classes[] PM_FAMILY;
extern const struct pm_class pm_norm_classes[] PM_FAMILY;
extern const struct pm_class pm_misc_classes[] PM_FAMILY;

/* The class that models op @name, or NULL. */
const struct pm_class *pm_class_of(const char *name);

#endif
