/* SPDX-License-Identifier: MIT */
/* tl_aggregate: the sum, mean, sample std, min, max and median of a group,
 * as pandas' groupby computes them. The std is Welford's: equal values give
 * exactly 0 (TraceLens's golden sheets print 0.0 for the 36 equal durations
 * of a replayed CUDA graph, where a two-pass sum of squares left 1.15e-12).
 * tl_pandas_argsort_desc: pandas' sort_values(ascending=False) order, equal
 * values as numpy's quicksort leaves them (the expected order below is what
 * numpy 1.24's argsort gives through pandas' nargsort). */
#include <math.h>
#include <string.h>

#include "base/base_internal.h"

#include "tap.h"

int main(void)
{
	double v[36], w[] = { 2, 4, 4, 4, 5, 5, 7, 9 }, one[] = { 3.5 };
	struct tl_agg a;
	size_t i;

	plan(10);
	for (i = 0; i < 36; i++)
		v[i] = 1572.609;
	tl_aggregate(v, 36, &a);
	ok(a.std == 0.0, "36 equal values: std exactly 0 (%.17g)", a.std);
	ok(a.min == 1572.609 && a.max == 1572.609 && a.median == 1572.609,
	   "36 equal values: min, max and median are the value");
	tl_aggregate(w, 8, &a);
	ok(a.sum == 40 && a.mean == 5, "sum 40, mean 5");
	ok(fabs(a.std - sqrt(32.0 / 7)) < 1e-15, "sample std (ddof 1): sqrt(32/7) (%.17g)", a.std);
	ok(a.median == 4.5 && a.min == 2 && a.max == 9, "median of an even count: the mean of the middle two");
	tl_aggregate(one, 1, &a);
	ok(isnan(a.std) && a.mean == 3.5 && a.median == 3.5, "one value: std NaN, as pandas gives");
	/* a large offset: Welford keeps the spread, not the offset's rounding */
	{
		double big[] = { 1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16 };

		tl_aggregate(big, 4, &a);
		ok(fabs(a.std - sqrt(90.0 / 3)) < 1e-6, "values around 1e9: std sqrt(30) (%.17g)", a.std);
	}
	{
		static const double pv[40] = { 5, 3, 4, 5, 3, 4, 5, 1, 0, 1, 1, 5, 5, 0, 2, 4, 0, 4, 0, 2,
					       4, 1, 2, 1, 4, 1, 5, 2, 2, 3, 3, 3, 3, 5, 4, 4, 4, 3, 2, 5 };
		static const size_t want[40] = { 0,  6,  33, 26, 12, 11, 39, 3,  20, 15, 24, 2,  17, 35,
						 34, 36, 5,  4,  30, 1,  32, 37, 31, 29, 14, 19, 22, 38,
						 27, 28, 7,  25, 21, 10, 9,  23, 8,  18, 16, 13 };
		const double small[3] = { 2, 7, 2 };
		size_t ord[40], k, same = 0;

		tl_pandas_argsort_desc(pv, 40, ord);
		for (k = 0; k < 40; k++)
			same += ord[k] == want[k];
		ok(same == 40, "40 values with ties: numpy's quicksort order through pandas' nargsort (%zu of 40)",
		   same);
		tl_pandas_argsort_desc(small, 3, ord);
		ok(ord[0] == 1 && ord[1] == 0 && ord[2] == 2, "a short table: equal values in their order");
		tl_pandas_argsort_desc(small, 0, ord);
		ok(1, "no values: nothing to do");
	}
	return done_testing();
}
