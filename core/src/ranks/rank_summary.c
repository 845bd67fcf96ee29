/* SPDX-License-Identifier: MIT */
/* A rank summary: what one rank's trace reduces to for the multi-rank
 * analyses (its rank and distributed setup, its pooled breakdown, its
 * collective kernels), independent of the trace once built. This file is the
 * object itself (strings, accessors, free); rank_summary_build.c makes one
 * from a trace, with collectives_extract.c, which fills the object too. */
#include "ranks/ranks_internal.h"

int tl_rs_new(struct tl_rank_summary **out)
{
	struct tl_rank_summary *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s || tl_strtab_init(&s->strs)) {
		free(s);
		return -ENOMEM;
	}
	s->info.rank = -1;
	s->info.rank_from = TL_RANK_FROM_ORDER;
	s->info.world_size = -1;
	s->info.trace = s->info.file = s->info.backend = "";
	*out = s;
	return 0;
}

const char *tl_rs_str(struct tl_rank_summary *s, const char *p, size_t n)
{
	uint32_t id = tl_strtab_intern(&s->strs, p, n);

	return id == UINT32_MAX ? NULL : tl_strtab_get(&s->strs, id);
}

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* By ts and uid; records that share both (only in a summary written by
 * hand or damaged) by their other fields, so that the order never depends
 * on the sort. */
static int cmp_rec(const void *a, const void *b)
{
	const struct tl_coll_rec *x = a, *y = b;
	const char *const sx[] = { x->pg, x->pg_ranks, x->name, x->dtype, x->kernel };
	const char *const sy[] = { y->pg, y->pg_ranks, y->name, y->dtype, y->kernel };
	const int64_t ix[] = { x->name_src, x->pg_inferred, x->group_size, x->in_nelems, x->out_nelems,
			       x->seq, x->stream };
	const int64_t iy[] = { y->name_src, y->pg_inferred, y->group_size, y->in_nelems, y->out_nelems,
			       y->seq, y->stream };
	size_t i;
	int c;

	if ((c = CMP(x->ts, y->ts)) || (c = CMP(x->uid, y->uid)) || (c = CMP(x->dur, y->dur)))
		return c;
	for (i = 0; i < TL_ARRAY_SIZE(sx); i++)
		if ((c = strcmp(sx[i], sy[i])))
			return c;
	for (i = 0; i < TL_ARRAY_SIZE(ix); i++)
		if ((c = CMP(ix[i], iy[i])))
			return c;
	return 0;
}

void tl_rs_sort_coll(struct tl_rank_summary *s)
{
	if (s->coll.n > 1)
		tl_qsort(s->coll.v, s->coll.n, sizeof(*s->coll.v), cmp_rec);
}

void tl_rank_summary_free(struct tl_rank_summary *s)
{
	if (!s)
		return;
	tl_vec_free(&s->coll);
	tl_vec_free(&s->pgs);
	tl_strtab_free(&s->strs);
	free(s);
}

const struct tl_rank_info *tl_rank_summary_info(const struct tl_rank_summary *s)
{
	return &s->info;
}

const struct tl_breakdown *tl_rank_summary_breakdown(const struct tl_rank_summary *s, bool include_unlinked)
{
	return s->has_bd[include_unlinked] ? &s->bd[include_unlinked] : NULL;
}

size_t tl_rank_summary_ncoll(const struct tl_rank_summary *s)
{
	return s->coll.n;
}

const struct tl_coll_rec *tl_rank_summary_coll(const struct tl_rank_summary *s, size_t i)
{
	return i < s->coll.n ? &s->coll.v[i] : NULL;
}

size_t tl_rank_summary_npg(const struct tl_rank_summary *s)
{
	return s->pgs.n;
}

const struct tl_pg_info *tl_rank_summary_pg(const struct tl_rank_summary *s, size_t i)
{
	return i < s->pgs.n ? &s->pgs.v[i] : NULL;
}
