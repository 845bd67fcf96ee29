/* SPDX-License-Identifier: MIT */
/* Summary statistics of a column of numbers: one place for the mean, sample
 * standard deviation and median that the replay timings, the launcher groups
 * and the collectives summary report. */
#include <math.h>

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
