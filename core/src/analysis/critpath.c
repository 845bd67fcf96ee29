/* SPDX-License-Identifier: MIT */
/* The critical path of an iteration (include/tlreplay/critpath.h): a DAG of
 * event start/end nodes with HTA's edge types, and its longest path. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <tlreplay/critpath.h>
#include <tlreplay/trace.h>
#include <tlreplay/tree.h>

#include "analysis/analysis_internal.h"

const char *tl_cp_edge_name(enum tl_cp_edge_type t)
{
	static const char *const n[TL_CP_NTYPES] = { "op", "dependency", "launch_delay", "kernel_gap",
						     "sync" };

	return (unsigned)t < TL_CP_NTYPES ? n[t] : "?";
}

const char *tl_cp_cat_name(enum tl_cp_cat c)
{
	static const char *const n[TL_CP_NCATS] = { "cpu", "kernel", "gpu_gap", "launch_delay",
						    "sync_wait" };

	return (unsigned)c < TL_CP_NCATS ? n[c] : "?";
}

/* The window of ProfilerStep#step. */
static int find_step(struct tl_trace *tr, const struct cp_graph *g, int64_t step, double *t0, double *t1)
{
	char want[48];
	uint64_t u, n = tl_trace_nevents(tr);
	struct tl_event_info ei;

	snprintf(want, sizeof(want), "ProfilerStep#%lld", (long long)step);
	for (u = 0; u < n; u++) {
		if (tl_trace_event(tr, u, &ei) || ei.ph != 'X' || strcmp(ei.name, want))
			continue;
		tl_cp_times(g, tr, u, t0, t1);
		return 0;
	}
	return tl_err(-ENOENT, "%s: no step %lld (no %s event)", tl_trace_path(tr), (long long)step, want);
}

/* Events of the window: host events with a span starting in it, GPU events
 * whose launch call starts in it. */
static int collect(struct cp_graph *g, struct tl_trace *tr, double t0, double t1, bool all)
{
	uint64_t u, n = tl_trace_nevents(tr);
	struct tl_event_info ei;

	g->idx = malloc(n * sizeof(*g->idx));
	if (!g->idx)
		return -ENOMEM;
	for (u = 0; u < n; u++) {
		double at;
		struct cp_ev *c;
		double s, e;

		g->idx[u] = -1;
		if (tl_trace_event(tr, u, &ei) || ei.ph != 'X' || !ei.has_dur)
			continue;
		tl_cp_times(g, tr, u, &s, &e);
		if (tl_cp_is_host(ei.kind)) {
			/* HTA drops host events without a span */
			if (!(e > s))
				continue;
			at = s;
		} else if (tl_kind_is_gpu(ei.kind)) {
			int64_t p = tl_event_parent(tr, u);
			double pe;

			/* HTA leaves out GPU work no call in the trace launched */
			if (p < 0)
				continue;
			tl_cp_times(g, tr, (uint64_t)p, &at, &pe);
		} else {
			continue;
		}
		if ((!all && (at < t0 || at > t1)) || (g->hta && at >= g->hv.before_us))
			continue;
		if (g->nev == g->cev_cap) {
			size_t cap = g->cev_cap ? g->cev_cap * 2 : 1024;
			void *p = realloc(g->ev, cap * sizeof(*g->ev));

			if (!p)
				return -ENOMEM;
			g->ev = p;
			g->cev_cap = cap;
		}
		c = &g->ev[g->nev];
		c->uid = (uint32_t)u;
		c->s = s;
		c->e = e;
		c->corr = ei.correlation;
		c->pid = ei.pid;
		c->tid = ei.tid;
		c->kind = (uint8_t)ei.kind;
		g->idx[u] = (int32_t)g->nev++;
	}
	return 0;
}

/* HTA's KERNEL_KERNEL_DELAY_THRESHOLD_US: a longer gap between two events of
 * a stream is not the previous one holding the next back. */
#define KERNEL_GAP_US 1500.0

/* GPU events sorted by (pid, stream, start); the graph is qsort_r's context. */
static int cmp_gpu(const void *a, const void *b, void *ctx)
{
	const struct cp_graph *g = ctx;
	const struct cp_ev *x = &g->ev[*(const size_t *)a], *y = &g->ev[*(const size_t *)b];
	int c = strcmp(x->pid, y->pid);

	if (c)
		return c;
	if ((c = strcmp(x->tid, y->tid)))
		return c;
	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/* GPU events sorted by stream, and the streams' ranges in that order. */
struct gpu_sorted {
	size_t *v, n;
	struct { size_t b, e; } *st;
	size_t nst;
};

/* The stream of device @pid (NULL: any) named @tid, from @from on, else nst. */
static size_t find_stream(const struct cp_graph *g, const struct gpu_sorted *gs, const char *pid, const char *tid,
			  size_t from)
{
	for (; from < gs->nst; from++) {
		const struct cp_ev *c = &g->ev[gs->v[gs->st[from].b]];

		if ((!pid || !strcmp(c->pid, pid)) && (!tid || !strcmp(c->tid, tid)))
			break;
	}
	return from;
}

/* The last GPU event of stream @s that ends by @t (or, with @corr >= 0, that
 * was launched before correlation @corr), else -1. */
static int64_t last_before(const struct cp_graph *g, const struct gpu_sorted *gs, size_t s, double t, int64_t corr)
{
	size_t lo = gs->st[s].b, hi = gs->st[s].e, i;

	if (corr >= 0) {
		for (i = hi; i > lo; i--) {
			const struct cp_ev *c = &g->ev[gs->v[i - 1]];

			if (c->corr != TL_NOID && c->corr < corr)
				return (int64_t)gs->v[i - 1];
		}
		return -1;
	}
	/* first event starting after t, then back to one that has ended by t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->ev[gs->v[mid]].s <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i > gs->st[s].b; i--)
		if (g->ev[gs->v[i - 1]].e <= t)
			return (int64_t)gs->v[i - 1];
	return -1;
}

static int sync_edge(struct cp_graph *g, int64_t gpu, int64_t rt)
{
	if (gpu < 0 || rt < 0)
		return 0;
	/* the call waited for the GPU only if the work ended after it began;
	 * otherwise the edge is HTA's, weight 0, and never beats the call */
	bool waited = g->ev[gpu].e > g->ev[rt].s;
	int err = tl_cp_add_edge(g, 2 * (size_t)gpu + 1, 2 * (size_t)rt + 1, 0, g->ev[rt].uid, TL_CP_SYNC);

	if (!err)
		tl_cp_set_pr(g, waited ? 5 : 0);
	return err;
}

/* A sync call @rt drains every stream (tid NULL) or stream @tid. */
static int drain(struct cp_graph *g, const struct gpu_sorted *gs, const char *tid, int64_t rt)
{
	size_t s;
	int err;

	if (rt < 0)
		return 0;
	for (s = find_stream(g, gs, NULL, tid, 0); s < gs->nst; s = find_stream(g, gs, NULL, tid, s + 1))
		if ((err = sync_edge(g, last_before(g, gs, s, g->ev[rt].e, -1), rt)))
			return err;
	return 0;
}

static int64_t arg_int(const cJSON *a, const char *k)
{
	int64_t v;

	return tl_json_i64(cJSON_GetObjectItemCaseSensitive(a, k), INT64_MIN, INT64_MAX, &v) ? v : -1;
}

/* The runtime call of correlation @corr: a binary search in @rts (graph
 * events of runtime/driver calls, by correlation). */
static int64_t rt_of(const struct cp_graph *g, const size_t *rts, size_t n, int64_t corr)
{
	size_t lo = 0, hi = n;

	while (corr != TL_NOID && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int64_t c = g->ev[rts[mid]].corr;

		if (c == corr)
			return (int64_t)rts[mid];
		if (c < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int cmp_corr(const void *a, const void *b, void *ctx)
{
	const struct cp_graph *g = ctx;
	int64_t x = g->ev[*(const size_t *)a].corr, y = g->ev[*(const size_t *)b].corr;

	return x < y ? -1 : x > y;
}

/* launch and kernel_gap edges, then the sync edges. */
static int gpu_edges(struct cp_graph *g, struct tl_trace *tr, bool all)
{
	struct gpu_sorted gs = { 0 };
	uint64_t u, n = tl_trace_nevents(tr), nsync = 0;
	int64_t *recs = NULL, *wait_src = NULL; /* by graph index: the event a stream waits for, -1 */
	size_t *rts = NULL, nrts = 0, i, nrecs = 0;
	int err = -ENOMEM;

	gs.v = malloc((g->nev + 1) * sizeof(*gs.v));
	gs.st = malloc((g->nev + 1) * sizeof(*gs.st));
	rts = malloc((g->nev + 1) * sizeof(*rts));
	recs = malloc((g->nev + 1) * sizeof(*recs));
	wait_src = malloc((g->nev + 1) * sizeof(*wait_src));
	if (!gs.v || !gs.st || !rts || !recs || !wait_src)
		goto out;
	for (i = 0; i < g->nev; i++) {
		if (tl_kind_is_gpu(g->ev[i].kind))
			gs.v[gs.n++] = i;
		else if ((g->ev[i].kind == TL_KIND_RUNTIME || g->ev[i].kind == TL_KIND_DRIVER) &&
			 g->ev[i].corr != TL_NOID)
			rts[nrts++] = i;
	}
	tl_qsort_r(gs.v, gs.n, sizeof(*gs.v), cmp_gpu, g);
	tl_qsort_r(rts, nrts, sizeof(*rts), cmp_corr, g);
	for (i = 0; i < gs.n; i++) {
		const struct cp_ev *c = &g->ev[gs.v[i]];
		const struct cp_ev *p = i ? &g->ev[gs.v[i - 1]] : NULL;

		wait_src[gs.v[i]] = -1;
		if (!p || strcmp(p->pid, c->pid) || strcmp(p->tid, c->tid)) {
			gs.st[gs.nst].b = i;
			gs.st[gs.nst++].e = i + 1;
		} else {
			gs.st[gs.nst - 1].e = i + 1;
		}
	}
	/* cuda_sync events: their args say what they wait for */
	for (u = 0; u < n; u++) {
		struct tl_event_info ei;
		cJSON *a = NULL;
		int64_t rt, rec_corr, on_stream, src;
		char sbuf[32];
		size_t k;

		if (tl_trace_event(tr, u, &ei) || ei.kind != TL_KIND_SYNC)
			continue;
		rt = rt_of(g, rts, nrts, ei.correlation);
		if (rt < 0 && !all)
			continue;
		nsync++;
		if (tl_trace_event_args(tr, u, &a) < 0)
			a = NULL;
		rec_corr = arg_int(a, "wait_on_cuda_event_record_corr_id");
		on_stream = arg_int(a, "wait_on_stream");
		cJSON_Delete(a);
		err = 0;
		snprintf(sbuf, sizeof(sbuf), "%lld", (long long)ei.stream);
		if (!strcmp(ei.name, "Context Sync")) {
			err = drain(g, &gs, NULL, rt);
		} else if (!strcmp(ei.name, "Stream Sync")) {
			err = drain(g, &gs, sbuf, rt);
		} else if ((!strcmp(ei.name, "Event Sync") || !strcmp(ei.name, "Stream Wait Event")) &&
			   rec_corr >= 0 && on_stream >= 0) {
			char obuf[32];
			size_t s;

			for (k = 0; k < nrecs && recs[k] != rec_corr; k++)
				;
			if (k == nrecs)
				recs[nrecs++] = rec_corr;
			/* the GPU event the record follows on its stream */
			snprintf(obuf, sizeof(obuf), "%lld", (long long)on_stream);
			s = find_stream(g, &gs, ei.pid, obuf, 0);
			if (s == gs.nst)
				s = find_stream(g, &gs, NULL, obuf, 0);
			src = s < gs.nst ? last_before(g, &gs, s, 0, rec_corr) : -1;
			if (!strcmp(ei.name, "Event Sync")) {
				err = sync_edge(g, src, rt);
			} else if (src >= 0) {
				/* the first GPU event of the waiting stream launched after the wait */
				int64_t dst = -1;

				s = find_stream(g, &gs, g->ev[src].pid, sbuf, 0);
				for (k = s < gs.nst ? gs.st[s].b : 0; s < gs.nst && k < gs.st[s].e; k++) {
					const struct cp_ev *c = &g->ev[gs.v[k]];

					if (c->corr != TL_NOID && c->corr > ei.correlation &&
					    (dst < 0 || c->corr < g->ev[dst].corr))
						dst = (int64_t)gs.v[k];
				}
				if (dst >= 0) {
					const struct cp_ev *d = &g->ev[dst];
					int64_t drt = tl_cp_gidx(g, tl_event_parent(tr, d->uid));

					/* the time the waiting event was held back: a span, so
					 * the path's length stays one (HTA: weight 0) */
					bool held = drt < 0 || g->ev[src].e > g->ev[drt].s;

					err = tl_cp_add_edge(g, 2 * (size_t)src + 1, 2 * (size_t)dst, 0, d->uid,
							     TL_CP_SYNC);
					if (!err)
						tl_cp_set_pr(g, held ? 5 : 0);
					wait_src[dst] = src;
				}
			}
		}
		if (err)
			goto out;
	}
	/* traces without cuda_sync events, when asked: the synchronize calls by
	 * name (HTA makes no sync edge there) */
	for (i = 0; g->sync_calls && !nsync && i < g->nev; i++) {
		struct tl_event_info c;
		char sbuf[32];

		err = 0;
		if (g->ev[i].kind != TL_KIND_RUNTIME || tl_trace_event(tr, g->ev[i].uid, &c))
			continue;
		if (!strcmp(c.name, "cudaDeviceSynchronize") || !strcmp(c.name, "hipDeviceSynchronize")) {
			err = drain(g, &gs, NULL, (int64_t)i);
		} else if (!strcmp(c.name, "cudaStreamSynchronize") || !strcmp(c.name, "hipStreamSynchronize") ||
			   !strcmp(c.name, "cudaEventSynchronize") || !strcmp(c.name, "hipEventSynchronize")) {
			/* Kineto does not say which stream: every stream's last event
			 * that ended during the call is a candidate (prio() keeps those
			 * that ended before it began off the path) */
			snprintf(sbuf, sizeof(sbuf), "%lld", (long long)c.stream);
			err = drain(g, &gs, c.stream != TL_NOID ? sbuf : NULL, (int64_t)i);
		}
		if (err)
			goto out;
	}
	/* each event's op edge, and the launch or the previous event that held it */
	for (i = 0; i < gs.n; i++) {
		const struct cp_ev *c = &g->ev[gs.v[i]];
		const struct cp_ev *p = i ? &g->ev[gs.v[i - 1]] : NULL;
		int64_t rt = tl_cp_gidx(g, tl_event_parent(tr, c->uid)), ws = wait_src[gs.v[i]];

		if (p && (strcmp(p->pid, c->pid) || strcmp(p->tid, c->tid)))
			p = NULL;
		/* HTA's rule (its queue lengths on an in-order stream): the launch
		 * held the event back when nothing was queued on the stream, neither
		 * at the launch (the previous event had ended) nor when it started
		 * (the next launch came after); else the previous event did, when it
		 * ended less than KERNEL_GAP_US before; else neither is known. An
		 * event held by another stream's (cudaStreamWaitEvent) was held by
		 * neither unless that one ended before the launch, or before the
		 * previous event ended */
		const struct cp_ev *nx = i + 1 < gs.n ? &g->ev[gs.v[i + 1]] : NULL;
		int64_t nrt = nx && !strcmp(nx->pid, c->pid) && !strcmp(nx->tid, c->tid)
				      ? tl_cp_gidx(g, tl_event_parent(tr, nx->uid))
				      : -1;
		bool launch = rt >= 0 && (!p || p->e < g->ev[rt].s) && (nrt < 0 || g->ev[nrt].s > c->s) &&
			      (ws < 0 || g->ev[ws].e < g->ev[rt].s);

		if ((err = tl_cp_add_edge(g, 2 * gs.v[i], 2 * gs.v[i] + 1, c->e - c->s, c->uid, TL_CP_OP)))
			goto out;
		tl_cp_set_pr(g, 2);
		if (launch) {
			if ((err = tl_cp_add_edge(g, 2 * (size_t)rt, 2 * gs.v[i], fmax(0, c->s - g->ev[rt].s), c->uid,
						  TL_CP_LAUNCH)))
				goto out;
			tl_cp_set_pr(g, 4);
		} else if (p && c->s - p->e < KERNEL_GAP_US && (ws < 0 || g->ev[ws].e < p->e)) {
			if ((err = tl_cp_add_edge(g, 2 * gs.v[i - 1] + 1, 2 * gs.v[i], fmax(0, c->s - p->e), c->uid,
						  TL_CP_KERNEL_GAP)))
				goto out;
			tl_cp_set_pr(g, 4);
		}
	}
	g->cp->nevent_records = nrecs;
	err = 0;
out:
	free(gs.v);
	free(gs.st);
	free(rts);
	free(recs);
	free(wait_src);
	return err;
}

static int cat_of(const struct cp_graph *g, const struct cp_gedge *e)
{
	switch (e->type) {
	case TL_CP_LAUNCH: return TL_CP_CAT_LAUNCH;
	case TL_CP_KERNEL_GAP: return TL_CP_CAT_GPU_GAP;
	case TL_CP_SYNC: return TL_CP_CAT_SYNC;
	case TL_CP_OP: return tl_kind_is_gpu(g->node[e->from / 2].kind) ? TL_CP_CAT_KERNEL : TL_CP_CAT_CPU;
	default: return TL_CP_CAT_CPU;
	}
}

/* The events give way to what the longest path reads of them. */
static int keep_nodes(struct cp_graph *g)
{
	size_t i;

	g->node = malloc((g->nev + 1) * sizeof(*g->node));
	if (!g->node)
		return -ENOMEM;
	for (i = 0; i < g->nev; i++)
		g->node[i] = (struct cp_node){ g->ev[i].s, g->ev[i].e, g->ev[i].uid, g->ev[i].kind };
	free(g->ev);
	g->ev = NULL;
	return 0;
}

/* Paths of equal length (weights are spans of time, so every path from the
 * first event to a node has its time: ties are the rule) go to the edge
 * that says why: the awaited GPU work over the CPU's time inside the sync
 * call, stream order over the launch when the event was queued, the launch
 * when the GPU waited for it; CPU nesting last. */
#define TIE_US 1e-6
static int prio(const struct cp_graph *g, const struct cp_gedge *e)
{
	TL_UNUSED(g);
	return e->pr;
}

/* Longest path of the DAG: Kahn's order, then the best incoming edge of each
 * node. 24 bytes per node and 4 per edge: edge indexes are 32-bit (as the
 * nodes are), NO_EDGE for none. */
#define NO_EDGE UINT32_MAX
static int longest(struct cp_graph *g)
{
	size_t nn = 2 * g->nev, i, head = 0, tail = 0, k;
	uint32_t *indeg = NULL, *off = NULL, *adj = NULL, *q = NULL, *via = NULL;
	uint64_t *on = NULL;	/* graph events on the path */
	struct cp_gedge *pe = NULL; /* the path's edges, in order */
	double *dist = NULL;
	struct tl_critpath *cp = g->cp;
	int64_t best = -1, e;
	int err = -ENOMEM;

	if (g->ned >= NO_EDGE || nn >= UINT32_MAX) {
		err = tl_err(-E2BIG, "critpath: a graph of %zu nodes and %zu edges is too big", nn, g->ned);
		goto out;
	}
	indeg = calloc(nn + 1, sizeof(*indeg));
	off = calloc(nn + 2, sizeof(*off));
	adj = malloc((g->ned + 1) * sizeof(*adj));
	q = malloc((nn + 1) * sizeof(*q));
	dist = calloc(nn + 1, sizeof(*dist));
	via = malloc((nn + 1) * sizeof(*via));
	if (!indeg || !off || !adj || !q || !dist || !via)
		goto out;
	for (i = 0; i < g->ned; i++) {
		indeg[g->ed[i].to]++;
		off[g->ed[i].from + 2]++;
	}
	/* off[v + 1] is where v's edges go as they are placed, in edge order;
	 * placing them all moves it to their end, which is v + 1's start */
	for (i = 0; i < nn; i++)
		off[i + 2] += off[i + 1];
	for (i = 0; i < g->ned; i++)
		adj[off[g->ed[i].from + 1]++] = (uint32_t)i;
	for (i = 0; i < nn; i++) {
		via[i] = NO_EDGE;
		if (!indeg[i])
			q[tail++] = (uint32_t)i;
	}
	while (head < tail) {
		uint32_t v = q[head++];

		if (best < 0 || dist[v] > dist[best])
			best = v;
		for (k = off[v]; k < off[v + 1]; k++) {
			const struct cp_gedge *ed = &g->ed[adj[k]];

			double d = dist[v] + ed->w;

			if (via[ed->to] == NO_EDGE || d > dist[ed->to] + TIE_US ||
			    (d >= dist[ed->to] - TIE_US && prio(g, ed) > prio(g, &g->ed[via[ed->to]]))) {
				dist[ed->to] = d;
				via[ed->to] = adj[k];
			}
			if (!--indeg[ed->to])
				q[tail++] = ed->to;
		}
	}
	if (tail != nn) {
		err = tl_err(-EINVAL, "critpath: the graph has a cycle (%zu of %zu nodes ordered)", tail, nn);
		goto out;
	}
	/* walk back from the farthest node, with what only the order needed
	 * given back first, then the graph's edges once the path's are out:
	 * the path can hold half the events (64 bytes per edge). Its events
	 * are marked by graph index, which is UID order. */
	cp->length_us = dist[best];
	free(indeg);
	free(off);
	free(adj);
	free(q);
	free(dist);
	indeg = off = adj = q = NULL;
	dist = NULL;
	for (e = via[best]; e != NO_EDGE; e = via[g->ed[e].from])
		cp->npath++;
	pe = malloc((cp->npath + 1) * sizeof(*pe));
	if (!pe)
		goto out;
	k = cp->npath;
	for (e = via[best]; e != NO_EDGE; e = via[g->ed[e].from])
		pe[--k] = g->ed[e];
	free(g->ed);
	g->ed = NULL;
	cp->path = calloc(cp->npath + 1, sizeof(*cp->path));
	on = calloc(g->nev / 64 + 1, sizeof(*on));
	if (!cp->path || !on)
		goto out;
	/* in the order the walk back took (the sums are the same to the bit) */
	for (k = cp->npath; k-- > 0;) {
		const struct cp_gedge *ed = &pe[k];
		struct tl_cp_edge *p = &cp->path[k];
		const struct cp_node *a = &g->node[ed->from / 2], *b = &g->node[ed->to / 2];

		p->from_uid = a->uid;
		p->to_uid = b->uid;
		p->from_end = ed->from & 1;
		p->to_end = ed->to & 1;
		p->from_ts = p->from_end ? a->e : a->s;
		p->to_ts = p->to_end ? b->e : b->s;
		p->weight = ed->w;
		p->attr_uid = ed->attr;
		p->type = ed->type;
		p->cat = (uint8_t)cat_of(g, ed);
		cp->cat_us[p->cat] += ed->w;
		cp->cat_n[p->cat]++;
		on[ed->from / 2 / 64] |= 1ull << (ed->from / 2 % 64);
		on[ed->to / 2 / 64] |= 1ull << (ed->to / 2 % 64);
	}
	if (!cp->npath)
		on[best / 2 / 64] |= 1ull << (best / 2 % 64);
	for (i = 0, k = 0; i <= g->nev / 64; i++)
		k += (size_t)__builtin_popcountll(on[i]);
	cp->events = malloc((k + 1) * sizeof(*cp->events));
	if (!cp->events)
		goto out;
	for (i = 0; i < g->nev; i++)
		if (on[i / 64] >> (i % 64) & 1)
			cp->events[cp->nevents++] = g->node[i].uid;
	err = 0;
out:
	free(pe);
	free(on);
	free(indeg);
	free(off);
	free(adj);
	free(q);
	free(dist);
	free(via);
	return err;
}

int tl_critpath(struct tl_trace *tr, const struct tl_critpath_opts *opts, struct tl_critpath **out)
{
	struct cp_graph g = { 0 };
	struct tl_link_opts lo = { .sz = sizeof(lo) };
	struct tl_critpath_opts o = { .sz = sizeof(o), .step = -1 };
	double t0, t1;
	bool all;
	int err;

	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	t0 = o.t0;
	t1 = o.t1;
	g.cp = calloc(1, sizeof(*g.cp));
	if (!g.cp) {
		err = -ENOMEM;
		goto out;
	}
	if ((err = tl_trace_link(tr, &lo)))
		goto out;
	g.hta = o.hta;
	g.sync_calls = o.sync_calls;
	if (g.hta && (err = tl_hta_view_of(tr, &g.hv)))
		goto out;
	if (o.step >= 0 && (err = find_step(tr, &g, o.step, &t0, &t1)))
		goto out;
	if (isnan(t0) || isnan(t1)) {
		err = tl_err(-EINVAL, "critpath: bad window");
		goto out;
	}
	all = !(t0 < t1);
	if ((err = collect(&g, tr, t0, t1, all)))
		goto out;
	if (!g.nev) {
		err = all ? tl_err(-ENODATA, "%s: no CPU op, runtime call or GPU event in the trace", tl_trace_path(tr))
			  : tl_err(-ENODATA, "%s: no CPU op, runtime call or GPU event in the window %.3f:%.3f",
				   tl_trace_path(tr), t0, t1);
		goto out;
	}
	g.t0 = t0;
	g.t1 = t1;
	g.all = all;
	if ((err = tl_cp_host_edges(&g, tr)) || (err = gpu_edges(&g, tr, all)))
		goto out;
	free(g.idx);
	g.idx = NULL;
	g.cp->nnodes = 2 * g.nev;
	g.cp->nedges = g.ned;
	if (all) {
		size_t i;

		t0 = INFINITY;
		t1 = -INFINITY;
		for (i = 0; i < g.nev; i++) {
			t0 = fmin(t0, g.ev[i].s);
			t1 = fmax(t1, g.ev[i].e);
		}
	}
	g.cp->t0 = t0;
	g.cp->t1 = t1;
	if ((err = keep_nodes(&g)))
		goto out;
	if ((err = longest(&g)))
		goto out;
	*out = g.cp;
	g.cp = NULL;
out:
	tl_critpath_free(g.cp);
	free(g.ev);
	free(g.node);
	free(g.ed);
	free(g.idx);
	return err;
}

void tl_critpath_free(struct tl_critpath *cp)
{
	if (!cp)
		return;
	free(cp->path);
	free(cp->events);
	free(cp);
}
