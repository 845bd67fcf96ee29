/* SPDX-License-Identifier: MIT */
/* Generic hardware events on hybrid CPUs (Intel P- and E-cores).
 *
 * PERF_TYPE_HARDWARE and PERF_TYPE_HW_CACHE carry no PMU: on a hybrid CPU
 * the kernel gives such an event to the first core PMU, and it counts only
 * while the thread runs on that kind of core. Since Linux 5.13 the PMU's
 * type may go in config[63:32] ("extended type"); perf then opens one event
 * per core PMU and prints "cpu_atom/cycles/" and "cpu_core/cycles/". We do
 * the same, so that a replay that migrates between core kinds is counted in
 * full and the lines read as perf's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/counters_internal.h"

#define MAX_HYBRID 8

static bool expandable(const struct perf_event_attr *a)
{
	return (a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE) &&
	       (a->config >> 32) == 0;
}

/* A copy of @src for group @group; on @pmu when given. */
static int copy_ev(const struct tl_cnt_ev *src, const struct tl_cnt_hpmu *pmu, size_t group,
		   struct tl_cnt_ev *dst)
{
	*dst = *src;
	dst->group = group;
	dst->unit = NULL;
	if (pmu) {
		dst->attr.config |= (uint64_t)pmu->type << 32;
		dst->name = NULL;
		if (asprintf(&dst->name, "%s/%s/", pmu->name, src->name) < 0)
			dst->name = NULL;
	} else {
		dst->name = strdup(src->name);
	}
	if (src->unit)
		dst->unit = strdup(src->unit);
	if (!dst->name || (src->unit && !dst->unit)) {
		free(dst->name);
		free(dst->unit);
		return -ENOMEM;
	}
	return 0;
}

int tl_cnt_hybrid_expand(struct tl_cnt_list *l)
{
	struct tl_cnt_hpmu pmu[MAX_HYBRID];
	struct tl_cnt_list out = { 0 };
	size_t npmu, g, k, i;
	int err = 0;

	npmu = tl_cnt_sysfs_hybrid(pmu, MAX_HYBRID);
	for (i = 0; npmu && i < l->ev.n && !expandable(&l->ev.v[i].attr); i++)
		;
	if (!npmu || i == l->ev.n)
		return 0;
	for (g = 0; g < l->grp.n && !err; g++) {
		const struct tl_cnt_grp *src = &l->grp.v[g];
		bool any = false;

		for (i = src->first; i < src->first + src->n; i++)
			any = any || expandable(&l->ev.v[i].attr);
		for (k = 0; k < (any ? npmu : 1) && !err; k++) {
			struct tl_cnt_grp ng = *src;

			ng.first = out.ev.n;
			ng.n = 0;
			for (i = src->first; i < src->first + src->n && !err; i++) {
				const struct tl_cnt_ev *e = &l->ev.v[i];
				bool mine = any && expandable(&e->attr);
				struct tl_cnt_ev ne;

				if (!mine && k > 0)	/* the other members go once */
					continue;
				err = copy_ev(e, mine ? &pmu[k] : NULL, out.grp.n, &ne);
				if (!err && (err = tl_vec_push(&out.ev, ne))) {
					free(ne.name);
					free(ne.unit);
				}
				if (!err)
					ng.n++;
			}
			if (!err)
				err = tl_vec_push(&out.grp, ng);
		}
	}
	tl_cnt_list_free(l);
	if (err) {
		tl_cnt_list_free(&out);
		return tl_err(-ENOMEM, "out of memory");
	}
	*l = out;
	return 0;
}

int tl_cnt_hybrid_pmu_event(const char *pmu, const char *terms, size_t tlen,
			    struct perf_event_attr *attr)
{
	struct tl_cnt_hpmu hp[MAX_HYBRID];
	size_t n, i;
	char name[64];

	if (strncmp(pmu, "cpu_", 4) || tlen >= sizeof(name))	/* only core PMUs are hybrid: no sysfs scan */
		return -ENOENT;
	memcpy(name, terms, tlen);
	name[tlen] = '\0';
	n = tl_cnt_sysfs_hybrid(hp, MAX_HYBRID);
	for (i = 0; i < n; i++) {
		if (strcmp(hp[i].name, pmu))
			continue;
		memset(attr, 0, sizeof(*attr));
		if (tl_cnt_generic_lookup(name, attr) || !expandable(attr))
			return -ENOENT;
		attr->config |= (uint64_t)hp[i].type << 32;
		return 0;
	}
	return -ENOENT;
}
