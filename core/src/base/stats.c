/* SPDX-License-Identifier: MIT */
/* Summary statistics of a column of numbers: one place for the mean, sample
 * standard deviation and median that the replay timings, the launcher groups
 * and the collectives summary report. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/replay.h>

#include "base/base_internal.h"

static int cmp_double_p(const void *a, const void *b)
{
	return tl_cmp_double(*(const double *)a, *(const double *)b);
}

void tl_sort_doubles(double *v, size_t n)
{
	tl_qsort(v, n, sizeof(*v), cmp_double_p);
}

void tl_aggregate(double *v, size_t n, struct tl_agg *a)
{
	double sum = 0, mean = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += v[i];
	a->sum = sum;
	a->mean = sum / (double)n;
	/* the sample std as pandas' groupby computes it, by Welford's
	 * updates: equal values give exactly 0, where a two-pass sum of
	 * squares around sum/n keeps the rounding of that mean (1e-12 for
	 * 36 equal durations of a replayed graph) */
	for (i = 0; i < n; i++) {
		double old = mean;

		mean += (v[i] - old) / (double)(i + 1);
		ss += (v[i] - mean) * (v[i] - old);
	}
	a->std = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
	tl_sort_doubles(v, n);
	a->min = v[0];
	a->max = v[n - 1];
	a->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* numpy's aquicksort (npysort/quicksort.cpp) on @v through the index array
 * @ix: median-of-3 quicksort down to 16 elements, then insertion sort; the
 * larger part is pushed and the smaller one sorted first. Its heapsort
 * fallback (past 2 log2 n levels) is left out: a median-of-3 pivot does not
 * get there on the tables TraceLens sorts. */
static void np_aquicksort(const double *v, size_t *ix, size_t num)
{
	size_t *pl = ix, *pr = ix + num - 1, *stack[128], **sp = stack;
	size_t *pm, *pi, *pj, *pk, vi, t;
	double vp;

#define IX_SWAP(a, b) (t = (a), (a) = (b), (b) = t)
	if (num < 2)
		return;
	for (;;) {
		while (pr - pl > 15) {
			pm = pl + ((pr - pl) >> 1);
			if (v[*pm] < v[*pl])
				IX_SWAP(*pm, *pl);
			if (v[*pr] < v[*pm])
				IX_SWAP(*pr, *pm);
			if (v[*pm] < v[*pl])
				IX_SWAP(*pm, *pl);
			vp = v[*pm];
			pi = pl;
			pj = pr - 1;
			IX_SWAP(*pm, *pj);
			for (;;) {
				do
					++pi;
				while (v[*pi] < vp);
				do
					--pj;
				while (vp < v[*pj]);
				if (pi >= pj)
					break;
				IX_SWAP(*pi, *pj);
			}
			pk = pr - 1;
			IX_SWAP(*pi, *pk);
			if (pi - pl < pr - pi) {
				*sp++ = pi + 1;
				*sp++ = pr;
				pr = pi - 1;
			} else {
				*sp++ = pl;
				*sp++ = pi - 1;
				pl = pi + 1;
			}
		}
		for (pi = pl + 1; pi <= pr; ++pi) {
			vi = *pi;
			vp = v[vi];
			pj = pi;
			pk = pi - 1;
			while (pj > pl && vp < v[*pk])
				*pj-- = *pk--;
			*pj = vi;
		}
		if (sp == stack)
			break;
		pr = *(--sp);
		pl = *(--sp);
	}
#undef IX_SWAP
}

void tl_pandas_argsort_desc(const double *v, size_t n, size_t *order)
{
	double *rv = calloc(n ? n : 1, sizeof(*rv));
	size_t *ix = calloc(n ? n : 1, sizeof(*ix)), *at = calloc(n ? n : 1, sizeof(*at));
	size_t i, m = 0, k;

	if (!rv || !ix || !at) {
		/* no memory: a stable order, ties as given, NaNs last */
		for (i = 0; i < n; i++)
			order[i] = i;
		for (i = 1; i < n; i++) {
			size_t x = order[i], j = i;

			for (; j > 0 && (v[order[j - 1]] < v[x] || (isnan(v[order[j - 1]]) && !isnan(v[x])));
			     j--)
				order[j] = order[j - 1];
			order[j] = x;
		}
		goto out;
	}
	/* the numbers reversed (at[]: their rows), argsorted ascending, the
	 * indexer reversed back; then the NaNs */
	for (i = n; i-- > 0;)
		if (!isnan(v[i])) {
			at[m] = i;
			rv[m] = v[i];
			ix[m] = m;
			m++;
		}
	np_aquicksort(rv, ix, m);
	for (k = 0; k < m; k++)
		order[k] = at[ix[m - 1 - k]];
	for (i = 0; i < n; i++)
		if (isnan(v[i]))
			order[k++] = i;
out:
	free(rv);
	free(ix);
	free(at);
}

int tl_pandas_sort_desc(void *rows, size_t n, size_t size, size_t key_off)
{
	double *key = NULL;
	size_t *ord = NULL, i;
	char *tmp = NULL, *v = rows;
	int err = -ENOMEM;

	if (n < 2)
		return 0;
	key = malloc(n * sizeof(*key));
	ord = malloc(n * sizeof(*ord));
	tmp = malloc(n * size);
	if (!key || !ord || !tmp)
		goto out;
	for (i = 0; i < n; i++)
		memcpy(&key[i], v + i * size + key_off, sizeof(*key));
	tl_pandas_argsort_desc(key, n, ord);
	for (i = 0; i < n; i++)
		memcpy(tmp + i * size, v + ord[i] * size, size);
	memcpy(v, tmp, n * size);
	err = 0;
out:
	free(key);
	free(ord);
	free(tmp);
	return err;
}

/* The public summary of replay timings (tlreplay/replay.h): the aggregate
 * above, with std 0 for one value. */
void tl_stats_compute(const double *v, size_t n, struct tl_stats *s)
{
	struct tl_agg a;
	double *c;

	memset(s, 0, sizeof(*s));
	s->n = n;
	if (!n)
		return;
	c = malloc(n * sizeof(*c));	/* tl_aggregate() sorts; @v is the caller's */
	if (!c)
		return;
	memcpy(c, v, n * sizeof(*c));
	tl_sort_doubles(c, n);	/* sums in ascending order, as these stats always had them */
	tl_aggregate(c, n, &a);
	s->median = a.median;
	s->mean = a.mean;
	s->std = n > 1 ? a.std : 0;	/* the public struct says 0 for one value, not NaN */
	s->min = a.min;
	s->max = a.max;
	free(c);
}
