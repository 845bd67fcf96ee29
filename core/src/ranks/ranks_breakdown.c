/* SPDX-License-Identifier: MIT */
/* The spread of the breakdown rows over the ranks: min, median, max and the
 * ranks at the ends. */
#include <stdio.h>

#include "ranks/ranks_internal.h"

struct val {
	double v;
	int rank;
};

static int cmp_val(const void *a, const void *b)
{
	const struct val *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Sorted values: min, median (mean of the middle two for an even count), max. */
static void spread_of(struct val *v, size_t n, double *mn, double *med, double *mx, int *rmin, int *rmax)
{
	size_t i;

	tl_qsort(v, n, sizeof(*v), cmp_val);
	*mn = v[0].v;
	*mx = v[n - 1].v;
	*med = n % 2 ? v[n / 2].v : (v[n / 2 - 1].v + v[n / 2].v) / 2;
	if (rmin)
		*rmin = v[0].rank;
	if (rmax) {
		/* the lowest rank among those with the largest value */
		for (i = n - 1; i > 0 && v[i - 1].v == v[n - 1].v; i--)
			;
		*rmax = v[i].rank;
	}
}

int tl_rankset_breakdown_spread(const struct tl_rankset *set, bool include_unlinked, struct tl_bd_spread *out)
{
	struct val *us = malloc((set->n + 1) * sizeof(*us)), *pct = malloc((set->n + 1) * sizeof(*pct));
	size_t i, n;
	int r, err = 0;

	memset(out, 0, sizeof(*out));
	if (!us || !pct) {
		err = tl_err(-ENOMEM, "out of memory");
		goto out;
	}
	for (r = 0; r < TL_BD_NROWS; r++) {
		struct tl_bd_spread_row *row = &out->row[r];

		for (i = n = 0; i < set->n; i++) {
			const struct tl_breakdown *bd = tl_rank_summary_breakdown(set->v[i], include_unlinked);
			double total;

			if (!bd)
				continue;
			total = bd->us[TL_BD_TOTAL];
			us[n] = (struct val){ bd->us[r], set->v[i]->info.rank };
			pct[n] = (struct val){ total > 0 ? bd->us[r] / total * 100 : 0, set->v[i]->info.rank };
			n++;
		}
		if (!n) {
			err = tl_err(-ENODATA, "no rank has %sGPU events", include_unlinked ? "" : "linked ");
			goto out;
		}
		out->nranks = n;
		spread_of(us, n, &row->min_us, &row->median_us, &row->max_us, &row->min_rank, &row->max_rank);
		spread_of(pct, n, &row->min_pct, &row->median_pct, &row->max_pct, NULL, NULL);
	}
out:
	free(us);
	free(pct);
	return err;
}
