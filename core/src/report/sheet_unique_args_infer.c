/* SPDX-License-Identifier: MIT */
/* ops_unique_args of the inference report (--by-module): TraceLens groups
 * the kernel launchers by their parent nn.Module and by how many kernels each
 * launched too, and shows the first launcher's module call stack. Each group
 * of launchers that recorded the same args is split here by (parent module,
 * kernel count), in launch order, and the plain sheet gets the three columns
 * inserted where TraceLens puts them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"
#include "report/report_internal.h"

#define PM_LEN 320

/* One launcher's split key and call stack. */
struct lkey {
	char pm[PM_LEN];
	char *stack;		/* malloc'ed Python list repr */
	size_t nk;		/* the kernels it launched itself */
	double direct, subtree;
};

/* A split group: the plain group's fields, its own members and aggregates. */
struct part {
	struct tl_launcher_group g;	/* uids malloc'ed */
	const struct lkey *first;	/* key of its first launcher */
};

struct uid_ix {
	uint64_t uid;
	size_t ix;
};

static int cmp_uid(const void *a, const void *b)
{
	const struct uid_ix *x = a, *y = b;

	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

static int cmp_part(const void *a, const void *b)
{
	const struct part *x = a, *y = b;

	if (x->g.direct.sum != y->g.direct.sum)
		return x->g.direct.sum > y->g.direct.sum ? -1 : 1;
	return x->g.ex_uid < y->g.ex_uid ? -1 : x->g.ex_uid > y->g.ex_uid;
}

static void agg(double *v, size_t n, struct tl_time_agg *a)
{
	struct tl_agg t;

	tl_aggregate(v, n, &t);
	*a = (struct tl_time_agg){ .sum = t.sum, .mean = t.mean, .median = t.median, .std = t.std,
				   .min = t.min, .max = t.max };
}

/* The key of launcher @uid into @k (its times from @ls via @by). */
static int key_of(const struct tl_trace *tr, const struct tl_launcher_set *ls,
		  const struct uid_ix *by, uint64_t uid, struct lkey *k)
{
	struct uid_ix q = { uid, 0 }, *hit = bsearch(&q, by, ls->n, sizeof(*by), cmp_uid);
	struct prow r = { .uid = uid };
	int err;

	k->stack = tl_op_module_stack(tr, uid, k->pm, sizeof(k->pm));
	if (!k->stack)
		return -ENOMEM;
	err = rpt_kernels_of(tr, &r, true);
	k->nk = r.nk;
	prow_release(&r);
	if (err)
		return err;
	k->direct = hit ? ls->v[hit->ix].direct_us : 0;
	k->subtree = hit ? ls->v[hit->ix].subtree_us : 0;
	return 0;
}

static bool same_key(const struct lkey *a, const struct lkey *b)
{
	return a->nk == b->nk && !strcmp(a->pm, b->pm);
}

/* Split group @g into parts appended to @v (*n of them, room for g->count
 * more): one per distinct key, in the order each first appears. */
static int split(const struct tl_launcher_group *g, struct lkey *keys, struct part *v, size_t *n,
		 double *tmp)
{
	size_t i, j, start = *n, m;

	for (i = 0; i < g->count; i++) {
		for (j = start; j < *n && !same_key(v[j].first, &keys[i]); j++)
			;
		if (j == *n) {
			v[j].g = *g;
			v[j].g.count = 0;
			v[j].g.uids = malloc(g->count * sizeof(*v[j].g.uids));
			if (!v[j].g.uids)
				return -ENOMEM;
			v[j].first = &keys[i];
			(*n)++;
		}
		v[j].g.uids[v[j].g.count++] = g->uids[i];
	}
	for (j = start; j < *n; j++) {
		struct tl_launcher_group *h = &v[j].g;

		h->ex_uid = h->uids[0];
		for (m = 0, i = 0; i < g->count; i++)
			if (same_key(&keys[i], v[j].first))
				tmp[m++] = keys[i].direct;
		agg(tmp, m, &h->direct);
		for (m = 0, i = 0; i < g->count; i++)
			if (same_key(&keys[i], v[j].first))
				tmp[m++] = keys[i].subtree;
		agg(tmp, m, &h->subtree);
	}
	return 0;
}

/* @plain's rows with parent_module after "op category", num_kernels after
 * "Concrete Inputs" and call_stack after "ex_UID". */
static int widen(const struct tl_sheet *plain, const struct part *v, struct tl_sheet **out)
{
	size_t nc = tl_sheet_ncols(plain), i, j, c;
	const char **cols = calloc(nc + 3, sizeof(*cols));
	struct tl_cell *row = calloc(nc + 3, sizeof(*row));
	struct tl_sheet *sh = NULL;
	int err = -ENOMEM;

	if (!cols || !row)
		goto out;
	for (c = 0, j = 0; j < nc; j++) {
		const char *name = tl_sheet_col(plain, j);

		cols[c++] = name;
		if (!strcmp(name, "op category"))
			cols[c++] = "parent_module";
		else if (!strcmp(name, "Concrete Inputs"))
			cols[c++] = "num_kernels";
		else if (!strcmp(name, "ex_UID"))
			cols[c++] = "call_stack";
	}
	err = tl_sheet_new(tl_sheet_name(plain), c, cols, &sh);
	for (i = 0; !err && i < tl_sheet_nrows(plain); i++) {
		for (c = 0, j = 0; j < nc; j++) {
			const char *name = tl_sheet_col(plain, j);

			row[c++] = *tl_sheet_cell(plain, i, j);
			if (!strcmp(name, "op category"))
				row[c++] = tl_cell_str(v[i].first->pm);
			else if (!strcmp(name, "Concrete Inputs"))
				row[c++] = tl_cell_int((long long)v[i].first->nk);
			else if (!strcmp(name, "ex_UID"))
				row[c++] = tl_cell_str(v[i].first->stack);
		}
		err = tl_sheet_add_row(sh, row);
	}
out:
	free(cols);
	free(row);
	return rpt_sheet_done(sh, err, out);
}

int rpt_sheet_unique_args_infer(const struct tl_launcher_group_set *set,
				const struct tl_launcher_set *ls, const struct tl_trace *tr,
				struct rpt_meta *meta, struct tl_sheet **out)
{
	struct tl_launcher_group_set plain_set = { 0 };
	struct uid_ix *by = calloc(ls->n ? ls->n : 1, sizeof(*by));
	struct lkey **keys = calloc(set->n ? set->n : 1, sizeof(*keys));
	struct part *v = NULL;
	struct tl_sheet *plain = NULL;
	double *tmp = NULL;
	size_t i, j, n = 0, most = 1, total = 0;
	int err = -ENOMEM;

	for (i = 0; i < set->n; i++) {
		most = set->v[i].count > most ? set->v[i].count : most;
		total += set->v[i].count;
	}
	tmp = malloc(most * sizeof(*tmp));
	v = calloc(total ? total : 1, sizeof(*v));
	if (!by || !keys || !tmp || !v)
		goto out;
	for (i = 0; i < ls->n; i++)
		by[i] = (struct uid_ix){ ls->v[i].uid, i };
	tl_qsort(by, ls->n, sizeof(*by), cmp_uid);
	for (i = 0; i < set->n; i++) {
		const struct tl_launcher_group *g = &set->v[i];

		keys[i] = calloc(g->count ? g->count : 1, sizeof(**keys));
		if (!keys[i]) {
			err = -ENOMEM;
			goto out;
		}
		for (j = 0; j < g->count; j++) {
			err = key_of(tr, ls, by, g->uids[j], &keys[i][j]);
			if (err)
				goto out;
		}
		err = split(g, keys[i], v, &n, tmp);
		if (err)
			goto out;
	}
	tl_qsort(v, n, sizeof(*v), cmp_part);
	/* the plain builder reads the groups as a set; the parts are in order */
	{
		struct tl_launcher_group *gv = calloc(n ? n : 1, sizeof(*gv));

		if (!gv) {
			err = -ENOMEM;
			goto out;
		}
		for (i = 0; i < n; i++)
			gv[i] = v[i].g;
		plain_set.n = n;
		plain_set.v = gv;
		err = rpt_sheet_unique_args(&plain_set, NULL, tr, meta, &plain);
		free(gv);
	}
	if (!err)
		err = widen(plain, v, out);
out:
	tl_sheet_free(plain);
	for (i = 0; v && i < n; i++)
		free(v[i].g.uids);
	for (i = 0; keys && i < set->n; i++) {
		for (j = 0; keys[i] && j < set->v[i].count; j++)
			free(keys[i][j].stack);
		free(keys[i]);
	}
	free(keys);
	free(v);
	free(tmp);
	free(by);
	return err;
}
