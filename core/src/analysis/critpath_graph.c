/* SPDX-License-Identifier: MIT */
/* The critical path's graph: its edges as they are added, and which events
 * are its nodes (analysis_internal.h, "critpath"). */
#include <errno.h>
#include <stdlib.h>

#include "analysis/analysis_internal.h"

int tl_cp_add_edge(struct cp_graph *g, size_t from, size_t to, double w, uint64_t attr, int type)
{
	struct cp_gedge *e;

	if (g->ned == g->ed_cap) {
		size_t cap = g->ed_cap ? g->ed_cap * 2 : 1024;
		void *p = realloc(g->ed, cap * sizeof(*g->ed));

		if (!p)
			return -ENOMEM;
		g->ed = p;
		g->ed_cap = cap;
	}
	e = &g->ed[g->ned++];
	e->from = (uint32_t)from;
	e->to = (uint32_t)to;
	e->w = w;
	e->attr = (uint32_t)attr;
	e->type = (uint8_t)type;
	e->pr = type == TL_CP_DEPENDENCY ? 1 : 0;
	g->cp->ntype[type]++;
	return 0;
}

void tl_cp_set_pr(struct cp_graph *g, int pr)
{
	g->ed[g->ned - 1].pr = (uint8_t)pr;
}

bool tl_cp_is_host(enum tl_kind k)
{
	return k == TL_KIND_CPU_OP || k == TL_KIND_RUNTIME || k == TL_KIND_DRIVER;
}

int64_t tl_cp_gidx(const struct cp_graph *g, int64_t uid)
{
	return uid < 0 ? -1 : g->idx[uid];
}
