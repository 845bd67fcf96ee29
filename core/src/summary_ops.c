/* SPDX-License-Identifier: MIT */
/* ops summary (TraceLens get_df_kernel_launchers_summary): launchers grouped
 * by name (and is_recompute), summed direct and subtree GPU busy time,
 * count, the set of op categories, share of the total direct time. */
#include "trace_internal.h"

struct op_group {
	struct tl_op_row row;
	TL_VEC(const char *) cats;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_rows(const void *a, const void *b)
{
	const struct tl_op_row *x = a, *y = b;
	int c;

	if (x->direct_us != y->direct_us)
		return x->direct_us > y->direct_us ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->recompute - y->recompute;
}

int tl_ops_summary(struct tl_trace *tr, const struct tl_ops_opts *opts, struct tl_op_table **out)
{
	struct tl_ops_opts o = { 0 };
	struct tl_launcher_opts lo = { .sz = sizeof(lo) };
	struct tl_launcher_set *ls = NULL;
	TL_VEC(struct op_group) g = { 0 };
	struct tl_op_table *t = NULL;
	struct tl_kmap idx;
	double total = 0, cum = 0;
	size_t i, j;
	int err;

	*out = NULL;
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	lo.include_nccl = o.include_nccl;
	lo.detect_recompute = o.split_recompute;
	err = tl_launchers(tr, &lo, &ls);
	if (err)
		return err;
	if (tl_kmap_init(&idx, 256))
		goto nomem;
	for (i = 0; i < ls->n; i++) {
		const struct tl_launcher *l = &ls->v[i];
		const struct tl_ev *e = &tr->ev[l->uid];
		int rc = o.split_recompute ? l->recompute : -1;
		uint32_t gi;

		if (!tl_kmap_get(&idx, e->name, rc, &gi)) {
			struct op_group ng = { 0 };

			ng.row.name = tl_strtab_get(&tr->strs, e->name);
			ng.row.recompute = rc;
			ng.row.ex_uid = l->uid;
			gi = (uint32_t)g.n;
			if (tl_vec_push(&g, ng) || tl_kmap_put(&idx, e->name, rc, gi)) {
				tl_kmap_free(&idx);
				goto nomem;
			}
		}
		g.v[gi].row.direct_us += l->direct_us;
		g.v[gi].row.subtree_us += l->subtree_us;
		g.v[gi].row.count++;
		for (j = 0; j < g.v[gi].cats.n; j++)
			if (g.v[gi].cats.v[j] == l->category)
				break;
		if (j == g.v[gi].cats.n && tl_vec_push(&g.v[gi].cats, l->category)) {
			tl_kmap_free(&idx);
			goto nomem;
		}
	}
	tl_kmap_free(&idx);

	t = calloc(1, sizeof(*t));
	if (!t || (g.n && !(t->v = calloc(g.n, sizeof(*t->v)))))
		goto nomem;
	t->n = g.n;
	for (i = 0; i < g.n; i++) {
		struct tl_op_row *r = &t->v[i];

		*r = g.v[i].row;
		qsort(g.v[i].cats.v, g.v[i].cats.n, sizeof(*g.v[i].cats.v), cmp_str);
		r->categories = g.v[i].cats.v;
		r->ncategories = g.v[i].cats.n;
		g.v[i].cats.v = NULL;
	}
	qsort(t->v, t->n, sizeof(*t->v), cmp_rows);
	/* Percentages over the ms values, summed in row order like pandas. */
	for (i = 0; i < t->n; i++)
		total += t->v[i].direct_us / 1000;
	t->total_direct_us = total * 1000;
	for (i = 0; i < t->n; i++) {
		t->v[i].pct = total > 0 ? t->v[i].direct_us / 1000 / total * 100 : 0;
		cum += t->v[i].pct;
		t->v[i].cum_pct = cum;
	}
	*out = t;
	t = NULL;
	err = 0;
	goto out;
nomem:
	err = tl_err(-ENOMEM, "out of memory summarising ops");
out:
	for (i = 0; i < g.n; i++)
		tl_vec_free(&g.v[i].cats);
	tl_vec_free(&g);
	tl_op_table_free(t);
	tl_launcher_set_free(ls);
	return err;
}

void tl_op_table_free(struct tl_op_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++) {
		free(t->v[i].categories);
		free((void *)t->v[i].call_stack);
	}
	free(t->v);
	free(t);
}
