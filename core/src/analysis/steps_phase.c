/* SPDX-License-Identifier: MIT */
/* Phases of iterations that no annotation labels (steps.h, issue 28.2):
 * read from the attention the iteration ran.
 *
 * - SDPA (aten::scaled_dot_product_attention and its flash, efficient and
 *   cuDNN forms): q is [B, H, Lq, D], k [B, H, Lk, D]. Lq == 1 with Lk > 1
 *   is a decode step over a KV cache (B requests, B tokens); Lq > 1 a
 *   prefill (B requests, B * Lq tokens).
 * - Variable-length attention (names with "varlen", aiter's
 *   mha_batch_prefill): q is [T, H, D] over every request's tokens and
 *   cu_seqlens_q, the first 1-D input, holds B + 1 offsets. T == B is one
 *   token per request, decode; T > B a prefill.
 * - Paged attention (vLLM's paged_attention ops and kernels, FlashInfer's
 *   BatchDecode kernels) runs decode only; an op's q [B, H, D] gives B.
 *   Prefill kernels are no evidence: FlashInfer runs its prefill kernels
 *   for grouped-query decode too.
 *
 * An iteration with prefill and decode evidence is mixed (serving backends
 * run the two halves of a mixed batch through different kernels). Its batch
 * size and tokens are the first call's of each kind (every layer repeats
 * them), summed. Shapes alone cannot tell a training step's forward from a
 * prefill, so phases are given only in a trace that serves: one with
 * variable-length or paged attention, or a decode-shaped SDPA, somewhere;
 * and never to an iteration that runs backward. */
#include <stdio.h>

#include "analysis/analysis_internal.h"
#include "trace/trace_internal.h"

#include <tlreplay/steps.h>

#include <cjson/cJSON.h>

enum att_kind {
	ATT_NONE,
	ATT_SDPA,   /* [B, H, L, D] q and k */
	ATT_VARLEN, /* [T, H, D] q and cu_seqlens */
	ATT_PAGED,  /* decode only */
};

struct evidence {
	bool prefill, decode, backward;
	long long pb, pt, db, dt; /* first prefill's and decode's batch size and tokens, -1 unknown */
};

static enum att_kind op_kind(const char *name)
{
	static const char *const sdpa[] = { "aten::scaled_dot_product_attention",
					    "aten::_scaled_dot_product_flash_attention",
					    "aten::_scaled_dot_product_efficient_attention",
					    "aten::_scaled_dot_product_cudnn_attention",
					    "aten::_scaled_dot_product_flash_attention_for_cpu" };
	size_t i;

	for (i = 0; i < TL_ARRAY_SIZE(sdpa); i++)
		if (!strcmp(name, sdpa[i]))
			return ATT_SDPA;
	if (strstr(name, "varlen") || strstr(name, "mha_batch_prefill"))
		return ATT_VARLEN;
	if (strstr(name, "paged_attention"))
		return ATT_PAGED;
	return ATT_NONE;
}

static bool decode_kernel(const char *name)
{
	return strstr(name, "paged_attention") || strstr(name, "BatchDecodeWithPagedKVCache");
}

static bool is_backward(const char *name)
{
	size_t n = strlen(name);

	return !strncmp(name, "autograd::engine::evaluate_function", 35) ||
	       (n > 9 && !strcmp(name + n - 9, "Backward0"));
}

/* Input Dims[@k] as up to @max dims into @d: its rank, or -1. */
static int dims_of(const cJSON *dims, int k, long long *d, int max)
{
	const cJSON *x = cJSON_GetArrayItem(dims, k), *f;
	int n = 0;

	if (!cJSON_IsArray(x))
		return -1;
	cJSON_ArrayForEach(f, x) {
		int64_t v;

		if (!tl_json_i64(f, 0, INT64_MAX, &v))
			return -1;
		if (n < max)
			d[n] = v;
		n++;
	}
	return n;
}

static void note(struct evidence *ev, bool prefill, long long b, long long t)
{
	if (prefill && !ev->prefill) {
		ev->prefill = true;
		ev->pb = b;
		ev->pt = t;
	} else if (!prefill && !ev->decode) {
		ev->decode = true;
		ev->db = b;
		ev->dt = t;
	}
}

/* What attention op @uid of kind @k says, into @ev; whether it serves
 * (variable-length, paged, or a decode-shaped SDPA). */
static bool read_op(const struct tl_trace *tr, uint64_t uid, enum att_kind k, struct evidence *ev)
{
	cJSON *args = NULL;
	const cJSON *dims;
	long long q[4], kd[4], cu[1];
	bool serves = k != ATT_SDPA;
	int nq, i, n;

	if (tl_trace_event_args(tr, uid, &args) || !args) {
		if (k == ATT_PAGED)
			note(ev, false, -1, -1);
		return serves;
	}
	dims = cJSON_GetObjectItemCaseSensitive(args, "Input Dims");
	nq = cJSON_IsArray(dims) ? dims_of(dims, 0, q, 4) : -1;
	switch (k) {
	case ATT_SDPA:
		if (nq == 4 && dims_of(dims, 1, kd, 4) == 4 && q[2] > 0) {
			bool dec = q[2] == 1 && kd[2] > 1;

			note(ev, !dec, q[0], q[0] * q[2]);
			serves = dec;
		}
		break;
	case ATT_VARLEN:
		/* cu_seqlens_q: the first 1-D input after q, k, v */
		n = cJSON_GetArraySize(dims);
		for (i = 3; nq == 3 && i < n; i++)
			if (dims_of(dims, i, cu, 1) == 1 && cu[0] >= 2) {
				long long b = cu[0] - 1;

				note(ev, q[0] > b, b, q[0]);
				break;
			}
		break;
	case ATT_PAGED:
		note(ev, false, nq == 3 ? q[0] : -1, nq == 3 ? q[0] : -1);
		break;
	default:
		break;
	}
	cJSON_Delete(args);
	return serves;
}

static long long sum_known(bool a, long long x, bool b, long long y)
{
	if ((a && x < 0) || (b && y < 0))
		return -1;
	return (a ? x : 0) + (b ? y : 0);
}

int tl_steps_phase_from_shapes(struct tl_trace *tr, struct tl_step_set *set)
{
	struct evidence *ev = calloc(set->n + 1, sizeof(*ev));
	bool serves = false, any = false;
	size_t i;

	if (!ev)
		return -ENOMEM;
	for (i = 0; i < set->n; i++)
		any |= set->v[i].phase == TL_PHASE_NONE;
	for (i = 0; any && i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		const char *name;
		enum att_kind kind;
		bool back;
		long s;

		if (e->kind != TL_KIND_CPU_OP && e->kind != TL_KIND_KERNEL)
			continue;
		name = tl_ev_name(tr, e);
		if (e->kind == TL_KIND_KERNEL) {
			if (!decode_kernel(name) || (s = tl_step_of_event(tr, set, i)) < 0)
				continue;
			note(&ev[s], false, -1, -1);
			serves = true;
			continue;
		}
		/* the name first: most ops are neither, and need no step */
		back = is_backward(name);
		kind = back ? ATT_NONE : op_kind(name);
		if ((!back && kind == ATT_NONE) || (s = tl_step_of_event(tr, set, i)) < 0)
			continue;
		if (back)
			ev[s].backward = true;
		else if (set->v[s].phase == TL_PHASE_NONE)
			serves |= read_op(tr, i, kind, &ev[s]);
	}
	for (i = 0; serves && i < set->n; i++) {
		struct tl_step *st = &set->v[i];
		const struct evidence *x = &ev[i];

		if (st->phase != TL_PHASE_NONE || x->backward || (!x->prefill && !x->decode))
			continue;
		st->phase = x->prefill && x->decode ? TL_PHASE_MIXED : x->prefill ? TL_PHASE_PREFILL : TL_PHASE_DECODE;
		st->batch_size = sum_known(x->prefill, x->pb, x->decode, x->db);
		st->tokens = sum_known(x->prefill, x->pt, x->decode, x->dt);
		st->phase_from_shapes = true;
		set->phases_from_shapes = true;
	}
	free(ev);
	return 0;
}
