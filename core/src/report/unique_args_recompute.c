/* SPDX-License-Identifier: MIT */
/* ops_unique_args of the recompute report: each group of launchers that
 * recorded the same args split into its recomputed launchers and the others
 * (TraceLens groups by is_recompute too), with the aggregates of each half. */
#include <errno.h>
#include <stdlib.h>

#include "report/report_internal.h"

struct uid_ix {
	uint64_t uid;
	size_t ix;
};

static int cmp_uid(const void *a, const void *b)
{
	const struct uid_ix *x = a, *y = b;

	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

static const struct tl_launcher *find(const struct tl_launcher_set *ls, const struct uid_ix *by,
				      uint64_t uid)
{
	struct uid_ix key = { uid, 0 }, *hit = bsearch(&key, by, ls->n, sizeof(*by), cmp_uid);

	return hit ? &ls->v[hit->ix] : NULL;
}

static void agg(double *v, size_t n, struct tl_time_agg *a)
{
	struct tl_agg t;

	tl_aggregate(v, n, &t);
	*a = (struct tl_time_agg){ .sum = t.sum, .mean = t.mean, .median = t.median, .std = t.std,
				   .min = t.min, .max = t.max };
}

static int cmp_half(const void *a, const void *b)
{
	const struct tl_launcher_group *x = a, *y = b;

	if (x->direct.sum != y->direct.sum)
		return x->direct.sum > y->direct.sum ? -1 : 1;
	return x->ex_uid < y->ex_uid ? -1 : x->ex_uid > y->ex_uid;
}

/* One half of group @g: its launchers whose recompute flag is @rc, into @h
 * (uids malloc'ed; count 0 when none). */
static int half(const struct tl_launcher_group *g, const struct tl_launcher_set *ls,
		const struct uid_ix *by, int rc, struct tl_launcher_group *h, double *tmp)
{
	size_t i, n = 0;

	*h = *g;
	h->count = 0;
	h->uids = malloc((g->count ? g->count : 1) * sizeof(*h->uids));
	if (!h->uids)
		return -ENOMEM;
	for (i = 0; i < g->count; i++) {
		const struct tl_launcher *l = find(ls, by, g->uids[i]);

		if ((l && l->recompute > 0) == rc)
			h->uids[h->count++] = g->uids[i];
	}
	if (!h->count)
		return 0;
	h->ex_uid = h->uids[0];
	for (i = 0; i < h->count; i++)
		tmp[n++] = find(ls, by, h->uids[i])->direct_us;
	agg(tmp, n, &h->direct);
	for (n = 0, i = 0; i < h->count; i++)
		tmp[n++] = find(ls, by, h->uids[i])->subtree_us;
	agg(tmp, n, &h->subtree);
	return 0;
}

int rpt_sheet_unique_args_recompute(const struct tl_launcher_group_set *set,
				    const struct tl_launcher_set *ls, const struct tl_trace *tr,
				    struct rpt_meta *meta, struct tl_sheet **out)
{
	struct tl_launcher_group_set split = { 0 };
	struct uid_ix *by = calloc(ls->n ? ls->n : 1, sizeof(*by));
	struct tl_launcher_group *v = calloc(2 * set->n + 1, sizeof(*v));
	signed char *rc = calloc(2 * set->n + 1, 1);
	double *tmp = NULL;
	size_t i, n = 0, most = 1;
	int err = -ENOMEM, r;

	for (i = 0; i < set->n; i++)
		most = set->v[i].count > most ? set->v[i].count : most;
	tmp = malloc(most * sizeof(*tmp));
	if (!by || !v || !rc || !tmp)
		goto out;
	for (i = 0; i < ls->n; i++)
		by[i] = (struct uid_ix){ ls->v[i].uid, i };
	tl_qsort(by, ls->n, sizeof(*by), cmp_uid);
	for (i = 0; i < set->n; i++)
		for (r = 0; r < 2; r++) {
			err = half(&set->v[i], ls, by, r, &v[n], tmp);
			if (err) {
				free(v[n].uids);
				goto out;
			}
			if (v[n].count)
				n++;
			else
				free(v[n].uids);
		}
	tl_qsort(v, n, sizeof(*v), cmp_half);
	for (i = 0; i < n; i++) {
		const struct tl_launcher *l = find(ls, by, v[i].ex_uid);

		rc[i] = l && l->recompute > 0;
	}
	split.n = n;
	split.v = v;
	err = rpt_sheet_unique_args(&split, rc, tr, meta, out);
out:
	for (i = 0; v && i < n; i++)
		free(v[i].uids);
	free(v);
	free(rc);
	free(tmp);
	free(by);
	return err;
}
