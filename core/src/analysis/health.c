/* SPDX-License-Identifier: MIT */
/* Trace health check: the things that silently skew an analysis (events
 * that cannot be linked, broken flows, kernels on one stream that overlap
 * or run past the next one, missing shapes, clock oddities). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "analysis/analysis_internal.h"
#include "trace/trace_internal.h"

struct health_ctx {
	struct tl_health *h;
	int err;
};

static void add(struct health_ctx *c, enum tl_severity sev, const char *code, uint64_t count,
		int64_t example, const char *fmt, ...) TL_PRINTF(6, 7);

static void add(struct health_ctx *c, enum tl_severity sev, const char *code, uint64_t count,
		int64_t example, const char *fmt, ...)
{
	struct tl_health *h = c->h;
	struct tl_finding *f, *nv;
	va_list ap;
	char *msg = NULL;

	if (c->err)
		return;
	nv = realloc(h->v, (h->n + 1) * sizeof(*h->v));
	if (!nv) {
		c->err = -ENOMEM;
		return;
	}
	h->v = nv;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg) {
		c->err = -ENOMEM;
		return;
	}
	f = &h->v[h->n++];
	f->severity = sev;
	f->code = code;
	f->count = count;
	f->example_uid = example;
	f->message = msg;
	if (sev == TL_SEV_ERROR)
		h->nerrors++;
	else if (sev == TL_SEV_WARN)
		h->nwarnings++;
}

static bool has_dur(const struct tl_ev *e)
{
	return (e->flags & (EV_HAS_TS | EV_HAS_DUR)) == (EV_HAS_TS | EV_HAS_DUR);
}

static void check_linking(struct tl_trace *tr, struct health_ctx *c)
{
	uint64_t ngpu = 0, unlinked = 0, host = 0;
	double t_all = 0, t_unl = 0;
	int64_t ex = -1;
	size_t i;

	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];

		if (e->kind == TL_KIND_CPU_OP || e->kind == TL_KIND_RUNTIME)
			host++;
		if (!tl_kind_is_gpu(e->kind) || !has_dur(e))
			continue;
		ngpu++;
		t_all += e->dur;
		if (tr->tree.in_tree[i] != 2) {
			unlinked++;
			t_unl += e->dur;
			if (ex < 0)
				ex = (int64_t)i;
		}
	}
	if (!ngpu) {
		add(c, TL_SEV_INFO, "no-gpu-events", 0, -1,
		    "no GPU events (kernel, gpu_memcpy, gpu_memset): a CPU-only trace; breakdown and kernel summaries do not apply");
		return;
	}
	if (unlinked) {
		double share = t_all > 0 ? 100 * t_unl / t_all : 0;

		add(c, share > 5 ? TL_SEV_ERROR : TL_SEV_WARN, "unlinked-gpu-events", unlinked, ex,
		    "%llu of %llu GPU events (%.2f%% of GPU time) are not linked to a CPU launch; "
		    "the default breakdown leaves them out (see --include-unlinked)",
		    (unsigned long long)unlinked, (unsigned long long)ngpu, share);
	}
	if (tr->tree.linked_by_correlation && host && tr->xprof)
		add(c, TL_SEV_INFO, "no-launch-flows", 0, -1,
		    "a JAX profile: launches were linked to GPU events by correlation id (XSpace has no "
		    "flow events; TraceLens's JAX analysis does not link them)");
	else if (tr->tree.linked_by_correlation && host)
		add(c, TL_SEV_INFO, "no-launch-flows", 0, -1,
		    "the trace has no ac2g flow events; runtime calls were linked to GPU events by "
		    "correlation id directly (TraceLens would link none)");
	if (tr->tree.legacy_links)
		add(c, TL_SEV_WARN, "legacy-launch-flows", tr->tree.legacy_links, -1,
		    "%llu GPU events are linked through async_cpu_to_gpu flows (older Kineto), which TraceLens "
		    "does not follow: its report leaves them unlinked, so its numbers differ from ours "
		    "(--link tracelens gives its numbers)",
		    (unsigned long long)tr->tree.legacy_links);
	if (!host)
		add(c, TL_SEV_INFO, "gpu-only", 0, -1,
		    "no cpu_op or runtime events: a GPU-only trace, op summaries are empty");
}

static void check_flows(struct tl_trace *tr, struct health_ctx *c)
{
	struct tl_kmap s, f;
	uint64_t f_only = 0, s_only = 0, gpu_f_only = 0;
	int64_t ex_f = -1, ex_s = -1, ex_g = -1;
	size_t i;
	uint32_t v;

	if (tl_kmap_init(&s, 1024) || tl_kmap_init(&f, 1024)) {
		tl_kmap_free(&s);
		c->err = -ENOMEM;
		return;
	}
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];

		if (e->kind != TL_KIND_FLOW_LAUNCH || !(e->flags & EV_HAS_CORR))
			continue;
		if (tl_kmap_put(e->ph == 's' ? &s : &f, 0, tl_ev_corr(tr, e), (uint32_t)i)) {
			c->err = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];

		if (e->kind != TL_KIND_FLOW_LAUNCH || !(e->flags & EV_HAS_CORR))
			continue;
		if (e->ph == 'f' && !tl_kmap_get(&s, 0, tl_ev_corr(tr, e), &v)) {
			f_only++;
			if (ex_f < 0)
				ex_f = (int64_t)i;
		}
		if (e->ph == 's' && !tl_kmap_get(&f, 0, tl_ev_corr(tr, e), &v)) {
			s_only++;
			if (ex_s < 0)
				ex_s = (int64_t)i;
		}
	}
	/* the ones that matter: a GPU event whose flow has no start */
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];

		int64_t corr;

		if (!tl_kind_is_gpu(e->kind) || tr->tree.in_tree[i] == 2 || !(e->flags & EV_HAS_CORR))
			continue;
		corr = tl_ev_corr(tr, e);
		if (tl_kmap_get(&f, 0, corr, &v) && !tl_kmap_get(&s, 0, corr, &v)) {
			gpu_f_only++;
			if (ex_g < 0)
				ex_g = (int64_t)i;
		}
	}
	if (gpu_f_only)
		add(c, TL_SEV_WARN, "gpu-flow-without-start", gpu_f_only, ex_g,
		    "%llu GPU events have a flow end (\"f\") but no flow start (\"s\"), so no CPU launch links to them",
		    (unsigned long long)gpu_f_only);
	if (f_only)
		add(c, TL_SEV_INFO, "flow-without-start", f_only, ex_f,
		    "%llu flow ends have no flow start (usual for synchronisation calls; ignored)",
		    (unsigned long long)f_only);
	if (s_only)
		add(c, TL_SEV_INFO, "flow-without-end", s_only, ex_s,
		    "%llu flow starts have no flow end (the launch was not captured on the GPU side)",
		    (unsigned long long)s_only);
out:
	tl_kmap_free(&s);
	tl_kmap_free(&f);
}

struct stream_item {
	uint64_t key;
	double ts, end;
	uint32_t uid;
};

static int cmp_stream_item(const void *a, const void *b)
{
	const struct stream_item *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->uid > y->uid) - (x->uid < y->uid);
}

/* Kernels on one stream run one after another: an overlap is a clock or
 * recording artifact, and a kernel running past the next one's end
 * (TraceLens #669) inflates every union-based number. */
static void check_streams(struct tl_trace *tr, struct health_ctx *c)
{
	struct stream_item *it = malloc(tr->nev * sizeof(*it) + 1);
	uint64_t overlaps = 0, overflows = 0;
	double overlap_us = 0, busy = 0, worst = 0;
	int64_t ex_o = -1, ex_f = -1;
	size_t n = 0, i;

	if (!it) {
		c->err = -ENOMEM;
		return;
	}
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];

		if (!tl_kind_is_gpu(e->kind) || !has_dur(e))
			continue;
		it[n].key = (uint64_t)e->pid << 32 | e->tid;
		it[n].ts = e->ts;
		it[n].end = tl_ev_end(e);
		it[n].uid = (uint32_t)i;
		busy += e->dur;
		n++;
	}
	tl_qsort(it, n, sizeof(*it), cmp_stream_item);
	for (i = 1; i < n; i++) {
		const struct stream_item *p = &it[i - 1], *q = &it[i];
		double ov;

		if (p->key != q->key)
			continue;
		ov = p->end - q->ts;
		if (ov <= 1.0)	/* 1 us of jitter is normal */
			continue;
		overlaps++;
		overlap_us += ov < q->end - q->ts ? ov : q->end - q->ts;
		if (ex_o < 0)
			ex_o = p->uid;
		if (p->end > q->end) {
			overflows++;
			if (p->end - q->end > worst) {
				worst = p->end - q->end;
				ex_f = p->uid;
			}
		}
	}
	free(it);
	if (overflows)
		add(c, TL_SEV_ERROR, "kernel-runs-past-next", overflows, ex_f,
		    "%llu GPU events run past the end of the next event on their stream (worst by %.3f us): "
		    "their dur is not credible and inflates busy time",
		    (unsigned long long)overflows, worst);
	if (overlaps)
		add(c, busy > 0 && overlap_us > 0.01 * busy ? TL_SEV_ERROR : TL_SEV_WARN,
		    "same-stream-overlap", overlaps, ex_o,
		    "%llu pairs of GPU events overlap on the same stream by more than 1 us (%.3f us in all)",
		    (unsigned long long)overlaps, overlap_us);
}

static void check_shapes(struct tl_trace *tr, struct health_ctx *c)
{
	struct tl_launcher_set *ls = NULL;
	struct tl_launcher_opts lo = { .sz = sizeof(lo) };
	uint64_t cpu = 0, missing = 0;
	int64_t ex = -1;
	size_t i;

	/* A JAX profile's ops are HLO ops: they never record Input Dims, and
	 * replay does not apply to them, so there is nothing to warn about. */
	if (tr->xprof)
		return;
	if (tl_launchers(tr, &lo, &ls)) {
		c->err = -ENOMEM;
		return;
	}
	for (i = 0; i < ls->n; i++) {
		const struct tl_ev *e = &tr->ev[ls->v[i].uid];

		if (e->kind != TL_KIND_CPU_OP)
			continue;
		cpu++;
		size_t alen;
		const char *a = tl_ev_args(tr, e, &alen);

		if (!a || !memmem(a, alen, "\"Input Dims\"", 12)) {
			missing++;
			if (ex < 0)
				ex = (int64_t)ls->v[i].uid;
		}
	}
	tl_launcher_set_free(ls);
	if (missing)
		add(c, missing == cpu ? TL_SEV_WARN : TL_SEV_INFO, "missing-shapes", missing, ex,
		    "%llu of %llu kernel-launching ops have no \"Input Dims\" (profile with record_shapes=True "
		    "to replay them)",
		    (unsigned long long)missing, (unsigned long long)cpu);
}

static void check_clocks(struct tl_trace *tr, struct health_ctx *c)
{
	uint64_t neg = 0, nodur = 0, early = 0, lossy = 0, giant = 0, ngpu = 0;
	int64_t ex_neg = -1, ex_nodur = -1, ex_early = -1, ex_giant = -1;
	double worst_early = 0, busy = 0, span_lo = INFINITY, span_hi = -INFINITY;
	const cJSON *base = cJSON_GetObjectItemCaseSensitive(tr->meta, "baseTimeNanoseconds");
	size_t i;

	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];

		if (e->ph == 'X' && (e->flags & EV_HAS_TS) && !(e->flags & EV_HAS_DUR)) {
			nodur++;
			if (ex_nodur < 0)
				ex_nodur = (int64_t)i;
		}
		if ((e->flags & EV_HAS_DUR) && e->dur < 0) {
			neg++;
			if (ex_neg < 0)
				ex_neg = (int64_t)i;
		}
		/* > 2^53 ns worth of microseconds: the ns fraction does not survive a double */
		if ((e->flags & EV_HAS_TS) && e->ts > 9.007e12 && e->ts != floor(e->ts) && !base)
			lossy++;
		if (tl_kind_is_gpu(e->kind) && has_dur(e)) {
			ngpu++;
			busy += e->dur;
			if (e->ts < span_lo)
				span_lo = e->ts;
			if (tl_ev_end(e) > span_hi)
				span_hi = tl_ev_end(e);
			if (tr->tree.in_tree[i] == 2) {
				const struct tl_ev *rt = &tr->ev[tr->tree.parent[i]];

				if (e->ts + 1.0 < rt->ts) {
					early++;
					if (rt->ts - e->ts > worst_early) {
						worst_early = rt->ts - e->ts;
						ex_early = (int64_t)i;
					}
				}
			}
		}
	}
	if (ngpu >= 100) {
		for (i = 0; i < tr->nev; i++) {
			const struct tl_ev *e = &tr->ev[i];

			if (tl_kind_is_gpu(e->kind) && has_dur(e) && e->dur > 0.5 * busy) {
				giant++;
				ex_giant = (int64_t)i;
			}
		}
	}
	if (neg)
		add(c, TL_SEV_ERROR, "negative-duration", neg, ex_neg, "%llu events have a negative dur",
		    (unsigned long long)neg);
	if (nodur)
		add(c, TL_SEV_WARN, "complete-event-without-dur", nodur, ex_nodur,
		    "%llu complete (\"X\") events have no dur and are left out of the analyses",
		    (unsigned long long)nodur);
	if (early)
		add(c, TL_SEV_WARN, "gpu-before-launch", early, ex_early,
		    "%llu GPU events start before the runtime call that launched them (by up to %.3f us): "
		    "CPU and GPU clocks disagree",
		    (unsigned long long)early, worst_early);
	if (lossy)
		add(c, TL_SEV_INFO, "timestamp-precision", lossy, -1,
		    "%llu timestamps are absolute microseconds with a fraction that a double cannot hold "
		    "exactly (no baseTimeNanoseconds); sub-ns rounding may occur",
		    (unsigned long long)lossy);
	if (giant)
		add(c, TL_SEV_ERROR, "dominant-gpu-event", giant, ex_giant,
		    "%llu GPU event(s) last longer than half of all GPU busy time (%.3f ms of a %.3f ms span): "
		    "likely a recording artifact that dominates every summary",
		    (unsigned long long)giant, busy / 1e3, (span_hi - span_lo) / 1e3);
}

/* Host events TraceLens leaves out of the tree (they end after the event that
 * should enclose them), graph launches, launches outside any op. */
static void check_tree(struct tl_trace *tr, struct health_ctx *c)
{
	uint64_t lost = 0, graph = 0, graph_kernels = 0, bare = 0, cpu_ops = 0;
	int64_t ex_lost = -1, ex_bare = -1;
	size_t i;

	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		bool gpu_child = false;
		int32_t ch;

		if (e->kind == TL_KIND_CPU_OP)
			cpu_ops++;
		if (tr->tree.in_tree[i] == 3) {
			lost++;
			if (ex_lost < 0)
				ex_lost = (int64_t)i;
		}
		if (e->kind != TL_KIND_RUNTIME && e->kind != TL_KIND_DRIVER)
			continue;
		for (ch = tr->tree.first_child[i]; ch >= 0; ch = tr->tree.next_sibling[ch])
			if (tl_kind_is_gpu(tr->ev[ch].kind)) {
				gpu_child = true;
				if (e->name == tr->id_graph_cuda || e->name == tr->id_graph_hip)
					graph_kernels++;
			}
		if (e->name == tr->id_graph_cuda || e->name == tr->id_graph_hip)
			graph++;
		if (gpu_child && tr->tree.parent[i] < 0) {
			bare++;
			if (ex_bare < 0)
				ex_bare = (int64_t)i;
		}
	}
	if (lost)
		add(c, TL_SEV_WARN, "left-out-of-tree", lost, ex_lost,
		    "%llu host events end after the event that encloses them and are left out of the call "
		    "tree (TraceLens does the same); their GPU work is attributed to the runtime call",
		    (unsigned long long)lost);
	if (graph)
		add(c, TL_SEV_INFO, "graph-launches", graph, -1,
		    "%llu CUDA/HIP graph launches run %llu GPU events; per-op attribution of graph kernels "
		    "needs the capture trace",
		    (unsigned long long)graph, (unsigned long long)graph_kernels);
	if (bare && cpu_ops)
		add(c, TL_SEV_INFO, "launch-without-op", bare, ex_bare,
		    "%llu runtime calls that launched GPU work have no enclosing cpu_op; they are their own launchers",
		    (unsigned long long)bare);
}

/* Kernels of a replayed graph that no op owns: their launcher is the graph
 * launch itself (no capture merged, no graph annotations, no op around the
 * launch), so every op summary shows the launch, not the ops. */
static void check_graph_owners(struct tl_trace *tr, struct health_ctx *c, double max_pct)
{
	double t_all = 0, t_bare = 0, share;
	uint64_t n = 0;
	int64_t ex = -1;
	size_t i;

	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		const struct tl_ev *call;
		int32_t p;

		if (!tl_kind_is_gpu(e->kind) || !has_dur(e))
			continue;
		t_all += e->dur;
		p = tr->tree.in_tree[i] == 2 ? tr->tree.parent[i] : -1;
		if (p < 0)
			continue;
		call = &tr->ev[p];
		if (call->name != tr->id_graph_cuda && call->name != tr->id_graph_hip)
			continue;
		if (tl_event_launcher(tr, i) != p)
			continue;
		t_bare += e->dur;
		n++;
		if (ex < 0)
			ex = (int64_t)i;
	}
	if (!n)
		return;
	share = t_all > 0 ? 100 * t_bare / t_all : 0;
	add(c, share > max_pct ? TL_SEV_ERROR : TL_SEV_WARN, "graph-kernels-without-op", n, ex,
	    "%.2f%% of GPU time (%llu events) is graph kernels no op owns (under a bare graph launch): op "
	    "summaries show the launch, not the ops; merge the capture traces (--capture DIR) or record "
	    "with PyTorch's CUDA-graph annotations (an error above %g%%, --max-unattributed)",
	    share, (unsigned long long)n, max_pct);
}

int tl_health_check(struct tl_trace *tr, struct tl_health **out)
{
	return tl_health_check_opts(tr, NULL, out);
}

int tl_health_check_opts(struct tl_trace *tr, const struct tl_health_opts *opts, struct tl_health **out)
{
	struct tl_health_opts o = { 0 };
	struct health_ctx c = { 0 };
	double max_pct;
	int err;

	*out = NULL;
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	max_pct = o.max_unattributed_pct > 0 ? o.max_unattributed_pct : TL_HEALTH_MAX_UNATTRIBUTED_PCT;
	if (!(o.max_unattributed_pct >= 0 && o.max_unattributed_pct <= 100))
		return tl_err(-EINVAL, "the unattributed GPU time limit must be a percentage in [0, 100]");
	err = tl_tree_ensure(tr, tr->tree.built && tr->tree.with_python);
	if (err)
		return err;
	c.h = calloc(1, sizeof(*c.h));
	if (!c.h)
		return tl_err(-ENOMEM, "out of memory");
	check_linking(tr, &c);
	check_flows(tr, &c);
	check_streams(tr, &c);
	check_shapes(tr, &c);
	check_clocks(tr, &c);
	check_tree(tr, &c);
	check_graph_owners(tr, &c, max_pct);
	if (c.err) {
		tl_health_free(c.h);
		return tl_err(c.err, "out of memory checking the trace");
	}
	*out = c.h;
	return 0;
}

void tl_health_free(struct tl_health *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->n; i++)
		free(h->v[i].message);
	free(h->v);
	free(h);
}
