/* SPDX-License-Identifier: MIT */
/* TraceLens's GEMM perf models (PerfModel/perf_model.py: class GEMM and its
 * aten_mm, aten_addmm, aten_scaled_mm, aten_bmm, aten_baddbmm,
 * vllm_gemm_with_dynamic_quant, tex_ts_te_gemm_ts, tev2_pseudo_gemm; the
 * GEMM classes of PerfModel/extensions/perf_model_extensions.py). Every
 * class reads B, M, N, K, bias and the dtypes from the args; GEMM's rules
 * then give FLOPs = B (2MNK + MN if bias) and bytes = B (MK bpe_A + KN bpe_B
 * + MN bpe_out + N bpe_bias if bias), None when a size is unknown; the
 * Compute Spec is matrix_{precision of dtype_A_B[0]}. A transpose parameter
 * follows when a kernel name tells it (pm_gemm_name.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "perfmodel/perfmodel_internal.h"

/* The order the parameters come in: get_param_details' keys, then B when it
 * did not give one (GEMM.__init__ adds it), then transpose. */
enum gemm_order {
	ORD_MNK,		/* M N K bias stride_A stride_B dtype_A_B B */
	ORD_BMNK,		/* B M N K bias stride_A stride_B dtype_A_B */
	ORD_EXT,		/* B M N K bias dtype_A_B: the extension classes */
	ORD_EXT_NOB,		/* M N K bias dtype_A_B B: vllm_rocm_unquantized_gemm */
};

struct gemm {
	enum gemm_order order;
	double B, M, N, K;
	int bias;
	int have_strides;		/* 0: "Input Strides" absent, stride_A/B None */
	const cJSON *stride_a, *stride_b;
	const char *dt[4];		/* dtype_A_B; NULL is None */
	int ndt;
	double bpe_a, bpe_b, bpe_bias, bpe_out;	/* 0: unknown (None) */
	const char *prec;		/* a precision overriding dtype_A_B[0]'s, or NULL */
	/* the parameters a class adds after dtype_A_B, or NULL */
	int (*extra)(const struct pm_call *c, const struct gemm *g, struct pm_out *out);
	const char *scale_dt[2];	/* hipblaslt_gemm_fp8's dtype_scaleA/B */
};

/* args["Input Dims"][i][j] as a number; -EINVAL when absent. A negative @j
 * counts from the end as Python's index does. */
static int dim(const struct pm_call *c, int i, int j, double *v)
{
	const cJSON *s = pm_arg_at(c, "Input Dims", i), *e;
	int n = cJSON_GetArraySize(s);

	if (!cJSON_IsArray(s))
		return -EINVAL;
	if (j < 0)
		j += n;
	e = j >= 0 && j < n ? cJSON_GetArrayItem(s, j) : NULL;
	if (!cJSON_IsNumber(e))
		return -EINVAL;
	*v = e->valuedouble;
	return 0;
}

static int ndims(const struct pm_call *c, int i)
{
	const cJSON *s = pm_arg_at(c, "Input Dims", i);

	return cJSON_IsArray(s) ? cJSON_GetArraySize(s) : -1;
}

/* Input type[pos]: a string, None, or "" past the end when @dflt says so. */
static int dtype_at(const struct pm_call *c, int pos, const char *dflt, const char **dt)
{
	const cJSON *types = pm_arg(c, "Input type");

	if (dflt && (!cJSON_IsArray(types) || pos >= cJSON_GetArraySize(types))) {
		*dt = dflt;
		return 0;
	}
	return pm_arg_dtype(c, pos, dt);
}

/* The models' try/except KeyError: no "Input Strides" leaves the strides
 * None; a missing position is an IndexError. */
static int strides(const struct pm_call *c, int ia, int ib, struct gemm *g)
{
	if (!pm_arg(c, "Input Strides")) {
		g->have_strides = 0;
		return 0;
	}
	g->have_strides = 1;
	g->stride_a = pm_arg_at(c, "Input Strides", ia);
	g->stride_b = pm_arg_at(c, "Input Strides", ib);
	return cJSON_IsArray(g->stride_a) && cJSON_IsArray(g->stride_b) ? 0 : -EINVAL;
}

static int put_strides(struct pm_out *out, const struct gemm *g)
{
	char buf[PM_MAX_DIMS * 24 + 8];
	int err;

	if (!g->have_strides) {
		err = pm_param_none(out, "stride_A");
		return err ? err : pm_param_none(out, "stride_B");
	}
	err = pm_tuple_repr(g->stride_a, buf, sizeof(buf));
	if (!err)
		err = pm_param_str(out, "stride_A", buf);
	if (!err)
		err = pm_tuple_repr(g->stride_b, buf, sizeof(buf));
	return err ? err : pm_param_str(out, "stride_B", buf);
}

/* GEMM.__init__: the first kernel gemm_name_parser reads gives transpose. */
static int put_transpose(const struct pm_call *c, struct pm_out *out)
{
	static const char *const flag[] = { "None", "False", "True" };
	size_t i;

	for (i = 0; i < c->nkernels; i++) {
		int t[2], r = pm_gemm_transpose(c->kernels[i], t);
		char buf[32];

		if (r < 0)
			return -EINVAL;
		if (r == 0)
			continue;
		snprintf(buf, sizeof(buf), "(%s, %s)", flag[t[0] + 1], flag[t[1] + 1]);
		return pm_param_str(out, "transpose", buf);
	}
	return 0;
}

/* The parameters, FLOPs, bytes and Compute Spec of @g. */
static int gemm_out(const struct pm_call *c, const struct gemm *g, struct pm_out *out)
{
	char buf[512];
	int err = 0;
	double flops, bytes;

	if (g->order == ORD_BMNK || g->order == ORD_EXT)
		err = pm_param_count(out, "B", g->B);
	if (!err)
		err = pm_param_count(out, "M", g->M);
	if (!err)
		err = pm_param_count(out, "N", g->N);
	if (!err)
		err = pm_param_count(out, "K", g->K);
	if (!err)
		err = pm_param_bool(out, "bias", g->bias);
	if (!err && (g->order == ORD_MNK || g->order == ORD_BMNK))
		err = put_strides(out, g);
	if (!err)
		err = pm_py_tuple_repr(g->dt, g->ndt, buf, sizeof(buf));
	if (!err)
		err = pm_param_str(out, "dtype_A_B", buf);
	if (!err && g->extra)
		err = g->extra(c, g, out);
	if (!err && (g->order == ORD_MNK || g->order == ORD_EXT_NOB))
		err = pm_param_count(out, "B", g->B);
	if (err)
		return pm_fail(out, "%s: the parameters do not fit the result", c->name);
	if (put_transpose(c, out))
		return pm_fail(out, "%s: kernel name has no transpose letters", c->name);
	flops = 2 * g->M * g->N * g->K + (g->bias ? g->M * g->N : 0);
	out->gflops = g->B * flops / 1e9;
	if (g->bpe_a && g->bpe_b && g->bpe_bias && g->bpe_out) {
		bytes = g->M * g->K * g->bpe_a + g->K * g->N * g->bpe_b + g->M * g->N * g->bpe_out +
			(g->bias ? g->N : 0) * g->bpe_bias;
		out->bytes = g->B * bytes;
	}
	if (g->prec && *g->prec)
		snprintf(out->compute_spec, sizeof(out->compute_spec), "matrix_%s", g->prec);
	else if (g->prec)
		out->compute_spec[0] = '\0';
	else
		pm_compute_spec(out, "matrix", g->ndt ? g->dt[0] : NULL);
	return 0;
}

/* aten_mm, aten_addmm, aten_scaled_mm, tev2_pseudo_gemm: A at Input Dims[@a],
 * B at [@a + 1]; M = A[0], K = A[1], N = B[1]. */
static int read_2d(const struct pm_call *c, int a, struct gemm *g)
{
	g->order = ORD_MNK;
	g->B = 1;
	if (dim(c, a, 0, &g->M) || dim(c, a, 1, &g->K) || dim(c, a + 1, 1, &g->N))
		return -EINVAL;
	if (dtype_at(c, a, NULL, &g->dt[0]) || dtype_at(c, a + 1, NULL, &g->dt[1]))
		return -EINVAL;
	g->ndt = 2;
	return strides(c, a, a + 1, g);
}

static int model_mm(const struct pm_call *c, struct pm_out *out)
{
	struct gemm g = { 0 };
	int addmm = !strcmp(c->name, "aten::addmm");

	if (read_2d(c, addmm, &g))
		return pm_fail(out, "%s: Input Dims/type/Strides do not hold A and B", c->name);
	/* aten_mm / aten_addmm: every size is A's */
	g.bias = addmm;
	g.bpe_a = g.bpe_b = g.bpe_bias = g.bpe_out = pm_dtype_bpe(g.dt[0]);
	return gemm_out(c, &g, out);
}

static int model_scaled_mm(const struct pm_call *c, struct pm_out *out)
{
	struct gemm g = { 0 };
	const cJSON *dims = pm_arg(c, "Input Dims");

	if (read_2d(c, 0, &g))
		return pm_fail(out, "%s: Input Dims/type/Strides do not hold A and B", c->name);
	/* aten_scaled_mm: a third input is the bias; fp8 inputs write fp16,
	 * 2- and 4-byte inputs write their own size */
	g.bias = cJSON_GetArraySize(dims) == 3;
	g.bpe_a = g.bpe_b = g.bpe_bias = pm_dtype_bpe(g.dt[0]);
	if (!g.bpe_a || !pm_dtype_bpe(g.dt[1]))
		return pm_fail(out, "%s: dtypes of A and B have no size", c->name);
	g.bpe_out = g.bpe_a == 1 ? 2 : g.bpe_a;
	return gemm_out(c, &g, out);
}

static int model_tev2(const struct pm_call *c, struct pm_out *out)
{
	struct gemm g = { 0 };

	if (read_2d(c, 0, &g))
		return pm_fail(out, "%s: Input Dims/type/Strides do not hold A and B", c->name);
	/* tev2_pseudo_gemm: mixed input dtypes raise; the output is 2 bytes */
	if (!g.dt[0] || !g.dt[1] ? g.dt[0] != g.dt[1] : strcmp(g.dt[0], g.dt[1]))
		return pm_fail(out, "%s: dtypes of A and B differ", c->name);
	g.bpe_a = g.bpe_b = g.bpe_bias = pm_dtype_bpe(g.dt[0]);
	g.bpe_out = 2;
	return gemm_out(c, &g, out);
}

/* aten_bmm, aten_baddbmm: A (B, M, K) and B (B, K, N), after C for baddbmm */
static int model_bmm(const struct pm_call *c, struct pm_out *out)
{
	struct gemm g = { 0 };
	int a = !strcmp(c->name, "aten::baddbmm");

	g.order = ORD_BMNK;
	g.bias = a;
	if (ndims(c, a) != 3 || ndims(c, a + 1) != 3 || dim(c, a, 0, &g.B) || dim(c, a, 1, &g.M) ||
	    dim(c, a, 2, &g.K) || dim(c, a + 1, 2, &g.N))
		return pm_fail(out, "%s: A and B are not 3-d", c->name);
	if (dtype_at(c, a, NULL, &g.dt[0]) || dtype_at(c, a + 1, NULL, &g.dt[1]) || strides(c, a, a + 1, &g))
		return pm_fail(out, "%s: Input type/Strides do not hold A and B", c->name);
	g.ndt = 2;
	g.bpe_a = g.bpe_b = g.bpe_bias = g.bpe_out = pm_dtype_bpe(g.dt[0]);
	return gemm_out(c, &g, out);
}

/* vllm_gemm_with_dynamic_quant: A and B are the first two 2-d inputs (else
 * the first two); x (M, K) times weight (N, K)^T */
static int model_dyn_quant(const struct pm_call *c, struct pm_out *out)
{
	const cJSON *dims = pm_arg(c, "Input Dims"), *s;
	int idx[2] = { -1, -1 }, n = 0, i = 0;
	struct gemm g = { 0 };

	cJSON_ArrayForEach(s, dims) {
		if (n < 2 && cJSON_IsArray(s) && cJSON_GetArraySize(s) == 2)
			idx[n++] = i;
		i++;
	}
	/* the fallback: the first two inputs fill what the scan did not */
	if (n < 2 && cJSON_GetArraySize(dims) >= 2) {
		if (n == 0)
			idx[0] = 0;
		idx[1] = 1;
	}
	if (idx[0] < 0 || idx[1] < 0 || ndims(c, idx[0]) != 2 || ndims(c, idx[1]) != 2)
		return pm_fail(out, "%s: Input Dims has no 2-d A and B", c->name);
	g.order = ORD_MNK;
	g.B = 1;
	dim(c, idx[0], 0, &g.M);
	dim(c, idx[0], 1, &g.K);
	if (dim(c, idx[1], 0, &g.N))
		return pm_fail(out, "%s: Input Dims has no 2-d A and B", c->name);
	if (cJSON_GetArraySize(pm_arg(c, "Input type")) < 2 || dtype_at(c, 0, NULL, &g.dt[0]) ||
	    dtype_at(c, 1, NULL, &g.dt[1]) || strides(c, 0, 1, &g))
		return pm_fail(out, "%s: Input type/Strides do not hold A and B", c->name);
	g.ndt = 2;
	g.bpe_a = g.bpe_b = g.bpe_bias = g.bpe_out = pm_dtype_bpe(g.dt[0]);
	return gemm_out(c, &g, out);
}

/* tex_ts_te_gemm_ts (TransformerEngine): A at input 0, B at 5, D at 10;
 * transa / transb are Concrete Inputs 4 and 9, the bias Concrete Inputs 14;
 * dtypes of A, B, D and bias (18) */
static int model_te_gemm(const struct pm_call *c, struct pm_out *out)
{
	const cJSON *ta = pm_arg_at(c, "Concrete Inputs", 4), *tb = pm_arg_at(c, "Concrete Inputs", 9);
	const cJSON *bias = pm_arg_at(c, "Concrete Inputs", 14);
	struct gemm g = { 0 };
	int trans_a, trans_b;
	double d;

	if (!cJSON_IsString(ta) || !cJSON_IsString(tb) || !cJSON_IsString(bias) || ndims(c, 10) < 0)
		return pm_fail(out, "%s: Concrete Inputs do not hold transa, transb and bias", c->name);
	trans_a = !strcmp(ta->valuestring, "1");
	trans_b = !strcmp(tb->valuestring, "1");
	g.order = ORD_MNK;
	g.B = 1;
	if (dim(c, 0, trans_a ? 0 : 1, &g.M) || dim(c, 0, trans_a ? 1 : 0, &g.K) ||
	    dim(c, 5, trans_b ? 1 : 0, &g.N) || dim(c, 5, 0, &d))
		return pm_fail(out, "%s: Input Dims do not hold A and B", c->name);
	g.bias = bias->valuestring[0] != '\0';
	if (dtype_at(c, 0, NULL, &g.dt[0]) || dtype_at(c, 5, NULL, &g.dt[1]) || dtype_at(c, 10, NULL, &g.dt[2]) ||
	    dtype_at(c, 18, NULL, &g.dt[3]) || strides(c, 0, 5, &g))
		return pm_fail(out, "%s: Input type/Strides do not hold A, B, D and bias", c->name);
	g.ndt = 4;
	g.bpe_a = pm_dtype_bpe(g.dt[0]);
	g.bpe_b = pm_dtype_bpe(g.dt[1]);
	g.bpe_out = pm_dtype_bpe(g.dt[2]);
	g.bpe_bias = pm_dtype_bpe(g.dt[3]);
	return gemm_out(c, &g, out);
}

/* vllm_rocm_unquantized_gemm: x (M, K), weight (N, K), bias (N) when the
 * third input has dims; the output is the bias's dtype with a bias, else
 * the weight's */
static int model_vllm_unquant(const struct pm_call *c, struct pm_out *out)
{
	struct gemm g = { 0 };

	g.order = ORD_EXT_NOB;
	g.B = 1;
	g.bias = ndims(c, 2) > 0;
	if (dim(c, 0, 0, &g.M) || dim(c, 1, 0, &g.N) || dim(c, 0, 1, &g.K))
		return pm_fail(out, "%s: Input Dims do not hold x and weight", c->name);
	if (dtype_at(c, 0, NULL, &g.dt[0]) || dtype_at(c, 1, NULL, &g.dt[1]) || dtype_at(c, 2, "", &g.dt[2]))
		return pm_fail(out, "%s: Input type does not hold x and weight", c->name);
	g.ndt = 3;
	g.bpe_a = pm_dtype_bpe(g.dt[0]);
	g.bpe_b = pm_dtype_bpe(g.dt[1]);
	g.bpe_out = g.bpe_bias = pm_dtype_bpe(g.bias ? g.dt[2] : g.dt[1]);
	return gemm_out(c, &g, out);
}

/* gemm_a16w16_atomic_ and its subclasses gemm_a16w16, gemm_a16w16_asm:
 * x (M, K), w (N, K); the output dtype is Input type[3] (atomic_, default
 * bf16), x's (gemm_a16w16, which also reads a bias at input 2) or the sized
 * Input type[2] (asm, else x's) */
static int model_a16w16(const struct pm_call *c, struct pm_out *out)
{
	struct gemm g = { 0 };
	int plain = !strcmp(c->name, "aiter::gemm_a16w16"), asm_ = !strcmp(c->name, "aiter::_gemm_a16w16_asm");

	g.order = ORD_EXT;
	g.B = 1;
	if (dim(c, 0, 0, &g.M) || dim(c, 1, 0, &g.N) || dim(c, 0, 1, &g.K))
		return pm_fail(out, "%s: Input Dims do not hold x and w", c->name);
	if (dtype_at(c, 0, NULL, &g.dt[0]) || dtype_at(c, 1, NULL, &g.dt[1]))
		return pm_fail(out, "%s: Input type does not hold x and w", c->name);
	if (plain) {
		g.bias = ndims(c, 2) > 0;
		g.dt[2] = g.dt[0];
	} else if (asm_) {
		if (dtype_at(c, 2, "", &g.dt[2]))
			return pm_fail(out, "%s: Input type[2] is not a dtype", c->name);
		if (!g.dt[2] || !pm_dtype_bpe(g.dt[2]))
			g.dt[2] = g.dt[0];
	} else if (dtype_at(c, 3, "c10::bfloat16", &g.dt[2])) {
		return pm_fail(out, "%s: Input type[3] is not a dtype", c->name);
	}
	g.ndt = 3;
	g.bpe_a = pm_dtype_bpe(g.dt[0]);
	g.bpe_b = pm_dtype_bpe(g.dt[1]);
	g.bpe_out = g.bpe_bias = pm_dtype_bpe(g.dt[2]);
	return gemm_out(c, &g, out);
}

/* gemm_a8w8_blockscale's quant config, from the scale shapes when there
 * are four inputs, and its inferred bf16 output */
static int a8w8_extra(const struct pm_call *c, const struct gemm *g, struct pm_out *out)
{
	const cJSON *types = pm_arg(c, "Input type"), *t2;
	double xs, ws;
	char buf[96];
	int err = 0;

	if (cJSON_GetArraySize(pm_arg(c, "Input Dims")) > 3) {
		err = pm_param_str(out, "quant_scheme", "a8w8_blockscale");
		if (!err)
			err = pm_param_str(out, "quant_granularity", "per_block");
		/* -(-K // x) is ceil(K / x); an empty or zero scale dim is None */
		if (!err)
			err = ndims(c, 2) > 0 && !dim(c, 2, -1, &xs) && xs
				      ? pm_param_count(out, "block_k", -floor(-g->K / xs))
				      : pm_param_none(out, "block_k");
		if (!err)
			err = ndims(c, 3) > 0 && !dim(c, 3, 0, &ws) && ws
				      ? pm_param_count(out, "block_n", -floor(-g->N / ws))
				      : pm_param_none(out, "block_n");
		t2 = cJSON_GetArraySize(types) > 2 ? cJSON_GetArrayItem(types, 2) : NULL;
		if (!err && t2 && !cJSON_IsString(t2))
			err = cJSON_IsNull(t2) ? pm_param_none(out, "scale_dtype") : -EINVAL;
		else if (!err)
			err = pm_param_str(out, "scale_dtype", t2 ? t2->valuestring : "float32");
	}
	if (!err) {
		snprintf(buf, sizeof(buf), "(%.0f, %.0f)", g->M, g->N);
		err = pm_param_str(out, "output_shape", buf);
	}
	return err ? err : pm_param_str(out, "output_dtype", "c10::bfloat16");
}

/* gemm_a8w8_blockscale: x (M, K), w (N, K), int8/fp8 in, bf16 out */
static int model_a8w8(const struct pm_call *c, struct pm_out *out)
{
	struct gemm g = { 0 };

	g.order = ORD_EXT;
	g.B = 1;
	g.extra = a8w8_extra;
	if (dim(c, 0, 0, &g.M) || dim(c, 0, 1, &g.K) || dim(c, 1, 0, &g.N))
		return pm_fail(out, "%s: Input Dims do not hold x and w", c->name);
	if (dtype_at(c, 0, "", &g.dt[0]) || dtype_at(c, 1, "", &g.dt[1]))
		return pm_fail(out, "%s: Input type does not hold x and w", c->name);
	g.dt[2] = "c10::bfloat16";
	g.ndt = 3;
	g.bpe_a = pm_dtype_bpe(g.dt[0]);
	g.bpe_b = pm_dtype_bpe(g.dt[1]);
	g.bpe_out = g.bpe_bias = 2;
	return gemm_out(c, &g, out);
}

/* batched_gemm_a16wfp4: x (B, M, K) bf16, w (B, N, K/2) packed fp4 (half
 * a byte an element), bf16 out; batched_gemm_a8w8: x (B, M, K) or
 * (M, B, K), wq (B, N, K) int8, its precision wq's */
static int model_batched_ext(const struct pm_call *c, struct pm_out *out)
{
	int fp4 = !strcmp(c->name, "aiter::batched_gemm_a16wfp4_");
	struct gemm g = { 0 };
	double x0;

	g.order = ORD_EXT;
	if (fp4 ? dim(c, 0, 0, &g.B) || dim(c, 0, 1, &g.M) || dim(c, 1, 1, &g.N) || dim(c, 0, 2, &g.K)
		: dim(c, 1, 0, &g.B) || dim(c, 1, 1, &g.N) || dim(c, 0, 2, &g.K) || dim(c, 0, 0, &x0) ||
			  dim(c, 0, x0 == g.B ? 1 : 0, &g.M))
		return pm_fail(out, "%s: Input Dims do not hold x and w", c->name);
	if (dtype_at(c, 0, NULL, &g.dt[0]) || dtype_at(c, 1, NULL, &g.dt[1]))
		return pm_fail(out, "%s: Input type does not hold x and w", c->name);
	g.dt[2] = "c10::bfloat16";
	g.ndt = 3;
	g.bpe_a = pm_dtype_bpe(g.dt[0]);
	g.bpe_b = fp4 ? 0.5 : pm_dtype_bpe(g.dt[1]);
	g.bpe_out = g.bpe_bias = 2;
	g.prec = fp4 ? "fp4" : g.dt[1] ? pm_dtype_precision(g.dt[1]) : NULL;
	if (!fp4 && !g.prec)
		g.prec = "";	/* no precision: no spec */
	return gemm_out(c, &g, out);
}

/* gemm_afp4wfp4: x (M, K/2) and w (N, K/2) packed fp4, bf16 out, mxfp4 */
static int model_afp4wfp4(const struct pm_call *c, struct pm_out *out)
{
	struct gemm g = { 0 };

	g.order = ORD_EXT;
	g.B = 1;
	if (dim(c, 0, 0, &g.M) || dim(c, 1, 0, &g.N) || dim(c, 0, 1, &g.K))
		return pm_fail(out, "%s: Input Dims do not hold x and w", c->name);
	g.K *= 2;
	if (dtype_at(c, 0, NULL, &g.dt[0]) || dtype_at(c, 1, NULL, &g.dt[1]))
		return pm_fail(out, "%s: Input type does not hold x and w", c->name);
	g.dt[2] = "c10::bfloat16";
	g.ndt = 3;
	g.bpe_a = g.bpe_b = 0.5;
	g.bpe_out = g.bpe_bias = 2;
	g.prec = "fp4";
	return gemm_out(c, &g, out);
}

/* TraceLens's parse_bool of a Concrete Inputs entry: "false", "0" and ""
 * (any case, spaces around) are False, any other text True */
static int parse_bool(const cJSON *v)
{
	const char *s;
	size_t n;

	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v);
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v))
		return !(cJSON_IsNumber(v) && v->valuedouble == 0);
	s = v->valuestring;
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
		n--;
	return !(n == 0 || (n == 1 && s[0] == '0') || (n == 5 && !strncasecmp(s, "false", 5)));
}

static int fp8_extra(const struct pm_call *c, const struct gemm *g, struct pm_out *out)
{
	int err;

	(void)c;
	err = g->scale_dt[0] ? pm_param_str(out, "dtype_scaleA", g->scale_dt[0]) : pm_param_none(out, "dtype_scaleA");
	if (!err)
		err = g->scale_dt[1] ? pm_param_str(out, "dtype_scaleB", g->scale_dt[1])
				     : pm_param_none(out, "dtype_scaleB");
	return err;
}

/* hipblaslt_gemm_fp4's bytes (aiter_gemm_a4w4 shares them): A and B
 * packed two to a byte, one E8M0 scale (1 byte when its dtype has no size)
 * per 32 of K for every row of A and of B, a bf16 output */
static void mxfp4_bytes(const struct gemm *g, struct pm_out *out)
{
	double spr = ceil(g->K / 32), bsa = g->scale_dt[0] ? pm_dtype_bpe(g->scale_dt[0]) : 0,
	       bsb = g->scale_dt[1] ? pm_dtype_bpe(g->scale_dt[1]) : 0;

	out->bytes = g->M * floor(g->K / 2) * g->bpe_a + g->N * floor(g->K / 2) * g->bpe_b +
		     g->M * spr * (bsa ? bsa : 1) + g->N * spr * (bsb ? bsb : 1) + g->M * g->N * 2;
}

/* Input type[@pos] of a scale: a dtype, or None past the end */
static int scale_dtype(const struct pm_call *c, int pos, const char **dt)
{
	*dt = NULL;
	return cJSON_GetArraySize(pm_arg(c, "Input type")) > pos ? dtype_at(c, pos, NULL, dt) : 0;
}

/* hipblaslt_gemm_fp8 / hipblaslt_gemm_fp4 (Primus-Turbo): A at input 0, B
 * at 2, their scales at 1 and 3, transA / transB / transC at Concrete
 * Inputs 5-7; transC swaps A and B and inverts the flags, as the C++
 * binding does. fp8 inputs write 2 bytes; fp4 inputs are packed, K twice
 * the traced one. aiter_gemm_a4w4: A, B, scales at 0-3, always NT. */
static int model_hipblaslt(const struct pm_call *c, struct pm_out *out)
{
	const cJSON *ci = pm_arg(c, "Concrete Inputs");
	int n = cJSON_IsArray(ci) ? cJSON_GetArraySize(ci) : 0, ia = 0, ib = 2, ta, tb;
	int a4w4 = !strncmp(c->name, "aiter::", 7), fp4 = a4w4 || strstr(c->name, "fp4") != NULL;
	struct gemm g = { 0 };

	ta = n > 5 && parse_bool(cJSON_GetArrayItem(ci, 5));
	tb = n > 6 && parse_bool(cJSON_GetArrayItem(ci, 6));
	if (a4w4) {
		ib = 1;
		ta = 0;
		tb = 1;
	} else if (n > 7 && parse_bool(cJSON_GetArrayItem(ci, 7))) {
		int t = ta;

		ia = 2;
		ib = 0;
		ta = !tb;
		tb = !t;
	}
	g.order = ORD_MNK;
	g.B = 1;
	g.extra = fp8_extra;
	if (dim(c, ia, ta ? 1 : 0, &g.M) || dim(c, ia, ta ? 0 : 1, &g.K) || dim(c, ib, tb ? 0 : 1, &g.N))
		return pm_fail(out, "%s: Input Dims do not hold A and B", c->name);
	if (fp4)
		g.K *= 2;
	if (dtype_at(c, 0, NULL, &g.dt[0]) || dtype_at(c, a4w4 ? 1 : 2, NULL, &g.dt[1]) ||
	    scale_dtype(c, a4w4 ? 2 : 1, &g.scale_dt[0]) || scale_dtype(c, 3, &g.scale_dt[1]))
		return pm_fail(out, "%s: Input type does not hold A and B", c->name);
	g.ndt = 2;
	/* except (KeyError, IndexError): strides None */
	if (strides(c, 0, a4w4 ? 1 : 2, &g))
		g.have_strides = 0;
	g.bpe_a = g.bpe_bias = pm_dtype_bpe(g.dt[0]);
	g.bpe_b = pm_dtype_bpe(g.dt[1]);
	if (!g.bpe_a || !g.bpe_b)
		return pm_fail(out, "%s: dtypes of A and B have no size", c->name);
	g.bpe_out = g.bpe_a == 1 ? 2 : g.bpe_a;
	if (gemm_out(c, &g, out))
		return -EINVAL;
	if (fp4)
		mxfp4_bytes(&g, out);
	return 0;
}

/* ------------------------------------------------------------ grouped GEMM
 * TraceLens's GroupedGemm (category GroupedGEMM_fwd): X (M, K) in group
 * order times one (K, N) weight per group; FLOPs 2MKN, bytes (MK + GKN)
 * bpe_in + MN bpe_out. primus_turbo_grouped_gemm reads the compact
 * [[M, K], [G, K, N] or [G, N, K]] form or the zipped per-group form;
 * primus_turbo_grouped_gemm_variable_k sums group by group. */

#define GG_MAX 256	/* groups read; more is -ENOSPC */

struct gg_pair {
	double m, k, k2, n;	/* X_i (m, k), W_i (k2, n) */
};

/* _collect_2d_shapes: every [a, b] of positive ints, depth first */
static int collect_2d(const cJSON *o, double (*out)[2], int *n)
{
	const cJSON *e;

	if (!cJSON_IsArray(o))
		return 0;
	if (cJSON_GetArraySize(o) == 2) {
		const cJSON *a = cJSON_GetArrayItem(o, 0), *b = cJSON_GetArrayItem(o, 1);

		if (cJSON_IsNumber(a) && cJSON_IsNumber(b) && a->valuedouble > 0 && b->valuedouble > 0 &&
		    a->valuedouble == floor(a->valuedouble) && b->valuedouble == floor(b->valuedouble)) {
			if (*n == GG_MAX)
				return -ENOSPC;
			out[*n][0] = a->valuedouble;
			out[*n][1] = b->valuedouble;
			(*n)++;
			return 0;
		}
	}
	cJSON_ArrayForEach(e, o) {
		int err = collect_2d(e, out, n);

		if (err)
			return err;
	}
	return 0;
}

/* a JSON array of @len positive ints (len < 0: at least -len) */
static int pos_ints(const cJSON *a, int len, double *v)
{
	int n = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1, i, want = len < 0 ? -len : len;

	if (n < 0 || (len >= 0 ? n != len : n < want))
		return 0;
	for (i = 0; i < want; i++) {
		const cJSON *e = cJSON_GetArrayItem(a, i);

		if (!cJSON_IsNumber(e) || e->valuedouble <= 0 || e->valuedouble != floor(e->valuedouble))
			return 0;
		v[i] = e->valuedouble;
	}
	return 1;
}

/* The zipped form: as many X_i as W_i; @pairs gets them, *n their count. */
static int zipped(const struct pm_call *c, struct gg_pair *pairs, int *n)
{
	double lhs[GG_MAX][2], rhs[GG_MAX][2];
	const cJSON *a = pm_arg_at(c, "Input Dims", 0), *b = pm_arg_at(c, "Input Dims", 1);
	int nl = 0, nr = 0, i;

	*n = 0;
	if (!cJSON_IsArray(a) || !cJSON_IsArray(b) || collect_2d(a, lhs, &nl) || collect_2d(b, rhs, &nr))
		return 0;
	if (!nl || nl != nr)
		return 0;
	for (i = 0; i < nl; i++)
		pairs[i] = (struct gg_pair){ lhs[i][0], lhs[i][1], rhs[i][0], rhs[i][1] };
	*n = nl;
	return 1;
}

/* dtype_in = Input type[0], dtype_out = [1] or dtype_in; their sizes */
static int gg_dtypes(const struct pm_call *c, const char **din, double *bin, double *bout)
{
	const cJSON *t = pm_arg(c, "Input type");
	int n = cJSON_IsArray(t) ? cJSON_GetArraySize(t) : 0;
	const char *dout;

	*din = NULL;
	dout = NULL;
	if (n > 0 && pm_arg_dtype(c, 0, din))
		return -EINVAL;
	if (n > 1 && pm_arg_dtype(c, 1, &dout))
		return -EINVAL;
	*bin = *din ? pm_dtype_bpe(*din) : 0;
	*bout = n > 1 ? (dout ? pm_dtype_bpe(dout) : *bin) : *bin;
	return 0;
}

static int gg_bpe(struct pm_out *out, const char *name, double bpe)
{
	return bpe ? pm_param_count(out, name, bpe) : pm_param_none(out, name);
}

/* GroupedGemm's parameters: M, K, N, G, bpe_in, bpe_out (None: 0) */
static int gg_params(struct pm_out *out, double M, double K, double N, double G, double bin, double bout)
{
	int err = pm_param_count(out, "M", M);

	if (!err)
		err = pm_param_count(out, "K", K);
	if (!err)
		err = pm_param_count(out, "N", N);
	if (!err)
		err = pm_param_count(out, "G", G);
	if (!err)
		err = gg_bpe(out, "bpe_in", bin);
	return err ? err : gg_bpe(out, "bpe_out", bout);
}

static int model_grouped(const struct pm_call *c, struct pm_out *out)
{
	struct gg_pair pairs[GG_MAX];
	double a[3], b[3], M = 0, K = 0, N = 0, G = 0, bin, bout;
	const char *din;
	int n, i, err;

	if (pos_ints(pm_arg_at(c, "Input Dims", 0), -2, a) && pos_ints(pm_arg_at(c, "Input Dims", 1), 3, b) &&
	    (b[1] == a[1] || b[2] == a[1])) {
		/* compact: W is [G, K, N] or [G, N, K] */
		M = a[0];
		K = a[1];
		G = b[0];
		N = b[1] == K ? b[2] : b[1];
	} else if (zipped(c, pairs, &n)) {
		K = pairs[0].k;
		N = pairs[0].n;
		for (i = 0; i < n; i++) {
			if (pairs[i].k != K || pairs[i].k2 != K || pairs[i].n != N)
				return pm_fail(out, "%s: groups differ in K or N", c->name);
			M += pairs[i].m;
		}
		G = n;
	} else {
		return pm_fail(out, "%s: Input Dims is neither the compact nor the zipped form", c->name);
	}
	if (gg_dtypes(c, &din, &bin, &bout))
		return pm_fail(out, "%s: Input type is not dtypes", c->name);
	err = gg_params(out, M, K, N, G, bin, bout);
	if (err)
		return pm_fail(out, "%s: the parameters do not fit the result", c->name);
	out->gflops = 2 * M * K * N / 1e9;
	if (bin && bout)
		out->bytes = (M * K + G * K * N) * bin + M * N * bout;
	pm_compute_spec(out, "matrix", din);
	return 0;
}

static int model_grouped_var_k(const struct pm_call *c, struct pm_out *out)
{
	struct gg_pair pairs[GG_MAX];
	char buf[4096];
	double a[2], b[2], M = 0, flops = 0, bytes = 0, bin, bout;
	size_t len = 0;
	const char *din;
	int n = 0, i, err;

	if (pos_ints(pm_arg_at(c, "Input Dims", 0), 2, a) && pos_ints(pm_arg_at(c, "Input Dims", 1), 2, b)) {
		/* compact [[M, K], [M, N]]: one group of the totals */
		pairs[0] = (struct gg_pair){ a[0], a[1], a[1], b[1] };
		n = 1;
	} else if (zipped(c, pairs, &n)) {
		for (i = 0; i < n; i++)
			if (pairs[i].k != pairs[i].k2)
				return pm_fail(out, "%s: a group's K differs between X and W", c->name);
	} else {
		return pm_fail(out, "%s: Input Dims is neither the compact nor the zipped form", c->name);
	}
	if (gg_dtypes(c, &din, &bin, &bout))
		return pm_fail(out, "%s: Input type is not dtypes", c->name);
	buf[len++] = '[';
	for (i = 0; i < n; i++) {
		int w = snprintf(buf + len, sizeof(buf) - len, "%s((%.0f, %.0f), (%.0f, %.0f))", i ? ", " : "",
				 pairs[i].m, pairs[i].k, pairs[i].k, pairs[i].n);

		if (w < 0 || (size_t)w >= sizeof(buf) - len - 1)
			return pm_fail(out, "%s: too many groups to list", c->name);
		len += (size_t)w;
		M += pairs[i].m;
		flops += 2 * pairs[i].m * pairs[i].k * pairs[i].n;
		bytes += (pairs[i].m * pairs[i].k + pairs[i].k * pairs[i].n) * bin + pairs[i].m * pairs[i].n * bout;
	}
	buf[len++] = ']';
	buf[len] = '\0';
	err = gg_params(out, M, pairs[0].k, pairs[0].n, n, bin, bout);
	if (!err)
		err = pm_param_str(out, "group_pairs", buf);
	if (err)
		return pm_fail(out, "%s: the parameters do not fit the result", c->name);
	out->gflops = flops / 1e9;
	if (bin && bout)
		out->bytes = bytes;
	pm_compute_spec(out, "matrix", din);
	return 0;
}

static const char *const mm_ops[] = { "aten::mm", "aten::addmm", NULL };
static const char *const scaled_mm_ops[] = {
	"aten::_scaled_mm", "trtllm::cublas_scaled_mm", "bitsandbytes::int8_linear_matmul", NULL,
};
static const char *const bmm_ops[] = { "aten::bmm", "aten::baddbmm", NULL };
static const char *const dyn_quant_ops[] = { "vllm::gemm_with_dynamic_quant", NULL };
static const char *const te_gemm_ops[] = { "tex_ts::te_gemm_ts", NULL };
static const char *const tev2_ops[] = {
	"_Linear_yfwd_mm", "_LinearBackward_xgrad_mm", "_LinearBackward_wgrad_mm",
	"_LayerNormLinear_yfwd_mm", "_LayerNormLinearBackward_xgrad_mm",
	"_LayerNormLinearBackward_wgrad_mm", NULL,
};
static const char *const vllm_unquant_ops[] = { "vllm::rocm_unquantized_gemm", NULL };
static const char *const a16w16_ops[] = {
	"aiter::gemm_a16w16", "aiter::gemm_a16w16_atomic_", "aiter::_gemm_a16w16_asm",
	"sglang_profiler::gemm_kernels_flydsl_hgemm", NULL,
};

static const char *const a8w8_ops[] = {
	"sglang_profiler::fp8_utils_gemm_a8w8_blockscale", "sglang_profiler::gemm_a8w8_blockscale_gemm_a8w8_blockscale",
	"vllm::rocm_aiter_triton_gemm_a8w8_blockscale", "aiter::gemm_a8w8_blockscale_ck",
	"aiter::gemm_a8w8_blockscale_cktile", "aiter::gemm_a8w8_blockscale_bpreshuffle_ck",
	"aiter::gemm_a8w8_blockscale_bpreshuffle_cktile", "aiter::flatmm_a8w8_blockscale_asm",
	"aiter::gfx950_a8w8_blockscale_asm", "aiter::gemm_a8w8_ck", "aiter::gemm_a8w8_bpreshuffle_ck",
	"aiter::gemm_a8w8_bpreshuffle", "vllm::_rocm_aiter_preshuffled_per_token_w8a8_gemm",
	"aiter::_gemm_a8w8_blockscale_bpreshuffle_asm", NULL,
};
static const char *const batched_ext_ops[] = {
	"aiter::batched_gemm_a16wfp4_",
	"sglang_profiler::batched_gemm_a8w8_a_per_token_group_prequant_w_per_batched_tensor_quant"
	"_batched_gemm_a8w8_a_per_token_group_prequant_w_per_batched_tensor_quant",
	NULL,
};
static const char *const afp4wfp4_ops[] = { "aiter::gemm_afp4wfp4_", NULL };
static const char *const hipblaslt_ops[] = {
	"primus_turbo_cpp_extension::hipblaslt_gemm_fp8", "primus_turbo::hipblaslt_gemm_fp8",
	"primus_turbo_cpp_extension::hipblaslt_gemm_fp4", "primus_turbo::hipblaslt_gemm_fp4",
	"aiter::gemm_a4w4", "aiter::_gemm_a4w4_asm", NULL,
};

static const char *const grouped_ops[] = {
	"primus_turbo::grouped_gemm", "primus_turbo::grouped_gemm_impl", "primus_turbo_cpp_extension::grouped_gemm",
	"primus_turbo_cpp_extension::ck_grouped_gemm", NULL,
};
static const char *const grouped_var_k_ops[] = {
	"primus_turbo::grouped_gemm_variable_k", "primus_turbo::grouped_gemm_variable_k_impl",
	"primus_turbo_cpp_extension::grouped_gemm_variable_k", "primus_turbo_cpp_extension::ck_grouped_gemm_variable_k",
	NULL,
};

const struct pm_class pm_gemm_classes[] = {
	{ "aten_mm", "GEMM", "GEMM", mm_ops, model_mm },
	{ "aten_scaled_mm", "GEMM", "GEMM", scaled_mm_ops, model_scaled_mm },
	{ "aten_bmm", "GEMM", "GEMM", bmm_ops, model_bmm },
	{ "vllm_gemm_with_dynamic_quant", "GEMM", "GEMM", dyn_quant_ops, model_dyn_quant },
	{ "tex_ts_te_gemm_ts", "GEMM", "GEMM", te_gemm_ops, model_te_gemm },
	{ "tev2_pseudo_gemm", "GEMM", "GEMM", tev2_ops, model_tev2 },
	{ "vllm_rocm_unquantized_gemm", "GEMM", "GEMM", vllm_unquant_ops, model_vllm_unquant },
	{ "gemm_a16w16", "GEMM", "GEMM", a16w16_ops, model_a16w16 },
	{ "gemm_a8w8_blockscale", "GEMM", "GEMM", a8w8_ops, model_a8w8 },
	{ "batched_gemm_ext", "GEMM", "GEMM", batched_ext_ops, model_batched_ext },
	{ "gemm_afp4wfp4", "GEMM", "GEMM", afp4wfp4_ops, model_afp4wfp4 },
	{ "hipblaslt_gemm", "GEMM", "GEMM", hipblaslt_ops, model_hipblaslt },
	{ "primus_turbo_grouped_gemm", "GroupedGEMM_fwd", "GroupedGEMM_fwd", grouped_ops, model_grouped },
	{ "primus_turbo_grouped_gemm_variable_k", "GroupedGEMM_fwd", "GroupedGEMM_fwd", grouped_var_k_ops,
	  model_grouped_var_k },
	{ 0 },
};
