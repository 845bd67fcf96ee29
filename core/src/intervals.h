/* SPDX-License-Identifier: MIT */
/* Half-open time intervals [s, e) in microseconds. */
#ifndef TL_INTERVALS_H
#define TL_INTERVALS_H

#include "util.h"

struct tl_iv {
	double s, e;
};

/* Sort by start and merge in place (touching intervals merge); returns the count. */
size_t tl_iv_merge(struct tl_iv *iv, size_t n);
/* Sum of lengths, in order. */
double tl_iv_sum(const struct tl_iv *iv, size_t n);
/* out = b - a, both merged and sorted; @out needs room for na + nb intervals. */
size_t tl_iv_subtract(const struct tl_iv *a, size_t na, const struct tl_iv *b, size_t nb,
		      struct tl_iv *out);
/* |union| of @iv (sorted and merged in place). */
double tl_union_len(struct tl_iv *iv, size_t n);

#endif
