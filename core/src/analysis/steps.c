/* SPDX-License-Identifier: MIT */
/* Iterations (include/tlreplay/steps.h): the ProfilerStep#N ranges, else the
 * vLLM/SGLang iteration annotations, else the loop found in the call tree
 * (steps_calltree.c), each with the breakdown of the GPU
 * events launched inside it (HTA's add_iteration rule), and --step, which
 * keeps one of them. */
#include <stdio.h>

#include "analysis/analysis_internal.h"
#include "trace/trace_internal.h"

#include <tlreplay/steps.h>

/* "ProfilerStep#12" (HTA: ProfilerStep\s*#\s*(\d+)): its number, else -1. */
static long long profiler_step_number(const char *name)
{
	const char *p;

	if (strncmp(name, "ProfilerStep", 12))
		return -1;
	for (p = name + 12; *p == ' ' || *p == '\t'; p++)
		;
	if (*p++ != '#')
		return -1;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return -1;
	return strtoll(p, NULL, 10);
}

/* The iteration annotations of vLLM and SGLang (capture_merge.c's tiers). */
static bool is_serving_iteration(const char *name)
{
	if (!strncmp(name, "execute_", 8))
		return (strstr(name, "context_") && strstr(name, "_generation_")) ||
		       !strncmp(name, "execute_diffusion_", 18);
	if (!strncmp(name, "step[", 5))
		return !strncmp(name + 5, "EXTEND", 6) || !strncmp(name + 5, "DECODE", 6) ||
		       !strncmp(name + 5, "MIXED", 5);
	return !strncmp(name, "prefill[", 8) || !strncmp(name, "decode[", 7);
}

static int cmp_step(const void *a, const void *b)
{
	const struct tl_step *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/* Serving annotations of one iteration nest: vLLM's execute_..._context_..
 * (the engine's) encloses SGLang's step[EXTEND ...] (the scheduler's) on the
 * same thread. One iteration, the outer range; the first nested name is kept
 * as @inner. @v is in time order (an enclosing range comes first). */
static size_t merge_nested(const struct tl_trace *tr, struct tl_step *v, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		struct tl_step *o = k ? &v[k - 1] : NULL;
		const struct tl_ev *a = o ? &tr->ev[o->uid] : NULL, *b = &tr->ev[v[i].uid];

		if (o && a->pid == b->pid && a->tid == b->tid && v[i].ts >= o->ts &&
		    v[i].ts + v[i].dur <= o->ts + o->dur) {
			if (!o->inner)
				o->inner = v[i].name;
			continue;
		}
		v[k++] = v[i];
	}
	return k;
}

/* The steps in time order, without their GPU numbers. */
static int find_steps(const struct tl_trace *tr, struct tl_step_set *set)
{
	TL_VEC(struct tl_step) v = { 0 };
	int pass;
	size_t i;

	for (pass = 0; pass < 2 && !v.n; pass++) {
		for (i = 0; i < tr->nev; i++) {
			const struct tl_ev *e = &tr->ev[i];
			const char *name;
			struct tl_step s = { 0 };

			if (e->kind != TL_KIND_USER_ANNOTATION && (pass || e->kind != TL_KIND_CPU_OP))
				continue;
			if (!tl_ev_timed(e))
				continue;
			name = tl_ev_name(tr, e);
			s.number = pass ? 0 : profiler_step_number(name);
			if (pass ? !is_serving_iteration(name) : s.number < 0)
				continue;
			s.name = name;
			s.uid = i;
			s.ts = e->ts;
			s.dur = e->dur;
			if (tl_vec_push(&v, s)) {
				tl_vec_free(&v);
				return -ENOMEM;
			}
		}
		set->profiler_steps = !pass;
	}
	if (!v.n) {
		struct tl_steps_found f;

		if (tl_steps_from_calltree(tr, &f))
			return -ENOMEM;
		v.v = f.v;
		v.n = v.cap = f.n;
		set->source = f.n ? TL_STEPS_CALLTREE : TL_STEPS_NONE;
		set->found_under = f.under;
		set->found_how = f.how;
		set->coverage = f.coverage;
		set->share = f.share;
		set->found_by_launches = f.by_launches;
	} else {
		set->source = set->profiler_steps ? TL_STEPS_PROFILER : TL_STEPS_SERVING;
	}
	if (v.n)
		tl_qsort(v.v, v.n, sizeof(*v.v), cmp_step);
	for (i = 0; i < v.n; i++)
		v.v[i].batch_size = v.v[i].tokens = -1;
	if (set->source == TL_STEPS_SERVING) {
		v.n = merge_nested(tr, v.v, v.n);
		for (i = 0; i < v.n; i++) {
			struct tl_step *s = &v.v[i];

			s->number = (long long)i;
			/* SGLang's inner step[...] says it plainest */
			if (!s->inner || !(s->phase = tl_serving_phase(s->inner, &s->batch_size, &s->tokens)))
				s->phase = tl_serving_phase(s->name, &s->batch_size, &s->tokens);
		}
	}
	if (set->source == TL_STEPS_CALLTREE)
		for (i = 0; i < v.n; i++)
			v.v[i].number = (long long)i;
	set->n = v.n;
	set->v = v.v;
	return 0;
}

/* The step of every linked GPU event (-1: none), by UID. */
static int gpu_steps(struct tl_trace *tr, const struct tl_step_set *set, int32_t **out)
{
	int32_t *st = malloc(tr->nev * sizeof(*st) + 1);
	size_t i;

	if (!st)
		return -ENOMEM;
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		int32_t p;

		st[i] = -1;
		if (!tl_kind_is_gpu(e->kind) || tr->tree.in_tree[i] != 2 || !tl_ev_timed(e))
			continue;
		p = tr->tree.parent[i];
		if (p >= 0)
			st[i] = (int32_t)tl_step_at(set, tr->ev[p].ts);
	}
	*out = st;
	return 0;
}

int tl_steps_load(struct tl_trace *tr, struct tl_step_set *set)
{
	int err = tl_links_ensure(tr);

	if (err)
		return err;
	if (find_steps(tr, set))
		return tl_err(-ENOMEM, "out of memory finding the steps");
	if (set->n && tl_steps_phase_from_shapes(tr, set))
		return tl_err(-ENOMEM, "out of memory reading the steps' phases");
	if (!set->n)
		return tl_err(
			-ENODATA,
			"%s: no steps in the trace (no ProfilerStep#N, vLLM or SGLang iteration annotation, and no "
			"GPU work launched from a host thread to find them by)",
			tr->path);
	return 0;
}

int tl_steps(struct tl_trace *tr, struct tl_step_set **out)
{
	struct tl_step_set *set = calloc(1, sizeof(*set));
	TL_VEC(uint32_t) *per = NULL;
	int32_t *st = NULL;
	uint8_t *cls = NULL;
	double *walls = NULL;
	struct tl_agg agg;
	size_t i, nper = 0;
	int err = -ENOMEM;

	*out = NULL;
	if (!set)
		goto nomem;
	err = tl_steps_load(tr, set);
	if (err)
		goto out;
	err = -ENOMEM;
	per = calloc(set->n, sizeof(*per));
	nper = per ? set->n : 0;
	walls = malloc(set->n * sizeof(*walls));
	if (!per || !walls || gpu_steps(tr, set, &st) || tl_gpu_classes(tr, &cls))
		goto nomem;
	for (i = 0; i < tr->nev; i++)
		if (st[i] >= 0 && tl_vec_push(&per[st[i]], (uint32_t)i))
			goto nomem;
	for (i = 0; i < set->n; i++) {
		struct tl_step *s = &set->v[i];
		struct tl_breakdown bd = { 0 };
		size_t k;

		if (tl_breakdown_uids(tr, per[i].v, per[i].n, cls, &bd))
			goto nomem;
		memcpy(s->us, bd.us, sizeof(s->us));
		s->ngpu = per[i].n;
		for (k = 0; k < per[i].n; k++) {
			const struct tl_ev *e = &tr->ev[per[i].v[k]];

			if (!k || e->ts < s->gpu_start)
				s->gpu_start = e->ts;
			if (!k || tl_ev_end(e) > s->gpu_end)
				s->gpu_end = tl_ev_end(e);
		}
		walls[i] = s->dur;
		if (s->dur > set->v[set->slowest].dur)
			set->slowest = i;
	}
	tl_aggregate(walls, set->n, &agg);
	set->min_us = agg.min;
	set->median_us = agg.median;
	set->max_us = agg.max;
	set->mean_us = agg.mean;
	set->std_us = agg.std;
	*out = set;
	set = NULL;
	err = 0;
	goto out;
nomem:
	err = tl_err(-ENOMEM, "out of memory computing the steps");
out:
	for (i = 0; per && i < nper; i++)
		tl_vec_free(&per[i]);
	free(per);
	free(st);
	free(cls);
	free(walls);
	tl_step_set_free(set);
	return err;
}

void tl_step_set_free(struct tl_step_set *set)
{
	if (!set)
		return;
	free(set->v);
	free(set);
}

static bool is_host_kind(int k)
{
	return k == TL_KIND_CPU_OP || k == TL_KIND_RUNTIME || k == TL_KIND_DRIVER || k == TL_KIND_PYTHON ||
	       k == TL_KIND_USER_ANNOTATION || k == TL_KIND_SYNC || k == TL_KIND_INSTANT;
}

/* "0, 1, 2 ... 9" into @buf: the step numbers there are. */
static void list_numbers(const struct tl_step_set *set, char *buf, size_t n)
{
	size_t i, o = 0;

	buf[0] = 0;
	for (i = 0; i < set->n && o + 24 < n; i++)
		o += (size_t)snprintf(buf + o, n - o, "%s%lld", i ? ", " : "", set->v[i].number);
	if (i < set->n)
		snprintf(buf + o, n - o, ", ...");
}

/* Whether a kept step's range holds @ts (any of them, where ranges overlap).
 * @reach[i] is the latest end of steps 0..i: the walk back stops where no
 * earlier step reaches @ts, so thousands of serving iterations cost a
 * binary search per event. */
static bool in_kept(const struct tl_step_set *set, const bool *keep, const double *reach, double ts)
{
	size_t lo = tl_steps_starting_by(set, ts);

	while (lo-- && ts < reach[lo])
		if (keep[lo] && ts < set->v[lo].ts + set->v[lo].dur)
			return true;
	return false;
}

/* Keep the steps of @set marked in @keep only (see tl_trace_keep_step()). */
int tl_steps_keep(struct tl_trace *tr, const struct tl_step_set *set, const bool *keep)
{
	double *reach = malloc((set->n + 1) * sizeof(*reach));
	int32_t *st = NULL;
	size_t i;

	if (!reach || gpu_steps(tr, set, &st)) {
		free(reach);
		return tl_err(-ENOMEM, "out of memory choosing steps");
	}
	for (i = 0; i < set->n; i++) {
		double end = set->v[i].ts + set->v[i].dur;

		reach[i] = i && reach[i - 1] > end ? reach[i - 1] : end;
	}
	for (i = 0; i < tr->nev; i++) {
		struct tl_ev *e = &tr->ev[i];

		if (tl_kind_is_gpu(e->kind)) {
			if (st[i] < 0 || !keep[st[i]])
				e->kind = TL_KIND_OTHER;
		} else if (is_host_kind(e->kind) && (e->flags & EV_HAS_TS) && !in_kept(set, keep, reach, e->ts)) {
			e->kind = TL_KIND_OTHER;
		}
	}
	/* the links were made with every event: made again on next use */
	tl_tree_free(&tr->tree);
	free(st);
	free(reach);
	return 0;
}

int tl_trace_keep_step(struct tl_trace *tr, long long number)
{
	struct tl_step_set set = { 0 };
	bool *keep = NULL;
	int64_t idx = -1;
	size_t i;
	int err;

	if (tr->merged)
		return tl_err(-EBUSY, "%s: a step cannot be chosen once graph captures are merged", tr->path);
	err = tl_steps_load(tr, &set);
	if (err)
		goto out;
	for (i = 0; i < set.n; i++)
		if (set.v[i].number == number)
			idx = (int64_t)i;	/* the last, as HTA's iteration column */
	if (idx < 0) {
		char list[512];

		list_numbers(&set, list, sizeof(list));
		err = tl_err(-ENOENT, "%s: no step %lld; the steps are %s", tr->path, number, list);
		goto out;
	}
	keep = calloc(set.n, sizeof(*keep));
	if (!keep) {
		err = tl_err(-ENOMEM, "out of memory choosing a step");
		goto out;
	}
	keep[idx] = true;
	err = tl_steps_keep(tr, &set, keep);
out:
	free(keep);
	free(set.v);
	return err;
}

const char *tl_phase_name(int phase)
{
	static const char *const names[] = { NULL, "prefill", "decode", "mixed" };

	return phase > 0 && phase < (int)TL_ARRAY_SIZE(names) ? names[phase] : NULL;
}

int tl_phase_of_name(const char *name)
{
	int p;

	for (p = TL_PHASE_PREFILL; name && p <= TL_PHASE_MIXED; p++)
		if (!strcmp(name, tl_phase_name(p)))
			return p;
	return TL_PHASE_NONE;
}

int tl_trace_keep_phase(struct tl_trace *tr, int phase)
{
	struct tl_step_set set = { 0 };
	size_t i, n[4] = { 0 };
	bool *keep = NULL;
	int err;

	if (!tl_phase_name(phase))
		return tl_err(-EINVAL, "no such phase %d", phase);
	if (tr->merged)
		return tl_err(-EBUSY, "%s: a phase cannot be chosen once graph captures are merged", tr->path);
	err = tl_steps_load(tr, &set);
	if (err)
		goto out;
	keep = calloc(set.n, sizeof(*keep));
	if (!keep) {
		err = tl_err(-ENOMEM, "out of memory choosing a phase");
		goto out;
	}
	for (i = 0; i < set.n; i++) {
		n[set.v[i].phase]++;
		keep[i] = set.v[i].phase == phase;
	}
	if (n[TL_PHASE_NONE] == set.n) {
		err = tl_err(-ENODATA,
			     "%s: its steps have no phase (phases come from vLLM/SGLang iteration annotations, or the "
			     "shapes of a serving trace's attention)",
			     tr->path);
		goto out;
	}
	if (!n[phase]) {
		err = tl_err(-ENOENT, "%s: no %s iteration; the trace has %zu prefill, %zu decode, %zu mixed", tr->path,
			     tl_phase_name(phase), n[TL_PHASE_PREFILL], n[TL_PHASE_DECODE], n[TL_PHASE_MIXED]);
		goto out;
	}
	err = tl_steps_keep(tr, &set, keep);
out:
	free(keep);
	free(set.v);
	return err;
}
