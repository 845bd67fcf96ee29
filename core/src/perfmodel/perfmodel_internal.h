/* SPDX-License-Identifier: MIT */
/* perfmodel: TraceLens's perf models. For every op class TraceLens models (GEMM,
 * CONV, SDPA, elementwise, reduce, normalization, RMSNorm, RoPE, MoE,
 * inference attention, ...), the FLOPs and bytes of one call and the
 * parameters it is grouped by, read from the call's recorded args the way
 * TraceLens reads them (positionally: Input Dims, Input type, Input Strides,
 * Concrete Inputs). A family file (pm_gemm.c, pm_sdpa.c, ...) holds the
 * classes of one TraceLens family as a table of struct pm_class; the
 * registry (pm_registry.c) finds the class of an op name; the metrics and
 * the sheets built from them (Kernel Time, TFLOP/s, TB/s, grouping by
 * parameters) live in report/. It depends on analysis, trace and base. */
#ifndef TL_PERFMODEL_INTERNAL_H
#define TL_PERFMODEL_INTERNAL_H

#include <stdbool.h>
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
	/* (attention family) TraceLens's event["annotation"]: the iteration
	 * annotation around the call, for the ops its reports annotate
	 * (pm_annotation_of); NULL otherwise */
	const char *annotation;
	char name_buf[192];	/* @name without sglang_profiler's call counter */
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
	/* Fill @out (pm_out_init()'ed by the caller: no params, gflops/bytes NaN) from @c. Returns 0,
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

/* The family tables, one per family file, each ending with a { 0 } row. */
extern const struct pm_class pm_gemm_classes[];
extern const struct pm_class pm_conv_classes[];
extern const struct pm_class pm_sdpa_classes[];
extern const struct pm_class pm_eltwise_classes[];
extern const struct pm_class pm_reduce_classes[];
extern const struct pm_class pm_norm_classes[];
extern const struct pm_class pm_rope_classes[];
extern const struct pm_class pm_misc_classes[];
extern const struct pm_class pm_coll_classes[];
extern const struct pm_class pm_moe_classes[];

/* How the extension models read a call (pm_ext.c): Input type[@i] (NULL
 * when not a string); 0 when the call has Input Dims, else pm_fail();
 * dimension @k of Input Dims[@i] (Python's negative index when @k < 0);
 * Input Dims[@i] as exactly @n integers into @v (@n < 0: any number, at
 * most 8 kept). Each returns 0 or pm_fail()'s -EINVAL. */
const char *pm_ext_type_at(const struct pm_call *c, int i);
int pm_ext_check_call(const struct pm_call *c, struct pm_out *o);
int pm_ext_dim_of(const struct pm_call *c, int i, int k, double *out, struct pm_out *o);
int pm_ext_shape_n(const struct pm_call *c, int i, int n, double *v, struct pm_out *o);
/* FusedRoPE's bytes per element of @dtype (pm_rope.c): bf16's 2 when it has
 * none or no size. */
double pm_rope_bpe(const char *dtype);

/* The class that models op @name, or NULL: a family table's, else the
 * class matched by name prefix (pm_triton.c). */
const struct pm_class *pm_class_of(const char *name);

/* pm_triton.c: torch.compile's fused Triton kernels (triton_poi_, _red_,
 * _per_), matched by prefix; no sheet of their own (sheet NULL). */
extern const struct pm_class pm_triton_compiled_class;
bool pm_is_triton_compiled(const char *name);
/* aten_op_names.c (scripts/gen-aten-ops.sh): ATen op names, strcmp order. */
extern const char *const pm_aten_ops[];
extern const size_t pm_aten_nops;

/* TraceLens's can_model: whether @cls can model this call at all (a fused
 * Triton kernel needs its element counts in the args); a call it cannot is
 * an op without a model (its unified row is the plain launcher's). */
bool pm_can_model(const struct pm_class *cls, const struct pm_call *c);

/* The class that models this call of op @name (event @uid of @tr), or NULL:
 * pm_class_of(@name), and for the fused Triton kernels' class only when
 * pm_can_model says so of the call's args. */
const struct pm_class *pm_class_of_event(const struct tl_trace *tr, uint64_t uid, const char *name);

/* Every class of the tables in the registry's order, into @v (at most @max);
 * returns how many there are. The perf report orders its sheets by it. */
size_t pm_class_list(const struct pm_class **v, size_t max);

/* ----------------------------------------------------------- pm_shape.c
 * (added with the elementwise/reduce families) Shapes, dtypes and Python
 * reprs as TraceLens's models use them. Each int returns 0, or -EINVAL
 * (input not of that form) / -ENOSPC (buffer or parameters full). */
#define PM_MAX_DIMS 16
struct pm_shape {		/* a Python tuple of ints: a shape or strides */
	int n;
	long long d[PM_MAX_DIMS];
};
int pm_shape_from_json(const cJSON *a, struct pm_shape *s);	/* a JSON array of ints */
double pm_shape_numel(const struct pm_shape *s);	/* math.prod: 1 for () */
/* str() of the tuple ("(1, 2)", "(5,)", "()"), or of a list ("[1, 2]") */
int pm_shape_repr(const struct pm_shape *s, int as_list, char *buf, size_t n);
int pm_shape_broadcast(const struct pm_shape *a, const struct pm_shape *b, struct pm_shape *out);
/* a flat Python list/tuple literal of ints ("[16, 240, 240]") */
int pm_parse_int_list(const char *text, struct pm_shape *s);
/* repr() of a str, and of a tuple of strs where NULL is None:
 * "('c10::BFloat16', None)" */
int pm_py_str_repr(const char *s, char *buf, size_t n);
int pm_py_tuple_repr(const char *const *items, int count, char *buf, size_t n);
int pm_param_none(struct pm_out *out, const char *name);	/* None: an empty cell */
int pm_param_shape(struct pm_out *out, const char *name, const struct pm_shape *s);
/* TraceLens's name2bpe (0: unknown, None) and torch_dtype_map (NULL: none),
 * both without case */
double pm_dtype_bpe(const char *dtype);
const char *pm_dtype_precision(const char *dtype);
/* out->compute_spec = "{maf}_{precision of dtype}", or "" */
void pm_compute_spec(struct pm_out *out, const char *maf, const char *dtype);
/* args["Input type"][pos]: a string, or NULL for null; -EINVAL otherwise */
int pm_arg_dtype(const struct pm_call *c, int pos, const char **dtype);

/* ------------------------------------------------- attention family (SDPA,
 * inference attention): pm_fmt.c, pm_sdpa*.c */

/* pm_fmt.c: Python's repr of tuple(a) for a JSON array of integers ("(5,)").
 * 0, -EINVAL, -ENOSPC. */
int pm_tuple_repr(const cJSON *a, char *buf, size_t n);

/* pm_sdpa_annot.c: the user annotation TraceLens's reports attach to event
 * @uid named @name (Trace2Tree's apply_annotation over the inference
 * report's op list): the first by start time that holds the event, or NULL
 * (also for ops not annotated). Owned by the trace. */
const char *pm_annotation_of(const struct tl_trace *tr, uint64_t uid, const char *name);
/* The context / generation sq-sk aggregates of an iteration annotation
 * (TraceUtils' IterationAnnotation.chunk_stats). -EINVAL when @ann is NULL
 * or not one of the detailed (sq/sk) vLLM, SGLang or ATOM formats. */
struct pm_chunk {
	long long c_sq, c_sk, c_sqsq, c_sqsk, g_sq, g_sk, g_sqsq, g_sqsk;
};
int pm_chunk_stats(const char *ann, struct pm_chunk *st);

/* pm_sdpa.c: the row TraceLens's SDPA_bwd sheet has for a forward op of
 * class @cls that has backward events (TreePerf's compute_perf_metrics with
 * bwd=True: the forward call's parameters, the backward FLOPs and bytes).
 * -ENOENT when @cls has no backward model (only SDPA classes do). */
int pm_sdpa_bwd(const struct pm_class *cls, const struct pm_call *c, struct pm_out *out);
/* pm_registry.c: the backward model of class @cls for a forward call @c
 * that has backward events (what TraceLens's flops_bwd / bytes_bwd give):
 * the SDPA classes' and the reductions' (whose backward FLOPs and bytes are
 * the forward ones). 0, -EINVAL with out->note, or -ENOENT when tlreplay
 * has no backward model for @cls. */
int pm_model_bwd(const struct pm_class *cls, const struct pm_call *c, struct pm_out *out);
/* pm_sdpa_infer.c: the models of TraceLens's InferenceAttention classes
 * (PerfModel/extensions/attention_perf_model_extensions.py) and of
 * sglang_store_cache, listed in pm_sdpa.c's table */
int pm_ia_base(const struct pm_call *c, struct pm_out *out);
int pm_ia_dv_from_v(const struct pm_call *c, struct pm_out *out);
int pm_ia_paged_ragged(const struct pm_call *c, struct pm_out *out);
int pm_ia_tilelang_sparse(const struct pm_call *c, struct pm_out *out);
int pm_ia_pa_decode_gluon(const struct pm_call *c, struct pm_out *out);
int pm_ia_sparse_prefill(const struct pm_call *c, struct pm_out *out);
int pm_ia_gdn(const struct pm_call *c, struct pm_out *out);
int pm_store_cache(const struct pm_call *c, struct pm_out *out);

/* ------------------------------------------- normalization (pm_norm_util.c)
 * Helpers of the normalization, RMSNorm, RoPE and MoE models (the dtype and
 * repr helpers they use are pm_shape.c's and pm_fmt.c's above). */

/* Append a count read from a shape: an integer, or a number when it is not
 * one or too large for one (never a cast out of range). */
int pm_param_count(struct pm_out *out, const char *name, double v);
/* The product of the integers of JSON array @a (1 when empty); -1 when @a
 * is not an array of integers. */
double pm_dims_prod(const cJSON *a);
/* Parse a Python list literal of integers or booleans ("[768]", "[True,
 * False]") into @v (True = 1). Returns the count, or -EINVAL. */
int pm_parse_list(const char *s, double *v, int max);
/* The sheet of @c's rows in TraceLens's inference report: the training
 * report keeps Normalization as one table, the inference report splits it
 * by direction like the other families ("Normalization_fwd"). */
const char *pm_sheet_inference(const struct pm_class *c);

/* ------------------------------------------------------ pm_gemm_name.c */

/* The transpose flags TraceLens's gemm_name_parser reads from GEMM kernel
 * name @kernel into @t (1 True, 0 False, -1 None). Returns 1 when the name
 * is a GEMM name it parses, 0 when not, -1 when it is one whose flags cannot
 * be read (TraceLens's row is dropped). */
int pm_gemm_transpose(const char *kernel, int t[2]);

#endif
