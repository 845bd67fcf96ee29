/* SPDX-License-Identifier: MIT */
/* Kernel launchers (TraceLens TreePerf.get_kernel_launchers): every linked
 * GPU event is attributed to the first cpu_op above its runtime call
 * (python functions and "execute" are passed through), else to the runtime
 * call. Per launcher: the busy time of its own GPU events ("direct") and of
 * every GPU event below it ("subtree"). NCCL kernels are left out unless
 * asked for, as TraceLens does. */
#include "analysis/analysis_internal.h"
#include "trace/trace_internal.h"

static bool has_nccl(const char *s)
{
	for (; *s; s++)
		if ((s[0] | 0x20) == 'n' && (s[1] | 0x20) == 'c' && (s[2] | 0x20) == 'c' &&
		    (s[3] | 0x20) == 'l')
			return true;
	return false;
}

/* Union busy time of a set of GPU events. */
static double busy_of(const struct tl_trace *tr, const uint32_t *uids, size_t n, struct tl_iv *buf)
{
	size_t i;

	for (i = 0; i < n; i++) {
		buf[i].s = tr->ev[uids[i]].ts;
		buf[i].e = tl_ev_end(&tr->ev[uids[i]]);
	}
	return tl_union_len(buf, n);
}

/* GPU events in the subtree of @root, into @acc (reset first). */
static int subtree_gpu(const struct tl_trace *tr, int32_t root, void *accp, void *stackp)
{
	TL_VEC(uint32_t) *acc = accp;
	TL_VEC(int32_t) *stack = stackp;
	const struct tl_tree *t = &tr->tree;

	acc->n = 0;
	stack->n = 0;
	if (tl_vec_push(stack, root))
		return -ENOMEM;
	while (stack->n) {
		int32_t u = stack->v[--stack->n], c;

		if (tl_kind_is_gpu(tr->ev[u].kind)) {
			if ((tr->ev[u].flags & (EV_HAS_TS | EV_HAS_DUR)) == (EV_HAS_TS | EV_HAS_DUR) &&
			    tl_vec_push(acc, (uint32_t)u))
				return -ENOMEM;
			continue;
		}
		for (c = t->first_child[u]; c >= 0; c = t->next_sibling[c])
			if (tl_vec_push(stack, c))
				return -ENOMEM;
	}
	return 0;
}

struct pair {
	uint32_t launcher_idx;
	uint32_t kernel;
};

static int cmp_launcher_ts(const void *a, const void *b, void *ctx)
{
	const struct tl_trace *tr = ctx;
	const struct tl_launcher *x = a, *y = b;
	double tx = tr->ev[x->uid].ts, ty = tr->ev[y->uid].ts;

	if (tx != ty)
		return tx < ty ? -1 : 1;
	/* stable: first-seen order, kept in first_kernel (UID order of kernels) */
	return (x->first_kernel > y->first_kernel) - (x->first_kernel < y->first_kernel);
}

int tl_launchers(struct tl_trace *tr, const struct tl_launcher_opts *opts,
		 struct tl_launcher_set **out)
{
	struct tl_launcher_opts o = { 0 };
	struct tl_launcher_set *set = NULL;
	struct tl_kmap idx;
	TL_VEC(struct pair) pairs = { 0 };
	TL_VEC(struct tl_launcher) ls = { 0 };
	TL_VEC(uint32_t) acc = { 0 };
	TL_VEC(int32_t) stack = { 0 };
	uint8_t *recompute = NULL, *nccl = NULL;
	uint32_t *kern = NULL;
	size_t *start = NULL;
	struct tl_iv *ivbuf = NULL;
	size_t i, ivcap = 0;
	int err;

	*out = NULL;
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	err = tl_tree_ensure(tr, o.detect_recompute || o.with_python);
	if (err)
		return err;
	if (o.detect_recompute && (err = tl_recompute_flags(tr, &recompute)))
		return err;
	if (tl_kmap_init(&idx, 1024))
		goto nomem;
	nccl = calloc(tr->strs.n, 1);	/* by name: 1 no, 2 yes */
	if (!nccl)
		goto nomem;

	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		int64_t l;
		uint32_t li;

		if (!tl_kind_is_gpu(e->kind) || tr->tree.in_tree[i] != 2)
			continue;
		if ((e->flags & (EV_HAS_TS | EV_HAS_DUR)) != (EV_HAS_TS | EV_HAS_DUR))
			continue;
		if (!nccl[e->name])
			nccl[e->name] = has_nccl(tl_strtab_get(&tr->strs, e->name)) ? 2 : 1;
		if (nccl[e->name] == 2 && !o.include_nccl)
			continue;
		l = tl_event_launcher(tr, i);
		if (l < 0)
			continue;
		if (!tl_kmap_get(&idx, 0, l, &li)) {
			struct tl_launcher x = { 0 };

			x.uid = (uint64_t)l;
			x.first_kernel = i;
			x.recompute = recompute ? recompute[l] : -1;
			li = (uint32_t)ls.n;
			if (tl_vec_push(&ls, x) || tl_kmap_put(&idx, 0, l, li))
				goto nomem;
		}
		ls.v[li].nkernels++;
		if (tl_vec_push(&pairs, ((struct pair){ li, (uint32_t)i })))
			goto nomem;
	}

	/* group kernels by launcher, keeping UID order (counting sort) */
	start = calloc(ls.n + 1, sizeof(*start));
	kern = malloc(pairs.n * sizeof(*kern) + 1);
	if (!start || !kern)
		goto nomem;
	for (i = 0; i < ls.n; i++)
		start[i + 1] = start[i] + ls.v[i].nkernels;
	{
		size_t *pos = malloc((ls.n + 1) * sizeof(*pos));

		if (!pos)
			goto nomem;
		memcpy(pos, start, (ls.n + 1) * sizeof(*pos));
		for (i = 0; i < pairs.n; i++)
			kern[pos[pairs.v[i].launcher_idx]++] = pairs.v[i].kernel;
		free(pos);
	}

	for (i = 0; i < ls.n; i++) {
		struct tl_launcher *x = &ls.v[i];
		size_t nk = x->nkernels;

		if (subtree_gpu(tr, (int32_t)x->uid, &acc, &stack))
			goto nomem;
		if (tl_grow((void **)&ivbuf, &ivcap, (nk > acc.n ? nk : acc.n) + 1, sizeof(*ivbuf)))
			goto nomem;
		x->direct_us = busy_of(tr, kern + start[i], nk, ivbuf);
		x->subtree_us = acc.n ? busy_of(tr, acc.v, acc.n, ivbuf) : 0;
		x->category = tl_op_category(tr, x->uid, (int64_t)kern[start[i]]);
	}
	if (ls.n > 1)
		tl_qsort_r(ls.v, ls.n, sizeof(*ls.v), cmp_launcher_ts, tr);

	set = calloc(1, sizeof(*set));
	if (!set)
		goto nomem;
	set->n = ls.n;
	set->v = ls.v;
	ls.v = NULL;
	*out = set;
	err = 0;
	goto out;
nomem:
	err = tl_err(-ENOMEM, "out of memory finding kernel launchers");
out:
	tl_kmap_free(&idx);
	tl_vec_free(&pairs);
	tl_vec_free(&ls);
	tl_vec_free(&acc);
	tl_vec_free(&stack);
	free(recompute);
	free(nccl);
	free(kern);
	free(start);
	free(ivbuf);
	return err;
}

void tl_launcher_set_free(struct tl_launcher_set *set)
{
	if (!set)
		return;
	free(set->v);
	free(set);
}
