/* SPDX-License-Identifier: MIT */
/* The steady state of a trace's iterations (include/tlreplay/steps.h):
 * the longest run of consecutive steps whose wall times stay within
 * TL_STEADY_TOL of their phase's median, and why each step outside it is
 * out (graph capture, compilation, warm-up, wrap-up, an outlier). The median
 * is taken over the later half of each phase's steps: warm-up sits at the
 * start, and a median over everything would let a long warm-up drag it. */
#include <math.h>
#include <stdio.h>

#include "analysis/analysis_internal.h"
#include "trace/trace_internal.h"

#include <tlreplay/steps.h>

#define TL_STEADY_TOL 0.2

/* The median wall time of the later half of the steps of @phase. */
static int later_median(const struct tl_step_set *set, int phase, double *out)
{
	size_t i, n = 0, k = 0, half;
	double *v;
	struct tl_agg agg;

	for (i = 0; i < set->n; i++)
		n += set->v[i].phase == phase;
	*out = 0;
	if (!n)
		return 0;
	half = n / 2;
	v = malloc((n - half) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < set->n; i++)
		if (set->v[i].phase == phase && k++ >= half)
			v[k - half - 1] = set->v[i].dur;
	tl_aggregate(v, n - half, &agg);
	*out = agg.median;
	free(v);
	return 0;
}

/* Why each step outside [@first, @last] is out, into @why (by step):
 * graph capture or compilation when its range holds their calls (capture
 * first), else by where it lies. One pass over the events. */
static void left_out_why(struct tl_trace *tr, const struct tl_step_set *set, size_t first, size_t last, int *why)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		why[i] = i < first ? TL_STEADY_WARMUP : i > last ? TL_STEADY_WRAPUP : TL_STEADY_OUTLIER;
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		int64_t k;
		const char *n;

		if (!(e->flags & EV_HAS_TS) || tl_kind_is_gpu(e->kind))
			continue;
		k = tl_step_at(set, e->ts);
		if (k < 0 || ((size_t)k >= first && (size_t)k <= last) || why[k] == TL_STEADY_CAPTURE)
			continue;
		n = tl_ev_name(tr, e);
		if (strstr(n, "BeginCapture") || strstr(n, "GraphInstantiate"))
			why[k] = TL_STEADY_CAPTURE;
		else if (strstr(n, "convert_frame") || strstr(n, "compile_fx") || strstr(n, "_inductor/codecache") ||
			 strstr(n, "async_compile"))
			why[k] = TL_STEADY_COMPILE;
	}
}

const char *tl_steady_why_name(int why)
{
	static const char *const names[] = { "warm-up", "graph capture", "compilation", "wrap-up", "an outlier" };

	return why >= 0 && why < (int)TL_ARRAY_SIZE(names) ? names[why] : "?";
}

int tl_steps_steady(struct tl_trace *tr, const struct tl_step_set *set, struct tl_steady **out)
{
	struct tl_steady *st = calloc(1, sizeof(*st));
	double med[4] = { 0 }, *walls = NULL;
	int *why = NULL;
	size_t i, run = 0, best = 0, best_end = 0;
	struct tl_agg agg;
	int p, err = -ENOMEM;

	*out = NULL;
	if (!st || !set->n)
		goto fail;
	for (p = 0; p < 4; p++)
		if (later_median(set, p, &med[p]))
			goto fail;
	/* the longest run of steps within the tolerance; the later one of equals */
	for (i = 0; i < set->n; i++) {
		const struct tl_step *s = &set->v[i];
		double m = med[s->phase];

		run = fabs(s->dur - m) <= TL_STEADY_TOL * m ? run + 1 : 0;
		if (run && run >= best) {
			best = run;
			best_end = i;
		}
	}
	if (!best) {
		/* nothing within the tolerance: the last step stands alone */
		best = 1;
		best_end = set->n - 1;
	}
	st->first = best_end + 1 - best;
	st->last = best_end;
	walls = malloc(best * sizeof(*walls));
	why = malloc(set->n * sizeof(*why));
	st->out = calloc(set->n - best + 1, sizeof(*st->out));
	if (!walls || !why || !st->out)
		goto fail;
	for (i = 0; i < best; i++)
		walls[i] = set->v[st->first + i].dur;
	tl_aggregate(walls, best, &agg);
	st->median_us = agg.median;
	st->min_us = agg.min;
	st->max_us = agg.max;
	st->mean_us = agg.mean;
	st->std_us = agg.std;
	st->cv = best > 1 && agg.mean > 0 ? agg.std / agg.mean : 0;
	left_out_why(tr, set, st->first, st->last, why);
	for (i = 0; i < set->n; i++) {
		const struct tl_step *s = &set->v[i];

		if (i >= st->first && i <= st->last)
			continue;
		st->out[st->nout].idx = i;
		st->out[st->nout].why = why[i];
		st->out[st->nout].ratio = med[s->phase] > 0 ? s->dur / med[s->phase] : 0;
		st->nout++;
	}
	free(walls);
	free(why);
	*out = st;
	return 0;
fail:
	free(walls);
	free(why);
	tl_steady_free(st);
	return set->n ? tl_err(err, "out of memory finding the steady state") : tl_err(-ENODATA, "no steps");
}

void tl_steady_free(struct tl_steady *st)
{
	if (!st)
		return;
	free(st->out);
	free(st);
}

int tl_trace_keep_steady(struct tl_trace *tr)
{
	struct tl_step_set set = { 0 };
	struct tl_steady *st = NULL;
	bool *keep = NULL;
	size_t i;
	int err;

	if (tr->merged)
		return tl_err(-EBUSY, "%s: the steady state cannot be chosen once graph captures are merged", tr->path);
	err = tl_steps_load(tr, &set);
	if (!err)
		err = tl_steps_steady(tr, &set, &st);
	if (err)
		goto out;
	keep = calloc(set.n, sizeof(*keep));
	if (!keep) {
		err = tl_err(-ENOMEM, "out of memory choosing the steady state");
		goto out;
	}
	for (i = st->first; i <= st->last; i++)
		keep[i] = true;
	err = tl_steps_keep(tr, &set, keep);
out:
	free(keep);
	tl_steady_free(st);
	free(set.v);
	return err;
}
