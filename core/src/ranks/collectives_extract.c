/* SPDX-License-Identifier: MIT */
/* One rank's collective timeline: every NCCL/RCCL kernel (TraceLens's
 * communication class) with what the trace says of its collective. The
 * metadata comes, best first, from the kernel's own args (newer Kineto
 * copies "Collective name", "In msg nelems", "Process Group Name"... onto
 * it), from the innermost record_param_comms op around its launch, from the
 * nccl:* annotation around it (older traces: Input Dims/Input type of the
 * tensor) or the c10d:: op (its output and input shapes), else from the
 * kernel's name.
 *
 * The ops around a launch are found without the host call tree (it needs a
 * sort of every host event): one sweep over the few candidate events
 * (record_param_comms, nccl:*, c10d::*) and the launches, per thread, in
 * time order, with a stack of the candidates still open. */
#include <math.h>
#include <stdio.h>

#include "analysis/analysis_internal.h"
#include "ranks/ranks_internal.h"
#include "trace/trace_internal.h"

enum cand { C_NONE = 0, C_RECORD, C_ANNOT, C_C10D, C_NCAND };

struct item {
	uint32_t pid, tid;
	double ts, end;
	uint32_t uid;
	int32_t rec;		/* query: index in the new records; candidate: -1 */
	uint8_t cand;		/* candidate class, C_NONE for a query */
};

/* Per collective record while it is built: the ops found around it. */
struct ctx {
	int64_t around[C_NCAND];	/* UIDs, -1 */
};

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if ((x->cand == C_NONE) != (y->cand == C_NONE))
		return x->cand == C_NONE ? 1 : -1;	/* a candidate opens before a launch at its ts */
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;	/* outer first */
	return (x->uid > y->uid) - (x->uid < y->uid);
}

static enum cand cand_of_name(const char *n)
{
	if (!strcmp(n, "record_param_comms"))
		return C_RECORD;
	if (!strncmp(n, "nccl:", 5))
		return C_ANNOT;
	if (!strncmp(n, "c10d::", 6))
		return C_C10D;
	return C_NONE;
}

/* ------------------------------------------------------------------ args */

static cJSON *parse_args(const struct tl_trace *tr, uint64_t uid)
{
	size_t len;
	const char *a = tl_ev_args(tr, &tr->ev[uid], &len);

	return a ? cJSON_ParseWithLength(a, len) : NULL;
}

static bool args_mention(const struct tl_trace *tr, uint64_t uid, const char *needle)
{
	size_t len;
	const char *a = tl_ev_args(tr, &tr->ev[uid], &len);

	return a && memmem(a, len, needle, strlen(needle));
}

/* An integer of [-1, 2^53] (what a summary holds, TL_RS_INT_MAX): a
 * number, or a string of digits. */
static bool get_int(const cJSON *o, const char *key, int64_t *v)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);

	if (cJSON_IsNumber(x))
		return tl_json_i64(x, -1, TL_RS_INT_MAX, v);
	if (cJSON_IsString(x) && x->valuestring[0]) {
		char *end;
		long long l;

		errno = 0;
		l = strtoll(x->valuestring, &end, 10);
		if (!*end && !errno && l >= -1 && l <= TL_RS_INT_MAX) {
			*v = l;
			return true;
		}
	}
	return false;
}

/* A string field (a number is printed), interned; NULL if absent or empty. */
static const char *get_str(struct tl_rank_summary *s, const cJSON *o, const char *key, int *err)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
	const char *r = NULL;

	if (cJSON_IsString(x) && x->valuestring[0]) {
		r = tl_rs_cstr(s, x->valuestring);
	} else if (cJSON_IsNumber(x)) {
		char b[32];

		snprintf(b, sizeof(b), "%.0f", x->valuedouble);
		r = tl_rs_cstr(s, b);
	} else if (cJSON_IsArray(x)) {
		char *t = cJSON_PrintUnformatted(x);

		r = t ? tl_rs_cstr(s, t) : NULL;
		if (!t)
			*err = -ENOMEM;
		free(t);
	} else {
		return NULL;
	}
	if (!r)
		*err = -ENOMEM;
	return r;
}

/* The collective fields of an args object, filling only what is unset. */
static int fill_from_args(struct tl_rank_summary *s, struct tl_coll_rec *r, const cJSON *a)
{
	const char *v;
	int64_t iv;
	int err = 0;

	if (!a)
		return 0;
	if (!r->name && (v = get_str(s, a, "Collective name", &err))) {
		r->name = v;
		r->name_src = TL_COLL_SRC_ARGS;
	}
	if (!r->pg && ((v = get_str(s, a, "Process Group Name", &err)) || (v = get_str(s, a, "pg_name", &err))))
		r->pg = v;
	if (!*r->pg_ranks && (v = get_str(s, a, "Process Group Ranks", &err)))
		r->pg_ranks = v;
	if (!*r->dtype && (v = get_str(s, a, "dtype", &err)))
		r->dtype = v;
	if (r->group_size < 0 && get_int(a, "Group size", &iv) && iv > 0 && iv < INT32_MAX)
		r->group_size = (int)iv;
	if (r->in_nelems < 0 && get_int(a, "In msg nelems", &iv) && iv >= 0)
		r->in_nelems = iv;
	if (r->out_nelems < 0 && get_int(a, "Out msg nelems", &iv) && iv >= 0)
		r->out_nelems = iv;
	if (r->seq < 0 && get_int(a, "Seq", &iv) && iv >= 0)
		r->seq = iv;
	return err;
}

/* Elements of a shape ([8192, 64] -> 524288); -1 if not a list of
 * integers, or beyond what a summary holds (TL_RS_INT_MAX). */
static int64_t shape_nelems(const cJSON *dims)
{
	const cJSON *d;
	int64_t n = 1, k;

	if (!cJSON_IsArray(dims) || !dims->child)
		return -1;
	cJSON_ArrayForEach(d, dims) {
		if (!tl_json_i64(d, 0, TL_RS_INT_MAX, &k) || __builtin_mul_overflow(n, k, &n) ||
		    n > TL_RS_INT_MAX)
			return -1;
	}
	return n;
}

/* The tensor of an nccl:* annotation: Input Dims [[...]], Input type [t]. */
static int fill_from_annotation(struct tl_rank_summary *s, struct tl_coll_rec *r, const cJSON *a)
{
	const cJSON *dims = cJSON_GetObjectItemCaseSensitive(a, "Input Dims");
	const cJSON *types = cJSON_GetObjectItemCaseSensitive(a, "Input type");
	const cJSON *t0 = cJSON_IsArray(types) ? types->child : NULL;
	int64_t n = shape_nelems(cJSON_IsArray(dims) ? dims->child : NULL);

	if (r->in_nelems < 0 && n >= 0)
		r->in_nelems = n;
	if (!*r->dtype && cJSON_IsString(t0) && t0->valuestring[0] && tl_dtype_bytes(t0->valuestring)) {
		r->dtype = tl_rs_cstr(s, t0->valuestring);
		if (!r->dtype)
			return -ENOMEM;
	}
	return 0;
}

/* c10d ops that take (output, input): their shapes give both sizes. */
static int fill_from_c10d(struct tl_rank_summary *s, struct tl_coll_rec *r, const char *op,
			  const cJSON *a)
{
	static const char *const out_in[] = { "c10d::_allgather_base_", "c10d::_reduce_scatter_base_",
					      "c10d::alltoall_base_" };
	const cJSON *dims = cJSON_GetObjectItemCaseSensitive(a, "Input Dims");
	const cJSON *types = cJSON_GetObjectItemCaseSensitive(a, "Input type");
	int64_t o, i;
	size_t k;

	for (k = 0; k < TL_ARRAY_SIZE(out_in); k++)
		if (!strcmp(op, out_in[k]))
			break;
	if (k == TL_ARRAY_SIZE(out_in) || !cJSON_IsArray(dims) || !dims->child)
		return 0;
	o = shape_nelems(dims->child);
	i = shape_nelems(dims->child->next);
	if (o < 0 || i < 0)
		return 0;
	if (r->out_nelems < 0)
		r->out_nelems = o;
	if (r->in_nelems < 0)
		r->in_nelems = i;
	if (!*r->dtype && cJSON_IsArray(types) && cJSON_IsString(types->child) &&
	    tl_dtype_bytes(types->child->valuestring)) {
		r->dtype = tl_rs_cstr(s, types->child->valuestring);
		if (!r->dtype)
			return -ENOMEM;
	}
	return 0;
}

/* ------------------------------------------------------------------ records */

static int complete(struct tl_trace *tr, struct tl_rank_summary *s, struct tl_coll_rec *r,
		    const struct ctx *c)
{
	cJSON *a = NULL;
	int err = 0;
	char buf[96];

	/* the kernel's own args first (only parsed when they carry the fields) */
	if (args_mention(tr, r->uid, "Collective name") || args_mention(tr, r->uid, "Process Group Name")) {
		a = parse_args(tr, r->uid);
		err = fill_from_args(s, r, a);
		cJSON_Delete(a);
		a = NULL;
	}
	if (!err && c->around[C_RECORD] >= 0) {
		a = parse_args(tr, (uint64_t)c->around[C_RECORD]);
		err = fill_from_args(s, r, a);
		cJSON_Delete(a);
		a = NULL;
	}
	if (!err && c->around[C_C10D] >= 0) {
		const char *op = tl_ev_name(tr, &tr->ev[c->around[C_C10D]]);

		a = parse_args(tr, (uint64_t)c->around[C_C10D]);
		if (a)
			err = fill_from_c10d(s, r, op, a);
		cJSON_Delete(a);
		a = NULL;
		if (!err && !r->name && tl_coll_type_of(op) != TL_COLL_UNKNOWN) {
			size_t n = strlen(op + 6);

			while (n && op[6 + n - 1] == '_')
				n--;
			r->name = tl_rs_str(s, op + 6, n);
			r->name_src = TL_COLL_SRC_OP;
			if (!r->name)
				err = -ENOMEM;
		}
	}
	if (!err && c->around[C_ANNOT] >= 0) {
		const char *op = tl_ev_name(tr, &tr->ev[c->around[C_ANNOT]]);

		a = parse_args(tr, (uint64_t)c->around[C_ANNOT]);
		if (a)
			err = fill_from_annotation(s, r, a);
		cJSON_Delete(a);
		a = NULL;
		/* the annotation names the collective better than the c10d op
		 * (nccl:_all_gather_base under c10d::_allgather_base_) */
		if (!err && (!r->name || r->name_src == TL_COLL_SRC_OP) && op[5]) {
			r->name = tl_rs_cstr(s, op + 5);
			r->name_src = TL_COLL_SRC_OP;
			if (!r->name)
				err = -ENOMEM;
		}
	}
	if (err)
		return err;
	if (!r->name) {
		tl_coll_kernel_token(r->kernel, buf, sizeof(buf));
		r->name = tl_rs_cstr(s, *buf ? buf : "unknown");
		r->name_src = TL_COLL_SRC_KERNEL;
		if (!r->name)
			return -ENOMEM;
	}
	r->type = tl_coll_type_of(r->name);
	if (r->type == TL_COLL_UNKNOWN && r->name_src != TL_COLL_SRC_KERNEL)
		r->type = tl_coll_type_of(r->kernel);
	if (!r->pg) {
		if (r->stream != TL_NOID)
			snprintf(buf, sizeof(buf), "stream:%lld", (long long)r->stream);
		else
			snprintf(buf, sizeof(buf), "stream:?");
		r->pg = tl_rs_cstr(s, buf);
		r->pg_inferred = true;
		if (!r->pg)
			return -ENOMEM;
	}
	return 0;
}

/* The record of kernel @uid, everything unknown. */
static int new_rec(struct tl_trace *tr, struct tl_rank_summary *s, uint64_t uid)
{
	const struct tl_ev *e = &tr->ev[uid];
	struct tl_coll_rec r = {
		.pg_ranks = tl_rs_str(s, "", 0),
		.dtype = tl_rs_str(s, "", 0),
		.kernel = tl_rs_cstr(s, tl_ev_name(tr, e)),
		.name_src = TL_COLL_SRC_KERNEL,
		.group_size = -1,
		.in_nelems = -1,
		.out_nelems = -1,
		.seq = -1,
		.ts = e->ts,
		.dur = e->dur,
		.stream = (e->flags & EV_HAS_STREAM) ? e->stream : TL_NOID,
		.uid = uid,
	};

	if (!r.pg_ranks || !r.kernel)
		return -ENOMEM;
	return tl_vec_push(&s->coll, r);
}

/* Candidates and launches, swept per thread in time order. */
static int find_around(struct tl_trace *tr, struct item *items, size_t n, struct ctx *ctx)
{
	struct item **stack = NULL;
	size_t depth = 0, cap = 0, i;
	int err = 0;

	tl_qsort(items, n, sizeof(*items), cmp_item);
	for (i = 0; i < n; i++) {
		const struct item *it = &items[i];

		if (i && (items[i - 1].pid != it->pid || items[i - 1].tid != it->tid))
			depth = 0;
		while (depth && it->ts >= stack[depth - 1]->end)
			depth--;
		if (it->cand != C_NONE) {
			if (tl_grow((void **)&stack, &cap, depth + 1, sizeof(*stack))) {
				err = -ENOMEM;
				break;
			}
			stack[depth++] = &items[i];
			continue;
		}
		{
			struct ctx *c = &ctx[it->rec];
			size_t k = depth;

			while (k--) {
				const struct item *o = stack[k];

				if (c->around[o->cand] < 0)
					c->around[o->cand] = o->uid;
			}
		}
	}
	free(stack);
	TL_UNUSED(tr);
	return err;
}

int tl_coll_extract(struct tl_trace *tr, struct tl_rank_summary *s)
{
	uint8_t *memo = NULL;	/* by name id: 1 + candidate class, or 1 + is-comm for GPU names */
	struct item *items = NULL;
	struct ctx *ctx = NULL;
	size_t nitems = 0, cap = 0, first = s->coll.n, i, nrec;
	int err;

	err = tl_links_ensure(tr);
	if (err)
		return err;
	memo = calloc(tr->strs.n + 1, 1);
	if (!memo)
		return -ENOMEM;
	/* the collective kernels */
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];

		if (e->kind != TL_KIND_KERNEL || (e->flags & (EV_HAS_TS | EV_HAS_DUR)) != (EV_HAS_TS | EV_HAS_DUR))
			continue;
		if (!memo[e->name])
			memo[e->name] = 1 + (tl_classify_gpu(tr, e) == TL_GPU_COMM);
		if (memo[e->name] == 2 && (err = new_rec(tr, s, i)))
			goto out;
	}
	nrec = s->coll.n - first;
	if (!nrec)
		goto out;
	ctx = malloc(nrec * sizeof(*ctx));
	if (!ctx) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nrec; i++) {
		size_t k;

		for (k = 0; k < C_NCAND; k++)
			ctx[i].around[k] = -1;
	}
	/* their launches, and the ops that may stand around them */
	memset(memo, 0, tr->strs.n + 1);
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		struct item it;

		if (e->kind != TL_KIND_CPU_OP && e->kind != TL_KIND_USER_ANNOTATION)
			continue;
		if (!memo[e->name])
			memo[e->name] = (uint8_t)(1 + cand_of_name(tl_ev_name(tr, e)));
		if (memo[e->name] == 1 || (e->flags & (EV_HAS_TS | EV_HAS_DUR)) != (EV_HAS_TS | EV_HAS_DUR))
			continue;
		it = (struct item){ e->pid, e->tid, e->ts, tl_ev_end(e), (uint32_t)i, -1,
				    (uint8_t)(memo[e->name] - 1) };
		if (tl_grow((void **)&items, &cap, nitems + 1, sizeof(*items))) {
			err = -ENOMEM;
			goto out;
		}
		items[nitems++] = it;
	}
	if (nitems) {
		for (i = 0; i < nrec; i++) {
			uint64_t k = s->coll.v[first + i].uid;
			int32_t rt = tr->tree.in_tree[k] == 2 ? tr->tree.parent[k] : -1;
			const struct tl_ev *e;

			if (rt < 0)
				continue;
			e = &tr->ev[rt];
			if (tl_grow((void **)&items, &cap, nitems + 1, sizeof(*items))) {
				err = -ENOMEM;
				goto out;
			}
			items[nitems++] = (struct item){ e->pid, e->tid, e->ts, tl_ev_end(e), (uint32_t)rt,
							 (int32_t)i, C_NONE };
		}
		err = find_around(tr, items, nitems, ctx);
		if (err)
			goto out;
	}
	for (i = 0; i < nrec && !err; i++)
		err = complete(tr, s, &s->coll.v[first + i], &ctx[i]);
out:
	free(ctx);
	free(items);
	free(memo);
	return err;
}
