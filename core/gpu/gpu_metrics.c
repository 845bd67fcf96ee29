/* SPDX-License-Identifier: MIT */
/* The handle's metric list as the backends plan it: marking a metric as not
 * counted, and collecting the counted ones. Shared by the backends
 * (gpu_range.c, gpu_legacy.c), which the handle (gpu.c) chooses between. */
#include <stdarg.h>
#include <stdio.h>

#include "gpu_internal.h"

void tlg_metric_unsupported(struct tlg *g, int i, int err, const char *fmt, ...)
{
	struct tlg_metric *m = &g->m[i];
	va_list ap;

	if (m->status)
		return;
	m->status = err;
	va_start(ap, fmt);
	vsnprintf(m->why, sizeof(m->why), fmt, ap);
	va_end(ap);
}

int tlg_collect_active(struct tlg *g)
{
	int i;

	g->n_active = 0;
	for (i = 0; i < g->n; i++) {
		if (g->m[i].status)
			continue;
		g->active[g->n_active] = g->m[i].name;
		g->active_idx[g->n_active] = i;
		g->n_active++;
	}
	if (!g->n_active) {
		return tlg_fail(-ENOENT, "none of the %d metric%s can be counted on %s: %s", g->n,
				g->n == 1 ? "" : "s", g->chip, g->m[0].why);
	}
	return 0;
}
