/* SPDX-License-Identifier: MIT */
/* vLLM / SGLang iteration annotations, which say how many prefill and decode
 * sequences an iteration ran and how many tokens each side had. Replay of
 * attention ops needs them (TraceLens attaches them to paged_attention ops as
 * "batch_context"). Three spellings exist in the wild:
 *
 *   execute_context_2(640)_generation_30(30)              n(tokens)
 *   execute_context_1(888_788544)_generation_0(0)         n(tokens_sumsquares)
 *   execute_8192_context_9(sq8155sk8430sqsq..sqsk..)_generation_37(sq37sk34489..)
 *                                                         n(sq<tokens>sk<kv tokens>...)
 *
 * The annotations are found once per trace and kept sorted by start time. */
#include <stdio.h>

#include "analysis/analysis_internal.h"
#include "trace/trace_internal.h"

#include <tlreplay/steps.h>

struct tl_batch_ann {
	double ts, end;
	long long n_prefill, prefill_tokens, prefill_kv, n_decode, decode_tokens, decode_kv;
};

static bool parse_ll(const char **p, long long *v)
{
	char *end;

	if (**p < '0' || **p > '9')
		return false;
	*v = strtoll(*p, &end, 10);
	*p = end;
	return true;
}

/* "(640)", "(888_788544)" or "(sq8155sk8430...)": tokens and kv tokens (-1 if absent). */
static bool parse_side(const char **p, long long *tokens, long long *kv)
{
	const char *s = *p;

	*kv = -1;
	if (*s++ != '(')
		return false;
	if (!strncmp(s, "sq", 2)) {
		s += 2;
		if (!parse_ll(&s, tokens) || strncmp(s, "sk", 2))
			return false;
		s += 2;
		if (!parse_ll(&s, kv))
			return false;
	} else {
		if (!parse_ll(&s, tokens))
			return false;
		/* "(888_788544)": the second number is the sum of squared query
		 * lengths (888^2), not a KV length; ignored */
	}
	s = strchr(s, ')');
	if (!s)
		return false;
	*p = s + 1;
	return true;
}

static bool parse_name(const char *name, struct tl_batch_ann *a)
{
	const char *p;

	if (strncmp(name, "execute_", 8))
		return false;
	p = strstr(name, "context_");
	if (!p)
		return false;
	p += 8;
	if (!parse_ll(&p, &a->n_prefill) || !parse_side(&p, &a->prefill_tokens, &a->prefill_kv))
		return false;
	if (strncmp(p, "_generation_", 12))
		return false;
	p += 12;
	return parse_ll(&p, &a->n_decode) && parse_side(&p, &a->decode_tokens, &a->decode_kv);
}

static int cmp_ann(const void *x, const void *y)
{
	const struct tl_batch_ann *a = x, *b = y;

	return tl_cmp_double(a->ts, b->ts);
}

static int build(struct tl_trace *tr)
{
	TL_VEC(struct tl_batch_ann) v = { 0 };
	size_t i;

	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		struct tl_batch_ann a;

		if (e->kind != TL_KIND_USER_ANNOTATION ||
		    (e->flags & (EV_HAS_TS | EV_HAS_DUR)) != (EV_HAS_TS | EV_HAS_DUR))
			continue;
		if (!parse_name(tl_ev_name(tr, e), &a))
			continue;
		a.ts = e->ts;
		a.end = tl_ev_end(e);
		if (tl_vec_push(&v, a)) {
			tl_vec_free(&v);
			return tl_err(-ENOMEM, "out of memory reading iteration annotations");
		}
	}
	if (v.n)	/* tl_qsort(NULL, 0, ...) is undefined */
		tl_qsort(v.v, v.n, sizeof(*v.v), cmp_ann);
	tr->batch_ann = v.v;
	tr->nbatch_ann = v.n;
	tr->batch_ann_built = true;
	return 0;
}

int tl_batch_context(struct tl_trace *tr, uint64_t uid, cJSON **out)
{
	const struct tl_ev *e = &tr->ev[uid];
	const struct tl_batch_ann *a = NULL;
	size_t lo = 0, hi;
	cJSON *o;
	int err;

	*out = NULL;
	if (!tr->batch_ann_built && (err = build(tr)))
		return err;
	/* the first annotation (by start) with ts <= event ts <= end, as TraceLens */
	hi = tr->nbatch_ann;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (tr->batch_ann[mid].ts <= e->ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (hi = 0; hi < lo; hi++)
		if (tr->batch_ann[hi].end >= e->ts) {
			a = &tr->batch_ann[hi];
			break;
		}
	if (!a)
		return 0;
	o = cJSON_CreateObject();
	if (!o || !cJSON_AddNumberToObject(o, "n_prefill", (double)a->n_prefill) ||
	    !cJSON_AddNumberToObject(o, "prefill_tokens", (double)a->prefill_tokens) ||
	    !cJSON_AddNumberToObject(o, "n_decode", (double)a->n_decode) ||
	    !cJSON_AddNumberToObject(o, "decode_tokens", (double)a->decode_tokens) ||
	    (a->prefill_kv >= 0 && !cJSON_AddNumberToObject(o, "prefill_kv_tokens", (double)a->prefill_kv)) ||
	    (a->decode_kv >= 0 && !cJSON_AddNumberToObject(o, "decode_kv_tokens", (double)a->decode_kv))) {
		cJSON_Delete(o);
		return tl_err(-ENOMEM, "out of memory");
	}
	*out = o;
	return 0;
}

/* "bs=15" or "toks=15360" inside SGLang's step[...]: its number, else -1. */
static long long bracket_number(const char *name, const char *key)
{
	const char *p = strstr(name, key), *end = strchr(name, ']');
	long long v;

	if (!p || (end && p > end))
		return -1;
	p += strlen(key);
	return parse_ll(&p, &v) ? v : -1;
}

int tl_serving_phase(const char *name, long long *batch, long long *tokens)
{
	static const struct {
		const char *prefix;
		int phase;
	} sglang[] = {
		{ "step[EXTEND", TL_PHASE_PREFILL }, { "step[DECODE", TL_PHASE_DECODE },
		{ "step[MIXED", TL_PHASE_MIXED },    { "prefill[", TL_PHASE_PREFILL },
		{ "decode[", TL_PHASE_DECODE },
	};
	struct tl_batch_ann a;
	size_t i;

	*batch = *tokens = -1;
	for (i = 0; i < TL_ARRAY_SIZE(sglang); i++) {
		if (strncmp(name, sglang[i].prefix, strlen(sglang[i].prefix)))
			continue;
		*batch = bracket_number(name, "bs=");
		*tokens = bracket_number(name, "toks=");
		/* a decode step runs one token per request */
		if (*tokens < 0 && sglang[i].phase == TL_PHASE_DECODE)
			*tokens = *batch;
		return sglang[i].phase;
	}
	if (!parse_name(name, &a) || (!a.n_prefill && !a.n_decode))
		return TL_PHASE_NONE;
	*batch = a.n_prefill + a.n_decode;
	if (a.prefill_tokens >= 0 && a.decode_tokens >= 0)
		*tokens = a.prefill_tokens + a.decode_tokens;
	return a.n_prefill && a.n_decode ? TL_PHASE_MIXED : a.n_prefill ? TL_PHASE_PREFILL : TL_PHASE_DECODE;
}
