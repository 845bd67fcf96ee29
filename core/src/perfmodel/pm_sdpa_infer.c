/* SPDX-License-Identifier: MIT */
/* TraceLens's inference attention models (class InferenceAttention and its
 * subclasses in PerfModel/extensions/attention_perf_model_extensions.py) and
 * the KV-cache write that shares their sheet (sglang_store_cache in
 * perf_model_extensions.py). Most read the context / generation sq-sk
 * aggregates from the iteration annotation around the call; where TraceLens
 * cannot read a call it reports no FLOPs and its report drops the row, so
 * these return -EINVAL. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfmodel/perfmodel_internal.h"

struct ia {
	long long N_Q, H_Q, N_KV, H_KV, d_qk, d_v;
	long long H_V, H_K;		/* reported; equal to H_KV except in GDN */
	struct pm_chunk st;
	const char *dtype_q, *dtype_kv;	/* NULL: none */
	int has_dtype_kv;		/* the class reports dtype_KV */
	long long window;		/* sliding window; 0: none */
	int has_window;
};

static const cJSON *shape_at(const struct pm_call *c, int pos)
{
	const cJSON *s = pm_arg_at(c, "Input Dims", pos);

	return cJSON_IsArray(s) ? s : NULL;
}

/* shape[i], negative indices from the end as in Python */
static int dim(const cJSON *shape, int i, long long *v)
{
	int n = shape ? cJSON_GetArraySize(shape) : 0;
	const cJSON *d;
	int64_t x;

	if (i < 0)
		i += n;
	if (!shape || i < 0 || i >= n)
		return -EINVAL;
	d = cJSON_GetArrayItem(shape, i);
	if (!tl_json_i64(d, INT64_MIN, INT64_MAX, &x))
		return -EINVAL;
	*v = x;
	return 0;
}

static int ndims(const cJSON *shape)
{
	return shape ? cJSON_GetArraySize(shape) : -1;
}

/* Input type[pos]: 0 with *s set (NULL for null, None to TraceLens),
 * -EINVAL when out of range or neither a string nor null (TraceLens's dtype
 * lookups would raise on it) */
static int type_at(const struct pm_call *c, int pos, const char **s)
{
	const cJSON *t = pm_arg(c, "Input type"), *it;

	if (!cJSON_IsArray(t) || pos >= cJSON_GetArraySize(t))
		return -EINVAL;
	it = cJSON_GetArrayItem(t, pos);
	if (!cJSON_IsString(it) && !cJSON_IsNull(it))
		return -EINVAL;
	*s = cJSON_IsString(it) ? it->valuestring : NULL;
	return 0;
}

static int ntypes(const struct pm_call *c)
{
	const cJSON *t = pm_arg(c, "Input type");

	return cJSON_IsArray(t) ? cJSON_GetArraySize(t) : 0;
}

/* Python's // on integers */
static long long floordiv(long long a, long long b)
{
	long long q = a / b;

	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* TraceLens's InferenceAttention falls back to no FLOPs (the row dropped)
 * when the annotation around the call has no sq/sk aggregates */
static int no_stats(const struct pm_call *c, struct pm_out *out)
{
	return pm_fail(out, "%s: no iteration annotation with sq/sk aggregates around the call", c->name);
}

static int read_stats(const struct pm_call *c, struct pm_out *out, struct ia *p)
{
	memset(p, 0, sizeof(*p));
	return pm_chunk_stats(c->annotation, &p->st) ? no_stats(c, out) : 0;
}

static int emit(struct pm_out *out, const struct ia *p, const char *extra_name, long long extra)
{
	static const char *const stat_names[8] = { "c_sq", "c_sk", "c_sqsq", "c_sqsk",
						   "g_sq", "g_sk", "g_sqsq", "g_sqsk" };
	const long long stats[8] = { p->st.c_sq, p->st.c_sk, p->st.c_sqsq, p->st.c_sqsk,
				     p->st.g_sq, p->st.g_sk, p->st.g_sqsq, p->st.g_sqsk };
	int i, err;

	err = pm_param_int(out, "B", 1) || pm_param_int(out, "N_Q", p->N_Q) ||
	      pm_param_int(out, "H_Q", p->H_Q) || pm_param_int(out, "H_V", p->H_V) ||
	      pm_param_int(out, "H_K", p->H_K) || pm_param_int(out, "N_KV", p->N_KV) ||
	      pm_param_int(out, "H_KV", p->H_KV) || pm_param_int(out, "d_h_qk", p->d_qk) ||
	      pm_param_int(out, "d_h_v", p->d_v) || pm_param_num(out, "dropout", 0.0) ||
	      pm_param_bool(out, "causal", 0) || pm_param_bool(out, "flash_impl", 1);
	for (i = 0; !err && !extra_name && i < 8; i++)
		err = pm_param_int(out, stat_names[i], stats[i]);
	if (!err && extra_name)
		err = pm_param_int(out, extra_name, extra);
	if (!err)
		err = p->dtype_q ? pm_param_str(out, "dtype_Q", p->dtype_q) : pm_param_str(out, "dtype_Q", "None");
	if (!err && p->has_dtype_kv)
		err = p->dtype_kv ? pm_param_str(out, "dtype_KV", p->dtype_kv) :
				    pm_param_str(out, "dtype_KV", "None");
	if (!err && p->has_window)
		err = pm_param_int(out, "sliding_window", p->window);
	return err ? pm_fail(out, "too many parameters") : 0;
}

/* InferenceAttention._cap_gen_kv: decode tokens attend at most the window */
static long long cap_gen(const struct ia *p, long long v)
{
	if (p->has_window && p->window > 0 && p->st.g_sq)
		return v < p->st.g_sq * p->window ? v : p->st.g_sq * p->window;
	return v;
}

/* InferenceAttention.flops / bytes (flops_func, bytes_func) */
static int finish(const struct pm_call *c, struct pm_out *out, const struct ia *p)
{
	long long gsk = cap_gen(p, p->st.g_sk), gsqsk = cap_gen(p, p->st.g_sqsk);
	long long ctx_q, ctx_kv, gen_q, gen_kv;
	double f;
	int bpe, bpe_kv;

	if (p->st.c_sq == 0 && p->st.g_sq == 0)
		return pm_fail(out, "%s: neither context nor generation tokens (TraceLens has no decode "
			       "roofline without them)", c->name);
	f = (double)(p->H_Q * (2 * p->st.c_sqsk * p->d_qk) - p->H_Q * (p->st.c_sqsq * p->d_qk)) +
	    (double)(p->H_Q * (2 * p->st.c_sqsk * p->d_v) - p->H_Q * (p->st.c_sqsq * p->d_v)) +
	    (double)(p->H_Q * (2 * gsqsk * p->d_qk)) + (double)(p->H_Q * (2 * gsqsk * p->d_v));
	out->gflops = f / 1e9;
	bpe = pm_dtype_bpe(p->dtype_q);
	if (!bpe)
		bpe = 2;
	bpe_kv = p->dtype_kv && *p->dtype_kv ? pm_dtype_bpe(p->dtype_kv) : 0;
	if (!bpe_kv)
		bpe_kv = bpe;
	ctx_q = p->st.c_sq * p->H_Q * p->d_qk + p->st.c_sq * p->H_Q * p->d_v +
		p->st.c_sq * p->H_KV * p->d_qk + p->st.c_sq * p->H_KV * p->d_v;
	ctx_kv = (p->st.c_sk - p->st.c_sq) * p->H_KV * p->d_qk + (p->st.c_sk - p->st.c_sq) * p->H_KV * p->d_v;
	gen_q = p->st.g_sq * p->H_Q * p->d_qk + p->st.g_sq * p->H_Q * p->d_v +
		p->st.g_sq * p->H_KV * p->d_qk + p->st.g_sq * p->H_KV * p->d_v;
	gen_kv = (gsk - p->st.g_sq) * p->H_KV * p->d_qk + (gsk - p->st.g_sq) * p->H_KV * p->d_v;
	out->bytes = (double)((ctx_q + gen_q) * bpe + (ctx_kv + gen_kv) * bpe_kv);
	pm_compute_spec(out, "matrix", p->dtype_q);
	return 0;
}

/* InferenceAttention.get_param_details: q (N_Q, H_Q, d) at Input Dims[0], k's
 * last three dims (N_KV, H_KV, d_v) at [1], dtype_Q / dtype_KV from Input
 * type[0] / [1] (the KV-cache dtype some pseudo ops propagate is not in
 * traces). */
static int read_base(const struct pm_call *c, struct pm_out *out, struct ia *p)
{
	const cJSON *q = shape_at(c, 0), *k = shape_at(c, 1);

	if (read_stats(c, out, p))
		return -EINVAL;
	if (ndims(q) != 3 || ndims(k) < 3 || dim(q, 0, &p->N_Q) || dim(q, 1, &p->H_Q) ||
	    dim(q, 2, &p->d_qk) || dim(k, -3, &p->N_KV) || dim(k, -2, &p->H_KV) || dim(k, -1, &p->d_v))
		return pm_fail(out, "%s: Input Dims[0] / [1] are not q (N, H, d) and k (.., N, H, d)",
			       c->name);
	if (type_at(c, 0, &p->dtype_q))
		return pm_fail(out, "%s: no Input type", c->name);
	if (ntypes(c) > 1)
		type_at(c, 1, &p->dtype_kv);
	else
		p->dtype_kv = p->dtype_q;
	p->has_dtype_kv = 1;
	p->H_V = p->H_K = p->H_KV;
	return 0;
}

int pm_ia_base(const struct pm_call *c, struct pm_out *out)
{
	struct ia p;
	int err = read_base(c, out, &p);

	if (!err)
		err = emit(out, &p, NULL, 0);
	return err ? err : finish(c, out, &p);
}

/* aiter_fmha_v3_varlen_fwd, aiter_mha_batch_prefill, pseudo_mla_prefill_fwd:
 * d_h_v from v's last dim (Input Dims[2]) */
int pm_ia_dv_from_v(const struct pm_call *c, struct pm_out *out)
{
	const cJSON *v = shape_at(c, 2);
	struct ia p;
	int err = read_base(c, out, &p);

	if (!err && ndims(v) >= 1 && dim(v, -1, &p.d_v))
		err = pm_fail(out, "%s: Input Dims[2] ends with a non-integer", c->name);
	if (!err)
		err = emit(out, &p, NULL, 0);
	return err ? err : finish(c, out, &p);
}

/* mla_tilelang_sparse_fwd: TraceLens looks for "Concrete Inputs" on the event
 * rather than in its args, never finds it and so always takes d_h_v = 512 */
int pm_ia_tilelang_sparse(const struct pm_call *c, struct pm_out *out)
{
	struct ia p;
	int err = read_base(c, out, &p);

	p.d_v = 512;
	if (!err)
		err = emit(out, &p, NULL, 0);
	return err ? err : finish(c, out, &p);
}

/* aiter_paged_attention_ragged: q at Input Dims[2], the paged K and V caches
 * [num_pages, page_size, H_KV, d] at [3] and [4], N_KV = c_sk + g_sk, dtype_Q
 * from Input type[2]; no dtype_KV */
int pm_ia_paged_ragged(const struct pm_call *c, struct pm_out *out)
{
	const cJSON *q = shape_at(c, 2), *k = shape_at(c, 3), *v = shape_at(c, 4);
	struct ia p;
	int err;

	if (read_stats(c, out, &p))
		return -EINVAL;
	if (ndims(q) != 3 || dim(q, 0, &p.N_Q) || dim(q, 1, &p.H_Q) || dim(q, 2, &p.d_qk) ||
	    dim(k, -2, &p.H_KV) || dim(v, -1, &p.d_v))
		return pm_fail(out, "%s: Input Dims[2..4] are not q, k cache and v cache", c->name);
	if (type_at(c, 2, &p.dtype_q))
		return pm_fail(out, "%s: no Input type[2]", c->name);
	p.N_KV = p.st.c_sk + p.st.g_sk;
	p.H_V = p.H_K = p.H_KV;
	err = emit(out, &p, NULL, 0);
	return err ? err : finish(c, out, &p);
}

/* q (N_Q, H_Q, d, ...) at Input Dims[0] with d_h_v = d_h_qk, dtype_Q from
 * Input type[0] and dtype_KV from [@kv] (dtype_Q when absent):
 * pa_decode_gluon and pa_sparse_prefill_opus_fwd */
static int read_q0(const struct pm_call *c, struct pm_out *out, struct ia *p, int kv)
{
	const cJSON *q = shape_at(c, 0);

	if (dim(q, 0, &p->N_Q) || dim(q, 1, &p->H_Q) || dim(q, 2, &p->d_qk))
		return pm_fail(out, "%s: Input Dims[0] is not q", c->name);
	if (type_at(c, 0, &p->dtype_q))
		return pm_fail(out, "%s: no Input type", c->name);
	if (type_at(c, kv, &p->dtype_kv))
		p->dtype_kv = p->dtype_q;
	p->has_dtype_kv = 1;
	p->d_v = p->d_qk;
	return 0;
}

/* pa_decode_gluon: decode only (the context aggregates zeroed), q at Input
 * Dims[0], H_KV from the K cache ([2][1]), dtype_KV from Input type[2], and
 * the sliding window from Concrete Inputs[19] (0 when it is not an int) */
int pm_ia_pa_decode_gluon(const struct pm_call *c, struct pm_out *out)
{
	const cJSON *w = pm_arg_at(c, "Concrete Inputs", 19);
	struct ia p;
	int err;

	if (read_stats(c, out, &p))
		return -EINVAL;
	if (read_q0(c, out, &p, 2))
		return -EINVAL;
	if (dim(shape_at(c, 2), 1, &p.H_KV))
		return pm_fail(out, "%s: Input Dims[2] is not the K cache", c->name);
	p.st.c_sq = p.st.c_sk = p.st.c_sqsq = p.st.c_sqsk = 0;
	p.N_KV = p.st.g_sk;
	p.H_V = p.H_K = p.H_KV;
	p.has_window = 1;
	if (cJSON_IsString(w)) {	/* Python's int(): blanks around, a sign, digits */
		char *end;
		long long v = strtoll(w->valuestring, &end, 10);

		while (*end == ' ')
			end++;
		if (end != w->valuestring && !*end)
			p.window = v;
	}
	err = emit(out, &p, NULL, 0);
	return err ? err : finish(c, out, &p);
}

/* pa_sparse_prefill_opus_fwd: no annotation; the (query, KV slot) pairs are
 * the lengths of the prefix and extend index lists (Input Dims[2], [5]) */
int pm_ia_sparse_prefill(const struct pm_call *c, struct pm_out *out)
{
	long long a, b;
	struct ia p;
	int bpe, bpe_kv, err;

	memset(&p, 0, sizeof(p));
	if (read_q0(c, out, &p, 1))
		return -EINVAL;
	if (dim(shape_at(c, 2), 0, &a) || dim(shape_at(c, 5), 0, &b))
		return pm_fail(out, "%s: Input Dims[2], [5] are not the index lists", c->name);
	p.N_KV = a + b;
	p.H_KV = p.H_V = p.H_K = 1;	/* one MLA-absorbed latent KV head */
	err = emit(out, &p, "prefill_pairs", a + b);
	if (err)
		return err;
	out->gflops = (double)(p.N_KV * p.H_Q * 2 * (p.d_qk + p.d_v)) / 1e9;
	bpe = pm_dtype_bpe(p.dtype_q);
	if (!bpe)
		bpe = 2;
	bpe_kv = p.dtype_kv && *p.dtype_kv ? pm_dtype_bpe(p.dtype_kv) : 0;
	if (!bpe_kv)
		bpe_kv = bpe;
	out->bytes = (double)(2 * p.N_Q * p.H_Q * p.d_qk * bpe + p.N_KV * p.d_v * bpe_kv);
	/* bf16 when the Q dtype is missing: the kernel runs bf16 MFMA */
	pm_compute_spec(out, "matrix", p.dtype_q && *p.dtype_q ? p.dtype_q : "c10::bfloat16");
	return 0;
}

/* gdn_attention_core (Gated Delta Network): a recurrent state per value
 * head, 7 * d_v * d_k FLOPs per token and head; heads and head dims come from
 * the packed qkv, b and output shapes */
int pm_ia_gdn(const struct pm_call *c, struct pm_out *out)
{
	static const char *const names[] = { "B", "N_Q", "H_Q", "N_KV", "H_KV", "H_V", "H_K",
					     "d_h_qk", "d_h_v", "c_sq", "c_sk", "c_sqsq", "c_sqsk",
					     "g_sq", "g_sk", "g_sqsq", "g_sqsk" };
	long long D, H_V, d_v, H_K, d_k, tokens;
	struct pm_chunk st;
	const char *dtype;
	size_t i;
	int err = 0;

	if (pm_chunk_stats(c->annotation, &st))
		return no_stats(c, out);
	if (dim(shape_at(c, 0), 1, &D) || dim(shape_at(c, 1), 1, &H_V) || dim(shape_at(c, 3), 2, &d_v))
		return pm_fail(out, "%s: Input Dims[0], [1], [3] are not qkv, b and the output", c->name);
	H_K = floordiv(H_V, 2);
	if (!H_K)
		return pm_fail(out, "%s: fewer than 2 value heads", c->name);
	d_k = floordiv(floordiv(D - H_V * d_v, 2), H_K);
	if (type_at(c, 0, &dtype))
		return pm_fail(out, "%s: no Input type", c->name);
	{
		const long long v[] = { 1, st.c_sq + st.g_sq, H_K, 0, H_K, H_V, H_K, d_k, d_v,
					st.c_sq, st.c_sq, 0, 0, st.g_sq, st.g_sq, 0, 0 };

		for (i = 0; !err && i < TL_ARRAY_SIZE(names); i++)
			err = pm_param_int(out, names[i], v[i]);
	}
	if (!err)
		err = pm_param_str(out, "dtype_Q", dtype ? dtype : "None");
	if (err)
		return pm_fail(out, "too many parameters");
	tokens = st.c_sq + st.g_sq;
	if (!tokens)
		return pm_fail(out, "%s: no tokens in the annotation", c->name);
	out->gflops = (double)(tokens * H_V * 7 * d_v * d_k) / 1e9;
	out->bytes = (double)(tokens * H_V * (d_k + 2 * d_v + 2) * 2);
	pm_compute_spec(out, "matrix", dtype);
	return 0;
}

/* sglang_store_cache: scatter of the k and v rows into the paged cache, no
 * math; 2 reads and 2 writes of k's elements */
int pm_store_cache(const struct pm_call *c, struct pm_out *out)
{
	const cJSON *k = shape_at(c, 0), *it;
	const char *dtype = NULL;
	char buf[256];
	double n = 1;
	int bpe;

	if (!k || pm_tuple_repr(k, buf, sizeof(buf)))
		return pm_fail(out, "%s: Input Dims[0] is not a shape", c->name);
	if (type_at(c, 0, &dtype))
		return pm_fail(out, "%s: no Input type", c->name);
	cJSON_ArrayForEach(it, k)
		n *= it->valuedouble;
	if (pm_param_str(out, "op_shape", buf) || pm_param_int(out, "nelems", (long long)n) ||
	    pm_param_str(out, "dtype", dtype ? dtype : "None"))
		return pm_fail(out, "too many parameters");
	bpe = dtype && *dtype ? pm_dtype_bpe(dtype) : 0;
	out->gflops = 0.0;
	out->bytes = 4 * n * (bpe ? bpe : 2);
	pm_compute_spec(out, "vector", dtype);
	return 0;
}
