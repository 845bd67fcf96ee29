/* SPDX-License-Identifier: MIT */
/* PyTorch's CUDA-graph kernel annotations (torch.cuda._graph_annotations,
 * PyTorch 2.12+): during capture, `mark_kernels({"name": ...})` tags each graph
 * node, and the profiler (or torch.cuda._annotate_cuda_graph_trace) writes the
 * tags into the args of the kernels a replay ran, beside their "graph node id".
 * Without them a replayed graph is one cudaGraphLaunch over hundreds of
 * kernels that no op owns; with them each run of kernels of one name gets an
 * op of that name, as a merged capture trace would give (capture_merge.c):
 *
 *     cudaGraphLaunch -> op "attention" -> cudaGraphLaunch (copy) -> kernels
 *
 * The op and the copy take the launch's time (they stand for its CPU side);
 * the op's args keep the annotation's other keys ("autograd_phase" ...).
 * The tree is fixed after, as for pseudo ops: a rebuild would lose them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <tlreplay/tree.h>

#include "trace/trace_internal.h"

/* The annotation of GPU event @g: its args when they hold a non-zero "graph
 * node id" and a "name" (owned by the caller), else NULL. */
static cJSON *annotation_of(const struct tl_trace *tr, uint64_t g)
{
	const cJSON *node, *name;
	cJSON *args = NULL;

	if (tl_trace_event_args(tr, g, &args))
		return NULL;
	node = cJSON_GetObjectItemCaseSensitive(args, "graph node id");
	name = cJSON_GetObjectItemCaseSensitive(args, "name");
	if (!cJSON_IsNumber(node) || node->valuedouble == 0 || !cJSON_IsString(name) || !*name->valuestring) {
		cJSON_Delete(args);
		return NULL;
	}
	return args;
}

/* The op's args: the annotation's keys, without those of the kernel itself. */
static char *op_args(const cJSON *ann)
{
	static const char *const kernel_keys[] = { "graph node id", "name",   "stream", "correlation", "device",
						   "context",	    "queued", "grid",	"block",       "External id" };
	cJSON *o = cJSON_CreateObject();
	const cJSON *x;
	char *json = NULL;
	size_t i;

	if (!o || !cJSON_AddTrueToObject(o, "Graph annotation"))
		goto out;
	cJSON_ArrayForEach(x, ann) {
		for (i = 0; i < TL_ARRAY_SIZE(kernel_keys); i++)
			if (!strcmp(x->string, kernel_keys[i]))
				break;
		/* only what mark_kernels adds: strings (annotate_trace writes str()) */
		if (i < TL_ARRAY_SIZE(kernel_keys) || !cJSON_IsString(x))
			continue;
		if (!cJSON_AddStringToObject(o, x->string, x->valuestring))
			goto out;
	}
	json = cJSON_PrintUnformatted(o);
out:
	cJSON_Delete(o);
	return json;
}

/* One run of kernels of one annotation under graph launch @g. */
static int add_run(struct tl_trace *tr, uint32_t g, const cJSON *ann, const uint32_t *k, size_t n)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(ann, "name");
	const struct tl_ev *launch = &tr->ev[g];
	struct trace_new_event ne;
	char *json = op_args(ann);
	uint64_t op, copy;
	size_t i;
	int err = -ENOMEM;

	if (!json)
		goto out;
	ne = (struct trace_new_event){ .name = name->valuestring,
				       .cat = "cpu_op",
				       .kind = TL_KIND_CPU_OP,
				       .like = launch,
				       .ts = launch->ts,
				       .dur = launch->dur,
				       .flags = launch->flags & (EV_HAS_TS | EV_HAS_DUR),
				       .args_json = json };
	if (trace_append_event(tr, &ne, &op))
		goto out;
	launch = &tr->ev[g]; /* the events may have moved */
	ne = (struct trace_new_event){ .name = tl_strtab_get(&tr->strs, launch->name),
				       .cat = tl_strtab_get(&tr->strs, launch->cat),
				       .kind = launch->kind,
				       .like = launch,
				       .ts = launch->ts,
				       .dur = launch->dur,
				       .flags = launch->flags & (EV_HAS_TS | EV_HAS_DUR) };
	if (trace_append_event(tr, &ne, &copy))
		goto out;
	tl_tree_add_child(&tr->tree, (int32_t)g, (int32_t)op);
	tl_tree_add_child(&tr->tree, (int32_t)op, (int32_t)copy);
	for (i = 0; i < n; i++) {
		tl_tree_remove_child(&tr->tree, (int32_t)g, (int32_t)k[i]);
		tl_tree_add_child(&tr->tree, (int32_t)copy, (int32_t)k[i]);
	}
	err = 0;
out:
	free(json);
	return err;
}

static int cmp_ts(const void *a, const void *b, void *ctx)
{
	const struct tl_trace *tr = ctx;
	const struct tl_ev *x = &tr->ev[*(const uint32_t *)a], *y = &tr->ev[*(const uint32_t *)b];

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* Whether two kernels' annotations make one run: the same name and the same
 * autograd phase (a region's backward kernels are an op of their own). */
static bool same_run(const cJSON *a, const cJSON *b)
{
	const cJSON *pa = cJSON_GetObjectItemCaseSensitive(a, "autograd_phase");
	const cJSON *pb = cJSON_GetObjectItemCaseSensitive(b, "autograd_phase");

	if (strcmp(cJSON_GetObjectItemCaseSensitive(a, "name")->valuestring,
		   cJSON_GetObjectItemCaseSensitive(b, "name")->valuestring))
		return false;
	if (!cJSON_IsString(pa) || !cJSON_IsString(pb))
		return !cJSON_IsString(pa) && !cJSON_IsString(pb);
	return !strcmp(pa->valuestring, pb->valuestring);
}

/* The kernels of graph launch @g in runs of one annotation. */
static int annotate_launch(struct tl_trace *tr, uint32_t g, size_t *nops, size_t *nkernels)
{
	TL_VEC(uint32_t) k = { 0 };
	cJSON **ann = NULL;
	size_t i, start;
	int32_t c;
	int err = 0;

	for (c = tr->tree.first_child[g]; c >= 0; c = tr->tree.next_sibling[c])
		if (tl_kind_is_gpu(tr->ev[c].kind) && tl_vec_push(&k, (uint32_t)c))
			return -ENOMEM;
	if (!k.n)
		goto out;
	tl_qsort_r(k.v, k.n, sizeof(*k.v), cmp_ts, tr);
	ann = calloc(k.n, sizeof(*ann));
	if (!ann) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < k.n; i++)
		ann[i] = annotation_of(tr, k.v[i]);
	for (start = 0; start < k.n && !err; start = i) {
		for (i = start + 1; i < k.n; i++)
			if (!ann[start] || !ann[i] || !same_run(ann[start], ann[i]))
				break;
		if (!ann[start])
			continue; /* not annotated: it stays the launch's */
		err = add_run(tr, g, ann[start], k.v + start, i - start);
		if (!err) {
			(*nops)++;
			*nkernels += i - start;
		}
	}
out:
	for (i = 0; ann && i < k.n; i++)
		cJSON_Delete(ann[i]);
	free(ann);
	tl_vec_free(&k);
	return err;
}

/* Whether some GPU event's args text holds a graph node id and a name: a
 * look at the raw text, so that a trace without annotations (most, and
 * every graph replay before PyTorch 2.12) builds no tree here. */
static bool may_have_annotations(const struct tl_trace *tr)
{
	size_t i, len;

	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		const char *a;

		if (!tl_kind_is_gpu(e->kind) || !(a = tl_ev_args(tr, e, &len)))
			continue;
		if (memmem(a, len, "\"graph node id\"", 15) && memmem(a, len, "\"name\"", 6))
			return true;
	}
	return false;
}

int tl_trace_apply_graph_annotations(struct tl_trace *tr, size_t *ops, size_t *kernels)
{
	size_t i, n;
	int err;

	*ops = *kernels = 0;
	/* a merged capture already gave the graph kernels their ops */
	if (tr->merged || (tr->id_graph_cuda == UINT32_MAX && tr->id_graph_hip == UINT32_MAX) ||
	    !may_have_annotations(tr))
		return 0;
	/* with python functions, as a merged tree is: the tree is fixed after */
	err = tl_tree_ensure(tr, true);
	if (err)
		return err;
	n = tr->nev; /* the launches of the file, not the copies made here */
	for (i = 0; i < n && !err; i++) {
		const struct tl_ev *e = &tr->ev[i];

		if ((e->kind != TL_KIND_RUNTIME && e->kind != TL_KIND_DRIVER) ||
		    (e->name != tr->id_graph_cuda && e->name != tr->id_graph_hip))
			continue;
		err = annotate_launch(tr, (uint32_t)i, ops, kernels);
	}
	if (err)
		return tl_err(err, "%s: out of memory reading the CUDA-graph annotations", tr->path);
	if (*ops)
		tr->pseudo_ops = true; /* the tree is fixed: a rebuild would lose the ops */
	return 0;
}
