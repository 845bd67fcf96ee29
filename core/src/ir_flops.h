/* SPDX-License-Identifier: MIT */
/* Internals of tl_ir_flops() (ir_flops.c): the view of an IR entry that
 * the counting rules share, and the rule tables of ir_flops_mm.c (matrix
 * products, convolutions, attention) and ir_flops_elem.c (elementwise ops,
 * norms, reductions). */
#ifndef TL_IR_FLOPS_H
#define TL_IR_FLOPS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>
#include <tlreplay/ir.h>

#include "util.h"

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
