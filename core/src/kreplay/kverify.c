/* SPDX-License-Identifier: MIT */
/* Comparing replayed memory with the recorded outputs: bitwise first; where
 * bytes differ and a float type is given, element by element within a
 * tolerance (a different GEMM split, atomics in another order). */
#include <math.h>
#include <string.h>

#include "kreplay/kreplay_internal.h"

static double half_to_double(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m | 0x400, e - 25);

	return h & 0x8000 ? -v : v;
}

static double elem(const unsigned char *p, enum tl_kdtype dt)
{
	switch (dt) {
	case TL_KDT_F32: {
		float f;

		memcpy(&f, p, 4);
		return f;
	}
	case TL_KDT_F64: {
		double d;

		memcpy(&d, p, 8);
		return d;
	}
	case TL_KDT_F16: {
		uint16_t h;

		memcpy(&h, p, 2);
		return half_to_double(h);
	}
	case TL_KDT_BF16: {
		uint16_t h;
		uint32_t w;
		float f;

		memcpy(&h, p, 2);
		w = (uint32_t)h << 16;
		memcpy(&f, &w, 4);
		return f;
	}
	default:
		return 0;
	}
}

static size_t width(enum tl_kdtype dt)
{
	return dt == TL_KDT_F64 ? 8 : dt == TL_KDT_F32 ? 4 : dt == TL_KDT_BYTES ? 1 : 2;
}

void kverify_piece(const unsigned char *got, const unsigned char *want, size_t n, uint64_t off,
		   enum tl_kdtype dt, double tol, struct tl_kdiff *d)
{
	size_t w = width(dt), i;

	if (!memcmp(got, want, n))
		return;
	for (i = 0; i < n; i++) {
		if (got[i] == want[i])
			continue;
		if (!d->bytes)
			d->first = off + i;
		d->bytes++;
	}
	if (dt == TL_KDT_BYTES)
		return;
	/* elements, aligned from the allocation's start (pieces are
	 * multiples of 8 bytes long, but for the last) */
	for (i = 0; i + w <= n; i += w) {
		double a, b, diff;

		if (!memcmp(got + i, want + i, w))
			continue;
		a = elem(got + i, dt);
		b = elem(want + i, dt);
		if (isnan(a) && isnan(b))
			continue;
		diff = fabs(a - b);
		if (isnan(diff) || diff > tol + tol * fabs(b))
			d->elems++;
		if (!isnan(diff) && diff > d->max_abs)
			d->max_abs = diff;
		else if (isnan(diff))
			d->max_abs = INFINITY;
	}
}
