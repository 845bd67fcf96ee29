/* SPDX-License-Identifier: MIT */
/* The merged call tree of two traces (TraceLens's TraceDiff.merge_trees):
 * top-level CPU ops paired by position, then, under each pair, the children
 * on a GPU path aligned by normalised name. The alignment itself (edit
 * distance, same-name disambiguation) is in trace_diff_align.c. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/trace_diff.h>
#include <tlreplay/tree.h>

#include "analysis/analysis_internal.h"

/* ------------------------------------------------------------------ merging */

static int new_node(struct tl_trace_diff *d, int64_t u1, int64_t u2, uint32_t *id)
{
	struct td_node *nv;

	if (d->nnodes == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 1024;

		nv = realloc(d->nodes, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		d->nodes = nv;
		d->cap = cap;
	}
	*id = (uint32_t)d->nnodes++;
	memset(&d->nodes[*id], 0, sizeof(d->nodes[*id]));
	d->nodes[*id].uid[0] = u1;
	d->nodes[*id].uid[1] = u2;
	return 0;
}

/* Whether some entry of @v has normalised name @nm. */
static bool has_name(const struct td_side *s, const struct td_vec *v, size_t n, const char *nm)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const char *o = td_norm(s, (uint64_t)v->v[i], false);

		if (o && !strcmp(o, nm))
			return true;
	}
	return false;
}

/* TraceLens's get_children_with_missing: the GPU-path children of each side,
 * plus, for a name on a GPU path on one side only, the last child of that
 * name on the other side (which is off its GPU path). */
static int aligned_children(struct tl_trace_diff *d, int64_t u1, int64_t u2, struct td_vec c[2])
{
	struct td_vec all[2] = { { 0 } };
	size_t ngpu[2], i, j;
	int err = 0, k;

	for (k = 0; k < 2 && !err; k++)
		err = td_gpu_children(&d->s[k], k ? u2 : u1, &all[k], &c[k]);
	ngpu[0] = c[0].n;
	ngpu[1] = c[1].n;
	for (k = 0; k < 2 && !err; k++) {
		const struct td_side *me = &d->s[k], *ot = &d->s[!k];

		for (i = 0; i < ngpu[k] && !err; i++) {
			const char *nm = td_norm(me, (uint64_t)c[k].v[i], false);
			int64_t last = -1;

			if (!nm || has_name(me, &c[k], i, nm) || has_name(ot, &c[!k], ngpu[!k], nm))
				continue;
			for (j = 0; j < all[!k].n; j++) {
				const char *on = td_norm(ot, (uint64_t)all[!k].v[j], false);

				if (on && !strcmp(on, nm))
					last = all[!k].v[j];
			}
			if (last >= 0)
				err = td_push(&c[!k], last);
		}
	}
	for (k = 0; k < 2; k++) {
		if (!err)
			err = td_sort_by_ts(&d->s[k], &c[k]);
		free(all[k].v);
	}
	return err;
}

static bool any_dispatch(const struct td_side *s, const struct td_vec *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (td_is_dispatch(s, (uint64_t)v->v[i]))
			return true;
	return false;
}

static int merge(struct tl_trace_diff *d, int64_t u1, int64_t u2, uint32_t *out);

static int merge(struct tl_trace_diff *d, int64_t u1, int64_t u2, uint32_t *out)
{
	struct td_vec c[2] = { { 0 } }, kids = { 0 };
	struct td_ops ops = { 0 };
	uint32_t id, *ch = NULL;
	size_t i, nch = 0;
	int err;

	err = new_node(d, u1, u2, &id);
	if (err)
		return err;
	*out = id;
	err = aligned_children(d, u1, u2, c);
	if (err)
		goto out;

	/* Phase 1: one side has a single child, the other several: follow the
	 * single child down to where it branches. That deeper node stands for
	 * this side of the merged node. */
	if (c[0].n != c[1].n) {
		for (int k = 0; k < 2; k++) {
			int64_t deep;

			if (c[k].n != 1)
				continue;
			err = td_collapse(&d->s[k], c[k].v[0], &kids, &deep);
			if (err)
				goto out;
			if (kids.n) {
				d->nodes[id].uid[k] = deep;
				c[k].n = 0;
				for (i = 0; i < kids.n && !err; i++)
					err = td_push(&c[k], kids.v[i]);
				if (err)
					goto out;
			}
			break;
		}
	}

	/* Phase 2: same count and no dispatch call: pair by position; else align. */
	if (c[0].n == c[1].n && !any_dispatch(&d->s[0], &c[0]) && !any_dispatch(&d->s[1], &c[1])) {
		for (i = 0; i < c[0].n && !err; i++)
			err = td_ops_add(&ops, TD_MATCH, (long)i, (long)i);
	} else {
		err = td_align(d, &c[0], &c[1], false, &ops);
	}
	if (err)
		goto out;

	/* Phase 3: an unmatched op that wraps the other side's op is opened up. */
	err = td_reconcile(d, c, &ops);
	if (err)
		goto out;

	/* Phase 4: unmatched leftovers collapsed through wrappers, aligned again. */
	err = td_realign_leftovers(d, c, &ops);
	if (err)
		goto out;

	ch = malloc((ops.n ? ops.n : 1) * sizeof(*ch));
	if (!ch) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < ops.n; i++) {
		const struct td_op *op = &ops.v[i];
		int64_t a = op->i >= 0 ? c[0].v[op->i] : -1;
		int64_t b = op->j >= 0 ? c[1].v[op->j] : -1;

		err = merge(d, a, b, &ch[nch]);
		if (err)
			goto out;
		nch++;
	}
	d->nodes[id].children = ch;
	d->nodes[id].nchildren = nch;
	ch = NULL;
out:
	free(ch);
	free(c[0].v);
	free(c[1].v);
	free(kids.v);
	free(ops.v);
	return err;
}

/* TraceLens's cpu_root_nodes, each taken up to the top of its tree: CPU ops
 * with no CPU op above them, by timestamp, distinct. */
static int side_roots(const struct td_side *s, struct td_vec *roots)
{
	unsigned char *seen = calloc(s->n ? s->n : 1, 1);
	uint64_t u;
	int64_t p, top;
	int err = 0;

	if (!seen)
		return -ENOMEM;
	for (u = 0; u < s->n && !err; u++) {
		bool under_op = false;

		if (s->kind[u] != TL_KIND_CPU_OP || !tl_event_in_tree(s->tr, u))
			continue;
		top = (int64_t)u;
		for (p = tl_event_parent(s->tr, u); p >= 0; p = tl_event_parent(s->tr, (uint64_t)p)) {
			if (s->kind[p] == TL_KIND_CPU_OP)
				under_op = true;
			top = p;
		}
		if (under_op || seen[top])
			continue;
		seen[top] = 1;
		err = td_push(roots, top);
	}
	free(seen);
	/* stable by timestamp */
	return err ? err : td_sort_by_ts(s, roots);
}

static void index_uids(struct tl_trace_diff *d)
{
	size_t i;

	for (i = 0; i < d->nnodes; i++)
		for (int k = 0; k < 2; k++)
			if (d->nodes[i].uid[k] >= 0)
				d->s[k].merged[d->nodes[i].uid[k]] = (uint32_t)i + 1;
}

/* One side's preparation: its tree, per-UID facts and roots. */
struct prep {
	struct td_side *s;
	struct td_vec *roots;
	int err;
};

static void *prep_side(void *arg)
{
	struct tl_link_opts lo = { .sz = sizeof(lo) };
	struct prep *p = arg;

	p->err = tl_trace_link(p->s->tr, &lo);
	if (!p->err)
		p->err = td_side_init(p->s, p->s->tr);
	if (!p->err)
		p->err = side_roots(p->s, p->roots);
	return NULL;
}

int tl_trace_diff_build(struct tl_trace *base, struct tl_trace *var,
			const struct tl_trace_diff_opts *o, struct tl_trace_diff **out)
{
	struct prep p[2];
	struct tl_trace_diff *d;
	pthread_t th;
	size_t i, n;
	int err;

	(void)o;
	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	/* the two sides are independent: the variant's in a second thread */
	for (int k = 0; k < 2; k++) {
		d->s[k].tr = k ? var : base;
		p[k] = (struct prep){ &d->s[k], &d->roots_side[k], 0 };
	}
	if (base == var || pthread_create(&th, NULL, prep_side, &p[1])) {
		prep_side(&p[0]);
		prep_side(&p[1]);
	} else {
		prep_side(&p[0]);
		pthread_join(th, NULL);
	}
	err = p[0].err ? p[0].err : p[1].err;
	if (err)
		goto fail;
	*out = d;
	if (!d->roots_side[0].n || !d->roots_side[1].n)
		return -ENODATA;
	n = d->roots_side[0].n > d->roots_side[1].n ? d->roots_side[0].n : d->roots_side[1].n;
	d->roots = calloc(n, sizeof(*d->roots));
	if (!d->roots) {
		err = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < n; i++) {
		int64_t a = i < d->roots_side[0].n ? d->roots_side[0].v[i] : -1;
		int64_t b = i < d->roots_side[1].n ? d->roots_side[1].v[i] : -1;

		err = merge(d, a, b, &d->roots[i]);
		if (err)
			goto fail;
		d->nroots++;
	}
	index_uids(d);
	return 0;
fail:
	*out = NULL;
	tl_trace_diff_free(d);
	return err;
}

void tl_trace_diff_free(struct tl_trace_diff *d)
{
	size_t i;

	if (!d)
		return;
	if (d->stats_free)
		d->stats_free(d->stats);
	for (i = 0; i < d->nnodes; i++)
		free(d->nodes[i].children);
	free(d->nodes);
	free(d->roots);
	for (int k = 0; k < 2; k++) {
		td_side_free(&d->s[k]);
		free(d->roots_side[k].v);
	}
	free(d);
}

struct tl_trace *tl_trace_diff_trace(const struct tl_trace_diff *d, int side)
{
	return d->s[side ? 1 : 0].tr;
}

size_t tl_trace_diff_nnodes(const struct tl_trace_diff *d)
{
	return d->nnodes;
}

size_t tl_trace_diff_nroots(const struct tl_trace_diff *d)
{
	return d->nroots;
}

uint32_t tl_trace_diff_root(const struct tl_trace_diff *d, size_t i)
{
	return d->roots[i];
}

size_t tl_trace_diff_nside_roots(const struct tl_trace_diff *d, int side)
{
	return d->roots_side[side ? 1 : 0].n;
}

int tl_trace_diff_node(const struct tl_trace_diff *d, uint32_t id, struct tl_diff_node *out)
{
	const struct td_node *n;

	if (id >= d->nnodes)
		return -ERANGE;
	n = &d->nodes[id];
	memset(out, 0, sizeof(*out));
	out->id = id;
	for (int k = 0; k < 2; k++) {
		out->uid[k] = n->uid[k];
		if (n->uid[k] >= 0) {
			out->name[k] = td_raw_name(&d->s[k], (uint64_t)n->uid[k]);
			out->gpu_us[k] = d->s[k].gpu_us[n->uid[k]];
		}
	}
	out->side = n->uid[0] >= 0 && n->uid[1] >= 0 ? TL_DIFF_BOTH
		    : n->uid[0] >= 0		     ? TL_DIFF_BASE_ONLY
						     : TL_DIFF_VARIANT_ONLY;
	out->nchildren = n->nchildren;
	out->children = n->children;
	return 0;
}

int64_t tl_trace_diff_find(const struct tl_trace_diff *d, int side, uint64_t uid)
{
	const struct td_side *s = &d->s[side ? 1 : 0];

	if (uid >= s->n)
		return -1;
	return (int64_t)s->merged[uid] - 1;
}
