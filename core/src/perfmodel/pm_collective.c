/* SPDX-License-Identifier: MIT */
/* TraceLens's custom collectives
 * (custom_collectives_perf_model_extensions.py): all-reduce with and without
 * a fused RMSNorm, reduce-scatter and all-gather of aiter, sglang and vLLM. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perfmodel/perfmodel_internal.h"

/* ------------------------------------- custom collectives (CustomCollective)
 * No FLOPs but the fused RMSNorm's, no compute spec; the bytes of the input
 * and output tensors. Where each reads its tensors: */
struct coll {
	int in;			/* op_shape */
	int dtype;		/* dtype_in */
	int stride;		/* stride_input; -1: none */
	int out;		/* out_shape; -1: none */
	int out_first;		/* out_shape is the first parameter */
	int weight;		/* fused RMSNorm weight; -1: none */
};

static int coll_model(const struct pm_call *c, struct pm_out *o, const struct coll *k)
{
	char shape[256], outs[256], strides[256];
	double N, Nout = 0, C = 0, b;
	const char *dt;
	int err;

	if ((err = pm_ext_check_call(c, o)))
		return err;
	N = pm_dims_prod(pm_arg_at(c, "Input Dims", k->in));
	dt = pm_ext_type_at(c, k->dtype);
	if (N < 0 || pm_tuple_repr(pm_arg_at(c, "Input Dims", k->in), shape, sizeof(shape)))
		return pm_fail(o, "Input Dims[%d] is not a tensor shape", k->in);
	if (!dt)
		return pm_fail(o, "Input type[%d] is not a dtype", k->dtype);
	if (k->stride >= 0 && pm_tuple_repr(pm_arg_at(c, "Input Strides", k->stride), strides, sizeof(strides)))
		return pm_fail(o, "Input Strides[%d] is not a stride list", k->stride);
	if (k->out >= 0) {
		Nout = pm_dims_prod(pm_arg_at(c, "Input Dims", k->out));
		if (Nout < 0 || pm_tuple_repr(pm_arg_at(c, "Input Dims", k->out), outs, sizeof(outs)))
			return pm_fail(o, "Input Dims[%d] is not a tensor shape", k->out);
	}
	if (k->weight >= 0 && (err = pm_ext_dim_of(c, k->weight, 0, &C, o)))
		return err;
	if ((k->out_first && pm_param_str(o, "out_shape", outs)) || pm_param_str(o, "op_shape", shape) ||
	    (k->out >= 0 && !k->out_first && pm_param_str(o, "out_shape", outs)) || pm_param_str(o, "dtype_in", dt) ||
	    (k->stride >= 0 && pm_param_str(o, "stride_input", strides)) ||
	    (k->weight >= 0 && pm_param_count(o, "num_channels", C)))
		return pm_fail(o, "parameters do not fit");
	b = pm_dtype_bpe(dt);
	if (!(b > 0))
		return pm_fail(o, "dtype %s has no size", dt);
	if (k->weight >= 0) {
		/* the residual add, RMSNorm's rsqrt per row and the weight */
		if (!(C > 0))
			return pm_fail(o, "num_channels is %g", C);
		o->gflops = (N + (floor(N / C) * (2 * C + 2) + N * 2)) / 1e9;
		o->bytes = 2 * N * b + C * b + 2 * N * b;
	} else {
		o->gflops = 0;
		o->bytes = k->out >= 0 ? (N + Nout) * b : 2 * N * b;
	}
	return 0;
}

/* aiter_fused_allreduce_rmsnorm: inp at Input Dims[2], weight at [6]. */
static int model_ar_rmsnorm(const struct pm_call *c, struct pm_out *o)
{
	static const struct coll k = { .in = 2, .dtype = 2, .stride = 2, .out = -1, .weight = 6 };

	return coll_model(c, o, &k);
}

/* aiter_fused_allreduce_rmsnorm_: inp first, weight at [2]. */
static int model_ar_rmsnorm_(const struct pm_call *c, struct pm_out *o)
{
	static const struct coll k = { .in = 0, .dtype = 0, .stride = 0, .out = -1, .weight = 2 };

	return coll_model(c, o, &k);
}

/* custom_ar_all_reduce and its SGLang / quick-reduce twins: inp at [1],
 * read and written once. */
static int model_all_reduce(const struct pm_call *c, struct pm_out *o)
{
	static const struct coll k = { .in = 1, .dtype = 1, .stride = 1, .out = -1, .weight = -1 };

	return coll_model(c, o, &k);
}

/* aiter_reduce_scatter and aiter_all_gather_reg: inp at [1], out at [2]. */
static int model_scatter_gather(const struct pm_call *c, struct pm_out *o)
{
	static const struct coll k = { .in = 1, .dtype = 1, .stride = 1, .out = 2, .weight = -1 };

	return coll_model(c, o, &k);
}

/* sgl_kernel_reg_all_gather_into_tensor: out first, inp at [1], the dtype
 * the output's, no strides. */
static int model_sgl_all_gather(const struct pm_call *c, struct pm_out *o)
{
	static const struct coll k = { .in = 1, .dtype = 0, .stride = -1, .out = 0, .out_first = 1, .weight = -1 };

	return coll_model(c, o, &k);
}

static const char *const ar_rmsnorm_ops[] = { "aiter::fused_allreduce_rmsnorm", NULL };
static const char *const ar_rmsnorm__ops[] = { "aiter::fused_allreduce_rmsnorm_", NULL };
static const char *const custom_ar_ops[] = { "_C_custom_ar::all_reduce", NULL };
static const char *const sgl_ar_reg_ops[] = { "sgl_kernel::all_reduce_reg", NULL };
static const char *const sgl_qr_ops[] = { "sgl_kernel::qr_all_reduce", NULL };
static const char *const custom_qr_ops[] = { "_C_custom_ar::qr_all_reduce", NULL };
static const char *const reduce_scatter_ops[] = { "aiter::reduce_scatter", NULL };
static const char *const all_gather_reg_ops[] = { "aiter::all_gather_reg", NULL };
static const char *const sgl_all_gather_ops[] = { "sglang::reg_all_gather_into_tensor", NULL };

/* Sheets: the class's sheet_category, else its category's family (RoPE,
 * FusedRoPE, CrossEntropy, SSM, MoE_fused, MoE_unfused, MoE_aux, MoE_comm),
 * forward: neither report keeps these as one table. */
const struct pm_class pm_coll_classes[] = {
	{ "aiter_fused_allreduce_rmsnorm", "CustomCollective_fwd", "CustomCollective", ar_rmsnorm_ops, model_ar_rmsnorm },
	{ "aiter_fused_allreduce_rmsnorm_", "CustomCollective_fwd", "CustomCollective", ar_rmsnorm__ops,
	  model_ar_rmsnorm_ },
	{ "custom_ar_all_reduce", "CustomCollective_fwd", "CustomCollective", custom_ar_ops, model_all_reduce },
	{ "sgl_kernel_all_reduce_reg", "CustomCollective_fwd", "CustomCollective", sgl_ar_reg_ops, model_all_reduce },
	{ "sgl_kernel_qr_all_reduce", "CustomCollective_fwd", "CustomCollective", sgl_qr_ops, model_all_reduce },
	{ "custom_ar_qr_all_reduce", "CustomCollective_fwd", "CustomCollective", custom_qr_ops, model_all_reduce },
	{ "aiter_reduce_scatter", "CustomCollective_fwd", "CustomCollective", reduce_scatter_ops, model_scatter_gather },
	{ "aiter_all_gather_reg", "CustomCollective_fwd", "CustomCollective", all_gather_reg_ops, model_scatter_gather },
	{ "sgl_kernel_reg_all_gather_into_tensor", "CustomCollective_fwd", "CustomCollective", sgl_all_gather_ops,
	  model_sgl_all_gather },
	{ 0 },
};
