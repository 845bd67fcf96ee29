/* SPDX-License-Identifier: MIT */
/* The critical path's host edges as HTA makes them (critical_path_analysis's
 * _construct_graph_from_call_stacks and _construct_graph_from_cuda_runtime_events):
 * each host thread's events of the window go on one call stack in HTA's event
 * order, a depth-first walk of that stack chains the graph's ops and calls,
 * and the calls that take the CUDA runtime's lock are chained across threads
 * in the order they finished.
 *
 * The stack is HTA's, not the trace tree: an end pops whatever is on top.
 * On one thread the two agree; where the backward thread is merged into the
 * forward one (HTA's remapped_tids) and their events overlap, HTA nests them
 * as they come, and the path then runs through both threads' time (nccl_data
 * step 4: 102.9 ms on the forward thread and 88.0 on the backward, 190.9 in
 * all). That is HTA's number, and the default is HTA's definition. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"

/* An event of a host thread's call stack: ops and calls (graph nodes) and
 * what has no node (annotations, Python functions) but nests them. */
struct hev {
	double s, e;
	uint32_t uid;
	uint32_t pid, tid;		   /* tid: the chain's (the forward one for the backward thread) */
	int32_t gi;			   /* graph index, -1: no node */
	int32_t parent, first, next;	   /* the stack's tree, hev indexes, -1 */
	bool lock, blocking;
};

struct host {
	struct hev *h;
	size_t n;
	int32_t *roots; /* events on no other, by thread then in stack order */
	size_t nroots;
	uint32_t fwd_pid, fwd_tid, bwd_pid, bwd_tid; /* 0: no merge */
};

/* Whether @name is one of the @n @names. */
static bool named(const char *name, const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* HTA's BLOCKING_SYNC_CALLS: their span is waiting for the GPU, so their
 * last stretch weighs 0 (the GPU work reaches their end by a sync edge).
 * HTA knows CUDA's names; HIP's are taken as the same calls. */
static const char *const blocking_calls[] = { "cudaDeviceSynchronize",
					      "cudaStreamSynchronize",
					      "cudaEventQuery",
					      "cudaEventSynchronize",
					      "cudaMemcpy",
					      "cudaMemcpyAsync",
					      "hipDeviceSynchronize",
					      "hipStreamSynchronize",
					      "hipEventQuery",
					      "hipEventSynchronize",
					      "hipMemcpy",
					      "hipMemcpyAsync" };

/* HTA's CUDA_RUNTIME_EVENTS: calls that hold the runtime's lock, so only one
 * makes progress at a time, whatever its thread (HIP's alike). */
static const char *const lock_calls[] = { "cudaHostAlloc", "cudaLaunchKernel", "cudaMemcpyAsync",
					  "hipHostMalloc", "hipLaunchKernel",  "hipMemcpyAsync" };

/* Whether events of kind @k sit on a host thread's call stack: every event
 * with a span that HTA does not give a GPU stream. */
static bool on_host_stack(enum tl_kind k)
{
	switch (k) {
	case TL_KIND_CPU_OP:
	case TL_KIND_RUNTIME:
	case TL_KIND_DRIVER:
	case TL_KIND_PYTHON:
	case TL_KIND_USER_ANNOTATION:
	case TL_KIND_TRACE_SPAN:
	case TL_KIND_OTHER:
		return true;
	default:
		return false;
	}
}

/* HTA merges the backward thread into the forward one when one thread has
 * "forward" events and another "autograd" ones (its _get_tid_for_event: the
 * one thread whose cpu_ops and user annotations of the window name the
 * word; none when several do): the backward pass then chains on the forward
 * thread's stack. One pass over the events for both words. */
static void find_fwd_bwd(const struct tl_trace *tr, const struct cp_graph *g, struct host *h)
{
	static const char *const words[2] = { "forward", "autograd" };
	uint32_t pid[2] = { 0, 0 }, tid[2] = { 0, 0 };
	bool several[2] = { false, false };
	uint64_t u, n = tl_trace_nevents(tr);
	int k;

	for (u = 0; u < n; u++) {
		const struct tl_ev *e = &tr->ev[u];
		const char *name;

		if ((e->kind != TL_KIND_CPU_OP && e->kind != TL_KIND_USER_ANNOTATION) || e->ph != 'X' ||
		    !(e->dur > 0) || (!g->all && (e->ts < g->t0 || e->ts > g->t1)))
			continue;
		name = tl_ev_name(tr, e);
		for (k = 0; k < 2; k++) {
			if (several[k] || !strstr(name, words[k]))
				continue;
			if (!tid[k]) {
				pid[k] = e->pid;
				tid[k] = e->tid;
			} else if (pid[k] != e->pid || tid[k] != e->tid) {
				several[k] = true;
			}
		}
	}
	if (!several[0] && !several[1] && tid[0] && tid[1] && (pid[0] != pid[1] || tid[0] != tid[1])) {
		h->fwd_pid = pid[0];
		h->fwd_tid = tid[0];
		h->bwd_pid = pid[1];
		h->bwd_tid = tid[1];
	}
}

/* The host events of the window with a span (HTA drops the others: they
 * upset its stack), on their chain's thread. */
static int collect_host(struct tl_trace *tr, const struct cp_graph *g, struct host *h)
{
	uint64_t u, n = tl_trace_nevents(tr);
	size_t cap = 0;

	for (u = 0; u < n; u++) {
		const struct tl_ev *e = &tr->ev[u];
		struct hev *x;
		double ts, te;
		int64_t gi;

		if (e->ph != 'X' || !on_host_stack(e->kind))
			continue;
		tl_cp_times(g, tr, u, &ts, &te);
		if (!(te > ts) || (!g->all && (ts < g->t0 || ts > g->t1)) || (g->hta && ts >= g->hv.before_us))
			continue;
		if (h->n == cap) {
			void *p;

			cap = cap ? cap * 2 : 1024;
			p = realloc(h->h, cap * sizeof(*h->h));
			if (!p)
				return -ENOMEM;
			h->h = p;
		}
		x = &h->h[h->n++];
		memset(x, 0, sizeof(*x));
		x->s = ts;
		x->e = te;
		x->uid = (uint32_t)u;
		x->pid = e->pid;
		x->tid = e->tid;
		if (h->bwd_tid && e->pid == h->bwd_pid && e->tid == h->bwd_tid) {
			x->pid = h->fwd_pid;
			x->tid = h->fwd_tid;
		}
		gi = tl_cp_is_host(e->kind) ? tl_cp_gidx(g, (int64_t)u) : -1;
		x->gi = (int32_t)gi;
		x->parent = x->first = x->next = -1;
		if (gi >= 0) {
			const char *name = tl_ev_name(tr, e);

			x->lock = named(name, lock_calls, TL_ARRAY_SIZE(lock_calls));
			x->blocking = named(name, blocking_calls, TL_ARRAY_SIZE(blocking_calls));
		}
	}
	return 0;
}

/* A start or end of a stack event: its hev index << 1, | 1 for the end
 * (4 bytes each while the stacks are built). */
#define SEV_IDX(v) ((v) >> 1)
#define SEV_END(v) ((v)&1u)

/* HTA's compare_events, within one thread (the stack's events have spans). */
static int cmp_sev(const void *a, const void *b, void *ctx)
{
	const struct host *h = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct hev *hx = &h->h[SEV_IDX(x)], *hy = &h->h[SEV_IDX(y)];
	double tx = SEV_END(x) ? hx->e : hx->s, ty = SEV_END(y) ? hy->e : hy->s;
	double dx = hx->e - hx->s, dy = hy->e - hy->s;
	bool start = !SEV_END(x);

	if (hx->pid != hy->pid)
		return hx->pid < hy->pid ? -1 : 1;
	if (hx->tid != hy->tid)
		return hx->tid < hy->tid ? -1 : 1;
	if (hx == hy)
		return start ? -1 : 1;
	if (tx != ty)
		return tx < ty ? -1 : 1;
	/* an end before a start at the same time */
	if (SEV_END(x) != SEV_END(y))
		return start ? 1 : -1;
	/* starts: the longer first; ends: the shorter first */
	if (dx != dy)
		return start == (dx > dy) ? -1 : 1;
	/* starts: the lower index first; ends: the higher */
	return start == (hx->uid < hy->uid) ? -1 : 1;
}

/* The call stacks: each start goes under what is on top; each end pops the
 * top, whichever event that is (HTA's _construct_call_stack_graph). */
static int build_stacks(struct host *h)
{
	uint32_t *s = malloc((2 * h->n + 1) * sizeof(*s));
	int32_t *st = malloc((h->n + 1) * sizeof(*st));
	size_t i, ns = 0, top = 0;
	int err = -ENOMEM;

	h->roots = malloc((h->n + 1) * sizeof(*h->roots));
	if (!s || !st || !h->roots)
		goto out;
	for (i = 0; i < h->n; i++) {
		s[ns++] = (uint32_t)i << 1;
		s[ns++] = (uint32_t)i << 1 | 1u;
	}
	tl_qsort_r(s, ns, sizeof(*s), cmp_sev, h);
	for (i = 0; i < ns; i++) {
		int32_t xi = (int32_t)SEV_IDX(s[i]);
		struct hev *x = &h->h[xi];
		const struct hev *prev = i ? &h->h[SEV_IDX(s[i - 1])] : NULL;

		/* a new thread starts a new stack */
		if (prev && (prev->pid != x->pid || prev->tid != x->tid))
			top = 0;
		if (SEV_END(s[i])) {
			if (top)
				top--;
			continue;
		}
		if (top)
			x->parent = st[top - 1];
		else
			h->roots[h->nroots++] = xi;
		st[top++] = xi;
	}
	/* each parent's children in start order: put at the head, last first */
	for (i = ns; i-- > 0;) {
		struct hev *x = &h->h[SEV_IDX(s[i])];

		if (SEV_END(s[i]) || x->parent < 0)
			continue;
		x->next = h->h[x->parent].first;
		h->h[x->parent].first = (int32_t)SEV_IDX(s[i]);
	}
	err = 0;
out:
	free(s);
	free(st);
	return err;
}

/* A node of the graph: event @gi's start or end. */
#define NODE(gi, end) (2 * (size_t)(gi) + ((end) ? 1 : 0))

/* Whether the step between two consecutive nodes of a thread is the
 * runtime lock's (made by lock_edges), not the stack's: both are lock calls
 * and they are not one's end and the next one's start. */
static bool shares_lock(const struct hev *a, bool a_end, const struct hev *b, bool b_end)
{
	return a->lock && b->lock && (!a_end || b_end);
}

/* The walk's state on one thread (HTA's enter_func/exit_func). */
struct walk {
	const struct hev *last; /* the last node's event, NULL: none yet */
	bool last_end;
	int64_t last_parent; /* its event's stack parent (UID), -1: none */
	int depth;	     /* nodes open on the walk */
};

/* An edge of the walk from the last node to @x's start or end, attributed as
 * HTA does: to the source's event when it leaves a start, to the destination's
 * when it reaches an end, else (an end to a start) to the parent. */
static int walk_edge(struct cp_graph *g, struct host *h, struct walk *w, const struct hev *x, bool end)
{
	int type = TL_CP_OP, err = 0;
	double w8;
	uint64_t attr;

	if (w->last && !shares_lock(w->last, w->last_end, x, end)) {
		double from = w->last_end ? w->last->e : w->last->s;

		if (!end && !w->depth)
			type = TL_CP_DEPENDENCY; /* consecutive top-level ops: no time */
		w8 = type == TL_CP_DEPENDENCY || (end && x->blocking) ? 0 : (end ? x->e : x->s) - from;
		if (!w->last_end)
			attr = w->last->uid;
		else if (end)
			attr = x->uid;
		else
			attr = w->last_parent >= 0 ? (uint64_t)w->last_parent : x->uid;
		err = tl_cp_add_edge(g, NODE(w->last->gi, w->last_end), NODE(x->gi, end), w8, attr, type);
	}
	w->last = x;
	w->last_end = end;
	w->last_parent = x->parent >= 0 ? (int64_t)h->h[x->parent].uid : -1;
	w->depth += end ? -1 : 1;
	return err;
}

/* Depth first over each thread's stack: an event with a node is entered
 * (an edge to its start) and left (an edge to its end); one without is
 * passed through. */
static int walk_stacks(struct cp_graph *g, struct host *h)
{
	int32_t *st = malloc((h->n + 1) * sizeof(*st));
	size_t i, top;
	int err = -ENOMEM;
	struct walk w = { 0 };

	if (!st)
		goto out;
	err = 0;
	for (i = 0; i < h->nroots && !err; i++) {
		struct hev *r = &h->h[h->roots[i]];
		int32_t c;

		/* a new thread, a new walk */
		if (w.last && (w.last->pid != r->pid || w.last->tid != r->tid))
			w = (struct walk){ 0 };
		top = 0;
		st[top++] = h->roots[i];
		if (r->gi >= 0)
			err = walk_edge(g, h, &w, r, false);
		while (top && !err) {
			struct hev *x = &h->h[st[top - 1]];

			/* x->first is the next child to enter; -1: x is done */
			if ((c = x->first) >= 0) {
				x->first = h->h[c].next;
				st[top++] = c;
				if (h->h[c].gi >= 0)
					err = walk_edge(g, h, &w, &h->h[c], false);
				continue;
			}
			top--;
			if (x->gi >= 0)
				err = walk_edge(g, h, &w, x, true);
		}
	}
out:
	free(st);
	return err;
}

/* A lock call's start or end node, ordered by time, then by UID (HTA sorts
 * its nodes by time and event index). */
struct lnode {
	double t;
	uint32_t uid;
	int32_t gi;
	bool end;
};

static int cmp_lnode(const void *a, const void *b)
{
	const struct lnode *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/* The runtime lock: at each lock call's end, every call started and not yet
 * closed waited for it (a dependency edge to that end), the call itself
 * weighs its span, and the ends chain in the order they came. */
static int lock_edges(struct cp_graph *g, const struct host *h)
{
	struct lnode *v = NULL;
	size_t i, n = 0, nopen = 0, *open = NULL;
	const struct lnode *last = NULL;
	int err = -ENOMEM;

	for (i = 0; i < h->n; i++)
		n += h->h[i].lock && h->h[i].gi >= 0 ? 2 : 0;
	v = malloc((n + 1) * sizeof(*v));
	open = malloc((n + 1) * sizeof(*open));
	if (!v || !open)
		goto out;
	n = 0;
	for (i = 0; i < h->n; i++) {
		const struct hev *x = &h->h[i];

		if (!x->lock || x->gi < 0)
			continue;
		v[n++] = (struct lnode){ x->s, x->uid, x->gi, false };
		v[n++] = (struct lnode){ x->e, x->uid, x->gi, true };
	}
	qsort(v, n, sizeof(*v), cmp_lnode);
	err = 0;
	for (i = 0; i < n && !err; i++) {
		if (!v[i].end) {
			open[nopen++] = i;
			last = &v[i];
			continue;
		}
		while (nopen && !err) {
			const struct lnode *s = &v[open[--nopen]];

			if (s->gi == v[i].gi) {
				const struct cp_ev *c = &g->ev[s->gi];

				err = tl_cp_add_edge(g, NODE(s->gi, false), NODE(v[i].gi, true), c->e - c->s, c->uid,
						     TL_CP_OP);
			} else {
				err = tl_cp_add_edge(g, NODE(s->gi, false), NODE(v[i].gi, true), 0, v[i].uid,
						     TL_CP_DEPENDENCY);
			}
		}
		if (!err && last && last->end)
			err = tl_cp_add_edge(g, NODE(last->gi, true), NODE(v[i].gi, true), 0, v[i].uid,
					     TL_CP_DEPENDENCY);
		last = &v[i];
	}
out:
	free(v);
	free(open);
	return err;
}

int tl_cp_host_edges(struct cp_graph *g, struct tl_trace *tr)
{
	struct host h = { 0 };
	int err;

	find_fwd_bwd(tr, g, &h);
	if ((err = collect_host(tr, g, &h)) || (err = build_stacks(&h)) || (err = lock_edges(g, &h)))
		goto out;
	err = walk_stacks(g, &h);
out:
	free(h.h);
	free(h.roots);
	return err;
}
