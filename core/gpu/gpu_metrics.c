/* SPDX-License-Identifier: MIT */
/* The handle's metric list as the backends plan it: marking a metric as not
 * counted, and collecting the counted ones. Shared by the backends
 * (gpu_range.c, gpu_legacy.c), which the handle (gpu.c) chooses between. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
	int i, users = 0;

	g->n_active = 0;
	for (i = 0; i < g->n; i++) {
		if (g->m[i].status)
			continue;
		g->active[g->n_active] = g->m[i].name;
		g->active_idx[g->n_active] = i;
		g->n_active++;
		users += i < g->n_user;
	}
	/* the weight alone is nothing the caller asked for */
	if (!users) {
		return tlg_fail(-ENOENT, "none of the %d metric%s can be counted on %s: %s", g->n_user,
				g->n_user == 1 ? "" : "s", g->chip, g->m[0].why);
	}
	return 0;
}

void tlg_agg_reset(struct tlg *g)
{
	int k;

	for (k = 0; k < g->n_active; k++) {
		g->agg_sum[k] = g->agg_wsum[k] = 0;
		g->agg_max[k] = -INFINITY;
		g->agg_min[k] = INFINITY;
	}
	g->agg_w = 0;
	g->agg_ranges = 0;
}

/* The active index of the weight (gpu__time_duration.sum), or -1. */
static int weight_slot(const struct tlg *g)
{
	int k;

	for (k = 0; k < g->n_active; k++)
		if (g->active_idx[k] == g->weight)
			return k;
	return -1;
}

void tlg_agg_range(struct tlg *g, const double *v)
{
	int k, ws = weight_slot(g);
	double w = ws >= 0 && isfinite(v[ws]) && v[ws] > 0 ? v[ws] : 0;

	for (k = 0; k < g->n_active; k++) {
		if (!isfinite(v[k]))
			continue;
		g->agg_sum[k] += v[k];
		g->agg_wsum[k] += v[k] * w;
		/* no libm: the library links only libc and libdl */
		g->agg_max[k] = v[k] > g->agg_max[k] ? v[k] : g->agg_max[k];
		g->agg_min[k] = v[k] < g->agg_min[k] ? v[k] : g->agg_min[k];
	}
	g->agg_w += w;
	g->agg_ranges++;
}

/* The last dot-separated part of @name ("sum" of "dram__bytes_read.sum"). */
static const char *rollup(const char *name)
{
	const char *d = strrchr(name, '.');

	return d ? d + 1 : "";
}

void tlg_agg_finish(struct tlg *g)
{
	int k;

	for (k = 0; k < g->n_active; k++) {
		struct tlg_metric *m = &g->m[g->active_idx[k]];
		const char *r = rollup(m->name);

		if (!g->agg_ranges)
			m->value = NAN;
		else if (!strcmp(r, "sum"))
			m->value = g->agg_sum[k];
		else if (!strcmp(r, "max"))
			m->value = g->agg_max[k];
		else if (!strcmp(r, "min"))
			m->value = g->agg_min[k];
		else if (g->agg_w > 0)
			m->value = g->agg_wsum[k] / g->agg_w;
		else
			m->value = g->agg_sum[k] / (double)g->agg_ranges;
	}
}
