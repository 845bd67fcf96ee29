/* SPDX-License-Identifier: MIT */
/* Pseudo ops: TraceLens's inference report isolates kernels that one op
 * launches for several jobs under ops of their own, so that each is modelled
 * apart. vLLM's unfused Triton MoE (vllm::moe_forward) launches its up and
 * down projections as matmul_ogs kernels and a finalize matmul_scatter: each
 * gets a cpu_op "pseudo_op::moe_triton_unfused_{up,down,finalize_matmul_scatter}"
 * between its launch call and the op above that call, with the MoE op's
 * recorded shapes and the MoE facts its model needs (top-k, gating).
 *
 * The events are appended to the trace (UIDs after every other, as TraceLens
 * numbers them), have no time of their own (TraceLens gives them none), and
 * keep their args in the trace's extra text. The call tree is fixed after:
 * rebuilding it from the events would not know where they go. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <tlreplay/tree.h>

#include "trace/trace_internal.h"

static const char *name_of(const struct tl_trace *tr, uint64_t u)
{
	return tl_strtab_get(&tr->strs, tr->ev[u].name);
}

/* The MoE's top-k: Concrete Inputs[1] of a "TopK" op below it (through
 * python wrappers, at most 10 levels down), else 4, TraceLens's default. */
static long topk_below(const struct tl_trace *tr, int64_t u, int depth)
{
	int64_t c;

	if (depth > 10)
		return -1;
	if (strstr(name_of(tr, (uint64_t)u), "TopK")) {
		cJSON *a = NULL;
		long k = -1;

		if (!tl_trace_event_args(tr, (uint64_t)u, &a)) {
			const cJSON *ci = cJSON_GetObjectItemCaseSensitive(a, "Concrete Inputs");
			const cJSON *v = cJSON_GetArrayItem(ci, 1);
			char *end;

			if (cJSON_IsString(v) && v->valuestring[0]) {
				k = strtol(v->valuestring, &end, 10);
				if (*end)
					k = -1;
			}
		}
		cJSON_Delete(a);
		if (k >= 0)
			return k;
	}
	for (c = tl_event_first_child(tr, (uint64_t)u); c >= 0; c = tl_event_next_sibling(tr, (uint64_t)c)) {
		long k = topk_below(tr, c, depth + 1);

		if (k >= 0)
			return k;
	}
	return -1;
}

/* One pseudo op over GPU event @k: Launch call -> pseudo op -> launch call's
 * parent. @moe_args: the MoE op's args; @extra: members to add (owned by
 * the caller). 0, 1 when @k has no launch call under an op, or -errno. */
static int inject(struct tl_trace *tr, uint64_t k, const char *name, const cJSON *moe_args, long seq,
		  const cJSON *extra)
{
	static const char *const shape[] = { "Input Dims", "Input type", "Input Strides", "Concrete Inputs" };
	int64_t launch = tl_event_parent(tr, k), above;
	cJSON *args = NULL;
	const cJSON *x;
	char *json = NULL;
	struct trace_new_event ne;
	uint64_t me;
	size_t i;
	int err = -ENOMEM;

	if (launch < 0 || (above = tl_event_parent(tr, (uint64_t)launch)) < 0)
		return 1;
	args = cJSON_CreateObject();
	for (i = 0; args && i < TL_ARRAY_SIZE(shape); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(moe_args, shape[i]);

		if (!cJSON_AddItemToObject(args, shape[i], v ? cJSON_Duplicate(v, true) : cJSON_CreateNull()))
			goto out;
	}
	if (!args || !cJSON_AddNumberToObject(args, "Sequence number", (double)seq) ||
	    !cJSON_AddNumberToObject(args, "External id", (double)tl_ev_corr(tr, &tr->ev[k])) ||
	    !cJSON_AddTrueToObject(args, "Pseudo op"))
		goto out;
	cJSON_ArrayForEach(x, extra)
		if (!cJSON_AddItemToObject(args, x->string, cJSON_Duplicate(x, true)))
			goto out;
	json = cJSON_PrintUnformatted(args);
	if (!json)
		goto out;
	/* no time of its own; ts only for what orders ops by it */
	ne = (struct trace_new_event){ .name = name,
				       .cat = "cpu_op",
				       .kind = TL_KIND_CPU_OP,
				       .like = &tr->ev[above],
				       .ts = tr->ev[launch].ts,
				       .dur = NAN,
				       .args_json = json };
	if (trace_append_event(tr, &ne, &me))
		goto out;
	tl_tree_remove_child(&tr->tree, (int32_t)above, (int32_t)launch);
	tl_tree_add_child(&tr->tree, (int32_t)above, (int32_t)me);
	tl_tree_add_child(&tr->tree, (int32_t)me, (int32_t)launch);
	err = 0;
out:
	free(json);
	cJSON_Delete(args);
	return err;
}

static int cmp_ts(const void *a, const void *b, void *ctx)
{
	const struct tl_trace *tr = ctx;
	double x = tr->ev[*(const uint64_t *)a].ts, y = tr->ev[*(const uint64_t *)b].ts;

	if (x != y)
		return x < y ? -1 : 1;
	return 0;
}

/* The pseudo ops of one vllm::moe_forward. */
static int moe_unfused_triton(struct tl_trace *tr, uint64_t moe, size_t *added)
{
	uint64_t *g = NULL, *mm = NULL, scatter = 0;
	int64_t ng = tl_event_gpu_events(tr, moe, &g), i, c;
	size_t nmm = 0, nscatter = 0, j;
	cJSON *args = NULL, *extra = NULL;
	long topk = -1, seq;
	int err = 0;

	if (ng <= 0)
		return (int)ng;
	mm = malloc((size_t)ng * sizeof(*mm));
	if (!mm) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < ng; i++) {
		const char *n = name_of(tr, g[i]);

		if (tr->ev[g[i]].kind == TL_KIND_KERNEL && strcasestr(n, "matmul_ogs"))
			mm[nmm++] = g[i];
		if (strcasestr(n, "matmul_scatter")) {
			scatter = g[i];
			nscatter++;
		}
	}
	if (!nmm)
		goto out;
	/* sorted by start: the first GEMM is the up projection (stable) */
	for (j = 1; j < nmm; j++) {
		uint64_t x = mm[j];
		size_t k = j;

		for (; k > 0 && cmp_ts(&mm[k - 1], &x, tr) > 0; k--)
			mm[k] = mm[k - 1];
		mm[k] = x;
	}
	err = tl_trace_event_args(tr, moe, &args);
	if (err == -ENOMEM)
		goto out;
	err = 0;
	for (c = tl_event_first_child(tr, moe); c >= 0 && topk < 0; c = tl_event_next_sibling(tr, (uint64_t)c))
		topk = topk_below(tr, c, 0);
	if (topk < 0)
		topk = 4;
	seq = (tr->ev[moe].flags & EV_HAS_SEQ) ? (long)tl_ev_seq(tr, &tr->ev[moe]) : (long)moe;
	for (j = 0; j < nmm && !err; j++) {
		const char *kn = name_of(tr, mm[j]);
		bool gated = strcasestr(kn, "_swiglu") || strcasestr(kn, "_glu");

		extra = cJSON_CreateObject();
		if (!extra || !cJSON_AddStringToObject(extra, "MoE GEMM type", j ? "down" : "up") ||
		    !cJSON_AddNumberToObject(extra, "MoE GEMM index", (double)j) ||
		    !cJSON_AddBoolToObject(extra, "MoE GEMM gated", gated) ||
		    !cJSON_AddNumberToObject(extra, "MoE topk", (double)topk)) {
			err = -ENOMEM;
			break;
		}
		err = inject(tr, mm[j], j ? "pseudo_op::moe_triton_unfused_down" : "pseudo_op::moe_triton_unfused_up",
			     args, seq, extra);
		*added += !err;
		err = err > 0 ? 0 : err;
		cJSON_Delete(extra);
		extra = NULL;
	}
	/* TraceLens gives up on an op with several */
	if (!err && nscatter == 1) {
		extra = cJSON_CreateObject();
		if (!extra || !cJSON_AddStringToObject(extra, "MoE GEMM type", "finalize_matmul_scatter"))
			err = -ENOMEM;
		else
			err = inject(tr, scatter, "pseudo_op::moe_triton_unfused_finalize_matmul_scatter", args, seq,
				     extra);
		*added += !err;
		err = err > 0 ? 0 : err;
	}
out:
	cJSON_Delete(extra);
	cJSON_Delete(args);
	free(mm);
	free(g);
	return err;
}

int tl_trace_add_pseudo_ops(struct tl_trace *tr, size_t *added)
{
	uint64_t u, n = tr->nev;
	uint32_t moe;
	int err = 0;

	*added = 0;
	if (!tr->tree.built || tr->tree.links_only)
		return tl_err(-EINVAL, "%s: pseudo ops need the call tree (tl_trace_link)", tr->path);
	if (tr->pseudo_ops)
		return 0;
	moe = tl_strtab_find(&tr->strs, "vllm::moe_forward", 17);
	for (u = 0; u < n && !err && moe != UINT32_MAX; u++)
		if (tr->ev[u].name == moe && tr->ev[u].kind == TL_KIND_CPU_OP)
			err = moe_unfused_triton(tr, u, added);
	if (err)
		return tl_err(err, "%s: out of memory adding pseudo ops", tr->path);
	tr->pseudo_ops = true;
	return 0;
}
