/* SPDX-License-Identifier: MIT */
/* Launch statistics (include/tlreplay/launch.h): for each GPU event linked
 * to its launch call, the call's duration, HTA's launch delay, the latency
 * and the queue time; their distributions per op name and per kernel name;
 * and a launch-bound verdict per stream and per device. */
#include <math.h>
#include <stdio.h>

#include <tlreplay/launch.h>
#include <tlreplay/tree.h>

#include "analysis/analysis_internal.h"
#include "trace/trace_internal.h"

typedef TL_VEC(struct tl_launch) launch_vec;

struct grp {
	uint32_t pid, tid;	/* tokens; tid 0 for a device */
	size_t n;
};

typedef TL_VEC(struct grp) grp_vec;

/* Find or add group (pid, tid) of @m in @g; *gi its index. */
static int group_of(struct tl_kmap *m, grp_vec *g, uint32_t pid, uint32_t tid, uint32_t *gi)
{
	if (tl_kmap_get(m, pid, tid, gi))
		return 0;
	struct grp x = { pid, tid, 0 };

	*gi = (uint32_t)g->n;
	if (tl_vec_push(g, x) || tl_kmap_put(m, pid, tid, *gi))
		return -ENOMEM;
	return 0;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Percentile @q (0..1) of sorted @v: linear between order statistics. */
static double pct(const double *v, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);

	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]);
}

/* The distribution of @v[0..n) (n > 0); sorts @v. */
static void dist(double *v, size_t n, struct tl_launch_dist *d)
{
	size_t i;

	d->sum = 0;
	for (i = 0; i < n; i++)
		d->sum += v[i];
	d->mean = d->sum / (double)n;
	tl_qsort(v, n, sizeof(*v), cmp_dbl);
	d->p50 = pct(v, n, 0.5);
	d->p90 = pct(v, n, 0.9);
	d->p99 = pct(v, n, 0.99);
	d->max = v[n - 1];
}

/* One group over launches l[idx[0..n)]; @scratch has room for n. */
static void group_stats(const struct tl_launch_set *s, const uint32_t *idx, size_t n, double *scratch,
			struct tl_launch_group *g)
{
	size_t i, k;

	g->n = n;
	for (k = 0; k < 5; k++) {
		struct tl_launch_dist *d = k == 0 ? &g->cpu : k == 1 ? &g->delay : k == 2 ? &g->latency
					  : k == 3 ? &g->queue : &g->gpu;

		for (i = 0; i < n; i++) {
			const struct tl_launch *l = &s->l[idx[i]];

			scratch[i] = k == 0 ? l->cpu_us : k == 1 ? l->delay_us : k == 2 ? l->latency_us
				   : k == 3 ? l->queue_us : l->gpu_us;
		}
		dist(scratch, n, d);
	}
	for (i = 0; i < n; i++) {
		const struct tl_launch *l = &s->l[idx[i]];

		g->n_cpu_outliers += l->cpu_us > s->runtime_cutoff_us;
		g->n_delay_outliers += l->delay_us > s->delay_cutoff_us;
		g->n_short += l->cpu_us <= s->runtime_cutoff_us && l->gpu_us < l->cpu_us;
	}
}

static int cmp_group(const void *a, const void *b)
{
	const struct tl_launch_group *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The groups of the launches by name (@key[i]: the name id of launch i):
 * a counting sort by name, then one group_stats() per name. */
static int groups_by(const struct tl_trace *tr, struct tl_launch_set *s, const uint32_t *key,
		     struct tl_launch_group **out, size_t *nout)
{
	uint32_t *gid = malloc((tr->strs.n + 1) * sizeof(*gid)), *idx = NULL, *name = NULL;
	size_t *first = NULL, ng = 0, i;
	double *scratch = NULL;
	struct tl_launch_group *g = NULL;
	int err = -ENOMEM;

	if (!gid)
		goto out;
	memset(gid, 0xff, (tr->strs.n + 1) * sizeof(*gid));
	name = malloc(s->n * sizeof(*name) + 1);
	if (!name)
		goto out;
	for (i = 0; i < s->n; i++)
		if (gid[key[i]] == UINT32_MAX) {
			name[ng] = key[i];
			gid[key[i]] = (uint32_t)ng++;
		}
	first = calloc(ng + 1, sizeof(*first));
	idx = malloc(s->n * sizeof(*idx) + 1);
	scratch = malloc(s->n * sizeof(*scratch) + 1);
	g = calloc(ng + 1, sizeof(*g));
	if (!first || !idx || !scratch || !g)
		goto out;
	for (i = 0; i < s->n; i++)
		first[gid[key[i]] + 1]++;
	for (i = 0; i < ng; i++)
		first[i + 1] += first[i];
	for (i = 0; i < s->n; i++)
		idx[first[gid[key[i]]]++] = (uint32_t)i;
	for (i = ng; i > 0; i--)	/* first[i] is now the end of group i: shift back */
		first[i] = first[i - 1];
	first[0] = 0;
	for (i = 0; i < ng; i++) {
		g[i].name = tl_strtab_get(&tr->strs, name[i]);
		group_stats(s, idx + first[i], first[i + 1] - first[i], scratch, &g[i]);
	}
	tl_qsort(g, ng, sizeof(*g), cmp_group);
	*out = g;
	*nout = ng;
	g = NULL;
	err = 0;
out:
	free(gid);
	free(name);
	free(first);
	free(idx);
	free(scratch);
	free(g);
	return err;
}

/* Start order of the launches (GPU event start, then UID); @arg: the set. */
static int cmp_start(const void *a, const void *b, void *arg)
{
	const struct tl_launch_set *set = arg;
	const struct tl_launch *x = &set->l[*(const uint32_t *)a], *y = &set->l[*(const uint32_t *)b];

	if (x->start_us != y->start_us)
		return (x->start_us > y->start_us) - (x->start_us < y->start_us);
	return (x->gpu_uid > y->gpu_uid) - (x->gpu_uid < y->gpu_uid);
}

/* The verdict of one row over launches l[idx[0..n)] in start order; with
 * @mark, the launches' bound_gap flags are set (stream rows). @scratch: n. */
static void verdict(const struct tl_trace *tr, struct tl_launch_set *s, const uint32_t *idx, size_t n,
		    double *scratch, bool mark, struct tl_launch_row *r)
{
	double end = -INFINITY, first = INFINITY, thr = s->launch_bound_us;
	bool end_short = false;
	size_t i;

	r->n = n;
	for (i = 0; i < n; i++) {
		struct tl_launch *l = &s->l[idx[i]];
		double st = l->start_us, e = st + l->gpu_us;
		double call = tr->ev[l->call_uid].ts;
		bool sh = l->gpu_us < thr;

		if (st < first)
			first = st;
		r->n_short += sh;
		if (sh)
			r->short_busy_us += l->gpu_us;
		if (i && st > end) {
			double gap = st - end;

			r->idle_us += gap;
			/* the GPU ran dry and waited for this launch call */
			if (sh && end_short && call >= end) {
				r->n_bound_gaps++;
				r->bound_gap_us += gap;
				if (mark)
					l->bound_gap = true;
			}
		}
		if (e > end) {
			end = e;
			end_short = sh;
		}
	}
	r->span_us = end - first;
	r->busy_us = r->span_us - r->idle_us;
	for (i = 0; i < n; i++)
		scratch[i] = s->l[idx[i]].gpu_us;
	tl_qsort(scratch, n, sizeof(*scratch), cmp_dbl);
	r->gpu_p50_us = pct(scratch, n, 0.5);
	for (i = 1; i < n; i++)
		scratch[i - 1] = tr->ev[s->l[idx[i]].call_uid].ts - tr->ev[s->l[idx[i - 1]].call_uid].ts;
	if (n > 1) {
		tl_qsort(scratch, n - 1, sizeof(*scratch), cmp_dbl);
		r->cadence_p50_us = pct(scratch, n - 1, 0.5);
	}
	r->launch_bound = r->idle_us > 0 && r->bound_gap_us * 2 >= r->idle_us && r->n_short * 2 >= r->n;
}

static int cmp_row(const void *a, const void *b)
{
	const struct tl_launch_row *x = a, *y = b;
	int c = strverscmp(x->device, y->device);

	if (c || !x->stream)
		return c;
	return strverscmp(x->stream, y->stream);
}

/* Rows of the groups @g (by @gof[i], the group of launch i), each in start
 * order (@order: every launch in start order; a stable counting sort keeps it). */
static int rows_of(const struct tl_trace *tr, struct tl_launch_set *s, const uint32_t *order,
		   const uint32_t *gof, const grp_vec *g, bool stream, struct tl_launch_row **out)
{
	struct tl_launch_row *rows = calloc(g->n + 1, sizeof(*rows));
	size_t *first = calloc(g->n + 1, sizeof(*first)), i;
	uint32_t *idx = malloc(s->n * sizeof(*idx) + 1);
	double *scratch = malloc(s->n * sizeof(*scratch) + 1);
	int err = -ENOMEM;

	if (!rows || !first || !idx || !scratch)
		goto out;
	for (i = 0; i < g->n; i++)
		first[i + 1] = first[i] + g->v[i].n;
	for (i = 0; i < s->n; i++)
		idx[first[gof[order[i]]]++] = order[i];
	for (i = 0; i < g->n; i++) {
		size_t st = first[i] - g->v[i].n;

		rows[i].device = tl_tok_display_c(tr, g->v[i].pid);
		rows[i].stream = stream ? tl_tok_display_c(tr, g->v[i].tid) : NULL;
		verdict(tr, s, idx + st, g->v[i].n, scratch, stream, &rows[i]);
	}
	tl_qsort(rows, g->n, sizeof(*rows), cmp_row);
	*out = rows;
	rows = NULL;
	err = 0;
out:
	free(rows);
	free(first);
	free(idx);
	free(scratch);
	return err;
}

/* Queue times: per stream, in start order, from the end of the previous event. */
static void queue_times(const struct tl_trace *tr, struct tl_launch_set *s, const uint32_t *order,
			const uint32_t *sof, size_t nstream, double *prev_end)
{
	size_t i;

	for (i = 0; i < nstream; i++)
		prev_end[i] = -INFINITY;
	for (i = 0; i < s->n; i++) {
		struct tl_launch *l = &s->l[order[i]];
		double call = tr->ev[l->call_uid].ts, *pe = &prev_end[sof[order[i]]];

		l->queue_us = l->start_us - (call > *pe ? call : *pe);
		if (l->start_us + l->gpu_us > *pe)
			*pe = l->start_us + l->gpu_us;
	}
}

/* Collect the launches, their stream and device groups and name keys. */
/* Whether HTA's launch statistics count a launch by call @c. */
static bool hta_launch_call(const struct tl_trace *tr, const struct tl_ev *c)
{
	static const char *const names[] = { "cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync",
					     "cudaMemsetAsync", "runFunction - job_prep_and_submit_for_execution" };
	const char *n = tl_strtab_get(&tr->strs, c->name);
	size_t i;

	for (i = 0; i < TL_ARRAY_SIZE(names); i++)
		if (!strcmp(n, names[i]))
			return true;
	return false;
}

static int collect(struct tl_trace *tr, const struct tl_hta_view *hta, struct tl_launch_set *s, grp_vec *dg,
		   grp_vec *sg, uint32_t **dof, uint32_t **sof, size_t *considered)
{
	TL_VEC(uint32_t) dv = { 0 }, sv = { 0 };
	launch_vec lv = { 0 };
	struct tl_kmap dmap, smap;
	bool maps = false;
	size_t i;
	int err = -ENOMEM;

	if (tl_kmap_init(&dmap, 16))
		goto out;
	if (tl_kmap_init(&smap, 64)) {
		tl_kmap_free(&dmap);
		goto out;
	}
	maps = true;
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i], *c;
		struct tl_launch l = { 0 };
		double gts, gdur, cts, cdur;
		uint32_t di, si;
		int64_t op;

		if (!tl_kind_is_gpu(e->kind))
			continue;
		(*considered)++;
		if (tr->tree.in_tree[i] != 2 || tr->tree.parent[i] < 0 || !(e->flags & EV_HAS_TS) ||
		    !(e->flags & EV_HAS_DUR))
			continue;
		c = &tr->ev[tr->tree.parent[i]];
		if (!(c->flags & EV_HAS_TS) || !(c->flags & EV_HAS_DUR))
			continue;
		gts = e->ts, gdur = e->dur, cts = c->ts, cdur = c->dur;
		if (hta) {
			tl_hta_times(hta, e, &gts, &gdur);
			tl_hta_times(hta, c, &cts, &cdur);
			if (!hta_launch_call(tr, c) || !(cts < hta->before_us))
				continue;
		}
		op = tl_event_launcher(tr, i);
		l.gpu_uid = i;
		l.call_uid = (uint64_t)tr->tree.parent[i];
		l.op_uid = op >= 0 ? (uint64_t)op : l.call_uid;
		l.start_us = gts;
		l.gpu_us = gdur;
		l.cpu_us = cdur;
		l.latency_us = gts - cts;
		l.delay_us = l.latency_us - cdur; /* HTA: ts_y - ts_x - dur_x, in that order */
		if (l.delay_us < 0)	/* HTA clips it */
			l.delay_us = 0;
		if (group_of(&dmap, dg, e->pid, 0, &di) || group_of(&smap, sg, e->pid, e->tid, &si))
			goto out;
		dg->v[di].n++;
		sg->v[si].n++;
		l.stream = si;
		if (tl_vec_push(&lv, l) || tl_vec_push(&dv, di) || tl_vec_push(&sv, si))
			goto out;
	}
	s->l = lv.v;
	s->n = lv.n;
	*dof = dv.v;
	*sof = sv.v;
	lv.v = NULL;
	dv.v = sv.v = NULL;
	err = 0;
out:
	if (maps) {
		tl_kmap_free(&dmap);
		tl_kmap_free(&smap);
	}
	tl_vec_free(&lv);
	tl_vec_free(&dv);
	tl_vec_free(&sv);
	return err;
}

/* After the rows were sorted, point each launch's stream at its row. */
static void restream(const struct tl_trace *tr, struct tl_launch_set *s, const grp_vec *sg)
{
	uint32_t *map = malloc(sg->n * sizeof(*map) + 1);
	size_t i, j;

	if (!map)	/* the indexes stay those of the groups: only an order */
		return;
	for (i = 0; i < sg->n; i++) {
		const char *d = tl_tok_display_c(tr, sg->v[i].pid), *st = tl_tok_display_c(tr, sg->v[i].tid);

		map[i] = 0;
		for (j = 0; j < s->nstream; j++)
			if (!strcmp(s->stream[j].device, d) && !strcmp(s->stream[j].stream, st))
				map[i] = (uint32_t)j;
	}
	for (i = 0; i < s->n; i++)
		s->l[i].stream = map[s->l[i].stream];
	free(map);
}

int tl_launch_stats(struct tl_trace *tr, const struct tl_launch_opts *opts, struct tl_launch_set **out)
{
	struct tl_launch_opts o = { 0 };
	struct tl_hta_view hta;
	struct tl_launch_set *s = NULL;
	grp_vec dg = { 0 }, sg = { 0 };
	uint32_t *dof = NULL, *sof = NULL, *order = NULL, *key = NULL;
	double *scratch = NULL;
	size_t considered = 0, i;
	int err;

	*out = NULL;
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	if (!(o.launch_bound_us >= 0) || !(o.runtime_cutoff_us >= 0) || !(o.delay_cutoff_us >= 0))
		return tl_err(-EINVAL, "launches: thresholds must be numbers >= 0");
	err = tl_tree_ensure(tr, false);
	if (err)
		return err;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto nomem;
	s->launch_bound_us = o.launch_bound_us > 0 ? o.launch_bound_us : TL_LAUNCH_BOUND_US;
	s->runtime_cutoff_us = o.runtime_cutoff_us > 0 ? o.runtime_cutoff_us : TL_LAUNCH_RUNTIME_CUTOFF_US;
	s->delay_cutoff_us = o.delay_cutoff_us > 0 ? o.delay_cutoff_us : TL_LAUNCH_DELAY_CUTOFF_US;
	if (o.hta && tl_hta_view_of(tr, &hta))
		goto nomem;
	if (collect(tr, o.hta ? &hta : NULL, s, &dg, &sg, &dof, &sof, &considered))
		goto nomem;
	if (!s->n && considered && o.hta) {
		err = tl_err(-ENODATA,
			     "%s: none of the %zu GPU events was launched by a call HTA counts (cudaLaunchKernel, "
			     "cudaLaunchKernelExC, cudaMemcpyAsync, cudaMemsetAsync) before the last ProfilerStep",
			     tr->path, considered);
		goto out;
	}
	if (!s->n) {
		err = considered ? tl_err(-ENODATA, "%s: none of the %zu GPU events is linked to a launch call",
					  tr->path, considered)
				 : tl_err(-ENODATA, "%s: no GPU events (kernel, gpu_memcpy, gpu_memset) in the trace",
					  tr->path);
		goto out;
	}
	order = malloc(s->n * sizeof(*order));
	key = malloc(s->n * sizeof(*key));
	scratch = malloc(s->n * sizeof(*scratch));
	if (!order || !key || !scratch)
		goto nomem;
	for (i = 0; i < s->n; i++)
		order[i] = (uint32_t)i;
	tl_qsort_r(order, s->n, sizeof(*order), cmp_start, s);
	queue_times(tr, s, order, sof, sg.n, scratch);
	if (rows_of(tr, s, order, dof, &dg, false, &s->dev) || rows_of(tr, s, order, sof, &sg, true, &s->stream))
		goto nomem;
	s->ndev = dg.n;
	s->nstream = sg.n;
	restream(tr, s, &sg);
	for (i = 0; i < s->n; i++)
		order[i] = (uint32_t)i;
	s->all.name = "all";
	group_stats(s, order, s->n, scratch, &s->all);
	for (i = 0; i < s->n; i++)
		key[i] = tr->ev[s->l[i].op_uid].name;
	if (groups_by(tr, s, key, &s->op, &s->nop))
		goto nomem;
	for (i = 0; i < s->n; i++)
		key[i] = tr->ev[s->l[i].gpu_uid].name;
	if (groups_by(tr, s, key, &s->kernel, &s->nkernel))
		goto nomem;
	*out = s;
	s = NULL;
	err = 0;
	goto out;
nomem:
	err = tl_err(-ENOMEM, "out of memory computing the launch statistics");
out:
	tl_launch_set_free(s);
	tl_vec_free(&dg);
	tl_vec_free(&sg);
	free(dof);
	free(sof);
	free(order);
	free(key);
	free(scratch);
	return err;
}

void tl_launch_set_free(struct tl_launch_set *s)
{
	if (!s)
		return;
	free(s->l);
	free(s->op);
	free(s->kernel);
	free(s->dev);
	free(s->stream);
	free(s);
}
