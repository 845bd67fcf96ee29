/* SPDX-License-Identifier: MIT */
/* TraceLens's extension models other than the families of their own: RoPE
 * (PerfModel/perf_model.py FusedRoPE and
 * PerfModel/extensions/perf_model_extensions.py's RoPE ops), the unfused
 * Triton MoE stages (PerfModel/extensions/moe_perf_model_extensions.py) and
 * the MoE token dispatch/combine (perf_model.py MoEComm). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perf/perf_internal.h"

static const char *type_at(const struct pm_call *c, int i)
{
	const cJSON *t = pm_arg_at(c, "Input type", i);

	return cJSON_IsString(t) ? t->valuestring : NULL;
}

static int check_call(const struct pm_call *c, struct pm_out *o)
{
	if (!c || !c->args || !cJSON_IsArray(pm_arg(c, "Input Dims")))
		return pm_fail(o, "no Input Dims");
	return 0;
}

/* Dimension @k of Input Dims[@i]; Python's negative index when @k < 0. */
static int dim_of(const struct pm_call *c, int i, int k, double *out, struct pm_out *o)
{
	const cJSON *a = pm_arg_at(c, "Input Dims", i), *d;

	if (!cJSON_IsArray(a))
		return pm_fail(o, "no Input Dims[%d]", i);
	if (k < 0)
		k += cJSON_GetArraySize(a);
	d = cJSON_GetArrayItem(a, k);
	if (!cJSON_IsNumber(d))
		return pm_fail(o, "Input Dims[%d] has no dimension %d", i, k);
	*out = d->valuedouble;
	return 0;
}

/* FusedRoPE's bytes per element: of the given dtype, bf16 (2) when the call
 * has no types or the dtype has no size. */
static double rope_bpe(const char *dtype)
{
	double b = pm_dtype_bpe(dtype);

	return b > 0 ? b : 2;
}

/* FusedRoPE's formulas: 6 operations per rotated pair, read and write. */
static void rope_out(struct pm_out *o, double nelems, double bpe, const char *dtype)
{
	o->gflops = 3 * nelems / 1e9;
	o->bytes = 2 * nelems * bpe;
	pm_compute_spec(o, "vector", dtype);
}

/* fused_rope_fwd (TransformerEngine FusedRoPEFunc): the input is
 * (seq_len, batch, heads, head_dim). */
static int model_fused_rope(const struct pm_call *c, struct pm_out *o)
{
	static const char *const names[] = { "seq_len", "batch", "heads", "head_dim" };
	const cJSON *t = pm_arg_at(c, "Input Dims", 0);
	double d[4], n;
	int k, err;

	if ((err = check_call(c, o)))
		return err;
	if (cJSON_GetArraySize(t) < 4)
		return pm_fail(o, "Input Dims[0] is not 4-D");
	n = pm_dims_prod(t);
	if (n < 0)
		return pm_fail(o, "Input Dims[0] is not a tensor shape");
	for (k = 0; k < 4; k++) {
		if ((err = dim_of(c, 0, k, &d[k], o)))
			return err;
		if (pm_param_int(o, names[k], (long long)d[k]))
			return pm_fail(o, "parameters do not fit");
	}
	if (pm_param_int(o, "num_elements", (long long)n))
		return pm_fail(o, "parameters do not fit");
	rope_out(o, n, rope_bpe(type_at(c, 0)),
		 type_at(c, 0));
	return 0;
}

/* sgl_kernel_rotary_embedding: (positions, query, key, head_size,
 * cos_sin_cache, is_neox); only the rot_dim slice of each query and key head
 * turns. head_size is Concrete Inputs[3] when given, else the query's last
 * dimension; rot_dim the cache's second dimension when it has one. */
static int model_sgl_rotary(const struct pm_call *c, struct pm_out *o)
{
	const cJSON *cache, *hs;
	double tokens, qw, kw, head, rot, n;
	int err;

	if ((err = check_call(c, o)) || (err = dim_of(c, 1, 0, &tokens, o)) || (err = dim_of(c, 1, 1, &qw, o)) ||
	    (err = dim_of(c, 2, 1, &kw, o)) || (err = dim_of(c, 1, -1, &head, o)))
		return err;
	hs = pm_arg_at(c, "Concrete Inputs", 3);
	if (cJSON_IsString(hs) && hs->valuestring[strspn(hs->valuestring, " ")]) {
		char *end;
		long long v = strtoll(hs->valuestring, &end, 10);

		if (end == hs->valuestring || *end)
			return pm_fail(o, "Concrete Inputs[3] is not a head size");
		head = (double)v;
	}
	if (!(head > 0))
		return pm_fail(o, "head size %g", head);
	rot = head;
	cache = pm_arg_at(c, "Input Dims", 4);
	if (cJSON_GetArraySize(cache) > 1 && (err = dim_of(c, 4, 1, &rot, o)))
		return err;
	/* Python's // on the head counts */
	n = tokens * (floor(qw / head) + floor(kw / head)) * rot;
	if (pm_param_int(o, "num_elements", (long long)n))
		return pm_fail(o, "parameters do not fit");
	rope_out(o, n, rope_bpe(type_at(c, 1)), type_at(c, 1));
	return 0;
}

/* aiter_rope_cached_positions_2c_fwd_impl: the inputs x and y are Input
 * Dims[2] and [3]; both rotate. */
static int model_aiter_rope_2c(const struct pm_call *c, struct pm_out *o)
{
	char x[256], y[256];
	double nx, ny;
	int err;

	if ((err = check_call(c, o)))
		return err;
	nx = pm_dims_prod(pm_arg_at(c, "Input Dims", 2));
	ny = pm_dims_prod(pm_arg_at(c, "Input Dims", 3));
	if (nx < 0 || ny < 0 || pm_tuple_repr(pm_arg_at(c, "Input Dims", 2), x, sizeof(x)) ||
	    pm_tuple_repr(pm_arg_at(c, "Input Dims", 3), y, sizeof(y)))
		return pm_fail(o, "Input Dims[2] and [3] are not tensor shapes");
	if (pm_param_str(o, "x_shape", x) || pm_param_str(o, "y_shape", y) ||
	    pm_param_int(o, "num_elements", (long long)(nx + ny)))
		return pm_fail(o, "parameters do not fit");
	rope_out(o, nx + ny, rope_bpe(type_at(c, 0)),
		 type_at(c, 0));
	return 0;
}

/* ------------------------------------------------------------------ MoE */

/* moe_perf_model_extensions.py's DTYPE_TO_BYTES: matched exactly. */
static double moe_bpe(const char *dtype)
{
	static const struct {
		const char *name;
		double bpe;
	} tab[] = {
		{ "Float8_e4m3fn", 1 }, { "Float8_e4m3fnuz", 1 }, { "Float8_e5m2", 1 },
		{ "Float8_e5m2fnuz", 1 }, { "FP8", 1 }, { "FP4", 0.5 }, { "BFloat16", 2 },
		{ "Float16", 2 }, { "Half", 2 }, { "Float32", 4 }, { "Float", 4 },
		{ "c10::BFloat16", 2 }, { "c10::Float8_e4m3fn", 1 }, { "c10::Float8_e4m3fnuz", 1 },
		{ "c10::Float4_e2m1fn_x2", 0.5 }, { "c10::Half", 2 }, { "c10::Float", 4 },
	};
	size_t i;

	for (i = 0; dtype && i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(dtype, tab[i].name))
			return tab[i].bpe;
	return 0;
}

/* Python's truth of a JSON value. */
static int truthy(const cJSON *v)
{
	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v);
	if (cJSON_IsNumber(v))
		return v->valuedouble != 0;
	if (cJSON_IsString(v))
		return v->valuestring[0] != 0;
	if (cJSON_IsArray(v) || cJSON_IsObject(v))
		return cJSON_GetArraySize(v) != 0;
	return 0;
}

/* A parameter that is a JSON value as the pseudo-op stored it. */
static int param_json(struct pm_out *o, const char *name, const cJSON *v)
{
	if (cJSON_IsBool(v))
		return pm_param_bool(o, name, cJSON_IsTrue(v));
	if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 9e15)
		return pm_param_int(o, name, (long long)v->valuedouble);
	if (cJSON_IsNumber(v))
		return pm_param_num(o, name, v->valuedouble);
	if (cJSON_IsString(v))
		return pm_param_str(o, name, v->valuestring);
	return -EINVAL;
}

/* Uniform routing: experts hit at least once by M tokens choosing topk. */
static double active_experts(double E, double topk, double M)
{
	return E * (1 - pow((E - topk) / E, M));
}

/* moe_triton_unfused_up / _down: the pseudo-ops TraceLens's MoE extension
 * puts over a Triton MoE; Input Dims are (tokens, hidden) and the router's
 * (tokens, experts); "MoE topk" and "MoE GEMM gated" are args of the
 * pseudo-op; inter_dim is taken equal to hidden_dim (not in the trace); the
 * weight dtype is read off the first kernel's name. */
static int moe_unfused(const struct pm_call *c, struct pm_out *o, int up)
{
	const cJSON *topk_v = pm_arg(c, "MoE topk"), *gated_v = pm_arg(c, "MoE GEMM gated");
	const char *wdt = NULL, *idt;
	char lower[512];
	double M, K, N, E, topk, ib, wb, ea;
	size_t i;
	int err, gated;

	if ((err = check_call(c, o)))
		return err;
	if (cJSON_GetArraySize(pm_arg(c, "Input Dims")) < 2)
		return pm_fail(o, "fewer than 2 Input Dims");
	if ((err = dim_of(c, 0, 0, &M, o)) || (err = dim_of(c, 0, 1, &K, o)) || (err = dim_of(c, 1, 1, &E, o)))
		return err;
	if (!topk_v)
		return pm_fail(o, "no 'MoE topk' arg");
	if (!gated_v)
		return pm_fail(o, "no 'MoE GEMM gated' arg");
	if (!cJSON_IsNumber(topk_v))
		return pm_fail(o, "'MoE topk' is not a number");
	if (!c->nkernels)
		return pm_fail(o, "no kernels");
	for (i = 0; c->kernels[0][i] && i < sizeof(lower) - 1; i++)
		lower[i] = (char)((c->kernels[0][i] >= 'A' && c->kernels[0][i] <= 'Z') ? c->kernels[0][i] + 32
											   : c->kernels[0][i]);
	lower[i] = 0;
	if (strstr(lower, "fp4"))	/* "mxfp4" holds "fp4" */
		wdt = "FP4";
	else if (strstr(lower, "fp8") || strstr(lower, "e4m3"))
		wdt = "FP8";
	if (cJSON_GetArraySize(pm_arg(c, "Input type")) < 2)
		return pm_fail(o, "fewer than 2 Input types");
	idt = type_at(c, 0);
	if (!idt)
		return pm_fail(o, "Input type[0] is not a dtype");
	N = K;
	topk = topk_v->valuedouble;
	gated = truthy(gated_v);
	if (pm_param_int(o, "num_tokens", (long long)M) || pm_param_int(o, "hidden_dim", (long long)K) ||
	    pm_param_int(o, "inter_dim", (long long)N) || pm_param_int(o, "num_experts", (long long)E) ||
	    param_json(o, "topk", topk_v) || param_json(o, "gated", gated_v) ||
	    pm_param_str(o, "input_dtype", idt) ||
	    (wdt ? pm_param_str(o, "weight_dtype", wdt) : pm_param_none(o, "weight_dtype")))
		return pm_fail(o, "parameters do not fit");
	ib = moe_bpe(idt);
	wb = moe_bpe(wdt);
	if (!ib)
		return pm_fail(o, "unknown input dtype '%s'", idt);
	if (!wb)
		return pm_fail(o, "unknown weight dtype '%s'", wdt ? wdt : "None");
	ea = active_experts(E, topk, M);
	if (up) {
		double g = gated ? 2 : 1;

		o->gflops = 2 * M * K * N * topk * g / 1e9;
		o->bytes = M * K * ib + ea * g * K * N * wb + M * N * topk * ib;
	} else {
		o->gflops = 2 * M * N * K * topk / 1e9;
		o->bytes = M * N * topk * ib + ea * N * K * wb + M * K * ib;
	}
	pm_compute_spec(o, "matrix", wdt);
	return 0;
}

static int model_moe_up(const struct pm_call *c, struct pm_out *o)
{
	return moe_unfused(c, o, 1);
}

static int model_moe_down(const struct pm_call *c, struct pm_out *o)
{
	return moe_unfused(c, o, 0);
}

/* MoEComm (moe_dispatch, moe_combine): tokens x hidden moved, no FLOPs, no
 * compute spec; what is missing is None. */
static int model_moe_comm(const struct pm_call *c, struct pm_out *o)
{
	const cJSON *dims, *tok;
	const char *dt;
	double bpe = 0;
	int n, err = 0;

	if (!c || !c->args)
		return pm_fail(o, "no args");
	dims = pm_arg(c, "Input Dims");
	tok = cJSON_GetArraySize(dims) ? cJSON_GetArrayItem(dims, 0) : NULL;
	n = cJSON_IsArray(tok) ? cJSON_GetArraySize(tok) : 0;
	dt = cJSON_GetArraySize(pm_arg(c, "Input type")) ? type_at(c, 0) : NULL;
	if (dt && *dt)
		bpe = pm_dtype_bpe(dt);
	err = n >= 1 ? param_json(o, "num_tokens", cJSON_GetArrayItem(tok, 0)) : pm_param_none(o, "num_tokens");
	if (!err)
		err = n >= 2 ? param_json(o, "hidden_dim", cJSON_GetArrayItem(tok, 1))
			     : pm_param_none(o, "hidden_dim");
	if (!err)
		err = bpe > 0 ? pm_param_int(o, "bpe", (long long)bpe) : pm_param_none(o, "bpe");
	if (err)
		return pm_fail(o, "parameters do not fit");
	o->gflops = 0;
	if (n >= 2 && bpe > 0 && cJSON_IsNumber(cJSON_GetArrayItem(tok, 0)) &&
	    cJSON_IsNumber(cJSON_GetArrayItem(tok, 1)))
		o->bytes = cJSON_GetArrayItem(tok, 0)->valuedouble * cJSON_GetArrayItem(tok, 1)->valuedouble * bpe;
	return 0;
}

static const char *const fused_rope_ops[] = { "FusedRoPEFunc", NULL };
static const char *const sgl_rotary_ops[] = { "sgl_kernel::rotary_embedding", NULL };
static const char *const aiter_rope_2c_ops[] = { "aiter::rope_cached_positions_2c_fwd_impl", NULL };
static const char *const moe_up_ops[] = { "pseudo_op::moe_triton_unfused_up", NULL };
static const char *const moe_down_ops[] = { "pseudo_op::moe_triton_unfused_down", NULL };
static const char *const moe_dispatch_ops[] = { "MoEDispatch", NULL };
static const char *const moe_combine_ops[] = { "MoECombine", NULL };

/* Sheets: the category's family (RoPE, MoE_unfused, MoE_comm), forward. */
const struct pm_class pm_misc_classes[] = {
	{ "fused_rope_fwd", "RoPE_fwd", "RoPE_fwd", fused_rope_ops, model_fused_rope },
	{ "sgl_kernel_rotary_embedding", "RoPE_fwd", "RoPE_fwd", sgl_rotary_ops, model_sgl_rotary },
	{ "aiter_rope_cached_positions_2c_fwd_impl", "RoPE_fwd", "RoPE_fwd", aiter_rope_2c_ops,
	  model_aiter_rope_2c },
	{ "moe_triton_unfused_up", "MoE_unfused_fwd", "MoE_unfused", moe_up_ops, model_moe_up },
	{ "moe_triton_unfused_down", "MoE_unfused_fwd", "MoE_unfused", moe_down_ops, model_moe_down },
	{ "moe_dispatch", "MoE_comm_fwd", "MoE_comm_fwd", moe_dispatch_ops, model_moe_comm },
	{ "moe_combine", "MoE_comm_fwd", "MoE_comm_fwd", moe_combine_ops, model_moe_comm },
	{ 0 },
};
