/* SPDX-License-Identifier: MIT */
/* TraceLens's extension models other than the families of their own: RoPE
 * (PerfModel/perf_model.py FusedRoPE and
 * PerfModel/extensions/perf_model_extensions.py's RoPE and MLA RoPE ops),
 * CrossEntropy, CausalConv1d, MambaSSD, mixed_sample_outer_exponential, the
 * mHC models, the MXFP4 quant models, the custom collectives
 * (custom_collectives_perf_model_extensions.py), the MoE models
 * (PerfModel/extensions/moe_perf_model_extensions.py) and the MoE token
 * dispatch/combine (perf_model.py MoEComm). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perfmodel/perfmodel_internal.h"

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

static int shape_n(const struct pm_call *c, int i, int n, double *v, struct pm_out *o);

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
		if (pm_param_count(o, names[k], d[k]))
			return pm_fail(o, "parameters do not fit");
	}
	if (pm_param_count(o, "num_elements", n))
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
	if (pm_param_count(o, "num_elements", n))
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
	    pm_param_count(o, "num_elements", (nx + ny)))
		return pm_fail(o, "parameters do not fit");
	rope_out(o, nx + ny, rope_bpe(type_at(c, 0)),
		 type_at(c, 0));
	return 0;
}

/* aiter_fused_qk_rope_cat_and_cache_mla and fused_qk_rope_concat_and_cache_mla
 * (FusedRoPE sheet): q_nope (T, QH, D_lora), q_pe (., ., D_pe), k_nope
 * (., KH, .) or one latent KV head for the concat variant; only the D_pe
 * slices rotate; q and k are read and written, k into the KV cache dtype
 * (Input type[4], else the input's), q out in Input type[5] (concat). */
static int qk_rope_mla(const struct pm_call *c, struct pm_out *o, int concat)
{
	double q[8], T, QH, KH = 1, Dl, Dp, bin, bkv, bout, rq, rk, wq, wkv;
	const char *din, *dkv, *dout, *t;
	int ntypes, err;

	if ((err = check_call(c, o)) || (err = shape_n(c, 0, 3, q, o)) || (err = dim_of(c, 1, 2, &Dp, o)) ||
	    (!concat && (err = dim_of(c, 2, 1, &KH, o))))
		return err;
	T = q[0];
	QH = q[1];
	Dl = q[2];
	ntypes = cJSON_GetArraySize(pm_arg(c, "Input type"));
	din = type_at(c, 0);
	if (!din)
		return pm_fail(o, "Input type[0] is not a dtype");
	t = ntypes > 4 ? type_at(c, 4) : NULL;
	dkv = t && *t ? t : din;
	t = ntypes > 5 ? type_at(c, 5) : NULL;
	dout = t && *t ? t : din;
	if (pm_param_count(o, "T", T) || pm_param_count(o, "QH", QH) ||
	    pm_param_count(o, "KH", KH) || pm_param_count(o, "D_lora", Dl) ||
	    pm_param_count(o, "D_pe", Dp) || pm_param_str(o, "dtype_in", din) ||
	    pm_param_str(o, "dtype_kv", dkv) || (concat && pm_param_str(o, "dtype_out", dout)))
		return pm_fail(o, "parameters do not fit");
	o->gflops = 3 * (T * QH * Dp + T * KH * Dp) / 1e9;
	bin = pm_dtype_bpe(din);
	if (bin > 0) {
		bkv = pm_dtype_bpe(dkv) > 0 ? pm_dtype_bpe(dkv) : bin;
		bout = concat && pm_dtype_bpe(dout) > 0 ? pm_dtype_bpe(dout) : bin;
		rq = (T * QH * Dl + T * QH * Dp) * bin;
		rk = (T * KH * Dl + T * KH * Dp) * bin;
		wq = T * QH * (Dl + Dp) * bout;
		wkv = T * KH * (Dl + Dp) * bkv;
		o->bytes = rq + rk + wq + wkv;
	}
	pm_compute_spec(o, "vector", din);
	return 0;
}

static int model_qk_rope_cat(const struct pm_call *c, struct pm_out *o)
{
	return qk_rope_mla(c, o, 0);
}

static int model_qk_rope_concat(const struct pm_call *c, struct pm_out *o)
{
	return qk_rope_mla(c, o, 1);
}

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

	if ((err = check_call(c, o)) || (err = dim_of(c, 0, 0, &B, o)) || (err = dim_of(c, 0, -1, &V, o)))
		return err;
	n = pm_dims_prod(l);
	if (n < 0 || list_repr(l, buf, sizeof(buf)))
		return pm_fail(o, "Input Dims[0] is not a tensor shape");
	if (pm_param_count(o, "batch", B) || pm_param_count(o, "vocab_size", V) ||
	    pm_param_str(o, "logits_shape", buf))
		return pm_fail(o, "parameters do not fit");
	o->gflops = 5 * B * V / 1e9;
	o->bytes = n * rope_bpe(type_at(c, 0)) + B * 8 + B * 4;
	pm_compute_spec(o, "vector", type_at(c, 0));
	return 0;
}

/* causal_conv1d_fwd (DaoAILab::_causal_conv1d_fwd_cpp): x (batch, channels,
 * seq_len), weight (channels, kernel_size), an optional bias; a depthwise
 * convolution, counted as matrix work. */
static int model_causal_conv1d(const struct pm_call *c, struct pm_out *o)
{
	double b, ch, s, k, bpe;
	int bias, err;

	if ((err = check_call(c, o)) || (err = dim_of(c, 0, 0, &b, o)) || (err = dim_of(c, 0, 1, &ch, o)) ||
	    (err = dim_of(c, 0, 2, &s, o)) || (err = dim_of(c, 1, 1, &k, o)))
		return err;
	bias = cJSON_GetArraySize(pm_arg(c, "Input Dims")) > 2 &&
	       cJSON_GetArraySize(pm_arg_at(c, "Input Dims", 2)) > 0;
	if (pm_param_count(o, "batch", b) || pm_param_count(o, "channels", ch) ||
	    pm_param_count(o, "seq_len", s) || pm_param_count(o, "kernel_size", k) ||
	    pm_param_bool(o, "has_bias", bias))
		return pm_fail(o, "parameters do not fit");
	bpe = rope_bpe(type_at(c, 0));
	o->gflops = 2 * b * ch * s * k / 1e9;
	o->bytes = b * ch * s * bpe + ch * k * bpe + b * ch * s * bpe + (bias ? ch * bpe : 0);
	pm_compute_spec(o, "matrix", type_at(c, 0));
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
	const char *t = type_at(c, slot);
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

	if ((err = check_call(c, o)) || (err = dim_of(c, 0, 0, &B, o)) || (err = dim_of(c, 0, 1, &T, o)) ||
	    (err = dim_of(c, 0, 2, &comb, o)) || (err = dim_of(c, 1, 0, &ch, o)) || (err = dim_of(c, 1, 1, &dc, o)) ||
	    (err = dim_of(c, 3, 0, &H, o)) || (err = concrete_int_or(c, 6, 128, &C, o)) ||
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
	bpe = rope_bpe(type_at(c, 0));
	o->bytes = B * T * comb * bpe + ch * dc * bpe + ch * bpe +
		   (H * slot_bpe(c, 3, 4) + H * slot_bpe(c, 4, 4) + H * slot_bpe(c, 5, bpe)) + B * T * din * bpe;
	pm_compute_spec(o, "matrix", type_at(c, 0));
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

	if ((err = check_call(c, o)))
		return err;
	for (i = 0; i < k->n; i++) {
		int a = k->at[i][0], d = k->at[i][1];

		if (a == MHC_NONE)
			v[i] = NAN;
		else if (a == MHC_ONE)
			v[i] = 1;
		else if (a == MHC_SAME)
			v[i] = v[d];
		else if ((err = dim_of(c, a, d, &v[i], o)))
			return err;
	}
	types = pm_arg(c, "Input type");
	dt = cJSON_GetArraySize(types) > k->dtype ? type_at(c, k->dtype) : "c10::BFloat16";
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

	if ((err = check_call(c, o)))
		return err;
	for (i = 0; i < sizeof(mxfp4_kinds) / sizeof(mxfp4_kinds[0]); i++)
		if (c->name && !strcmp(c->name, mxfp4_kinds[i].op)) {
			slot = mxfp4_kinds[i].slot;
			st = mxfp4_kinds[i].strides;
		}
	if (slot < 0)
		return pm_fail(o, "not an MXFP4 quant op");
	N = pm_dims_prod(pm_arg_at(c, "Input Dims", slot));
	t = type_at(c, slot);
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

	if ((err = check_call(c, o)))
		return err;
	if (!cJSON_IsArray(l) || !cJSON_IsArray(pm_arg(c, "Input type")))
		return pm_fail(o, "no Input Dims[1] or Input type");
	nl = cJSON_GetArraySize(l);
	if ((nl >= 1 && (err = dim_of(c, 1, 0, &T, o))) || (nl >= 2 && (err = dim_of(c, 1, 1, &V, o))))
		return err;
	dl = ntypes > 1 ? type_at(c, 1) : "c10::bfloat16";
	dn = ntypes > 2 ? type_at(c, 2) : "float";
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

	if ((err = check_call(c, o)))
		return err;
	N = pm_dims_prod(pm_arg_at(c, "Input Dims", k->in));
	dt = type_at(c, k->dtype);
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
	if (k->weight >= 0 && (err = dim_of(c, k->weight, 0, &C, o)))
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
	if (pm_param_count(o, "num_tokens", M) || pm_param_count(o, "hidden_dim", K) ||
	    pm_param_count(o, "inter_dim", N) || pm_param_count(o, "num_experts", E) ||
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
	if (E == 0)
		return pm_fail(o, "no experts");
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

/* ---------------------------------------- MoE models that read shapes. */

enum moe_stage { MOE_FUSED, MOE_UP, MOE_DOWN };

/* The parameters of a MoE stage as the extension's classes name them, and
 * what their formulas read. */
struct moe {
	double M, K, N, E, topk;
	int gated;		/* -1: not a parameter of the class */
	const char *idt, *wdt, *odt;	/* odt NULL: not a parameter */
	double ib, wb, ob;
	const char *prec;	/* the compute precision, NULL for none */
};

/* A JSON array of exactly @n integers (Python's tuple unpacking). */
static int shape_n(const struct pm_call *c, int i, int n, double *v, struct pm_out *o)
{
	const cJSON *a = pm_arg_at(c, "Input Dims", i), *d;
	int k = 0;

	if (!cJSON_IsArray(a) || (n >= 0 && cJSON_GetArraySize(a) != n))
		return pm_fail(o, "Input Dims[%d] is not %d-D", i, n);
	cJSON_ArrayForEach(d, a) {
		if (!cJSON_IsNumber(d))
			return pm_fail(o, "Input Dims[%d] is not a tensor shape", i);
		if (k < 8)
			v[k++] = d->valuedouble;
	}
	return 0;
}

/* DTYPE_TO_BYTES.get(dtype, default) */
static double moe_bpe_or(const char *dtype, double dflt)
{
	double b = moe_bpe(dtype);

	return b > 0 ? b : dflt;
}

/* Python's a // b on integers; -EDOM when b is 0. */
static int floordiv(double a, double b, double *q, struct pm_out *o)
{
	if (b == 0)
		return pm_fail(o, "division by zero");
	*q = floor(a / b);
	return 0;
}

static const char *prec_of(const char *dtype)
{
	return dtype && *dtype ? pm_dtype_precision(dtype) : NULL;
}

/* Emit @m and apply the formulas of @stage: FusedMoE, UnfusedMoE_Up or
 * UnfusedMoE_Down (FLOPs of the matmuls, uniform-routing active experts
 * for the weights). */
static int moe_finish(const struct moe *m, enum moe_stage stage, struct pm_out *o)
{
	double M = m->M, K = m->K, N = m->N, E = m->E, topk = m->topk, g = m->gated > 0 ? 2 : 1, ea;
	int err;

	err = pm_param_count(o, "num_tokens", M);
	err = err ? err : pm_param_count(o, "hidden_dim", K);
	err = err ? err : pm_param_count(o, "inter_dim", N);
	err = err ? err : pm_param_count(o, "num_experts", E);
	err = err ? err : pm_param_count(o, "topk", topk);
	if (!err && m->gated >= 0)
		err = pm_param_bool(o, "gated", m->gated);
	err = err ? err : pm_param_str(o, "input_dtype", m->idt ? m->idt : "");
	if (!err && m->wdt)
		err = pm_param_str(o, "weight_dtype", m->wdt);
	if (!err && m->odt)
		err = pm_param_str(o, "output_dtype", m->odt);
	if (err)
		return pm_fail(o, "parameters do not fit");
	if (E == 0)
		return pm_fail(o, "no experts");
	ea = active_experts(E, topk, M);
	switch (stage) {
	case MOE_FUSED:
		o->gflops = (2 * M * K * N * topk * g + 0 + 2 * M * K * N * topk + M * K * (2 * topk - 1)) / 1e9;
		o->bytes = M * K * m->ib + ea * N * K * m->wb * g + ea * N * K * m->wb + M * K * m->ob;
		break;
	case MOE_UP:
		o->gflops = 2 * M * K * N * topk * g / 1e9;
		o->bytes = M * K * m->ib + ea * g * K * N * m->wb + M * N * topk * m->ob;
		break;
	case MOE_DOWN:
		o->gflops = 2 * M * N * K * topk / 1e9;
		o->bytes = M * N * topk * m->ib + ea * N * K * m->wb + M * K * m->ob;
		break;
	}
	if (m->prec)
		snprintf(o->compute_spec, sizeof(o->compute_spec), "matrix_%s", m->prec);
	return 0;
}

/* The dtypes of a MoE call: input, weight and, when @out >= 0, output at
 * those Input type slots; their sizes as DTYPE_TO_BYTES says, else @idef
 * for the input, 1 (FP8) for weights and 2 for the output, which is the
 * input's when it has no slot. The precision is the input's. */
static int moe_dtypes(const struct pm_call *c, struct moe *m, int in, int w, int out, double idef, struct pm_out *o)
{
	m->idt = type_at(c, in);
	m->wdt = type_at(c, w);
	m->odt = out >= 0 ? type_at(c, out) : NULL;
	if (!m->idt || !m->wdt || (out >= 0 && !m->odt))
		return pm_fail(o, "Input type[%d], [%d] are not dtypes", in, w);
	m->ib = moe_bpe_or(m->idt, idef);
	m->wb = moe_bpe_or(m->wdt, 1);
	m->ob = out >= 0 ? moe_bpe_or(m->odt, 2) : m->ib;
	m->prec = prec_of(m->idt);
	return 0;
}

/* The shared reading of moe_aiter_fused_1stage and the flydsl stages:
 * (tokens, hidden), w1 (E, N*(gated+1), K), w2 (E, K, N), topk weights
 * (tokens, topk); N scaled by the INT4 packing (w2's K over w1's). */
static int moe_read_w1w2(const struct pm_call *c, struct moe *m, struct pm_out *o)
{
	double w1[8], w2[8], int4 = 1;
	int err;

	memset(m, 0, sizeof(*m));
	if ((err = check_call(c, o)) || (err = dim_of(c, 0, 0, &m->M, o)) || (err = shape_n(c, 1, 3, w1, o)) ||
	    (err = shape_n(c, 2, 3, w2, o)) || (err = floordiv(w2[1], w1[2], &int4, o)) ||
	    (err = dim_of(c, 3, 1, &m->topk, o)))
		return err;
	m->K = w2[1];
	m->N = w2[2] * int4;
	m->E = w1[0];
	m->gated = w1[1] == 2 * m->N;
	return moe_dtypes(c, m, 0, 1, -1, 2, o);
}

/* moe_aiter_fused_1stage (pseudo_op::moe_aiter_fused_1stage). */
static int model_moe_fused_1stage(const struct pm_call *c, struct pm_out *o)
{
	struct moe m;
	int err = moe_read_w1w2(c, &m, o);

	return err ? err : moe_finish(&m, MOE_FUSED, o);
}

/* moe_flydsl_stage1 / stage2: the fused reading, split formulas; the
 * precision is the weight's. */
static int model_moe_flydsl(const struct pm_call *c, struct pm_out *o, enum moe_stage stage)
{
	struct moe m;
	int err = moe_read_w1w2(c, &m, o);

	if (err)
		return err;
	m.prec = prec_of(m.wdt);
	return moe_finish(&m, stage, o);
}

static int model_moe_flydsl1(const struct pm_call *c, struct pm_out *o)
{
	return model_moe_flydsl(c, o, MOE_UP);
}

static int model_moe_flydsl2(const struct pm_call *c, struct pm_out *o)
{
	return model_moe_flydsl(c, o, MOE_DOWN);
}

/* moe_aiter_fused_blockscale (aiter::fmoe_fp8_blockscale_g1u1, fmoe_g1u1):
 * out (M, K), input, w1, w2; topk at Concrete Inputs[8]; the precision is
 * fp8 for an input named "fp8" or "bf16". */
static int model_moe_blockscale(const struct pm_call *c, struct pm_out *o)
{
	const cJSON *tk = pm_arg_at(c, "Concrete Inputs", 8);
	double w1[8], w2[8], int4 = 1;
	struct moe m;
	char *end;
	int err;

	memset(&m, 0, sizeof(m));
	if ((err = check_call(c, o)) || (err = dim_of(c, 0, 0, &m.M, o)) || (err = shape_n(c, 2, 3, w1, o)) ||
	    (err = shape_n(c, 3, 3, w2, o)) || (err = floordiv(w2[1], w1[2], &int4, o)))
		return err;
	if (!cJSON_IsString(tk) || !tk->valuestring[0])
		return pm_fail(o, "no topk at Concrete Inputs[8]");
	m.topk = (double)strtoll(tk->valuestring, &end, 10);
	if (*end)
		return pm_fail(o, "Concrete Inputs[8] is not an integer");
	m.K = w2[1];
	m.N = w2[2] * int4;
	m.E = w1[0];
	m.gated = w1[1] == 2 * m.N;
	if ((err = moe_dtypes(c, &m, 1, 2, 0, 1, o)))
		return err;
	m.prec = !*m.idt ? NULL : (!strcmp(m.idt, "fp8") || !strcmp(m.idt, "bf16")) ? "fp8" : prec_of(m.idt);
	return moe_finish(&m, MOE_FUSED, o);
}

/* moe_aiter_unfused_up (aiter::moe_cktile2stages_gemm1_ck): x (M, K), w1
 * (E, ., .), out (., topk, N). */
static int model_moe_aiter_up(const struct pm_call *c, struct pm_out *o)
{
	double x[8], w1[8], w2[8];
	struct moe m;
	int err;

	memset(&m, 0, sizeof(m));
	if ((err = check_call(c, o)) || (err = shape_n(c, 0, 2, x, o)) || (err = shape_n(c, 1, 3, w1, o)) ||
	    (err = shape_n(c, 2, 3, w2, o)))
		return err;
	m.M = x[0];
	m.K = x[1];
	m.E = w1[0];
	m.topk = w2[1];
	m.N = w2[2];
	m.gated = w1[1] == 2 * m.N;
	return (err = moe_dtypes(c, &m, 0, 1, 2, 2, o)) ? err : moe_finish(&m, MOE_UP, o);
}

/* moe_aiter_unfused_down (aiter::moe_cktile2stages_gemm2_ck): x (M, topk,
 * N), w (E, K, .). */
static int model_moe_aiter_down(const struct pm_call *c, struct pm_out *o)
{
	double x[8], w[8];
	struct moe m;
	int err;

	memset(&m, 0, sizeof(m));
	if ((err = check_call(c, o)) || (err = shape_n(c, 0, 3, x, o)) || (err = shape_n(c, 1, 3, w, o)))
		return err;
	m.M = x[0];
	m.topk = x[1];
	m.N = x[2];
	m.E = w[0];
	m.K = w[1];
	m.gated = -1;
	return (err = moe_dtypes(c, &m, 0, 1, 2, 2, o)) ? err : moe_finish(&m, MOE_DOWN, o);
}

/* moe_aiter_ck_stage1 (aiter::ck_moe_stage1): x, w1, w2 (E, K, N), out at
 * Input Dims[6] (., topk, .). */
static int model_moe_ck1(const struct pm_call *c, struct pm_out *o)
{
	double w1[8], w2[8], w1last, int4 = 1;
	struct moe m;
	int err;

	memset(&m, 0, sizeof(m));
	if ((err = check_call(c, o)) || (err = dim_of(c, 0, 0, &m.M, o)) || (err = shape_n(c, 1, -1, w1, o)) ||
	    (err = dim_of(c, 1, -1, &w1last, o)) || (err = shape_n(c, 2, 3, w2, o)) ||
	    (err = floordiv(w2[1], w1last, &int4, o)) || (err = dim_of(c, 6, 1, &m.topk, o)) ||
	    (err = dim_of(c, 1, 1, &w1[1], o)))
		return err;
	m.E = w2[0];
	m.K = w2[1];
	m.N = w2[2] * int4;
	m.gated = w1[1] == 2 * m.N;
	return (err = moe_dtypes(c, &m, 0, 1, -1, 2, o)) ? err : moe_finish(&m, MOE_UP, o);
}

/* moe_aiter_ck_stage2 (aiter::ck_moe_stage2): x (M, topk, N), w1, w2
 * (E, K, .); the weight dtype is Input type[2]. */
static int model_moe_ck2(const struct pm_call *c, struct pm_out *o)
{
	const cJSON *w1 = pm_arg_at(c, "Input Dims", 1);
	double x[8], w2[8], int4 = 1, w1last;
	struct moe m;
	int err;

	memset(&m, 0, sizeof(m));
	if ((err = check_call(c, o)) || (err = shape_n(c, 0, 3, x, o)) || (err = shape_n(c, 2, 3, w2, o)))
		return err;
	if (cJSON_GetArraySize(w1) > 0 &&
	    ((err = dim_of(c, 1, -1, &w1last, o)) || (err = floordiv(w2[1], w1last, &int4, o))))
		return err;
	m.M = x[0];
	m.topk = x[1];
	m.N = x[2] * int4;
	m.E = w2[0];
	m.K = w2[1];
	m.gated = -1;
	return (err = moe_dtypes(c, &m, 0, 2, -1, 2, o)) ? err : moe_finish(&m, MOE_DOWN, o);
}

/* moe_gptq_awq_up / _down (pseudo_op::moe_gptq_awq_*): INT4 weights (half a
 * byte); topk (and gated, True when absent) are args of the pseudo-op. */
static int model_moe_gptq(const struct pm_call *c, struct pm_out *o, int up)
{
	const cJSON *topk = pm_arg(c, "MoE topk"), *gated = pm_arg(c, "MoE GEMM gated");
	const cJSON *types = pm_arg(c, "Input type");
	double rows;
	struct moe m;
	int err;

	memset(&m, 0, sizeof(m));
	if ((err = check_call(c, o)) || (err = dim_of(c, 0, 0, &m.M, o)) || (err = dim_of(c, 0, 1, &m.K, o)))
		return err;
	if (up) {
		if ((err = dim_of(c, 1, 0, &m.E, o)) || (err = dim_of(c, 1, 1, &rows, o)))
			return err;
		m.gated = gated ? truthy(gated) : 1;
		m.N = m.gated ? floor(rows / 2) : rows;
	} else {
		if ((err = dim_of(c, 2, 0, &m.E, o)) || (err = dim_of(c, 2, 2, &rows, o)))
			return err;
		m.gated = -1;
		m.N = rows * 2;
	}
	if (!cJSON_IsNumber(topk))
		return pm_fail(o, "no numeric 'MoE topk' arg");
	m.topk = topk->valuedouble;
	m.idt = types ? type_at(c, 0) : "BFloat16";
	if (!m.idt)
		return pm_fail(o, "Input type[0] is not a dtype");
	m.ib = m.ob = moe_bpe_or(m.idt, 2);
	m.wb = 0.5;
	m.prec = prec_of(m.idt);
	return moe_finish(&m, up ? MOE_UP : MOE_DOWN, o);
}

static int model_moe_gptq_up(const struct pm_call *c, struct pm_out *o)
{
	return model_moe_gptq(c, o, 1);
}

static int model_moe_gptq_down(const struct pm_call *c, struct pm_out *o)
{
	return model_moe_gptq(c, o, 0);
}

/* moe_triton_invoke_grouped_gemm (SGLang's invoke_fused_moe_kernel): one
 * grouped GEMM of (tokens x topk) rows; B (E, N, K) at Input Dims[1],
 * topk_ids (tokens, topk) at [8]. */
static int model_moe_invoke(const struct pm_call *c, struct pm_out *o)
{
	double b[8], t[8], mw, ea;
	const char *idt, *wdt, *odt, *t3;
	int ntypes, err;

	if ((err = check_call(c, o)))
		return err;
	if (cJSON_GetArraySize(pm_arg(c, "Input Dims")) < 9)
		return pm_fail(o, "fewer than 9 Input Dims");
	if ((err = shape_n(c, 1, 3, b, o)) || (err = shape_n(c, 8, 2, t, o)))
		return err;
	ntypes = cJSON_GetArraySize(pm_arg(c, "Input type"));
	idt = ntypes > 0 ? type_at(c, 0) : NULL;
	wdt = ntypes > 1 ? type_at(c, 1) : NULL;
	t3 = ntypes > 3 ? type_at(c, 3) : NULL;
	odt = t3 && *t3 ? t3 : idt;
	mw = t[0] * t[1];
	if (pm_param_count(o, "m_work", mw) || pm_param_count(o, "num_tokens", t[0]) ||
	    pm_param_count(o, "topk", t[1]) || pm_param_count(o, "N", b[1]) ||
	    pm_param_count(o, "K", b[2]) || pm_param_count(o, "num_experts", b[0]) ||
	    (idt ? pm_param_str(o, "input_dtype", idt) : pm_param_none(o, "input_dtype")) ||
	    (wdt ? pm_param_str(o, "weight_dtype", wdt) : pm_param_none(o, "weight_dtype")) ||
	    (odt ? pm_param_str(o, "output_dtype", odt) : pm_param_none(o, "output_dtype")))
		return pm_fail(o, "parameters do not fit");
	ea = b[0] > 0 ? active_experts(b[0], t[1], t[0]) : 0;
	o->gflops = 2 * mw * b[1] * b[2] / 1e9;
	o->bytes = mw * b[2] * moe_bpe_or(idt, 2) + ea * b[1] * b[2] * moe_bpe_or(wdt, 1) +
		   mw * b[1] * moe_bpe_or(odt, 2);
	if (prec_of(wdt))
		snprintf(o->compute_spec, sizeof(o->compute_spec), "matrix_%s", prec_of(wdt));
	return 0;
}

/* BiasedGroupedTopk and MoeSortScatterGather: the operands are the Input
 * Dims that are non-empty lists of integers, with their dtypes; FLOPs the
 * largest operand's elements, bytes all sized operands' (None when none). */
static int model_moe_aux(const struct pm_call *c, struct pm_out *o)
{
	const cJSON *dims = pm_arg(c, "Input Dims"), *d;
	char text[2048], shape[256];
	const char *best_dt = NULL;
	double best = -1, bytes = 0;
	size_t at = 0;
	int i = 0, n = 0, w;

	if (!c || !c->args)
		return pm_fail(o, "no args");
	text[at++] = '[';
	cJSON_ArrayForEach(d, dims) {
		const char *dt = cJSON_GetArraySize(pm_arg(c, "Input type")) > i ? type_at(c, i) : NULL;
		double p = pm_dims_prod(d);

		i++;
		if (!cJSON_IsArray(d) || !cJSON_GetArraySize(d) || p < 0 || pm_tuple_repr(d, shape, sizeof(shape)))
			continue;
		w = dt ? snprintf(text + at, sizeof(text) - at, "%s(%s, '%s')", n ? ", " : "", shape, dt)
		       : snprintf(text + at, sizeof(text) - at, "%s(%s, None)", n ? ", " : "", shape);
		if (w < 0 || (size_t)w >= sizeof(text) - at)
			return pm_fail(o, "too many operands");
		at += (size_t)w;
		n++;
		if (p > best) {	/* max() keeps the first of equals */
			best = p;
			best_dt = dt;
		}
		bytes += p * pm_dtype_bpe(dt);
	}
	if (at + 2 > sizeof(text))
		return pm_fail(o, "too many operands");
	memcpy(text + at, "]", 2);
	if (pm_param_str(o, "operands", text))
		return pm_fail(o, "parameters do not fit");
	o->gflops = (n ? best : 0) / 1e9;
	if (bytes > 0)
		o->bytes = bytes;
	if (n)
		pm_compute_spec(o, "vector", best_dt && *best_dt ? best_dt : NULL);
	return 0;
}

/* sglang_fused_append_shared_experts (a BinaryElementwise on the MoE_aux
 * sheet): topk ids and weights (the weights' shape the ids' when absent);
 * one operation per id; read and written once each (4 bytes when a dtype
 * has no size); the shapes must broadcast, as BinaryElementwise requires. */
static int model_append_shared(const struct pm_call *c, struct pm_out *o)
{
	const cJSON *dims = pm_arg(c, "Input Dims"), *types = pm_arg(c, "Input type");
	const cJSON *ids = pm_arg_at(c, "Input Dims", 0), *wts = pm_arg_at(c, "Input Dims", 1);
	char s1[256], s2[256], dt[256];
	const char *di, *dw;
	double ni, nw, bi, bw;
	int k, n1, n2, nd;

	if (!c || !c->args || !cJSON_IsArray(dims) || !cJSON_IsArray(types))
		return pm_fail(o, "no Input Dims or Input type");
	if (!cJSON_GetArraySize(wts))
		wts = ids;
	ni = pm_dims_prod(ids);
	nw = pm_dims_prod(wts);
	if (ni < 0 || nw < 0 || pm_tuple_repr(ids, s1, sizeof(s1)) || pm_tuple_repr(wts, s2, sizeof(s2)))
		return pm_fail(o, "Input Dims[0] and [1] are not tensor shapes");
	n1 = cJSON_GetArraySize(ids);
	n2 = cJSON_GetArraySize(wts);
	nd = n1 > n2 ? n1 : n2;
	for (k = 0; k < nd; k++) {	/* right-aligned, 1 broadcasts */
		const cJSON *a = k < nd - n1 ? NULL : cJSON_GetArrayItem(ids, k - (nd - n1));
		const cJSON *b = k < nd - n2 ? NULL : cJSON_GetArrayItem(wts, k - (nd - n2));
		double x = a ? a->valuedouble : 1, y = b ? b->valuedouble : 1;

		if (x != y && x != 1 && y != 1)
			return pm_fail(o, "shapes %s and %s do not broadcast", s1, s2);
	}
	di = cJSON_GetArraySize(types) ? type_at(c, 0) : "int";
	dw = cJSON_GetArraySize(types) > 1 ? type_at(c, 1) : "float";
	if (!di || !dw)
		return pm_fail(o, "Input type[0] and [1] are not dtypes");
	snprintf(dt, sizeof(dt), "('%s', '%s', '%s')", di, dw, dw);
	if (pm_param_str(o, "shape_in1", s1) || pm_param_str(o, "shape_in2", s2) ||
	    pm_param_str(o, "dtype_in1_in2_out", dt) || pm_param_none(o, "stride_input1") ||
	    pm_param_none(o, "stride_input2") || pm_param_none(o, "stride_output"))
		return pm_fail(o, "parameters do not fit");
	bi = pm_dtype_bpe(di) > 0 ? pm_dtype_bpe(di) : 4;
	bw = pm_dtype_bpe(dw) > 0 ? pm_dtype_bpe(dw) : 4;
	o->gflops = ni / 1e9;
	o->bytes = 2 * (ni * bi + nw * bw);
	pm_compute_spec(o, "vector", *dw ? dw : NULL);
	return 0;
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
		err = bpe > 0 ? pm_param_count(o, "bpe", bpe) : pm_param_none(o, "bpe");
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
static const char *const qk_rope_cat_ops[] = { "aiter::fused_qk_rope_cat_and_cache_mla", NULL };
static const char *const qk_rope_concat_ops[] = { "aiter::fused_qk_rope_concat_and_cache_mla", NULL };
static const char *const cross_entropy_ops[] = { "CrossEntropyFunction", NULL };
static const char *const causal_conv1d_ops[] = { "DaoAILab::_causal_conv1d_fwd_cpp", NULL };
static const char *const mamba_ssd_ops[] = { "MambaSplitConv1dScanCombinedFn", NULL };
static const char *const mhc_post_ops[] = { "aiter::mhc_post", NULL };
static const char *const mhc_pre_gemm_ops[] = { "aiter::mhc_pre_gemm_sqrsum", NULL };
static const char *const mhc_big_fuse_ops[] = { "aiter::mhc_pre_big_fuse_rmsnorm", NULL };
static const char *const mhc_fused_ops[] = { "aiter::mhc_fused_post_pre_gemm_sqrsum", NULL };
static const char *const topk_softplus_ops[] = { "aiter::topk_softplus", NULL };
static const char *const mixed_sample_ops[] = { "aiter::mixed_sample_outer_exponential", NULL };
static const char *const ar_rmsnorm_ops[] = { "aiter::fused_allreduce_rmsnorm", NULL };
static const char *const ar_rmsnorm__ops[] = { "aiter::fused_allreduce_rmsnorm_", NULL };
static const char *const custom_ar_ops[] = { "_C_custom_ar::all_reduce", NULL };
static const char *const sgl_ar_reg_ops[] = { "sgl_kernel::all_reduce_reg", NULL };
static const char *const sgl_qr_ops[] = { "sgl_kernel::qr_all_reduce", NULL };
static const char *const custom_qr_ops[] = { "_C_custom_ar::qr_all_reduce", NULL };
static const char *const reduce_scatter_ops[] = { "aiter::reduce_scatter", NULL };
static const char *const all_gather_reg_ops[] = { "aiter::all_gather_reg", NULL };
static const char *const sgl_all_gather_ops[] = { "sglang::reg_all_gather_into_tensor", NULL };
static const char *const mxfp4_quant_ops[] = {
	"sglang_profiler::fused_mxfp4_quant_fused_flatten_mxfp4_quant", "aiter::fused_dynamic_mx_quant_moe_sort_hip",
	"sglang_profiler::quant_dynamic_mxfp4_quant", "aiter::dynamic_per_group_scaled_quant_fp4", NULL,
};
/* also a category-only op of TraceLens (MoE_aux), which wins the category */
static const char *const mxfp4_moe_sort_ops[] = { "aiter::fused_dynamic_mxfp4_quant_moe_sort_hip", NULL };
static const char *const moe_up_ops[] = { "pseudo_op::moe_triton_unfused_up", NULL };
static const char *const moe_down_ops[] = { "pseudo_op::moe_triton_unfused_down", NULL };
static const char *const moe_fused_1stage_ops[] = { "pseudo_op::moe_aiter_fused_1stage", NULL };
static const char *const moe_blockscale_ops[] = { "aiter::fmoe_fp8_blockscale_g1u1", "aiter::fmoe_g1u1", NULL };
static const char *const moe_aiter_up_ops[] = { "aiter::moe_cktile2stages_gemm1_ck", NULL };
static const char *const moe_aiter_down_ops[] = { "aiter::moe_cktile2stages_gemm2_ck", NULL };
static const char *const moe_ck1_ops[] = { "aiter::ck_moe_stage1", NULL };
static const char *const moe_ck2_ops[] = { "aiter::ck_moe_stage2", NULL };
static const char *const moe_flydsl1_ops[] = { "pseudo_op::moe_flydsl_stage1", NULL };
static const char *const moe_flydsl2_ops[] = { "pseudo_op::moe_flydsl_stage2", NULL };
static const char *const moe_gptq_up_ops[] = { "pseudo_op::moe_gptq_awq_up", NULL };
static const char *const moe_gptq_down_ops[] = { "pseudo_op::moe_gptq_awq_down", NULL };
static const char *const moe_invoke_ops[] = {
	"sglang_profiler::fused_moe_triton_kernels_invoke_fused_moe_kernel", NULL,
};
static const char *const moe_topk_ops[] = { "aiter::biased_grouped_topk_hip", NULL };
static const char *const append_shared_ops[] = {
	"sglang_profiler::fused_moe_triton_kernels_fused_append_shared_experts", NULL,
};
static const char *const moe_sort_ops[] = { "aiter::moe_sorting_fwd", "aiter::mxfp4_moe_sort_hip", NULL };
static const char *const moe_dispatch_ops[] = { "MoEDispatch", NULL };
static const char *const moe_combine_ops[] = { "MoECombine", NULL };

/* Sheets: the class's sheet_category, else its category's family (RoPE,
 * FusedRoPE, CrossEntropy, SSM, MoE_fused, MoE_unfused, MoE_aux, MoE_comm),
 * forward: neither report keeps these as one table. */
const struct pm_class pm_misc_classes[] = {
	{ "fused_rope_fwd", "RoPE_fwd", "RoPE_fwd", fused_rope_ops, model_fused_rope },
	{ "sgl_kernel_rotary_embedding", "RoPE_fwd", "RoPE_fwd", sgl_rotary_ops, model_sgl_rotary },
	{ "aiter_rope_cached_positions_2c_fwd_impl", "RoPE_fwd", "RoPE_fwd", aiter_rope_2c_ops,
	  model_aiter_rope_2c },
	{ "aiter_fused_qk_rope_cat_and_cache_mla", "FusedRoPE_fwd", "RoPE_fwd", qk_rope_cat_ops, model_qk_rope_cat },
	{ "fused_qk_rope_concat_and_cache_mla", "FusedRoPE_fwd", "RoPE_fwd", qk_rope_concat_ops, model_qk_rope_concat },
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
	{ "moe_triton_unfused_up", "MoE_unfused_fwd", "MoE_unfused", moe_up_ops, model_moe_up },
	{ "moe_triton_unfused_down", "MoE_unfused_fwd", "MoE_unfused", moe_down_ops, model_moe_down },
	{ "moe_aiter_fused_1stage", "MoE_fused_fwd", "MoE_fused", moe_fused_1stage_ops, model_moe_fused_1stage },
	{ "moe_aiter_fused_blockscale", "MoE_fused_fwd", "MoE_fused", moe_blockscale_ops, model_moe_blockscale },
	{ "moe_aiter_unfused_up", "MoE_unfused_fwd", "MoE_unfused", moe_aiter_up_ops, model_moe_aiter_up },
	{ "moe_aiter_unfused_down", "MoE_unfused_fwd", "MoE_unfused", moe_aiter_down_ops, model_moe_aiter_down },
	{ "moe_aiter_ck_stage1", "MoE_unfused_fwd", "MoE_unfused", moe_ck1_ops, model_moe_ck1 },
	{ "moe_aiter_ck_stage2", "MoE_unfused_fwd", "MoE_unfused", moe_ck2_ops, model_moe_ck2 },
	{ "moe_flydsl_stage1", "MoE_unfused_fwd", "MoE_unfused", moe_flydsl1_ops, model_moe_flydsl1 },
	{ "moe_flydsl_stage2", "MoE_unfused_fwd", "MoE_unfused", moe_flydsl2_ops, model_moe_flydsl2 },
	{ "moe_gptq_awq_up", "MoE_unfused_fwd", "MoE_unfused", moe_gptq_up_ops, model_moe_gptq_up },
	{ "moe_gptq_awq_down", "MoE_unfused_fwd", "MoE_unfused", moe_gptq_down_ops, model_moe_gptq_down },
	{ "moe_triton_invoke_grouped_gemm", "MoE_unfused_fwd", "MoE_unfused", moe_invoke_ops, model_moe_invoke },
	{ "BiasedGroupedTopk", "MoE_aux_fwd", "MoE_aux", moe_topk_ops, model_moe_aux },
	{ "MoeSortScatterGather", "MoE_aux_fwd", "MoE_aux", moe_sort_ops, model_moe_aux },
	{ "sglang_fused_append_shared_experts", "MoE_aux_fwd", "MoE_aux", append_shared_ops, model_append_shared },
	{ "moe_dispatch", "MoE_comm_fwd", "MoE_comm_fwd", moe_dispatch_ops, model_moe_comm },
	{ "moe_combine", "MoE_comm_fwd", "MoE_comm_fwd", moe_combine_ops, model_moe_comm },
	{ 0 },
};
