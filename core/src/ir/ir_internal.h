/* SPDX-License-Identifier: MIT */
/* ir: ops as replay recipes. Operator schemas, the schema database and
 * Python-literal values (schema.c); the replay IR of an event, built from its
 * recorded args and its schema (ir_build.c) and what its kernels' names say
 * of them (ir_kernel_hints.c), with the profiler's dtypes
 * (ir_dtype.c, also read by the FLOPs counter); and the FLOPs and bytes of an
 * IR entry (ir_flops.c: the entry, ir_flops_args.c: the argument model,
 * ir_flops_mm.c and ir_flops_elem.c: the rules). It depends on analysis (the
 * batch context of an op), trace and base. */
#ifndef TL_IR_INTERNAL_H
#define TL_IR_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>
#include <tlreplay/ir.h>

#include "base/base_internal.h"

/* ============================================================== ir_dtype.c */

enum tl_dt_class { TL_DT_FLOAT, TL_DT_COMPLEX, TL_DT_INT, TL_DT_BOOL };

/* A dtype as the profiler spells it ("float", "c10::BFloat16", "long int"). */
struct tl_dtype {
	const char *name;
	double size;		/* bytes per element */
	enum tl_dt_class cls;
	bool in_ir;		/* in docs/ir.md's table: the IR builder's tensor dtypes */
};

/* The entry of @name; NULL for NULL or a name not in the table. */
const struct tl_dtype *tl_dtype_find(const char *name);

/* ======================================================= ir_kernel_hints.c */

/* What the kernels an op launched say about its arguments. */
struct tl_kernel_hints {
	/* the element dtype of its TensorLists, from a multi-tensor kernel's
	 * functor (the profiler's spelling), "" when none says or they differ */
	char list_dtype[32];
	/* the functor it was read from ("BinaryOpScalarFunctor<float, 1, 1, 0>") */
	char list_from[96];
	/* a kernel ran with the first (AUnaryFunctor) or the second
	 * (BUnaryFunctor) operand a CPU scalar */
	bool cpu_scalar_a, cpu_scalar_b;
};

/* Fill @h from the GPU kernels op @uid launched itself. 0 or -ENOMEM. */
struct tl_trace;
int tl_ir_kernel_hints(struct tl_trace *tr, uint64_t uid, struct tl_kernel_hints *h);

/* ================================================================ schema.c */

/* Operator schema parsing, the schema database and Python-literal values
 * (schema.c), shared with the IR builder (ir_build.c). */

/* Parse @text into @out; every string (and the args array) is allocated from
 * @arena. On failure returns -EINVAL with a short reason in @why (and no
 * tl_last_error(): the database skips bad strings quietly). */
int tl_schema_parse_arena(struct tl_arena *arena, const char *text, struct tl_schema *out,
			  char *why, size_t whylen);

/* ------------------------------------------------------------------ literals */

/* The literals of schema defaults and of the profiler's Concrete Inputs: both
 * are written the Python way ("True", "0.", "1e-05", "[1, 1]", "\"none\""). */
enum tl_lit {
	TL_LIT_BAD = 0,		/* empty or not understood */
	TL_LIT_NONE,		/* None */
	TL_LIT_BOOL,		/* True False true false */
	TL_LIT_INT,		/* -?[0-9]+ */
	TL_LIT_FLOAT,		/* anything else strtod takes whole: 0. 1e-05 inf -inf nan */
	TL_LIT_STR,		/* "..." or '...' */
	TL_LIT_LIST,		/* [...] or (...) */
	TL_LIT_NAME,		/* an identifier: contiguous_format, long, Mean */
};

struct tl_literal {
	enum tl_lit kind;
	bool b;
	long long i;
	bool i_big;		/* an integer outside int64: kept as text */
	double d;		/* value of an int or float */
	const char *s;		/* the trimmed text (not NUL-terminated) */
	size_t len;
};

/* Classify the literal in s[0, len) (surrounding blanks ignored). */
enum tl_lit tl_literal_parse(const char *s, size_t len, struct tl_literal *out);

/* Call @fn on each top-level item of a list literal "[a, b]" (brackets
 * included in @s); returns the number of items, or -1 if @fn returned
 * false or the text is not a list. */
int tl_literal_items(const char *s, size_t len,
		     bool (*fn)(const char *item, size_t n, void *ctx), void *ctx);

/* A string literal without its quotes, C escapes decoded, malloc'ed; NULL if
 * @text is not a quoted string or on ENOMEM. */
char *tl_schema_unquote(const char *text, size_t len);

/* c10 code of an enum name used in defaults (ScalarType "long", Layout
 * "strided", MemoryFormat "contiguous_format"); -1 if unknown. */
int tl_schema_enum_code(enum tl_arg_kind kind, const char *name, size_t len);

/* JSON numbers that keep their kind when printed: an integer beyond 2^53 and
 * an integral float ("2.0") are cJSON_Raw items; inf becomes +-DBL_MAX and
 * nan null (the caller notes the original text). NULL on ENOMEM. */
cJSON *tl_json_int(long long v);
cJSON *tl_json_float(double d);

/* The JSON value of literal s[0, len) for argument @a (element-wise for a
 * list; a bare scalar for an int[N] repeats N times, the torch 1.13 default
 * form "int[2] stride=1"). Sets *exact to false when the literal is only
 * compatible (an int for a float, 0/1 for a bool). NULL if the literal does
 * not fit the type, or on ENOMEM (*nomem set). */
cJSON *tl_literal_json(const struct tl_schema_arg *a, const char *s, size_t len, bool *exact,
		       bool *nomem);

/* The default of @a as a JSON value (NULL if none or not understood). */
cJSON *tl_schema_default_json(const struct tl_schema_arg *a);

/* ============================================================= ir_flops*.c */

/* Internals of tl_ir_flops() (ir_flops.c): the view of an IR entry that
 * the counting rules share, and the rule tables of ir_flops_mm.c (matrix
 * products, convolutions, attention) and ir_flops_elem.c (elementwise ops,
 * norms, reductions). */

#define FL_MAXDIM 16		/* larger tensors: -ENOTSUP where dimensions matter */

/* A tensor argument. */
struct fl_tensor {
	int nd;
	double dim[FL_MAXDIM];
	double numel;
	double esize;		/* bytes per element; NAN for a dtype of unknown size */
};

struct fl_ctx {
	const char *op;		/* op_name */
	const cJSON *pos, *kw;	/* replay_ir.list_pos_args / list_kwargs */
	bool schemaless;
	bool inplace;		/* op_name ends in "_" (add_): the output is self */
	bool has_out;		/* outputs are arguments (out=): nothing to infer */
	int ntensors;		/* tensor arguments read (list elements included) */
	double in_bytes;	/* every tensor argument read */
	double big_bytes;	/* the largest of them (for the estimate of unknown ops) */
	double out_bytes;
	double flops;
};

struct fl_rule;
typedef int (*fl_rule_fn)(struct fl_ctx *c, const struct fl_rule *r);

/* How to count one op. */
struct fl_rule {
	/* matched whole, then without a trailing "_" (in-place: add_) */
	const char *name;
	fl_rule_fn fn;		/* sets flops and out_bytes; 0, -ENOTSUP or -EINVAL (tl_err()) */
	int k;			/* the rule's parameter: FLOPs per element, a table index, ... */
	unsigned flags;
};

#define FL_SELF_WO 1u		/* self is only written (copy_, fill_): not read */
#define FL_ARG0_OUT 2u		/* argument 0 is the output (vLLM _C ops) */
#define FL_BOOL_OUT 4u		/* comparisons: bool output */
#define FL_INDICES 8u		/* max.dim/min.dim: int64 indices too */

/* The rule tables. */
extern const struct fl_rule fl_mm_rules[];
extern const size_t fl_mm_nrules;
extern const struct fl_rule fl_elem_rules[];
extern const size_t fl_elem_nrules;

/* ------------------------------------------------------------------ helpers (ir_flops_args.c) */

/* A number: JSON number, bool, or a cJSON_Raw number. */
bool fl_num(const cJSON *v, double *out);
/* Element size of a ScalarType code (dtype= arguments); NAN when unknown. */
double fl_scalar_type_size(double code);
/* The value of the argument named @names ("input|self": any of them), or
 * of positional argument @pos in a schemaless entry; NULL if absent or None. */
const cJSON *fl_arg_value(const struct fl_ctx *c, const char *names, int pos);
/* @v as a tensor: 1, 0 if it is not a tensor value, -EINVAL if malformed. */
int fl_tensor_of(const struct fl_ctx *c, const cJSON *v, struct fl_tensor *t);
double fl_bytes(const struct fl_tensor *t);
/* A tensor argument: 1, 0 if absent or not a tensor, -EINVAL, -ENOTSUP. */
int fl_get_tensor(const struct fl_ctx *c, const char *names, int pos, struct fl_tensor *t);
/* The same, -EINVAL when absent. Returns 0 on success. */
int fl_need_tensor(const struct fl_ctx *c, const char *names, int pos, struct fl_tensor *t);
/* A scalar argument, @dflt when absent or not a number. */
double fl_get_num(const struct fl_ctx *c, const char *names, int pos, double dflt);
/* An int[] argument for @n dimensions (a single value stands for all). */
int fl_get_ints(const struct fl_ctx *c, const char *name, int pos, int n, double dflt, double *out);
/* An output of @numel elements of @esize bytes (ignored with out= arguments). */
void fl_add_out(struct fl_ctx *c, double numel, double esize);

#endif
