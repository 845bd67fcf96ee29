/* SPDX-License-Identifier: MIT */
/* The trace as HTA's Trace object holds it, for the analyses that give HTA's
 * numbers (--hta): HTA parses a trace with fractional timestamps into whole
 * microseconds, every start rounded up and every end down
 * (trace_parser.round_down_time_stamps); and with more than one ProfilerStep
 * name it keeps the CPU events that start before the last step, and the GPU
 * events they launched (Trace._filter_irrelevant_gpu_kernels). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"
#include "trace/trace_internal.h"

/* "ProfilerStep#<digits>...", HTA's ProfilerStepGroupingPattern. */
static bool is_step_name(const char *s)
{
	return !strncmp(s, "ProfilerStep#", 13) && s[13] >= '0' && s[13] <= '9';
}

int tl_hta_view_of(const struct tl_trace *tr, struct tl_hta_view *v)
{
	/* by name id: 0 not looked at, 1 a step, 2 not */
	uint8_t *seen = calloc(tr->strs.n + 1, 1);
	size_t i, nsteps = 0;
	double last = -INFINITY;

	*v = (struct tl_hta_view){ .before_us = INFINITY, .last_step_us = INFINITY };
	if (!seen)
		return -ENOMEM;
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];

		if (!(e->flags & EV_HAS_TS))
			continue;
		if (!v->rounded && e->ts != floor(e->ts))
			v->rounded = true;
		if (!seen[e->name]) {
			seen[e->name] = is_step_name(tl_strtab_get(&tr->strs, e->name)) ? 1 : 2;
			nsteps += seen[e->name] == 1;
		}
		if (seen[e->name] == 1 && !tl_kind_is_gpu(e->kind) && e->ts > last)
			last = e->ts;
	}
	free(seen);
	if (nsteps > 1) {
		v->last_step_us = last;
		v->before_us = v->rounded ? ceil(last) : last;
	}
	return 0;
}

void tl_hta_times(const struct tl_hta_view *v, const struct tl_ev *e, double *ts, double *dur)
{
	double end = e->ts + e->dur;

	*ts = v->rounded ? ceil(e->ts) : e->ts;
	*dur = (v->rounded ? floor(end) : end) - *ts;
}
