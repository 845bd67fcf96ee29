/* SPDX-License-Identifier: MIT */
/* The iteration annotation around an inference attention op, and the sq/sk
 * aggregates it carries: what TraceLens's InferenceAttention models read
 * from event["annotation"]. */
#include <stdio.h>
#include <string.h>

#include "perfmodel/perfmodel_internal.h"
#include "trace/trace_internal.h"

/* The ops TraceLens's inference report annotates (its apply_annotation
 * name_filters, matched as prefixes); the training report annotates only the
 * first, a subset. */
static const char *const annotated_ops[] = {
	"vllm::unified_attention_with_output",
	"aiter::mha_varlen_fwd",
	"pseudo_mla_decode_fwd",
	"pseudo_mla_prefill_fwd",
	"vllm::gdn_attention_core",
	"aiter::fmha_v3_varlen_fwd",
	"sglang_profiler::tilelang_kernel_tilelang_sparse_fwd",
	"sglang_profiler::attention_paged_attention_ragged",
	"aiter::mha_batch_prefill",
	"aiter::pa_decode_gluon",
	"aiter::v4_attention_with_output",
	"pseudo_v4_paged_decode_swa",
	"pseudo_v4_paged_decode_csa",
	"pseudo_v4_paged_decode_hca",
	NULL,
};

/* Trace2Tree's apply_annotation: among the user annotations (any category
 * holding "user_annotation", GPU-side ones included) sorted by start, the
 * first with ann.ts <= ts and ts + dur < ann.ts + ann.dur. A linear scan:
 * only the few annotated ops ask. */
const char *pm_annotation_of(const struct tl_trace *tr, uint64_t uid, const char *name)
{
	const struct tl_ev *e, *best = NULL;
	size_t i;

	/* the training (plain) report annotates the first only */
	for (i = 0; annotated_ops[i] && (i == 0 || tr->inference_view); i++)
		if (!strncmp(name, annotated_ops[i], strlen(annotated_ops[i])))
			break;
	if (!annotated_ops[i] || (i > 0 && !tr->inference_view) || uid >= tr->nev)
		return NULL;
	e = &tr->ev[uid];
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *a = &tr->ev[i];

		if ((a->kind != TL_KIND_USER_ANNOTATION && a->kind != TL_KIND_GPU_ANNOTATION) ||
		    !(a->flags & EV_HAS_TS))
			continue;
		if (a->ts <= e->ts && e->ts + e->dur < a->ts + a->dur && (!best || a->ts < best->ts))
			best = a;
	}
	return best ? tl_ev_name(tr, best) : NULL;
}

static int is_word(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '_';
}

static int is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* Python's int() of the digits at *p (TraceUtils' _safe_int of a matched
 * \d+); advances *p. */
static long long digits(const char **p)
{
	long long v = 0;

	while (is_digit(**p))
		v = v * 10 + (*(*p)++ - '0');
	return v;
}

static int lit(const char **p, const char *s)
{
	size_t n = strlen(s);

	if (strncmp(*p, s, n))
		return 0;
	*p += n;
	return 1;
}

/* "(sqNskNsqsqNsqskN)" into four numbers */
static int sq_group(const char **p, long long v[4])
{
	static const char *const tag[4] = { "(sq", "sk", "sqsq", "sqsk" };
	int i;

	for (i = 0; i < 4; i++) {
		if (!lit(p, tag[i]) || !is_digit(**p))
			return 0;
		v[i] = digits(p);
	}
	return lit(p, ")");
}

/* VLLM_DETAILED_PATTERN, matched at the start:
 * execute_N_context_N(sq..sk..sqsq..sqsk..)_generation_N(sq..sk..sqsq..sqsk..) */
static int vllm_detailed(const char *p, struct pm_chunk *st)
{
	long long c[4], g[4];

	if (!lit(&p, "execute_") || !is_digit(*p))
		return 0;
	digits(&p);
	if (!lit(&p, "_context_") || !is_digit(*p))
		return 0;
	digits(&p);
	if (!sq_group(&p, c) || !lit(&p, "_generation_") || !is_digit(*p))
		return 0;
	digits(&p);
	if (!sq_group(&p, g))
		return 0;
	st->c_sq = c[0], st->c_sk = c[1], st->c_sqsq = c[2], st->c_sqsk = c[3];
	st->g_sq = g[0], st->g_sk = g[1], st->g_sqsq = g[2], st->g_sqsk = g[3];
	return 1;
}

/* The value of key @key among "key=value" pairs of @body[0, @n) the way
 * re.findall + dict() keep them (the last wins). With @atom, values are
 * ATOM's (\[[^\]]*\](?:\.\.\.\+\d+)?|\S+), else \d+. Returns 1 when found,
 * with Python's int() of the value in *v (0 when it is not an integer, as
 * _safe_int). */
static int kv_get(const char *body, size_t n, const char *key, int atom, long long *v)
{
	size_t i = 0, klen = strlen(key);
	int found = 0;

	while (i < n) {
		size_t j = i, vs, ve;

		if (!is_word(body[i])) {
			i++;
			continue;
		}
		while (j < n && is_word(body[j]))
			j++;
		if (j >= n || body[j] != '=') {
			i = j;
			continue;
		}
		vs = ve = j + 1;
		if (!atom) {
			while (ve < n && is_digit(body[ve]))
				ve++;
		} else if (ve < n && body[ve] == '[' && memchr(body + ve, ']', n - ve)) {
			ve = (size_t)((const char *)memchr(body + ve, ']', n - ve) - body) + 1;
			if (ve + 4 < n && !strncmp(body + ve, "...+", 4) && is_digit(body[ve + 4]))
				for (ve += 4; ve < n && is_digit(body[ve]); ve++)
					;
		} else {
			while (ve < n && body[ve] != ' ' && body[ve] != '\t' && body[ve] != '\n' &&
			       body[ve] != '\r' && body[ve] != '\f' && body[ve] != '\v')
				ve++;
		}
		if (ve == vs) {	/* no value: no match from this word */
			i = j;
			continue;
		}
		if (j - i == klen && !strncmp(body + i, key, klen)) {
			const char *q = body + vs;
			long long x = digits(&q);

			*v = q == body + ve && ve > vs ? x : 0;
			found = 1;
		}
		i = ve;
	}
	return found;
}

/* "sqsq=" and a digit somewhere in [p, end) */
static int sqsq_before(const char *p, const char *end)
{
	const char *q;

	for (q = p; (q = strstr(q, "sqsq=")) && q < end; q++)
		if (is_digit(q[5]))
			return 1;
	return 0;
}

/* SGLANG_DETAILED_PATTERN: step[(EXTEND|DECODE|MIXED)\b[^\]]*sqsq=\d+[^\]]*\],
 * then the c_* / g_* pairs of the text between the first '[' and the last
 * ']' (TraceUtils' _fill_sglang_detailed). */
static int sglang_detailed(const char *s, struct pm_chunk *st)
{
	static const char *const modes[] = { "EXTEND", "DECODE", "MIXED" };
	const char *p = s, *close, *last;
	long long *f[8] = { &st->c_sq, &st->c_sk, &st->c_sqsq, &st->c_sqsk,
			    &st->g_sq, &st->g_sk, &st->g_sqsq, &st->g_sqsk };
	static const char *const keys[8] = { "c_sq", "c_sk", "c_sqsq", "c_sqsk",
					     "g_sq", "g_sk", "g_sqsq", "g_sqsk" };
	size_t i;

	if (!lit(&p, "step["))
		return 0;
	for (i = 0; i < TL_ARRAY_SIZE(modes); i++)
		if (lit(&p, modes[i]))
			break;
	if (i == TL_ARRAY_SIZE(modes) || is_word(*p))
		return 0;
	close = strchr(p, ']');
	if (!close || !sqsq_before(p, close))
		return 0;
	last = strrchr(s, ']');
	p = strchr(s, '[') + 1;
	for (i = 0; i < 8; i++)
		if (!kv_get(p, (size_t)(last - p), keys[i], 0, f[i]))
			*f[i] = 0;
	return 1;
}

/* ATOM_DETAILED_PATTERN: ^(prefill|decode)\[.*sqsq=\d+.*\]; the pairs are
 * read from the text between the '[' and the last ']' (TraceUtils'
 * _fill_atom), and the aggregates exist only when both sqsq and sqsk do. */
static int atom_detailed(const char *s, struct pm_chunk *st)
{
	const char *p = s, *last;
	long long tok = 0, sk = 0, sqsq = 0, sqsk = 0;
	int prefill;
	size_t n;

	if (lit(&p, "prefill["))
		prefill = 1;
	else if (lit(&p, "decode["))
		prefill = 0;
	else
		return 0;
	last = strrchr(p, ']');
	if (!last || !sqsq_before(p, last))
		return 0;
	n = (size_t)(last - p);
	if (!kv_get(p, n, "sqsq", 1, &sqsq) || !kv_get(p, n, "sqsk", 1, &sqsk))
		return 0;	/* matched, but not detailed: chunk_stats refuses */
	if (!kv_get(p, n, "tok", 1, &tok))
		tok = 0;
	if (!kv_get(p, n, "sk", 1, &sk))
		sk = 0;
	memset(st, 0, sizeof(*st));
	if (prefill)
		st->c_sq = tok, st->c_sk = sk, st->c_sqsq = sqsq, st->c_sqsk = sqsk;
	else
		st->g_sq = tok, st->g_sk = sk, st->g_sqsq = sqsq, st->g_sqsk = sqsk;
	return 1;
}

/* IterationAnnotation tries its formats in order and keeps the first that
 * matches; only the detailed ones carry sq/sk. A native vLLM or SGLang
 * match ("execute_context_..", "step[DECODE bs=64]") comes first in that
 * order but never holds a detailed form, so it needs no test here. */
int pm_chunk_stats(const char *ann, struct pm_chunk *st)
{
	memset(st, 0, sizeof(*st));
	if (ann && (vllm_detailed(ann, st) || sglang_detailed(ann, st) || atom_detailed(ann, st)))
		return 0;
	memset(st, 0, sizeof(*st));
	return -EINVAL;
}
