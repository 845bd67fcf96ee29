/* SPDX-License-Identifier: MIT */
/* TraceLens's RoPE models: FusedRoPE (PerfModel/perf_model.py) and the RoPE
 * and MLA RoPE ops of PerfModel/extensions/perf_model_extensions.py. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perfmodel/perfmodel_internal.h"

/* FusedRoPE's bytes per element: of the given dtype, bf16 (2) when the call
 * has no types or the dtype has no size. */
double pm_rope_bpe(const char *dtype)
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

	if ((err = pm_ext_check_call(c, o)))
		return err;
	if (cJSON_GetArraySize(t) < 4)
		return pm_fail(o, "Input Dims[0] is not 4-D");
	n = pm_dims_prod(t);
	if (n < 0)
		return pm_fail(o, "Input Dims[0] is not a tensor shape");
	for (k = 0; k < 4; k++) {
		if ((err = pm_ext_dim_of(c, 0, k, &d[k], o)))
			return err;
		if (pm_param_count(o, names[k], d[k]))
			return pm_fail(o, "parameters do not fit");
	}
	if (pm_param_count(o, "num_elements", n))
		return pm_fail(o, "parameters do not fit");
	rope_out(o, n, pm_rope_bpe(pm_ext_type_at(c, 0)),
		 pm_ext_type_at(c, 0));
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

	if ((err = pm_ext_check_call(c, o)) || (err = pm_ext_dim_of(c, 1, 0, &tokens, o)) || (err = pm_ext_dim_of(c, 1, 1, &qw, o)) ||
	    (err = pm_ext_dim_of(c, 2, 1, &kw, o)) || (err = pm_ext_dim_of(c, 1, -1, &head, o)))
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
	if (cJSON_GetArraySize(cache) > 1 && (err = pm_ext_dim_of(c, 4, 1, &rot, o)))
		return err;
	/* Python's // on the head counts */
	n = tokens * (floor(qw / head) + floor(kw / head)) * rot;
	if (pm_param_count(o, "num_elements", n))
		return pm_fail(o, "parameters do not fit");
	rope_out(o, n, pm_rope_bpe(pm_ext_type_at(c, 1)), pm_ext_type_at(c, 1));
	return 0;
}

/* aiter_rope_cached_positions_2c_fwd_impl: the inputs x and y are Input
 * Dims[2] and [3]; both rotate. */
static int model_aiter_rope_2c(const struct pm_call *c, struct pm_out *o)
{
	char x[256], y[256];
	double nx, ny;
	int err;

	if ((err = pm_ext_check_call(c, o)))
		return err;
	nx = pm_dims_prod(pm_arg_at(c, "Input Dims", 2));
	ny = pm_dims_prod(pm_arg_at(c, "Input Dims", 3));
	if (nx < 0 || ny < 0 || pm_tuple_repr(pm_arg_at(c, "Input Dims", 2), x, sizeof(x)) ||
	    pm_tuple_repr(pm_arg_at(c, "Input Dims", 3), y, sizeof(y)))
		return pm_fail(o, "Input Dims[2] and [3] are not tensor shapes");
	if (pm_param_str(o, "x_shape", x) || pm_param_str(o, "y_shape", y) ||
	    pm_param_count(o, "num_elements", (nx + ny)))
		return pm_fail(o, "parameters do not fit");
	rope_out(o, nx + ny, pm_rope_bpe(pm_ext_type_at(c, 0)),
		 pm_ext_type_at(c, 0));
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

	if ((err = pm_ext_check_call(c, o)) || (err = pm_ext_shape_n(c, 0, 3, q, o)) || (err = pm_ext_dim_of(c, 1, 2, &Dp, o)) ||
	    (!concat && (err = pm_ext_dim_of(c, 2, 1, &KH, o))))
		return err;
	T = q[0];
	QH = q[1];
	Dl = q[2];
	ntypes = cJSON_GetArraySize(pm_arg(c, "Input type"));
	din = pm_ext_type_at(c, 0);
	if (!din)
		return pm_fail(o, "Input type[0] is not a dtype");
	t = ntypes > 4 ? pm_ext_type_at(c, 4) : NULL;
	dkv = t && *t ? t : din;
	t = ntypes > 5 ? pm_ext_type_at(c, 5) : NULL;
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

static const char *const fused_rope_ops[] = { "FusedRoPEFunc", NULL };
static const char *const sgl_rotary_ops[] = { "sgl_kernel::rotary_embedding", NULL };
static const char *const aiter_rope_2c_ops[] = { "aiter::rope_cached_positions_2c_fwd_impl", NULL };
static const char *const qk_rope_cat_ops[] = { "aiter::fused_qk_rope_cat_and_cache_mla", NULL };
static const char *const qk_rope_concat_ops[] = { "aiter::fused_qk_rope_concat_and_cache_mla", NULL };

/* Sheets: the class's sheet_category, else its category's family (RoPE,
 * FusedRoPE, CrossEntropy, SSM, MoE_fused, MoE_unfused, MoE_aux, MoE_comm),
 * forward: neither report keeps these as one table. */
const struct pm_class pm_rope_classes[] = {
	{ "fused_rope_fwd", "RoPE_fwd", "RoPE_fwd", fused_rope_ops, model_fused_rope },
	{ "sgl_kernel_rotary_embedding", "RoPE_fwd", "RoPE_fwd", sgl_rotary_ops, model_sgl_rotary },
	{ "aiter_rope_cached_positions_2c_fwd_impl", "RoPE_fwd", "RoPE_fwd", aiter_rope_2c_ops,
	  model_aiter_rope_2c },
	{ "aiter_fused_qk_rope_cat_and_cache_mla", "FusedRoPE_fwd", "RoPE_fwd", qk_rope_cat_ops, model_qk_rope_cat },
	{ "fused_qk_rope_concat_and_cache_mla", "FusedRoPE_fwd", "RoPE_fwd", qk_rope_concat_ops, model_qk_rope_concat },
	{ 0 },
};
