/* SPDX-License-Identifier: MIT */
/* Interval arithmetic with TraceLens's exact semantics and summation order
 * (GPUEventAnalyser.merge_intervals / subtract_intervalsA_from_B), so the
 * floating-point results match its reports to the last bit where possible. */
#include "base/base_internal.h"

static int cmp_iv(const void *a, const void *b)
{
	const struct tl_iv *x = a, *y = b;

	return (x->s > y->s) - (x->s < y->s);
}

size_t tl_iv_merge(struct tl_iv *iv, size_t n)
{
	size_t i, m = 0;

	if (!n)
		return 0;
	/* Ties on start keep their relative order in Python's stable sort; the
	 * merged union does not depend on it, so qsort's order is fine. */
	tl_qsort(iv, n, sizeof(*iv), cmp_iv);
	for (i = 1; i < n; i++) {
		if (iv[i].s <= iv[m].e) {
			if (iv[i].e > iv[m].e)
				iv[m].e = iv[i].e;
		} else {
			iv[++m] = iv[i];
		}
	}
	return m + 1;
}

double tl_iv_sum(const struct tl_iv *iv, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += iv[i].e - iv[i].s;
	return s;
}

size_t tl_iv_subtract(const struct tl_iv *a, size_t na, const struct tl_iv *b, size_t nb,
		      struct tl_iv *out)
{
	size_t ai = 0, bi, n = 0;

	for (bi = 0; bi < nb; bi++) {
		double bs = b[bi].s, be = b[bi].e, cur = bs;
		size_t t;

		while (ai < na && a[ai].e <= bs)
			ai++;
		for (t = ai; t < na && a[t].s < be; t++) {
			if (a[t].s > cur) {
				out[n].s = cur;
				out[n].e = be < a[t].s ? be : a[t].s;
				n++;
			}
			if (a[t].e > cur)
				cur = a[t].e;
			if (cur >= be)
				break;
		}
		if (cur < be) {
			out[n].s = cur;
			out[n].e = be;
			n++;
		}
	}
	return n;
}

double tl_union_len(struct tl_iv *iv, size_t n)
{
	return tl_iv_sum(iv, tl_iv_merge(iv, n));
}
