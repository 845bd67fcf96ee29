/* SPDX-License-Identifier: MIT */
/* Forward op -> its backward ops, for the backward perf sheets (Reduce_bwd,
 * SDPA_bwd): the tree links each backward op to one forward op (TraceLens's
 * link_all_fwd_bwd_events, tl_event_fwd); this is the inverse, built once,
 * and the subtree walk of TraceLens's get_subtree_bwd_events. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/tree.h>

#include "report/report_internal.h"

struct rpt_bwd {
	size_t *start;		/* bwd ops of forward op u: list[start[u] .. start[u + 1]) */
	uint64_t *list;
	uint64_t nev;
};

int rpt_bwd_index(const struct tl_trace *tr, struct rpt_bwd **out)
{
	uint64_t n = tl_trace_nevents(tr), i;
	struct rpt_bwd *b = calloc(1, sizeof(*b));
	size_t *pos = NULL, nlinks = 0;
	int64_t f;

	*out = NULL;
	if (!b)
		return -ENOMEM;
	b->nev = n;
	b->start = calloc(n + 2, sizeof(*b->start));
	if (!b->start)
		goto nomem;
	for (i = 0; i < n; i++)
		if ((f = tl_event_fwd(tr, i)) >= 0 && (uint64_t)f < n) {
			b->start[f + 1]++;
			nlinks++;
		}
	for (i = 1; i <= n + 1; i++)
		b->start[i] += b->start[i - 1];
	b->list = malloc((nlinks + 1) * sizeof(*b->list));
	pos = malloc((n + 1) * sizeof(*pos));
	if (!b->list || !pos)
		goto nomem;
	memcpy(pos, b->start, (n + 1) * sizeof(*pos));
	for (i = 0; i < n; i++)
		if ((f = tl_event_fwd(tr, i)) >= 0 && (uint64_t)f < n)
			b->list[pos[f]++] = i;
	free(pos);
	*out = b;
	return 0;
nomem:
	free(pos);
	rpt_bwd_free(b);
	return -ENOMEM;
}

void rpt_bwd_free(struct rpt_bwd *b)
{
	if (!b)
		return;
	free(b->start);
	free(b->list);
	free(b);
}

size_t rpt_bwd_direct(const struct rpt_bwd *b, uint64_t uid)
{
	return b && uid < b->nev ? b->start[uid + 1] - b->start[uid] : 0;
}

int rpt_bwd_subtree(const struct rpt_bwd *b, const struct tl_trace *tr, uint64_t uid,
		    uint64_t **out, size_t *nout)
{
	TL_VEC(uint64_t) res = { 0 };
	TL_VEC(uint64_t) stack = { 0 };
	int err = 0;

	*out = NULL;
	*nout = 0;
	if (tl_vec_push(&stack, uid))
		err = -ENOMEM;
	while (!err && stack.n) {
		uint64_t u = stack.v[--stack.n];
		int64_t c;
		size_t k;

		for (k = u < b->nev ? b->start[u] : 0; !err && u < b->nev && k < b->start[u + 1]; k++)
			if (tl_vec_push(&res, b->list[k]))
				err = -ENOMEM;
		for (c = tl_event_first_child(tr, u); !err && c >= 0; c = tl_event_next_sibling(tr, c))
			if (tl_vec_push(&stack, (uint64_t)c))
				err = -ENOMEM;
	}
	tl_vec_free(&stack);
	if (err) {
		tl_vec_free(&res);
		return err;
	}
	*out = res.v;
	*nout = res.n;
	return 0;
}
