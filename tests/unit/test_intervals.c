/* SPDX-License-Identifier: MIT */
/* Interval union and subtraction, the primitives of the GPU timeline
 * (cases after TraceLens's tests/test_subtract_intervals.py). */
#include <string.h>

#include "base/base_internal.h"
#include "tap.h"

#define IV(...) ((struct tl_iv[]){ __VA_ARGS__ })
#define N(a) (sizeof(a) / sizeof((a)[0]))

static bool sub_is(const struct tl_iv *a, size_t na, const struct tl_iv *b, size_t nb,
		   const struct tl_iv *want, size_t nw)
{
	struct tl_iv out[16];
	size_t n = tl_iv_subtract(a, na, b, nb, out), i;

	if (n != nw)
		return false;
	for (i = 0; i < n; i++)
		if (out[i].s != want[i].s || out[i].e != want[i].e)
			return false;
	return true;
}

int main(void)
{
	struct tl_iv m1[] = { { 5, 8 }, { 1, 3 }, { 2, 4 }, { 8, 9 }, { 10, 11 } };
	size_t n = tl_iv_merge(m1, N(m1));

	ok(n == 3 && m1[0].s == 1 && m1[0].e == 4 && m1[1].s == 5 && m1[1].e == 9 &&
		   m1[2].s == 10,
	   "merge sorts, merges overlaps and touching intervals");
	ok(tl_iv_sum(m1, n) == 3 + 4 + 1, "sum of merged lengths");
	ok(tl_iv_merge(NULL, 0) == 0, "merge of nothing");

	ok(sub_is(NULL, 0, IV({ 1, 5 }), 1, IV({ 1, 5 }), 1), "subtract nothing");
	ok(sub_is(IV({ 1, 5 }), 1, NULL, 0, NULL, 0), "from nothing");
	ok(sub_is(IV({ 0, 10 }), 1, IV({ 2, 5 }), 1, NULL, 0), "fully covered");
	ok(sub_is(IV({ 3, 4 }), 1, IV({ 2, 6 }), 1, IV({ 2, 3 }, { 4, 6 }), 2), "hole in the middle");
	ok(sub_is(IV({ 0, 2 }), 1, IV({ 2, 6 }), 1, IV({ 2, 6 }), 1), "touching on the left");
	ok(sub_is(IV({ 6, 8 }), 1, IV({ 2, 6 }), 1, IV({ 2, 6 }), 1), "touching on the right");
	ok(sub_is(IV({ 1, 3 }), 1, IV({ 2, 6 }), 1, IV({ 3, 6 }), 1), "overlap on the left");
	ok(sub_is(IV({ 5, 9 }), 1, IV({ 2, 6 }), 1, IV({ 2, 5 }), 1), "overlap on the right");
	ok(sub_is(IV({ 1, 2 }, { 3, 4 }, { 5, 6 }), 3, IV({ 0, 7 }), 1,
		  IV({ 0, 1 }, { 2, 3 }, { 4, 5 }, { 6, 7 }), 4),
	   "several holes");
	ok(sub_is(IV({ 1, 3 }), 1, IV({ 0, 2 }, { 2.5, 5 }), 2, IV({ 0, 1 }, { 3, 5 }), 2),
	   "one subtrahend across two intervals");
	ok(sub_is(IV({ 10, 20 }), 1, IV({ 0, 2 }, { 3, 5 }), 2, IV({ 0, 2 }, { 3, 5 }), 2),
	   "disjoint");
	return done_testing();
}
