/* SPDX-License-Identifier: MIT */
/* Which step an event belongs to (steps.h, HTA's add_iteration rule): a host
 * event by its ts, a GPU event by the call that launched it. Apart from
 * steps.c so that what reads the steps (steps_phase.c) and what finds them
 * use one rule without a cycle between them. */
#include "analysis/analysis_internal.h"
#include "trace/trace_internal.h"

#include <tlreplay/steps.h>

size_t tl_steps_starting_by(const struct tl_step_set *set, double ts)
{
	size_t lo = 0, hi = set->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (set->v[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int64_t tl_step_at(const struct tl_step_set *set, double ts)
{
	size_t lo = tl_steps_starting_by(set, ts);

	while (lo--) {
		const struct tl_step *s = &set->v[lo];

		if (ts < s->ts + s->dur)
			return (int64_t)lo;
		/* an earlier, longer step may still hold ts (nested ranges) */
	}
	return -1;
}

long tl_step_of_event(struct tl_trace *tr, const struct tl_step_set *set, uint64_t uid)
{
	const struct tl_ev *e;
	int32_t p;

	if (!set || !set->n || uid >= tr->nev || tl_links_ensure(tr))
		return -1;
	e = &tr->ev[uid];
	if (!tl_ev_timed(e))
		return -1;
	if (!tl_kind_is_gpu(e->kind))
		return (long)tl_step_at(set, e->ts);
	/* as gpu_steps(): the launching call's step */
	p = tr->tree.in_tree[uid] == 2 ? tr->tree.parent[uid] : -1;
	return p >= 0 ? (long)tl_step_at(set, tr->ev[p].ts) : -1;
}
