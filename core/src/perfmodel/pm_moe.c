/* SPDX-License-Identifier: MIT */
/* TraceLens's MoE models (PerfModel/extensions/moe_perf_model_extensions.py)
 * and the MoE token dispatch/combine (perf_model.py MoEComm). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perfmodel/perfmodel_internal.h"

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

	if ((err = pm_ext_check_call(c, o)))
		return err;
	if (cJSON_GetArraySize(pm_arg(c, "Input Dims")) < 2)
		return pm_fail(o, "fewer than 2 Input Dims");
	if ((err = pm_ext_dim_of(c, 0, 0, &M, o)) || (err = pm_ext_dim_of(c, 0, 1, &K, o)) || (err = pm_ext_dim_of(c, 1, 1, &E, o)))
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
	idt = pm_ext_type_at(c, 0);
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
	m->idt = pm_ext_type_at(c, in);
	m->wdt = pm_ext_type_at(c, w);
	m->odt = out >= 0 ? pm_ext_type_at(c, out) : NULL;
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
	if ((err = pm_ext_check_call(c, o)) || (err = pm_ext_dim_of(c, 0, 0, &m->M, o)) || (err = pm_ext_shape_n(c, 1, 3, w1, o)) ||
	    (err = pm_ext_shape_n(c, 2, 3, w2, o)) || (err = floordiv(w2[1], w1[2], &int4, o)) ||
	    (err = pm_ext_dim_of(c, 3, 1, &m->topk, o)))
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
	if ((err = pm_ext_check_call(c, o)) || (err = pm_ext_dim_of(c, 0, 0, &m.M, o)) || (err = pm_ext_shape_n(c, 2, 3, w1, o)) ||
	    (err = pm_ext_shape_n(c, 3, 3, w2, o)) || (err = floordiv(w2[1], w1[2], &int4, o)))
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
	if ((err = pm_ext_check_call(c, o)) || (err = pm_ext_shape_n(c, 0, 2, x, o)) || (err = pm_ext_shape_n(c, 1, 3, w1, o)) ||
	    (err = pm_ext_shape_n(c, 2, 3, w2, o)))
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
	if ((err = pm_ext_check_call(c, o)) || (err = pm_ext_shape_n(c, 0, 3, x, o)) || (err = pm_ext_shape_n(c, 1, 3, w, o)))
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
	if ((err = pm_ext_check_call(c, o)) || (err = pm_ext_dim_of(c, 0, 0, &m.M, o)) || (err = pm_ext_shape_n(c, 1, -1, w1, o)) ||
	    (err = pm_ext_dim_of(c, 1, -1, &w1last, o)) || (err = pm_ext_shape_n(c, 2, 3, w2, o)) ||
	    (err = floordiv(w2[1], w1last, &int4, o)) || (err = pm_ext_dim_of(c, 6, 1, &m.topk, o)) ||
	    (err = pm_ext_dim_of(c, 1, 1, &w1[1], o)))
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
	if ((err = pm_ext_check_call(c, o)) || (err = pm_ext_shape_n(c, 0, 3, x, o)) || (err = pm_ext_shape_n(c, 2, 3, w2, o)))
		return err;
	if (cJSON_GetArraySize(w1) > 0 &&
	    ((err = pm_ext_dim_of(c, 1, -1, &w1last, o)) || (err = floordiv(w2[1], w1last, &int4, o))))
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
	if ((err = pm_ext_check_call(c, o)) || (err = pm_ext_dim_of(c, 0, 0, &m.M, o)) || (err = pm_ext_dim_of(c, 0, 1, &m.K, o)))
		return err;
	if (up) {
		if ((err = pm_ext_dim_of(c, 1, 0, &m.E, o)) || (err = pm_ext_dim_of(c, 1, 1, &rows, o)))
			return err;
		m.gated = gated ? truthy(gated) : 1;
		m.N = m.gated ? floor(rows / 2) : rows;
	} else {
		if ((err = pm_ext_dim_of(c, 2, 0, &m.E, o)) || (err = pm_ext_dim_of(c, 2, 2, &rows, o)))
			return err;
		m.gated = -1;
		m.N = rows * 2;
	}
	if (!cJSON_IsNumber(topk))
		return pm_fail(o, "no numeric 'MoE topk' arg");
	m.topk = topk->valuedouble;
	m.idt = types ? pm_ext_type_at(c, 0) : "BFloat16";
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

	if ((err = pm_ext_check_call(c, o)))
		return err;
	if (cJSON_GetArraySize(pm_arg(c, "Input Dims")) < 9)
		return pm_fail(o, "fewer than 9 Input Dims");
	if ((err = pm_ext_shape_n(c, 1, 3, b, o)) || (err = pm_ext_shape_n(c, 8, 2, t, o)))
		return err;
	ntypes = cJSON_GetArraySize(pm_arg(c, "Input type"));
	idt = ntypes > 0 ? pm_ext_type_at(c, 0) : NULL;
	wdt = ntypes > 1 ? pm_ext_type_at(c, 1) : NULL;
	t3 = ntypes > 3 ? pm_ext_type_at(c, 3) : NULL;
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
		const char *dt = cJSON_GetArraySize(pm_arg(c, "Input type")) > i ? pm_ext_type_at(c, i) : NULL;
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
	di = cJSON_GetArraySize(types) ? pm_ext_type_at(c, 0) : "int";
	dw = cJSON_GetArraySize(types) > 1 ? pm_ext_type_at(c, 1) : "float";
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
	dt = cJSON_GetArraySize(pm_arg(c, "Input type")) ? pm_ext_type_at(c, 0) : NULL;
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
static const char *const moe_sort_ops[] = { "aiter::moe_sorting_fwd", "aiter::mxfp4_moe_sort_hip", NULL };
static const char *const append_shared_ops[] = {
	"sglang_profiler::fused_moe_triton_kernels_fused_append_shared_experts", NULL,
};
static const char *const moe_dispatch_ops[] = { "MoEDispatch", NULL };
static const char *const moe_combine_ops[] = { "MoECombine", NULL };

/* Sheets: the class's sheet_category, else its category's family (RoPE,
 * FusedRoPE, CrossEntropy, SSM, MoE_fused, MoE_unfused, MoE_aux, MoE_comm),
 * forward: neither report keeps these as one table. */
const struct pm_class pm_moe_classes[] = {
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
