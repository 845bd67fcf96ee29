/* SPDX-License-Identifier: MIT */
/* GPU idle time broken down by cause (include/tlreplay/idle.h): HTA's host
 * wait / kernel wait / other for every gap, per stream and per device, and
 * the causes the trace shows (sync calls, pageable copies, micro idle).
 * A device's gaps are those of the union timeline.c's breakdown takes, and
 * its idle_us is summed the way the breakdown sums it. */
#include <math.h>
#include <stdio.h>

#include <tlreplay/idle.h>

#include "analysis/analysis_internal.h"
#include "trace/trace_internal.h"

const char *tl_idle_cat_name(enum tl_idle_cat c)
{
	static const char *const names[TL_IDLE_NCATS] = { "host_wait", "kernel_wait", "other" };

	return (unsigned)c < TL_IDLE_NCATS ? names[c] : "?";
}

const char *tl_idle_cause_name(enum tl_idle_cause c)
{
	static const char *const names[TL_IDLE_NCAUSES] = { "none", "sync_drain", "pageable_memcpy",
							    "micro_idle" };

	return (unsigned)c < TL_IDLE_NCAUSES ? names[c] : "?";
}

/* A GPU event of the analysis: its interval, when its launch call started
 * (NAN: not linked), and its device and stream group. */
struct item {
	double s, e, launch, launch_end;	/* launch call: [launch, launch_end] */
	uint32_t uid, dg, sg;
	bool pageable;		/* a linked copy to or from pageable memory */
};

/* A host call that explains a gap: a sync call or a pageable copy's call. */
struct win {
	double s, e;
	uint32_t uid;
};

/* Such calls sorted by start; pmax[k]: the index of the call that ends last
 * among the first k + 1, so "was the host in such a call at time t" is one
 * binary search (the calls may overlap: several host threads). */
struct winset {
	TL_VEC(struct win) w;
	uint32_t *pmax;
};

typedef TL_VEC(struct item) item_vec;

struct grp {
	uint32_t pid, tid;	/* tokens (0: absent); tid 0 for a device */
	size_t n;
};

typedef TL_VEC(struct grp) grp_vec;

struct ctx {
	const struct tl_trace *tr;
	double kw, micro;
	bool keep, hta;
	struct winset sync, pageable;
	struct tl_iv *merged;	/* scratch of n + 1 */
};

/* Whether runtime/driver call @name waits for the GPU: the synchronize
 * calls of CUDA's runtime and driver and of HIP, with or without a suffix
 * (_v2, _ptsz). */
static bool is_sync_name(const char *name)
{
	static const char *const calls[] = {
		"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
		"hipDeviceSynchronize",	 "hipStreamSynchronize",  "hipEventSynchronize",
		"cuCtxSynchronize",	 "cuStreamSynchronize",	  "cuEventSynchronize",
	};
	size_t i, l;

	for (i = 0; i < TL_ARRAY_SIZE(calls); i++) {
		l = strlen(calls[i]);
		if (!strncmp(name, calls[i], l) && (!name[l] || name[l] == '_'))
			return true;
	}
	return false;
}

/* A gpu_memcpy to or from pageable host memory: Kineto names them
 * "Memcpy DtoH (Device -> Pageable)"; other profilers may say it in args. */
static bool is_pageable_copy(const struct tl_trace *tr, const struct tl_ev *e)
{
	size_t len;
	const char *a;

	if (strstr(tl_strtab_get(&tr->strs, e->name), "Pageable"))
		return true;
	a = tl_ev_args(tr, e, &len);
	return a && memmem(a, len, "Pageable", 8);
}

static int cmp_win(const void *a, const void *b)
{
	const struct win *x = a, *y = b;

	if (x->s != y->s)
		return (x->s > y->s) - (x->s < y->s);
	return (x->uid > y->uid) - (x->uid < y->uid);
}

/* Sort the calls by start and fill pmax. */
static int winset_finish(struct winset *ws)
{
	size_t n = ws->w.n, i;

	ws->pmax = malloc(n * sizeof(*ws->pmax) + 1);
	if (!ws->pmax)
		return -ENOMEM;
	tl_qsort(ws->w.v, n, sizeof(*ws->w.v), cmp_win);
	for (i = 0; i < n; i++)
		ws->pmax[i] = (i && ws->w.v[ws->pmax[i - 1]].e >= ws->w.v[i].e) ? ws->pmax[i - 1]
										 : (uint32_t)i;
	return 0;
}

/* The call the host was in at time @t (start <= t < end), as a UID, else -1. */
static int64_t winset_at(const struct winset *ws, double t)
{
	size_t lo = 0, hi = ws->w.n, j;

	while (lo < hi) {	/* lo: the calls that start by t */
		size_t mid = lo + (hi - lo) / 2;

		if (ws->w.v[mid].s <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	j = ws->pmax[lo - 1];
	return ws->w.v[j].e > t ? (int64_t)ws->w.v[j].uid : -1;
}

static void winset_free(struct winset *ws)
{
	tl_vec_free(&ws->w);
	free(ws->pmax);
}

/* The category and cause of the gap (gs, ge) before @next, launched at
 * @launch (NAN: unknown). A call explains a gap when the host was in it as
 * the GPU went idle: a sync (the host waited for the GPU to drain instead of
 * queuing more) or a pageable copy (the host was staging data). Only for a
 * host wait: while the host waits in a long sync, queued kernels still run,
 * with kernel-wait gaps the sync did not cause. The exception is the gap
 * before a pageable copy whose own call the host was in: its DMA is queued
 * only once the data is staged, whatever the launch time says. */
static void classify(const struct ctx *c, struct tl_idle_row *r, double gs, double ge, double launch,
		     const struct item *next)
{
	struct tl_idle_gap g = { .start = gs, .end = ge, .next_uid = next->uid, .cause_uid = -1 };
	double len = ge - gs;
	bool host = !isnan(launch) && launch > gs;	/* HTA: ts_runtime > prev_end_ts */

	g.cat = host ? TL_IDLE_HOST_WAIT : len < c->kw ? TL_IDLE_KERNEL_WAIT : TL_IDLE_OTHER;
	g.cause = TL_IDLE_CAUSE_NONE;
	if (host && (g.cause_uid = winset_at(&c->sync, gs)) >= 0) {
		g.cause = TL_IDLE_SYNC_DRAIN;
	} else if (host && (g.cause_uid = winset_at(&c->pageable, gs)) >= 0) {
		g.cause = TL_IDLE_PAGEABLE_MEMCPY;
	} else if (next->pageable && next->launch <= gs && next->launch_end > gs) {
		g.cause = TL_IDLE_PAGEABLE_MEMCPY;
		g.cause_uid = (int64_t)c->tr->tree.parent[next->uid];
	} else if (host && len < c->micro) {
		g.cause = TL_IDLE_MICRO;
	}
	r->us[g.cat][g.cause] += len;
	r->n[g.cat][g.cause]++;
	r->ngaps++;
	if (c->keep)	/* room for every gap (n - 1) was made: no growth here */
		r->gaps[r->ngaps - 1] = g;
}

/* One row over the events it[idx[0..n)], in start order: the gaps of their
 * union, and span and busy as timeline.c's breakdown_of() sums them (the
 * union segments are the same, in the same order). */
static int sweep(const struct ctx *c, const struct item *it, const uint32_t *idx, size_t n,
		 struct tl_idle_row *r)
{
	struct tl_iv *m = c->merged;
	size_t i, j, k = 0;

	r->nevents = n;
	if (c->keep && n > 1 && !(r->gaps = malloc((n - 1) * sizeof(*r->gaps))))
		return -ENOMEM;
	m[0].s = it[idx[0]].s;
	m[0].e = it[idx[0]].e;
	for (i = 1; i < n; i = j) {
		const struct item *x = &it[idx[i]], *next = x;
		double launch = x->launch;

		/* the events that start together: one step */
		for (j = i + 1; j < n && it[idx[j]].s == x->s; j++) {
			const struct item *y = &it[idx[j]];

			if (!isnan(y->launch) && (isnan(launch) || y->launch < launch)) {
				launch = y->launch;
				next = y;
			}
		}
		if (x->s > m[k].e) {
			classify(c, r, m[k].e, x->s, launch, next);
			k++;
			m[k].s = x->s;
			m[k].e = x->e;
		}
		for (; i < j; i++)
			if (it[idx[i]].e > m[k].e)
				m[k].e = it[idx[i]].e;
	}
	r->span_us = m[k].e - m[0].s;
	r->busy_us = tl_iv_sum(m, k + 1);
	r->idle_us = r->span_us - r->busy_us;
	return 0;
}

/* A stream's row as HTA computes it (opts.hta): the gap before each event
 * is from the end of the event before it in start order, whatever it is. */
static int sweep_hta(const struct ctx *c, const struct item *it, const uint32_t *idx, size_t n,
		     struct tl_idle_row *r)
{
	double end = it[idx[0]].e;
	size_t i;
	int k, l;

	r->nevents = n;
	if (c->keep && n > 1 && !(r->gaps = malloc((n - 1) * sizeof(*r->gaps))))
		return -ENOMEM;
	for (i = 1; i < n; i++) {
		const struct item *p = &it[idx[i - 1]], *x = &it[idx[i]];

		classify(c, r, p->e, x->s, x->launch, x);
		if (x->e > end)
			end = x->e;
	}
	r->span_us = end - it[idx[0]].s;
	for (k = 0; k < TL_IDLE_NCATS; k++)
		for (l = 0; l < TL_IDLE_NCAUSES; l++)
			r->idle_us += r->us[k][l];
	r->busy_us = r->span_us - r->idle_us;
	return 0;
}

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->s != y->s)
		return (x->s > y->s) - (x->s < y->s);
	return (x->uid > y->uid) - (x->uid < y->uid);
}

static int cmp_row(const void *a, const void *b)
{
	const struct tl_idle_row *x = a, *y = b;
	int c = strverscmp(x->device, y->device);

	if (c || !x->stream)
		return c;
	return strverscmp(x->stream, y->stream);
}

/* The rows (*nout) of the groups @g (@ng of them, those with events) whose
 * events are the items with that group (member @off of struct item): a
 * stable counting sort keeps the start order. */
static int rows_of(const struct ctx *c, const struct item *it, size_t nit, const struct grp *g,
		   size_t ng, size_t off, struct tl_idle_row **out, size_t *nout)
{
	struct tl_idle_row *rows = calloc(ng + 1, sizeof(*rows));
	size_t *first = calloc(ng + 1, sizeof(*first)), i, nr = 0;
	uint32_t *idx = malloc(nit * sizeof(*idx) + 1);
	int err = -ENOMEM;

	if (!rows || !first || !idx)
		goto out;
	for (i = 0; i < ng; i++)
		first[i + 1] = first[i] + g[i].n;
	for (i = 0; i < nit; i++) {
		uint32_t gi;

		memcpy(&gi, (const char *)&it[i] + off, sizeof(gi));
		idx[first[gi]++] = (uint32_t)i;
	}
	for (i = 0; i < ng; i++) {
		size_t start = first[i] - g[i].n;
		bool stream = off == offsetof(struct item, sg);

		if (!g[i].n)	/* every event left out (opts.hta) */
			continue;
		rows[nr].device = tl_tok_display_c(c->tr, g[i].pid);
		/* a stream row always has a stream ("" for events without a tid) */
		rows[nr].stream = stream ? tl_tok_display_c(c->tr, g[i].tid) : NULL;
		err = (stream && c->hta ? sweep_hta : sweep)(c, it, idx + start, g[i].n, &rows[nr]);
		nr++;
		if (err)
			goto out;
	}
	tl_qsort(rows, nr, sizeof(*rows), cmp_row);
	*nout = nr;
	*out = rows;
	rows = NULL;
	err = 0;
out:
	if (rows)
		for (i = 0; i < nr; i++)
			free(rows[i].gaps);
	free(rows);
	free(first);
	free(idx);
	return err;
}

/* Keep the rows of device @dev and stream @stream (NULL: any; a device row
 * has no stream, so a @stream drops it), in order; *n updated. */
static void filter_rows(struct tl_idle_row *v, size_t *n, const char *dev, const char *stream)
{
	size_t i, k = 0;

	for (i = 0; i < *n; i++) {
		if ((dev && strcmp(v[i].device, dev)) ||
		    (stream && (!v[i].stream || strcmp(v[i].stream, stream)))) {
			free(v[i].gaps);
			continue;
		}
		v[k++] = v[i];
	}
	*n = k;
}

/* "0, 1, 2": the names of @v's devices (or streams), for an error. */
static void list_names(const struct tl_idle_row *v, size_t n, bool streams, char *buf, size_t len)
{
	size_t i, at = 0;

	buf[0] = 0;
	for (i = 0; i < n && at + 1 < len; i++) {
		const char *s = streams ? v[i].stream : v[i].device;
		int w;

		if (streams) {
			size_t j;

			for (j = 0; j < i && strcmp(v[j].stream, s); j++)
				;
			if (j < i)
				continue;
		}
		w = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", s);
		if (w < 0 || (size_t)w >= len - at)
			break;
		at += (size_t)w;
	}
}

/* Collect the items, the groups and the calls. */
static int collect(struct tl_trace *tr, bool include_unlinked, struct ctx *c, item_vec *items,
		   grp_vec *dg, grp_vec *sg, size_t *considered)
{
	uint8_t *sync_name = calloc(tr->strs.n + 1, 1);	/* 0 unknown, 1 sync, 2 not */
	struct tl_kmap dmap, smap;
	bool maps = false;
	size_t i;
	int err = -ENOMEM;

	if (!sync_name || tl_kmap_init(&dmap, 16))
		goto out;
	if (tl_kmap_init(&smap, 64)) {
		tl_kmap_free(&dmap);
		goto out;
	}
	maps = true;
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		bool timed = (e->flags & (EV_HAS_TS | EV_HAS_DUR)) == (EV_HAS_TS | EV_HAS_DUR);
		bool linked = tr->tree.in_tree[i] == 2 && tr->tree.parent[i] >= 0;
		struct item x = { 0 };
		uint32_t gi;

		if ((e->kind == TL_KIND_RUNTIME || e->kind == TL_KIND_DRIVER) && timed) {
			if (!sync_name[e->name])
				sync_name[e->name] = is_sync_name(tl_strtab_get(&tr->strs, e->name)) ? 1 : 2;
			if (sync_name[e->name] == 1) {
				struct win w = { e->ts, tl_ev_end(e), (uint32_t)i };

				if (tl_vec_push(&c->sync.w, w))
					goto out;
			}
			continue;
		}
		if (!tl_kind_is_gpu(e->kind))
			continue;
		if (e->kind == TL_KIND_MEMCPY && linked && is_pageable_copy(tr, e)) {
			const struct tl_ev *p = &tr->ev[tr->tree.parent[i]];
			struct win w = { p->ts, tl_ev_end(p), (uint32_t)tr->tree.parent[i] };

			if (tl_vec_push(&c->pageable.w, w))
				goto out;
			x.pageable = true;
		}
		(*considered)++;
		/* the events tl_breakdown() counts, with the same rules */
		if (!include_unlinked && !tr->xprof && tr->tree.in_tree[i] != 2)
			continue;
		if (!timed)
			continue;
		x.s = e->ts;
		x.e = tl_ev_end(e);
		x.launch = linked ? tr->ev[tr->tree.parent[i]].ts : NAN;
		x.launch_end = linked ? tl_ev_end(&tr->ev[tr->tree.parent[i]]) : NAN;
		x.uid = (uint32_t)i;
		if (!tl_kmap_get(&dmap, e->pid, 0, &gi)) {
			struct grp g = { e->pid, 0, 0 };

			gi = (uint32_t)dg->n;
			if (tl_vec_push(dg, g) || tl_kmap_put(&dmap, e->pid, 0, gi))
				goto out;
		}
		dg->v[gi].n++;
		x.dg = gi;
		if (!tl_kmap_get(&smap, e->pid, e->tid, &gi)) {
			struct grp g = { e->pid, e->tid, 0 };

			gi = (uint32_t)sg->n;
			if (tl_vec_push(sg, g) || tl_kmap_put(&smap, e->pid, e->tid, gi))
				goto out;
		}
		sg->v[gi].n++;
		x.sg = gi;
		if (tl_vec_push(items, x))
			goto out;
	}
	err = 0;
out:
	if (maps) {
		tl_kmap_free(&dmap);
		tl_kmap_free(&smap);
	}
	free(sync_name);
	return err;
}

/* opts.hta: the items as HTA's Trace has them (tl_hta_view_of). With several ProfilerStep
 * names, HTA keeps the GPU events whose CPU correlation starts before the
 * last step (the latest start of an event so named); with fractional
 * timestamps it rounds every start up and every end down; the launch of a
 * GPU event is the call with its correlation id. Then re-sorted and
 * re-counted per stream. */
static int hta_items(const struct tl_trace *tr, item_vec *items, grp_vec *sg, struct tl_idle_set *set)
{
	struct tl_hta_view v;
	size_t i, k = 0;
	bool frac;
	struct tl_kmap corr; /* correlation -> its runtime or driver call */

	if (tl_hta_view_of(tr, &v))
		return -ENOMEM;
	if (tl_kmap_init(&corr, 1024))
		return -ENOMEM;
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];

		if ((e->kind == TL_KIND_RUNTIME || e->kind == TL_KIND_DRIVER) && (e->flags & EV_HAS_CORR) &&
		    tl_kmap_put(&corr, 0, tl_ev_corr(tr, e), (uint32_t)i)) {
			tl_kmap_free(&corr);
			return -ENOMEM;
		}
	}
	frac = v.rounded;
	set->hta_before_us = v.last_step_us;
	set->hta_rounded = frac;
	for (i = 0; i < sg->n; i++)
		sg->v[i].n = 0;
	for (i = 0; i < items->n; i++) {
		struct item x = items->v[i];
		const struct tl_ev *e = &tr->ev[x.uid];
		uint32_t r;

		/* HTA's launch is the call with the GPU event's correlation id */
		x.launch = x.launch_end = NAN;
		if ((e->flags & EV_HAS_CORR) && tl_kmap_get(&corr, 0, tl_ev_corr(tr, e), &r)) {
			x.launch = tr->ev[r].ts;
			x.launch_end = tl_ev_end(&tr->ev[r]);
		}
		/* HTA compares rounded times; unlinked events go too (it joins) */
		if (isfinite(v.before_us) && !((frac ? ceil(x.launch) : x.launch) < v.before_us))
			continue;
		if (frac) {
			x.s = ceil(x.s);
			x.e = floor(x.e);
			x.launch = ceil(x.launch);
		}
		sg->v[x.sg].n++;
		items->v[k++] = x;
	}
	items->n = k;
	tl_qsort(items->v, items->n, sizeof(*items->v), cmp_item);
	tl_kmap_free(&corr);
	return 0;
}

int tl_idle_breakdown(struct tl_trace *tr, const struct tl_idle_opts *opts, struct tl_idle_set **out)
{
	struct tl_idle_opts o = { 0 };
	struct ctx c = { 0 };
	item_vec items = { 0 };
	grp_vec dg = { 0 }, sg = { 0 };
	struct tl_idle_set *set = NULL;
	size_t considered = 0;
	char names[256];
	int err;

	*out = NULL;
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	if (isnan(o.kernel_wait_us) || isnan(o.micro_idle_us) || o.micro_idle_us < 0)
		return tl_err(-EINVAL, "idle: thresholds must be numbers >= 0");
	err = tl_links_ensure(tr);
	if (err)
		return err;
	c.tr = tr;
	c.kw = o.kernel_wait_us == 0 ? TL_IDLE_KERNEL_WAIT_US : o.kernel_wait_us;
	c.micro = o.micro_idle_us;
	c.keep = o.keep_gaps;
	c.hta = o.hta;
	/* HTA takes every GPU event, launched from the host or not */
	err = collect(tr, o.include_unlinked || o.hta, &c, &items, &dg, &sg, &considered);
	if (err)
		goto nomem;
	if (!items.n) {
		err = tl_err_no_linked_gpu(tr, considered);
		goto out;
	}
	if (winset_finish(&c.sync) || winset_finish(&c.pageable))
		goto nomem;
	tl_qsort(items.v, items.n, sizeof(*items.v), cmp_item);
	c.merged = malloc((items.n + 1) * sizeof(*c.merged));
	set = calloc(1, sizeof(*set));
	if (!c.merged || !set)
		goto nomem;
	set->kernel_wait_us = c.kw;
	set->micro_idle_us = c.micro;
	set->nsync = c.sync.w.n;
	set->npageable = c.pageable.w.n;
	set->hta_before_us = INFINITY;
	if (!o.hta && rows_of(&c, items.v, items.n, dg.v, dg.n, offsetof(struct item, dg), &set->dev,
			      &set->ndev))
		goto nomem;
	if (o.hta && hta_items(tr, &items, &sg, set))
		goto nomem;
	if (rows_of(&c, items.v, items.n, sg.v, sg.n, offsetof(struct item, sg), &set->stream,
		    &set->nstream))
		goto nomem;
	if (!set->ndev && !set->nstream) {
		err = tl_err(-ENODATA, "%s: no GPU event was launched before the last ProfilerStep "
			     "(HTA leaves out the last step's)", tr->path);
		goto out;
	}
	if (o.device) {
		list_names(set->dev, set->ndev, false, names, sizeof(names));
		filter_rows(set->dev, &set->ndev, o.device, NULL);
		filter_rows(set->stream, &set->nstream, o.device, NULL);
		if (!set->ndev && !set->nstream) {
			err = tl_err(-ENOENT, "%s: no device '%s' with GPU events (devices: %s)", tr->path,
				     o.device, names);
			goto out;
		}
	}
	if (o.stream) {
		list_names(set->stream, set->nstream, true, names, sizeof(names));
		filter_rows(set->stream, &set->nstream, NULL, o.stream);
		/* the device rows are about every stream: not shown for one */
		filter_rows(set->dev, &set->ndev, NULL, o.stream);
		if (!set->nstream) {
			err = tl_err(-ENOENT, "%s: no stream '%s' with GPU events%s%s%s (streams: %s)",
				     tr->path, o.stream, o.device ? " on device '" : "",
				     o.device ? o.device : "", o.device ? "'" : "", names);
			goto out;
		}
	}
	*out = set;
	set = NULL;
	err = 0;
	goto out;
nomem:
	err = tl_err(-ENOMEM, "out of memory computing the idle breakdown");
out:
	tl_idle_set_free(set);
	tl_vec_free(&items);
	tl_vec_free(&dg);
	tl_vec_free(&sg);
	winset_free(&c.sync);
	winset_free(&c.pageable);
	free(c.merged);
	return err;
}

void tl_idle_set_free(struct tl_idle_set *set)
{
	size_t i;

	if (!set)
		return;
	for (i = 0; set->dev && i < set->ndev; i++)
		free(set->dev[i].gaps);
	for (i = 0; set->stream && i < set->nstream; i++)
		free(set->stream[i].gaps);
	free(set->dev);
	free(set->stream);
	free(set);
}
