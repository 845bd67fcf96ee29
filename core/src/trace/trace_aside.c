/* SPDX-License-Identifier: MIT */
/* What the 64-byte event table cannot hold (struct tl_ev): ids outside
 * int32 and args slices too long or too far into the text for their packed
 * word, kept in a sorted array beside the table. Real traces keep nothing
 * here or a handful of entries, so a binary search on the rare path and an
 * insertion that moves the tail are cheaper than any index. */
#include <errno.h>
#include <string.h>

#include "trace/trace_internal.h"

/* First entry whose key is @key or more. */
static size_t lower_bound(const struct tl_aside *a, uint64_t key)
{
	size_t lo = 0, hi = a->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->v[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int64_t tl_aside_get(const struct tl_aside *a, uint64_t uid, enum tl_aside_field f)
{
	uint64_t key = TL_ASIDE_KEY(uid, f);
	size_t i = lower_bound(a, key);

	return i < a->n && a->v[i].key == key ? a->v[i].v : 0;
}

int tl_aside_put(struct tl_aside *a, uint64_t uid, enum tl_aside_field f, int64_t v)
{
	uint64_t key = TL_ASIDE_KEY(uid, f);
	/* the loader and appended events write in key order: no search */
	size_t i = !a->n || a->v[a->n - 1].key < key ? a->n : lower_bound(a, key);

	if (i < a->n && a->v[i].key == key) {
		a->v[i].v = v;
		return 0;
	}
	if (tl_grow((void **)&a->v, &a->cap, a->n + 1, sizeof(*a->v)))
		return -ENOMEM;
	memmove(&a->v[i + 1], &a->v[i], (a->n - i) * sizeof(*a->v));
	a->v[i].key = key;
	a->v[i].v = v;
	a->n++;
	return 0;
}

void tl_aside_del(struct tl_aside *a, uint64_t uid, enum tl_aside_field f)
{
	uint64_t key = TL_ASIDE_KEY(uid, f);
	size_t i = lower_bound(a, key);

	if (i < a->n && a->v[i].key == key) {
		memmove(&a->v[i], &a->v[i + 1], (a->n - i - 1) * sizeof(*a->v));
		a->n--;
	}
}

void tl_aside_free(struct tl_aside *a)
{
	free(a->v);
	memset(a, 0, sizeof(*a));
}

int tl_aside_set_id_slow(struct tl_aside *a, uint64_t uid, int32_t *slot, enum tl_aside_field f, int64_t v)
{
	if (v > INT32_MIN && v <= INT32_MAX) {
		/* inline again: what was kept aside would only be stale */
		if (*slot == TL_EV_ID_ASIDE)
			tl_aside_del(a, uid, f);
		*slot = (int32_t)v;
		return 0;
	}
	if (tl_aside_put(a, uid, f, v))
		return -ENOMEM;
	*slot = TL_EV_ID_ASIDE;
	return 0;
}

int tl_aside_set_args_slow(struct tl_aside *a, uint64_t uid, uint64_t *packed, uint64_t off, uint64_t len)
{
	uint64_t o = off & ~TL_ARGS_EXTRA;
	bool was_aside = *packed != TL_NOARGS && *packed >> 40 == TL_EV_ARGS_ASIDE;

	if (off == TL_NOARGS || (o <= TL_EV_ARGS_OFF_MAX && len < TL_EV_ARGS_ASIDE)) {
		if (was_aside) {
			tl_aside_del(a, uid, TL_ASIDE_ARGS_OFF);
			tl_aside_del(a, uid, TL_ASIDE_ARGS_LEN);
		}
		*packed = off == TL_NOARGS ? TL_NOARGS
					   : len << 40 | o | (off & TL_ARGS_EXTRA ? TL_EV_ARGS_IN_EXTRA : 0);
		return 0;
	}
	if (tl_aside_put(a, uid, TL_ASIDE_ARGS_OFF, (int64_t)off))
		return -ENOMEM;
	if (tl_aside_put(a, uid, TL_ASIDE_ARGS_LEN, (int64_t)len)) {
		/* only a new entry can fail: the offset was new too */
		tl_aside_del(a, uid, TL_ASIDE_ARGS_OFF);
		return -ENOMEM;
	}
	*packed = TL_EV_ARGS_ASIDE << 40;
	return 0;
}

int tl_ev_copy(struct tl_trace *dst, struct tl_ev *d, const struct tl_trace *src, const struct tl_ev *s)
{
	int64_t corr = tl_ev_corr(src, s), extid = tl_ev_extid(src, s), seq = tl_ev_seq(src, s);
	uint64_t off = tl_ev_args_off(src, s), len = tl_ev_args_len(src, s);
	struct tl_ev was = *d;

	*d = *s;
	/* the slots as they were, so that the setters forget what @d kept aside */
	d->corr32 = was.corr32;
	d->extid32 = was.extid32;
	d->seq32 = was.seq32;
	d->args_packed = was.args_packed;
	if (tl_ev_set_corr(dst, d, corr) || tl_ev_set_extid(dst, d, extid) || tl_ev_set_seq(dst, d, seq) ||
	    tl_ev_set_args(dst, d, off, len))
		return -ENOMEM;
	return 0;
}
