/* SPDX-License-Identifier: MIT */
/* TraceLens's attention perf models: the SDPA family (PerfModel/perf_model.py:
 * class SDPA and its subclasses for flash-attn, aten's SDPA kernels, aiter,
 * flash-attn 3 and Evoformer) and, through pm_sdpa_infer.c, the inference
 * attention extensions. Each SDPA class differs only in where it reads q, k,
 * v, dropout and causal, and in which parameters it reports, so one rule
 * per class drives a shared reader. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perfmodel/perfmodel_internal.h"

enum layout {
	L_BHND,		/* (B, H, N, d): aten's SDPA ops */
	L_BNHD,		/* (B, N, H, d): flash-attn, aiter; TraceLens's bhnd_idx (0, 2, 1, 3) */
	L_VARLEN,	/* (T, H, d), B = 1: extract_sdpa_varlen_cfg */
	L_EVO,		/* Evoformer's (Batch, N_seq, N_res, Head, Dim), q only */
};

enum drop_rule {
	D_FLOAT,	/* float(Concrete[pos]): must parse */
	D_OPT,		/* optional_float(Concrete[pos]): 0.0 when it does not */
	D_FA_BWD,	/* float(Concrete[pos]) if present and non-empty, else 0.0 */
	D_ZERO,		/* 0.0 (flash-attn 3 has none) */
	D_ABSENT,	/* no dropout parameter (Evoformer) */
};

enum causal_rule {
	C_EVAL,		/* eval(Concrete[pos]) */
	C_EVAL_OR_TRUE,	/* eval(Concrete[pos]) if present and non-empty, else True */
	C_STR,		/* Concrete[pos].lower() == "true", False for "" and "None" */
	C_FALSE,
};

enum dtype_rule { DT_TUPLE, DT_NONE, DT_LIST };

enum flops_rule {
	F_FWD,		/* SDPA.flops */
	F_BWD,		/* SDPA.flops_bwd (the backward classes' flops()) */
	F_VARLEN_FWD,	/* flash_attention_varlen_forward.flops */
	F_VARLEN_BWD,	/* flash_attention_varlen_backward.flops */
};

enum bytes_rule {
	B_FWD,		/* SDPA.bytes(2) */
	B_BWD,		/* SDPA.bytes_bwd(2) */
	B_BWD_DTYPE,	/* bytes_bwd(name2bpe(dtype_A_B[0])): flash_attention_backward */
};

struct sdpa_rule {
	const char *cls;
	int q;			/* Input Dims position of q; k and v follow */
	enum layout layout;
	enum drop_rule drop;
	int drop_pos;
	enum causal_rule causal;
	int causal_pos;
	int flash;
	int strides;		/* report q/k/v strides (Input Strides at q, k, v) */
	enum dtype_rule dtype;
	int seqs_pos;		/* varlen: Input Dims of cu_seqlens_q (cu_seqlens_k next) */
	int max_pos;		/* varlen: Concrete Inputs of max_seqlen_q (max_seqlen_k next) */
	enum flops_rule flops;
	enum bytes_rule bytes;
};

/* What get_param_details yields. */
struct sdpa {
	long long B, N_Q, H_Q, N_KV, H_KV, d_qk, d_v;
	double dropout;
	int causal;			/* its truth */
	struct tl_cell causal_cell;	/* as TraceLens writes it: True, 0, None */
	long long nseq_q, nseq_kv;
	double max_q, max_kv;
	const char *dtype;		/* dtype_A_B[0]; NULL: None */
	int ndtype;			/* items of dtype_A_B */
};

static const cJSON *shape_at(const struct pm_call *c, int pos)
{
	const cJSON *s = pm_arg_at(c, "Input Dims", pos);

	return cJSON_IsArray(s) ? s : NULL;
}

/* shape[i] as an integer, Python's negative indices included */
static int dim(const cJSON *shape, int i, long long *v)
{
	int n = cJSON_GetArraySize(shape);
	const cJSON *d;
	int64_t x;

	if (i < 0)
		i += n;
	if (i < 0 || i >= n)
		return -EINVAL;
	d = cJSON_GetArrayItem(shape, i);
	if (!tl_json_i64(d, INT64_MIN, INT64_MAX, &x))
		return -EINVAL;
	*v = x;
	return 0;
}

/* Concrete Inputs[pos] as text; NULL when absent or not a string */
static const char *conc(const struct pm_call *c, int pos)
{
	const cJSON *s = pm_arg_at(c, "Concrete Inputs", pos);

	return cJSON_IsString(s) ? s->valuestring : NULL;
}

/* Python's float() of a str: surrounding blanks allowed, the rest must be a
 * decimal literal (or nan/inf); no hex. */
static int py_float(const char *s, double *v)
{
	char *end;

	if (!s || strpbrk(s, "xX"))
		return -EINVAL;
	*v = strtod(s, &end);
	if (end == s)
		return -EINVAL;
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	return *end ? -EINVAL : 0;
}

/* TraceLens's optional_float: the default (0.0) for "", "None" and text
 * float() refuses */
static double optional_float(const char *s)
{
	double v;

	if (!s || !*s || !strcmp(s, "None") || py_float(s, &v))
		return 0.0;
	return v;
}

/* eval() of the literals a causal flag is recorded as: True, False, None, an
 * integer */
static int py_eval_flag(const char *s, struct sdpa *p)
{
	char *end;
	long long v;

	while (*s == ' ')
		s++;
	if (!strcmp(s, "True") || !strcmp(s, "False")) {
		p->causal = s[0] == 'T';
		p->causal_cell = tl_cell_bool(p->causal);
		return 0;
	}
	if (!strcmp(s, "None")) {
		p->causal = 0;
		p->causal_cell = tl_cell_str("None");
		return 0;
	}
	v = strtoll(s, &end, 10);
	if (end == s || *end)
		return -EINVAL;
	p->causal = v != 0;
	p->causal_cell = tl_cell_int(v);
	return 0;
}

/* extract_sdpa_cfg / extract_sdpa_varlen_cfg: q, k, v read through the
 * layout, and the same checks (batch, K/V heads and lengths, Q/K head dims) */
static int read_qkv(const struct sdpa_rule *r, const struct pm_call *c, struct pm_out *out,
		    struct sdpa *p)
{
	static const int bhnd[4] = { 0, 1, 2, 3 }, bnhd[4] = { 0, 2, 1, 3 };
	long long v[3][4] = { { 0 } };
	int i, j;

	if (r->layout == L_EVO) {
		const cJSON *q = shape_at(c, 0);
		long long b, nseq;

		if (!q || cJSON_GetArraySize(q) != 5)
			return pm_fail(out, "%s: Input Dims[0] is not (Batch, N_seq, N_res, Head, Dim)", r->cls);
		if (dim(q, 0, &b) || dim(q, 1, &nseq) || dim(q, 2, &p->N_Q) || dim(q, 3, &p->H_Q) ||
		    dim(q, 4, &p->d_qk))
			return pm_fail(out, "%s: Input Dims[0] holds a non-integer", r->cls);
		p->B = b * nseq;
		p->N_KV = p->N_Q;
		p->H_KV = p->H_Q;
		p->d_v = p->d_qk;
		return 0;
	}
	for (i = 0; i < 3; i++) {
		const cJSON *s = shape_at(c, r->q + i);

		if (!s)
			return pm_fail(out, "%s: no shape at Input Dims[%d]", r->cls, r->q + i);
		for (j = 0; j < (r->layout == L_VARLEN ? 3 : 4); j++) {
			/* varlen reads (H, N, d) at (1, 0, 2) */
			int at = r->layout == L_VARLEN ? (j == 0 ? 1 : j == 1 ? 0 : 2) :
				 (r->layout == L_BHND ? bhnd : bnhd)[j];

			if (dim(s, at, &v[i][j]))
				return pm_fail(out, "%s: Input Dims[%d] has no integer at %d", r->cls,
					       r->q + i, at);
		}
		if (r->layout == L_VARLEN) {	/* no batch: shift to (B, H, N, d) with B = 1 */
			v[i][3] = v[i][2], v[i][2] = v[i][1], v[i][1] = v[i][0], v[i][0] = 1;
		}
	}
	if (v[0][0] != v[1][0] || v[0][0] != v[2][0])
		return pm_fail(out, "%s: batch sizes of q, k, v differ", r->cls);
	if (v[1][1] != v[2][1])
		return pm_fail(out, "%s: head counts of k and v differ", r->cls);
	if (v[1][2] != v[2][2])
		return pm_fail(out, "%s: lengths of k and v differ", r->cls);
	if (v[0][3] != v[1][3])
		return pm_fail(out, "%s: head dims of q and k differ", r->cls);
	p->B = v[0][0], p->H_Q = v[0][1], p->N_Q = v[0][2], p->d_qk = v[0][3];
	p->H_KV = v[1][1], p->N_KV = v[1][2], p->d_v = v[2][3];
	return 0;
}

static int read_flags(const struct sdpa_rule *r, const struct pm_call *c, struct pm_out *out,
		      struct sdpa *p)
{
	const char *s;

	p->dropout = 0.0;
	if (r->drop == D_FLOAT || r->drop == D_OPT || r->drop == D_FA_BWD) {
		s = conc(c, r->drop_pos);
		if (r->drop == D_OPT && !pm_arg_at(c, "Concrete Inputs", r->drop_pos))
			return pm_fail(out, "%s: no Concrete Inputs[%d] (dropout_p)", r->cls, r->drop_pos);
		if (r->drop == D_OPT)
			p->dropout = optional_float(s);
		else if (r->drop == D_FA_BWD && (!s || !*s))
			p->dropout = 0.0;
		else if (py_float(s, &p->dropout))
			return pm_fail(out, "%s: dropout (Concrete Inputs[%d]) is not a float",
				       r->cls, r->drop_pos);
	}
	p->causal = 0;
	p->causal_cell = tl_cell_bool(0);
	if (r->causal == C_FALSE)
		return 0;
	s = conc(c, r->causal_pos);
	if (r->causal == C_STR) {
		if (!s)
			return pm_fail(out, "%s: no Concrete Inputs[%d] (is_causal)", r->cls, r->causal_pos);
		p->causal = !strcasecmp(s, "true");
		p->causal_cell = tl_cell_bool(p->causal);
		return 0;
	}
	if (r->causal == C_EVAL_OR_TRUE && (!s || !*s)) {
		p->causal = 1;
		p->causal_cell = tl_cell_bool(1);
		return 0;
	}
	if (!s || py_eval_flag(s, p))
		return pm_fail(out, "%s: causal (Concrete Inputs[%d]) is not a literal", r->cls,
			       r->causal_pos);
	return 0;
}

static int read_varlen(const struct sdpa_rule *r, const struct pm_call *c, struct pm_out *out,
		       struct sdpa *p)
{
	const cJSON *sq = shape_at(c, r->seqs_pos), *sk = shape_at(c, r->seqs_pos + 1);
	long long nq, nk;

	if (!sq || !sk || dim(sq, 0, &nq) || dim(sk, 0, &nk))
		return pm_fail(out, "%s: no cu_seqlens shapes at Input Dims[%d]", r->cls, r->seqs_pos);
	p->nseq_q = nq - 1;
	p->nseq_kv = nk - 1;
	if (py_float(conc(c, r->max_pos), &p->max_q) || py_float(conc(c, r->max_pos + 1), &p->max_kv))
		return pm_fail(out, "%s: max_seqlen (Concrete Inputs[%d]) is not a float", r->cls,
			       r->max_pos);
	return 0;
}

/* SDPA.flops_func, in Python's order of operations */
static int flops_fwd(double B, double nq, double hq, double nkv, double dqk, double dv,
		     int causal, double *f)
{
	double qk = B * hq * (2 * nq * nkv * dqk);
	double pv = B * hq * (2 * nq * dv * nkv);

	*f = qk + pv;
	if (causal) {
		if (nq != nkv)
			return -EINVAL;	/* TraceLens raises: causal with N_Q != N_KV */
		*f /= 2;
	}
	return 0;
}

/* SDPA.flops_bwd_func: with flash_impl the QK^T product is recomputed; the
 * GQA reductions of dV and dK over H_Q / H_KV heads are added */
static int flops_bwd(double B, double nq, double hq, double nkv, double hkv, double dqk,
		     double dv, int causal, int flash, double *f)
{
	double t = 0, gqa;

	if (hkv == 0)
		return -EINVAL;
	gqa = floor(hq / hkv) - 1;
	if (flash)
		t += B * hq * (2 * nq * nkv * dqk);
	t += B * hq * (2 * nkv * nq * dv) + B * nkv * dv * gqa;
	t += B * hq * (2 * nq * nkv * dv);
	t += B * hq * (2 * nq * nkv * dqk);
	t += B * hq * (2 * nkv * nq * dqk) + B * nkv * dqk * gqa;
	*f = t;
	if (causal) {
		if (nq != nkv)
			return -EINVAL;
		*f /= 2;
	}
	return 0;
}

static double elems_fwd(const struct sdpa *p)
{
	return (double)(p->B * p->N_Q * p->H_Q * p->d_qk + p->B * p->N_KV * p->H_KV * p->d_qk +
			p->B * p->N_KV * p->H_KV * p->d_v + p->B * p->N_Q * p->H_Q * p->d_v);
}

static double elems_bwd(const struct sdpa *p)
{
	return (double)(2 * (p->B * p->N_Q * p->H_Q * p->d_qk + p->B * p->N_KV * p->H_KV * p->d_qk +
			     p->B * p->N_KV * p->H_KV * p->d_v) + p->B * p->N_Q * p->H_Q * p->d_v);
}

/* flash_attention_varlen_*.flops: the longest sequence at max_seqlen and the
 * others sharing the rest evenly (a lower bound, as TraceLens says) */
static int flops_varlen(const struct sdpa_rule *r, const struct sdpa *p, int flash, double *f)
{
	double g;
	int err;

	err = r->flops == F_VARLEN_FWD ?
		flops_fwd(p->B, p->max_q, p->H_Q, p->max_kv, p->d_qk, p->d_v, p->causal, f) :
		flops_bwd(p->B, p->max_q, p->H_Q, p->max_kv, p->H_KV, p->d_qk, p->d_v, p->causal, flash, f);
	if (err || p->nseq_q <= 1)
		return err;
	if (p->nseq_kv == 1)
		return -EINVAL;	/* TraceLens divides by num_seqs_kv - 1 */
	{
		double nq = floor((p->N_Q - p->max_q) / (double)(p->nseq_q - 1));
		double nkv = floor((p->N_KV - p->max_kv) / (double)(p->nseq_kv - 1));

		err = r->flops == F_VARLEN_FWD ?
			flops_fwd(p->B, nq, p->H_Q, nkv, p->d_qk, p->d_v, p->causal, &g) :
			flops_bwd(p->B, nq, p->H_Q, nkv, p->H_KV, p->d_qk, p->d_v, p->causal, flash, &g);
	}
	if (!err)
		*f += (double)(p->nseq_q - 1) * g;
	return err;
}

static int params(const struct sdpa_rule *r, const struct pm_call *c, struct pm_out *out,
		  const struct sdpa *p)
{
	static const char *const stride_names[3] = { "q_stride", "k_stride", "v_stride" };
	char buf[1024];
	int i, err;

	err = pm_param_int(out, "B", p->B) || pm_param_int(out, "N_Q", p->N_Q) ||
	      pm_param_int(out, "H_Q", p->H_Q) || pm_param_int(out, "N_KV", p->N_KV) ||
	      pm_param_int(out, "H_KV", p->H_KV) || pm_param_int(out, "d_h_qk", p->d_qk) ||
	      pm_param_int(out, "d_h_v", p->d_v);
	for (i = 0; !err && r->strides && i < 3; i++) {
		if (pm_tuple_repr(pm_arg_at(c, "Input Strides", r->q + i), buf, sizeof(buf)))
			return pm_fail(out, "%s: Input Strides[%d] is not a list of integers", r->cls,
				       r->q + i);
		err = pm_param_str(out, stride_names[i], buf);
	}
	if (!err && r->drop != D_ABSENT)
		err = pm_param_num(out, "dropout", p->dropout);
	if (!err && out->nparams < PM_MAX_PARAMS) {
		out->param_names[out->nparams] = "causal";
		out->params[out->nparams++] = p->causal_cell;
	} else {
		err = -ENOSPC;
	}
	if (!err)
		err = pm_param_bool(out, "flash_impl", r->flash);
	if (!err && r->dtype != DT_NONE) {
		const cJSON *t = pm_arg(c, "Input type"), *it;
		const char *items[2] = { NULL, NULL };
		int n = 0;

		if (r->dtype == DT_LIST) {	/* Evoformer: [types[0]] or [None] */
			if (p->dtype && pm_py_str_repr(p->dtype, buf + 1, sizeof(buf) - 2) == 0)
				buf[0] = '[', strcat(buf, "]");
			else
				strcpy(buf, "[None]");
		} else {
			cJSON_ArrayForEach(it, t) {
				if (n == 2)
					break;
				items[n++] = cJSON_IsString(it) ? it->valuestring : NULL;
			}
			if (pm_py_tuple_repr(items, n, buf, sizeof(buf)))
				return pm_fail(out, "%s: Input type does not fit", r->cls);
		}
		err = pm_param_str(out, "dtype_A_B", buf);
	}
	if (!err && r->layout == L_VARLEN)
		err = pm_param_int(out, "num_seqs_q", p->nseq_q) ||
		      pm_param_int(out, "num_seqs_kv", p->nseq_kv) ||
		      pm_param_num(out, "max_seqlen_q", p->max_q) ||
		      pm_param_num(out, "max_seqlen_kv", p->max_kv);
	return err ? pm_fail(out, "%s: too many parameters", r->cls) : 0;
}

/* The call as class @r reads it; @bwd: the backward row of a forward op
 * (SDPA.flops_bwd / bytes_bwd) instead of the class's own flops / bytes. */
static int sdpa_model(const struct sdpa_rule *r, const struct pm_call *c, struct pm_out *out, int bwd)
{
	struct sdpa p;
	const cJSON *t = pm_arg(c, "Input type");
	double f = 0, bpe;
	int err;

	memset(&p, 0, sizeof(p));
	if (!cJSON_IsArray(pm_arg(c, "Input Dims")))
		return pm_fail(out, "%s: no Input Dims", r->cls);
	if (r->layout != L_EVO && !cJSON_IsArray(pm_arg(c, "Concrete Inputs")) &&
	    r->drop != D_FA_BWD && r->causal != C_FALSE)
		return pm_fail(out, "%s: no Concrete Inputs", r->cls);
	if (r->dtype == DT_TUPLE && !cJSON_IsArray(t))
		return pm_fail(out, "%s: no Input type", r->cls);
	err = read_qkv(r, c, out, &p);
	if (!err)
		err = read_flags(r, c, out, &p);
	if (!err && r->layout == L_VARLEN)
		err = read_varlen(r, c, out, &p);
	if (err)
		return err;
	if (r->dtype != DT_NONE && cJSON_IsArray(t)) {
		const cJSON *d0 = cJSON_GetArrayItem(t, 0), *d1 = cJSON_GetArrayItem(t, 1);

		/* TraceLens looks the first up as a str; keep both printable */
		if ((d0 && !cJSON_IsString(d0) && !cJSON_IsNull(d0)) ||
		    (r->dtype == DT_TUPLE && d1 && !cJSON_IsString(d1) && !cJSON_IsNull(d1)))
			return pm_fail(out, "%s: Input type holds a non-string", r->cls);
		p.ndtype = cJSON_GetArraySize(t) < 2 ? cJSON_GetArraySize(t) : 2;
		p.dtype = cJSON_IsString(d0) ? d0->valuestring : NULL;
	}
	if (r->dtype == DT_TUPLE && !p.ndtype)	/* dtype_A_B[0] of () raises */
		return pm_fail(out, "%s: Input type is empty", r->cls);
	err = params(r, c, out, &p);
	if (err)
		return err;

	if (bwd || r->flops == F_BWD)
		err = flops_bwd(p.B, p.N_Q, p.H_Q, p.N_KV, p.H_KV, p.d_qk, p.d_v, p.causal, r->flash, &f);
	else if (r->flops == F_FWD)
		err = flops_fwd(p.B, p.N_Q, p.H_Q, p.N_KV, p.d_qk, p.d_v, p.causal, &f);
	else
		err = flops_varlen(r, &p, r->flash, &f);
	if (err)
		return pm_fail(out, "%s: no FLOPs (causal with N_Q != N_KV, or no KV heads)", r->cls);
	out->gflops = f / 1e9;

	bpe = 2;	/* TraceLens's SDPA default, whatever the dtype */
	if (!bwd && r->bytes == B_BWD_DTYPE) {
		bpe = pm_dtype_bpe(p.dtype);
		if (!bpe)
			return pm_fail(out, "%s: no bytes per element for %s", r->cls,
				       p.dtype ? p.dtype : "None");
	}
	out->bytes = (bwd || r->bytes != B_FWD ? elems_bwd(&p) : elems_fwd(&p)) * bpe;
	pm_compute_spec(out, "matrix", r->dtype == DT_NONE ? NULL : p.dtype);
	return 0;
}

/* Where each class reads its call: perf_model.py's get_param_details. */
static const struct sdpa_rule rules[] = {
#define R_FA 0
	{ "flash_attention", 0, L_BNHD, D_FLOAT, 3, C_EVAL, 5, 1, 1, DT_TUPLE, 0, 0, F_FWD, B_FWD },
#define R_FA_BWD 1
	{ "flash_attention_backward", 1, L_BNHD, D_FA_BWD, 8, C_EVAL_OR_TRUE, 10, 1, 1, DT_TUPLE, 0, 0,
	  F_BWD, B_BWD_DTYPE },
#define R_FA_VARLEN 2
	{ "flash_attention_varlen_forward", 0, L_VARLEN, D_FLOAT, 7, C_EVAL, 9, 1, 1, DT_TUPLE, 3, 5,
	  F_VARLEN_FWD, B_FWD },
#define R_FA_VARLEN_BWD 3
	{ "flash_attention_varlen_backward", 1, L_VARLEN, D_FLOAT, 13, C_EVAL, 15, 1, 1, DT_TUPLE, 9, 11,
	  F_VARLEN_BWD, B_BWD },
#define R_ATEN_CUDNN 4
	{ "aten__scaled_dot_product_cudnn_attention", 0, L_BHND, D_OPT, 5, C_STR, 6, 0, 0, DT_TUPLE, 0, 0,
	  F_FWD, B_FWD },
#define R_ATEN_EFF 5
	{ "aten__scaled_dot_product_efficient_attention", 0, L_BHND, D_OPT, 5, C_STR, 6, 0, 0, DT_TUPLE, 0,
	  0, F_FWD, B_FWD },
#define R_ATEN_FLASH 6
	{ "aten__scaled_dot_product_flash_attention", 0, L_BHND, D_OPT, 3, C_STR, 4, 1, 0, DT_TUPLE, 0, 0,
	  F_FWD, B_FWD },
#define R_AITER_FA 7
	{ "aiter__flash_attn_forward", 0, L_BNHD, D_OPT, 3, C_STR, 5, 1, 0, DT_NONE, 0, 0, F_FWD, B_FWD },
#define R_AITER_FA_BWD 8
	{ "aiter__flash_attn_backward", 0, L_BNHD, D_OPT, 10, C_STR, 12, 1, 0, DT_NONE, 0, 0, F_BWD, B_BWD },
#define R_FA3 9
	{ "flash_attn_v3_forward", 0, L_BNHD, D_ZERO, 0, C_STR, 24, 1, 0, DT_NONE, 0, 0, F_FWD, B_FWD },
#define R_FMHA_V3 10
	{ "aiter__fmha_v3_forward", 1, L_BNHD, D_OPT, 4, C_STR, 6, 1, 0, DT_NONE, 0, 0, F_FWD, B_FWD },
#define R_FMHA_V3_BWD 11
	{ "aiter__fmha_v3_backward", 1, L_BNHD, D_OPT, 7, C_STR, 9, 1, 0, DT_NONE, 0, 0, F_BWD, B_BWD },
#define R_MHA_FWD 12
	{ "aiter__mha_fwd", 0, L_BNHD, D_OPT, 3, C_STR, 5, 1, 0, DT_NONE, 0, 0, F_FWD, B_FWD },
#define R_FMHA_V3_FWD 13
	{ "aiter__fmha_v3_fwd", 0, L_BNHD, D_OPT, 3, C_STR, 5, 1, 0, DT_NONE, 0, 0, F_FWD, B_FWD },
#define R_MHA_BWD 14
	{ "aiter__mha_bwd", 1, L_BNHD, D_OPT, 6, C_STR, 8, 1, 0, DT_NONE, 0, 0, F_BWD, B_BWD },
#define R_EVO 15
	{ "evoformer_attention", 0, L_EVO, D_ABSENT, 0, C_FALSE, 0, 0, 0, DT_LIST, 0, 0, F_FWD, B_FWD },
};

#define SDPA_MODEL(fn, idx) \
	static int fn(const struct pm_call *c, struct pm_out *out) \
	{ \
		return sdpa_model(&rules[idx], c, out, 0); \
	}
SDPA_MODEL(m_fa, R_FA)
SDPA_MODEL(m_fa_bwd, R_FA_BWD)
SDPA_MODEL(m_fa_varlen, R_FA_VARLEN)
SDPA_MODEL(m_fa_varlen_bwd, R_FA_VARLEN_BWD)
SDPA_MODEL(m_aten_cudnn, R_ATEN_CUDNN)
SDPA_MODEL(m_aten_eff, R_ATEN_EFF)
SDPA_MODEL(m_aten_flash, R_ATEN_FLASH)
SDPA_MODEL(m_aiter_fa, R_AITER_FA)
SDPA_MODEL(m_aiter_fa_bwd, R_AITER_FA_BWD)
SDPA_MODEL(m_fa3, R_FA3)
SDPA_MODEL(m_fmha_v3, R_FMHA_V3)
SDPA_MODEL(m_fmha_v3_bwd, R_FMHA_V3_BWD)
SDPA_MODEL(m_mha_fwd, R_MHA_FWD)
SDPA_MODEL(m_fmha_v3_fwd, R_FMHA_V3_FWD)
SDPA_MODEL(m_mha_bwd, R_MHA_BWD)
SDPA_MODEL(m_evo, R_EVO)

int pm_sdpa_bwd(const struct pm_class *cls, const struct pm_call *c, struct pm_out *out)
{
	size_t i;

	for (i = 0; cls && i < TL_ARRAY_SIZE(rules); i++)
		if (!strcmp(cls->name, rules[i].cls))
			return sdpa_model(&rules[i], c, out, 1);
	return -ENOENT;
}

#define OPS(name, ...) static const char *const name[] = { __VA_ARGS__, NULL }
OPS(fa_ops, "FlashAttnFunc", "flash_attn::_flash_attn_forward");
OPS(fa_bwd_ops, "flash_attn::_flash_attn_backward");
OPS(fa_varlen_ops, "flash_attn::_flash_attn_varlen_forward");
OPS(fa_varlen_bwd_ops, "flash_attn::_flash_attn_varlen_backward");
OPS(aten_cudnn_ops, "aten::_scaled_dot_product_cudnn_attention");
OPS(aten_eff_ops, "aten::_scaled_dot_product_efficient_attention");
OPS(aten_flash_ops, "aten::_scaled_dot_product_flash_attention");
OPS(aiter_fa_ops, "aiter::_flash_attn_forward");
OPS(aiter_fa_bwd_ops, "aiter::_flash_attn_backward");
OPS(fmha_v3_ops, "aiter::wrapper_fmha_v3_fwd");
OPS(fmha_v3_bwd_ops, "aiter::wrapper_fmha_v3_bwd");
OPS(mha_fwd_ops, "aiter::mha_fwd");
OPS(fmha_v3_fwd_ops, "aiter::fmha_v3_fwd");
OPS(mha_bwd_ops, "aiter::mha_bwd");
OPS(fa3_ops, "flash_attn_3::fwd");
OPS(evo_ops, "EvoformerAttention");
OPS(ia_base_ops, "vllm::unified_attention_with_output", "aiter::mha_varlen_fwd",
    "pseudo_mla_decode_fwd");
OPS(ia_dv_ops, "aiter::fmha_v3_varlen_fwd", "aiter::mha_batch_prefill", "pseudo_mla_prefill_fwd");
OPS(ia_ragged_ops, "sglang_profiler::attention_paged_attention_ragged");
OPS(ia_tilelang_ops, "sglang_profiler::tilelang_kernel_tilelang_sparse_fwd");
OPS(ia_gluon_ops, "aiter::pa_decode_gluon");
OPS(ia_sparse_prefill_ops, "aiter::pa_sparse_prefill_opus_fwd");
OPS(ia_gdn_ops, "vllm::gdn_attention_core", "aiter::linear_attention_with_output_base");
OPS(store_cache_ops, "sglang::store_cache");

/* Sheets follow TraceLens's report: every SDPA-family op goes through its
 * forward table (build_df_perf_metrics with bwd=False), where the backward
 * classes' flops() already is the backward count, and only
 * flash_attn::_flash_attn_varlen_backward is moved to SDPA_bwd
 * (generate_perf_report_pytorch). Categories are the classes' own. The
 * InferenceAttention category has no direction, and its sheet is
 * "<category>_fwd". vllm::unified_attention_with_output maps to the
 * extension class, which replaces perf_model.py's own in TraceLens's map. */
const struct pm_class pm_sdpa_classes[] = {
	{ "flash_attention", "SDPA_fwd", "SDPA_fwd", fa_ops, m_fa },
	{ "flash_attention_backward", "SDPA_fwd", "SDPA_bwd", fa_bwd_ops, m_fa_bwd },
	{ "flash_attention_varlen_forward", "SDPA_fwd", "SDPA_fwd", fa_varlen_ops, m_fa_varlen },
	{ "flash_attention_varlen_backward", "SDPA_bwd", "SDPA_bwd", fa_varlen_bwd_ops, m_fa_varlen_bwd },
	{ "aten__scaled_dot_product_cudnn_attention", "SDPA_fwd", "SDPA_fwd", aten_cudnn_ops, m_aten_cudnn },
	{ "aten__scaled_dot_product_efficient_attention", "SDPA_fwd", "SDPA_fwd", aten_eff_ops, m_aten_eff },
	{ "aten__scaled_dot_product_flash_attention", "SDPA_fwd", "SDPA_fwd", aten_flash_ops, m_aten_flash },
	{ "aiter__flash_attn_forward", "SDPA_fwd", "SDPA_fwd", aiter_fa_ops, m_aiter_fa },
	{ "aiter__flash_attn_backward", "SDPA_fwd", "SDPA_bwd", aiter_fa_bwd_ops, m_aiter_fa_bwd },
	{ "aiter__fmha_v3_forward", "SDPA_fwd", "SDPA_fwd", fmha_v3_ops, m_fmha_v3 },
	{ "aiter__fmha_v3_backward", "SDPA_fwd", "SDPA_bwd", fmha_v3_bwd_ops, m_fmha_v3_bwd },
	{ "aiter__mha_fwd", "SDPA_fwd", "SDPA_fwd", mha_fwd_ops, m_mha_fwd },
	{ "aiter__fmha_v3_fwd", "SDPA_fwd", "SDPA_fwd", fmha_v3_fwd_ops, m_fmha_v3_fwd },
	{ "aiter__mha_bwd", "SDPA_fwd", "SDPA_bwd", mha_bwd_ops, m_mha_bwd },
	{ "flash_attn_v3_forward", "SDPA_fwd", "SDPA_fwd", fa3_ops, m_fa3 },
	{ "evoformer_attention", "SDPA_fwd", "SDPA_fwd", evo_ops, m_evo },
	{ "InferenceAttention", "InferenceAttention_fwd", "InferenceAttention", ia_base_ops, pm_ia_base },
	{ "aiter_mha_batch_prefill", "InferenceAttention_fwd", "InferenceAttention", ia_dv_ops,
	  pm_ia_dv_from_v },
	{ "aiter_paged_attention_ragged", "InferenceAttention_fwd", "InferenceAttention", ia_ragged_ops,
	  pm_ia_paged_ragged },
	{ "mla_tilelang_sparse_fwd", "InferenceAttention_fwd", "InferenceAttention", ia_tilelang_ops,
	  pm_ia_tilelang_sparse },
	{ "pa_decode_gluon", "InferenceAttention_fwd", "InferenceAttention", ia_gluon_ops,
	  pm_ia_pa_decode_gluon },
	{ "pa_sparse_prefill_opus_fwd", "InferenceAttention_fwd", "InferenceAttention",
	  ia_sparse_prefill_ops, pm_ia_sparse_prefill },
	{ "gdn_attention_core", "InferenceAttention_fwd", "InferenceAttention", ia_gdn_ops, pm_ia_gdn },
	{ "sglang_store_cache", "InferenceAttention_fwd", "InferenceAttention", store_cache_ops,
	  pm_store_cache },
	{ 0 },
};
