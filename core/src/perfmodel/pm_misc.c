/* SPDX-License-Identifier: MIT */
/* TraceLens's extension models of no family of their own: CrossEntropy,
 * CausalConv1d, MambaSSD, mixed_sample_outer_exponential, the mHC models and
 * the MXFP4 quant models. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perfmodel/perfmodel_internal.h"

/* Python's repr of a list of integers: [4, 1, 32000]. */
static int list_repr(const cJSON *a, char *buf, size_t n)
{
	int err = pm_tuple_repr(a, buf, n);
	size_t len;

	if (err)
		return err;
	len = strlen(buf);
	if (len >= 3 && buf[len - 2] == ',')	/* (5,) -> [5] */
		memmove(buf + len - 2, ")", 2);
	len = strlen(buf);
	buf[0] = '[';
	buf[len - 1] = ']';
	return 0;
}

/* cross_entropy_fwd (CrossEntropyFunction): logits (batch, ..., vocab);
 * ~5 operations per logit; read the logits, an int64 target and write an
 * FP32 loss per row. */
static int model_cross_entropy(const struct pm_call *c, struct pm_out *o)
{
	const cJSON *l = pm_arg_at(c, "Input Dims", 0);
	double B, V, n;
	char buf[256];
	int err;

	if ((err = pm_ext_check_call(c, o)) || (err = pm_ext_dim_of(c, 0, 0, &B, o)) || (err = pm_ext_dim_of(c, 0, -1, &V, o)))
		return err;
	n = pm_dims_prod(l);
	if (n < 0 || list_repr(l, buf, sizeof(buf)))
		return pm_fail(o, "Input Dims[0] is not a tensor shape");
	if (pm_param_count(o, "batch", B) || pm_param_count(o, "vocab_size", V) ||
	    pm_param_str(o, "logits_shape", buf))
		return pm_fail(o, "parameters do not fit");
	o->gflops = 5 * B * V / 1e9;
	o->bytes = n * pm_rope_bpe(pm_ext_type_at(c, 0)) + B * 8 + B * 4;
	pm_compute_spec(o, "vector", pm_ext_type_at(c, 0));
	return 0;
}

/* causal_conv1d_fwd (DaoAILab::_causal_conv1d_fwd_cpp): x (batch, channels,
 * seq_len), weight (channels, kernel_size), an optional bias; a depthwise
 * convolution, counted as matrix work. */
static int model_causal_conv1d(const struct pm_call *c, struct pm_out *o)
{
	double b, ch, s, k, bpe;
	int bias, err;

	if ((err = pm_ext_check_call(c, o)) || (err = pm_ext_dim_of(c, 0, 0, &b, o)) || (err = pm_ext_dim_of(c, 0, 1, &ch, o)) ||
	    (err = pm_ext_dim_of(c, 0, 2, &s, o)) || (err = pm_ext_dim_of(c, 1, 1, &k, o)))
		return err;
	bias = cJSON_GetArraySize(pm_arg(c, "Input Dims")) > 2 &&
	       cJSON_GetArraySize(pm_arg_at(c, "Input Dims", 2)) > 0;
	if (pm_param_count(o, "batch", b) || pm_param_count(o, "channels", ch) ||
	    pm_param_count(o, "seq_len", s) || pm_param_count(o, "kernel_size", k) ||
	    pm_param_bool(o, "has_bias", bias))
		return pm_fail(o, "parameters do not fit");
	bpe = pm_rope_bpe(pm_ext_type_at(c, 0));
	o->gflops = 2 * b * ch * s * k / 1e9;
	o->bytes = b * ch * s * bpe + ch * k * bpe + b * ch * s * bpe + (bias ? ch * bpe : 0);
	pm_compute_spec(o, "matrix", pm_ext_type_at(c, 0));
	return 0;
}

/* Concrete Inputs[@i] as an int when it is a non-empty string, else @dflt
 * (MambaSSD's chunk size, head dim and groups). */
static int concrete_int_or(const struct pm_call *c, int i, long long dflt, long long *v, struct pm_out *o)
{
	const cJSON *s = pm_arg_at(c, "Concrete Inputs", i);
	char *end;

	*v = dflt;
	if (!cJSON_IsString(s) || !s->valuestring[0])
		return 0;
	*v = strtoll(s->valuestring, &end, 10);
	if (end == s->valuestring || *end)
		return pm_fail(o, "Concrete Inputs[%d] is not an integer", i);
	return 0;
}

/* The size of Input type[@slot] when it names one, else @dflt. */
static double slot_bpe(const struct pm_call *c, int slot, double dflt)
{
	const char *t = pm_ext_type_at(c, slot);
	double b = t && *t ? pm_dtype_bpe(t) : 0;

	return b > 0 ? b : dflt;
}

/* mamba_ssd_fwd (MambaSplitConv1dScanCombinedFn, Mamba-2 SSD): zxbcdt
 * (B, T, combined), conv weight (channels, d_conv), dt_bias (H); chunk C,
 * head dim P and groups G from Concrete Inputs[6], [15], [16] (128, 64, 1);
 * the state size N solves combined = 2 d_inner + 2 G N + H. FLOPs: the
 * conv and the four SSD matmuls. */
static int model_mamba_ssd(const struct pm_call *c, struct pm_out *o)
{
	static const char *const names[] = { "B", "T", "H", "P", "G", "N", "C", "d_inner", "d_conv",
					     "conv_channels", "combined_dim" };
	double B, T, comb, ch, dc, H, N, din, num, bpe, v[11];
	long long C, P, G;
	int k, err;

	if ((err = pm_ext_check_call(c, o)) || (err = pm_ext_dim_of(c, 0, 0, &B, o)) || (err = pm_ext_dim_of(c, 0, 1, &T, o)) ||
	    (err = pm_ext_dim_of(c, 0, 2, &comb, o)) || (err = pm_ext_dim_of(c, 1, 0, &ch, o)) || (err = pm_ext_dim_of(c, 1, 1, &dc, o)) ||
	    (err = pm_ext_dim_of(c, 3, 0, &H, o)) || (err = concrete_int_or(c, 6, 128, &C, o)) ||
	    (err = concrete_int_or(c, 15, 64, &P, o)) || (err = concrete_int_or(c, 16, 1, &G, o)))
		return err;
	if (cJSON_IsArray(pm_arg(c, "Input type")) && !cJSON_GetArraySize(pm_arg(c, "Input type")))
		return pm_fail(o, "Input type is empty");
	din = H * (double)P;
	num = comb - 2 * din - H;
	if (num <= 0 || G <= 0 || fmod(num, 2.0 * (double)G) != 0)
		return pm_fail(o, "cannot derive the state size from combined_dim %g", comb);
	N = floor(num / (2.0 * (double)G));
	v[0] = B, v[1] = T, v[2] = H, v[3] = (double)P, v[4] = (double)G, v[5] = N, v[6] = (double)C;
	v[7] = din, v[8] = dc, v[9] = ch, v[10] = comb;
	for (k = 0; k < 11; k++)
		if (pm_param_count(o, names[k], v[k]))
			return pm_fail(o, "parameters do not fit");
	o->gflops = (2 * B * ch * T * dc + 2 * B * (double)G * T * (double)C * N +
		     2 * B * H * T * (double)C * (double)P + 2 * B * H * T * N * (double)P +
		     2 * B * H * T * N * (double)P) / 1e9;
	bpe = pm_rope_bpe(pm_ext_type_at(c, 0));
	o->bytes = B * T * comb * bpe + ch * dc * bpe + ch * bpe +
		   (H * slot_bpe(c, 3, 4) + H * slot_bpe(c, 4, 4) + H * slot_bpe(c, 5, bpe)) + B * T * din * bpe;
	pm_compute_spec(o, "matrix", pm_ext_type_at(c, 0));
	return 0;
}

/* ------------------------------------------------- mHC (_MHCBase) models.
 * Each reads its parameters from Input Dims, then dtype_in from Input type
 * [dtype] when the call has that many types, else bf16; an unsized dtype
 * leaves the bytes None. */
enum { MHC_NONE = -1, MHC_ONE = -2, MHC_SAME = -3 };

struct mhc_kind {
	const char *op;
	const char *const *names;
	int n;
	signed char at[6][2];	/* Input Dims[a][b]; MHC_NONE: None; MHC_ONE: 1;
				 * MHC_SAME: parameter b's value */
	int dtype;
	const char *maf;
	double (*flops)(const double *v);
	double (*bytes)(const double *v, double bpe);
};

static int mhc_model(const struct pm_call *c, struct pm_out *o, const struct mhc_kind *k)
{
	const cJSON *types;
	const char *dt;
	double v[6], b;
	int i, err;

	if ((err = pm_ext_check_call(c, o)))
		return err;
	for (i = 0; i < k->n; i++) {
		int a = k->at[i][0], d = k->at[i][1];

		if (a == MHC_NONE)
			v[i] = NAN;
		else if (a == MHC_ONE)
			v[i] = 1;
		else if (a == MHC_SAME)
			v[i] = v[d];
		else if ((err = pm_ext_dim_of(c, a, d, &v[i], o)))
			return err;
	}
	types = pm_arg(c, "Input type");
	dt = cJSON_GetArraySize(types) > k->dtype ? pm_ext_type_at(c, k->dtype) : "c10::BFloat16";
	if (!dt)
		return pm_fail(o, "the input dtype is not a string");
	for (i = 0; i < k->n; i++)
		if (isnan(v[i]) ? pm_param_none(o, k->names[i]) : pm_param_count(o, k->names[i], v[i]))
			return pm_fail(o, "parameters do not fit");
	if (pm_param_str(o, "dtype_in", dt))
		return pm_fail(o, "parameters do not fit");
	pm_compute_spec(o, k->maf, *dt ? dt : NULL);
	o->gflops = k->flops(v) / 1e9;
	b = pm_dtype_bpe(dt);
	if (b > 0)
		o->bytes = k->bytes(v, b);
	return 0;
}

/* The FP32 mixes: pre (M, n) and res (M, n, n). */
static double mhc_mixes(double M, double n)
{
	return M * n * 4 + M * n * n * 4;
}

/* mhc_post: (M, n, C, hc3=None); x (M, C) at [1], n from [0][1]. */
static double post_flops(const double *v)
{
	return 2 * v[0] * v[1] * v[2] * (v[1] + 1);
}

static double post_bytes(const double *v, double b)
{
	return v[0] * v[2] * b + v[0] * v[1] * v[2] * b + mhc_mixes(v[0], v[1]) + v[0] * v[1] * v[2] * b;
}

/* mhc_pre_gemm_sqrsum: (M, n, C, hc3, K, split_k); x (M, n, C) at [2], fn
 * (hc3, K) at [3], split_k from [0][0]. */
static double pre_gemm_flops(const double *v)
{
	return 2 * v[0] * v[3] * v[4];
}

static double pre_gemm_bytes(const double *v, double b)
{
	return v[0] * v[1] * v[2] * b + v[3] * v[4] * 4 + v[5] * v[0] * v[3] * 4 + v[5] * v[0] * 4;
}

/* mhc_pre_big_fuse_rmsnorm: (M, n, C, hc3, split_k); (M, C) at [2], n from
 * [0][1], hc3 from [6][0], split_k from [3][0]. */
static double big_fuse_flops(const double *v)
{
	return 2 * v[0] * v[2] * v[1] + 5 * v[0] * v[2];
}

static double big_fuse_bytes(const double *v, double b)
{
	return v[0] * v[1] * v[2] * b + v[4] * v[0] * v[3] * 4 + v[2] * b + v[0] * v[2] * b + mhc_mixes(v[0], v[1]);
}

/* mhc_fused_post_pre_gemm_sqrsum: (M, n, C, hc3, K, split_k); (M, C) at
 * [3], n from [2][1], fn (hc3, K) at [7], split_k from [0][0]. */
static double fused_flops(const double *v)
{
	return 2 * v[0] * v[1] * v[2] * (v[1] + 1) + 2 * v[0] * v[3] * v[4];
}

static double fused_bytes(const double *v, double b)
{
	double mnc = v[0] * v[1] * v[2] * b;

	return v[0] * v[2] * b + mnc + mnc + mnc + mhc_mixes(v[0], v[1]) + v[3] * v[4] * 4 +
	       (v[5] * v[0] * v[3] * 4 + v[5] * v[0] * 4);
}

/* topk_softplus (on the MoE_aux sheet): (M, n=1, C=E, E, topk); gating
 * (M, E) at [2], topk from [0][1]. */
static double softplus_flops(const double *v)
{
	return 6 * v[0] * v[3];
}

static double softplus_bytes(const double *v, double b)
{
	return v[0] * v[3] * b + v[3] * 4 + v[0] * v[4] * 4 + v[0] * v[4] * 4;
}

static const char *const mhc_names6[] = { "M", "n", "C", "hc3", "K", "split_k" };
static const char *const mhc_names_big[] = { "M", "n", "C", "hc3", "split_k" };
static const char *const mhc_names_topk[] = { "M", "n", "C", "E", "topk" };

/* The classes by op name: one model reads them all. */
static const struct mhc_kind mhc_kinds[] = {
	{ "aiter::mhc_post", mhc_names6, 4, { { 1, 0 }, { 0, 1 }, { 1, 1 }, { MHC_NONE, 0 } }, 1, "vector",
	  post_flops, post_bytes },
	{ "aiter::mhc_pre_gemm_sqrsum", mhc_names6, 6, { { 2, 0 }, { 2, 1 }, { 2, 2 }, { 3, 0 }, { 3, 1 }, { 0, 0 } }, 2,
	  "matrix", pre_gemm_flops, pre_gemm_bytes },
	{ "aiter::mhc_pre_big_fuse_rmsnorm", mhc_names_big, 5, { { 2, 0 }, { 0, 1 }, { 2, 1 }, { 6, 0 }, { 3, 0 } }, 7,
	  "vector", big_fuse_flops, big_fuse_bytes },
	{ "aiter::mhc_fused_post_pre_gemm_sqrsum", mhc_names6, 6,
	  { { 3, 0 }, { 2, 1 }, { 3, 1 }, { 7, 0 }, { 7, 1 }, { 0, 0 } }, 3, "matrix", fused_flops, fused_bytes },
	{ "aiter::topk_softplus", mhc_names_topk, 5, { { 2, 0 }, { MHC_ONE, 0 }, { 2, 1 }, { MHC_SAME, 2 }, { 0, 1 } },
	  2, "vector", softplus_flops, softplus_bytes },
};

static int model_mhc(const struct pm_call *c, struct pm_out *o)
{
	size_t i;

	for (i = 0; c && c->name && i < sizeof(mhc_kinds) / sizeof(mhc_kinds[0]); i++)
		if (!strcmp(c->name, mhc_kinds[i].op))
			return mhc_model(c, o, &mhc_kinds[i]);
	return pm_fail(o, "not an mHC op");
}

/* fused_flatten_mxfp4_quant and its kin (UnaryElementwise on the GroupQuant
 * sheet): MXFP4 quant of one tensor: 2 operations per element, read it,
 * write half a byte per element and a byte per 32. Where each reads it: */
static const struct {
	const char *op;
	int slot;		/* the tensor's Input Dims / type position */
	int strides;		/* stride_input read (else None) */
} mxfp4_kinds[] = {
	{ "sglang_profiler::fused_mxfp4_quant_fused_flatten_mxfp4_quant", 0, 1 },
	{ "aiter::fused_dynamic_mx_quant_moe_sort_hip", 2, 1 },
	{ "sglang_profiler::quant_dynamic_mxfp4_quant", 0, 0 },
	{ "aiter::fused_dynamic_mxfp4_quant_moe_sort_hip", 2, 0 },
	{ "aiter::dynamic_per_group_scaled_quant_fp4", 1, 0 },
};

static int model_mxfp4_quant(const struct pm_call *c, struct pm_out *o)
{
	char shape[256], strides[256], dt[160];
	const char *t;
	size_t i;
	double N, b;
	int slot = -1, st = 0, err;

	if ((err = pm_ext_check_call(c, o)))
		return err;
	for (i = 0; i < sizeof(mxfp4_kinds) / sizeof(mxfp4_kinds[0]); i++)
		if (c->name && !strcmp(c->name, mxfp4_kinds[i].op)) {
			slot = mxfp4_kinds[i].slot;
			st = mxfp4_kinds[i].strides;
		}
	if (slot < 0)
		return pm_fail(o, "not an MXFP4 quant op");
	N = pm_dims_prod(pm_arg_at(c, "Input Dims", slot));
	t = pm_ext_type_at(c, slot);
	if (N < 0 || pm_tuple_repr(pm_arg_at(c, "Input Dims", slot), shape, sizeof(shape)))
		return pm_fail(o, "Input Dims[%d] is not a tensor shape", slot);
	if (!t)
		return pm_fail(o, "Input type[%d] is not a dtype", slot);
	if (st && pm_tuple_repr(pm_arg_at(c, "Input Strides", slot), strides, sizeof(strides)))
		return pm_fail(o, "Input Strides[%d] is not a stride list", slot);
	snprintf(dt, sizeof(dt), "('%s', '%s')", t, t);
	if (pm_param_str(o, "op_shape", shape) || pm_param_str(o, "dtype_in_out", dt) ||
	    (st ? pm_param_str(o, "stride_input", strides) : pm_param_none(o, "stride_input")) ||
	    pm_param_none(o, "stride_output"))
		return pm_fail(o, "parameters do not fit");
	o->gflops = 2 * N / 1e9;
	b = pm_dtype_bpe(t);
	if (b > 0)
		o->bytes = N * b + N * 0.5 + floor(N / 32) * 1;
	pm_compute_spec(o, "vector", *t ? t : NULL);
	return 0;
}

/* mixed_sample_outer_exponential (aiter): sampling over logits (T, V) at
 * Input Dims[1]: 2 operations per logit, read logits and noise, write an
 * int32 token per row. */
static int model_mixed_sample(const struct pm_call *c, struct pm_out *o)
{
	const cJSON *l = pm_arg_at(c, "Input Dims", 1);
	int ntypes = cJSON_GetArraySize(pm_arg(c, "Input type")), nl, err;
	const char *dl, *dn;
	double T = 1, V = 1, bl, bn;

	if ((err = pm_ext_check_call(c, o)))
		return err;
	if (!cJSON_IsArray(l) || !cJSON_IsArray(pm_arg(c, "Input type")))
		return pm_fail(o, "no Input Dims[1] or Input type");
	nl = cJSON_GetArraySize(l);
	if ((nl >= 1 && (err = pm_ext_dim_of(c, 1, 0, &T, o))) || (nl >= 2 && (err = pm_ext_dim_of(c, 1, 1, &V, o))))
		return err;
	dl = ntypes > 1 ? pm_ext_type_at(c, 1) : "c10::bfloat16";
	dn = ntypes > 2 ? pm_ext_type_at(c, 2) : "float";
	if (!dl || !dn)
		return pm_fail(o, "Input type[1] and [2] are not dtypes");
	if (pm_param_count(o, "T", T) || pm_param_count(o, "V", V) ||
	    pm_param_str(o, "dtype_logits", dl) || pm_param_str(o, "dtype_noise", dn))
		return pm_fail(o, "parameters do not fit");
	o->gflops = 2 * T * V / 1e9;
	bl = pm_dtype_bpe(dl);
	bn = pm_dtype_bpe(dn);
	if (bl > 0 && bn > 0)
		o->bytes = T * V * bl + T * V * bn + T * 4;
	pm_compute_spec(o, "vector", *dl ? dl : NULL);
	return 0;
}

static const char *const cross_entropy_ops[] = { "CrossEntropyFunction", NULL };
static const char *const causal_conv1d_ops[] = { "DaoAILab::_causal_conv1d_fwd_cpp", NULL };
static const char *const mamba_ssd_ops[] = { "MambaSplitConv1dScanCombinedFn", NULL };
static const char *const mhc_post_ops[] = { "aiter::mhc_post", NULL };
static const char *const mhc_pre_gemm_ops[] = { "aiter::mhc_pre_gemm_sqrsum", NULL };
static const char *const mhc_big_fuse_ops[] = { "aiter::mhc_pre_big_fuse_rmsnorm", NULL };
static const char *const mhc_fused_ops[] = { "aiter::mhc_fused_post_pre_gemm_sqrsum", NULL };
static const char *const topk_softplus_ops[] = { "aiter::topk_softplus", NULL };
static const char *const mxfp4_quant_ops[] = {
	"sglang_profiler::fused_mxfp4_quant_fused_flatten_mxfp4_quant", "aiter::fused_dynamic_mx_quant_moe_sort_hip",
	"sglang_profiler::quant_dynamic_mxfp4_quant", "aiter::dynamic_per_group_scaled_quant_fp4", NULL,
};
/* also a category-only op of TraceLens (MoE_aux), which wins the category */
static const char *const mxfp4_moe_sort_ops[] = { "aiter::fused_dynamic_mxfp4_quant_moe_sort_hip", NULL };
static const char *const mixed_sample_ops[] = { "aiter::mixed_sample_outer_exponential", NULL };

/* Sheets: the class's sheet_category, else its category's family (RoPE,
 * FusedRoPE, CrossEntropy, SSM, MoE_fused, MoE_unfused, MoE_aux, MoE_comm),
 * forward: neither report keeps these as one table. */
const struct pm_class pm_misc_classes[] = {
	{ "cross_entropy_fwd", "CrossEntropy_fwd", "CrossEntropy_fwd", cross_entropy_ops, model_cross_entropy },
	{ "causal_conv1d_fwd", "SSM_fwd", "SSM_fwd", causal_conv1d_ops, model_causal_conv1d },
	{ "mamba_ssd_fwd", "SSM_fwd", "SSM_fwd", mamba_ssd_ops, model_mamba_ssd },
	{ "mhc_post", "mHC_fwd", "mHC", mhc_post_ops, model_mhc },
	{ "mhc_pre_gemm_sqrsum", "mHC_fwd", "mHC", mhc_pre_gemm_ops, model_mhc },
	{ "mhc_pre_big_fuse_rmsnorm", "mHC_fwd", "mHC", mhc_big_fuse_ops, model_mhc },
	{ "mhc_fused_post_pre_gemm_sqrsum", "mHC_fwd", "mHC", mhc_fused_ops, model_mhc },
	{ "topk_softplus", "MoE_aux_fwd", "MoE_aux", topk_softplus_ops, model_mhc },
	{ "fused_flatten_mxfp4_quant", "GroupQuant_fwd", "GroupQuant", mxfp4_quant_ops, model_mxfp4_quant },
	{ "aiter_fused_dynamic_mxfp4_quant_moe_sort_hip", "GroupQuant_fwd", "MoE_aux", mxfp4_moe_sort_ops,
	  model_mxfp4_quant },
	/* no sheet_category: the category's, "elementwise", split by direction */
	{ "mixed_sample_outer_exponential", "elementwise_fwd", "elementwise", mixed_sample_ops, model_mixed_sample },
	{ 0 },
};
